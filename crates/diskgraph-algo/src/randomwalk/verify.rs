//! The random-walk verifier. The visits follow from counter-based draws, so the only full check
//! is the walk again, one pass per step; what one pass over the out-lists checks instead:
//!
//! - the visits sum to `walks × (length + 1)`: every walk is somewhere at every step;
//! - each source slot's vertex has at least the walks dealt to it (they start there), and with
//!   `length` 0 exactly those, nothing elsewhere;
//! - a vertex that is no source is entered only along an arc, by a walk that was at the arc's
//!   tail a step before, so its visits are at most its distinct in-neighbours' visits summed
//!   (with `damping` 0 no walk moves, so it has none).

use diskgraph_format::Direction;

use crate::verification::{Check, Verified, VertexBits};
use crate::AlgoError;

/// Checks a random-walk answer.
pub(crate) fn verify(check: &Check) -> Result<Verified, AlgoError> {
    let visits = check.unsigned()?;
    let n = check.num_vertices();
    if visits.len() != n {
        return Err(check.wrong(format!("{} visit counts for {n} vertices", visits.len())));
    }
    let p = check.run.params;
    let walks = p.value::<u64>(&super::WALKS);
    let length = p.value::<u64>(&super::LENGTH);
    let damping = p.value::<f64>(&super::DAMPING);
    let slots = check.run.sources();
    let total: u128 = visits.iter().map(|&v| u128::from(v)).sum();
    let expected = u128::from(walks) * u128::from(length + 1);
    if total != expected {
        return Err(check.wrong(format!(
            "the visits sum to {total}, not walks x (length + 1) = {expected}"
        )));
    }
    // The walks dealt to each vertex at step 0: slot i of k gets walks / k, one more if i < walks % k.
    let k = slots.len() as u64;
    let mut dealt = vec![0u64; n];
    for (i, &s) in slots.iter().enumerate() {
        dealt[s as usize] += walks / k + u64::from((i as u64) < walks % k);
    }
    let mut source = VertexBits::new(n);
    slots.iter().for_each(|&s| source.insert(s));
    let is_source = |v: usize| source.contains(v as u32);
    if let Some(v) = (0..n).find(|&v| visits[v] < dealt[v] || (length == 0 && visits[v] != dealt[v])) {
        return Err(check.wrong(format!(
            "vertex {} has {} visits, and {} walks start there",
            check.label(v as u32),
            visits[v],
            dealt[v]
        )));
    }
    // Each vertex's distinct in-neighbours' visits, summed.
    let mut arriving = vec![0u64; n];
    check.lists(Direction::Out, false, |u, list, _| {
        let vu = visits[u as usize];
        let mut last = None;
        for &v in list {
            if last != Some(v) {
                arriving[v as usize] = arriving[v as usize].saturating_add(vu);
                last = Some(v);
            }
        }
        Ok(())
    })?;
    let most = |v: usize| if damping == 0.0 { 0 } else { arriving[v] };
    if let Some(v) = (0..n).find(|&v| !is_source(v) && visits[v] > most(v)) {
        return Err(check.wrong(format!(
            "vertex {} is no source, yet has {} visits, more than the {} its in-neighbours' visits allow",
            check.label(v as u32),
            visits[v],
            most(v)
        )));
    }
    Ok(Verified(format!(
        "{total} visits (walks x (length + 1)), every walk's start at its source, and no vertex but a source visited more than its in-neighbours allow (not the draws themselves, which only walking again checks) ({})",
        check.passes_made()
    )))
}
