//! Random walks with restart: how often `--walks` walks of `--length` steps from `--sources`
//! visit each vertex.
//!
//! The process, which every engine's variant reproduces exactly:
//!
//! - **Sources.** A list of source *slots* (the sources in the given order, repeats allowed; by
//!   default 64 vertices sampled with `--seed`, all of them on a smaller graph, as msbfs's).
//!   The `W` walks are dealt over the slots in order: slot `i` of `|S|` gets `W / |S|` walks,
//!   plus one if `i < W % |S|`.
//! - **Synchronous steps.** At each step `t = 0..=L` every walk is at a vertex; a vertex with
//!   `c` walks at step `t` adds `c` to its visits. For `t < L` each of those walks moves: with
//!   probability `damping`, when its vertex has out-arcs, along one of them chosen uniformly
//!   (arcs as stored: duplicates count with their multiplicity, self-loops included); otherwise
//!   it *restarts* at a source slot chosen uniformly. The visits sum to `W · (L + 1)`.
//! - **Counter-based randomness.** The `k`-th of the `c` walks at `v` at step `t` (`k = 0..c`)
//!   decides from a hash of `(seed, v, t, k)` alone ([`step`]): no random stream is shared, so
//!   the answer does not depend on the thread count, nor on the order vertices are processed
//!   in, and an engine that keeps per-vertex walk counts reproduces it bit for bit. The walk
//!   takes out-arc `k'` of `v`, an index into `v`'s out-list in CSR order (ascending
//!   destination).
//!
//! For `damping < 1`, as `L` grows, `visits / (W · (L + 1))` tends to the personalised
//! PageRank of the restart distribution (uniform over the slots, so a repeated source weighs
//! more) with `alpha = damping`, dangling mass returned to the slots too:
//! `networkx.pagerank(G, alpha=damping, personalization=...)`, the stationary distribution of
//! one walk. A walk regenerates at every restart, and the distribution at step `t` is within
//! `damping^t` of the stationary one in total variation (couple a walk from anywhere with one
//! from the stationary distribution through the same draws: both restart, at the same slot,
//! with probability at least `1 − damping` each step, and go together after), so the average
//! over the `L + 1` steps is within `1 / ((L + 1)(1 − damping))` of it.
//!
//! The memory variant runs each step in parallel over the vertices that hold walks, adding the
//! walks' arrivals into the next step's counts with atomics: sums, the same in any order. The
//! selective variant ([`selective`]) runs on any graph, no layout needed: each step is one round
//! reading the out-lists of the vertices where some walk follows an arc, and each piece of a list
//! sends the walks whose drawn arc falls in it. The shard variant ([`shards`]) carries the walks
//! as counts on the arcs, GraphChi's way. Both make the same calls to [`step`]: their visits are
//! equal bit for bit.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use diskgraph_engine::options::{Default, Engines, OptionKind, OptionSpec};
use diskgraph_engine::{Engine, EngineError, EngineKind, MemoryGraph};
use rayon::prelude::*;
use serde_json::json;

use crate::descriptor::{Algorithm, Needs, On, Outcome, PerVertex, ResultKind, Run, ValueType, Values, Variant};
use crate::options::{SEED, SOURCES_DEFAULT};
use crate::parallel::{atomics, chunk_len};
use crate::stop::Poll;
use crate::AlgoError;
use diskgraph_engine::selective::SelectiveGraph;
use diskgraph_engine::shards::ShardGraph;

pub mod selective;
pub mod shards;
pub(crate) mod verify;

/// `--sources` of randomwalk: any number of slots.
pub const SOURCES: OptionSpec = OptionSpec {
    name: "sources",
    // The bound only makes a sampled count larger than the graph take every vertex, as
    // msbfs's does: internal IDs are `u32`, so no graph has more vertices.
    kind: OptionKind::Sources {
        max: Some(u32::MAX as usize),
    },
    default: Default::Sample(SOURCES_DEFAULT),
    help: "the walks' source slots: a count K (K distinct vertices sampled with --seed, every vertex when the graph has fewer) or original IDs a,b,c in order, repeats allowed (a single one as a,)",
    engines: Engines::All,
    examples: &[],
};

/// `--walks`.
pub const WALKS: OptionSpec = OptionSpec {
    name: "walks",
    kind: OptionKind::POSITIVE,
    default: Default::Count(10_000),
    help: "number of walks, dealt over the source slots in order",
    engines: Engines::All,
    examples: &["4000", "1"],
};

/// `--length`.
pub const LENGTH: OptionSpec = OptionSpec {
    name: "length",
    kind: OptionKind::Count {
        min: 0,
        max: u32::MAX as u64,
    },
    default: Default::Count(20),
    help: "steps each walk takes (it visits length + 1 vertices, its start included)",
    engines: Engines::All,
    examples: &["0", "60"],
};

