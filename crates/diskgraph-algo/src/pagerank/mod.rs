//! PageRank by pull-based power iteration, with NetworkX's semantics.
//!
//! This computes what `networkx.pagerank(G, alpha, tol=tolerance, max_iter, weight=None)` does
//! (uniform personalization and dangling distribution). With `N` vertices, out-degree `d(u)`
//! counting every stored arc (duplicates with their multiplicity, self-loops included) and
//! `D` the set of vertices without out-edges:
//!
//! ```text
//! x₀[v]   = 1/N
//! x′[v]   = α · Σ_{u→v} x[u] · (1/d(u))  +  α · (Σ_{u∈D} x[u]) / N  +  (1 − α) / N
//! stop when Σ_v |x′[v] − x[v]| < N · tolerance  (converged), or after max_iterations (not)
//! ```
//!
//! Each iteration first scales every rank by its vertex's inverse out-degree (`contrib`), then
//! every vertex sums `contrib` over its in-edges, in parallel, with no atomics (the "pull"
//! direction, as in GAPBS's `pr.cc`); the undirected graph's shared CSR serves as its own
//! in-edges, a directed graph needs its in-CSR. The dangling mass and the error are summed in
//! fixed blocks, so results do not depend on the number of threads. Running out of iterations
//! ends the run with the ranks as they are and `converged: false` in its stats; the CLI and
//! Python then fail (as NetworkX raises `PowerIterationFailedConvergence`) unless
//! `allow_unconverged` is given (see [`crate::registry::unconverged`]).

use diskgraph_engine::options::{Default, Engines, OptionKind, OptionSpec, Params};
use diskgraph_engine::{Engine, EngineKind, MemoryGraph};
use rayon::prelude::*;
use serde_json::json;

use crate::descriptor::{Algorithm, Needs, On, Outcome, PerVertex, ResultKind, Run, ValueType, Values, Variant};
use crate::options::ALLOW_UNCONVERGED;
use diskgraph_engine::selective::SelectiveGraph;
use diskgraph_engine::shards::ShardGraph;
use diskgraph_engine::stream::StreamGraph;
use diskgraph_engine::sync::SyncGraph;

use crate::parallel::det_sum;
use crate::stop::Poll;
use crate::AlgoError;

/// Vertices per block of an iteration's error sum, on every engine: each block summed in vertex
/// order, then the blocks in order, so the sum does not depend on the thread count and the
/// engines' convergence tests agree bit for bit.
pub(crate) const ERROR_BLOCK: usize = 2048;

pub mod selective;
pub mod shards;
pub mod stream;
pub mod sync;
pub(crate) mod verify;

/// The damping factor every run uses (NetworkX's default).
pub const ALPHA: f64 = 0.85;

/// `--tolerance`.
pub const TOLERANCE: OptionSpec = OptionSpec {
    name: "tolerance",
    kind: OptionKind::Float {
        above: 0.0,
        below: f64::INFINITY,
    },
    default: Default::Float(1e-9),
    help: "stop when the L1 change is below N × tolerance (NetworkX's rule)",
    engines: Engines::All,
    examples: &["1e-6"],
};

/// `--iterations`.
pub const ITERATIONS: OptionSpec = OptionSpec {
    name: "iterations",
    kind: OptionKind::Count {
        min: 0,
        max: u32::MAX as u64,
    },
    default: Default::Absent,
    help: "run exactly this many iterations instead (on the shard engine, Gauss–Seidel sweeps as GraphChi runs them)",
    engines: Engines::All,
    examples: &["7"],
};

/// `--max-iterations`.
pub const MAX_ITERATIONS: OptionSpec = OptionSpec {
    name: "max_iterations",
    kind: OptionKind::POSITIVE,
    default: Default::Count(10_000),
    help: "the iteration limit: a run that has not converged by then fails (see allow_unconverged)",
    engines: Engines::All,
    examples: &["5"],
};

