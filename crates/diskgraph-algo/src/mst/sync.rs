//! Minimum spanning forest on the sync engine: Prim's algorithm (1957), textbook and
//! single-threaded, one tree per component from an outer scan, over an indexed binary heap
//! whose top entries the prefetcher reads ahead of (PrefEdge, SYSTOR '14, §3.4.3).
//!
//! A vertex's key is the lightest edge joining it to the tree, in [`Edge`]'s total order, so
//! the forest is the unique one the memory engine's Kruskal finds. Every list is read once (when
//! its vertex joins the tree), so NaN weights are collected on the way and the first in CSR
//! order is reported, as the memory variant does, without a pass of its own.

use diskgraph_engine::sync::{AheadHeap, Reads, Sequential, SyncGraph};
use diskgraph_engine::Engine;
use diskgraph_format::Direction;

use super::{Edge, IdRanks, Mst, MST};
use crate::AlgoError;

/// The minimum spanning forest of `g`, an undirected graph (weights 1 when unweighted).
///
/// Errors: [`AlgoError::NeedsUndirected`]; [`AlgoError::NanWeight`] naming the first edge in
/// CSR order (self-loops aside) whose weight is NaN; engine failures.
pub fn mst(g: &SyncGraph) -> Result<Mst, AlgoError> {
    if g.directed() {
        return Err(AlgoError::NeedsUndirected(MST.name));
    }
    let n = g.num_vertices();
    let ranks = IdRanks::new(g.vertices());
    let reads = |level| Reads {
        directions: vec![Direction::Out],
        weights: g.weighted(),
        level,
    };
    let mut heap = AheadHeap::new(g, n, Edge::new(0.0, 0, 1), reads(1));
    let mut in_tree = vec![false; n];
    let mut forest = Vec::with_capacity(n.saturating_sub(1));
    // The first NaN-weighted arc in CSR order: (source, position in its list, target).
    let mut nan: Option<(u32, usize, u32)> = None;
    let mut lists = g.reader();
    let mut arcs = 0;
    for root in Sequential::new(g, 0..n as u32, reads(0)) {
        if in_tree[root as usize] {
            continue;
        }
        in_tree[root as usize] = true;
        let mut next = Some(root);
        while let Some(v) = next {
            let (targets, weights) = match g.weighted() {
                true => lists.edges(Direction::Out, v)?,
                false => (lists.neighbours(Direction::Out, v)?, &[][..]),
            };
            arcs += targets.len() as u64;
            for (i, &x) in targets.iter().enumerate() {
                let w = weights.get(i).copied().unwrap_or(1.0);
                if x == v {
                    continue;
                }
                if w.is_nan() {
                    if nan.is_none_or(|(s, p, _)| (v, i) < (s, p)) {
                        nan = Some((v, i, x));
                    }
                    continue;
                }
                if !in_tree[x as usize] {
                    heap.push_or_decrease(x, Edge::new(w, ranks.rank(v), ranks.rank(x)));
                }
            }
            next = heap.pop().map(|(x, edge)| {
                in_tree[x as usize] = true;
                forest.push(edge);
                x
            });
        }
    }
    if let Some((u, _, v)) = nan {
        let ids = g.vertices().ids();
        return Err(AlgoError::NanWeight {
            algorithm: MST.name,
            src: ids[u as usize],
            dst: ids[v as usize],
        });
    }
    Ok(Mst::from_forest(&ranks, forest, arcs))
}
