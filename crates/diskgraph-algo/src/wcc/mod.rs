//! Weakly connected components: Afforest.
//!
//! The method is Sutton, Ben-Nun and Barak's Afforest ("Optimizing Parallel Graph Connectivity
//! Computation via Subgraph Sampling", IPDPS 2018), as in GAPBS's `cc.cc`. Every vertex starts
//! as its own tree in a parent array; `link` hooks the larger of two roots under the smaller
//! with a compare-and-swap, so parents only ever decrease and each tree's root is its smallest
//! vertex. The phases, all parallel over vertices:
//!
//! 1. link every vertex to its first `NEIGHBOUR_ROUNDS` (2) out-neighbours, then compress (every
//!    vertex points straight at its root);
//! 2. sample `SAMPLES` vertices to guess the giant component `c`;
//! 3. link the remaining edges, skipping vertices already in `c`: for a directed graph a skipped
//!    vertex's edges are covered by the other endpoint's in-edges, so the skip needs the in-CSR;
//!    without it every vertex links all its out-edges;
//! 4. compress again: every label is its component's smallest vertex.
//!
//! Direction is ignored (weak connectivity), so out-edges alone would do; in-edges only let the
//! giant component be skipped.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

use diskgraph_engine::options::{Choice, Default, Engines, OptionKind, OptionSpec};
use diskgraph_engine::{Cancel, Engine, EngineKind, MemoryGraph};
use rayon::prelude::*;
use serde_json::json;

use crate::descriptor::{Algorithm, Needs, On, Outcome, PerVertex, ResultKind, Run, ValueType, Values, Variant};
use crate::stop::Poll;
use crate::AlgoError;
use diskgraph_engine::selective::SelectiveGraph;
use diskgraph_engine::shards::ShardGraph;
use diskgraph_engine::stream::StreamGraph;
use diskgraph_engine::sync::SyncGraph;

pub mod selective;
pub mod shards;
pub mod stream;
pub mod sync;
pub(crate) mod verify;

/// `--method` of wcc on the stream engine.
pub const METHOD: OptionSpec = OptionSpec {
    name: "method",
    kind: OptionKind::Choice(&[
        Choice::new(
            "union-find",
            "one union-find pass over the edges, beyond the neighbourhood",
        ),
        Choice::new(
            "label-propagation",
            "labels propagated until no vertex changes (the baseline)",
        ),
    ]),
    default: Default::Choice("union-find"),
    help: "the stream engine's method: union-find (one pass) or label-propagation (the baseline)",
    engines: Engines::Only(&[EngineKind::Stream]),
    examples: &[],
};

/// wcc's method on the stream engine (`--method`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StreamMethod {
    /// One union-find pass over the edges.
    UnionFind,
    /// Labels propagated until no vertex changes.
    LabelPropagation,
}

impl std::str::FromStr for StreamMethod {
    type Err = String;

    /// Parses `union-find` or `label-propagation`.
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "union-find" => Ok(StreamMethod::UnionFind),
            "label-propagation" => Ok(StreamMethod::LabelPropagation),
            _ => Err(format!(
                "unknown wcc method {s:?} (use union-find or label-propagation)"
            )),
        }
    }
}

/// Weakly connected components.
pub const WCC: Algorithm = Algorithm {
    name: "wcc",
    help: "weakly connected components, labelled by their smallest vertex ID",
    options: &[&METHOD],
    cluster: Some(crate::cluster::ClusterScheme::JoinedComponents),
    result: ResultKind {
        values: ValueType::Unsigned,
        name: "component",
        help: "the component of each vertex, named by the smallest original ID in it",
    },
    variants: &[
        Variant {
            needs: Needs::NONE,
            run: &On::<MemoryGraph>(|g, run| Ok(present(wcc(g)?, run).edges(g.out().num_arcs() as u64))),
        },
        Variant {
            needs: Needs::IN_EDGES,
            run: &On::<SelectiveGraph>(|g, run| Ok(present_in_place(selective::label_words(g)?, run))),
        },
        Variant {
            needs: Needs::NONE,
            run: &On::<StreamGraph>(|g, run| {
                let c = match run.params.choice_value(&METHOD) {
                    StreamMethod::LabelPropagation => stream::wcc_label_propagation(g)?,
                    StreamMethod::UnionFind => stream::wcc_union_find(g)?,
                };
                Ok(present(c, run))
            }),
        },
        Variant {
            needs: Needs::IN_EDGES,
            run: &On::<SyncGraph>(|g, run| Ok(present(sync::wcc(g)?, run))),
        },
        Variant {
            needs: Needs::NONE,
            run: &On::<ShardGraph>(|g, run| Ok(present(shards::wcc(g)?, run))),
        },
    ],
    verify: verify::verify,
    memory: |_, engine, _| PerVertex {
        run: match engine {
            // The levels of the giant component's search, turned into the labels and then the
            // result in place (8 bytes each). A reordered graph's labels go through `present`
            // (20 at most), within its output's 36.
            EngineKind::Selective => 8.0,
            // Two u32 label arrays while running, then the labels (u32), the smallest vertex
            // of each (u32) and the u64 result.
            _ => 16.0,
        },
        // The verifier's union-find forest (u32) beside the result; on a reordered graph also
        // each vertex's label vertex and each root's label (u32 each): 20, within its output's
        // 36.
        verify: 12.0,
    },
};

