//! Edge words between the I/O layer's byte chunks and the engine's arrays: decoded from a
//! chunk (borrowed in place when aligned). Workers copy them into an array at disjoint
//! positions through [`SharedSlice`](diskgraph_format::SharedSlice).

use std::borrow::Cow;

/// Little-endian `u32`s from bytes: borrowed when aligned, copied otherwise.
pub(crate) fn as_u32s(bytes: &[u8]) -> Cow<'_, [u32]> {
    from_le(bytes, u32::from_le_bytes)
}

/// Little-endian `f32`s from bytes: borrowed when aligned, copied otherwise.
pub(crate) fn as_f32s(bytes: &[u8]) -> Cow<'_, [f32]> {
    from_le(bytes, f32::from_le_bytes)
}

/// Four-byte little-endian words from bytes, decoded by `word`: borrowed when aligned, copied
/// otherwise.
fn from_le<T: bytemuck::Pod>(bytes: &[u8], word: impl Fn([u8; 4]) -> T) -> Cow<'_, [T]> {
    match bytemuck::try_cast_slice(bytes) {
        Ok(s) => Cow::Borrowed(s),
        Err(_) => Cow::Owned(
            bytes
                .chunks_exact(4)
                .map(|c| word(c.try_into().expect("4 bytes")))
                .collect(),
        ),
    }
}
