//! PageRank on the shard engine, GraphChi style: Gauss–Seidel sweeps of a vertex program whose
//! out-edges carry `rank / out-degree` (as `f32`).
//!
//! Iteration 0 writes every vertex's initial contribution `(1/N) / d(v)` on its out-edges.
//! Each later iteration is a sweep in ID order: a vertex sums its in-edges' contributions —
//! this sweep's for sources before it, the last sweep's for the others (the engine's visibility
//! rule) — takes NetworkX's update
//!
//! ```text
//! x[v] = α · Σ_{u→v} c(u→v)  +  α · D / N  +  (1 − α) / N
//! ```
//!
//! with `D` the dangling mass at the end of the previous sweep, and writes `x[v] / d(v)` on its
//! out-edges. The fixed point is NetworkX's; Gauss–Seidel reaches it in fewer sweeps than the
//! power iteration. `--iterations k` runs `k` sweeps (after iteration 0), which differ from `k`
//! power iterations; to a tolerance, the sweeps stop when the L1 change of a sweep is below
//! `N · tolerance`. Contributions travel as `f32`, so ranks agree with the other engines' to
//! about 1e-7 relative, besides the tolerance.

use std::ops::Range;

use diskgraph_engine::shards::{Program, ShardGraph, Update};
use diskgraph_engine::Engine;

use crate::AlgoError;
use crate::{PageRank, PageRankResult};

/// A vertex's rank and what its last update changed.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Rank {
    x: f64,
    change: f64,
    dangling: bool,
}

/// The Gauss–Seidel program.
struct Sweeps {
    alpha: f64,
    n: f64,
    /// `α·D/N + (1 − α)/N` for the current sweep.
    base: f64,
    /// L1 change of the current sweep so far.
    change: f64,
    /// Stop when a sweep changes less than this (`None`: fixed sweeps).
    threshold: Option<f64>,
    converged: bool,
}

impl Program for Sweeps {
    type Value = Rank;

    fn before_iteration(&mut self, _iteration: u32, values: &mut [Rank]) {
        let dangling: f64 = values.iter().filter(|r| r.dangling).map(|r| r.x).sum();
        self.base = self.alpha * dangling / self.n + (1.0 - self.alpha) / self.n;
        self.change = 0.0;
    }

    fn update(&self, u: Update<'_, Rank>) {
        let d = u.out_edges.len();
        let r = u.value;
        if u.iteration == 0 {
            *r = Rank {
                x: 1.0 / self.n,
                change: 0.0,
                dangling: d == 0,
            };
        } else {
            let sum: f64 = u.in_edges.values().map(|c| f64::from(f32::from_bits(c))).sum();
            let x = self.alpha * sum + self.base;
            r.change = (x - r.x).abs();
            r.x = x;
        }
        if d > 0 {
            u.out_edges.fill(((r.x / d as f64) as f32).to_bits());
        }
    }

    fn after_interval(&mut self, _iteration: u32, _interval: Range<u32>, values: &mut [Rank]) {
        self.change += values.iter().map(|r| r.change).sum::<f64>();
    }

    fn after_iteration(&mut self, iteration: u32, _values: &mut [Rank]) -> bool {
        match self.threshold {
            Some(t) if iteration > 0 && self.change < t => {
                self.converged = true;
                false
            }
            _ => true,
        }
    }
}

/// PageRank of `g` with the settings of `pr`, by Gauss–Seidel sweeps (see the module doc).
///
/// Errors: [`AlgoError::InvalidSetting`] for `alpha` outside `[0, 1]` or a negative or NaN
/// tolerance; engine failures.
pub fn pagerank(g: &ShardGraph, pr: &PageRank) -> Result<PageRankResult, AlgoError> {
    pr.check()?;
    let n = g.num_vertices();
    if n == 0 {
        return Ok(PageRankResult::empty());
    }
    let sweeps = pr.fixed_iterations.unwrap_or(pr.max_iterations);
    let mut program = Sweeps {
        alpha: pr.alpha,
        n: n as f64,
        base: 0.0,
        change: 0.0,
        threshold: pr.fixed_iterations.is_none().then_some(n as f64 * pr.tolerance),
        converged: pr.fixed_iterations.is_some(),
    };
    let mut ranks = vec![Rank::default(); n];
    let limit = u32::try_from(sweeps).unwrap_or(u32::MAX - 1) + 1;
    let ran = g.run(&mut program, &mut ranks, limit)?;
    Ok(PageRankResult {
        ranks: ranks.into_iter().map(|r| r.x).collect(),
        iterations: ran.saturating_sub(1) as usize,
        converged: program.converged,
        edges_processed: g.edges_counted().unwrap_or(0),
    })
}
