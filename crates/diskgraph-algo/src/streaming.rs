//! Helpers of the stream engine's variants: the one pass that sums edge values into their
//! destinations (pagerank's and spmv's), and its kin with another combination (a minimum).
//!
//! Relaxation algorithms (bfs, sssp, label-propagation wcc) use `--mrt` reentry passes per
//! loaded block; the others one pass. Beyond-neighbourhood algorithms (union-find wcc, greedy
//! mis) run on one thread, in file order.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use diskgraph_engine::stream::{Pass, PassReport, StreamGraph, Threads, Update};
use diskgraph_engine::EngineError;
use diskgraph_format::{GridEdge, GridSort};

use crate::parallel::combine_f64;

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
