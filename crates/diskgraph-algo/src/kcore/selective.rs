//! k-core decomposition on the selective engine: level-synchronous peeling (PKC) of the simple
//! undirected view, reading the lists of the vertices being peeled.
//!
//! The simple view merges a vertex's out- and in-lists and drops repeats and self-loops, so it
//! needs each vertex's lists *whole and together*; they come from
//! [`SelectiveGraph::for_each_list`], which assembles the lists of a batch of vertices in a
//! buffer from the budget (both directions for a directed graph) and then hands each vertex its
//! lists.
//!
//! 1. **Degrees**: one pass over all lists gives every vertex's simple degree.
//! 2. **Peeling**, as the memory engine's PKC: at level `k`, the smallest remaining degree, the
//!    remaining vertices of degree `k` are the frontier; reading their lists, each decrements
//!    its neighbours of degree above `k` (atomically; a decrement below `k` is undone) and a
//!    neighbour that drops from `k + 1` to `k` joins the next frontier of the same level. When
//!    the frontier runs dry, the vertices of degree `k` leave and the next level starts. A
//!    removed vertex's degree is its core number. The frontier shrinks from the whole low-degree
//!    fringe in the first levels (near-sequential reads) to a few vertices later (random
//!    reads), the alternating pattern the Graphene paper notes for k-core.

use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

use diskgraph_engine::selective::{FrontierBuilder, SelectiveGraph, VertexSubset};
use diskgraph_engine::Engine;
use diskgraph_engine::EngineError;
use diskgraph_format::Direction;
use rayon::prelude::*;

use crate::kcore::simple_neighbours;
use crate::AlgoError;
use crate::KCore;

/// Core numbers on the simple undirected view of `g`. The graph must be opened with
/// `assemble_lists` (and, if directed, with in-edges).
pub fn kcore(g: &SelectiveGraph) -> Result<KCore, AlgoError> {
    let n = g.num_vertices();
    let with_in = g.directed();
    if with_in && !g.has(Direction::In) {
        return Err(EngineError::MissingInEdges.into());
    }
    let deg: Vec<AtomicU32> = (0..n).into_par_iter().map(|_| AtomicU32::new(0)).collect();
    g.for_each_list(&VertexSubset::all(n), with_in, |v, out, inn| {
        let mut d = 0;
        simple_neighbours(v, out, inn, |_| d += 1);
        deg[v as usize].store(d, Relaxed);
    })?;
    let mut remaining: Vec<u32> = (0..n as u32).collect();
    let mut next = FrontierBuilder::new(n);
    let mut levels = 0;
    while !remaining.is_empty() {
        levels += 1;
        let (level, peel) = crate::kcore::lowest_level(&remaining, &deg);
        let mut frontier = VertexSubset::from_vertices(n, peel);
        while !frontier.is_empty() {
            g.for_each_list(&frontier, with_in, |v, out, inn| {
                simple_neighbours(v, out, inn, |u| {
                    let d = &deg[u as usize];
                    if d.load(Relaxed) > level {
                        match d.fetch_sub(1, Relaxed) {
                            x if x == level + 1 => {
                                next.insert(u);
                            }
                            x if x <= level => {
                                d.fetch_add(1, Relaxed);
                            }
                            _ => {}
                        }
                    }
                });
            })?;
            frontier = next.take();
        }
        remaining = remaining
            .into_par_iter()
            .filter(|&v| deg[v as usize].load(Relaxed) > level)
            .collect();
    }
    let core: Vec<u32> = deg.into_par_iter().map(AtomicU32::into_inner).collect();
    let max_core = core.par_iter().copied().max().unwrap_or(0);
    Ok(KCore { core, max_core, levels })
}