/// `--damping`.
pub const DAMPING: OptionSpec = OptionSpec {
    name: "damping",
    // [0, 1], both ends included, which the kind cannot say: checked by the run.
    kind: OptionKind::Float {
        above: f64::NEG_INFINITY,
        below: f64::INFINITY,
    },
    default: Default::Float(0.85),
    help: "probability, in [0, 1], that a walk at a vertex with out-arcs follows one rather than restarting at a source slot",
    engines: Engines::All,
    examples: &["0.5", "1", "0"],
};

/// Random walks with restart.
pub const RANDOMWALK: Algorithm = Algorithm {
    name: "randomwalk",
    help: "visit counts of --walks random walks of --length steps from --sources, restarting with probability 1 - --damping",
    options: &[&SOURCES, &WALKS, &LENGTH, &DAMPING, &SEED],
    cluster: None,
    result: ResultKind {
        values: ValueType::Unsigned,
        name: "visits",
        help: "how many times the walks were at each vertex, at steps 0 to length (they sum to walks × (length + 1)); over walks × (length + 1), personalised PageRank as length grows",
    },
    variants: &[
        Variant {
            needs: Needs::NONE,
            run: &On::<MemoryGraph>(|g, run| Ok(present(settings(run).run(g, run.sources())?, run))),
        },
        Variant {
            needs: Needs::NONE,
            run: &On::<SelectiveGraph>(|g, run| Ok(present(selective::randomwalk(g, &settings(run), run.sources())?, run))),
        },
        Variant {
            needs: Needs::NONE,
            run: &On::<ShardGraph>(|g, run| Ok(present(shards::randomwalk(g, &settings(run), run.sources())?, run))),
        },
    ],
    verify: verify::verify,
    memory: |_, engine, _| match engine {
        // The visits and the walks at this step and the next (u64 each), the visits becoming
        // the result in place; part 1 of a step adds the vertices holding walks, those to read
        // and those a restart reached first (u32 each) and the kept arcs (8 at most). Those
        // lists have an entry per vertex at most but also one per walk or source slot at most,
        // which the figure, per vertex, cannot scale by: taken at n, as with walks and slots
        // beyond n (with the defaults, 10,000 walks and 64 slots, on a large graph they are a
        // few hundred kilobytes and the run holds 24 a vertex). The verifier: the result, the
        // walks dealt to each vertex and its in-neighbours' visits (u64 each) and a bitmap of
        // the sources.
        EngineKind::Selective => PerVertex {
            run: 44.0,
            verify: 24.125,
        },
        _ => PerVertex::BOUND,
    },
};

/// The settings a run's options give.
fn settings(run: &Run) -> RandomWalk {
    let p = run.params;
    RandomWalk {
        walks: p.value::<u64>(&WALKS),
        length: p.value::<u64>(&LENGTH) as u32,
        damping: p.value::<f64>(&DAMPING),
        seed: p.value::<u64>(&SEED),
    }
}

/// The visits, the walks and the most visited vertex.
fn present(r: RandomWalkResult, run: &Run) -> Outcome {
    let p = run.params;
    let walks = p.value::<u64>(&WALKS);
    let length = p.value::<u64>(&LENGTH);
    let total: u64 = r.visits.iter().sum();
    // Ties go to the smallest original ID, so every ordering of a graph names the same vertex.
    let top = (0..r.visits.len() as u32).max_by_key(|&v| (r.visits[v as usize], std::cmp::Reverse(run.id(v))));
    let top = match top {
        Some(v) => format!("{} ({} visits)", run.label(v), r.visits[v as usize]),
        None => "none".into(),
    };
    let ids: Vec<u64> = r.sources.iter().map(|&s| run.id(s)).collect();
    let summary = format!(
        "{walks} walks of length {length} from {} source slots: {total} visits; most visited: {top}",
        ids.len()
    );
    Outcome::new(Values::Unsigned(r.visits), summary)
        .iterations(length)
        .edges(r.moves)
        .setting("sources", json!(ids))
        .setting("seed", json!(p.count(&SEED)))
        .setting("walks", json!(walks))
        .setting("length", json!(length))
        .setting("damping", json!(p.float(&DAMPING)))
}

/// Random-walk settings; [`run`](RandomWalk::run) walks them on a graph.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RandomWalk {
    /// Number of walks, dealt over the source slots in order.
    pub walks: u64,
    /// Steps each walk takes.
    pub length: u32,
    /// Probability, in `[0, 1]`, that a walk at a vertex with out-arcs follows one.
    pub damping: f64,
    /// Seed of every draw.
    pub seed: u64,
}

/// The result of [`RandomWalk::run`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RandomWalkResult {
    /// The source slots, in order.
    pub sources: Vec<u32>,
    /// Visits of every vertex over steps `0..=length`; they sum to `walks · (length + 1)`.
    pub visits: Vec<u64>,
    /// Steps taken along an arc (the others restarted).
    pub moves: u64,
}

