//! PageRank on the selective engine, with NetworkX's semantics (see [`PageRank`]).
//!
//! **Fixed iterations** (`fixed_iterations(Some(k))`): exactly the memory engine's power
//! iteration — every vertex active, each iteration one pull round over all in-lists summing
//! `x[u] / d(u)` per list in CSR order; dangling mass, base term and error are computed the same
//! way. A list read in one piece gives the memory engine's sum bit for bit; a list split across
//! reads is summed per piece and the pieces added atomically, which can differ in the last bits.
//!
//! **To a tolerance**: delta-PageRank (Maiter's accumulative form, as Graphene runs it). The
//! power iteration is affine, `x' = L x + c`, so its steps `δ_t = x_{t+1} − x_t` obey
//! `δ_{t+1} = L δ_t` with `L x = α Aᵀ D⁻¹ x + α (Σ_{dangling} x) / N`. After one full iteration
//! (`δ_0 = F(x_0) − x_0`) the engine keeps a residual `r` (the step not yet applied) and in each
//! round:
//!
//! - the vertices with `|r[v]| > ε` are active: `x[v] += r[v]`, and they send `α r[v] / d(v)`
//!   along their out-edges (a dangling vertex spreads `α r[v] / N` over all vertices);
//! - inactive vertices keep their residual for a later round;
//! - the round's sends become the new residual; when `Σ |r| < N · tolerance` (NetworkX's rule
//!   applied to the step the residual represents) the residual is applied and the run stops.
//!
//! A residual applied at the stop has not sent its share on, so the ranks then sum to
//! `1 − α/(1 − α) · Σ r` rather than 1; they are divided by their sum at the end. The power
//! iteration keeps the sum, and fixed iterations are left as they are.
//!
//! With `ε = 0` this is the power iteration itself, stopping at the same iteration as NetworkX.
//! With `ε = tolerance · EPSILON_FRACTION` vertices whose residual is negligible stop costing
//! I/O; pending residuals are bounded by `N ε < N · tolerance`, so the stop is always reached,
//! and the result stays within the power iteration's error bound of the fixed point (about
//! `N · tolerance · α / (1 − α)` in L1). A round pushes along the active vertices' out-lists, or
//! pulls over all in-lists when the active vertices' out-lists are more than half of all edges
//! (the same bytes-read rule as `edge_map`).
//!
//! Choosing ε. NetworkX's rule stops while the average residual is still about `tolerance`
//! (absolute), so deferring residuals near that size changes the trajectory by as much as the
//! method's own error: at `EPSILON_FRACTION = 0.5` the result on a Kronecker scale-20 graph at
//! tolerance 1e-12 was *closer* to the fixed point than the power iteration's, but up to 1 %
//! away from it on single low-rank vertices (where the power iteration itself is 1 % off). And
//! deferral saves little under this rule: on that graph the dangling mass spread over all
//! vertices keeps every vertex active (every round pulls everything), and on wiki-Vote and
//! rome99 fewer than 1 % of the edge reads were skipped. So ε is small, `tolerance / 100`: the
//! result follows the memory engine's (measured: within 1e-11 relative on wiki-Vote and rome99
//! at 1e-12, 1e-8 on Kronecker-20), and rounds still skip vertices whose residual has died out
//! (converged regions, vertices without in-edges once the dangling mass is negligible).

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use diskgraph_engine::selective::{SelectiveGraph, VertexSubset};
use diskgraph_engine::Engine;
use diskgraph_format::Direction;
use rayon::prelude::*;

use super::ERROR_BLOCK;
use crate::parallel::{accumulate, add_f64, atomics, det_sum, DET_SUM_BLOCK};
use crate::AlgoError;
use crate::{PageRank, PageRankResult};

/// Residuals below `tolerance × EPSILON_FRACTION` wait (see the module doc).
pub const EPSILON_FRACTION: f64 = 0.01;

