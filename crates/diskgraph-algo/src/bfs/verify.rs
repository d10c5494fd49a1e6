//! The BFS verifier: Graph500's validation rules for a search's levels or parent tree, checked
//! in one pass over the out-lists with a bit per vertex beside the answer.
//!
//! For levels `L` from source `s`: `L(s) = 0` and no other vertex is at level 0; for every arc
//! `u → v` with `u` reached, `v` is reached and `L(v) ≤ L(u) + 1` (on an undirected graph both
//! directions are stored, so levels of neighbours differ by at most one); every reached vertex
//! but `s` has an in-neighbour at `L(v) − 1`. Together these make `L` the hop distance from `s`:
//! the last two bound it from above and below along every path. For parents `P`: `P(s) = s`, the
//! parents lead every reached vertex to `s` without a cycle (which gives its depth, checked as
//! the levels above), and `P(v) → v` is an arc of the graph.

use diskgraph_format::Direction;

use rayon::prelude::*;

use crate::bfs::UNVISITED;
use crate::verification::{AtomicBits, Check, Verified, NO_VERTEX};
use crate::AlgoError;

/// Checks a BFS answer: its levels, or with `parents` its tree.
pub(crate) fn verify(check: &Check) -> Result<Verified, AlgoError> {
    let source = check.run.source();
    if check.run.params.flag(&super::PARENTS) {
        let parents = Parents::of(check)?;
        let depth = depths(check, source, &parents)?;
        // The pass reads a level per arc at random: in a byte each when the depths allow it.
        let deepest = depth
            .par_iter()
            .filter(|&&d| d != UNVISITED)
            .max()
            .copied()
            .unwrap_or(0);
        let (reached, depth) = match deepest {
            d if d < u32::from(u8::MAX) => {
                let narrow = narrow::<u8>(&depth);
                drop(depth);
                check_compact(check, source, &narrow, Some(&parents))
            }
            d if d < u32::from(u16::MAX) => {
                let narrow = narrow::<u16>(&depth);
                drop(depth);
                check_compact(check, source, &narrow, Some(&parents))
            }
            _ => check_compact(check, source, &depth, Some(&parents)),
        }?;
        return Ok(Verified(format!(
            "a BFS tree of {reached} vertices, depth {depth}, by Graph500's rules: the source its own parent, no cycle, every parent an in-neighbour one level up, no arc spanning more than one level down or leaving the tree ({})",
            check.passes_made()
        )));
    }
    verify_levels(check)
}

/// Each vertex's parent as an internal vertex: read from the answer itself on a graph that names
/// each vertex by itself (its values are internal vertices already), resolved once otherwise.
enum Parents<'a> {
    /// The answer's values, each checked to be `-1` or a vertex.
    Direct(&'a [i64]),
    /// Resolved from original IDs, [`NO_VERTEX`] for none.
    Resolved(Vec<u32>),
}

impl<'a> Parents<'a> {
    /// The parents of `check`'s answer.
    fn of(check: &Check<'a>) -> Result<Self, AlgoError> {
        let n = check.num_vertices();
        match check.signed() {
            Ok(values) if check.vertices().is_identity() => {
                if values.len() != n {
                    return Err(check.wrong(format!("{} parents for {n} vertices", values.len())));
                }
                match values.par_iter().position_first(|&x| x >= n as i64) {
                    Some(v) => Err(check.wrong(format!(
                        "vertex {} has value {}, which is no vertex's ID",
                        check.label(v as u32),
                        values[v]
                    ))),
                    None => Ok(Parents::Direct(values)),
                }
            }
            _ => Ok(Parents::Resolved(check.vertex_values()?)),
        }
    }

    /// Number of vertices with a parent entry.
    fn len(&self) -> usize {
        match self {
            Parents::Direct(p) => p.len(),
            Parents::Resolved(p) => p.len(),
        }
    }

    /// The parent of `v`, [`NO_VERTEX`] for none.
    #[inline]
    fn get(&self, v: u32) -> u32 {
        match self {
            Parents::Direct(p) => match p[v as usize] {
                x if x < 0 => NO_VERTEX,
                x => x as u32,
            },
            Parents::Resolved(p) => p[v as usize],
        }
    }
}

/// Checks an answer of hop distances from the run's source (bfs levels, sp).
pub(crate) fn verify_levels(check: &Check) -> Result<Verified, AlgoError> {
    let (reached, depth) = check_levels(check, check.run.source(), check.signed()?)?;
    Ok(Verified(format!(
        "hop distances of {reached} vertices (max {depth}) by Graph500's rules: the source alone at 0, every arc spanning at most one level down and none leaving the reached set, every reached vertex an in-neighbour one level up ({})",
        check.passes_made()
    )))
}

