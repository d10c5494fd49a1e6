//! Sparse matrix-vector product `y = Aᵀ x`, where `A[u][v]` is the weight of the edge `u → v`
//! (1 for an unweighted graph; a multigraph's duplicate edges each count).
//!
//! `y[v] = Σ_{u → v} w(u, v) · x[u]`, a pull over the in-lists: every vertex sums its in-list in
//! CSR order (`w as f64 * x[u]`, left to right), in parallel, without atomics. An undirected
//! graph is its own transpose; a directed one needs its in-edges.

use diskgraph_engine::MemoryGraph;
use rayon::prelude::*;

use crate::{in_edges, AlgoError};

/// The result of [`spmv`].
#[derive(Clone, Debug, PartialEq)]
pub struct Spmv {
    /// `y = Aᵀ x`.
    pub y: Vec<f64>,
    /// Edges multiplied (the arc count).
    pub edges_processed: u64,
}

/// Checks the length of `x`.
pub(crate) fn check_x(x: &[f64], n: usize) -> Result<(), AlgoError> {
    if x.len() == n {
        Ok(())
    } else {
        Err(AlgoError::InvalidSetting(format!(
            "spmv needs one x value per vertex: got {}, the graph has {n} vertices",
            x.len()
        )))
    }
}

/// `Σ_k w[k] · x[targets[k]]`, left to right from `+0.0` (so an empty list gives `+0.0`);
/// `w` is all ones when absent.
#[inline]
pub(crate) fn dot(targets: &[u32], w: Option<&[f32]>, x: &[f64]) -> f64 {
    match w {
        Some(w) => targets
            .iter()
            .zip(w)
            .fold(0.0, |a, (&u, &w)| a + w as f64 * x[u as usize]),
        None => targets.iter().fold(0.0, |a, &u| a + x[u as usize]),
    }
}

/// `y = Aᵀ x` on the memory engine, with the weights when they were loaded.
///
/// Errors: [`AlgoError::MissingInEdges`] for a directed graph loaded without in-edges;
/// [`AlgoError::InvalidSetting`] when `x` does not have one value per vertex.
pub fn spmv(g: &MemoryGraph, x: &[f64]) -> Result<Spmv, AlgoError> {
    check_x(x, g.num_vertices())?;
    let inn = in_edges(g).ok_or(AlgoError::MissingInEdges("spmv"))?;
    let y = (0..g.num_vertices() as u32)
        .into_par_iter()
        .with_min_len(256)
        .map(|v| dot(inn.neighbours(v), inn.edge_weights(v), x))
        .collect();
    Ok(Spmv {
        y,
        edges_processed: inn.num_arcs() as u64,
    })
}
