//! Betweenness centrality on the selective engine: Brandes per source, as the memory engine
//! ([`crate::betweenness`]), with every list read from disk — for a batch of sources at once.
//!
//! A batch of up to [`MAX_BATCH`] sources runs its BFSs side by side, level by level: round `d`
//! reads the out-lists of every vertex that is at depth `d` for any source of the batch, once,
//! and serves each of those sources from it. What an arc `v → w` tests are bytes of `w`, masks
//! of sources: forward, the sources that have already reached `w` (and on an undirected graph
//! those that have it one level above); backward, the sources that have `w` one level below.
//! Only the arcs that lie on shortest paths touch the per-source path counts and dependencies. Betweenness is bound by these random accesses, not by the
//! reads: a byte per vertex stays in the processor's caches where a level array does not, and
//! the two masks a forward arc tests share one word, so that it costs one miss where they do
//! not fit (Kronecker 24, 25% page cache: bc ×1.05 faster than with a byte array each).
//!
//! Forward: a round marks each target reached by a source for the first time (its mask for
//! the next level, `fetch_or`) and adds the tail's path count to it — or, on an undirected
//! graph, has each of its vertices pull its own count from its neighbours one level up (see
//! [`forward`]). Backward, from the deepest level up: a round reads the level's out-lists again
//! and sums each vertex's dependency over its successors (see [`backward`]). Pieces of a split
//! list add atomically, so sums match the memory engine's up to rounding.
//!
//! The rounds' vertex sets are kept in memory (O(V) in total), and so is the batch's state:
//! [`BYTES_PER_VERTEX_AND_SOURCE`] per vertex and source plus three mask bytes per vertex,
//! semi-external vertex state as design.md defines it. A batch is as wide as
//! [`MAX_BATCH_STATE_BYTES`] allows, and at least one source wide (the unbatched algorithm's
//! state): 8 sources on 16.8 M vertices (2.7 GB), one on 200 M. Sources without out-edges reach
//! nobody and take no place in a batch, and the rest share the fewest batches evenly: on
//! Kronecker 24, where 47% of the vertices are isolated, 32 sampled sources (18 of them isolated)
//! run as 2 batches of 7 instead of 4 of 8 (3.6 G edges processed instead of 6.0 G; 26.1 s
//! instead of 37.6 s, medians of 3).

use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU64, AtomicU8, Ordering::Relaxed};

use diskgraph_engine::selective::{FrontierBuilder, SelectiveGraph, VertexSubset};
use diskgraph_engine::Engine;
use diskgraph_format::Direction;
use rayon::prelude::*;

use crate::bc::{check_sources, scale, BcOptions, Betweenness};
use crate::bfs::UNVISITED;
use crate::parallel::{add_f64, atomics};
use crate::AlgoError;

/// Bit `b` set when the batch's source `b` qualifies.
type SourceMask = u8;

/// Most sources run side by side: one bit each in a [`SourceMask`].
pub const MAX_BATCH: usize = SourceMask::BITS as usize;

/// State a batch keeps per vertex and source: level (4), path count (8), dependency (8).
pub const BYTES_PER_VERTEX_AND_SOURCE: u64 = 20;

/// Most state a batch of more than one source may keep.
pub const MAX_BATCH_STATE_BYTES: u64 = 4 << 30;

/// Sources run side by side on `n` vertices with `sources` sources (see the module doc): as
/// few batches as the state cap allows, as wide as it takes to share the sources evenly among
/// them, so that no state is kept for sources no batch runs.
pub fn batch_width(n: usize, sources: usize) -> usize {
    let per_source = (BYTES_PER_VERTEX_AND_SOURCE * n as u64).max(1);
    let fits = MAX_BATCH_STATE_BYTES.saturating_sub(3 * n as u64) / per_source;
    let cap = (fits.min(MAX_BATCH as u64) as usize).max(1);
    let sources = sources.max(1);
    sources.div_ceil(sources.div_ceil(cap))
}