/// Checks that `levels` (`-1` unreached) are the hop distances from `source` along out-arcs.
/// Returns the vertices reached and the largest level.
pub(crate) fn check_levels(check: &Check, source: u32, levels: &[i64]) -> Result<(u64, i64), AlgoError> {
    let n = check.num_vertices();
    if levels.len() != n {
        return Err(check.wrong(format!("{} levels for {n} vertices", levels.len())));
    }
    if levels[source as usize] != 0 {
        return Err(check.wrong(format!(
            "the source {} has level {}, not 0",
            check.label(source),
            levels[source as usize]
        )));
    }
    if let Some(v) = (0..n).find(|&v| levels[v] < -1 || (levels[v] == 0 && v != source as usize)) {
        return Err(check.wrong(format!(
            "vertex {} has level {}, which only the source may have (0) or no level is (below -1)",
            check.label(v as u32),
            levels[v]
        )));
    }
    // The pass reads a level per arc at random: in a byte each when the levels allow it, so
    // that they stay in the cache.
    match levels.iter().copied().max().unwrap_or(0) {
        d if d < i64::from(u8::MAX) => check_compact(check, source, &compact::<u8>(levels), None),
        d if d < i64::from(u16::MAX) => check_compact(check, source, &compact::<u16>(levels), None),
        _ => check_compact(check, source, &compact::<u32>(levels), None),
    }
}

/// The pass of the checks over levels in fewer bytes (the source alone at 0), and with
/// `parents` that each reached vertex's parent is an in-neighbour (its level one less is what
/// the levels, made from the parents, say already). Returns the vertices reached and the largest
/// level.
fn check_compact<L: Level>(
    check: &Check,
    source: u32,
    levels: &[L],
    parents: Option<&Parents>,
) -> Result<(u64, i64), AlgoError> {
    let n = check.num_vertices();
    let unreached: u32 = L::UNREACHED.into();
    // Reached vertices with an in-neighbour one level up (with parents: their parent's arc).
    let witnessed = AtomicBits::new(n);
    arcs_within_levels(check, levels, parents, &witnessed)?;
    let mut reached = 0;
    let mut depth = 0;
    for v in 0..n as u32 {
        let lv: u32 = levels[v as usize].into();
        if lv == unreached {
            continue;
        }
        reached += 1;
        depth = depth.max(lv);
        if v != source && !witnessed.contains(v) {
            return Err(check.wrong(match parents {
                Some(p) => format!(
                    "vertex {}'s parent {} is not an in-neighbour of it (no arc {} -> {})",
                    check.label(v),
                    check.label(p.get(v)),
                    check.label(p.get(v)),
                    check.label(v)
                ),
                None => format!(
                    "vertex {} has level {lv}, yet no in-neighbour of it has level {}",
                    check.label(v),
                    lv - 1
                ),
            }));
        }
    }
    Ok((reached, i64::from(depth)))
}

/// A level in fewer bytes: `MAX` for unreached.
trait Level: Copy + Send + Sync + Into<u32> + TryFrom<i64> {
    const UNREACHED: Self;
}

impl Level for u8 {
    const UNREACHED: u8 = u8::MAX;
}

impl Level for u16 {
    const UNREACHED: u16 = u16::MAX;
}

impl Level for u32 {
    const UNREACHED: u32 = u32::MAX;
}

/// `levels` (`-1` unreached, the rest below `L::UNREACHED`) as `L`s.
fn compact<L: Level>(levels: &[i64]) -> Vec<L> {
    levels
        .par_iter()
        .map(|&l| L::try_from(l).unwrap_or(L::UNREACHED))
        .collect()
}

/// Depths (`u32`, [`UNVISITED`] unreached, the rest below `L::UNREACHED`) as `L`s.
fn narrow<L: Level>(depths: &[u32]) -> Vec<L> {
    depths
        .par_iter()
        .map(|&d| {
            L::try_from(i64::from(d))
                .ok()
                .filter(|_| d != UNVISITED)
                .unwrap_or(L::UNREACHED)
        })
        .collect()
}

