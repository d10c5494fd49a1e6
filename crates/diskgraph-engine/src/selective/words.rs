//! Edge words between the I/O layer's byte chunks and the engine's arrays: decoded from a
//! chunk (borrowed in place when aligned), and copied into an array at disjoint positions by
//! several workers at once ([`SharedSlice`]).

use std::borrow::Cow;
use std::marker::PhantomData;

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

/// A mutable slice written concurrently at disjoint positions.
pub(crate) struct SharedSlice<'a> {
    ptr: *mut u32,
    len: usize,
    _borrow: PhantomData<&'a mut [u32]>,
}

// SAFETY: the pointer comes from a `&mut [u32]` borrowed for `'a`; concurrent use is limited to
// `write`, whose contract forbids overlapping writes.
unsafe impl Sync for SharedSlice<'_> {}

impl<'a> SharedSlice<'a> {
    /// Shares `slice` for writes at disjoint positions, for as long as it is borrowed.
    pub(crate) fn new(slice: &'a mut [u32]) -> Self {
        SharedSlice {
            ptr: slice.as_mut_ptr(),
            len: slice.len(),
            _borrow: PhantomData,
        }
    }

    /// Copies `src` to positions `at..at + src.len()`.
    ///
    /// # Safety
    /// No other call may write an overlapping range concurrently.
    ///
    /// # Panics
    /// If the range is out of bounds.
    pub(crate) unsafe fn write(&self, at: usize, src: &[u32]) {
        assert!(
            at.checked_add(src.len()).is_some_and(|end| end <= self.len),
            "write out of bounds"
        );
        // SAFETY: in bounds (checked above) of a live exclusive borrow; the caller guarantees no
        // concurrent overlapping write; `src` cannot alias the buffer (it is a read buffer).
        unsafe { std::ptr::copy_nonoverlapping(src.as_ptr(), self.ptr.add(at), src.len()) };
    }
}