/// [`present`] for labels in the selective search's words. When the IDs ascend with the
/// vertices, the words become the result in place and nothing is held beside them: each
/// component's size is counted in the high half of its label vertex's word (a label and a size
/// are each below 2³²). Otherwise the labels go through [`present`].
pub(crate) fn present_in_place(found: selective::LabelWords, run: &Run) -> Outcome {
    const LABEL: u64 = u32::MAX as u64;
    let vertices = run.vertices;
    let words = found.words;
    if !vertices.ascending() {
        let labels = words.into_par_iter().map(|w| w.into_inner() as u32).collect();
        let c = Components {
            labels,
            iterations: found.iterations,
        };
        return present(c, run);
    }
    words.par_iter().for_each(|w| {
        words[(w.load(Relaxed) & LABEL) as usize].fetch_add(1 << 32, Relaxed);
    });
    // The number of label vertices, and the largest size with the smallest label among equals.
    let (count, (largest, _)) = words
        .par_iter()
        .enumerate()
        .filter_map(|(v, w)| {
            let w = w.load(Relaxed);
            (w & LABEL == v as u64).then_some((1usize, (w >> 32, std::cmp::Reverse(v))))
        })
        .reduce(|| (0, (0, std::cmp::Reverse(0))), |a, b| (a.0 + b.0, a.1.max(b.1)));
    // Sequential, so that the words' allocation becomes the result's.
    let labels: Vec<u64> = words
        .into_iter()
        .map(|w| vertices.id((w.into_inner() & LABEL) as u32))
        .collect();
    outcome(labels, count, largest, found.iterations)
}

/// Components labelled by the smallest original ID of each, their number and the largest.
///
/// Besides the labels it is given (4 bytes a vertex) and those it returns (8), it holds at most
/// 8 bytes a vertex at a time: the component sizes (4), then each component's smallest vertex
/// (4) — whose ID is the smallest when the IDs ascend with the vertices — or else its smallest
/// ID (8).
pub(crate) fn present(c: Components, run: &Run) -> Outcome {
    let vertices = run.vertices;
    let largest = c.largest().map_or(0, |(_, size)| size);
    let count = c.count();
    let labels: Vec<u64> = if vertices.ascending() {
        // A label is its component's smallest vertex, so its ID is the smallest ID.
        c.labels.par_iter().map(|&l| vertices.id(l)).collect()
    } else {
        let ids = vertices.ids();
        let mut smallest = vec![u64::MAX; ids.len()];
        for (v, &l) in c.labels.iter().enumerate() {
            let s = &mut smallest[l as usize];
            *s = (*s).min(ids[v]);
        }
        c.labels.par_iter().map(|&l| smallest[l as usize]).collect()
    };
    outcome(labels, count, largest, c.iterations)
}

/// The outcome of labels by original ID, with their `count` and the `largest` component's size.
fn outcome(labels: Vec<u64>, count: usize, largest: u64, iterations: usize) -> Outcome {
    let summary = format!("{count} components, largest has {largest} vertices");
    Outcome::new(Values::Unsigned(labels), summary)
        .iterations(iterations as u64)
        .vertex_valued()
        .setting("components", json!(count))
        .setting("largest", json!(largest))
}

/// Out-neighbours linked per vertex before sampling.
const NEIGHBOUR_ROUNDS: usize = 2;
/// Vertices sampled to find the giant component.
const SAMPLES: usize = 1024;

/// A partition of the vertices into components, as returned by [`wcc`] and
/// [`scc`](crate::scc()).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Components {
    /// Component of each vertex, named by its smallest vertex ID.
    pub labels: Vec<u32>,
    /// Passes the algorithm made: linking passes over the edges (memory wcc), traversal levels
    /// plus label-propagation rounds (selective wcc), forward and backward levels plus the
    /// Tarjan pass (scc), trim, traversal and colouring rounds (selective scc).
    pub iterations: usize,
}

impl Components {
    /// Number of components.
    pub fn count(&self) -> usize {
        self.labels
            .par_iter()
            .enumerate()
            .filter(|&(v, &l)| v as u32 == l)
            .count()
    }

    /// `(label, size)` of every component, by ascending label.
    pub fn sizes(&self) -> Vec<(u32, u64)> {
        let mut size = vec![0u64; self.labels.len()];
        for &l in &self.labels {
            size[l as usize] += 1;
        }
        size.into_iter()
            .enumerate()
            .filter(|&(_, s)| s > 0)
            .map(|(l, s)| (l as u32, s))
            .collect()
    }

