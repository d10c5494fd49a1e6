//! Triangle counting on the simple undirected view: for every vertex, the number of triangles
//! containing it, and the total (NetworkX's `triangles` of the simple undirected graph).
//!
//! Direction is ignored, duplicate edges and the two directions of an edge count once, and
//! self-loops are dropped: the simple view, as for [`kcore`](mod@crate::kcore). A vertex's simple
//! neighbours come from merging its sorted out-list with its sorted in-list (directed graphs),
//! skipping repeats and the vertex itself (`simple_neighbours`).
//!
//! The method is the standard one (Schank and Wagner's "forward" algorithm, as in GAP's `tc`):
//! vertices are ranked by (simple degree, ID) (`precedes`), each simple edge is oriented from
//! its lower-ranked end to its higher-ranked one, and a triangle `a < b < c` (in rank) is found
//! exactly once, at `a`, as `c` in the intersection of the sorted oriented lists of `a` and `b`
//! (`for_each_common`). Orienting by degree bounds every oriented list by `√(2E)` (a vertex
//! with `k` later neighbours has `k` neighbours of degree at least `k`), so hubs do not make
//! quadratic work. Each triangle found adds 1 to each of its three vertices.
//!
//! The memory variant builds the oriented lists as a CSR beside the graph's: 4 bytes per simple
//! edge and 8 per vertex, about half the out-CSR again on an undirected graph. The memory engine
//! reports only the CSR it loaded as `peak_engine_memory` (and `auto` picks it when that CSR
//! fits in the budget), so this extra is not in either figure; the run's settings record it as
//! `oriented_bytes`. The selective variant ([`selective`]) keeps the oriented lists of a chunk
//! of vertices at a time within its budget, and so does the shard variant ([`shards`]),
//! GraphChi's way, in what the shard engine leaves of the budget.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use diskgraph_engine::engine_options;
use diskgraph_engine::{Engine, EngineKind, MemoryGraph};
use rayon::prelude::*;
use serde_json::json;

use crate::descriptor::{Algorithm, Needs, On, Outcome, PerVertex, ResultKind, Run, ValueType, Values, Variant};
use crate::kcore::simple_neighbours;
use crate::parallel::atomics;
use crate::stop::Poll;
use crate::AlgoError;
use diskgraph_engine::selective::SelectiveGraph;
use diskgraph_engine::shards::ShardGraph;

pub mod selective;
pub mod shards;
pub(crate) mod verify;

/// Triangle counting.
pub const TRIANGLES: Algorithm = Algorithm {
    name: "triangles",
    help: "triangles through every vertex and their total, on the undirected simple view",
    options: &[],
    cluster: None,
    result: ResultKind {
        values: ValueType::Unsigned,
        name: "triangles",
        help: "the number of triangles containing each vertex (directions, self-loops and parallel edges ignored)",
    },
    variants: &[
        Variant {
            needs: Needs::IN_EDGES,
            run: &On::<MemoryGraph>(|g, run| Ok(present(triangles(g)?, run))),
        },
        Variant {
            needs: Needs {
                in_edges: true,
                whole_lists: true,
                ..Needs::NONE
            },
            run: &On::<SelectiveGraph>(|g, run| Ok(present(selective::triangles(g)?, run))),
        },
        Variant {
            needs: Needs {
                whole_lists: true,
                ..Needs::NONE
            },
            run: &On::<ShardGraph>(|g, run| {
                Ok(present(shards::triangles(g, engine_options::memory(run.params))?, run))
            }),
        },
    ],
    verify: verify::verify,
    memory: |_, engine, _| match engine {
        // The simple degrees and the chunks' slot sizes (u32 each) and the counts (u64 in
        // atomics, which become the result in place once the others are dropped); bitmaps of
        // every vertex, of a chunk's members and of its lower-ranked neighbours (the builder's
        // bitmap and list of at most n / 20 u32, and its bitmap taken in two more: 0.9 in all at
        // most). The chunks' oriented lists are held in the engine's share of the budget. The
        // verifier: the result and the sampled neighbours of each vertex (a u64 of bits).
        EngineKind::Selective => PerVertex {
            run: 16.9,
            verify: 16.0,
        },
        _ => PerVertex::BOUND,
    },
};

