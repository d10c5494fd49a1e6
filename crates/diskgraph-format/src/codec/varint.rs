//! LEB128 varints (the `integer-encoding` crate's): the list length that starts every encoding,
//! and the run headers of compressed grid blocks.

use integer_encoding::VarInt;

use super::CodecError;

/// Appends `value` as a LEB128 varint (7 bits per byte, low first).
pub(crate) fn put(value: u64, out: &mut Vec<u8>) {
    let at = out.len();
    out.resize(at + value.required_space(), 0);
    value.encode_var(&mut out[at..]);
}

/// Reads a varint from the front of `bytes`: the value and the bytes it took.
pub(crate) fn get(bytes: &[u8]) -> Result<(u64, usize), CodecError> {
    u64::decode_var(bytes).ok_or_else(|| {
        // Cut short: every byte there says another follows.
        if bytes.len() < 10 && bytes.iter().all(|&b| b >= 0x80) {
            CodecError::Truncated {
                needed: bytes.len() as u64 + 1,
                available: bytes.len() as u64,
            }
        } else {
            CodecError::Malformed("a length longer than 64 bits")
        }
    })
}