/// The parameters of the walks' moves: what [`step`] needs besides the vertex.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Walk {
    /// Seed of every draw.
    pub(crate) seed: u64,
    /// Probability that a walk at a vertex with out-arcs follows one.
    pub(crate) damping: f64,
    /// Number of source slots a walk restarts at.
    pub(crate) slots: usize,
}

impl Walk {
    /// The moves of `settings` with `slots` source slots.
    ///
    /// Errors: [`AlgoError::InvalidSetting`] for no slot or a damping outside `[0, 1]`.
    pub(crate) fn new(settings: &RandomWalk, slots: usize) -> Result<Walk, AlgoError> {
        if slots == 0 {
            return Err(AlgoError::InvalidSetting("randomwalk takes at least one source".into()));
        }
        if !(0.0..=1.0).contains(&settings.damping) {
            return Err(AlgoError::InvalidSetting(format!(
                "damping must be in [0, 1], got {}",
                settings.damping
            )));
        }
        Ok(Walk {
            seed: settings.seed,
            damping: settings.damping,
            slots,
        })
    }

    /// The walks dealt to source slot `slot` of `walks`: `walks / slots`, plus one for the first
    /// `walks % slots` slots.
    pub(crate) fn dealt(&self, walks: u64, slot: usize) -> u64 {
        let slots = self.slots as u64;
        walks / slots + u64::from((slot as u64) < walks % slots)
    }
}

/// Every variant's state at step 0: no visits, the walks dealt to each source slot at its
/// vertex, and the vertices holding walks.
pub(crate) struct Start {
    /// Visits of each vertex, none yet.
    pub(crate) visits: Vec<AtomicU64>,
    /// Walks at each vertex at this step: the dealt ones.
    pub(crate) now: Vec<AtomicU64>,
    /// Walks at each vertex at the next step, none yet.
    pub(crate) next: Vec<AtomicU64>,
    /// The vertices holding walks, ascending.
    pub(crate) active: Vec<u32>,
}

impl Start {
    /// The start of `walks` walks of `walk` from the source slots `sources` on `n` vertices.
    pub(crate) fn of(walk: &Walk, walks: u64, sources: &[u32], n: usize) -> Start {
        let now = atomics(n, 0);
        for (slot, &s) in sources.iter().enumerate() {
            now[s as usize].fetch_add(walk.dealt(walks, slot), Relaxed);
        }
        let mut active: Vec<u32> = sources.to_vec();
        active.sort_unstable();
        active.dedup();
        Start {
            visits: atomics(n, 0),
            now,
            next: atomics(n, 0),
            active,
        }
    }
}

/// Moves the `count` walks at `v` at step `t`: calls `to_arc(k)` for a walk taking `v`'s `k`-th
/// out-arc in CSR order (`k < out_degree`) and `restart(slot)` for a walk restarting at source
/// slot `slot` (`slot < walk.slots`), once per walk, walk `0` first; stops early when `poll`
/// says so (its caller checks the stop request): a vertex may hold millions of walks.
///
/// Walk `k` follows an arc when `out_degree > 0` and its first draw, a uniform `[0, 1)` number
/// from a hash of `(seed, v, t, k)`, is below the damping; the second draw (the first hashed
/// once more) picks the arc or the slot, by a 64×64-bit multiply (uniform up to a bias below
/// `n / 2⁶⁴`).
pub(crate) fn step(
    walk: &Walk,
    v: u32,
    t: u32,
    (count, out_degree): (u64, u64),
    poll: &mut Poll<'_>,
    mut to_arc: impl FnMut(u64),
    mut restart: impl FnMut(usize),
) {
    let at = mix(mix(walk.seed) ^ ((u64::from(v) << 32) | u64::from(t)));
    for k in 0..count {
        if poll.stop(1) {
            return;
        }
        let first = mix(at ^ k);
        let second = mix(first);
        // The top 53 bits as a float in [0, 1): damping 1 always follows, 0 never.
        let follow = out_degree > 0 && ((first >> 11) as f64) * (1.0 / (1u64 << 53) as f64) < walk.damping;
        if follow {
            to_arc(below(second, out_degree));
        } else {
            restart(below(second, walk.slots as u64) as usize);
        }
    }
}

/// splitmix64's output function (Stafford's Mix13) after its golden-ratio increment: a
/// bijection of `u64` whose outputs pass for independent uniform draws.
#[inline]
fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A uniform draw `h` scaled to `0..n`.
#[inline]
fn below(h: u64, n: u64) -> u64 {
    ((u128::from(h) * u128::from(n)) >> 64) as u64
}