    /// `(label, size)` of the largest component (the smallest label among equals); `None` for
    /// an empty graph. Counts in 4 bytes a vertex (a component has fewer than 2³² vertices).
    pub fn largest(&self) -> Option<(u32, u64)> {
        let mut size = vec![0u32; self.labels.len()];
        for &l in &self.labels {
            size[l as usize] += 1;
        }
        size.into_iter()
            .enumerate()
            .filter(|&(_, s)| s > 0)
            .min_by_key(|&(l, s)| (std::cmp::Reverse(s), l))
            .map(|(l, s)| (l as u32, u64::from(s)))
    }
}

/// Weakly connected components (edge direction ignored; self-loops and duplicates harmless).
///
/// Errors: [`EngineError::Cancelled`](diskgraph_engine::EngineError::Cancelled) once the run is
/// asked to stop (polled every pass and within passes).
pub fn wcc(g: &MemoryGraph) -> Result<Components, AlgoError> {
    let n = g.num_vertices();
    let out = g.out();
    let cancel = g.cancel();
    let comp: Vec<AtomicU32> = (0..n as u32).into_par_iter().map(AtomicU32::new).collect();
    let min_len = 1024;
    // 1. Link a few neighbours of every vertex.
    for r in 0..NEIGHBOUR_ROUNDS {
        (0..n as u32).into_par_iter().with_min_len(min_len).for_each_init(
            || Poll::new(&cancel),
            |poll, v| {
                if poll.stop(1) {
                    return;
                }
                if let Some(&u) = out.neighbours(v).get(r) {
                    link(v, u, &comp);
                }
            },
        );
        compress(&comp, &cancel)?;
    }
    // 2. Guess the giant component. Skipping it needs the in-edges of a directed graph.
    let pull = if g.directed() { g.in_edges() } else { None };
    let giant = if !g.directed() || pull.is_some() {
        sample_frequent(&comp)
    } else {
        None
    };
    // 3. Link the rest.
    (0..n as u32).into_par_iter().with_min_len(min_len).for_each_init(
        || Poll::new(&cancel),
        |poll, v| {
            let pulled = pull.filter(|_| giant.is_some()).map_or(0, |p| p.degree(v));
            if poll.stop(1 + (out.degree(v) + pulled) as u64) {
                return;
            }
            if giant.is_some_and(|c| comp[v as usize].load(Relaxed) == c) {
                return;
            }
            for &u in out.neighbours(v).iter().skip(NEIGHBOUR_ROUNDS) {
                link(v, u, &comp);
            }
            if let (Some(pull), Some(_)) = (pull, giant) {
                for &u in pull.neighbours(v) {
                    link(v, u, &comp);
                }
            }
        },
    );
    // 4. Flatten.
    compress(&comp, &cancel)?;
    Ok(Components {
        labels: comp.into_par_iter().map(AtomicU32::into_inner).collect(),
        iterations: NEIGHBOUR_ROUNDS + 1,
    })
}

/// Puts `u` and `v` in the same tree, hooking the larger root under the smaller.
pub(crate) fn link(u: u32, v: u32, comp: &[AtomicU32]) {
    let get = |x: u32| comp[x as usize].load(Relaxed);
    let (mut p1, mut p2) = (get(u), get(v));
    while p1 != p2 {
        let (high, low) = if p1 > p2 { (p1, p2) } else { (p2, p1) };
        let p_high = get(high);
        // Done when `high` already points at `low`, or when we hook the root `high` under it.
        if p_high == low
            || (p_high == high
                && comp[high as usize]
                    .compare_exchange(high, low, Relaxed, Relaxed)
                    .is_ok())
        {
            break;
        }
        p1 = get(get(high));
        p2 = get(low);
    }
}

/// Points every vertex straight at its root, polling `cancel` as it goes.
///
/// Errors: [`EngineError::Cancelled`](diskgraph_engine::EngineError::Cancelled) once `cancel` is
/// set (the forest is then left half flattened).
pub(crate) fn compress(comp: &[AtomicU32], cancel: &Cancel) -> Result<(), AlgoError> {
    comp.par_iter().with_min_len(1024).for_each_init(
        || Poll::new(cancel),
        |poll, c| {
            if poll.stop(1) {
                return;
            }
            let mut x = c.load(Relaxed);
            loop {
                let up = comp[x as usize].load(Relaxed);
                if up == x {
                    break;
                }
                x = up;
            }
            c.store(x, Relaxed);
        },
    );
    Ok(cancel.check()?)
}

/// The most frequent label among `SAMPLES` pseudo-random vertices (fixed seed).
fn sample_frequent(comp: &[AtomicU32]) -> Option<u32> {
    if comp.is_empty() {
        return None;
    }
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut counts: HashMap<u32, usize> = HashMap::new();
    for _ in 0..SAMPLES {
        // xorshift64*
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        let r = state.wrapping_mul(0x2545_F491_4F6C_DD1D);
        let v = (r % comp.len() as u64) as usize;
        *counts.entry(comp[v].load(Relaxed)).or_default() += 1;
    }
    counts
        .into_iter()
        .max_by_key(|&(l, c)| (c, std::cmp::Reverse(l)))
        .map(|(l, _)| l)
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_choice_parses() {
        assert!(diskgraph_engine::options::parses_every_choice::<super::StreamMethod>(
            &super::METHOD
        ));
    }
}
