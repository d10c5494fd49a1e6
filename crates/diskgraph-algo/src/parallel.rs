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
    let blocks: Vec<f64> = (0..len.div_ceil(DET_SUM_BLOCK))
        .into_par_iter()
        .map(|b| block_sum(b, len, &f))
        .collect();
    blocks.into_iter().sum()
}

/// [`det_sum`] on the calling thread (single-threaded engines): the same sum, bit for bit.
pub(crate) fn det_sum_on_one_thread(len: usize, f: impl Fn(usize) -> f64) -> f64 {
    (0..len.div_ceil(DET_SUM_BLOCK)).map(|b| block_sum(b, len, &f)).sum()
}

/// The sum of block `b` of [`det_sum`]: its terms in order.
fn block_sum(b: usize, len: usize, f: impl Fn(usize) -> f64) -> f64 {
    (b * DET_SUM_BLOCK..((b + 1) * DET_SUM_BLOCK).min(len)).map(f).sum()
}

/// Sums `f(i)` for `i in 0..len` with Neumaier's compensated summation, in parallel blocks
/// combined in order: within a few ulps of the exact sum whatever `len`, where a plain sum of
/// hundreds of millions of like terms drifts by their count times half an ulp of the running
/// total (2⁻⁵⁵ each below ½: 2·10⁻⁹ over Kronecker 28's ranks). For checks that compare a sum
/// to a tolerance near that drift. Twenty lines, so not worth a crate.
pub(crate) fn compensated_sum(len: usize, f: impl Fn(usize) -> f64 + Sync) -> f64 {
    /// A running sum and the low-order part its additions lost.
    #[derive(Clone, Copy, Default)]
    struct Neumaier(f64, f64);
    impl Neumaier {
        fn add(self, x: f64) -> Self {
            let Neumaier(sum, lost) = self;
            let t = sum + x;
            let lost = if sum.abs() >= x.abs() {
                lost + ((sum - t) + x)
            } else {
                lost + ((x - t) + sum)
            };
            Neumaier(t, lost)
        }
    }
    const BLOCK: usize = DET_SUM_BLOCK;
    let blocks: Vec<Neumaier> = (0..len.div_ceil(BLOCK))
        .into_par_iter()
        .map(|b| (b * BLOCK..((b + 1) * BLOCK).min(len)).fold(Neumaier::default(), |s, i| s.add(f(i))))
        .collect();
    let total = blocks.iter().fold(Neumaier::default(), |s, b| s.add(b.0).add(b.1));
    total.0 + total.1
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compensated_sum_keeps_what_a_plain_sum_rounds_away() {
        // 2²⁰ terms each below half an ulp of 1: a plain sum never moves, the exact sum does.
        let (len, tiny) = (1 << 20, 2f64.powi(-60));
        let term = |i: usize| if i == 0 { 1.0 } else { tiny };
        assert_eq!((0..len).map(term).sum::<f64>(), 1.0);
        assert_eq!(compensated_sum(len, term), 1.0 + (len - 1) as f64 * tiny);
        // Neumaier's form keeps a term smaller than the ones that cancel around it.
        let terms = [1e16, 1.0, -1e16];
        assert_eq!(compensated_sum(terms.len(), |i| terms[i]), 1.0);
        assert_eq!(compensated_sum(0, |_| 1.0), 0.0);
    }
}
