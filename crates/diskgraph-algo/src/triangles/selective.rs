//! Triangle counting on the selective engine: the oriented lists of one chunk of vertices at a
//! time in memory, every other list streamed past them.
//!
//! The simple view needs each vertex's lists whole and together, so every read goes through
//! [`SelectiveGraph::for_each_list`], which assembles batches of lists (both directions for a
//! directed graph) in the budget's whole-list share. The chunk's oriented lists live in the same
//! share: the variant takes three quarters of it for them — every chunk costs a pass, while the
//! batches need only hold a few lists at a time — and declares what it holds
//! ([`SelectiveGraph::hold_lists`]), so the batches take the rest and `peak_engine_memory`
//! counts both. (On Kronecker 18 at 16 MiB, three chunks read 173 MiB where a half share's five
//! read 230 MiB.) The budget is the engine's with list assembly, as for k-core: the registry's
//! smallest budget for `auto` holds.
//!
//! 1. **Degrees**: one pass over all lists gives every vertex's simple degree, hence the rank
//!    order (`precedes`); O(V) vertex state, like the counts.
//! 2. **Slot sizes**: a chunk keeps, per vertex, its oriented list (4 bytes an entry) and where
//!    it is (12 bytes). When every vertex's simple degree fits in the chunk share at once, the
//!    degrees bound the lists and one chunk holds all; otherwise a second pass counts every
//!    vertex's oriented list exactly, so that chunks are as full as they can be (a pass costs
//!    less than the extra chunks a degree bound, twice the oriented size on average, would make).
//! 3. **Chunks**: consecutive vertices by ID (their lists are read nearly sequentially) whose
//!    slots fit in the chunk share, a single vertex alone if its own do not (never the case for
//!    a share of `4√(2E) + 20` bytes or more, since orienting by degree bounds every list by
//!    `√(2E)` entries). For each chunk:
//!    - read the lists of its vertices with a non-empty slot and keep their oriented lists;
//!      every lower-ranked neighbour `u` of a chunk vertex joins the stream frontier;
//!    - read the frontier's lists: for each `u`, its oriented list, and for each chunk vertex
//!      `x` in it, the common members `c` of `u`'s and `x`'s oriented lists. Each is the triangle
//!      `u < x < c` (in rank), found at its middle vertex `x`, which is in exactly one chunk: every
//!      triangle is counted exactly once.
//!
//!    A streamed vertex's oriented list is built in a vector of its own while it is computed on
//!    (at most `√(2E)` entries, per worker thread, outside the budget like the vertex state).
//!
//! The reads are one or two passes over every list, then per chunk its own lists and those of
//! its lower-ranked neighbours: with `k` chunks, about `k` more passes at worst. Counts are added
//! with atomics; integer sums, so the result does not depend on the order.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};

use diskgraph_engine::selective::{FrontierBuilder, SelectiveGraph, VertexSubset};
use diskgraph_engine::{Engine, EngineError};
use diskgraph_format::Direction;
use rayon::prelude::*;

use super::{count_at, oriented_neighbours, precedes, Triangles};
use crate::kcore::simple_neighbours;
use crate::parallel::atomics;
use crate::AlgoError;

/// Bytes a chunk spends per vertex besides its list: where the list starts (8) and its length
/// (4).
const SLOT_BYTES: u64 = 12;

/// Triangle counts on the simple undirected view of `g` (see the module doc). The graph must be
/// opened with `assemble_lists` (and, if directed, with in-edges).
///
/// Errors: a directed graph opened without in-edges; a graph opened without list assembly; the
/// engine's read errors.
pub fn triangles(g: &SelectiveGraph) -> Result<Triangles, AlgoError> {
    let n = g.num_vertices();
    let with_in = g.directed();
    if with_in && !g.has(Direction::In) {
        return Err(EngineError::MissingInEdges.into());
    }
    let all = VertexSubset::all(n);
    // 1. Simple degrees.
    let degree: Vec<AtomicU32> = (0..n).into_par_iter().map(|_| AtomicU32::new(0)).collect();
    g.for_each_list(&all, with_in, |v, out, inn| {
        let mut d = 0;
        simple_neighbours(v, out, inn, |_| d += 1);
        degree[v as usize].store(d, Relaxed);
    })?;
    let degree: Vec<u32> = degree.into_par_iter().map(AtomicU32::into_inner).collect();
    // 2. Slot sizes, within the chunks' share.
    let share = g.assembly_bytes() / 4 * 3;
    let bytes_of = |slot: u32| 4 * u64::from(slot) + SLOT_BYTES;
    let one_chunk = degree.par_iter().map(|&d| bytes_of(d)).sum::<u64>() + 8 <= share;
    let slot: Vec<u32> = if one_chunk {
        degree.clone()
    } else {
        let up: Vec<AtomicU32> = (0..n).into_par_iter().map(|_| AtomicU32::new(0)).collect();
        g.for_each_list(&all, with_in, |v, out, inn| {
            let mut d = 0;
            oriented_neighbours(v, out, inn, &degree, |_| d += 1);
            up[v as usize].store(d, Relaxed);
        })?;
        up.into_par_iter().map(AtomicU32::into_inner).collect()
    };
    // 3. Chunks.
    let count = atomics(n, 0);
    let total = AtomicU64::new(0);
    let (mut chunks, mut peak) = (0, 0);
    let mut lo = 0;
    while lo < n {
        let mut hi = lo + 1;
        let mut bytes = bytes_of(slot[lo]) + 8;
        while hi < n && bytes + bytes_of(slot[hi]) <= share {
            bytes += bytes_of(slot[hi]);
            hi += 1;
        }
        let chunk = Chunk::read(g, &degree, &slot, lo as u32..hi as u32, bytes)?;
        peak = peak.max(bytes);
        chunk.stream(g, &degree, &count, &total)?;
        drop(chunk);
        g.hold_lists(0);
        chunks += 1;
        lo = hi;
    }
    drop((all, degree, slot));
    Ok(Triangles {
        // Sequential `into_iter().map().collect()` converts in place (an atomic has its
        // integer's layout): no second array of 8 bytes a vertex.
        per_vertex: count.into_iter().map(AtomicU64::into_inner).collect(),
        total: total.into_inner(),
        chunks,
        oriented_bytes: peak,
        edges_processed: None,
    })
}