/// The counts, the total and the vertex in most triangles (the smallest original ID among
/// equals).
fn present(t: Triangles, run: &Run) -> Outcome {
    // By `run.id`: a graph that names each vertex by itself makes no array of IDs for it.
    let most = (0..t.per_vertex.len())
        .into_par_iter()
        .max_by_key(|&v| (t.per_vertex[v], std::cmp::Reverse(run.id(v as u32))));
    let summary = match most {
        Some(v) if t.total > 0 => format!(
            "{} triangles; most through vertex {} ({})",
            t.total,
            run.label(v as u32),
            t.per_vertex[v]
        ),
        _ => format!("{} triangles", t.total),
    };
    let mut outcome = Outcome::new(Values::Unsigned(t.per_vertex), summary)
        .iterations(t.chunks)
        .setting("triangles", json!(t.total))
        .setting("chunks", json!(t.chunks))
        .setting("oriented_bytes", json!(t.oriented_bytes));
    if let Some(edges) = t.edges_processed {
        outcome = outcome.edges(edges);
    }
    outcome
}

/// The result of [`triangles`] (and of the selective variant).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Triangles {
    /// The number of triangles containing each vertex.
    pub per_vertex: Vec<u64>,
    /// The number of triangles (the sum of `per_vertex` over 3).
    pub total: u64,
    /// Chunks of vertices whose oriented lists were held at once (1 in memory).
    pub chunks: u64,
    /// Bytes of the largest set of oriented lists held at once, with their index.
    pub oriented_bytes: u64,
    /// Arcs read, when the variant counts them (else the engine's count stands).
    pub edges_processed: Option<u64>,
}

/// Whether `a` comes before `b` in the rank order of the orientation: by simple degree
/// (`degree`, indexed by vertex), then by ID.
#[inline]
pub(crate) fn precedes(degree: &[u32], a: u32, b: u32) -> bool {
    (degree[a as usize], a) < (degree[b as usize], b)
}

/// Calls `f` on every simple neighbour of `v` that `v` precedes (`precedes`), ascending by
/// ID — `v`'s oriented list — given `v`'s sorted out-list `out` and sorted in-list `inn` (empty
/// for an undirected graph).
#[inline]
pub(crate) fn oriented_neighbours(v: u32, out: &[u32], inn: &[u32], degree: &[u32], mut f: impl FnMut(u32)) {
    simple_neighbours(v, out, inn, |u| {
        if precedes(degree, v, u) {
            f(u);
        }
    });
}

/// Calls `f` on every value in both `a` and `b` (each ascending, without repeats), ascending,
/// by merging them; returns how many there were.
#[inline]
pub(crate) fn for_each_common(a: &[u32], b: &[u32], mut f: impl FnMut(u32)) -> u64 {
    let (mut i, mut j, mut found) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i], b[j]);
        if x <= y {
            i += 1;
        }
        if y <= x {
            j += 1;
        }
        if x == y {
            f(x);
            found += 1;
        }
    }
    found
}

/// Adds the triangles whose *middle* vertex (in rank) is `b` and whose lowest is `a` — one for
/// every `c` common to `a`'s oriented list `up_a` and `b`'s `up_b` — to the counts of `b` and
/// of each `c`; returns how many, for the caller to add to `a`'s count.
#[inline]
pub(crate) fn count_at(count: &[AtomicU64], b: u32, up_a: &[u32], up_b: &[u32]) -> u64 {
    let found = for_each_common(up_a, up_b, |c| {
        count[c as usize].fetch_add(1, Relaxed);
    });
    if found > 0 {
        count[b as usize].fetch_add(found, Relaxed);
    }
    found
}

/// Vertices per task when oriented lists are built in parallel.
const BUILD_BLOCK: usize = 4096;

/// A count at vertex `v` from its out-list and in-list.
type VertexCount<'a> = dyn Fn(u32, &[u32], &[u32]) -> u64 + Sync + 'a;

