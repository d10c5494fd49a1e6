//! Frontiers: [`VertexSubset`], a set of vertices stored as a sorted list while it is small and as
//! a bitmap once it is large (Ligra's sparse/dense `vertexSubset`), and [`FrontierBuilder`], the
//! concurrent set that compute workers fill while data arrives.
//!
//! The switch is by size: a subset of more than `n / DENSE_DIVISOR` vertices is dense. Either
//! form iterates in ascending vertex order, which is also the order of the vertices' adjacency
//! lists on disk; the I/O iterator relies on it.
//!
//! A sparse subset taken from a [`FrontierBuilder`] that was asked to
//! ([`FrontierBuilder::keep_arrival_order`]) also remembers the order in which its vertices were
//! activated ([`VertexSubset::arrival`]): the order a plain engine, without Graphene's global view
//! of a round, would issue their reads in. The engine asks for it only under the plug-list
//! scheduler, so the bitmap path pays nothing for it. Dense subsets have no arrival order.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::Mutex;

use rayon::prelude::*;

/// A subset with more than `n / DENSE_DIVISOR` vertices is stored as a bitmap (Ligra's
/// threshold).
pub const DENSE_DIVISOR: usize = 20;

/// A set of vertices of a graph with `n` vertices: a sorted list (sparse) or a bitmap (dense).
///
/// Equality is set equality: the arrival order, when kept, is not compared.
#[derive(Clone, Debug)]
pub struct VertexSubset {
    n: usize,
    repr: Repr,
    /// The vertices of a sparse subset in activation order (the same set as the sorted list),
    /// when the builder kept it; `None` otherwise and always when dense.
    arrival: Option<Vec<u32>>,
}

impl PartialEq for VertexSubset {
    fn eq(&self, other: &Self) -> bool {
        self.n == other.n && self.repr == other.repr
    }
}

impl Eq for VertexSubset {}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Repr {
    /// Distinct vertices, ascending.
    Sparse(Vec<u32>),
    /// One bit per vertex (bits beyond `n` are zero) and the number of bits set.
    Dense { bits: Vec<u64>, count: usize },
}

/// Whether `count` vertices out of `n` should be stored dense.
fn wants_dense(count: usize, n: usize) -> bool {
    count > n / DENSE_DIVISOR
}

impl VertexSubset {
    /// The empty subset.
    pub fn empty(n: usize) -> Self {
        VertexSubset {
            n,
            repr: Repr::Sparse(Vec::new()),
            arrival: None,
        }
    }

    /// The subset `{v}`.
    ///
    /// # Panics
    /// If `v >= n`.
    pub fn single(n: usize, v: u32) -> Self {
        assert!((v as usize) < n, "vertex {v} out of range 0..{n}");
        VertexSubset {
            n,
            repr: Repr::Sparse(vec![v]),
            arrival: None,
        }
    }

    /// Every vertex (dense).
    pub fn all(n: usize) -> Self {
        let mut bits = vec![u64::MAX; n.div_ceil(64)];
        if !n.is_multiple_of(64) {
            if let Some(last) = bits.last_mut() {
                *last = (1u64 << (n % 64)) - 1;
            }
        }
        VertexSubset {
            n,
            repr: Repr::Dense { bits, count: n },
            arrival: None,
        }
    }

    /// The subset of the given vertices (any order, repeats allowed), in the form its size asks
    /// for.
    ///
    /// # Panics
    /// If a vertex is `>= n`.
    pub fn from_vertices(n: usize, mut vertices: Vec<u32>) -> Self {
        if let Some(&v) = vertices.iter().find(|&&v| v as usize >= n) {
            panic!("vertex {v} out of range 0..{n}");
        }
        vertices.par_sort_unstable();
        vertices.dedup();
        VertexSubset {
            n,
            repr: Repr::Sparse(vertices),
            arrival: None,
        }
        .normalized()
    }

    /// The vertices `v` with `keep(v)`, evaluated in parallel, in the form the size asks for.
    pub fn from_fn(n: usize, keep: impl Fn(u32) -> bool + Sync) -> Self {
        let bits: Vec<u64> = (0..n.div_ceil(64))
            .into_par_iter()
            .with_min_len(256)
            .map(|w| {
                let lo = w * 64;
                let mut word = 0u64;
                for v in lo..(lo + 64).min(n) {
                    if keep(v as u32) {
                        word |= 1 << (v - lo);
                    }
                }
                word
            })
            .collect();
        VertexSubset::from_bits(n, bits)
    }

