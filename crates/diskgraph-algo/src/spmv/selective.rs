//! `y = Aᵀ x` on the selective engine: one sequential pull round over every in-list, with the
//! weights (see [`crate::spmv()`]). A list read in one piece is summed exactly as in memory; a
//! list split across reads is summed per piece and the pieces added atomically (last-bit
//! differences only; min-plus pieces combine exactly).

use diskgraph_engine::selective::{SelectiveGraph, VertexSubset};
use diskgraph_engine::Engine;
use diskgraph_format::Direction;

use crate::parallel::{accumulate_with, atomics};
use crate::spmv::{check_x, dot, Semiring};
use crate::AlgoError;
use crate::Spmv;

/// `y = Aᵀ x` in `semiring`, with the weights when the graph was opened with them and
/// `weighted`. A directed graph must be opened with in-edges.
pub fn spmv(g: &SelectiveGraph, x: &[f64], weighted: bool, semiring: Semiring) -> Result<Spmv, AlgoError> {
    let n = g.num_vertices();
    check_x(x, n)?;
    if !g.has(Direction::In) {
        return Err(AlgoError::MissingInEdges("spmv"));
    }
    let edges_before = g.edges_delivered();
    let acc = atomics(n, semiring.zero().to_bits());
    let all = VertexSubset::from_fn(n, |v| g.degree(Direction::In, v) > 0);
    g.for_each_piece(Direction::In, &all, true, |v, p| {
        accumulate_with(
            &acc[v as usize],
            p.is_whole(),
            dot(semiring, p.targets, p.weights.filter(|_| weighted), x),
            |a, b| semiring.combine(a, b),
        );
    })?;
    drop(all);
    Ok(Spmv {
        // Sequential `into_iter().map().collect()` converts in place (an atomic has its
        // integer's layout, and `f64` the same): no second array of 8 bytes a vertex.
        y: acc.into_iter().map(|a| f64::from_bits(a.into_inner())).collect(),
        edges_processed: g.edges_delivered() - edges_before,
    })
}
