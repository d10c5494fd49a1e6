//! Turning a round's active vertices into the byte ranges it reads: the words of each list the
//! round reads ([`Spans`], under a [`ListWindow`], leaving out lists held in memory), as byte
//! ranges in the order they are issued. A plain list's words are its edges (4 bytes each, from
//! the arc offsets); a compressed list's are its bytes (from the byte-offset index), and it is
//! always read whole, since it decodes only whole.
//!
//! Issue order: under the bitmap scheduler (Graphene) the ranges go out ascending, neighbouring
//! lists merged ([`Ranges`]) — the scheduler sorts and merges globally anyway. Under the
//! plug-list scheduler (the baseline: an engine without Graphene's global view of the round) a
//! subset that kept its activation order ([`VertexSubset::arrival`], i.e. a frontier discovered
//! by `edge_map`) goes out as one range per vertex in that order ([`PerVertexRanges`]), nothing
//! sorted or merged, so only the scheduler's 16-request batches sort and merge. Subsets without
//! an arrival order — dense frontiers, whole or batched scans, sets built from a predicate or
//! sorted by the caller — go out ascending and merged under both schedulers: a dense frontier is
//! a scan in any engine. Mapping reads back to vertices (`delivery`) does not depend on the
//! issue order.

use rayon::prelude::*;

use super::frontier::{self, bit, Repr, VertexSubset};
use super::Offsets;

/// Which part of each active list a round reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ListWindow {
    /// The whole list.
    Whole,
    /// The list's edges up to the end of the block holding its first edge: one block read per
    /// list (a bottom-up BFS vertex usually finds a parent there).
    Head,
    /// The rest of the list after [`Head`](Self::Head).
    Tail,
}

/// The word range `[a, b)` of each vertex's list that a round reads, under a [`ListWindow`].
#[derive(Clone, Copy)]
pub(crate) struct Spans<'a> {
    /// The index of the file read, in words: arc offsets of plain lists, byte offsets of
    /// compressed ones.
    pub(crate) offsets: &'a Offsets,
    /// Bytes per word of `offsets`: 4 for plain lists, 1 for compressed ones.
    pub(crate) unit: u64,
    /// Lists are read whole whatever the window (compressed lists decode only whole): the
    /// [`Head`](ListWindow::Head) is the whole list and the [`Tail`](ListWindow::Tail) empty.
    pub(crate) whole_lists: bool,
    /// The part of each list read.
    pub(crate) window: ListWindow,
    /// Words per block.
    pub(crate) block_edges: u64,
    /// Vertices whose lists are served from memory (the static cache, retained lists): nothing
    /// is read for them.
    pub(crate) in_memory: [Option<&'a [u64]>; 2],
}

impl Spans<'_> {
    /// Words of `v`'s list read this round (`a == b` when none).
    #[inline]
    pub(crate) fn get(&self, v: u32) -> (u64, u64) {
        let (a, b) = (self.offsets.get(v as usize), self.offsets.get(v as usize + 1));
        if self.in_memory.iter().flatten().any(|r| bit(r, v)) {
            return (a, a);
        }
        let head_end = || b.min((a / self.block_edges + 1) * self.block_edges);
        match self.window {
            ListWindow::Whole => (a, b),
            ListWindow::Head if self.whole_lists => (a, b),
            ListWindow::Tail if self.whole_lists => (b, b),
            ListWindow::Head => (a, head_end()),
            ListWindow::Tail => (head_end(), b),
        }
    }
}

/// The byte ranges of the given vertices' lists (ascending vertices), ascending, contiguous
/// lists merged.
pub(crate) struct Ranges<'a, I> {
    spans: Spans<'a>,
    vertices: I,
    pending: Option<(u64, u64)>,
}

impl<'a, I> Ranges<'a, I> {
    /// The ranges of `vertices` (ascending) under `spans`.
    pub(crate) fn new(spans: Spans<'a>, vertices: I) -> Self {
        Ranges {
            spans,
            vertices,
            pending: None,
        }
    }
}