    /// The vertices of this subset with `keep(v)`, evaluated in parallel, in the form the size
    /// asks for.
    pub fn filter(&self, keep: impl Fn(u32) -> bool + Sync) -> Self {
        match &self.repr {
            Repr::Sparse(list) => {
                let kept = list
                    .par_iter()
                    .with_min_len(1024)
                    .copied()
                    .filter(|&v| keep(v))
                    .collect();
                VertexSubset::from_sorted_unchecked(self.n, kept).normalized()
            }
            Repr::Dense { bits, .. } => {
                let bits = bits
                    .par_iter()
                    .enumerate()
                    .with_min_len(256)
                    .map(|(w, &word)| {
                        let mut out = 0u64;
                        let mut b = word;
                        while b != 0 {
                            let i = b.trailing_zeros();
                            if keep((w * 64) as u32 + i) {
                                out |= 1 << i;
                            }
                            b &= b - 1;
                        }
                        out
                    })
                    .collect();
                VertexSubset::from_bits(self.n, bits)
            }
        }
    }

    /// The subset whose bitmap is `bits` (bit `v % 64` of word `v / 64`), in the form the size
    /// asks for.
    ///
    /// # Panics
    /// If `bits` has the wrong length or sets a bit `>= n`.
    pub fn from_bits(n: usize, bits: Vec<u64>) -> Self {
        assert_eq!(bits.len(), n.div_ceil(64), "bitmap length");
        if !n.is_multiple_of(64) {
            if let Some(&last) = bits.last() {
                assert_eq!(last >> (n % 64), 0, "bits set beyond vertex {n}");
            }
        }
        let count = bits.par_iter().map(|w| w.count_ones() as usize).sum();
        VertexSubset {
            n,
            repr: Repr::Dense { bits, count },
            arrival: None,
        }
        .normalized()
    }

    /// A sparse subset from a list the caller guarantees distinct, ascending and in range.
    pub(crate) fn from_sorted_unchecked(n: usize, vertices: Vec<u32>) -> Self {
        debug_assert!(vertices.windows(2).all(|w| w[0] < w[1]));
        VertexSubset {
            n,
            repr: Repr::Sparse(vertices),
            arrival: None,
        }
    }

    /// The representation.
    pub(crate) fn repr(&self) -> &Repr {
        &self.repr
    }

    /// Number of vertices of the graph (not of the subset).
    pub fn num_vertices(&self) -> usize {
        self.n
    }

    /// Number of vertices in the subset.
    pub fn len(&self) -> usize {
        match &self.repr {
            Repr::Sparse(v) => v.len(),
            Repr::Dense { count, .. } => *count,
        }
    }

    /// Whether the subset is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the subset is stored as a bitmap.
    pub fn is_dense(&self) -> bool {
        matches!(self.repr, Repr::Dense { .. })
    }

    /// Whether `v` is in the subset (a bit test when dense, a binary search when sparse).
    pub fn contains(&self, v: u32) -> bool {
        match &self.repr {
            Repr::Sparse(list) => list.binary_search(&v).is_ok(),
            Repr::Dense { bits, .. } => bit(bits, v),
        }
    }

    /// The sorted vertex list when sparse.
    pub fn as_sparse(&self) -> Option<&[u32]> {
        match &self.repr {
            Repr::Sparse(list) => Some(list),
            Repr::Dense { .. } => None,
        }
    }

    /// The vertices in the order they were activated, when this subset was taken from a
    /// [`FrontierBuilder`] that kept it ([`FrontierBuilder::keep_arrival_order`]): the same set
    /// as [`as_sparse`](Self::as_sparse), each vertex once, in each worker's discovery order,
    /// workers' batches in the order they were flushed. `None` for other subsets and for dense
    /// ones.
    pub fn arrival(&self) -> Option<&[u32]> {
        self.arrival.as_deref()
    }

    /// The bitmap when dense.
    pub fn as_dense(&self) -> Option<&[u64]> {
        match &self.repr {
            Repr::Sparse(_) => None,
            Repr::Dense { bits, .. } => Some(bits),
        }
    }

