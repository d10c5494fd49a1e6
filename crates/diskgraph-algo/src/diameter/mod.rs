//! Diameter lower bound by repeated BFS sweeps (the double sweep of Magnien, Latapy and Habib,
//! repeated): BFS from a start vertex, then from the farthest vertex it found, and so on for up
//! to `rounds` sweeps or until the eccentricity stops growing.
//!
//! Every figure reported is a real eccentricity — the largest hop distance from the vertex the
//! sweep started at, within what it reaches along out-edges — so it is a lower bound on the
//! diameter of the start's component. On a tree (an undirected connected acyclic graph) two
//! sweeps are exact: the farthest vertex from any vertex ends a longest path.

use crate::bfs::{plain_levels, reach, signed_levels, UNVISITED};
use diskgraph_engine::options::{Default, Engines, OptionKind, OptionSpec};
use diskgraph_engine::selective::SelectiveGraph;
use diskgraph_engine::{Engine, MemoryGraph};
use rayon::prelude::*;
use serde_json::json;

use crate::descriptor::{Algorithm, Needs, On, Outcome, PerVertex, ResultKind, Run, ValueType, Values, Variant};
use crate::options::SOURCE;
use crate::AlgoError;

pub mod selective;
pub(crate) mod verify;

/// `--rounds`: BFS sweeps.
pub const ROUNDS: OptionSpec = OptionSpec {
    name: "rounds",
    kind: OptionKind::POSITIVE,
    default: Default::Count(DEFAULT_SWEEPS as u64),
    help: "BFS sweeps, each from the farthest vertex the last one found",
    engines: Engines::All,
    examples: &["2"],
};

/// Diameter lower bound.
pub const DIAMETER: Algorithm = Algorithm {
    name: "diameter",
    help: "diameter lower bound by --rounds BFS sweeps from --source: hop distances from the vertex whose eccentricity it is",
    options: &[&SOURCE, &ROUNDS],
    cluster: None,
    result: ResultKind {
        values: ValueType::Signed,
        name: "hops",
        help: "hop distances from the vertex whose eccentricity is the bound (-1 unreached); the stats' settings have bound, from and to",
    },
    variants: &[
        Variant {
            needs: Needs::IN_EDGES,
            run: &On::<MemoryGraph>(|g, run| {
                Ok(present(diameter(g, run.source(), rounds(run), Some(run.vertices.ids()))?, run))
            }),
        },
        Variant {
            needs: Needs::IN_EDGES,
            run: &On::<SelectiveGraph>(|g, run| {
                Ok(present(
                    selective::diameter(g, run.source(), rounds(run), Some(run.vertices.ids()))?,
                    run,
                ))
            }),
        },
    ],
    verify: verify::verify,
    memory: |_, _, _| PerVertex::BOUND,
};

/// The run's sweeps.
fn rounds(run: &Run) -> usize {
    run.params.value::<u64>(&ROUNDS) as usize
}

/// The distances from the bound's vertex, the bound and its ends.
fn present(d: Diameter, run: &Run) -> Outcome {
    let summary = format!(
        "diameter at least {} (the eccentricity of vertex {}, reaching {} at that distance) after {} sweeps",
        d.bound,
        run.label(d.from),
        run.label(d.to),
        d.sweeps
    );
    Outcome::new(Values::Signed(d.levels), summary)
        .iterations(d.sweeps as u64)
        .setting("source", json!(run.id(run.source())))
        .setting("rounds", json!(rounds(run)))
        .setting("bound", json!(d.bound))
        .setting("from", json!(run.id(d.from)))
        .setting("to", json!(run.id(d.to)))
}

/// The result of [`diameter`].
#[derive(Clone, Debug, PartialEq)]
pub struct Diameter {
    /// The largest eccentricity found: a lower bound on the diameter (exact on trees).
    pub bound: u64,
    /// The vertex whose eccentricity it is.
    pub from: u32,
    /// A vertex at that distance from `from`: among the farthest, the one with the smallest
    /// original ID (see [`diameter`]).
    pub to: u32,
    /// Hop distances from `from` (`-1` unreached).
    pub levels: Vec<i64>,
    /// BFS sweeps run.
    pub sweeps: usize,
}

/// Default number of sweeps.
pub const DEFAULT_SWEEPS: usize = 4;

/// Diameter lower bound on the memory engine, starting at `start` (see the module doc). Each
/// sweep goes on from the farthest vertex with the smallest original ID, `ids` mapping internal
/// IDs to original ones (`None`: they are the same), so every ordering of a graph sweeps alike.
pub fn diameter(g: &MemoryGraph, start: u32, rounds: usize, ids: Option<&[u64]>) -> Result<Diameter, AlgoError> {
    let cancel = g.cancel();
    sweep(start, rounds, ids, |s| {
        g.check_vertex(s)?;
        Ok(plain_levels(reach(g.out(), g.in_edges(), s, false, &cancel)?.level))
    })
}

