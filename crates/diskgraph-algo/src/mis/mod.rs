//! Maximal independent sets on the memory engine.
//!
//! Edge directions are ignored (an arc `u → v` makes `u` and `v` neighbours, as in an undirected
//! graph) and self-loops are ignored (a vertex with one may join the set). Two methods:
//!
//! - **Greedy** (`greedy`, the default): vertices in ascending ID order, each joins the set
//!   unless a smaller neighbour already did. Deterministic: the lexicographically first maximal
//!   independent set. It is computed in one pass over the arcs in CSR (source) order: an arc
//!   between `lo < hi` removes `hi` when `lo` is in the set. By the time an arc with `lo` as its
//!   smaller end comes up, every arc between `lo` and a smaller vertex has come up already (it
//!   has a smaller source, or the same source and a smaller destination), so `lo` is decided.
//!   The same argument holds for any order sorted by (source range, destination range, source,
//!   destination), which is why the stream engine runs the same pass over `grid` layouts as well
//!   as `source` ones (CLIP's one-pass MIS).
//! - **Luby** (`luby`): the parallel Monte Carlo baseline of X-Stream and GridGraph. Each round
//!   gives every undecided vertex a pseudo-random priority (seeded; ties by ID), adds the
//!   undecided vertices whose priority beats every undecided neighbour's, and removes their
//!   neighbours; O(log V) rounds of two edge passes each. Valid (independent and maximal), but a
//!   different set than greedy's.

use std::sync::atomic::{AtomicU8, Ordering::Relaxed};

use diskgraph_engine::options::{Choice, Default, Engines, OptionKind, OptionSpec};
use diskgraph_engine::{Cancel, Engine, EngineKind, MemoryGraph};
use rayon::prelude::*;
use serde_json::json;

use crate::descriptor::{Algorithm, Needs, On, Outcome, PerVertex, ResultKind, Run, ValueType, Values, Variant};
use crate::options::SEED;
use crate::stop::Poll;
use crate::AlgoError;
use diskgraph_engine::stream::LayoutNeed;
use diskgraph_engine::stream::StreamGraph;
use diskgraph_engine::sync::SyncGraph;

pub mod stream;
pub mod sync;
pub(crate) mod verify;

/// `--method` of mis.
pub const METHOD: OptionSpec = OptionSpec {
    name: "method",
    kind: OptionKind::Choice(&[
        Choice::new(
            "greedy",
            "vertices by ascending ID, each joins unless a smaller neighbour did (one pass on the stream engine)",
        ),
        Choice {
            name: "luby",
            help: "Luby's randomized rounds seeded with --seed (the parallel baseline; not on the sync engine)",
            engines: Engines::Only(&[EngineKind::Memory, EngineKind::Stream]),
        },
    ]),
    default: Default::Choice("greedy"),
    help: "greedy (by ascending ID; deterministic) or luby (randomized rounds seeded with --seed)",
    engines: Engines::All,
    examples: &[],
};

/// Maximal independent set.
pub const MIS: Algorithm = Algorithm {
    name: "mis",
    help: "maximal independent set, 1 in the set and 0 not (greedy by ID; --method luby)",
    options: &[&METHOD, &SEED],
    cluster: None,
    result: ResultKind {
        values: ValueType::Signed,
        name: "in_set",
        help: "1 for a vertex in the set, 0 for one not (the undirected view; the order the graph is stored in)",
    },
    variants: &[
        Variant {
            needs: Needs::NONE,
            run: &On::<MemoryGraph>(|g, run| Ok(present(mis(g, method(run))?, run))),
        },
        Variant {
            // Greedy MIS visits each source's edges in order: a source-sorted layout.
            needs: Needs {
                layout: |params| match params.choice_value(&METHOD) {
                    MethodName::Luby => LayoutNeed::Any,
                    MethodName::Greedy => LayoutNeed::SourceSorted,
                },
                ..Needs::NONE
            },
            run: &On::<StreamGraph>(|g, run| {
                let r = match method(run) {
                    MisMethod::Greedy => stream::mis_greedy(g)?,
                    MisMethod::Luby { seed } => stream::mis_luby(g, seed)?,
                };
                Ok(present(r, run))
            }),
        },
        Variant {
            needs: Needs::NONE,
            run: &On::<SyncGraph>(|g, run| Ok(present(sync::mis_greedy(g)?, run))),
        },
    ],
    verify: verify::verify,
    memory: |_, _, _| PerVertex::BOUND,
};

/// `--method`'s names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum MethodName {
    Greedy,
    Luby,
}

impl std::str::FromStr for MethodName {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "greedy" => Ok(MethodName::Greedy),
            "luby" => Ok(MethodName::Luby),
            _ => Err(format!("unknown mis method {s:?} (use greedy or luby)")),
        }
    }
}

/// The run's method.
fn method(run: &Run) -> MisMethod {
    match run.params.choice_value(&METHOD) {
        MethodName::Luby => MisMethod::Luby {
            seed: run.params.value(&SEED),
        },
        MethodName::Greedy => MisMethod::Greedy,
    }
}

/// Membership as 1 and 0, and the set's size.
fn present(r: Mis, run: &Run) -> Outcome {
    let summary = format!("independent set of {} of {} vertices", r.size(), r.in_set.len());
    let values = Values::Signed(r.in_set.iter().map(|&b| i64::from(b)).collect());
    let outcome = Outcome::new(values, summary)
        .iterations(r.iterations as u64)
        .edges(r.edges_processed);
    match method(run) {
        MisMethod::Luby { seed } => outcome.setting("seed", json!(seed)),
        MisMethod::Greedy => outcome,
    }
}

