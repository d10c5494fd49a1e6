//! The k-core verifier: the peeling certificate, in one pass over the simple undirected view.
//! A vertex of core `k` has at least `k` neighbours of core `≥ k` (so it lies in a subgraph of
//! minimum degree `k`: its core is at least `k`) and at most `k` of core `≥ k + 1` (with `k + 1`
//! such neighbours it would join the `(k + 1)`-core). The core numbers are the largest function
//! with this property: a single wrong number always breaks it (raised, the vertex lacks the
//! neighbours; lowered, it has too many), but an entire dense subgraph lowered alike would not.

use crate::verification::{Check, Verified};
use crate::AlgoError;

/// Checks a k-core answer.
pub(crate) fn verify(check: &Check) -> Result<Verified, AlgoError> {
    let core = check.signed()?;
    let n = check.num_vertices();
    if core.len() != n {
        return Err(check.wrong(format!("{} core numbers for {n} vertices", core.len())));
    }
    if let Some(v) = (0..n).find(|&v| core[v] < 0 || core[v] > u32::MAX as i64) {
        return Err(check.wrong(format!("vertex {} has core number {}", check.label(v as u32), core[v])));
    }
    // Read a number per neighbour at random: four bytes each rather than eight.
    let narrow: Vec<u32> = core.iter().map(|&c| c as u32).collect();
    check.par_simple_lists(|v, neighbours| {
        let k = core[v as usize];
        let at_least =
            |c: i64| neighbours.iter().filter(|&&u| i64::from(narrow[u as usize]) >= c).count() as i64;
        let (with_k, above) = (at_least(k), at_least(k + 1));
        if with_k < k {
            return Err(check.wrong(format!(
                "vertex {} has core number {k}, yet only {with_k} of its {} neighbours have core {k} or more",
                check.label(v),
                neighbours.len()
            )));
        }
        if above > k {
            return Err(check.wrong(format!(
                "vertex {} has core number {k}, yet {above} of its neighbours have core {} or more: it belongs to that core",
                check.label(v),
                k + 1
            )));
        }
        Ok(())
    })?;
    let max = core.iter().copied().max().unwrap_or(0);
    Ok(Verified(format!(
        "core numbers up to {max} by the peeling certificate: every vertex of core k has at least k neighbours of core k or more and at most k of core k+1 or more, on the simple undirected view ({})",
        check.passes_made()
    )))
}
