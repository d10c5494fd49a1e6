//! LEB128 varints: the list length that starts every encoding.

use super::CodecError;

/// Appends `value` as a LEB128 varint (7 bits per byte, low first).
pub(super) fn put(mut value: u64, out: &mut Vec<u8>) {
    while value >= 0x80 {
        out.push(value as u8 | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// Reads a varint from the front of `bytes`: the value and the bytes it took.
pub(super) fn get(bytes: &[u8]) -> Result<(u64, usize), CodecError> {
    let mut value = 0u64;
    for (i, &b) in bytes.iter().enumerate().take(10) {
        value |= u64::from(b & 0x7f) << (7 * i);
        if b < 0x80 {
            if i == 9 && b > 1 {
                break;
            }
            return Ok((value, i + 1));
        }
    }
    if bytes.len() < 10 && bytes.last().is_some_and(|&b| b >= 0x80) {
        return Err(CodecError::Truncated {
            needed: bytes.len() as u64 + 1,
            available: bytes.len() as u64,
        });
    }
    Err(CodecError::Malformed("a length longer than 64 bits"))
}