/// PageRank.
pub const PAGERANK: Algorithm = Algorithm {
    name: "pagerank",
    help: "PageRank with NetworkX semantics (alpha 0.85, to --tolerance or --iterations)",
    options: &[&TOLERANCE, &ITERATIONS, &MAX_ITERATIONS, &ALLOW_UNCONVERGED],
    cluster: Some(crate::cluster::ClusterScheme::SpmvPerIteration),
    result: ResultKind {
        values: ValueType::Float,
        name: "rank",
        help: "the rank of each vertex (they sum to 1): alpha 0.85, weights ignored, dangling mass spread uniformly",
    },
    variants: &[
        Variant {
            needs: Needs::IN_EDGES,
            run: &On::<MemoryGraph>(|g, run| Ok(present(settings(run).run(g)?, run))),
        },
        Variant {
            needs: Needs::IN_EDGES,
            run: &On::<SelectiveGraph>(|g, run| Ok(present(selective::pagerank(g, &settings(run))?, run))),
        },
        Variant {
            needs: Needs::NONE,
            run: &On::<StreamGraph>(|g, run| Ok(present(stream::pagerank(g, &settings(run))?, run))),
        },
        Variant {
            needs: Needs::NONE,
            run: &On::<SyncGraph>(|g, run| Ok(present(sync::pagerank(g, &settings(run))?, run))),
        },
        Variant {
            needs: Needs::NONE,
            run: &On::<ShardGraph>(|g, run| Ok(present(shards::pagerank(g, &settings(run))?, run))),
        },
    ],
    verify: verify::verify,
    memory: |p, engine, _| PerVertex {
        run: match engine {
            // Ranks and contributions (f64 each) with fixed iterations, the accumulator and
            // the next ranks besides to a tolerance; a bitmap of the dangling vertices.
            EngineKind::Selective if p.count(&ITERATIONS).is_some() => 16.125,
            EngineKind::Selective => 32.125,
            // Inverse degrees, ranks, contributions, next ranks and the per-iteration errors
            // (f64 each) and the dangling vertices (u32).
            _ => 44.0,
        },
        // The result, and the verifier's shares (f64) made from the out-degrees (u32, dropped
        // before its pass).
        verify: 20.0,
    },
};

/// The settings a run's options give.
fn settings(run: &Run) -> PageRank {
    let p = run.params;
    PageRank::new()
        .tolerance(p.value::<f64>(&TOLERANCE))
        .max_iterations(p.value::<u64>(&MAX_ITERATIONS) as usize)
        .fixed_iterations(p.count(&ITERATIONS).map(|k| k as usize))
}

/// The ranks, the iterations and the five highest.
fn present(r: PageRankResult, run: &Run) -> Outcome {
    let fixed = run.params.count(&ITERATIONS);
    let top: Vec<String> = highest_ranks(&r.ranks, 5)
        .into_iter()
        .map(|v| format!("{} {:.6e}", run.label(v as u32), r.ranks[v]))
        .collect();
    let conv = if fixed.is_some() || r.converged {
        ""
    } else {
        " (NOT converged)"
    };
    let summary = format!("{} iterations{conv}; top: {}", r.iterations, top.join(", "));
    let outcome = Outcome::new(Values::Float(r.ranks), summary)
        .iterations(r.iterations as u64)
        .edges(r.edges_processed);
    match fixed {
        Some(k) => outcome.setting("iterations", json!(k)),
        None => outcome
            .converged(r.converged)
            .setting("tolerance", json!(run.params.float(&TOLERANCE))),
    }
}

/// The `k` vertices of highest rank, highest first (ties by lower index), in one pass: a run's
/// summary must not sort every vertex (on 16 M vertices that took longer than a PageRank sweep).
fn highest_ranks(ranks: &[f64], k: usize) -> Vec<usize> {
    let before = |a: usize, b: usize| ranks[a].total_cmp(&ranks[b]).reverse().then(a.cmp(&b)).is_lt();
    let mut top: Vec<usize> = Vec::with_capacity(k + 1);
    for v in 0..ranks.len() {
        if top.len() == k && !top.last().is_some_and(|&last| before(v, last)) {
            continue;
        }
        let at = top.partition_point(|&u| before(u, v));
        top.insert(at, v);
        top.truncate(k);
    }
    top
}

/// PageRank settings; build with [`PageRank::new`] and the setters, then [`run`](PageRank::run).
#[derive(Clone, Debug, PartialEq)]
pub struct PageRank {
    pub(crate) alpha: f64,
    pub(crate) tolerance: f64,
    pub(crate) max_iterations: usize,
    pub(crate) fixed_iterations: Option<usize>,
}

/// The result of [`PageRank::run`].
#[derive(Clone, Debug, PartialEq)]
pub struct PageRankResult {
    /// Rank of every vertex (they sum to 1 up to rounding).
    pub ranks: Vec<f64>,
    /// Iterations run.
    pub iterations: usize,
    /// Whether the tolerance was met (always `true` with fixed iterations).
    pub converged: bool,
    /// Edges pulled over: arcs × iterations.
    pub edges_processed: u64,
}

impl PageRankResult {
    /// The result on a graph without vertices.
    pub(crate) fn empty() -> Self {
        PageRankResult {
            ranks: Vec::new(),
            iterations: 0,
            converged: true,
            edges_processed: 0,
        }
    }
}

impl std::default::Default for PageRank {
    fn default() -> Self {
        Self::new()
    }
}

impl PageRank {
    /// Checks alpha and the tolerance.
    pub(crate) fn check(&self) -> Result<(), AlgoError> {
        if !(0.0..=1.0).contains(&self.alpha) {
            return Err(AlgoError::InvalidSetting(format!(
                "alpha must be in [0, 1], got {}",
                self.alpha
            )));
        }
        if self.tolerance < 0.0 || self.tolerance.is_nan() {
            return Err(AlgoError::InvalidSetting(format!(
                "tolerance must be non-negative, got {}",
                self.tolerance
            )));
        }
        Ok(())
    }

