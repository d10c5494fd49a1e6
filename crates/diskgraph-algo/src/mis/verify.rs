//! The MIS verifier, in one pass over the out-lists (an arc makes its ends neighbours either
//! way; self-loops are ignored): the set is independent — no arc joins two of its vertices —
//! and maximal — every vertex outside it has a neighbour inside. For the greedy method, which
//! takes vertices in ascending internal order, the answer is determined, and the pass checks
//! exactly that one: every vertex outside has a neighbour inside that comes before it.

use diskgraph_format::Direction;

use crate::verification::{AtomicBits, Check, Verified, VertexBits};
use crate::AlgoError;

use super::MisMethod;

/// Checks an MIS answer.
pub(crate) fn verify(check: &Check) -> Result<Verified, AlgoError> {
    let in_set = check.signed()?;
    let n = check.num_vertices();
    if in_set.len() != n {
        return Err(check.wrong(format!("{} values for {n} vertices", in_set.len())));
    }
    if let Some(v) = (0..n).find(|&v| !matches!(in_set[v], 0 | 1)) {
        return Err(check.wrong(format!(
            "vertex {} has {}, neither 0 nor 1",
            check.label(v as u32),
            in_set[v]
        )));
    }
    let greedy = super::method(check.run) == MisMethod::Greedy;
    // The set a bit per vertex, read at random for every arc.
    let mut set = VertexBits::new(n);
    (0..n as u32)
        .filter(|&v| in_set[v as usize] == 1)
        .for_each(|v| set.insert(v));
    let inside = |v: u32| set.contains(v);
    // Vertices outside with a neighbour inside (greedy: one that comes before them).
    let covered = AtomicBits::new(n);
    check.par_lists(Direction::Out, false, |u, list, _| {
        for &v in list.iter().filter(|&&v| v != u) {
            if inside(u) && inside(v) {
                return Err(check.wrong(format!(
                    "vertices {} and {} are both in the set, yet the arc {} -> {} joins them",
                    check.label(u),
                    check.label(v),
                    check.label(u),
                    check.label(v)
                )));
            }
            if inside(u) && (!greedy || u < v) {
                covered.insert(v);
            }
            if inside(v) && (!greedy || v < u) {
                covered.insert(u);
            }
        }
        Ok(())
    })?;
    if let Some(v) = (0..n as u32).find(|&v| !inside(v) && !covered.contains(v)) {
        return Err(check.wrong(match greedy {
            true => format!(
                "vertex {} is not in the set, yet no neighbour of it that comes before it is: greedy would take it",
                check.label(v)
            ),
            false => format!(
                "vertex {} is not in the set and neither is any neighbour of it: the set is not maximal",
                check.label(v)
            ),
        }));
    }
    let size = in_set.iter().filter(|&&b| b == 1).count();
    let what = match greedy {
        true => "the greedy set (each vertex outside has a neighbour inside before it)",
        false => "independent and maximal",
    };
    Ok(Verified(format!(
        "a set of {size} vertices, {what}, on the undirected view ({})",
        check.passes_made()
    )))
}