/// Betweenness centrality on the selective engine (see the module doc and
/// [`crate::betweenness`]).
pub fn betweenness(g: &SelectiveGraph, opts: &BcOptions) -> Result<Betweenness, AlgoError> {
    let n = g.num_vertices();
    check_sources(&opts.sources, n)?;
    let delivered = g.edges_delivered();
    // A source without out-edges reaches nobody: it adds no dependency and expands one level,
    // so it takes no place in a batch.
    let (active, idle): (Vec<u32>, Vec<u32>) = opts.sources.iter().partition(|&&s| g.degree(Direction::Out, s) > 0);
    let width = batch_width(n, active.len());
    let state = BatchState::new(n, width);
    let bc = atomics(n, 0f64.to_bits());
    let mut iterations = idle.len();
    for batch in active.chunks(width) {
        let rounds = forward(g, batch, &state)?;
        backward(g, &rounds, &state, batch.len(), &bc)?;
        iterations += state.clear(batch.len(), &rounds);
    }
    let bc = bc.into_iter().map(|x| f64::from_bits(x.into_inner())).collect();
    Ok(Betweenness {
        values: scale(bc, g.directed(), opts),
        sources: opts.sources.len(),
        batch: width,
        iterations,
        // Every arc the rounds read, forward and backward, was examined once for its batch.
        edges_processed: g.edges_delivered() - delivered,
    })
}

/// Level, path count and dependency of every vertex for each source of a batch (the entries of
/// vertex `v` are `width` consecutive ones from `v * width`), and three masks per vertex.
struct BatchState {
    width: usize,
    level: Vec<AtomicU32>,
    sigma: Vec<AtomicU64>,
    delta: Vec<AtomicU64>,
    /// Forward, the two masks an arc tests, side by side so that one load fetches both: the
    /// sources that reached the vertex at the current depth or before ([`Marks::seen`]) and, on
    /// an undirected graph, those that have it one level above the round's ([`Marks::above`]).
    marks: Vec<AtomicU16>,
    /// Forward: the sources reaching the vertex one level further (filled during a round).
    /// Backward: the sources that have the vertex one level below the round's.
    below: Vec<AtomicU8>,
}

impl BatchState {
    fn new(n: usize, width: usize) -> Self {
        BatchState {
            width,
            level: (0..n * width)
                .into_par_iter()
                .map(|_| AtomicU32::new(UNVISITED))
                .collect(),
            sigma: atomics(n * width, 0f64.to_bits()),
            delta: atomics(n * width, 0f64.to_bits()),
            marks: (0..n).into_par_iter().map(|_| AtomicU16::new(0)).collect(),
            below: (0..n).into_par_iter().map(|_| AtomicU8::new(0)).collect(),
        }
    }

    /// Index of `v`'s entry for the batch's first source.
    #[inline]
    fn base(&self, v: u32) -> usize {
        v as usize * self.width
    }

    /// The sources of the batch (of `width` sources) that have `v` at depth `depth`.
    #[inline]
    fn at_depth(&self, v: u32, depth: u32, width: usize) -> SourceMask {
        let base = self.base(v);
        (0..width).fold(0, |mask, b| {
            mask | SourceMask::from(self.level[base + b].load(Relaxed) == depth) << b
        })
    }

    /// Puts `v` at depth `depth` for the sources in `mask`.
    #[inline]
    fn reach(&self, v: u32, depth: u32, mask: SourceMask) {
        let base = self.base(v);
        self.marks[v as usize].fetch_or(Marks::seen(mask), Relaxed);
        for_each_source(mask, |b| self.level[base + b].store(depth, Relaxed));
    }

    /// Clears the state the batch touched and returns the levels expanded summed over the
    /// sources.
    fn clear(&self, width: usize, rounds: &[VertexSubset]) -> usize {
        let mut levels = 0;
        for (depth, set) in rounds.iter().enumerate() {
            let reached = AtomicU8::new(0);
            set.par_for_each(|v| {
                let base = self.base(v);
                let mask = self.at_depth(v, depth as u32, width);
                reached.fetch_or(mask, Relaxed);
                for_each_source(mask, |b| {
                    self.level[base + b].store(UNVISITED, Relaxed);
                    self.sigma[base + b].store(0f64.to_bits(), Relaxed);
                    self.delta[base + b].store(0f64.to_bits(), Relaxed);
                });
                self.marks[v as usize].store(0, Relaxed);
            });
            levels += reached.into_inner().count_ones() as usize;
        }
        levels
    }
}