/// The pass of [`check_compact`]: every arc from a reached vertex leads to a reached one at most
/// one level down; the vertices one level down from an in-neighbour (with `parents`, from their
/// parent) go to `witnessed`. An undirected graph stores each edge both ways, so its edges are
/// taken once, from the smaller end, and checked in both directions: half the levels read at
/// random. There each vertex's parent is looked up in the vertex's own list (the arc back to
/// it), so the parents are read in order, once each, not at random for every arc.
fn arcs_within_levels<L: Level>(
    check: &Check,
    levels: &[L],
    parents: Option<&Parents>,
    witnessed: &AtomicBits,
) -> Result<(), AlgoError> {
    let unreached: u32 = L::UNREACHED.into();
    // Whether the arc `u -> v` between levels `lu` and `lv` breaks the rules (kept apart from
    // the message, so the loops below stay tight).
    let breaks = |lu: u32, lv: u32| lu != unreached && (lv == unreached || lv > lu + 1);
    // One level down along an arc from a reached vertex: the levels come from the parents'
    // depths, so every tree arc is one.
    let level_down = |lu: u32, lv: u32| lu != unreached && lv == lu + 1;
    let broken = |u: u32, lu: u32, v: u32, lv: u32| -> AlgoError {
        match lv == unreached {
            true => check.wrong(format!(
                "vertex {} is unreached, yet its in-neighbour {} has level {lu} (arc {} -> {})",
                check.label(v),
                check.label(u),
                check.label(u),
                check.label(v)
            )),
            false => check.wrong(format!(
                "vertex {} has level {lv}, yet the arc {} -> {} from level {lu} puts it at most at {}",
                check.label(v),
                check.label(u),
                check.label(v),
                lu + 1
            )),
        }
    };
    if check.directed() {
        return check.par_lists(Direction::Out, false, |u, list, _| {
            let lu: u32 = levels[u as usize].into();
            if lu == unreached {
                return Ok(());
            }
            for &v in list {
                let lv: u32 = levels[v as usize].into();
                if breaks(lu, lv) {
                    return Err(broken(u, lu, v, lv));
                }
                if level_down(lu, lv) && parents.is_none_or(|p| p.get(v) == u) {
                    witnessed.insert(v);
                }
            }
            Ok(())
        });
    }
    check.par_lists(Direction::Out, false, |u, list, _| {
        let lu: u32 = levels[u as usize].into();
        if let Some(p) = parents {
            // The arc `P(u) -> u` is stored as `u -> P(u)` too.
            let pu = p.get(u);
            if pu != NO_VERTEX && list.binary_search(&pu).is_ok() {
                witnessed.insert(u);
            }
        }
        // Lists ascend (the format's rule): the larger ends are a suffix.
        for &v in &list[list.partition_point(|&v| v <= u)..] {
            let lv: u32 = levels[v as usize].into();
            if breaks(lu, lv) {
                return Err(broken(u, lu, v, lv));
            }
            if breaks(lv, lu) {
                return Err(broken(v, lv, u, lu));
            }
            if parents.is_none() {
                if level_down(lu, lv) {
                    witnessed.insert(v);
                }
                if level_down(lv, lu) {
                    witnessed.insert(u);
                }
            }
        }
        Ok(())
    })
}

/// Each vertex's depth in the parent tree ([`UNVISITED`] without a parent), checking that the
/// source is its own parent and every other parent chain ends at the source without a cycle.
fn depths(check: &Check, source: u32, parents: &Parents) -> Result<Vec<u32>, AlgoError> {
    // Depths stay below the vertex count, which is below this.
    const UNKNOWN: u32 = UNVISITED - 1;
    let n = check.num_vertices();
    if parents.len() != n {
        return Err(check.wrong(format!("{} parents for {n} vertices", parents.len())));
    }
    if parents.get(source) != source {
        let p = parents.get(source);
        return Err(check.wrong(format!(
            "the source {} is not its own parent ({})",
            check.label(source),
            if p == NO_VERTEX { "none".into() } else { check.label(p) }
        )));
    }
    let mut depth = vec![UNKNOWN; n];
    depth[source as usize] = 0;
    let mut chain = Vec::new();
    for start in 0..n as u32 {
        // Up the parents to a vertex of known depth, then down again giving each its depth.
        let mut v = start;
        while depth[v as usize] == UNKNOWN {
            let p = parents.get(v);
            if p == NO_VERTEX {
                depth[v as usize] = UNVISITED;
                break;
            }
            chain.push(v);
            if chain.len() > n || p == v {
                return Err(check.wrong(format!(
                    "the parents of vertex {} form a cycle through {}",
                    check.label(start),
                    check.label(p)
                )));
            }
            v = p;
        }
        let mut d = depth[v as usize];
        if d == UNVISITED && !chain.is_empty() {
            return Err(check.wrong(format!(
                "vertex {} has parent {}, which is unreached",
                check.label(*chain.last().expect("not empty")),
                check.label(v)
            )));
        }
        while let Some(c) = chain.pop() {
            d += 1;
            depth[c as usize] = d;
        }
    }
    Ok(depth)
}
