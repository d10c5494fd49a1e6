//! The algorithms on the selective engine ([`SelectiveGraph`]): adjacency lists stay on disk and
//! are read per iteration for the active vertices only; vertex state (levels, distances, labels,
//! ranks) is held in memory. Each returns the same result type as its `memory` variant, with the
//! same values (bit for bit where the computation allows it; see each module).
//!
//! | algorithm | entry point | reads | needs |
//! | --- | --- | --- | --- |
//! | BFS, direction-optimizing | [`bfs()`] | out-lists of the frontier, or in-lists of the unvisited | in-edges for pull steps |
//! | SSSP, Δ-stepping rounds | [`sssp()`] | out-lists + weights of each bucket's frontier | weights |
//! | WCC, BFS + label propagation | [`wcc()`] | both directions of the frontier | in-edges (directed) |
//! | k-core, level peeling | [`kcore()`] | whole lists (both directions) of each peeled batch | in-edges (directed), list assembly |
//! | PageRank, power iteration / delta | [`pagerank()`] | in-lists of all (pull) or out-lists of the active (push) | in-edges |
//! | multi-source BFS, 64 bit-parallel | [`msbfs()`] | out-lists of the frontier | — |
//! | SpMV `y = Aᵀx` | [`spmv()`] | in-lists + weights of all | in-edges |
//! | betweenness (Brandes) | [`betweenness()`] | out-lists of each level, forward and back | — |
//! | diameter lower bound (BFS sweeps) | [`diameter()`] | as BFS | as BFS |

mod bc;
mod bfs;
mod diameter;
mod kcore;
mod msbfs;
mod pagerank;
mod spmv;
mod sssp;
mod wcc;

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

pub use bc::betweenness;
pub use bfs::bfs;
pub use diameter::diameter;
use diskgraph_engine::selective::{EngineError, SelectiveGraph};
pub use kcore::kcore;
pub use msbfs::msbfs;
pub use pagerank::pagerank;
pub use spmv::spmv;
pub use sssp::{sssp, sssp_with_delta};
pub use wcc::wcc;

use crate::AlgoError;

/// Why a selective algorithm stopped: it refused its input, or the engine failed (I/O, a
/// damaged file, the budget).
#[derive(Debug, thiserror::Error)]
pub enum SelectiveError {
    /// The algorithm refused its input.
    #[error(transparent)]
    Algo(#[from] AlgoError),
    /// The engine failed.
    #[error(transparent)]
    Engine(#[from] EngineError),
}

/// Checks a source vertex against the graph.
fn check_source(g: &SelectiveGraph, source: u32) -> Result<(), AlgoError> {
    if (source as usize) < g.num_vertices() {
        Ok(())
    } else {
        Err(AlgoError::InvalidSource {
            vertex: source,
            num_vertices: g.num_vertices(),
        })
    }
}

/// `n` atomics holding `value`.
fn atomics(n: usize, value: u64) -> Vec<AtomicU64> {
    use rayon::prelude::*;
    (0..n).into_par_iter().map(|_| AtomicU64::new(value)).collect()
}

/// Adds `x` to the `f64` stored (as bits) in `a`.
#[inline]
fn add_f64(a: &AtomicU64, x: f64) {
    let mut cur = a.load(Relaxed);
    loop {
        let new = (f64::from_bits(cur) + x).to_bits();
        match a.compare_exchange_weak(cur, new, Relaxed, Relaxed) {
            Ok(_) => return,
            Err(actual) => cur = actual,
        }
    }
}

/// Accumulates per-vertex sums of list pieces into `acc` (`f64` bits, zeroed): a piece that is
/// the whole list is stored as is — the same sum, in the same order, as a sum over the list in
/// memory — and the pieces of a split list are added atomically.
#[inline]
fn accumulate(acc: &AtomicU64, whole: bool, sum: f64) {
    if whole {
        acc.store(sum.to_bits(), Relaxed);
    } else {
        add_f64(acc, sum);
    }
}
