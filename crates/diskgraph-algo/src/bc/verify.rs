//! The betweenness verifier: what one pass over the out-lists can check without the shortest
//! paths themselves (the sums of dependencies need a search from every source, the run's whole
//! work again). Every value is finite and non-negative; a vertex no shortest path can pass
//! through — without an in-neighbour and an out-neighbour that differ (a sink, a source, a leaf
//! of an undirected graph; self-loops aside) — has 0; and exact normalized values are at most 1
//! (each pair of endpoints adds at most 1 before the normalization by the pairs).

use diskgraph_format::Direction;

use crate::verification::{Check, Verified, VertexBits};
use crate::AlgoError;

/// Allowed excess of a normalized value over 1, for rounding.
const ROUNDING: f64 = 1e-9;

/// Checks a betweenness answer.
pub(crate) fn verify(check: &Check) -> Result<Verified, AlgoError> {
    let bc = check.floats()?;
    let n = check.num_vertices();
    if bc.len() != n {
        return Err(check.wrong(format!("{} values for {n} vertices", bc.len())));
    }
    let sampled = check.run.params.is_given(&super::SAMPLES);
    if let Some(v) = (0..n).find(|&v| !(bc[v] >= 0.0 && bc[v].is_finite()) || (!sampled && bc[v] > 1.0 + ROUNDING)) {
        return Err(check.wrong(format!(
            "vertex {} has betweenness {}, not in [0, 1]",
            check.label(v as u32),
            bc[v]
        )));
    }
    // Per vertex: one in-neighbour and one out-neighbour (not itself), and whether it has more.
    const NONE: u32 = u32::MAX;
    let (mut first_in, mut first_out) = (vec![NONE; n], vec![NONE; n]);
    let (mut more_in, mut more_out) = (VertexBits::new(n), VertexBits::new(n));
    let note = |first: &mut [u32], more: &mut VertexBits, v: u32, other: u32| match first[v as usize] {
        NONE => first[v as usize] = other,
        f if f != other => more.insert(v),
        _ => {}
    };
    check.lists(Direction::Out, false, |u, list, _| {
        for &v in list.iter().filter(|&&v| v != u) {
            note(&mut first_out, &mut more_out, u, v);
            note(&mut first_in, &mut more_in, v, u);
        }
        Ok(())
    })?;
    let inner = |v: usize| {
        first_in[v] != NONE
            && first_out[v] != NONE
            && (first_in[v] != first_out[v] || more_in.contains(v as u32) || more_out.contains(v as u32))
    };
    if let Some(v) = (0..n).find(|&v| bc[v] != 0.0 && !inner(v)) {
        return Err(check.wrong(format!(
            "vertex {} has betweenness {}, yet no shortest path can pass through it (it lacks an in-neighbour and an out-neighbour that differ)",
            check.label(v as u32),
            bc[v]
        )));
    }
    let bound = if sampled { "" } else { " and at most 1" };
    Ok(Verified(format!(
        "every value finite, non-negative{bound}, and 0 at every vertex no shortest path passes through (what one pass can check: the dependency sums need every search again) ({})",
        check.passes_made()
    )))
}