/// Runs `pr` on the selective engine (see the module doc). The graph must be opened with
/// in-edges if it is directed.
///
/// Memory, per vertex: fixed iterations hold the ranks (in the accumulator they are summed
/// into) and the contributions, 16 bytes; to a tolerance the ranks, contributions,
/// accumulator and the next ranks (then the residual), 32 bytes. Both add a bitmap of the
/// dangling vertices; inverse degrees come from the engine's index as they are needed.
pub fn pagerank(g: &SelectiveGraph, pr: &PageRank) -> Result<PageRankResult, AlgoError> {
    pr.check()?;
    if !g.has(Direction::In) {
        return Err(AlgoError::MissingInEdges("pagerank"));
    }
    let n = g.num_vertices();
    if n == 0 {
        return Ok(PageRankResult::empty());
    }
    let edges_before = g.edges_delivered();
    let graph = Graph {
        g,
        dangling: Dangling::of(g),
        pull_all: VertexSubset::from_fn(n, |v| g.degree(Direction::In, v) > 0),
        alpha: pr.alpha,
    };
    let mut contrib = vec![0.0; n];
    if let Some(k) = pr.fixed_iterations {
        let acc = atomics(n, (1.0 / n as f64).to_bits());
        for _ in 0..k {
            graph.step_in_place(&acc, &mut contrib)?;
        }
        drop(contrib);
        return Ok(PageRankResult {
            // In place: an atomic and an f64 have the same size and alignment.
            ranks: acc.into_iter().map(|a| f64::from_bits(a.into_inner())).collect(),
            iterations: k,
            converged: true,
            edges_processed: g.edges_delivered() - edges_before,
        });
    }
    let nf = n as f64;
    let mut x = vec![1.0 / nf; n];
    if pr.max_iterations == 0 {
        return Ok(PageRankResult {
            ranks: x,
            iterations: 0,
            converged: false,
            edges_processed: 0,
        });
    }
    let acc = atomics(n, 0);
    // δ_0 by one full iteration; then rounds over the residual.
    let mut next = vec![0.0; n];
    let err = graph.step(&x, &mut contrib, &acc, &mut next)?;
    let mut iterations = 1;
    if err < nf * pr.tolerance {
        return Ok(PageRankResult {
            ranks: next,
            iterations,
            converged: true,
            edges_processed: g.edges_delivered() - edges_before,
        });
    }
    // The next ranks become the residual, in place.
    let mut r = next;
    r.par_iter_mut().zip(&x).for_each(|(a, b)| *a -= b);
    let alpha = pr.alpha;
    let eps = pr.tolerance * EPSILON_FRACTION;
    let mut converged = false;
    while iterations < pr.max_iterations {
        iterations += 1;
        let active = VertexSubset::from_fn(n, |v| r[v as usize].abs() > eps);
        // Apply the active residuals and turn them into what they send.
        let dangling_sent = graph.dangling.sum(|v| if r[v].abs() > eps { r[v] } else { 0.0 });
        x.par_iter_mut()
            .zip(&mut r)
            .zip(contrib.par_iter_mut())
            .enumerate()
            .for_each(|(v, ((xv, rv), c))| {
                if rv.abs() > eps {
                    *xv += *rv;
                    *c = alpha * *rv * graph.inverse_degree(v);
                    *rv = 0.0;
                } else {
                    *c = 0.0;
                }
            });
        let active_edges = active.sum_by(|v| g.degree(Direction::Out, v));
        if active_edges.saturating_mul(2) > g.num_arcs() {
            pull(g, &graph.pull_all, &contrib, &acc)?;
        } else {
            g.for_each_piece(Direction::Out, &active, false, |v, p| {
                let c = contrib[v as usize];
                for &u in p.targets {
                    add_f64(&acc[u as usize], c);
                }
            })?;
        }
        let uniform = alpha * dangling_sent / nf;
        let errs: Vec<f64> = r
            .par_chunks_mut(ERROR_BLOCK)
            .enumerate()
            .map(|(c, r)| {
                let mut err = 0.0;
                for (i, rv) in r.iter_mut().enumerate() {
                    *rv += f64::from_bits(acc[c * ERROR_BLOCK + i].swap(0, Relaxed)) + uniform;
                    err += rv.abs();
                }
                err
            })
            .collect();
        if errs.iter().sum::<f64>() < nf * pr.tolerance {
            converged = true;
            break;
        }
    }
    x.par_iter_mut().zip(&r).for_each(|(xv, rv)| *xv += rv);
    let sum = det_sum(n, |v| x[v]);
    x.par_iter_mut().for_each(|xv| *xv /= sum);
    Ok(PageRankResult {
        ranks: x,
        iterations,
        converged,
        edges_processed: g.edges_delivered() - edges_before,
    })
}

/// What every power iteration needs of the graph.
struct Graph<'a> {
    g: &'a SelectiveGraph,
    dangling: Dangling,
    /// The vertices with in-edges.
    pull_all: VertexSubset,
    alpha: f64,
}