/// The sweeps, over any engine's BFS (`levels_from(source)`: levels, [`UNVISITED`] when
/// unreached); `ids` as in [`diameter`]. Only the best sweep's levels take the public form:
/// widening every sweep's took a fresh array of 8 bytes per vertex each.
pub(crate) fn sweep<E>(
    start: u32,
    rounds: usize,
    ids: Option<&[u64]>,
    mut levels_from: impl FnMut(u32) -> Result<Vec<u32>, E>,
) -> Result<Diameter, E> {
    let mut source = start;
    // (bound, from, to, levels, sweeps) of the best sweep so far.
    let mut best: Option<(u64, u32, u32, Vec<u32>, usize)> = None;
    for sweep in 1..=rounds.max(1) {
        let levels = levels_from(source)?;
        let (to, ecc) = farthest(&levels, ids);
        let improved = best.as_ref().is_none_or(|b| ecc > b.0);
        if improved {
            best = Some((ecc, source, to, levels, sweep));
        } else if let Some(b) = &mut best {
            b.4 = sweep;
            break;
        }
        if to == source {
            break;
        }
        source = to;
    }
    let (bound, from, to, levels, sweeps) = best.expect("at least one sweep");
    Ok(Diameter {
        bound,
        from,
        to,
        levels: signed_levels(&levels),
        sweeps,
    })
}

/// The farthest reached vertex (the smallest original ID among ties, `ids` as in [`diameter`])
/// and its distance.
///
/// In parallel: each task keeps the best of its vertices (`better` reads an ID only on a tie),
/// and the tasks' bests are compared the same way, which gives the serial scan's answer.
fn farthest(levels: &[u32], ids: Option<&[u64]>) -> (u32, u64) {
    let original = |v: u32| ids.map_or(u64::from(v), |ids| ids[v as usize]);
    let better = |a: (u32, u32), b: (u32, u32)| {
        let wins = b.1 > a.1 || (b.1 == a.1 && b.1 > 0 && original(b.0) < original(a.0));
        if wins {
            b
        } else {
            a
        }
    };
    let best = levels
        .par_iter()
        .enumerate()
        .with_min_len(1 << 14)
        .filter(|&(_, &l)| l != UNVISITED)
        .map(|(v, &l)| (v as u32, l))
        .reduce(|| (0u32, 0u32), better);
    if best.1 == 0 {
        // Only the source was reached (or nothing further): it is its own farthest vertex.
        let source = levels.iter().position(|&l| l == 0).unwrap_or(0) as u32;
        return (source, 0);
    }
    (best.0, u64::from(best.1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn farthest_takes_the_smallest_original_id_among_ties() {
        const U: u32 = UNVISITED;
        assert_eq!(farthest(&[1, 0, 2, U, 2], None), (2, 2));
        assert_eq!(farthest(&[1, 0, 2, U, 2], Some(&[7, 9, 30, 5, 20])), (4, 2));
        assert_eq!(farthest(&[U, 0, U], None), (1, 0));
        assert_eq!(farthest(&[U, 0, U], Some(&[3, 2, 1])), (1, 0));
    }

    #[test]
    fn farthest_in_parallel_is_the_serial_scan() {
        // Many tasks' worth of vertices, levels 0..6 with ties everywhere, IDs a permutation.
        let n = 200_003u32;
        let levels: Vec<u32> = (0..n)
            .map(|v| {
                if v % 17 == 3 {
                    UNVISITED
                } else {
                    (v % 1000 * 7 + v / 5) % 6
                }
            })
            .collect();
        let ids: Vec<u64> = (0..u64::from(n)).map(|v| (v * 104_729 + 11) % u64::from(n)).collect();
        let serial = |ids: Option<&[u64]>| {
            let original = |v: u32| ids.map_or(u64::from(v), |ids| ids[v as usize]);
            let mut best = (0u32, 0u32);
            for (v, &l) in levels.iter().enumerate() {
                let v = v as u32;
                if l != UNVISITED && (l > best.1 || (l == best.1 && l > 0 && original(v) < original(best.0))) {
                    best = (v, l);
                }
            }
            (best.0, u64::from(best.1))
        };
        assert_eq!(farthest(&levels, None), serial(None));
        assert_eq!(farthest(&levels, Some(&ids)), serial(Some(&ids)));
        assert_ne!(serial(Some(&ids)), serial(None), "the IDs change the answer");
    }

    #[test]
    fn sweeps_stop_when_the_bound_stops_growing() {
        // A path 0-1-2-3-4: from 2 the farthest is 0 (distance 2), from 0 it is 4 (distance 4).
        let path = |s: u32| -> Result<Vec<u32>, ()> { Ok((0..5).map(|v: u32| v.abs_diff(s)).collect()) };
        let d = sweep(2, 10, None, path).unwrap();
        assert_eq!((d.bound, d.from, d.to, d.sweeps), (4, 0, 4, 3));
        assert_eq!(d.levels, [0, 1, 2, 3, 4], "the best sweep's levels, signed");
    }
}