/// How to find the set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MisMethod {
    /// Greedy by ascending vertex ID (one pass; deterministic).
    Greedy,
    /// Luby's randomized rounds with this seed (the parallel baseline).
    Luby {
        /// Seed of the priorities.
        seed: u64,
    },
}

/// The result of [`mis()`] (and of the stream engine's variants).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mis {
    /// Whether each vertex is in the set.
    pub in_set: Vec<bool>,
    /// Passes over the edges (greedy: 1) or Luby rounds.
    pub iterations: usize,
    /// Edges examined.
    pub edges_processed: u64,
}

impl Mis {
    /// Number of vertices in the set.
    pub fn size(&self) -> usize {
        self.in_set.iter().filter(|&&b| b).count()
    }
}

/// Vertex status in Luby's rounds.
pub(crate) const UNDECIDED: u8 = 0;
/// In the set.
pub(crate) const IN: u8 = 1;
/// Out of the set (a neighbour is in).
pub(crate) const OUT: u8 = 2;

/// Luby's priority of `v` in `round`: a splitmix64 hash of the seed, the round and the vertex,
/// with the vertex as tie-break (so priorities are distinct).
#[inline]
pub(crate) fn luby_key(seed: u64, round: u64, v: u32) -> (u64, u32) {
    let mut z =
        seed ^ round.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (u64::from(v) << 1 | 1).wrapping_mul(0xD6E8_FEB8_6659_FD93);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (z ^ (z >> 31), v)
}

/// A maximal independent set of `g`'s undirected view (directions and self-loops ignored).
/// Needs only the out-edges.
///
/// Errors: [`EngineError::Cancelled`](diskgraph_engine::EngineError::Cancelled) once the run is
/// asked to stop (polled every round and within rounds).
pub fn mis(g: &MemoryGraph, method: MisMethod) -> Result<Mis, AlgoError> {
    let cancel = g.cancel();
    match method {
        MisMethod::Greedy => greedy(g, &cancel),
        MisMethod::Luby { seed } => luby(g, seed, &cancel),
    }
}

fn greedy(g: &MemoryGraph, cancel: &Cancel) -> Result<Mis, AlgoError> {
    let out = g.out();
    let n = g.num_vertices();
    let mut in_set = vec![true; n];
    let mut poll = Poll::new(cancel);
    for u in 0..n as u32 {
        if poll.stop(1 + out.degree(u) as u64) {
            break;
        }
        for &v in out.neighbours(u) {
            let (lo, hi) = (u.min(v) as usize, u.max(v) as usize);
            if lo != hi && in_set[lo] {
                in_set[hi] = false;
            }
        }
    }
    cancel.check()?;
    Ok(Mis {
        in_set,
        iterations: 1,
        edges_processed: out.num_arcs() as u64,
    })
}

fn luby(g: &MemoryGraph, seed: u64, cancel: &Cancel) -> Result<Mis, AlgoError> {
    let out = g.out();
    let n = g.num_vertices();
    let status: Vec<AtomicU8> = (0..n).map(|_| AtomicU8::new(UNDECIDED)).collect();
    let beaten: Vec<AtomicU8> = (0..n).map(|_| AtomicU8::new(0)).collect();
    let get = |v: u32| status[v as usize].load(Relaxed);
    let (mut round, mut edges) = (0u64, 0u64);
    while status.par_iter().any(|s| s.load(Relaxed) == UNDECIDED) {
        cancel.check()?;
        // Every undecided vertex beaten by an undecided neighbour's priority is not a local
        // minimum this round.
        edges += (0..n as u32)
            .into_par_iter()
            .with_min_len(1024)
            .filter(|&u| get(u) == UNDECIDED)
            .map_init(
                || Poll::new(cancel),
                |poll, u| {
                    if poll.stop(1 + out.degree(u) as u64) {
                        return 0;
                    }
                    for &v in out.neighbours(u) {
                        if v != u && get(v) == UNDECIDED {
                            let loser = if luby_key(seed, round, u) < luby_key(seed, round, v) {
                                v
                            } else {
                                u
                            };
                            beaten[loser as usize].store(1, Relaxed);
                        }
                    }
                    out.degree(u) as u64
                },
            )
            .sum::<u64>();
        // A stopped round leaves local minima unmarked: none may join the set.
        cancel.check()?;
        status.par_iter().zip(&beaten).for_each(|(s, b)| {
            if s.load(Relaxed) == UNDECIDED && b.load(Relaxed) == 0 {
                s.store(IN, Relaxed);
            }
            b.store(0, Relaxed);
        });
        // Neighbours of the set leave.
        edges += (0..n as u32)
            .into_par_iter()
            .with_min_len(1024)
            .map_init(
                || Poll::new(cancel),
                |poll, u| {
                    if poll.stop(1 + out.degree(u) as u64) {
                        return 0;
                    }
                    for &v in out.neighbours(u) {
                        let (su, sv) = (get(u), get(v));
                        if su == IN && sv == UNDECIDED {
                            let _ = status[v as usize].compare_exchange(UNDECIDED, OUT, Relaxed, Relaxed);
                        } else if sv == IN && su == UNDECIDED {
                            let _ = status[u as usize].compare_exchange(UNDECIDED, OUT, Relaxed, Relaxed);
                        }
                    }
                    out.degree(u) as u64
                },
            )
            .sum::<u64>();
        round += 1;
    }
    cancel.check()?;
    Ok(Mis {
        in_set: status.into_iter().map(|s| s.into_inner() == IN).collect(),
        iterations: round as usize,
        edges_processed: edges,
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_method_parses() {
        assert!(diskgraph_engine::options::parses_every_choice::<super::MethodName>(
            &super::METHOD
        ));
    }
}