impl<I: Iterator<Item = u32>> Iterator for Ranges<'_, I> {
    type Item = (u64, u64);

    fn next(&mut self) -> Option<(u64, u64)> {
        loop {
            let Some(v) = self.vertices.next() else {
                return self.pending.take();
            };
            let (a, b) = self.spans.get(v);
            let (a, b) = (a * self.spans.unit, b * self.spans.unit);
            if a == b {
                continue;
            }
            match self.pending {
                Some((s, e)) if e == a => self.pending = Some((s, b)),
                Some(p) => {
                    self.pending = Some((a, b));
                    return Some(p);
                }
                None => self.pending = Some((a, b)),
            }
        }
    }
}

/// Active vertices per task when a round's ranges are built in parallel: the set is cut at
/// these multiples (of its list, or of its bitmap's bits), so contiguous lists on either side of
/// a cut give two ranges instead of one, which the page cache's pages make one again.
const RANGE_TASK_VERTICES: usize = 1 << 16;

/// [`Ranges`] of `active`, built in parallel: for the page cache, which collects a round's
/// ranges before anything else (one thread took 11 ms of a 100 ms bfs round on Kronecker 22).
pub(crate) fn ranges_in_parallel(spans: Spans<'_>, active: &VertexSubset) -> Vec<(u64, u64)> {
    match active.repr() {
        Repr::Sparse(list) => list
            .par_chunks(RANGE_TASK_VERTICES)
            .flat_map_iter(|part| Ranges::new(spans, part.iter().copied()))
            .collect(),
        Repr::Dense { bits, .. } => bits
            .par_chunks(RANGE_TASK_VERTICES / 64)
            .enumerate()
            .flat_map_iter(|(k, words)| {
                let first = (k * RANGE_TASK_VERTICES) as u32;
                let vertices = frontier::Iter::Dense {
                    bits: words,
                    word: 0,
                    current: words[0],
                };
                Ranges::new(spans, vertices.map(move |v| first + v))
            })
            .collect(),
    }
}

/// The byte ranges of the given vertices' lists, one per vertex with a non-empty list, in the
/// vertices' order, nothing merged (the plug-list baseline's issue order).
pub(crate) struct PerVertexRanges<'a, I> {
    /// The edges read of each list.
    pub(crate) spans: Spans<'a>,
    /// The vertices, in issue order.
    pub(crate) vertices: I,
}