    /// The subset as a bitmap (borrowed when dense, built when sparse).
    pub fn to_bits(&self) -> std::borrow::Cow<'_, [u64]> {
        match &self.repr {
            Repr::Dense { bits, .. } => std::borrow::Cow::Borrowed(bits),
            Repr::Sparse(list) => {
                let mut bits = vec![0u64; self.n.div_ceil(64)];
                for &v in list {
                    bits[v as usize / 64] |= 1 << (v % 64);
                }
                std::borrow::Cow::Owned(bits)
            }
        }
    }

    /// The vertices, ascending.
    pub fn iter(&self) -> Iter<'_> {
        match &self.repr {
            Repr::Sparse(list) => Iter::Sparse(list.iter()),
            Repr::Dense { bits, .. } => Iter::Dense {
                bits,
                word: 0,
                current: bits.first().copied().unwrap_or(0),
            },
        }
    }

    /// The vertices, ascending, as a vector.
    pub fn to_vec(&self) -> Vec<u32> {
        match &self.repr {
            Repr::Sparse(list) => list.clone(),
            Repr::Dense { bits, .. } => bits_to_list(bits),
        }
    }

    /// Sums `f(v)` over the subset, in parallel.
    pub fn sum_by(&self, f: impl Fn(u32) -> u64 + Sync) -> u64 {
        match &self.repr {
            Repr::Sparse(list) => list.par_iter().with_min_len(1024).map(|&v| f(v)).sum(),
            Repr::Dense { bits, .. } => bits
                .par_iter()
                .enumerate()
                .with_min_len(256)
                .map(|(w, &word)| {
                    let mut sum = 0;
                    let mut b = word;
                    while b != 0 {
                        sum += f((w * 64) as u32 + b.trailing_zeros());
                        b &= b - 1;
                    }
                    sum
                })
                .sum(),
        }
    }

    /// Calls `f(v)` for every vertex of the subset, in parallel.
    pub fn par_for_each(&self, f: impl Fn(u32) + Sync + Send) {
        self.sum_by(|v| {
            f(v);
            0
        });
    }

    /// The same subset stored sparse.
    pub fn into_sparse(self) -> Self {
        match self.repr {
            Repr::Sparse(_) => self,
            Repr::Dense { bits, .. } => VertexSubset {
                n: self.n,
                repr: Repr::Sparse(bits_to_list(&bits)),
                arrival: None,
            },
        }
    }

    /// The same subset stored dense.
    pub fn into_dense(self) -> Self {
        match &self.repr {
            Repr::Dense { .. } => self,
            Repr::Sparse(list) => {
                let count = list.len();
                let bits = self.to_bits().into_owned();
                VertexSubset {
                    n: self.n,
                    repr: Repr::Dense { bits, count },
                    arrival: None,
                }
            }
        }
    }

    /// The same subset in the form its size asks for (dense above `n / DENSE_DIVISOR`).
    pub fn normalized(self) -> Self {
        match (wants_dense(self.len(), self.n), self.is_dense()) {
            (true, false) => self.into_dense(),
            (false, true) => self.into_sparse(),
            _ => self,
        }
    }
}

/// Iterator over a [`VertexSubset`], ascending.
pub enum Iter<'a> {
    /// Over a sorted list.
    Sparse(std::slice::Iter<'a, u32>),
    /// Over a bitmap.
    Dense {
        /// The bitmap.
        bits: &'a [u64],
        /// Index of the current word.
        word: usize,
        /// Bits of the current word not yet returned.
        current: u64,
    },
}

impl Iterator for Iter<'_> {
    type Item = u32;

    fn next(&mut self) -> Option<u32> {
        match self {
            Iter::Sparse(it) => it.next().copied(),
            Iter::Dense { bits, word, current } => loop {
                if *current != 0 {
                    let v = (*word * 64) as u32 + current.trailing_zeros();
                    *current &= *current - 1;
                    return Some(v);
                }
                *word += 1;
                *current = *bits.get(*word)?;
            },
        }
    }
}

/// Bit `v` of a bitmap.
#[inline]
pub(crate) fn bit(bits: &[u64], v: u32) -> bool {
    bits[v as usize / 64] >> (v % 64) & 1 != 0
}

/// The first set bit at or after `v`, if any.
#[inline]
pub(crate) fn next_set_bit(bits: &[u64], v: usize) -> Option<usize> {
    let mut w = v / 64;
    let mut word = *bits.get(w)? & (u64::MAX << (v % 64));
    loop {
        if word != 0 {
            return Some(w * 64 + word.trailing_zeros() as usize);
        }
        w += 1;
        word = *bits.get(w)?;
    }
}

/// The set bits of a bitmap, ascending (in parallel).
fn bits_to_list(bits: &[u64]) -> Vec<u32> {
    const WORDS: usize = 1024;
    let parts: Vec<Vec<u32>> = bits
        .par_chunks(WORDS)
        .enumerate()
        .map(|(c, words)| {
            let mut out = Vec::new();
            for (i, &w) in words.iter().enumerate() {
                let base = ((c * WORDS + i) * 64) as u32;
                let mut b = w;
                while b != 0 {
                    out.push(base + b.trailing_zeros());
                    b &= b - 1;
                }
            }
            out
        })
        .collect();
    parts.concat()
}