/// How [`BatchState::marks`] packs its two masks: "seen" in the low byte, "above" in the high.
struct Marks;

impl Marks {
    /// `mask` as the sources that have reached a vertex.
    #[inline]
    fn seen(mask: SourceMask) -> u16 {
        u16::from(mask)
    }

    /// `mask` as the sources that have a vertex one level above the round's.
    #[inline]
    fn above(mask: SourceMask) -> u16 {
        u16::from(mask) << SourceMask::BITS
    }

    /// The sources that have reached the vertex whose marks are `marks`.
    #[inline]
    fn of_seen(marks: u16) -> SourceMask {
        marks as SourceMask
    }

    /// The sources that have the vertex whose marks are `marks` one level above the round's.
    #[inline]
    fn of_above(marks: u16) -> SourceMask {
        (marks >> SourceMask::BITS) as SourceMask
    }
}

/// Runs the batch's BFSs side by side; round `d` of the result holds the vertices at depth `d`
/// for some source, and `state` their levels and path counts.
///
/// Round `d` reads the lists of the vertices at depth `d` and marks the targets that a source
/// reaches for the first time. On an undirected graph the same lists also give those vertices'
/// path counts, pulled from their neighbours one level up (`above`): plain loads, where pushing
/// each count to the next level (a directed graph's out-lists allow nothing else) takes an
/// atomic add per shortest-path arc.
fn forward(g: &SelectiveGraph, batch: &[u32], state: &BatchState) -> Result<Vec<VertexSubset>, AlgoError> {
    let n = g.num_vertices();
    let width = batch.len();
    let pull = !g.directed();
    for (b, &source) in batch.iter().enumerate() {
        state.reach(source, 0, 1 << b);
        state.sigma[state.base(source) + b].store(1f64.to_bits(), Relaxed);
    }
    let mut rounds = vec![VertexSubset::from_vertices(n, batch.to_vec())];
    let mut next = FrontierBuilder::new(n);
    for depth in 0u32.. {
        let frontier = rounds.last().expect("the sources' round");
        let above = depth.checked_sub(1).filter(|_| pull).map(|up| &rounds[up as usize]);
        if let Some(above) = above {
            above.par_for_each(|u| {
                state.marks[u as usize].fetch_or(Marks::above(state.at_depth(u, depth - 1, width)), Relaxed);
            });
        }
        g.for_each_piece_with(
            Direction::Out,
            frontier,
            false,
            || next.local(),
            |local, v, p| {
                let mask = state.at_depth(v, depth, width);
                let base = state.base(v);
                let mut sv = [0f64; MAX_BATCH];
                if !pull {
                    for_each_source(mask, |b| sv[b] = f64::from_bits(state.sigma[base + b].load(Relaxed)));
                }
                let mut pulled = [0f64; MAX_BATCH];
                for &w in p.targets {
                    let wbase = state.base(w);
                    let marks = state.marks[w as usize].load(Relaxed);
                    if pull {
                        let up = mask & Marks::of_above(marks);
                        for_each_source(up, |b| {
                            pulled[b] += f64::from_bits(state.sigma[wbase + b].load(Relaxed))
                        });
                    }
                    let fresh = mask & !Marks::of_seen(marks);
                    if fresh == 0 {
                        continue;
                    }
                    let marked = &state.below[w as usize];
                    let before = marked.load(Relaxed);
                    if before & fresh != fresh && marked.fetch_or(fresh, Relaxed) == 0 {
                        local.insert(w);
                    }
                    if !pull {
                        for_each_source(fresh, |b| add_f64(&state.sigma[wbase + b], sv[b]));
                    }
                }
                for_each_source(mask, |b| {
                    if pulled[b] != 0.0 {
                        add_f64(&state.sigma[base + b], pulled[b]);
                    }
                });
            },
            drop,
        )?;
        if let Some(above) = above {
            above.par_for_each(|u| {
                state.marks[u as usize].fetch_and(!Marks::above(SourceMask::MAX), Relaxed);
            });
        }
        let found = next.take();
        if found.is_empty() {
            break;
        }
        found.par_for_each(|w| state.reach(w, depth + 1, state.below[w as usize].swap(0, Relaxed)));
        rounds.push(found);
    }
    Ok(rounds)
}

