//! Single-source shortest paths on the sync engine: Dijkstra's algorithm (1959), textbook and
//! single-threaded, over an indexed binary heap whose top entries the prefetcher reads ahead of
//! (PrefEdge, Nilakant et al., SYSTOR '14, §3.4.2).
//!
//! Negative or NaN weights are refused before anything is computed, as on the other engines: a
//! first sequential pass reads every out-list with its weights and reports the first bad edge in
//! CSR order. An unweighted graph runs as a BFS (hop counts).
//!
//! Exactness: a distance is the left-to-right `f64` sum (`dist[u] + w as f64`) along a shortest
//! path, as for the memory engine's Δ-stepping, so the distances are equal bit for bit.

use diskgraph_engine::sync::{AheadHeap, Reads, Sequential, SyncGraph};
use diskgraph_engine::Engine;
use diskgraph_format::Direction;

use crate::{AlgoError, Sssp};

/// The out-lists with their weights, at `level`.
fn weighted_out(level: u32) -> Reads {
    Reads {
        directions: vec![Direction::Out],
        weights: true,
        level,
    }
}

/// Shortest-path distances from `source` along out-edges, with the weights (hop counts when the
/// graph is unweighted or was opened without its weights).
///
/// Errors: [`EngineError::InvalidVertex`](diskgraph_engine::EngineError::InvalidVertex);
/// [`AlgoError::NegativeWeight`] naming the first edge in CSR order whose weight is negative or
/// NaN; engine failures.
pub fn sssp(g: &SyncGraph, source: u32) -> Result<Sssp, AlgoError> {
    g.check_vertex(source)?;
    if !g.weighted() {
        let b = crate::bfs::sync::bfs(g, source, false)?;
        return Ok(Sssp {
            dist: b
                .levels
                .into_iter()
                .map(|l| if l < 0 { f64::INFINITY } else { l as f64 })
                .collect(),
            iterations: b.iterations,
            edges_processed: b.edges_processed,
        });
    }
    check_weights(g)?;
    dijkstra(g, source)
}

/// One sequential pass over the out-lists and their weights: fails on the first edge (in CSR
/// order) whose weight is negative or NaN.
fn check_weights(g: &SyncGraph) -> Result<(), AlgoError> {
    let mut lists = g.reader();
    for v in Sequential::new(g, 0..g.num_vertices() as u32, weighted_out(0)) {
        let (targets, weights) = lists.edges(Direction::Out, v)?;
        if let Some(k) = weights.iter().position(|&w| w < 0.0 || w.is_nan()) {
            return Err(AlgoError::negative_weight(g.vertices(), v, targets[k], weights[k]));
        }
    }
    Ok(())
}

/// Dijkstra from `source` (weights already checked): every vertex is settled once, at the
/// smallest key the heap hands out, and relaxes its out-edges into the heap.
fn dijkstra(g: &SyncGraph, source: u32) -> Result<Sssp, AlgoError> {
    let n = g.num_vertices();
    let mut dist = vec![f64::INFINITY; n];
    let mut settled = vec![false; n];
    let mut heap = AheadHeap::new(g, n, f64::INFINITY, weighted_out(0));
    let mut lists = g.reader();
    let (mut iterations, mut edges) = (0, 0u64);
    heap.push_or_decrease(source, 0.0);
    while let Some((u, du)) = heap.pop() {
        settled[u as usize] = true;
        dist[u as usize] = du;
        iterations += 1;
        let (targets, weights) = lists.edges(Direction::Out, u)?;
        edges += targets.len() as u64;
        for (&v, &w) in targets.iter().zip(weights) {
            let nd = du + w as f64;
            if !settled[v as usize] && nd < heap.key(v) {
                heap.push_or_decrease(v, nd);
            }
        }
    }
    Ok(Sssp {
        dist,
        iterations,
        edges_processed: edges,
    })
}
