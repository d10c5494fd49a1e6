//! [`Frontier`]: a concurrent bitmap of vertices (the active set of a stream iteration, the
//! vertices it updated, a load's pending reentry set).

use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;

/// A set of vertices `0..n` as a bitmap of atomic words: any thread may add, test or remove a
/// vertex at any time.
pub struct Frontier {
    words: Vec<AtomicU64>,
    n: usize,
}

impl Frontier {
    /// The empty set over `n` vertices.
    pub fn new(n: usize) -> Frontier {
        Frontier {
            words: (0..n.div_ceil(64)).map(|_| AtomicU64::new(0)).collect(),
            n,
        }
    }

    /// Every vertex of `0..n`.
    pub fn full(n: usize) -> Frontier {
        let f = Frontier::new(n);
        f.insert_range(0..n as u64);
        f
    }

    /// Number of vertices the set ranges over.
    pub fn universe(&self) -> usize {
        self.n
    }

    /// Bytes of the bitmap.
    pub fn bytes(&self) -> u64 {
        self.words.len() as u64 * 8
    }

    /// Adds `v`; true when it was not in the set.
    ///
    /// # Panics
    /// If `v` is not below the universe.
    #[inline]
    pub fn insert(&self, v: u32) -> bool {
        let bit = 1u64 << (v % 64);
        self.words[(v / 64) as usize].fetch_or(bit, Relaxed) & bit == 0
    }

    /// Whether `v` is in the set.
    #[inline]
    pub fn contains(&self, v: u32) -> bool {
        self.words[(v / 64) as usize].load(Relaxed) & (1u64 << (v % 64)) != 0
    }

    /// Removes `v`; true when it was in the set.
    #[inline]
    pub fn remove(&self, v: u32) -> bool {
        let bit = 1u64 << (v % 64);
        self.words[(v / 64) as usize].fetch_and(!bit, Relaxed) & bit != 0
    }

    /// Adds every vertex of `range`.
    pub fn insert_range(&self, range: Range<u64>) {
        self.each_word(range, |w, mask| {
            w.fetch_or(mask, Relaxed);
        });
    }

    /// Removes every vertex of `range`.
    pub fn remove_range(&self, range: Range<u64>) {
        self.each_word(range, |w, mask| {
            w.fetch_and(!mask, Relaxed);
        });
    }

    /// Whether any vertex of `range` is in the set.
    pub fn any_in(&self, range: Range<u64>) -> bool {
        let mut any = false;
        self.each_word(range, |w, mask| any |= w.load(Relaxed) & mask != 0);
        any
    }

    /// Calls `f(word, mask)` for the words covering `range` (clamped to the universe), `mask`
    /// selecting the range's bits.
    fn each_word(&self, range: Range<u64>, mut f: impl FnMut(&AtomicU64, u64)) {
        let (start, end) = (range.start, range.end.min(self.n as u64));
        if start >= end {
            return;
        }
        let (first, last) = ((start / 64) as usize, ((end - 1) / 64) as usize);
        for i in first..=last {
            let lo = if i == first { start % 64 } else { 0 };
            let hi = if i == last { (end - 1) % 64 + 1 } else { 64 };
            let mask = if hi - lo == 64 {
                u64::MAX
            } else {
                ((1u64 << (hi - lo)) - 1) << lo
            };
            f(&self.words[i], mask);
        }
    }

    /// Number of vertices in the set.
    pub fn count(&self) -> u64 {
        self.words
            .par_iter()
            .with_min_len(4096)
            .map(|w| u64::from(w.load(Relaxed).count_ones()))
            .sum()
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        !self.words.par_iter().with_min_len(4096).any(|w| w.load(Relaxed) != 0)
    }

    /// Empties the set.
    pub fn clear(&self) {
        self.words
            .par_iter()
            .with_min_len(4096)
            .for_each(|w| w.store(0, Relaxed));
    }

    /// The members, ascending.
    pub fn to_vec(&self) -> Vec<u32> {
        (0..self.n as u32).filter(|&v| self.contains(v)).collect()
    }
}

impl std::fmt::Debug for Frontier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Frontier({} of {})", self.count(), self.n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_and_members() {
        for n in [0usize, 1, 63, 64, 65, 200] {
            let f = Frontier::new(n);
            assert!(f.is_empty());
            for (a, b) in [(0, n), (3, 70), (64, 128), (5, 5), (n / 2, n)] {
                let (a, b) = (a.min(n) as u64, b.min(n) as u64);
                f.insert_range(a..b);
                assert_eq!(f.count(), b - a, "{n} {a}..{b}");
                assert_eq!(f.any_in(a..b), b > a);
                if a > 0 {
                    assert!(!f.any_in(0..a));
                }
                assert!(!f.any_in(b..n as u64));
                f.remove_range(a..b);
                assert!(f.is_empty());
            }
            if n > 10 {
                assert!(f.insert(7) && !f.insert(7) && f.contains(7));
                assert_eq!(f.to_vec(), vec![7]);
                assert!(f.remove(7) && !f.remove(7));
                assert_eq!(Frontier::full(n).count(), n as u64);
            }
        }
    }
}
