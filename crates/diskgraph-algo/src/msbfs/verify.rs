//! The msbfs verifier. The answer keeps only each vertex's sum of distances from the sources
//! that reach it, not the distances themselves (apsp's answer has them, and its verifier checks
//! each source as a BFS); what one pass over the out-lists can check of the sums:
//!
//! - every source is reached (by itself at least);
//! - the reached set is closed along arcs: an arc from a reached vertex leads to a reached one;
//! - every reached vertex but a source has a reached in-neighbour;
//! - on an undirected graph, neighbours are reached by the same sources, each at distances that
//!   differ by at most one, so their sums differ by at most the number of sources.

use diskgraph_format::Direction;

use crate::verification::{AtomicBits, Check, Verified, VertexBits};
use crate::AlgoError;

/// Checks an msbfs answer.
pub(crate) fn verify(check: &Check) -> Result<Verified, AlgoError> {
    let sums = check.signed()?;
    let n = check.num_vertices();
    if sums.len() != n {
        return Err(check.wrong(format!("{} sums for {n} vertices", sums.len())));
    }
    let sources = check.run.sources();
    let mut is_source = VertexBits::new(n);
    for &s in sources {
        is_source.insert(s);
        if sums[s as usize] < 0 {
            return Err(check.wrong(format!("the source {} is unreached", check.label(s))));
        }
    }
    if let Some(v) = (0..n).find(|&v| sums[v] < -1) {
        return Err(check.wrong(format!("vertex {} has sum {}", check.label(v as u32), sums[v])));
    }
    let k = sources.len() as i64;
    let undirected = !check.directed();
    let entered = AtomicBits::new(n);
    check.par_lists(Direction::Out, false, |u, list, _| {
        let su = sums[u as usize];
        if su < 0 {
            return Ok(());
        }
        for &v in list {
            let sv = sums[v as usize];
            if sv < 0 {
                return Err(check.wrong(format!(
                    "vertex {} is unreached, yet its in-neighbour {} is reached (arc {} -> {})",
                    check.label(v),
                    check.label(u),
                    check.label(u),
                    check.label(v)
                )));
            }
            if undirected && (su - sv).abs() > k {
                return Err(check.wrong(format!(
                    "neighbours {} and {} have distance sums {su} and {sv}, which {k} sources cannot make differ by more than {k}",
                    check.label(u),
                    check.label(v)
                )));
            }
            entered.insert(v);
        }
        Ok(())
    })?;
    if let Some(v) = (0..n as u32).find(|&v| sums[v as usize] >= 0 && !is_source.contains(v) && !entered.contains(v)) {
        return Err(check.wrong(format!(
            "vertex {} is reached (sum {}), yet it is no source and no reached vertex has an arc to it",
            check.label(v),
            sums[v as usize]
        )));
    }
    let reached = sums.iter().filter(|&&s| s >= 0).count();
    let neighbours = if undirected {
        ", neighbours' sums within the source count of each other"
    } else {
        ""
    };
    Ok(Verified(format!(
        "{reached} vertices reached from {k} sources: every source reached, the reached set closed along arcs and entered from a reached vertex or a source{neighbours} (the sums alone; apsp checks each distance) ({})",
        check.passes_made()
    )))
}
