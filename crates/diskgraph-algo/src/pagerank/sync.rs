//! PageRank on the sync engine, with the memory engine's NetworkX semantics (see [`PageRank`]):
//! the textbook push-style power iteration, single-threaded. Every iteration scales each rank by
//! its inverse out-degree, then one sequential scan over the out-lists — a new [`Sequential`]
//! iterator per iteration, which the prefetcher reads ahead of (PrefEdge, Nilakant et al.,
//! SYSTOR '14, §3.4.1) — adds `contrib[u]` into `sum[v]` for every arc `u → v`, and a vertex
//! pass makes the new ranks and the L1 change.
//!
//! Sources are scanned in ascending order, so each vertex's sum is added in ascending source
//! order, as the memory engine's pull over sorted in-lists adds it; the dangling mass and the
//! error are summed in the memory engine's blocks. The ranks are equal bit for bit.

use diskgraph_engine::sync::{Reads, Sequential, SyncGraph};
use diskgraph_engine::Engine;
use diskgraph_format::Direction;

use super::ERROR_BLOCK;
use crate::parallel::det_sum_on_one_thread;
use crate::AlgoError;
use crate::{PageRank, PageRankResult};

/// PageRank of `g` with the settings of `pr`.
///
/// Errors: [`AlgoError::InvalidSetting`] for `alpha` outside `[0, 1]` or a negative or NaN
/// tolerance; engine failures.
pub fn pagerank(g: &SyncGraph, pr: &PageRank) -> Result<PageRankResult, AlgoError> {
    pr.check()?;
    let n = g.num_vertices();
    if n == 0 {
        return Ok(PageRankResult::empty());
    }
    let nf = n as f64;
    let alpha = pr.alpha;
    let mut inv_deg = vec![0.0; n];
    let mut dangling: Vec<u32> = Vec::new();
    g.for_each_degree(Direction::Out, |v, d| match d {
        0 => dangling.push(v),
        d => inv_deg[v as usize] = 1.0 / d as f64,
    })?;
    let mut x = vec![1.0 / nf; n];
    let mut contrib = vec![0.0; n];
    let mut sum = vec![0.0; n];
    let mut lists = g.reader();
    let limit = pr.fixed_iterations.unwrap_or(pr.max_iterations);
    let (mut iterations, mut converged, mut edges) = (0, pr.fixed_iterations.is_some(), 0u64);
    while iterations < limit {
        for ((c, &xv), &id) in contrib.iter_mut().zip(&x).zip(&inv_deg) {
            *c = xv * id;
        }
        sum.fill(0.0);
        let dangling_sum = det_sum_on_one_thread(dangling.len(), |i| x[dangling[i] as usize]);
        let base = alpha * dangling_sum / nf + (1.0 - alpha) / nf;
        for u in Sequential::new(g, 0..n as u32, Reads::out(0)) {
            if inv_deg[u as usize] == 0.0 {
                continue; // dangling: no out-list to read
            }
            let out = lists.neighbours(Direction::Out, u)?;
            edges += out.len() as u64;
            let c = contrib[u as usize];
            for &v in out {
                sum[v as usize] += c;
            }
        }
        let errs: Vec<f64> = x
            .chunks_mut(ERROR_BLOCK)
            .zip(sum.chunks(ERROR_BLOCK))
            .map(|(x, sum)| {
                let mut err = 0.0;
                for (xv, &s) in x.iter_mut().zip(sum) {
                    let nv = alpha * s + base;
                    err += (nv - *xv).abs();
                    *xv = nv;
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
        ranks: x,
        iterations,
        converged,
        edges_processed: edges,
    })
}