    /// The run's defaults: `alpha` [`ALPHA`], the tolerance and the most iterations as
    /// [`TOLERANCE`] and [`MAX_ITERATIONS`] declare them.
    pub fn new() -> Self {
        let declared = Params::new();
        PageRank {
            alpha: ALPHA,
            tolerance: declared.value(&TOLERANCE),
            max_iterations: declared.value::<u64>(&MAX_ITERATIONS) as usize,
            fixed_iterations: None,
        }
    }

    /// Damping factor, in `[0, 1]`.
    pub fn alpha(mut self, alpha: f64) -> Self {
        self.alpha = alpha;
        self
    }

    /// Convergence threshold per vertex: stop when the L1 change is below `N · tolerance`.
    pub fn tolerance(mut self, tolerance: f64) -> Self {
        self.tolerance = tolerance;
        self
    }

    /// Most iterations to run when not converging.
    pub fn max_iterations(mut self, max_iterations: usize) -> Self {
        self.max_iterations = max_iterations;
        self
    }

    /// `Some(k)`: run exactly `k` iterations, ignoring the tolerance and `max_iterations`.
    pub fn fixed_iterations(mut self, fixed: Option<usize>) -> Self {
        self.fixed_iterations = fixed;
        self
    }

    /// Runs the power iteration on `g`.
    ///
    /// Errors: [`AlgoError::MissingInEdges`] for a directed graph loaded without in-edges;
    /// [`AlgoError::InvalidSetting`] for `alpha` outside `[0, 1]` or a negative or NaN tolerance.
    pub fn run(&self, g: &MemoryGraph) -> Result<PageRankResult, AlgoError> {
        self.check()?;
        let inn = g.in_edges().ok_or(AlgoError::MissingInEdges("pagerank"))?;
        let out = g.out();
        let n = g.num_vertices();
        if n == 0 {
            return Ok(PageRankResult::empty());
        }
        let nf = n as f64;
        let alpha = self.alpha;
        let inv_deg: Vec<f64> = (0..n as u32)
            .into_par_iter()
            .map(|u| match out.degree(u) {
                0 => 0.0,
                d => 1.0 / d as f64,
            })
            .collect();
        let dangling: Vec<u32> = (0..n as u32).into_par_iter().filter(|&u| out.degree(u) == 0).collect();
        let mut x = vec![1.0 / nf; n];
        let mut next = vec![0.0; n];
        let mut contrib = vec![0.0; n];
        let limit = self.fixed_iterations.unwrap_or(self.max_iterations);
        let (mut iterations, mut converged) = (0, self.fixed_iterations.is_some());
        let chunk = ERROR_BLOCK;
        let cancel = g.cancel();
        while iterations < limit {
            cancel.check()?;
            contrib
                .par_iter_mut()
                .zip(&x)
                .zip(&inv_deg)
                .for_each(|((c, &xu), &id)| *c = xu * id);
            let dangling_sum = det_sum(dangling.len(), |i| x[dangling[i] as usize]);
            let base = alpha * dangling_sum / nf + (1.0 - alpha) / nf;
            let errs: Vec<f64> = next
                .par_chunks_mut(chunk)
                .zip(x.par_chunks(chunk))
                .enumerate()
                .map(|(c, (next, x))| {
                    let mut err = 0.0;
                    let mut poll = Poll::new(&cancel);
                    for (i, (nv, &xv)) in next.iter_mut().zip(x).enumerate() {
                        let v = (c * chunk + i) as u32;
                        let nbrs = inn.neighbours(v);
                        if poll.stop(1 + nbrs.len() as u64) {
                            break;
                        }
                        let sum: f64 = nbrs.iter().map(|&u| contrib[u as usize]).sum();
                        *nv = alpha * sum + base;
                        err += (*nv - xv).abs();
                    }
                    err
                })
                .collect();
            cancel.check()?;
            std::mem::swap(&mut x, &mut next);
            iterations += 1;
            if self.fixed_iterations.is_none() && errs.iter().sum::<f64>() < nf * self.tolerance {
                converged = true;
                break;
            }
        }
        Ok(PageRankResult {
            ranks: x,
            iterations,
            converged,
            edges_processed: iterations as u64 * inn.num_arcs() as u64,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::highest_ranks;

    #[test]
    fn highest_ranks_equal_a_full_sort() {
        // Many ties (values from a small set), so the order among equal ranks is checked too.
        let ranks: Vec<f64> = (0..1000u64).map(|i| ((i * 7919) % 13) as f64 / 13.0).collect();
        let mut order: Vec<usize> = (0..ranks.len()).collect();
        order.sort_by(|&a, &b| ranks[b].total_cmp(&ranks[a]).then(a.cmp(&b)));
        for k in [0, 1, 5, 77, 1000, 2000] {
            assert_eq!(highest_ranks(&ranks, k), order[..k.min(ranks.len())], "k = {k}");
        }
    }
}
