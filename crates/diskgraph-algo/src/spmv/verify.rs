//! The spmv verifier: `y` recomputed by a second pass ordered differently from every kernel —
//! each in-list summed from its last arc to its first, where the kernels add in CSR order (or
//! in the grid's block order) — and compared. Under min-plus the least of the terms does not
//! depend on their order: equal exactly (NaN for NaN). Under plus-times two orders of summing
//! `k` terms differ by at most `2 (k − 1) ε Σ|terms|` (ε the `f64` unit roundoff), the
//! tolerance allowed per vertex.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

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
    // The largest relative difference seen under plus-times (f64 bits).
    let worst = AtomicU64::new(0);
    check.par_lists(Direction::In, weighted, |v, list, weights| {
        let term = |i: usize| {
            let w = weights.map_or(1.0, |w| f64::from(w[i]));
            let u = list[i] as usize;
            match semiring {
                Semiring::PlusTimes => w * x[u],
                Semiring::MinPlus => x[u] + w,
            }
        };
        let (mut again, mut magnitude) = (semiring.zero(), 0.0f64);
        for i in (0..list.len()).rev() {
            let t = term(i);
            again = semiring.combine(again, t);
            magnitude += t.abs();
        }
        let got = y[v as usize];
        let ok = match semiring {
            _ if !again.is_finite() || !got.is_finite() => got == again || (got.is_nan() && again.is_nan()),
            Semiring::MinPlus => got == again,
            Semiring::PlusTimes => {
                let k = list.len().max(1) as f64;
                let difference = (got - again).abs();
                worst.fetch_max((difference / magnitude.max(f64::MIN_POSITIVE)).to_bits(), Relaxed);
                difference <= 2.0 * k * f64::EPSILON * magnitude
            }
        };
        match ok {
            true => Ok(()),
            false => Err(check.wrong(format!(
                "y at vertex {} is {got}, the sum over its in-arcs taken again is {again}",
                check.label(v)
            ))),
        }
    })?;
    let how = match semiring {
        Semiring::PlusTimes => format!(
            "equal within 2(k-1) eps sum|terms| per vertex (largest relative difference {:.1e})",
            f64::from_bits(worst.into_inner())
        ),
        Semiring::MinPlus => "equal exactly".into(),
    };
    Ok(Verified(format!(
        "y recomputed summing each in-list backwards, another order than the kernels': {how} ({})",
        check.passes_made()
    )))
}
