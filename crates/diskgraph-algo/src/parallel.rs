//! Helpers of the parallel variants: chunking for rayon, deterministic sums, and `f64` sums in
//! atomic words (the selective variants receive list pieces on any thread, in any order).

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;

/// Splits `len` items into chunks for rayon: about eight per thread, at least `min` each.
pub(crate) fn chunk_len(len: usize, min: usize) -> usize {
    let parts = rayon::current_num_threads() * 8;
    len.div_ceil(parts).max(min).max(1)
}

/// Terms summed in order per block by [`det_sum`].
pub(crate) const DET_SUM_BLOCK: usize = 4096;

/// Sums `f(i)` for `i in 0..len` in parallel, deterministically: fixed blocks summed in order,
/// then the block sums in order, so the result does not depend on the thread count.
pub(crate) fn det_sum(len: usize, f: impl Fn(usize) -> f64 + Sync) -> f64 {
    const BLOCK: usize = DET_SUM_BLOCK;
    let blocks: Vec<f64> = (0..len.div_ceil(BLOCK))
        .into_par_iter()
        .map(|b| (b * BLOCK..((b + 1) * BLOCK).min(len)).map(&f).sum())
        .collect();
    blocks.into_iter().sum()
}

/// `n` atomics holding `value`.
pub(crate) fn atomics(n: usize, value: u64) -> Vec<AtomicU64> {
    (0..n).into_par_iter().map(|_| AtomicU64::new(value)).collect()
}

/// Adds `x` to the `f64` stored (as bits) in `a`.
#[inline]
pub(crate) fn add_f64(a: &AtomicU64, x: f64) {
    combine_f64(a, x, |a, b| a + b);
}

/// Replaces the `f64` stored (as bits) in `a` by `combine(it, x)`, atomically.
#[inline]
pub(crate) fn combine_f64(a: &AtomicU64, x: f64, combine: impl Fn(f64, f64) -> f64) {
    let mut cur = a.load(Relaxed);
    loop {
        let new = combine(f64::from_bits(cur), x).to_bits();
        match a.compare_exchange_weak(cur, new, Relaxed, Relaxed) {
            Ok(_) => return,
            Err(actual) => cur = actual,
        }
    }
}

/// Accumulates per-vertex sums of list pieces into `acc` (`f64` bits, zeroed): a piece that is
/// the whole list is stored as is — the same sum, in the same order, as a sum over the list in
/// memory — and the pieces of a split list are added atomically.
#[inline]
pub(crate) fn accumulate(acc: &AtomicU64, whole: bool, sum: f64) {
    accumulate_with(acc, whole, sum, |a, b| a + b);
}

/// [`accumulate`] with another combination (`acc` holding its empty value): a whole list's
/// value is stored, a piece's combined atomically.
#[inline]
pub(crate) fn accumulate_with(acc: &AtomicU64, whole: bool, value: f64, combine: impl Fn(f64, f64) -> f64) {
    if whole {
        acc.store(value.to_bits(), Relaxed);
    } else {
        combine_f64(acc, value, combine);
    }
}
