//! PageRank on the stream engine, with the memory engine's NetworkX semantics (see
//! [`PageRank`]): per iteration, a vertex pass scales each rank by its inverse out-degree, one
//! streaming pass adds every edge's `contrib[src]` into `sum[dst]` (gathered per destination on a
//! destination-sorted layout, by column with plain adds on others, atomically when the layout
//! has too few columns: see `sum_into_destinations`), and
//! a vertex pass makes the new ranks and the L1 change. The pass is row-major — the file's own
//! order, one sequential read — rather than GridGraph's column-major: every block is read anyway,
//! and column-major reads a P×P layout in P² separate pieces. Out-degrees come from the
//! engine, which streams the graph's offset index once front to back.
//!
//! Gathered or by column (or on one thread), each destination's sum is added by ascending
//! source as the memory engine's pull does, so the ranks are equal bit for bit on graphs
//! without parallel edges; with atomic adds on several threads the order varies and they agree
//! up to rounding.

use std::sync::atomic::AtomicU64;

use diskgraph_engine::stream::{AtomicWord, StreamGraph};
use diskgraph_engine::Engine;
use diskgraph_format::Direction;
use rayon::prelude::*;

use super::ERROR_BLOCK;
use crate::parallel::det_sum;
use crate::streaming::sum_into_destinations;
use crate::AlgoError;
use crate::{PageRank, PageRankResult};

/// PageRank of `g` with the settings of `pr`.
///
/// Errors: [`AlgoError::InvalidSetting`](crate::AlgoError::InvalidSetting) for `alpha` outside
/// `[0, 1]` or a negative or NaN tolerance; engine failures.
pub fn pagerank(g: &StreamGraph, pr: &PageRank) -> Result<PageRankResult, AlgoError> {
    pr.check()?;
    let n = g.num_vertices();
    if n == 0 {
        return Ok(PageRankResult::empty());
    }
    let nf = n as f64;
    let alpha = pr.alpha;
    let inv_deg = g.vertex_array::<AtomicU64>(|_| 0)?;
    let mut dangling: Vec<u32> = Vec::new();
    g.for_each_degree(Direction::Out, |v, d| match d {
        0 => dangling.push(v),
        d => inv_deg[v as usize].set((1.0 / d as f64).to_bits()),
    })?;
    let x = g.vertex_array::<AtomicU64>(|_| (1.0 / nf).to_bits())?;
    let contrib = g.vertex_array::<AtomicU64>(|_| 0)?;
    let sum = g.vertex_array::<AtomicU64>(|_| 0)?;
    let f = |a: &AtomicU64| f64::from_bits(a.get());
    let limit = pr.fixed_iterations.unwrap_or(pr.max_iterations);
    let (mut iterations, mut converged, mut edges) = (0, pr.fixed_iterations.is_some(), 0);
    while iterations < limit {
        g.vmap(|v| {
            let v = v as usize;
            contrib[v].set((f(&x[v]) * f(&inv_deg[v])).to_bits());
            sum[v].set(0);
        });
        let dangling_sum = det_sum(dangling.len(), |i| f(&x[dangling[i] as usize]));
        let base = alpha * dangling_sum / nf + (1.0 - alpha) / nf;
        edges += sum_into_destinations(g, false, &sum, |e, _| f(&contrib[e.src as usize]))?.edges_processed;
        let errs: Vec<f64> = (0..n.div_ceil(ERROR_BLOCK))
            .into_par_iter()
            .map(|c| {
                let mut err = 0.0;
                for v in c * ERROR_BLOCK..((c + 1) * ERROR_BLOCK).min(n) {
                    let nv = alpha * f(&sum[v]) + base;
                    err += (nv - f(&x[v])).abs();
                    x[v].set(nv.to_bits());
                }
                err
            })
            .collect();
        iterations += 1;
        if pr.fixed_iterations.is_none() && errs.iter().sum::<f64>() < nf * pr.tolerance {
            converged = true;
            break;
        }
    }
    Ok(PageRankResult {
        ranks: x.values()?.into_iter().map(f64::from_bits).collect(),
        iterations,
        converged,
        edges_processed: edges,
    })
}