/// A set of vertices filled concurrently (by the compute workers of an I/O round), then taken as
/// a [`VertexSubset`].
///
/// Membership is a bitmap of atomics, so a vertex is reported new exactly once however many
/// workers insert it. While the set is small the new vertices are also collected in a list —
/// through per-worker [`LocalFrontier`] buffers, one lock per buffer — so a small result needs no
/// bitmap scan; once it outgrows `n / DENSE_DIVISOR` the list is dropped and the result is dense.
/// That list is in arrival order; [`keep_arrival_order`](Self::keep_arrival_order) makes
/// [`take`](Self::take) keep a copy of it in the subset before sorting.
pub struct FrontierBuilder {
    n: usize,
    bits: Vec<AtomicU64>,
    list: Mutex<Vec<u32>>,
    count: AtomicUsize,
    keep_arrival: AtomicBool,
}

impl FrontierBuilder {
    /// An empty set over `n` vertices.
    pub fn new(n: usize) -> Self {
        FrontierBuilder {
            n,
            bits: atomic_zeros(n.div_ceil(64)),
            list: Mutex::new(Vec::new()),
            count: AtomicUsize::new(0),
            keep_arrival: AtomicBool::new(false),
        }
    }

    /// From now on, sparse subsets [`take`](Self::take)n from this builder also keep their
    /// vertices' activation order ([`VertexSubset::arrival`]); costs a copy of the list per take.
    /// [`SelectiveGraph::edge_map_into`](super::SelectiveGraph::edge_map_into) calls it when the
    /// graph reads with the plug-list scheduler.
    pub fn keep_arrival_order(&self) {
        self.keep_arrival.store(true, Relaxed);
    }

    /// Number of vertices of the graph.
    pub fn num_vertices(&self) -> usize {
        self.n
    }

    /// Vertices inserted so far.
    pub fn len(&self) -> usize {
        self.count.load(Relaxed)
    }

    /// Whether nothing was inserted.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether `v` was inserted.
    pub fn contains(&self, v: u32) -> bool {
        self.bits[v as usize / 64].load(Relaxed) >> (v % 64) & 1 != 0
    }

    /// Sets the bit of `v`; true when it was not set before.
    #[inline]
    fn set(&self, v: u32) -> bool {
        let word = &self.bits[v as usize / 64];
        let mask = 1u64 << (v % 64);
        word.load(Relaxed) & mask == 0 && word.fetch_or(mask, Relaxed) & mask == 0
    }

    /// Inserts `v`; true when it is new. Prefer [`local`](Self::local) in hot loops.
    ///
    /// # Panics
    /// If `v >= n`.
    pub fn insert(&self, v: u32) -> bool {
        let mut local = self.local();
        local.insert(v)
    }

    /// A per-worker buffer: inserts go to the shared bitmap at once and to the shared list when
    /// the buffer is dropped.
    pub fn local(&self) -> LocalFrontier<'_> {
        LocalFrontier {
            builder: self,
            new: Vec::new(),
        }
    }

    /// Takes the set as a [`VertexSubset`] and leaves the builder empty. Call it when no worker
    /// holds a [`LocalFrontier`] any more.
    pub fn take(&mut self) -> VertexSubset {
        let count = std::mem::take(self.count.get_mut());
        let list = std::mem::take(self.list.get_mut().unwrap_or_else(|e| e.into_inner()));
        if wants_dense(count, self.n) {
            let fresh = atomic_zeros(self.bits.len());
            let bits = std::mem::replace(&mut self.bits, fresh);
            let bits: Vec<u64> = bits.into_par_iter().map(AtomicU64::into_inner).collect();
            return VertexSubset {
                n: self.n,
                repr: Repr::Dense { bits, count },
                arrival: None,
            };
        }
        debug_assert_eq!(list.len(), count, "every insert of a small set is listed");
        for &v in &list {
            *self.bits[v as usize / 64].get_mut() = 0;
        }
        let arrival = self.keep_arrival.load(Relaxed).then(|| list.clone());
        let mut list = list;
        list.par_sort_unstable();
        VertexSubset {
            n: self.n,
            repr: Repr::Sparse(list),
            arrival,
        }
    }
}

/// A worker's view of a [`FrontierBuilder`]: see [`FrontierBuilder::local`].
pub struct LocalFrontier<'a> {
    builder: &'a FrontierBuilder,
    new: Vec<u32>,
}

