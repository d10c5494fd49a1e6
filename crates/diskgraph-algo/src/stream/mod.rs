//! The algorithms on the stream engine ([`StreamGraph`]): every iteration streams the grid
//! layout (skipping blocks and runs without active sources); vertex state lives in memory or in a
//! mapped scratch file ([`VertexArray`](diskgraph_engine::stream::VertexArray)). Each returns the
//! same result type as its `memory` variant, with the same values.
//!
//! | algorithm | entry point | passes | threads | layouts |
//! | --- | --- | --- | --- | --- |
//! | BFS levels (and parents) by relaxation with reentry | [`bfs()`] | until no update | all | any |
//! | SSSP by relaxation (Bellman-Ford) with reentry | [`sssp()`] | until no update (+1 weight check) | all | any |
//! | WCC by union-find (beyond the neighbourhood) | [`wcc_union_find`] | 1 | one | any |
//! | WCC by label propagation (the baseline) | [`wcc_label_propagation`] | until no update | all | any |
//! | MIS, greedy by ID (beyond the neighbourhood) | [`mis_greedy`] | 1 | one | `grid`, `source` |
//! | MIS, Luby's rounds (the baseline) | [`mis_luby`] | 2 per round | all | any |
//! | PageRank, power iteration | [`pagerank()`] | one per iteration | all | any |
//! | SpMV `y = Aᵀx` | [`spmv()`] | 1 | all | any |
//!
//! Relaxation algorithms use `--mrt` reentry passes per loaded block; the others one pass. Which
//! layout an algorithm streams by default is [`default_layout`]'s choice.

mod bfs;
mod mis;
mod pagerank;
mod spmv;
mod sssp;
mod wcc;

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use diskgraph_engine::stream::{Pass, PassReport, StreamError, StreamGraph, Threads, Update};
use diskgraph_format::{GraphDir, GridEdge, GridSort, LayoutRecord};

pub use bfs::bfs;
pub use mis::{mis_greedy, mis_luby};
pub use pagerank::pagerank;
pub use spmv::spmv;
pub use sssp::sssp;
pub use wcc::{wcc_label_propagation, wcc_union_find};

use crate::AlgoError;

/// Why a stream algorithm stopped: it refused its input, or the engine failed (a read, a damaged
/// layout, the budget).
#[derive(Debug, thiserror::Error)]
pub enum StreamAlgoError {
    /// The algorithm refused its input.
    #[error(transparent)]
    Algo(#[from] AlgoError),
    /// The engine failed.
    #[error(transparent)]
    Engine(#[from] StreamError),
}

/// What order inside blocks an algorithm needs of a layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LayoutNeed {
    /// Any order (the result does not depend on it): `grid` preferred, then `source`, then
    /// `destination`.
    Any,
    /// Each source's edges in (src, dst) order with blocks row-major: `source` preferred, then
    /// `grid` (greedy MIS).
    SourceSorted,
}

impl LayoutNeed {
    /// Whether a layout sorted `sort` serves.
    pub fn accepts(self, sort: &GridSort) -> bool {
        match self {
            LayoutNeed::Any => true,
            LayoutNeed::SourceSorted => diskgraph_engine::stream::source_sorted(sort),
        }
    }

    /// Sorts in order of preference (key orders are used only when named).
    fn preference(self) -> &'static [GridSort] {
        match self {
            LayoutNeed::Any => &[GridSort::Grid, GridSort::Source, GridSort::Destination],
            LayoutNeed::SourceSorted => &[GridSort::Source, GridSort::Grid],
        }
    }

    /// The `--sort` flag of `diskgraph partition` that makes the preferred layout.
    pub fn partition_flags(self) -> &'static str {
        match self {
            LayoutNeed::Any => "",
            LayoutNeed::SourceSorted => " --sort source",
        }
    }
}

/// The layout of `graph` an algorithm with `need` streams by default, chosen from the
/// manifest's grid records: the first in `need`'s order of preference, the smallest P among
/// equals; `None` when there is none.
pub fn default_layout(graph: &GraphDir, need: LayoutNeed) -> Option<String> {
    graph
        .layouts()
        .iter()
        .filter_map(LayoutRecord::grid)
        .filter_map(|grid| {
            let rank = need.preference().iter().position(|s| *s == grid.sort)?;
            Some((rank, grid.rows, &grid.name))
        })
        .min()
        .map(|(_, _, name)| name.clone())
}

/// Checks a source vertex against the graph.
fn check_source(g: &StreamGraph, source: u32) -> Result<(), AlgoError> {
    if (source as usize) < g.num_vertices() {
        Ok(())
    } else {
        Err(AlgoError::InvalidSource {
            vertex: source,
            num_vertices: g.num_vertices(),
        })
    }
}

/// One pass adding `value(edge, weight)` into `acc[dst]` for every edge (pagerank's and spmv's
/// sums), each destination's values in the layout's order after what `acc` holds:
///
/// - gathered ([`StreamGraph::gather`]) on a destination-sorted layout with enough columns
///   ([`StreamGraph::column_parallel`]): a destination's run is summed in a register;
/// - by column with plain adds ([`Threads::ByColumn`]) on other layouts with enough columns;
/// - else split over the threads with atomic adds (the order of the additions then varies).
fn sum_into_destinations(
    g: &StreamGraph,
    weights: bool,
    acc: &[AtomicU64],
    value: impl Fn(GridEdge, f32) -> f64 + Sync,
) -> Result<PassReport, StreamError> {
    let get = |v: u32| f64::from_bits(acc[v as usize].load(Relaxed));
    let set = |v: u32, x: f64| acc[v as usize].store(x.to_bits(), Relaxed);
    if !g.column_parallel() {
        let pass = Pass { weights, ..Pass::all() };
        return g.stream(&pass, |e, w| {
            let x = value(e, w);
            let a = &acc[e.dst as usize];
            let mut cur = a.load(Relaxed);
            while let Err(now) = a.compare_exchange_weak(cur, (f64::from_bits(cur) + x).to_bits(), Relaxed, Relaxed) {
                cur = now;
            }
            Update::NONE
        });
    }
    if g.layout().meta().sort == GridSort::Destination {
        return g.gather(weights, |dst, run, ws| {
            let mut sum = get(dst);
            for (k, &e) in run.iter().enumerate() {
                sum += value(e, ws.map_or(1.0, |w| w[k]));
            }
            set(dst, sum);
        });
    }
    let pass = Pass {
        weights,
        threads: Threads::ByColumn,
        ..Pass::all()
    };
    g.stream(&pass, |e, w| {
        let x = value(e, w);
        set(e.dst, get(e.dst) + x);
        Update::NONE
    })
}
