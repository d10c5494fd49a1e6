//! PageRank on the shard engine, GraphChi style: Gauss–Seidel sweeps of a vertex program, with
//! the ranks in memory as GraphChi's functional PageRank keeps them when they fit (O(V) state,
//! as on every engine), so a sweep reads only the memory shards' sources and targets — no
//! windows, no edge values, nothing written.
//!
//! Each sweep goes in ID order: a vertex sums its in-neighbours' contributions `x[u] / d(u)` —
//! this sweep's for neighbours before it, the last sweep's for the others (the engine's
//! visibility rule, which orders conflicting updates) — takes NetworkX's update
//!
//! ```text
//! x[v] = α · Σ_{u→v} x[u] / d(u)  +  α · D / N  +  (1 − α) / N
//! ```
//!
//! with `D` the dangling mass at the end of the previous sweep, and publishes `x[v] / d(v)`.
//! Ranks start at `1/N`. The fixed point is NetworkX's; Gauss–Seidel reaches it in fewer sweeps
//! than the power iteration. `--iterations k` runs `k` sweeps, which differ from `k` power
//! iterations; to a tolerance, the sweeps stop when the L1 change of a sweep is below
//! `N · tolerance`. A sweep does not keep the ranks' sum at 1 (each vertex reads ranks of two
//! sweeps, and the dangling mass of the last), so the ranks are divided by their sum at the end,
//! where GraphChi leaves them as they are: a PageRank vector sums to 1.

use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use diskgraph_engine::shards::{Program, ProgramNeeds, ShardGraph, Update};
use diskgraph_engine::Engine;
use diskgraph_format::Direction;

use crate::AlgoError;
use crate::{PageRank, PageRankResult};

/// A vertex's rank and what its last update changed.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Rank {
    x: f64,
    change: f64,
}

/// The Gauss–Seidel program.
struct Sweeps {
    alpha: f64,
    n: f64,
    /// Each vertex's out-degree.
    degree: Vec<u32>,
    /// Each vertex's `x / d` (`f64` bits; 0 for a dangling vertex): what its out-edges carry.
    contribution: Vec<AtomicU64>,
    /// `α·D/N + (1 − α)/N` for the current sweep.
    base: f64,
    /// L1 change of the current sweep so far.
    change: f64,
    /// Stop when a sweep changes less than this (`None`: fixed sweeps).
    threshold: Option<f64>,
    converged: bool,
}

impl Sweeps {
    fn publish(&self, v: u32, x: f64) {
        let d = self.degree[v as usize];
        if d > 0 {
            self.contribution[v as usize].store((x / f64::from(d)).to_bits(), Relaxed);
        }
    }
}

impl Program for Sweeps {
    type Value = Rank;

    fn needs(&self) -> ProgramNeeds {
        ProgramNeeds::IN_SOURCES
    }

    fn before_iteration(&mut self, _iteration: u32, values: &mut [Rank]) {
        let dangling: f64 = values
            .iter()
            .zip(&self.degree)
            .filter(|(_, &d)| d == 0)
            .map(|(r, _)| r.x)
            .sum();
        self.base = self.alpha * dangling / self.n + (1.0 - self.alpha) / self.n;
        self.change = 0.0;
    }

    fn update(&self, u: Update<'_, Rank>) {
        let sum: f64 = (0..u.in_edges.len())
            .map(|i| f64::from_bits(self.contribution[u.in_edges.source(i) as usize].load(Relaxed)))
            .sum();
        let x = self.alpha * sum + self.base;
        u.value.change = (x - u.value.x).abs();
        u.value.x = x;
        self.publish(u.vertex, x);
    }

    fn after_interval(&mut self, _iteration: u32, _interval: Range<u32>, values: &mut [Rank]) {
        self.change += values.iter().map(|r| r.change).sum::<f64>();
    }

    fn after_iteration(&mut self, _iteration: u32, _values: &mut [Rank]) -> bool {
        match self.threshold {
            Some(t) if self.change < t => {
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
    let mut degree = vec![0u32; n];
    g.for_each_degree(Direction::Out, |v, d| degree[v as usize] = d as u32)?;
    let start = 1.0 / n as f64;
    let mut program = Sweeps {
        alpha: pr.alpha,
        n: n as f64,
        contribution: (0..n).map(|_| AtomicU64::new(0)).collect(),
        degree,
        base: 0.0,
        change: 0.0,
        threshold: pr.fixed_iterations.is_none().then_some(n as f64 * pr.tolerance),
        converged: pr.fixed_iterations.is_some(),
    };
    (0..n as u32).for_each(|v| program.publish(v, start));
    let mut ranks = vec![Rank { x: start, change: 0.0 }; n];
    let sweeps = pr.fixed_iterations.unwrap_or(pr.max_iterations);
    let ran = g.run(&mut program, &mut ranks, u32::try_from(sweeps).unwrap_or(u32::MAX))?;
    let sum: f64 = ranks.iter().map(|r| r.x).sum();
    Ok(PageRankResult {
        ranks: ranks.into_iter().map(|r| r.x / sum).collect(),
        iterations: ran as usize,
        converged: program.converged,
        edges_processed: g.edges_counted().unwrap_or(0),
    })
}
