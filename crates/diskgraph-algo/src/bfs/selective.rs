//! Breadth-first search on the selective engine, direction-optimizing.
//!
//! Each level is one [`edge_map`](SelectiveGraph::edge_map): `update(s, d)` claims an unvisited
//! `d` with a compare-and-swap on its level (so each vertex is discovered once, whichever worker
//! or piece gets there first) and `cond(d)` is "still unvisited". Top-down (push) levels read the
//! frontier's out-lists; when the frontier's out-edges outweigh the in-lists of the unvisited
//! vertices (see [`EdgeMapOptions`]), the level goes bottom-up (pull) and reads those in-lists
//! instead, stopping a vertex at its first parent in the frontier. Pulling needs the in-edges of
//! a directed graph; without them every level pushes. Levels are deterministic; parents are a
//! valid BFS tree.
//!
//! Levels are held in 8-byte words although they fit in four: the result is an `i64` per
//! vertex, and the words become it in place, so a run holds 8 bytes a vertex where a `u32` array
//! and its `i64` copy would take 12 (wcc turns the levels into its labels the same way). A
//! search for the tree ([`tree`]) packs each vertex's level and parent in its word (level in
//! the high half), claimed by one compare-and-swap, and the words become the parents in place:
//! 8 bytes a vertex for the tree too.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use diskgraph_engine::selective::{EdgeFn, EdgeMapOptions, FrontierBuilder, SelectiveGraph, VertexSubset};
use diskgraph_engine::Engine;
use diskgraph_format::Direction;
use rayon::prelude::*;

use crate::bfs::{signed, Tree, UNVISITED};
use crate::AlgoError;
use crate::Bfs;

/// BFS levels from `source` along out-edges (see the module doc).
pub fn bfs(g: &SelectiveGraph, source: u32) -> Result<Bfs, AlgoError> {
    g.check_vertex(source)?;
    let edges_before = g.edges_delivered();
    let r = reach(g, source, &[Direction::Out])?;
    Ok(Bfs {
        // In place: an 8-byte atomic and an i64 have the same size and alignment.
        levels: r.level.into_iter().map(|l| signed(l.into_inner() as u32)).collect(),
        parents: None,
        iterations: r.iterations,
        edges_processed: g.edges_delivered() - edges_before,
    })
}

/// A BFS tree from `source` along out-edges, each vertex's level and parent packed in one word
/// (see the module doc).
pub fn tree(g: &SelectiveGraph, source: u32) -> Result<Tree, AlgoError> {
    g.check_vertex(source)?;
    let edges_before = g.edges_delivered();
    let r = search(g, source, &[Direction::Out], true)?;
    let (reached, depth) = r
        .level
        .par_iter()
        .map(|w| w.load(Relaxed))
        .filter(|&w| w != UNREACHED)
        .fold(|| (0u64, 0u64), |(count, deepest), w| (count + 1, deepest.max(w >> 32)))
        .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1.max(b.1)));
    Ok(Tree {
        // In place, as the levels above; an unreached word's low half is `UNVISITED`.
        parents: r.level.into_iter().map(|w| signed(w.into_inner() as u32)).collect(),
        reached,
        depth: depth as i64,
        iterations: r.iterations,
        edges_processed: g.edges_delivered() - edges_before,
    })
}

/// [`UNVISITED`] in a level word.
pub(crate) const UNREACHED: u64 = UNVISITED as u64;

/// What [`reach`] found.
pub(crate) struct Reach {
    /// Level of every vertex, [`UNREACHED`] when unreached (see the module doc for the width);
    /// for [`tree`], the level in the high half and the parent in the low.
    pub level: Vec<AtomicU64>,
    /// Levels expanded.
    pub iterations: usize,
}

impl Reach {
    /// Whether `v` was reached.
    pub fn reached(&self, v: usize) -> bool {
        self.level[v].load(Relaxed) != UNREACHED
    }

    /// The levels as `u32`s, [`UNVISITED`] when unreached.
    pub fn plain_levels(self) -> Vec<u32> {
        self.level.into_par_iter().map(|l| l.into_inner() as u32).collect()
    }
}

/// One BFS level as an [`EdgeFn`].
struct Claim<'a> {
    level: &'a [AtomicU64],
    /// Whether a claimed word packs the parent beside the level.
    tree: bool,
    next: u32,
}

impl EdgeFn for Claim<'_> {
    #[inline]
    fn cond(&self, d: u32) -> bool {
        self.level[d as usize].load(Relaxed) == UNREACHED
    }

    #[inline]
    fn update(&self, s: u32, d: u32, _w: f32) -> bool {
        let word = match self.tree {
            true => packed(self.next, s),
            false => u64::from(self.next),
        };
        self.level[d as usize]
            .compare_exchange(UNREACHED, word, Relaxed, Relaxed)
            .is_ok()
    }
}

/// A tree word: `level` in the high half, `parent` in the low. Never [`UNREACHED`]: a level
/// above 0 sets the high half, and the source's word is its own index, below `UNVISITED`.
fn packed(level: u32, parent: u32) -> u64 {
    u64::from(level) << 32 | u64::from(parent)
}

/// BFS levels from `source` following the edges of every direction in `along` (`[Out]`: a BFS;
/// `[Out, In]`: the weakly connected component of `source`).
pub(crate) fn reach(g: &SelectiveGraph, source: u32, along: &[Direction]) -> Result<Reach, AlgoError> {
    search(g, source, along, false)
}

/// [`reach`], with `tree` each word packing the vertex's parent beside its level.
fn search(g: &SelectiveGraph, source: u32, along: &[Direction], tree: bool) -> Result<Reach, AlgoError> {
    let n = g.num_vertices();
    let level: Vec<AtomicU64> = (0..n).into_par_iter().map(|_| AtomicU64::new(UNREACHED)).collect();
    level[source as usize].store(if tree { packed(0, source) } else { 0 }, Relaxed);
    let mut frontier = VertexSubset::single(n, source);
    let mut next = FrontierBuilder::new(n);
    let mut depth = 0u32;
    let mut iterations = 0;
    while !frontier.is_empty() {
        iterations += 1;
        let f = Claim {
            level: &level,
            tree,
            next: depth + 1,
        };
        for &d in along {
            g.edge_map_into(&frontier, &f, &EdgeMapOptions::along(d).head_first(), &next)?;
        }
        frontier = next.take();
        depth += 1;
    }
    Ok(Reach { level, iterations })
}
