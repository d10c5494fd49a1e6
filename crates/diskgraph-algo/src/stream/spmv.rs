//! Sparse matrix-vector product `y = Aᵀx` on the stream engine: one pass over the weighted edges
//! (row-major, one sequential read) adds `w · x[src]` into `y[dst]`: by column with plain adds
//! when the layout has enough columns, else atomic adds (see `StreamGraph::column_parallel`).
//! By column or on one thread each `y[v]` is summed in the layout's order — ascending source for
//! `grid` and `source` layouts — from `+0.0`, exactly as the memory engine's pull; with atomic
//! adds on several threads, up to rounding.

use std::sync::atomic::AtomicU64;

use diskgraph_engine::stream::{Pass, StreamGraph, Update};

use super::{add_to_destination, sum_threads, StreamAlgoError};
use crate::spmv::check_x;
use crate::{AlgoError, Spmv};

/// `y = Aᵀx`, with the weights when the layout has them (then `g` must have been opened with
/// them).
///
/// Errors: [`AlgoError::InvalidSetting`] when `x` does not have one value per vertex, or the
/// weights were not opened; engine failures.
pub fn spmv(g: &StreamGraph, x: &[f64]) -> Result<Spmv, StreamAlgoError> {
    check_x(x, g.num_vertices())?;
    if g.layout().weighted() && !g.weighted() {
        return Err(AlgoError::InvalidSetting("spmv needs the weights: open the graph with them".into()).into());
    }
    let y = g.vertex_array::<AtomicU64>(|_| 0)?;
    let threads = sum_threads(g);
    let pass = Pass {
        weights: true,
        threads,
        ..Pass::all()
    };
    let r = g.stream(&pass, |e, w| {
        add_to_destination(threads, &y[e.dst as usize], f64::from(w) * x[e.src as usize]);
        Update::NONE
    })?;
    Ok(Spmv {
        y: y.values().into_iter().map(f64::from_bits).collect(),
        edges_processed: r.edges_processed,
    })
}
