//! Helpers of the stream engine's variants: which layout an algorithm streams
//! ([`LayoutNeed`], [`default_layout`]), opening the engine on it ([`open`]), and the one pass
//! that sums edge values into their destinations (pagerank's and spmv's).
//!
//! Relaxation algorithms (bfs, sssp, label-propagation wcc) use `--mrt` reentry passes per
//! loaded block; the others one pass. Beyond-neighbourhood algorithms (union-find wcc, greedy
//! mis) run on one thread, in file order.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use diskgraph_engine::options::Params;
use diskgraph_engine::stream::{Pass, PassReport, StreamGraph, StreamOptions, Threads, Update};
use diskgraph_engine::{Cancel, EngineError, GraphIndex, COMPRESSED_FROM_THREADS};
use diskgraph_format::{GraphDir, GridEdge, GridSort, LayoutRecord};

use crate::parallel::combine_f64;
use crate::AlgoError;

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
/// equals, and between a compressed and a plain layout of the same sort and P the compressed
/// one when the run has [`COMPRESSED_FROM_THREADS`] workers or more (it reads fewer bytes; with
/// fewer, decoding binds and the plain one is faster); `None` when there is none.
pub fn default_layout(graph: &GraphDir, need: LayoutNeed) -> Option<String> {
    let prefer_compressed = rayon::current_num_threads() >= COMPRESSED_FROM_THREADS;
    graph
        .layouts()
        .iter()
        .filter_map(LayoutRecord::grid)
        .filter_map(|grid| {
            let rank = need.preference().iter().position(|s| *s == grid.sort)?;
            Some((
                rank,
                grid.rows,
                grid.compressed.is_none() == prefer_compressed,
                &grid.name,
            ))
        })
        .min()
        .map(|(_, _, _, name)| name.clone())
}

/// Opens `graph` on the stream engine for `algorithm` as a run's `params` say (`--layout`,
/// which must be one of the graph's, or the layout `need` prefers), reading the weights if
/// `weights`, with the loaded `index` and the run's stop request `cancel` when given; a graph
/// without a suitable layout is an error naming the `diskgraph partition` command that makes
/// one.
pub fn open(
    algorithm: &str,
    graph: &GraphDir,
    params: &Params,
    need: LayoutNeed,
    weights: bool,
    index: Option<GraphIndex>,
    cancel: Option<Cancel>,
) -> Result<StreamGraph, AlgoError> {
    let (opts, name) = options(algorithm, graph, params, need, weights)?;
    let opts = StreamOptions { index, cancel, ..opts };
    Ok(StreamGraph::open(graph, &name, &opts)?)
}

/// The smallest budget [`open`] accepts with these arguments (whatever `--memory` says); the
/// same errors when there is no layout to stream.
pub(crate) fn minimum_budget(
    algorithm: &str,
    graph: &GraphDir,
    params: &Params,
    need: LayoutNeed,
    weights: bool,
) -> Result<u64, AlgoError> {
    let (opts, name) = options(algorithm, graph, params, need, weights)?;
    Ok(StreamGraph::minimum_budget(graph, &name, &opts)?)
}

/// The stream engine's options for [`open`] and the layout it streams.
fn options(
    algorithm: &str,
    graph: &GraphDir,
    params: &Params,
    need: LayoutNeed,
    weights: bool,
) -> Result<(StreamOptions, String), AlgoError> {
    let (opts, layout) = StreamOptions::from_params(params)?;
    let path = graph.path().display();
    let make = format!("diskgraph partition {path} --grid P{}", need.partition_flags());
    let name = match layout {
        Some(name) if graph.layout(&name).is_some() => name,
        Some(name) => {
            let has = match graph.layouts() {
                [] => "none".to_string(),
                l => l.iter().map(|r| r.name()).collect::<Vec<_>>().join(", "),
            };
            return Err(AlgoError::InvalidSetting(format!(
                "{path} has no layout {name} (it has: {has}); create one with `{make}`"
            )));
        }
        None => default_layout(graph, need).ok_or_else(|| {
            let kind = match need {
                LayoutNeed::Any => "a grid layout",
                LayoutNeed::SourceSorted => "a source- or grid-sorted layout",
            };
            AlgoError::InvalidSetting(format!(
                "{algorithm} on the stream engine needs {kind} of {path}, and there is none: create one with `{make}`"
            ))
        })?,
    };
    Ok((StreamOptions { weights, ..opts }, name))
}

/// One pass adding `value(edge, weight)` into `acc[dst]` for every edge (pagerank's and spmv's
/// sums), each destination's values in the layout's order after what `acc` holds:
///
/// - gathered ([`StreamGraph::gather`]) on a destination-sorted layout with enough columns
///   ([`StreamGraph::column_parallel`]): a destination's run is summed in a register;
/// - by column with plain adds ([`Threads::ByColumn`]) on other layouts with enough columns;
/// - else split over the threads with atomic adds (the order of the additions then varies).
pub(crate) fn sum_into_destinations(
    g: &StreamGraph,
    weights: bool,
    acc: &[AtomicU64],
    value: impl Fn(GridEdge, f32) -> f64 + Sync,
) -> Result<PassReport, EngineError> {
    combine_into_destinations(g, weights, acc, value, |a, b| a + b)
}

/// [`sum_into_destinations`] with another associative, commutative `combine` in place of the
/// sum (a minimum), `acc` holding its empty value.
pub(crate) fn combine_into_destinations(
    g: &StreamGraph,
    weights: bool,
    acc: &[AtomicU64],
    value: impl Fn(GridEdge, f32) -> f64 + Sync,
    combine: impl Fn(f64, f64) -> f64 + Sync,
) -> Result<PassReport, EngineError> {
    let get = |v: u32| f64::from_bits(acc[v as usize].load(Relaxed));
    let set = |v: u32, x: f64| acc[v as usize].store(x.to_bits(), Relaxed);
    if !g.column_parallel() {
        let pass = Pass { weights, ..Pass::all() };
        return g.stream(&pass, |e, w| {
            combine_f64(&acc[e.dst as usize], value(e, w), &combine);
            Update::NONE
        });
    }
    if g.layout().meta().sort == GridSort::Destination {
        return g.gather(weights, |dst, run, ws| {
            let mut sum = get(dst);
            for (k, &e) in run.iter().enumerate() {
                sum = combine(sum, value(e, ws.map_or(1.0, |w| w[k])));
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
        set(e.dst, combine(get(e.dst), x));
        Update::NONE
    })
}
