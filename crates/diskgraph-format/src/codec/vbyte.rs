//! Stream VByte over gaps (Lemire, Kurz and Rupp, 2018): a varint length n, then ⌈n/4⌉ control
//! bytes (two bits per value: its byte count minus one, first value in the low bits), then the
//! values — the first ID, then each gap to the previous one — in 1–4 little-endian bytes each.
//! Control bytes and data apart make the decoder's work per quad a table lookup and a copy.

use super::{varint, Bounds, CodecError};

/// Bytes (1–4) of `x`, minus one.
fn code(x: u32) -> u8 {
    match x {
        0..=0xff => 0,
        0x100..=0xffff => 1,
        0x1_0000..=0xff_ffff => 2,
        _ => 3,
    }
}

/// Appends the encoding of the non-empty, non-descending `list`.
pub(super) fn encode(list: &[u32], out: &mut Vec<u8>) {
    varint::put(list.len() as u64, out);
    let control_at = out.len();
    out.resize(control_at + list.len().div_ceil(4), 0);
    let mut prev = 0u32;
    for (i, &x) in list.iter().enumerate() {
        let gap = x - prev;
        prev = x;
        let c = code(gap);
        out[control_at + i / 4] |= c << (2 * (i % 4));
        out.extend_from_slice(&gap.to_le_bytes()[..=usize::from(c)]);
    }
}

/// Data bytes a control byte's four values take.
const QUAD_BYTES: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut c = 0;
    while c < 256 {
        t[c] = (c & 3) as u8 + (c >> 2 & 3) as u8 + (c >> 4 & 3) as u8 + (c >> 6 & 3) as u8 + 4;
        c += 1;
    }
    t
};

/// Decodes a non-empty encoding into `out` (empty on entry).
pub(super) fn decode(bytes: &[u8], bounds: Bounds, out: &mut Vec<u32>) -> Result<(), CodecError> {
    let (len, used) = varint::get(bytes)?;
    let rest = &bytes[used..];
    // Every value takes at least one data byte, so the bytes bound the length before allocating.
    let limit = bounds.max_len.min(rest.len() as u64);
    if len == 0 || len > limit {
        return Err(CodecError::Length { len, limit });
    }
    let n = len as usize;
    let (control, data) = rest.split_at(n.div_ceil(4));
    // The control bytes say how long the data is: checked before any value is read.
    let full_quads = n / 4;
    let mut need: usize = control[..full_quads]
        .iter()
        .map(|&c| usize::from(QUAD_BYTES[usize::from(c)]))
        .sum();
    if !n.is_multiple_of(4) {
        let last = control[full_quads];
        if last >> (2 * (n % 4)) != 0 {
            return Err(CodecError::Malformed("control bits set past the list's end"));
        }
        need += (0..n % 4).map(|i| usize::from(last >> (2 * i) & 3) + 1).sum::<usize>();
    }
    if need != data.len() {
        return Err(if need > data.len() {
            CodecError::Truncated {
                needed: (used + control.len() + need) as u64,
                available: bytes.len() as u64,
            }
        } else {
            CodecError::Trailing {
                extra: (data.len() - need) as u64,
            }
        });
    }
    out.reserve(n);
    let mut at = 0usize;
    let mut acc = 0u64;
    for i in 0..n {
        let c = usize::from(control[i / 4] >> (2 * (i % 4)) & 3);
        let mut word = [0u8; 4];
        word[..=c].copy_from_slice(&data[at..=at + c]);
        at += c + 1;
        acc += u64::from(u32::from_le_bytes(word));
        out.push(acc as u32);
    }
    // Gaps are non-negative, so the last ID is the largest: one check covers the list.
    let bound = bounds.num_vertices.min(1 << 32);
    if acc >= bound {
        return Err(first_out_of_range(control, data, n, bound, bounds.num_vertices));
    }
    Ok(())
}

/// The error for the first ID of a list at or above `bound` (the slow path of a damaged list).
fn first_out_of_range(control: &[u8], data: &[u8], n: usize, bound: u64, num_vertices: u64) -> CodecError {
    let (mut at, mut acc) = (0usize, 0u64);
    for i in 0..n {
        let c = usize::from(control[i / 4] >> (2 * (i % 4)) & 3);
        let mut word = [0u8; 4];
        word[..=c].copy_from_slice(&data[at..=at + c]);
        at += c + 1;
        acc += u64::from(u32::from_le_bytes(word));
        if acc >= bound {
            return CodecError::OutOfRange {
                position: i as u64,
                value: acc,
                num_vertices,
            };
        }
    }
    unreachable!("called only when the last prefix sum is out of range")
}
