//! The PageRank verifier: the ranks are a probability vector (non-negative, summing to 1 within
//! [`SUM_TOLERANCE`]), and one more power-iteration sweep from them, pulled along the in-lists in
//! one pass (with the out-degrees from the offsets), moves them by little: the L1 change `r`
//! bounds their distance to PageRank's fixed point by `r / (1 − α)` (the sweep contracts by `α`).
//!
//! How little depends on what the run promised. Run to a tolerance `t`, NetworkX's rule stopped
//! it when a sweep changed less than `N · t`. After a power-iteration sweep the next moves at
//! most `α` times that; after a Gauss–Seidel sweep (the shard engine's), whose vertices read this
//! sweep's ranks before them and the last sweep's dangling mass, one power-iteration sweep moves
//! at most `α` times the change through the ranks not yet read plus `α` times the change of the
//! dangling mass: `2α` times it. So `r < 2α · N · t` is required of either. Run for a fixed `k`
//! iterations (or stopped unconverged after `k`),
//! it promised only `k` contractions from the uniform start, whose first sweep changes at most
//! 2: `r ≤ 2 αᵏ` is required, a weaker check (a slightly wrong rank passes it when `k` is
//! small).

use diskgraph_format::Direction;

use rayon::prelude::*;

use crate::parallel::compensated_sum;
use crate::verification::{Check, Verified};
use crate::AlgoError;

/// How far the ranks' sum may be from 1.
const SUM_TOLERANCE: f64 = 1e-9;

/// Vertices whose moves one task sums.
const MOVE_BLOCK: usize = 4096;

/// Checks a PageRank answer.
pub(crate) fn verify(check: &Check) -> Result<Verified, AlgoError> {
    let settings = super::settings(check.run);
    let alpha = settings.alpha;
    let x = check.floats()?;
    let n = check.num_vertices();
    if x.len() != n {
        return Err(check.wrong(format!("{} ranks for {n} vertices", x.len())));
    }
    if n == 0 {
        return Ok(Verified("no vertex, no rank".into()));
    }
    if let Some(v) = (0..n).find(|&v| !(x[v] >= 0.0 && x[v].is_finite())) {
        return Err(check.wrong(format!(
            "vertex {} has rank {}, not a finite non-negative number",
            check.label(v as u32),
            x[v]
        )));
    }
    // Compensated: a plain sum of Kronecker 28's 268 M ranks drifts by 2e-9 on its own.
    let sum = compensated_sum(n, |v| x[v]);
    if (sum - 1.0).abs() > SUM_TOLERANCE {
        return Err(check.wrong(format!("the ranks sum to {sum}, not 1 (within {SUM_TOLERANCE:e})")));
    }
    // One sweep, pulled: y[v] = Σ_{u→v} x[u] / d(u) over the in-lists, the dangling vertices'
    // mass spread evenly; what it moves each rank by, per vertex.
    let degree = check.degrees(Direction::Out)?;
    let share: Vec<f64> = (0..n)
        .into_par_iter()
        .map(|u| match degree[u] {
            0 => 0.0,
            d => x[u] / f64::from(d),
        })
        .collect();
    let dangling = compensated_sum(n, |u| if degree[u] == 0 { x[u] } else { 0.0 });
    drop(degree);
    let nf = n as f64;
    let base = alpha * dangling / nf + (1.0 - alpha) / nf;
    // The change summed, and the vertex that moves most, per block of vertices in parallel and
    // then over the blocks in order: no per-vertex array beside the ranks and shares.
    let (mut change, mut most, mut at) = (0.0f64, 0.0f64, 0u32);
    check.batches(Direction::In, false, |batch| {
        let blocks: Vec<(f64, f64, u32)> = (0..batch.len().div_ceil(MOVE_BLOCK))
            .into_par_iter()
            .map(|b| {
                let (mut sum, mut most, mut at) = (0.0f64, 0.0f64, 0u32);
                for i in b * MOVE_BLOCK..((b + 1) * MOVE_BLOCK).min(batch.len()) {
                    let v = batch.vertices().start + i as u32;
                    let pulled: f64 = batch.list(i).iter().map(|&u| share[u as usize]).sum();
                    let by = (alpha * pulled + base - x[v as usize]).abs();
                    sum += by;
                    if by > most {
                        (most, at) = (by, v);
                    }
                }
                (sum, most, at)
            })
            .collect();
        for (sum, m, v) in blocks {
            change += sum;
            if m > most {
                (most, at) = (m, v);
            }
        }
        Ok(())
    })?;
    let (bound, promise) = match (settings.fixed_iterations, check.converged) {
        (Some(k), _) => (
            2.0 * alpha.powi(k as i32),
            format!("2 alpha^{k} ({k} iterations from the uniform start)"),
        ),
        (None, Some(false)) => {
            let k = check.iterations;
            (
                2.0 * alpha.powi(k as i32),
                format!("2 alpha^{k} (stopped unconverged after {k} iterations)"),
            )
        }
        (None, _) => (
            2.0 * alpha * nf * settings.tolerance,
            format!("2 alpha N x tolerance {:e}", settings.tolerance),
        ),
    };
    // The sweep's own rounding: each rank a sum of up to N terms.
    let slack = 1e-15 * nf;
    if change >= bound + slack {
        return Err(check.wrong(format!(
            "one more power-iteration sweep moves the ranks by {change:.3e} in L1, not under {bound:.3e} = {promise}; vertex {} moves most, from {:e} by {most:.3e}",
            check.label(at),
            x[at as usize]
        )));
    }
    Ok(Verified(format!(
        "ranks summing to 1 within {:.1e}; one more sweep moves them by {change:.3e} in L1 (at most {most:.3e} at a vertex), under {bound:.3e} = {promise}: within {:.3e} of PageRank's fixed point ({})",
        (sum - 1.0).abs(),
        change / (1.0 - alpha),
        check.passes_made()
    )))
}