impl LocalFrontier<'_> {
    /// Inserts `v`; true when no worker had inserted it before.
    ///
    /// # Panics
    /// If `v >= n`.
    #[inline]
    pub fn insert(&mut self, v: u32) -> bool {
        let fresh = self.builder.set(v);
        if fresh {
            self.new.push(v);
        }
        fresh
    }
}

impl Drop for LocalFrontier<'_> {
    fn drop(&mut self) {
        if self.new.is_empty() {
            return;
        }
        let b = self.builder;
        let before = b.count.fetch_add(self.new.len(), Relaxed);
        // Once the set is dense the list is not needed; every flush of a set that ends small
        // happened while the total was small too, so the list of a small set is complete.
        if !wants_dense(before + self.new.len(), b.n) {
            b.list
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .extend_from_slice(&self.new);
        }
    }
}

/// `len` zeroed atomics.
pub(crate) fn atomic_zeros(len: usize) -> Vec<AtomicU64> {
    (0..len).into_par_iter().map(|_| AtomicU64::new(0)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forms_switch_by_size() {
        let n = 1000;
        let small = VertexSubset::from_vertices(n, vec![5, 3, 5, 999]);
        assert!(!small.is_dense());
        assert_eq!(small.to_vec(), vec![3, 5, 999]);
        let big = VertexSubset::from_fn(n, |v| v % 3 == 0);
        assert!(big.is_dense());
        assert_eq!(big.len(), 334);
        assert_eq!(big.iter().take(3).collect::<Vec<_>>(), vec![0, 3, 6]);
        assert!(big.contains(999) && !big.contains(998));
        assert_eq!(big.clone().into_sparse().to_vec(), big.to_vec());
        assert_eq!(big.clone().into_sparse().normalized(), big);
        let all = VertexSubset::all(130);
        assert_eq!(all.len(), 130);
        assert_eq!(all.iter().last(), Some(129));
        assert_eq!(all.sum_by(u64::from), 129 * 130 / 2);
        assert!(VertexSubset::all(0).is_empty());
        assert_eq!(next_set_bit(all.as_dense().unwrap(), 129), Some(129));
        assert_eq!(next_set_bit(all.as_dense().unwrap(), 130), None);
    }

    #[test]
    fn filter_keeps_members_passing_the_predicate_in_either_form() {
        let n = 10_000;
        for set in [
            VertexSubset::from_fn(n, |v| v % 3 == 0),
            VertexSubset::from_vertices(n, vec![3, 9, 10, 9_999]),
        ] {
            let kept = set.filter(|v| v % 2 == 1);
            let want: Vec<u32> = set.to_vec().into_iter().filter(|v| v % 2 == 1).collect();
            assert_eq!(kept.to_vec(), want);
            assert_eq!(kept.len(), want.len());
        }
    }

    #[test]
    fn builder_small_and_large() {
        let n = 10_000;
        let mut b = FrontierBuilder::new(n);
        std::thread::scope(|s| {
            for t in 0..4 {
                let b = &b;
                s.spawn(move || {
                    let mut l = b.local();
                    for v in (t..100).step_by(2) {
                        l.insert(v as u32);
                    }
                });
            }
        });
        let small = b.take();
        assert!(!small.is_dense());
        assert_eq!(small.to_vec(), (0..100).collect::<Vec<u32>>());
        assert_eq!(small.arrival(), None);
        assert!(b.is_empty() && !b.contains(7));
        for v in (0..n as u32).step_by(3) {
            assert!(b.insert(v));
            assert!(!b.insert(v));
        }
        let big = b.take();
        assert!(big.is_dense());
        assert_eq!(big.len(), n.div_ceil(3));
        assert!(b.take().is_empty());
    }

    #[test]
    fn builder_keeps_arrival_order_when_asked() {
        let n = 10_000;
        let mut b = FrontierBuilder::new(n);
        b.keep_arrival_order();
        {
            let mut l = b.local();
            for v in [70u32, 3, 70, 500, 4] {
                l.insert(v);
            }
        }
        b.insert(1);
        b.insert(3);
        let s = b.take();
        assert_eq!(s.to_vec(), vec![1, 3, 4, 70, 500]);
        assert_eq!(s.arrival(), Some(&[70, 3, 500, 4, 1][..]));
        assert_eq!(s, VertexSubset::from_vertices(n, vec![1, 3, 4, 70, 500]));
        assert!(b.take().is_empty());
        for v in (0..n as u32).rev().step_by(3) {
            b.insert(v);
        }
        let big = b.take();
        assert!(big.is_dense() && big.arrival().is_none());
    }
}
