//! The spmv verifier: `y` recomputed by a second pass ordered differently from every kernel —
//! pushed along the out-lists, term `w(u, v) · x[u]` added to `y[v]` in the order of the tails,
//! where the kernels pull along in-lists (or stream grid blocks) — and compared. Under min-plus
//! the least of the terms does not depend on their order: equal exactly (NaN for NaN). Under
//! plus-times two orders of summing `k` terms differ by at most `2 (k − 1) ε Σ|terms|` (ε the
//! `f64` unit roundoff), the tolerance allowed per vertex.

use diskgraph_format::Direction;

use crate::verification::{Check, Verified};
use crate::AlgoError;

use super::Semiring;

/// Checks an spmv answer.
pub(crate) fn verify(check: &Check) -> Result<Verified, AlgoError> {
    let y = check.floats()?;
    let n = check.num_vertices();
    if y.len() != n {
        return Err(check.wrong(format!("{} values of y for {n} vertices", y.len())));
    }
    let x = super::x_of(check.run)?;
    let (weighted, semiring) = (super::weighted(check.run), super::semiring(check.run));
    let mut again = vec![semiring.zero(); n];
    // Per vertex: Σ |term| and the number of terms, for the plus-times tolerance.
    let mut magnitude = vec![0.0f64; n];
    let mut terms = vec![0u32; n];
    check.lists(Direction::Out, weighted, |u, list, weights| {
        for (i, &v) in list.iter().enumerate() {
            let w = weights.map_or(1.0, |w| f64::from(w[i]));
            let v = v as usize;
            match semiring {
                Semiring::PlusTimes => {
                    let term = w * x[u as usize];
                    again[v] += term;
                    magnitude[v] += term.abs();
                    terms[v] = terms[v].saturating_add(1);
                }
                Semiring::MinPlus => again[v] = semiring.combine(again[v], x[u as usize] + w),
            }
        }
        Ok(())
    })?;
    let mut worst = 0.0f64;
    for v in 0..n {
        let (got, want) = (y[v], again[v]);
        let ok = match semiring {
            Semiring::MinPlus => got == want || (got.is_nan() && want.is_nan()),
            Semiring::PlusTimes if !want.is_finite() => got == want || (got.is_nan() && want.is_nan()),
            Semiring::PlusTimes => {
                let allowed = 2.0 * f64::from(terms[v].max(1)) * f64::EPSILON * magnitude[v];
                worst = worst.max((got - want).abs() / magnitude[v].max(f64::MIN_POSITIVE));
                (got - want).abs() <= allowed
            }
        };
        if !ok {
            return Err(check.wrong(format!(
                "y at vertex {} is {got}, the sum over its in-arcs taken again is {want}",
                check.label(v as u32)
            )));
        }
    }
    let how = match semiring {
        Semiring::PlusTimes => {
            format!("equal within 2(k-1) eps sum|terms| per vertex (largest relative difference {worst:.1e})")
        }
        Semiring::MinPlus => "equal exactly".into(),
    };
    Ok(Verified(format!(
        "y recomputed by pushing along the out-lists, another order than the kernels': {how} ({})",
        check.passes_made()
    )))
}