/// Dependencies of every vertex of `rounds` for each source of the batch (of `width` sources),
/// deepest round first, added to `bc` (a source's own is not: it sits at depth 0).
///
/// Before round `d`, the dependencies of depth `d + 1` are final: each is credited, and its
/// vertex's path count is replaced by `(1 + delta) / sigma`, the one factor its predecessors
/// need, so that an arc on a shortest path costs a single load.
fn backward(
    g: &SelectiveGraph,
    rounds: &[VertexSubset],
    state: &BatchState,
    width: usize,
    bc: &[AtomicU64],
) -> Result<(), AlgoError> {
    let get = |a: &AtomicU64| f64::from_bits(a.load(Relaxed));
    for (d, set) in rounds.iter().enumerate().rev().skip(1) {
        let (depth, below) = (d as u32, &rounds[d + 1]);
        below.par_for_each(|w| {
            let mask = state.at_depth(w, depth + 1, width);
            state.below[w as usize].store(mask, Relaxed);
            let base = state.base(w);
            let mut credit = 0.0;
            for_each_source(mask, |b| {
                let dw = get(&state.delta[base + b]);
                credit += dw;
                let factor = (1.0 + dw) / get(&state.sigma[base + b]);
                state.sigma[base + b].store(factor.to_bits(), Relaxed);
            });
            if credit != 0.0 {
                add_f64(&bc[w as usize], credit);
            }
        });
        g.for_each_piece(Direction::Out, set, false, |v, p| {
            let mask = state.at_depth(v, depth, width);
            let mut sum = [0f64; MAX_BATCH];
            for &w in p.targets {
                let on_path = mask & state.below[w as usize].load(Relaxed);
                let wbase = state.base(w);
                for_each_source(on_path, |b| sum[b] += get(&state.sigma[wbase + b]));
            }
            let base = state.base(v);
            for_each_source(mask, |b| {
                if sum[b] != 0.0 {
                    add_f64(&state.delta[base + b], get(&state.sigma[base + b]) * sum[b]);
                }
            });
        })?;
        below.par_for_each(|w| state.below[w as usize].store(0, Relaxed));
    }
    Ok(())
}

/// Calls `f(b)` for every source `b` in `mask`, in ascending order.
#[inline]
fn for_each_source(mut mask: SourceMask, mut f: impl FnMut(usize)) {
    while mask != 0 {
        f(mask.trailing_zeros() as usize);
        mask &= mask - 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_are_as_wide_as_the_state_cap_allows() {
        assert_eq!(batch_width(1 << 24, 32), 8);
        assert_eq!(batch_width(1 << 24, 3), 3);
        assert_eq!(batch_width(1 << 26, 32), 3);
        assert_eq!(batch_width(200_000_000, 32), 1);
        assert_eq!(batch_width(10, 0), 1);
        assert_eq!(batch_width(0, 100), 8);
        assert_eq!(batch_width(1 << 24, 18), 6, "three batches of six, not 8 + 8 + 2");
        assert_eq!(batch_width(1 << 26, 31), 3);
    }

    #[test]
    fn batches_are_few_and_even() {
        let sizes = |count: u32, n: usize| {
            let sources: Vec<u32> = (0..count).collect();
            let chunks: Vec<&[u32]> = sources.chunks(batch_width(n, sources.len())).collect();
            assert_eq!(chunks.concat(), sources, "every source once, in order");
            chunks.iter().map(|c| c.len()).collect::<Vec<_>>()
        };
        assert_eq!(sizes(18, 1 << 24), [6, 6, 6]);
        assert_eq!(sizes(17, 1 << 24), [6, 6, 5]);
        assert_eq!(sizes(16, 1 << 24), [8, 8]);
        assert_eq!(sizes(3, 1 << 24), [3]);
        assert_eq!(sizes(5, 200_000_000), [1, 1, 1, 1, 1]);
        assert!(sizes(0, 1 << 24).is_empty());
    }
}