/// Triangle counts on the simple undirected view of `g` (see the module doc). A directed graph
/// must be loaded with its in-edges.
///
/// Errors: [`EngineError::Cancelled`](diskgraph_engine::EngineError::Cancelled) once the run is
/// asked to stop (polled in every pass, per [`POLL_WORK`](crate::POLL_WORK) of its work).
///
/// # Panics
/// If `g` is directed and was loaded without in-edges.
pub fn triangles(g: &MemoryGraph) -> Result<Triangles, AlgoError> {
    let n = g.num_vertices();
    let out = g.out();
    let cancel = g.cancel();
    let inn = g.directed().then(|| g.inn());
    let lists = |v: u32| (out.neighbours(v), inn.map_or(&[][..], |i| i.neighbours(v)));
    // A pass computing `f(v, out-list, in-list)` for every vertex, polled; 0 once stopped.
    let per_vertex = |f: &VertexCount| -> Vec<u64> {
        (0..n as u32)
            .into_par_iter()
            .map_init(
                || Poll::new(&cancel),
                |poll, v| {
                    let (a, b) = lists(v);
                    match poll.stop(1 + (a.len() + b.len()) as u64) {
                        true => 0,
                        false => f(v, a, b),
                    }
                },
            )
            .collect()
    };
    let degree: Vec<u32> = per_vertex(&|v, a, b| {
        let mut d = 0;
        simple_neighbours(v, a, b, |_| d += 1);
        d
    })
    .into_par_iter()
    .map(|d| d as u32)
    .collect();
    cancel.check()?;
    // The oriented CSR: lengths, offsets, then the lists, a block of vertices per task.
    let up_degree = per_vertex(&|v, a, b| {
        let mut d = 0;
        oriented_neighbours(v, a, b, &degree, |_| d += 1);
        d
    });
    cancel.check()?;
    let mut offsets = Vec::with_capacity(n + 1);
    offsets.push(0u64);
    for d in &up_degree {
        offsets.push(offsets.last().expect("pushed") + d);
    }
    drop(up_degree);
    let mut targets = vec![0u32; offsets[n] as usize];
    let mut blocks = Vec::with_capacity(n.div_ceil(BUILD_BLOCK));
    let mut rest = &mut targets[..];
    for lo in (0..n).step_by(BUILD_BLOCK) {
        let hi = (lo + BUILD_BLOCK).min(n);
        let (block, tail) = rest.split_at_mut((offsets[hi] - offsets[lo]) as usize);
        blocks.push((lo as u32..hi as u32, block));
        rest = tail;
    }
    blocks.into_par_iter().for_each(|(vertices, block)| {
        // A block is BUILD_BLOCK vertices' lists: one poll each.
        if cancel.is_cancelled() {
            return;
        }
        let mut k = 0;
        for v in vertices {
            let (a, b) = lists(v);
            oriented_neighbours(v, a, b, &degree, |u| {
                block[k] = u;
                k += 1;
            });
        }
    });
    cancel.check()?;
    let up = |v: u32| &targets[offsets[v as usize] as usize..offsets[v as usize + 1] as usize];
    let count = atomics(n, 0);
    let total: u64 = (0..n as u32)
        .into_par_iter()
        .with_min_len(64)
        .map_init(
            || Poll::new(&cancel),
            |poll, a| {
                let up_a = up(a);
                let mut found = 0;
                for &b in up_a {
                    // The merge of two oriented lists.
                    if poll.stop((up_a.len() + up(b).len()) as u64) {
                        return found;
                    }
                    found += count_at(&count, b, up_a, up(b));
                }
                if found > 0 {
                    count[a as usize].fetch_add(found, Relaxed);
                }
                found
            },
        )
        .sum();
    cancel.check()?;
    let arcs = out.num_arcs() + inn.map_or(0, |i| i.num_arcs());
    Ok(Triangles {
        per_vertex: count.into_par_iter().map(AtomicU64::into_inner).collect(),
        total,
        chunks: 1,
        oriented_bytes: (targets.len() * 4 + offsets.len() * 8) as u64,
        edges_processed: Some(arcs as u64),
    })
}