impl<I: Iterator<Item = u32>> Iterator for PerVertexRanges<'_, I> {
    type Item = (u64, u64);

    fn next(&mut self) -> Option<(u64, u64)> {
        for v in self.vertices.by_ref() {
            let (a, b) = self.spans.get(v);
            if a < b {
                return Some((a * self.spans.unit, b * self.spans.unit));
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Spans over `offsets` packed (and kept for the test's lifetime).
    fn spans<'a>(offsets: &[u64], window: ListWindow, block_edges: u64, retained: Option<&'a [u64]>) -> Spans<'a> {
        Spans {
            offsets: Box::leak(Box::new(Offsets::pack(offsets))),
            unit: 4,
            whole_lists: false,
            window,
            block_edges,
            in_memory: [None, retained],
        }
    }

    #[test]
    fn ranges_merge_contiguous_lists() {
        let offsets = [0u64, 2, 2, 5, 9, 10];
        let all = VertexSubset::all(5);
        let r: Vec<_> = Ranges::new(spans(&offsets, ListWindow::Whole, 128, None), all.iter()).collect();
        assert_eq!(r, vec![(0, 40)]);
        let some = VertexSubset::from_vertices(5, vec![0, 1, 3, 4]);
        let r: Vec<_> = Ranges::new(spans(&offsets, ListWindow::Whole, 128, None), some.iter()).collect();
        assert_eq!(r, vec![(0, 8), (20, 40)]);
    }

    /// `ranges` with touching neighbours merged.
    fn merged(ranges: &[(u64, u64)]) -> Vec<(u64, u64)> {
        let mut out: Vec<(u64, u64)> = Vec::new();
        for &(a, b) in ranges {
            match out.last_mut() {
                Some(last) if last.1 == a => last.1 = b,
                _ => out.push((a, b)),
            }
        }
        out
    }

    #[test]
    #[cfg_attr(
        miri,
        ignore = "three tasks' worth of vertices: too slow under Miri, and no unsafe code"
    )]
    fn ranges_built_in_parallel_are_the_serial_ones_cut_at_task_bounds() {
        // Lists of 0 to 4 edges over several tasks' vertices; some vertices left out.
        let n = 3 * RANGE_TASK_VERTICES + 123;
        let mut offsets = vec![0u64];
        for v in 0..n as u64 {
            offsets.push(offsets[v as usize] + (v * 7 + v / 3) % 5);
        }
        let sp = spans(&offsets, ListWindow::Whole, 128, None);
        let sparse = VertexSubset::from_fn(n, |v| v % 11 != 3 && v % 13 != 5).into_sparse();
        let dense = sparse.clone().into_dense();
        let everyone = VertexSubset::all(n);
        for set in [&sparse, &dense, &everyone] {
            let serial: Vec<_> = Ranges::new(sp, set.iter()).collect();
            let parallel = ranges_in_parallel(sp, set);
            assert!(parallel.len() >= serial.len() && parallel.len() <= serial.len() + 3);
            assert_eq!(merged(&parallel), serial, "dense: {}", set.is_dense());
        }
        assert_eq!(merged(&ranges_in_parallel(sp, &everyone)), vec![(0, offsets[n] * 4)]);
        assert!(ranges_in_parallel(sp, &VertexSubset::empty(n)).is_empty());
    }

    #[test]
    fn windows_split_lists_at_the_end_of_their_first_block() {
        // Blocks of 4 edges; lists 0..2, 2..2, 2..5, 5..9, 9..10.
        let offsets = [0u64, 2, 2, 5, 9, 10];
        let head = spans(&offsets, ListWindow::Head, 4, None);
        let tail = spans(&offsets, ListWindow::Tail, 4, None);
        let heads: Vec<_> = (0..5).map(|v| head.get(v)).collect();
        let tails: Vec<_> = (0..5).map(|v| tail.get(v)).collect();
        assert_eq!(heads, vec![(0, 2), (2, 2), (2, 4), (5, 8), (9, 10)]);
        assert_eq!(tails, vec![(2, 2), (2, 2), (4, 5), (8, 9), (10, 10)]);
        let retained = [0b01000u64];
        let skip = spans(&offsets, ListWindow::Whole, 4, Some(&retained));
        assert_eq!(skip.get(3), (5, 5), "a retained list is not read");
        assert_eq!(skip.get(2), (2, 5));
    }

    #[test]
    fn whole_lists_ignore_windows_and_count_bytes() {
        // Byte offsets of compressed lists: 0..3, 3..3, 3..9.
        let offsets = [0u64, 3, 3, 9];
        let whole = |window| Spans {
            unit: 1,
            whole_lists: true,
            ..spans(&offsets, window, 4, None)
        };
        assert_eq!(whole(ListWindow::Head).get(2), (3, 9), "the head is the whole list");
        assert_eq!(whole(ListWindow::Tail).get(2), (9, 9), "and there is no tail");
        let r: Vec<_> = Ranges::new(whole(ListWindow::Whole), [0u32, 2].into_iter()).collect();
        assert_eq!(r, vec![(0, 9)], "bytes, contiguous lists merged");
    }

    #[test]
    fn per_vertex_ranges_keep_order_and_do_not_merge() {
        let offsets = [0u64, 2, 2, 5, 9, 10];
        let r: Vec<_> = PerVertexRanges {
            spans: spans(&offsets, ListWindow::Whole, 128, None),
            vertices: [4u32, 1, 3, 0, 2].into_iter(),
        }
        .collect();
        assert_eq!(r, vec![(36, 40), (20, 36), (0, 8), (8, 20)]);
    }
}
