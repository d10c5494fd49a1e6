//! The SCC verifier: the labels name components (as wcc's: each the smallest ID of its class,
//! the count reported equal to theirs), each class is strongly connected — its representative
//! (the vertex the label names) reaches every member and every member reaches it, along arcs
//! inside the class — and the classes are maximal: the arcs between them form no cycle.
//!
//! Reaching runs by passes over the out-lists (then the in-lists, for the way back), each pass
//! taking every arc from a reached vertex to an unreached one of its class, in vertex order, so
//! a pass goes as far as the vertex order allows; passes repeat until nothing changes (about
//! the classes' radius). Acyclicity: the distinct pairs of classes joined by an arc are
//! gathered in one pass and sorted topologically in memory while they fit in half the budget;
//! beyond that, passes peel the classes that no remaining class enters, one layer a pass.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use diskgraph_format::Direction;

use crate::verification::{AtomicBits, Check, Verified, VertexBits};
use crate::wcc::verify::labelled;
use crate::AlgoError;

/// Checks an SCC answer.
pub(crate) fn verify(check: &Check) -> Result<Verified, AlgoError> {
    let rep = labelled(check)?;
    let classes = rep.iter().enumerate().filter(|&(v, &r)| r == v as u32).count();
    reach_within(check, &rep, Direction::Out)?;
    if check.directed() {
        reach_within(check, &rep, Direction::In)?;
    }
    // On an undirected graph an edge between two classes is a cycle of two.
    acyclic(check, &rep)?;
    Ok(Verified(format!(
        "{classes} strongly connected components: each label the smallest ID of its class, every member reached from its representative and reaching it within the class, no cycle among the classes ({})",
        check.passes_made()
    )))
}

/// Checks that every vertex is reached from its class's representative along arcs of `dir`
/// inside the class.
fn reach_within(check: &Check, rep: &[u32], dir: Direction) -> Result<(), AlgoError> {
    let n = rep.len();
    let reached = AtomicBits::new(n);
    let mut left = n as u64;
    for v in 0..n as u32 {
        if rep[v as usize] == v {
            reached.insert(v);
            left -= 1;
        }
    }
    while left > 0 {
        let grew = AtomicU64::new(0);
        check.par_lists(dir, false, |u, list, _| {
            if reached.contains(u) {
                for &v in list {
                    if rep[v as usize] == rep[u as usize] && !reached.contains(v) && reached.add(v) {
                        grew.fetch_add(1, Relaxed);
                    }
                }
            }
            Ok(())
        })?;
        match grew.into_inner() {
            0 => break,
            more => left -= more,
        }
    }
    match (0..n as u32).find(|&v| !reached.contains(v)) {
        None => Ok(()),
        Some(v) => {
            let (from, to) = match dir {
                Direction::Out => (rep[v as usize], v),
                Direction::In => (v, rep[v as usize]),
            };
            Err(check.wrong(format!(
                "vertex {} is labelled {}, yet no path inside the component leads from {} to {}",
                check.label(v),
                check.label(rep[v as usize]),
                check.label(from),
                check.label(to)
            )))
        }
    }
}

/// Checks that the arcs between classes form no cycle.
fn acyclic(check: &Check, rep: &[u32]) -> Result<(), AlgoError> {
    // Pairs (class of tail, class of head), gathered while they fit.
    let room = (diskgraph_engine::engine_options::memory(check.run.params) / 2 / 8) as usize;
    let mut pairs: Vec<(u32, u32)> = Vec::new();
    let mut fits = true;
    check.lists(Direction::Out, false, |u, list, _| {
        if !fits {
            return Ok(());
        }
        let from = rep[u as usize];
        for &v in list {
            let to = rep[v as usize];
            if to != from && pairs.last() != Some(&(from, to)) {
                pairs.push((from, to));
            }
        }
        if pairs.len() > room {
            pairs.sort_unstable();
            pairs.dedup();
            fits = pairs.len() <= room / 2;
        }
        Ok(())
    })?;
    if !fits {
        drop(pairs);
        return peel_by_passes(check, rep);
    }
    pairs.sort_unstable();
    pairs.dedup();
    match peel_in_memory(rep, &pairs) {
        None => Ok(()),
        Some((a, b)) => Err(check.wrong(format!(
            "the components labelled {} and {} lie on a cycle of components (an arc joins them, and each reaches the other): they are one",
            check.label(a),
            check.label(b)
        ))),
    }
}

/// Kahn's sort of the classes over the distinct `pairs` (sorted): `None` when every class
/// goes, else a pair left on a cycle.
fn peel_in_memory(rep: &[u32], pairs: &[(u32, u32)]) -> Option<(u32, u32)> {
    let n = rep.len();
    let mut entering = vec![0u32; n];
    for &(_, to) in pairs {
        entering[to as usize] += 1;
    }
    let mut ready: Vec<u32> = (0..n as u32)
        .filter(|&c| rep[c as usize] == c && entering[c as usize] == 0)
        .collect();
    while let Some(c) = ready.pop() {
        let from = pairs.partition_point(|&(f, _)| f < c);
        for &(_, to) in pairs[from..].iter().take_while(|&&(f, _)| f == c) {
            entering[to as usize] -= 1;
            if entering[to as usize] == 0 {
                ready.push(to);
            }
        }
    }
    // Each class left has an entering class left: walking back along them meets a cycle.
    let mut back = pairs.to_vec();
    back.sort_unstable_by_key(|&(f, t)| (t, f));
    let mut c = (0..n as u32).find(|&c| entering[c as usize] > 0)?;
    let mut seen = VertexBits::new(n);
    loop {
        seen.insert(c);
        let at = back.partition_point(|&(_, t)| t < c);
        let (before, _) = *back[at..]
            .iter()
            .take_while(|&&(_, t)| t == c)
            .find(|&&(f, _)| entering[f as usize] > 0)
            .expect("a class left has an entering class left");
        if seen.contains(before) {
            return Some((before, c));
        }
        c = before;
    }
}

/// Peels the classes by passes over the out-lists, each removing the classes no remaining class
/// enters, until all are gone; classes that cannot go lie on or behind a cycle.
fn peel_by_passes(check: &Check, rep: &[u32]) -> Result<(), AlgoError> {
    let n = rep.len();
    let mut gone = VertexBits::new(n);
    loop {
        let mut entered = VertexBits::new(n);
        let mut pair = None;
        check.lists(Direction::Out, false, |u, list, _| {
            let from = rep[u as usize];
            if gone.contains(from) {
                return Ok(());
            }
            for &v in list {
                let to = rep[v as usize];
                if to != from {
                    entered.insert(to);
                    pair = Some((from, to));
                }
            }
            Ok(())
        })?;
        let mut removed = 0;
        for c in 0..n as u32 {
            if rep[c as usize] == c && !gone.contains(c) && !entered.contains(c) {
                gone.insert(c);
                removed += 1;
            }
        }
        match pair {
            None => return Ok(()),
            Some(_) if removed > 0 => continue,
            Some((a, b)) => {
                return Err(check.wrong(format!(
                    "the components left after peeling every component nothing enters, {} and {} among them (an arc joins them), lie on or behind a cycle of components",
                    check.label(a),
                    check.label(b)
                )))
            }
        }
    }
}
