//! The SSSP verifier: distances `d` from source `s` are the shortest-path distances exactly
//! when `d(s) = 0`, no arc `u → v` can lower them (`d(v) ≤ d(u) + w(u, v)`; so no arc leaves
//! the reached set), and every reached vertex but `s` is *grounded*: it has a tight in-arc
//! (`d(v) = d(u) + w(u, v)`) from a vertex nearer the source, or over a zero weight from a
//! grounded vertex at the same distance. The first two bound `d` from above by every path's
//! length; grounding follows tight arcs back to `s`, a real path of length `d(v)`, which bounds
//! it from below.
//!
//! One pass over the weighted out-lists checks the bounds and grounds every vertex with a tight
//! arc of positive weight (all of them when no weight is zero). Only vertices reached solely
//! over zero-weight tight arcs need more: further passes spread grounding along those arcs until
//! nothing changes, and a vertex left ungrounded is the violation (a zero-weight cycle whose
//! distances were all lowered alike).
//!
//! Tolerance: the engines compute `d(v)` as the `f64` sum `d(u) + w` of `f32` weights, the
//! verifier the same sum, so the comparisons hold exactly; they allow a relative `1e-12` all
//! the same, for sums taken in another order.

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

use diskgraph_format::Direction;

use crate::verification::{AtomicBits, Check, Verified, VertexBits};
use crate::AlgoError;

/// Relative tolerance of the comparisons.
const TOLERANCE: f64 = 1e-12;

/// Checks an SSSP answer.
pub(crate) fn verify(check: &Check) -> Result<Verified, AlgoError> {
    let source = check.run.source();
    let (reached, far) = check_distances(check, source, check.floats()?)?;
    Ok(Verified(format!(
        "shortest-path distances of {reached} vertices (max {far}): the source at 0, no arc shortening any (d(v) <= d(u) + w within {TOLERANCE:e} relative), every reached vertex on a tight arc back to the source ({})",
        check.passes_made()
    )))
}

/// Whether `x` and `y` are equal within [`TOLERANCE`].
#[inline]
fn close(x: f64, y: f64) -> bool {
    match x.is_finite() && y.is_finite() {
        true => (x - y).abs() <= TOLERANCE * x.abs().max(y.abs()).max(1.0),
        false => x == y,
    }
}

/// Checks that `dist` (`inf` unreached) are the shortest-path distances from `source` (see the
/// module doc); returns the vertices reached and the largest distance.
pub(crate) fn check_distances(check: &Check, source: u32, dist: &[f64]) -> Result<(u64, f64), AlgoError> {
    let n = check.num_vertices();
    if dist.len() != n {
        return Err(check.wrong(format!("{} distances for {n} vertices", dist.len())));
    }
    if dist[source as usize] != 0.0 {
        return Err(check.wrong(format!(
            "the source {} is at distance {}, not 0",
            check.label(source),
            dist[source as usize]
        )));
    }
    if let Some(v) = (0..n).find(|&v| dist[v].is_nan() || dist[v] < 0.0) {
        return Err(check.wrong(format!(
            "vertex {} is at distance {}, not a non-negative number or inf",
            check.label(v as u32),
            dist[v]
        )));
    }
    let grounded = AtomicBits::new(n);
    grounded.insert(source);
    // Whether a vertex has a tight in-arc of zero weight (or one too small to change the sum),
    // which only the passes after the first can follow.
    let zero_tight = AtomicBool::new(false);
    check.par_lists(Direction::Out, true, |u, list, weights| {
        let du = dist[u as usize];
        if du.is_infinite() {
            return Ok(());
        }
        for (i, &v) in list.iter().enumerate() {
            let w = weights.map_or(1.0, |w| f64::from(w[i]));
            let (dv, through) = (dist[v as usize], du + w);
            if dv > through && !close(dv, through) {
                return Err(check.wrong(format!(
                    "vertex {} is at distance {dv}, yet the arc {} -> {} of weight {w} from distance {du} reaches it at {through}",
                    check.label(v),
                    check.label(u),
                    check.label(v)
                )));
            }
            if close(dv, through) {
                // A weight too small to change the sum grounds only as a zero weight does.
                match through > du {
                    true => grounded.insert(v),
                    false => zero_tight.store(true, Relaxed),
                }
            }
        }
        Ok(())
    })?;
    let mut grounded = grounded.into_bits();
    let ungrounded =
        |grounded: &VertexBits| (0..n as u32).find(|&v| dist[v as usize].is_finite() && !grounded.contains(v));
    if zero_tight.into_inner() {
        // Spread grounding along zero-weight tight arcs until it stops growing.
        while ungrounded(&grounded).is_some() {
            let mut grew = false;
            check.lists(Direction::Out, true, |u, list, weights| {
                if !grounded.contains(u) {
                    return Ok(());
                }
                for (i, &v) in list.iter().enumerate() {
                    let (du, w) = (dist[u as usize], weights.map_or(1.0, |w| f64::from(w[i])));
                    if du + w == du && !grounded.contains(v) && close(dist[v as usize], du) {
                        grounded.insert(v);
                        grew = true;
                    }
                }
                Ok(())
            })?;
            if !grew {
                break;
            }
        }
    }
    if let Some(v) = ungrounded(&grounded) {
        return Err(check.wrong(format!(
            "vertex {} is at distance {}, yet no path of that length leads to it: no in-arc is tight (d(u) + w = d(v)) from a vertex nearer the source",
            check.label(v),
            dist[v as usize]
        )));
    }
    let finite = || dist.iter().filter(|d| d.is_finite());
    Ok((finite().count() as u64, finite().fold(0.0, |m: f64, &d| m.max(d))))
}