/// The oriented lists of a range of vertices, and the lower-ranked vertices adjacent to them.
struct Chunk {
    /// The first vertex.
    lo: u32,
    /// Where each vertex's slot starts in `lists` (one more entry than vertices).
    starts: Vec<u64>,
    /// The length of each vertex's oriented list.
    lens: Vec<u32>,
    /// The slots, each vertex's oriented list at the start of its own.
    lists: Vec<u32>,
    /// Every vertex with a chunk vertex later than itself among its neighbours.
    lower: VertexSubset,
}

impl Chunk {
    /// Reads the lists of the vertices in `range` (with non-empty slots), keeping their oriented
    /// lists in slots of `slot` entries; `bytes` is what the chunk takes, declared to `g` for
    /// as long as it is held.
    fn read(
        g: &SelectiveGraph,
        degree: &[u32],
        slot: &[u32],
        range: std::ops::Range<u32>,
        bytes: u64,
    ) -> Result<Self, AlgoError> {
        let n = g.num_vertices();
        let (lo, hi) = (range.start as usize, range.end as usize);
        let mut starts = Vec::with_capacity(hi - lo + 1);
        starts.push(0u64);
        for &s in &slot[lo..hi] {
            starts.push(starts.last().expect("pushed") + u64::from(s));
        }
        g.hold_lists(bytes);
        let lists: Vec<AtomicU32> = (0..starts[hi - lo])
            .into_par_iter()
            .map(|_| AtomicU32::new(0))
            .collect();
        let lens: Vec<AtomicU32> = (lo..hi).into_par_iter().map(|_| AtomicU32::new(0)).collect();
        let mut lower = FrontierBuilder::new(n);
        let members = VertexSubset::from_fn(n, |v| range.contains(&v) && slot[v as usize] > 0);
        g.for_each_list(&members, g.directed(), |x, out, inn| {
            let i = (x - range.start) as usize;
            let mut k = starts[i];
            simple_neighbours(x, out, inn, |u| {
                if precedes(degree, x, u) {
                    lists[k as usize].store(u, Relaxed);
                    k += 1;
                } else {
                    lower.insert(u);
                }
            });
            lens[i].store((k - starts[i]) as u32, Relaxed);
        })?;
        // In place: the same allocation, read without atomics from here on.
        let lists: Vec<u32> = lists.into_iter().map(AtomicU32::into_inner).collect();
        Ok(Chunk {
            lo: range.start,
            starts,
            lens: lens.into_iter().map(AtomicU32::into_inner).collect(),
            lists,
            lower: lower.take(),
        })
    }

    /// The range of vertices it holds.
    fn range(&self) -> std::ops::Range<u32> {
        self.lo..self.lo + self.lens.len() as u32
    }

    /// The oriented list of chunk vertex `x`.
    fn list(&self, x: u32) -> &[u32] {
        let i = (x - self.lo) as usize;
        let start = self.starts[i] as usize;
        &self.lists[start..start + self.lens[i] as usize]
    }

    /// Reads the lists of the lower-ranked neighbours of the chunk and counts the triangles
    /// whose middle vertex is in the chunk (see the module doc) into `count` and `total`.
    fn stream(
        &self,
        g: &SelectiveGraph,
        degree: &[u32],
        count: &[AtomicU64],
        total: &AtomicU64,
    ) -> Result<(), AlgoError> {
        let range = self.range();
        g.for_each_list(&self.lower, g.directed(), |u, out, inn| {
            let mut up = Vec::new();
            oriented_neighbours(u, out, inn, degree, |x| up.push(x));
            let first = up.partition_point(|&x| x < range.start);
            let last = up.partition_point(|&x| x < range.end);
            let found: u64 = up[first..last]
                .iter()
                .map(|&x| count_at(count, x, &up, self.list(x)))
                .sum();
            if found > 0 {
                count[u as usize].fetch_add(found, Relaxed);
                total.fetch_add(found, Relaxed);
            }
        })?;
        Ok(())
    }
}