impl Graph<'_> {
    /// `1 / d(v)`, 0 for a dangling vertex (the value the memory engine stores).
    #[inline]
    fn inverse_degree(&self, v: usize) -> f64 {
        match self.g.degree(Direction::Out, v as u32) {
            0 => 0.0,
            d => 1.0 / d as f64,
        }
    }

    /// The base term of an iteration from ranks `x`: the dangling mass spread evenly and the
    /// teleport.
    fn base(&self, x: impl Fn(usize) -> f64) -> f64 {
        let nf = self.g.num_vertices() as f64;
        self.alpha * self.dangling.sum(x) / nf + (1.0 - self.alpha) / nf
    }

    /// One power iteration from `x` into `next`; returns the L1 change, summed as the memory
    /// engine does (`acc` must be zero, and is left so).
    fn step(&self, x: &[f64], contrib: &mut [f64], acc: &[AtomicU64], next: &mut [f64]) -> Result<f64, AlgoError> {
        contrib
            .par_iter_mut()
            .zip(x)
            .enumerate()
            .for_each(|(u, (c, &xu))| *c = xu * self.inverse_degree(u));
        let base = self.base(|v| x[v]);
        pull(self.g, &self.pull_all, contrib, acc)?;
        let errs: Vec<f64> = next
            .par_chunks_mut(ERROR_BLOCK)
            .zip(x.par_chunks(ERROR_BLOCK))
            .enumerate()
            .map(|(c, (next, x))| {
                let mut err = 0.0;
                for (i, (nv, &xv)) in next.iter_mut().zip(x).enumerate() {
                    let sum = f64::from_bits(acc[c * ERROR_BLOCK + i].swap(0, Relaxed));
                    *nv = self.alpha * sum + base;
                    err += (*nv - xv).abs();
                }
                err
            })
            .collect();
        Ok(errs.iter().sum())
    }

    /// One power iteration with the ranks held in `ranks` (as bits), which the next ones are
    /// summed into: the same arithmetic as [`Self::step`] without the copy of the ranks or the
    /// error, which fixed iterations do not need.
    fn step_in_place(&self, ranks: &[AtomicU64], contrib: &mut [f64]) -> Result<(), AlgoError> {
        let rank = |v: usize| f64::from_bits(ranks[v].load(Relaxed));
        let base = self.base(rank);
        contrib
            .par_iter_mut()
            .enumerate()
            .for_each(|(u, c)| *c = rank(u) * self.inverse_degree(u));
        ranks.par_iter().for_each(|r| r.store(0, Relaxed));
        pull(self.g, &self.pull_all, contrib, ranks)?;
        ranks
            .par_iter()
            .for_each(|r| r.store((self.alpha * f64::from_bits(r.load(Relaxed)) + base).to_bits(), Relaxed));
        Ok(())
    }
}

/// The vertices without out-edges, one bit each.
struct Dangling {
    bits: Vec<u64>,
}

impl Dangling {
    /// The dangling vertices of `g`.
    fn of(g: &SelectiveGraph) -> Self {
        let n = g.num_vertices();
        let bits = (0..n.div_ceil(64))
            .into_par_iter()
            .map(|w| {
                (0..64)
                    .filter(|&i| {
                        let v = w * 64 + i;
                        v < n && g.degree(Direction::Out, v as u32) == 0
                    })
                    .fold(0u64, |word, i| word | 1 << i)
            })
            .collect();
        Dangling { bits }
    }

    /// `Σ f(v)` over the dangling vertices in ascending order, in blocks of [`det_sum`]'s size:
    /// the same sum, bit for bit, as [`det_sum`] over a list of them.
    fn sum(&self, f: impl Fn(usize) -> f64) -> f64 {
        // The start of every sum of f64 (`-0.0` in today's std), so that zero terms sum alike.
        let zero: f64 = std::iter::empty::<f64>().sum();
        let mut blocks = Vec::new();
        let (mut block, mut in_block) = (zero, 0);
        for (w, &word) in self.bits.iter().enumerate() {
            let mut rest = word;
            while rest != 0 {
                block += f(w * 64 + rest.trailing_zeros() as usize);
                rest &= rest - 1;
                in_block += 1;
                if in_block == DET_SUM_BLOCK {
                    blocks.push(std::mem::replace(&mut block, zero));
                    in_block = 0;
                }
            }
        }
        if in_block > 0 {
            blocks.push(block);
        }
        blocks.into_iter().sum()
    }
}

/// `acc[v] = Σ_{u ∈ in(v)} contrib[u]` for every vertex with in-edges, summed per list in CSR
/// order (`acc` must be zero).
fn pull(g: &SelectiveGraph, all: &VertexSubset, contrib: &[f64], acc: &[AtomicU64]) -> Result<(), AlgoError> {
    g.for_each_piece(Direction::In, all, false, |v, p| {
        let sum: f64 = p.targets.iter().map(|&u| contrib[u as usize]).sum();
        accumulate(&acc[v as usize], p.is_whole(), sum);
    })?;
    Ok(())
}
