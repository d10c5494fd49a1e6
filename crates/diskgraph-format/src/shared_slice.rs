//! A mutable slice that parallel tasks write at disjoint positions ([`SharedSlice`]): the
//! scatter that puts a column in original-ID order ([`IdOrder`](crate::IdOrder)), and the
//! engines' chunks of edges landing at their place in an array. It lives here, the lowest crate
//! that both use, so that the workspace has one such type with one contract.

use std::marker::PhantomData;

/// A mutable slice written concurrently at disjoint positions, for as long as it is borrowed.
///
/// Writes are bounds-checked; what the type cannot check, and what each `unsafe` call promises,
/// is that no two writes that may run at once touch the same position. Nothing reads the slice
/// while it is shared: it is borrowed mutably until the `SharedSlice` is dropped.
pub struct SharedSlice<'a, T> {
    ptr: *mut T,
    len: usize,
    _borrow: PhantomData<&'a mut [T]>,
}

// SAFETY: the pointer comes from a `&mut [T]` borrowed for `'a`, so no other reference to the
// elements exists meanwhile; shared use is limited to `write` and `set`, whose contracts forbid
// concurrent writes to one position. Values of `T` move between threads, hence `T: Send`.
unsafe impl<T: Send> Sync for SharedSlice<'_, T> {}

impl<'a, T: Copy> SharedSlice<'a, T> {
    /// Shares `slice` for writes at disjoint positions, for as long as it is borrowed.
    pub fn new(slice: &'a mut [T]) -> Self {
        SharedSlice {
            ptr: slice.as_mut_ptr(),
            len: slice.len(),
            _borrow: PhantomData,
        }
    }

    /// Copies `src` to positions `at..at + src.len()`.
    ///
    /// # Safety
    /// No other call may write any of these positions concurrently.
    ///
    /// # Panics
    /// If the range is out of bounds.
    pub unsafe fn write(&self, at: usize, src: &[T]) {
        assert!(
            at.checked_add(src.len()).is_some_and(|end| end <= self.len),
            "write of {} at {at} past the end ({})",
            src.len(),
            self.len
        );
        // SAFETY: in bounds (checked above) of a live exclusive borrow; the caller guarantees no
        // concurrent write to the range; `src` cannot overlap it, as no shared reference to the
        // slice's elements exists while it is borrowed here.
        unsafe { std::ptr::copy_nonoverlapping(src.as_ptr(), self.ptr.add(at), src.len()) };
    }

    /// Writes `value` at position `at`.
    ///
    /// # Safety
    /// No other call may write position `at` concurrently.
    ///
    /// # Panics
    /// If `at` is out of bounds.
    #[inline]
    pub unsafe fn set(&self, at: usize, value: T) {
        assert!(at < self.len, "position {at} past the end ({})", self.len);
        // SAFETY: in bounds (checked above) of a live exclusive borrow; the caller guarantees no
        // concurrent write to it.
        unsafe { self.ptr.add(at).write(value) };
    }
}

#[cfg(test)]
mod tests {
    use rayon::prelude::*;

    use super::*;

    #[test]
    fn disjoint_parallel_writes_all_land() {
        let mut out = vec![0u32; 1000];
        {
            let shared = SharedSlice::new(&mut out);
            (0..100usize).into_par_iter().for_each(|k| {
                let chunk: Vec<u32> = (0..7).map(|j| (k * 10 + j) as u32).collect();
                // SAFETY: task `k` writes positions `10k..10k + 7` and `10k + 9`, which no other
                // task writes.
                unsafe {
                    shared.write(k * 10, &chunk);
                    shared.set(k * 10 + 9, 1);
                }
            });
        }
        for (i, &v) in out.iter().enumerate() {
            let expect = match i % 10 {
                9 => 1,
                j if j < 7 => i as u32,
                _ => 0,
            };
            assert_eq!(v, expect, "position {i}");
        }
    }

    #[test]
    #[should_panic(expected = "past the end")]
    fn a_write_past_the_end_panics() {
        let mut out = [0u8; 4];
        let shared = SharedSlice::new(&mut out);
        // SAFETY: a single thread; the write is refused before it happens.
        unsafe { shared.write(2, &[1, 2, 3]) };
    }

    #[test]
    #[should_panic(expected = "past the end")]
    fn a_set_past_the_end_panics() {
        let mut out = [0u8; 4];
        let shared = SharedSlice::new(&mut out);
        // SAFETY: a single thread; the write is refused before it happens.
        unsafe { shared.set(4, 1) };
    }
}
