//! The apsp verifier: each source's row checked as a BFS by Graph500's rules (see
//! [`bfs`](crate::bfs)'s verifier), all rows in one pass over the out-lists: the source alone
//! at 0; for every arc `u → v` and every source reaching `u`, `v` reached and at most one hop
//! further; every reached vertex but the source one hop behind an in-neighbour.

use diskgraph_format::Direction;

use crate::descriptor::Values;
use crate::msbfs::UNREACHED;
use crate::verification::{AtomicBits, Check, Verified};
use crate::AlgoError;

/// Checks an apsp answer.
pub(crate) fn verify(check: &Check) -> Result<Verified, AlgoError> {
    let Values::Distances { sources: k, hops } = check.values else {
        return Err(check.wrong("the values are not a distance matrix"));
    };
    let n = check.num_vertices();
    let sources = check.run.sources();
    if *k != sources.len() || hops.len() != k * n {
        return Err(check.wrong(format!(
            "{} rows of {} distances for {} sources of {n} vertices",
            k,
            hops.len() / n.max(1),
            sources.len()
        )));
    }
    let row = |i: usize| &hops[i * n..(i + 1) * n];
    for (i, &s) in sources.iter().enumerate() {
        if let Some(v) = (0..n).find(|&v| (row(i)[v] == 0) != (v == s as usize)) {
            return Err(check.wrong(format!(
                "from source {}, vertex {} is at {} hops",
                check.label(s),
                check.label(v as u32),
                hops_text(row(i)[v])
            )));
        }
    }
    let witnessed: Vec<AtomicBits> = (0..*k).map(|_| AtomicBits::new(n)).collect();
    check.par_lists(Direction::Out, false, |u, list, _| {
        for (i, seen) in witnessed.iter().enumerate() {
            let r = row(i);
            let hu = r[u as usize];
            if hu == UNREACHED {
                continue;
            }
            for &v in list {
                let hv = r[v as usize];
                if hv == UNREACHED || hv > hu + 1 {
                    return Err(check.wrong(format!(
                        "from source {}, vertex {} is at {} hops, yet the arc {} -> {} from {hu} hops puts it at most at {}",
                        check.label(sources[i]),
                        check.label(v),
                        hops_text(hv),
                        check.label(u),
                        check.label(v),
                        hu + 1
                    )));
                }
                if hv == hu + 1 {
                    seen.insert(v);
                }
            }
        }
        Ok(())
    })?;
    for (i, seen) in witnessed.iter().enumerate() {
        let r = row(i);
        if let Some(v) = (0..n as u32).find(|&v| r[v as usize] != UNREACHED && v != sources[i] && !seen.contains(v)) {
            return Err(check.wrong(format!(
                "from source {}, vertex {} is at {} hops, yet no in-neighbour of it is one hop nearer",
                check.label(sources[i]),
                check.label(v),
                r[v as usize]
            )));
        }
    }
    let pairs = hops.iter().filter(|&&h| h != UNREACHED).count();
    Ok(Verified(format!(
        "hop distances of {pairs} (source, vertex) pairs from {k} sources, each row by Graph500's BFS rules ({})",
        check.passes_made()
    )))
}

/// Hops as messages show them.
fn hops_text(h: u32) -> String {
    match h {
        UNREACHED => "unreached (-1)".into(),
        h => h.to_string(),
    }
}
