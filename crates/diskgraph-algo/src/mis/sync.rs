//! Maximal independent set on the sync engine: the greedy set by ascending vertex ID (the
//! memory engine's `greedy`, the lexicographically first maximal independent set), in one
//! sequential scan over the out-lists that the prefetcher reads ahead of (PrefEdge, Nilakant et
//! al., SYSTOR '14, §3.4.1). Every vertex starts in the set; an arc between `lo < hi` removes
//! `hi` when `lo` is still in. In source order every arc between `lo` and a smaller vertex comes
//! before any arc with `lo` as its smaller end, so `lo` is decided when it matters. Directions
//! and self-loops are ignored; only the out-edges are read.

use diskgraph_engine::sync::{Reads, Sequential, SyncGraph};
use diskgraph_engine::Engine;
use diskgraph_format::Direction;

use super::Mis;
use crate::AlgoError;

/// The greedy maximal independent set of `g`'s undirected view (see the module doc).
///
/// Errors: engine failures.
pub fn mis_greedy(g: &SyncGraph) -> Result<Mis, AlgoError> {
    let n = g.num_vertices();
    let mut in_set = vec![true; n];
    let mut lists = g.reader();
    let mut edges = 0u64;
    for u in Sequential::new(g, 0..n as u32, Reads::out(0)) {
        let out = lists.neighbours(Direction::Out, u)?;
        edges += out.len() as u64;
        for &v in out {
            let (lo, hi) = (u.min(v) as usize, u.max(v) as usize);
            if lo != hi && in_set[lo] {
                in_set[hi] = false;
            }
        }
    }
    Ok(Mis {
        in_set,
        iterations: 1,
        edges_processed: edges,
    })
}
