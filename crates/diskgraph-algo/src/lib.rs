//! Graph algorithms for diskgraph's engines.
//!
//! The in-memory (`memory` engine) variants, parallel with rayon, over a [`MemoryGraph`], and
//! the [`selective`] engine's variants over a
//! [`SelectiveGraph`](diskgraph_engine::selective::SelectiveGraph), which return the same
//! results. Each algorithm lives in its own module and returns a named result:
//!
//! | algorithm | entry point | needs in-edges (directed) |
//! | --- | --- | --- |
//! | breadth-first search | [`bfs`] | no (faster with them: bottom-up steps) |
//! | single-source shortest paths | [`sssp`] | no (unweighted graphs: as `bfs`) |
//! | weakly connected components | [`wcc`] | no (faster with them) |
//! | strongly connected components | [`scc`] | no (faster with them) |
//! | PageRank (NetworkX semantics) | [`PageRank`] | yes |
//! | k-core decomposition | [`kcore`] | no (builds the transpose without them) |
//! | multi-source BFS (≤ 64 sources, bit-parallel) | [`msbfs()`] | no |
//! | sparse matrix-vector product `y = Aᵀx` | [`spmv()`] | yes |
//! | maximal independent set (greedy by ID, or Luby) | [`mis()`] | no |
//! | betweenness centrality (Brandes, exact or sampled) | [`betweenness()`] | no |
//! | diameter lower bound (repeated BFS sweeps) | [`diameter()`] | no (as BFS) |
//!
//! The [`stream`] engine's variants run over a
//! [`StreamGraph`](diskgraph_engine::stream::StreamGraph) (a grid layout streamed from disk) and
//! return the same results.
//!
//! Vertex IDs are the graph's internal IDs (`0..num_vertices`); mapping back to original IDs is
//! the caller's business.

pub mod apsp;
mod bc;
mod bfs;
mod diameter;
mod error;
mod kcore;
mod mis;
pub mod msbfs;
mod pagerank;
pub mod registry;
mod scc;
pub mod selective;
mod spmv;
mod sssp;
pub mod stream;
mod wcc;

pub use apsp::{apsp_in_batches, Apsp};
pub use bc::{betweenness, BcOptions, Betweenness};
pub use bfs::{bfs, Bfs};
pub use diameter::{diameter, Diameter, DEFAULT_SWEEPS};
pub use error::AlgoError;
pub use kcore::{kcore, KCore};
pub use mis::{mis, Mis, MisMethod};
pub use msbfs::{msbfs, MultiBfs};
pub use pagerank::{PageRank, PageRankResult};
pub use scc::scc;
pub use selective::SelectiveError;
pub use spmv::{spmv, Spmv};
pub use sssp::{sssp, sssp_with_delta, Sssp};
pub use wcc::{wcc, Components};

use diskgraph_engine::MemoryGraph;
use diskgraph_format::Csr;

/// The CSR to pull over (the in-edges): the in-CSR of a directed graph loaded with in-edges,
/// the (shared) out-CSR of an undirected graph, and `None` for a directed graph loaded without
/// in-edges.
pub fn in_edges(g: &MemoryGraph) -> Option<&Csr> {
    g.has_inn().then(|| g.inn())
}

/// Checks a source vertex against the graph.
fn check_source(g: &MemoryGraph, source: u32) -> Result<(), AlgoError> {
    if (source as usize) < g.num_vertices() {
        Ok(())
    } else {
        Err(AlgoError::InvalidSource {
            vertex: source,
            num_vertices: g.num_vertices(),
        })
    }
}

/// Splits `len` items into chunks for rayon: about eight per thread, at least `min` each.
fn chunk_len(len: usize, min: usize) -> usize {
    let parts = rayon::current_num_threads() * 8;
    len.div_ceil(parts).max(min).max(1)
}

/// Sums `f(i)` for `i in 0..len` in parallel, deterministically: fixed blocks summed in order,
/// then the block sums in order, so the result does not depend on the thread count.
fn det_sum(len: usize, f: impl Fn(usize) -> f64 + Sync) -> f64 {
    use rayon::prelude::*;
    const BLOCK: usize = 4096;
    let blocks: Vec<f64> = (0..len.div_ceil(BLOCK))
        .into_par_iter()
        .map(|b| (b * BLOCK..((b + 1) * BLOCK).min(len)).map(&f).sum())
        .collect();
    blocks.into_iter().sum()
}
