//! Sparse matrix-vector product `y = Aᵀx` on the stream engine: one pass over the weighted edges
//! (row-major, one sequential read) adds `w · x[src]` into `y[dst]` (see
//! `sum_into_destinations`: gathered, by column, or atomically). Except with atomic adds on
//! several threads, each `y[v]` is summed by ascending source from `+0.0`, exactly as the memory
//! engine's pull; with them, up to rounding. Min-plus combines by the minimum instead (exact in
//! any order).

use std::sync::atomic::AtomicU64;

use diskgraph_engine::stream::StreamGraph;
use diskgraph_engine::Engine;

use crate::spmv::{check_x, Semiring};
use crate::streaming::combine_into_destinations;
use crate::AlgoError;
use crate::Spmv;

/// `y = Aᵀx` in `semiring`, with the weights when the layout has them and `weighted` (then `g`
/// must have been opened with them).
///
/// Errors: [`AlgoError::InvalidSetting`] when `x` does not have one value per vertex, or the
/// weights were not opened; engine failures.
pub fn spmv(g: &StreamGraph, x: &[f64], weighted: bool, semiring: Semiring) -> Result<Spmv, AlgoError> {
    check_x(x, g.num_vertices())?;
    if g.layout().weighted() && !g.weighted() {
        return Err(AlgoError::InvalidSetting(
            "spmv needs the weights: open the graph with them".into(),
        ));
    }
    let zero = semiring.zero().to_bits();
    let y = g.vertex_array::<AtomicU64>(|_| zero)?;
    let weight = |w: f32| if weighted { f64::from(w) } else { 1.0 };
    let combine = |a, b| semiring.combine(a, b);
    let r = match semiring {
        Semiring::PlusTimes => combine_into_destinations(g, true, &y, |e, w| weight(w) * x[e.src as usize], combine)?,
        Semiring::MinPlus => combine_into_destinations(g, true, &y, |e, w| x[e.src as usize] + weight(w), combine)?,
    };
    Ok(Spmv {
        y: y.values()?.into_iter().map(f64::from_bits).collect(),
        edges_processed: r.edges_processed,
    })
}
