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
//! Levels (and parents) are held in 8-byte words although they fit in four: the result is an
//! `i64` per vertex, and the words become it in place, so a run holds 8 bytes a vertex where a
//! `u32` array and its `i64` copy would take 12 (wcc turns the levels into its labels the same
//! way).

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use diskgraph_engine::selective::{EdgeFn, EdgeMapOptions, FrontierBuilder, SelectiveGraph, VertexSubset};
use diskgraph_engine::Engine;
use diskgraph_format::Direction;
use rayon::prelude::*;

use crate::bfs::{signed, UNVISITED};
use crate::AlgoError;
use crate::Bfs;

/// BFS from `source` along out-edges (see the module doc); `want_parents` also records a tree.
pub fn bfs(g: &SelectiveGraph, source: u32, want_parents: bool) -> Result<Bfs, AlgoError> {
    g.check_vertex(source)?;
    let edges_before = g.edges_delivered();
    let r = reach(g, source, want_parents, &[Direction::Out])?;
    Ok(Bfs {
        // In place: an 8-byte atomic and an i64 have the same size and alignment.
        levels: r.level.into_iter().map(|l| signed(l.into_inner() as u32)).collect(),
        parents: r
            .parent
            .map(|p| p.into_iter().map(|x| signed(x.into_inner() as u32)).collect()),
        iterations: r.iterations,
        edges_processed: g.edges_delivered() - edges_before,
    })
}

/// [`UNVISITED`] in a level word.
pub(crate) const UNREACHED: u64 = UNVISITED as u64;

/// What [`reach`] found.
pub(crate) struct Reach {
    /// Level of every vertex, [`UNREACHED`] when unreached (see the module doc for the width).
    pub level: Vec<AtomicU64>,
    /// Parent of every vertex when asked for, [`UNREACHED`] when unreached (8 bytes each, like
    /// the levels, to become the result in place).
    pub parent: Option<Vec<AtomicU64>>,
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
    parent: Option<&'a [AtomicU64]>,
    next: u32,
}

impl EdgeFn for Claim<'_> {
    #[inline]
    fn cond(&self, d: u32) -> bool {
        self.level[d as usize].load(Relaxed) == UNREACHED
    }

    #[inline]
    fn update(&self, s: u32, d: u32, _w: f32) -> bool {
        let l = &self.level[d as usize];
        let won = l
            .compare_exchange(UNREACHED, u64::from(self.next), Relaxed, Relaxed)
            .is_ok();
        if won {
            if let Some(p) = self.parent {
                p[d as usize].store(u64::from(s), Relaxed);
            }
        }
        won
    }
}

/// BFS from `source` following the edges of every direction in `along` (`[Out]`: a BFS;
/// `[Out, In]`: the weakly connected component of `source`).
pub(crate) fn reach(
    g: &SelectiveGraph,
    source: u32,
    want_parents: bool,
    along: &[Direction],
) -> Result<Reach, AlgoError> {
    let n = g.num_vertices();
    let level: Vec<AtomicU64> = (0..n).into_par_iter().map(|_| AtomicU64::new(UNREACHED)).collect();
    level[source as usize].store(0, Relaxed);
    let parent = want_parents.then(|| {
        let p: Vec<AtomicU64> = (0..n).into_par_iter().map(|_| AtomicU64::new(UNREACHED)).collect();
        p[source as usize].store(u64::from(source), Relaxed);
        p
    });
    let mut frontier = VertexSubset::single(n, source);
    let mut next = FrontierBuilder::new(n);
    let mut depth = 0u32;
    let mut iterations = 0;
    while !frontier.is_empty() {
        iterations += 1;
        let f = Claim {
            level: &level,
            parent: parent.as_deref(),
            next: depth + 1,
        };
        for &d in along {
            g.edge_map_into(&frontier, &f, &EdgeMapOptions::along(d).head_first(), &next)?;
        }
        frontier = next.take();
        depth += 1;
    }
    Ok(Reach {
        level,
        parent,
        iterations,
    })
}