impl RandomWalk {
    /// Walks from the source slots `sources` (internal IDs, in order, repeats allowed) on `g`.
    ///
    /// Errors: [`AlgoError::InvalidSetting`] for no source or a damping outside `[0, 1]`;
    /// [`EngineError::InvalidVertex`] for a source that is not a vertex.
    pub fn run(&self, g: &MemoryGraph, sources: &[u32]) -> Result<RandomWalkResult, AlgoError> {
        let walk = Walk::new(self, sources.len())?;
        let n = g.num_vertices();
        if let Some(&s) = sources.iter().find(|&&s| s as usize >= n) {
            return Err(EngineError::InvalidVertex {
                vertex: s,
                num_vertices: n,
            }
            .into());
        }
        let out = g.out();
        let cancel = g.cancel();
        let Start {
            visits,
            mut now,
            mut next,
            mut active,
        } = Start::of(&walk, self.walks, sources, n);
        let mut moves = 0;
        for t in 0..=self.length {
            cancel.check()?;
            let last = t == self.length;
            // Each chunk: the vertices its walks arrived at first (each vertex once over all
            // chunks: the arrival that found its count zero) and its moves along arcs.
            let parts: Vec<(Vec<u32>, u64)> = active
                .par_chunks(chunk_len(active.len(), 256))
                .map(|chunk| {
                    let mut touched = Vec::new();
                    let mut restarted = Vec::new();
                    let mut moved = 0u64;
                    let mut poll = Poll::new(&cancel);
                    for &v in chunk {
                        if poll.stop(1) {
                            break;
                        }
                        let count = now[v as usize].swap(0, Relaxed);
                        visits[v as usize].fetch_add(count, Relaxed);
                        if last || count == 0 {
                            continue;
                        }
                        let nbrs = out.neighbours(v);
                        let arrive = |w: u32, first: &mut Vec<u32>| {
                            if next[w as usize].fetch_add(1, Relaxed) == 0 {
                                first.push(w);
                            }
                        };
                        step(
                            &walk,
                            v,
                            t,
                            (count, nbrs.len() as u64),
                            &mut poll,
                            |k| {
                                moved += 1;
                                arrive(nbrs[k as usize], &mut touched);
                            },
                            |slot| arrive(sources[slot], &mut restarted),
                        );
                    }
                    touched.append(&mut restarted);
                    (touched, moved)
                })
                .collect();
            cancel.check()?;
            moves += parts.iter().map(|p| p.1).sum::<u64>();
            active = parts.into_iter().flat_map(|p| p.0).collect();
            active.par_sort_unstable();
            std::mem::swap(&mut now, &mut next);
        }
        Ok(RandomWalkResult {
            sources: sources.to_vec(),
            // Converted in place: an atomic has its integer's layout.
            visits: visits.into_iter().map(AtomicU64::into_inner).collect(),
            moves,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use diskgraph_engine::Cancel;

    #[test]
    fn walks_are_dealt_in_slot_order() {
        let walk = Walk {
            seed: 1,
            damping: 0.85,
            slots: 3,
        };
        let dealt: Vec<u64> = (0..3).map(|i| walk.dealt(7, i)).collect();
        assert_eq!(dealt, [3, 2, 2]);
        let dealt: Vec<u64> = (0..3).map(|i| walk.dealt(2, i)).collect();
        assert_eq!(dealt, [1, 1, 0]);
    }

    #[test]
    fn steps_follow_the_damping_and_draw_every_arc_and_slot() {
        let calls = |damping: f64, out_degree: u64| {
            let walk = Walk {
                seed: 9,
                damping,
                slots: 4,
            };
            let (mut arcs, mut slots) = (vec![0u64; out_degree as usize], [0u64; 4]);
            step(
                &walk,
                5,
                2,
                (40_000, out_degree),
                &mut Poll::new(&Cancel::new()),
                |k| arcs[k as usize] += 1,
                |s| slots[s] += 1,
            );
            (arcs, slots)
        };
        let (arcs, slots) = calls(1.0, 3);
        assert_eq!(slots, [0; 4], "damping 1 never restarts at a vertex with out-arcs");
        assert!(arcs.iter().all(|&a| (12_800..14_000).contains(&a)), "{arcs:?}");
        let (arcs, slots) = calls(0.0, 3);
        assert_eq!(arcs, [0; 3], "damping 0 always restarts");
        assert!(slots.iter().all(|&s| (9_500..10_500).contains(&s)), "{slots:?}");
        let (_, slots) = calls(1.0, 0);
        assert_eq!(
            slots.iter().sum::<u64>(),
            40_000,
            "a dangling vertex restarts every walk"
        );
        let (arcs, _) = calls(0.75, 2);
        let followed = arcs.iter().sum::<u64>();
        assert!(
            (29_500..30_500).contains(&followed),
            "{followed} of 40000 at damping 0.75"
        );
    }
}
