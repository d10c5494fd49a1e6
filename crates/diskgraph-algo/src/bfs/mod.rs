//! Breadth-first search, direction-optimizing.
//!
//! The method is Beamer, Asanović and Patterson's direction-optimizing BFS ("Direction-Optimizing
//! Breadth-First Search", SC 2012), laid out as in GAPBS's `bfs.cc`:
//!
//! - **Top-down** steps expand a sparse frontier (a vertex queue): every frontier vertex scans its
//!   out-edges and claims unvisited heads with a compare-and-swap on their level, so each vertex
//!   is discovered exactly once. The steps run in parallel over chunks of the queue, each chunk
//!   filling its own next queue; a hub's neighbour list is split across threads too.
//! - **Bottom-up** steps invert the work when the frontier is large: every unvisited vertex scans
//!   its in-edges and stops at the first one whose tail is in the frontier (a bitmap). No atomics
//!   are needed: each vertex and each 64-bit word of the next bitmap belongs to one task.
//! - The switch: go bottom-up when the out-edges of the frontier (`scout`) exceed the edges still
//!   unexplored divided by `ALPHA` (15), and come back top-down once the frontier shrinks below
//!   `n / BETA` (18) vertices. Bottom-up needs the in-edges; a directed graph loaded without them
//!   stays top-down throughout.
//!
//! Levels are deterministic; parents are a valid BFS tree but which one depends on the race
//! between threads.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};

use diskgraph_engine::options::{Default, Engines, OptionKind, OptionSpec};
use diskgraph_engine::{Cancel, Engine, EngineError, EngineKind, MemoryGraph};
use diskgraph_format::Csr;
use rayon::prelude::*;
use serde_json::json;

use crate::descriptor::{
    Algorithm, Naming, Needs, On, Outcome, PerVertex, ResultKind, Run, ValueType, Values, Variant,
};
use crate::options::SOURCE;
use crate::parallel::chunk_len;
use crate::stop::Poll;
use crate::AlgoError;
use diskgraph_engine::selective::SelectiveGraph;
use diskgraph_engine::stream::StreamGraph;
use diskgraph_engine::sync::SyncGraph;

pub mod selective;
pub mod stream;
pub mod sync;
pub(crate) mod verify;

/// `--parents`: the BFS tree instead of the levels.
pub const PARENTS: OptionSpec = OptionSpec {
    name: "parents",
    kind: OptionKind::Flag,
    default: Default::Flag(false),
    help: "give each vertex's parent (an original ID; the source is its own parent, -1 unreached) instead of its level",
    engines: Engines::All,
    examples: &[],
};

/// Breadth-first search.
pub const BFS: Algorithm = Algorithm {
    name: "bfs",
    help: "breadth-first search levels from --source (-1 unreached); --parents for the parent tree",
    options: &[&SOURCE, &PARENTS],
    cluster: Some(crate::cluster::ClusterScheme::SpmvPerLevel),
    result: ResultKind {
        values: ValueType::Signed,
        name: "level",
        help: "the level of each vertex (the source 0, -1 unreached), or with parents its parent's original ID (uint64, 2**64-1 unreached, when the graph has IDs of 2**63 or more)",
    },
    variants: &[
        Variant {
            needs: Needs::IN_EDGES,
            run: &On::<MemoryGraph>(|g, run| {
                let parents = run.params.flag(&PARENTS);
                Ok(present(bfs(g, run.source(), parents)?, run, parents))
            }),
        },
        Variant {
            needs: Needs::IN_EDGES,
            run: &On::<SelectiveGraph>(|g, run| match run.params.flag(&PARENTS) {
                true => Ok(present_tree(selective::tree(g, run.source())?, run)),
                false => Ok(present(selective::bfs(g, run.source())?, run, false)),
            }),
        },
        Variant {
            needs: Needs::NONE,
            run: &On::<StreamGraph>(|g, run| {
                    let parents = run.params.flag(&PARENTS);
                    Ok(present(stream::bfs(g, run.source(), parents)?, run, parents))
                }),
        },
        Variant {
            needs: Needs::NONE,
            run: &On::<SyncGraph>(|g, run| {
                let parents = run.params.flag(&PARENTS);
                Ok(present(sync::bfs(g, run.source(), parents)?, run, parents))
            }),
        },
    ],
    verify: verify::verify,
    memory: |p, engine, naming| match (p.flag(&PARENTS), engine, naming) {
        // Levels in 8-byte words that become the i64 result in place.
        (false, EngineKind::Selective, _) => PerVertex { run: 8.0, verify: 12.25 },
        // Levels (u32) and their i64 form; with parents, parents (u32) and their i64 form and
        // the parents as IDs.
        (false, _, _) => PerVertex { run: 12.0, verify: 12.25 },
        // A word packing level and parent, which becomes the result in place; the result, the
        // parents resolved to vertices (u32) unless the result's IDs are vertices already,
        // their depths (u32), the depths in a byte or two when they allow it, and a bitmap.
        (true, EngineKind::Selective, Naming::Itself) => PerVertex { run: 8.0, verify: 14.125 },
        (true, EngineKind::Selective, Naming::Remapped) => PerVertex { run: 8.0, verify: 18.125 },
        // Levels and parents (u32), their i64 forms.
        (true, _, Naming::Itself) => PerVertex { run: 24.0, verify: 14.125 },
        (true, _, Naming::Remapped) => PerVertex { run: 24.0, verify: 18.125 },
    },
};

/// The outcome of a traversal from `run`'s source: the levels, or with `parents` each vertex's
/// parent as an original ID.
pub(crate) fn present(r: Bfs, run: &Run, parents: bool) -> Outcome {
    if parents {
        return present_tree(Tree::of(r), run);
    }
    let (reached, depth) = extent(&r.levels);
    Outcome::new(Values::Signed(r.levels), summary(run, reached, depth))
        .iterations(r.iterations as u64)
        .edges(r.edges_processed)
        .setting("source", json!(run.id(run.source())))
}

/// The outcome of a search for the tree: each vertex's parent as an original ID.
pub(crate) fn present_tree(t: Tree, run: &Run) -> Outcome {
    let vertices = run.vertices;
    let wide = !vertices.is_identity() && vertices.ids().iter().max().is_some_and(|&max| max > i64::MAX as u64);
    let values = if wide {
        // Original IDs beyond i64: parents are unsigned, u64::MAX marks unreached.
        Values::Unsigned(
            t.parents
                .into_iter()
                .map(|x| if x < 0 { u64::MAX } else { vertices.id(x as u32) })
                .collect(),
        )
    } else {
        // In place: the internal parents become their IDs.
        Values::Signed(
            t.parents
                .into_iter()
                .map(|x| if x < 0 { -1 } else { vertices.id(x as u32) as i64 })
                .collect(),
        )
    };
    Outcome::new(values, summary(run, t.reached, t.depth))
        .iterations(t.iterations as u64)
        .edges(t.edges_processed)
        .setting("source", json!(run.id(run.source())))
        .setting("parents", json!(true))
        .setting("value", json!("parent"))
        .vertex_valued()
}

/// The vertices `levels` reach and the deepest level (`-1` for none).
fn extent(levels: &[i64]) -> (u64, i64) {
    let reached = levels.par_iter().filter(|&&l| l >= 0).count() as u64;
    (reached, levels.par_iter().copied().max().unwrap_or(-1))
}

/// A traversal's summary line.
fn summary(run: &Run, reached: u64, depth: i64) -> String {
    format!(
        "reached {reached} of {} vertices, max depth {depth}",
        run.vertices.len()
    )
}

/// Internal level/parent value of a vertex not reached yet.
pub(crate) const UNVISITED: u32 = u32::MAX;
/// Go bottom-up when the frontier's out-edges exceed the unexplored edges divided by this.
const ALPHA: u64 = 15;
/// Go back top-down when the frontier has fewer than `n / BETA` vertices (and is shrinking).
const BETA: u64 = 18;
/// A top-down step with fewer frontier edges than this runs on the calling thread.
const SEQUENTIAL_EDGES: u64 = 4096;
/// A frontier vertex with more out-edges than this has its neighbour list split across threads.
const HUB_DEGREE: usize = 1 << 14;

/// The result of [`bfs`].
#[derive(Clone, Debug, PartialEq)]
pub struct Bfs {
    /// Hop distance from the source, `-1` when unreached.
    pub levels: Vec<i64>,
    /// BFS-tree parent of each vertex (`-1` when unreached, the source's parent is itself),
    /// when asked for.
    pub parents: Option<Vec<i64>>,
    /// Frontiers expanded: the number of distinct levels reached (deepest level + 1).
    pub iterations: usize,
    /// Edges examined (top-down: every out-edge of the frontier; bottom-up: in-edges scanned up
    /// to the first frontier parent).
    pub edges_processed: u64,
}

/// A BFS tree with what its summary needs of the levels: the selective engine keeps no levels
/// beside the parents (see [`selective::tree`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Tree {
    /// BFS-tree parent of each vertex (`-1` when unreached, the source's parent is itself).
    pub parents: Vec<i64>,
    /// Vertices reached.
    pub reached: u64,
    /// The deepest level.
    pub depth: i64,
    /// Frontiers expanded.
    pub iterations: usize,
    /// Edges examined.
    pub edges_processed: u64,
}

impl Tree {
    /// The tree of a search that kept its levels and parents.
    ///
    /// # Panics
    /// When `r` holds no parents.
    fn of(r: Bfs) -> Tree {
        let (reached, depth) = extent(&r.levels);
        Tree {
            reached,
            depth,
            parents: r.parents.expect("a search for the tree"),
            iterations: r.iterations,
            edges_processed: r.edges_processed,
        }
    }
}

/// Breadth-first search from `source` over the out-edges, direction-optimizing when in-edges are
/// available (see the module doc). `want_parents` also records a BFS tree.
pub fn bfs(g: &MemoryGraph, source: u32, want_parents: bool) -> Result<Bfs, AlgoError> {
    g.check_vertex(source)?;
    let r = reach(g.out(), g.in_edges(), source, want_parents, &g.cancel())?;
    Ok(Bfs {
        levels: to_i64(r.level),
        parents: r.parent.map(to_i64),
        iterations: r.iterations,
        edges_processed: r.edges,
    })
}

/// What [`reach`] found.
pub(crate) struct Reach {
    /// Level of every vertex, [`UNVISITED`] when unreached.
    pub level: Vec<AtomicU32>,
    /// Parent of every vertex when asked for, [`UNVISITED`] when unreached.
    pub parent: Option<Vec<AtomicU32>>,
    /// Frontiers expanded.
    pub iterations: usize,
    /// Edges examined.
    pub edges: u64,
}

/// Per-vertex level (and parent) slots of a BFS, all unvisited but the source: level 0, its own
/// parent.
pub(crate) fn start_state(n: usize, source: u32, want_parents: bool) -> (Vec<AtomicU32>, Option<Vec<AtomicU32>>) {
    let unvisited = || {
        (0..n)
            .into_par_iter()
            .map(|_| AtomicU32::new(UNVISITED))
            .collect::<Vec<_>>()
    };
    let level = unvisited();
    let parent = want_parents.then(unvisited);
    level[source as usize].store(0, Relaxed);
    if let Some(p) = &parent {
        p[source as usize].store(source, Relaxed);
    }
    (level, parent)
}

/// Direction-optimizing BFS from `source` following `push` (out-edges of the traversal
/// direction); `pull` is its transpose, used by bottom-up steps when present. Polls `cancel`
/// (the run's stop request) at every level and within them (see [`stop`](crate::stop)).
///
/// Errors: [`EngineError::Cancelled`] once `cancel` is set.
pub(crate) fn reach(
    push: &Csr,
    pull: Option<&Csr>,
    source: u32,
    want_parents: bool,
    cancel: &Cancel,
) -> Result<Reach, EngineError> {
    let n = push.num_vertices();
    let (level, parent) = start_state(n, source, want_parents);
    let words = n.div_ceil(64);
    let mut front: Vec<AtomicU64> = Vec::new();
    let mut next: Vec<AtomicU64> = Vec::new();
    let mut queue = vec![source];
    let mut depth = 0u32;
    let mut iterations = 0;
    let mut edges = 0u64;
    let mut edges_to_check = push.num_arcs() as u64;
    let mut scout = push.degree(source) as u64;
    while !queue.is_empty() {
        cancel.check()?;
        match pull {
            Some(pull) if scout > edges_to_check / ALPHA => {
                if front.is_empty() {
                    front = (0..words).map(|_| AtomicU64::new(0)).collect();
                    next = (0..words).map(|_| AtomicU64::new(0)).collect();
                }
                queue_to_bitmap(&queue, &front);
                let mut awake = queue.len() as u64;
                loop {
                    let old = awake;
                    let step = Step {
                        level: &level,
                        parent: parent.as_deref(),
                        depth,
                        cancel,
                    };
                    let (found, scanned) = bottom_up_step(pull, &front, &next, &step);
                    cancel.check()?;
                    std::mem::swap(&mut front, &mut next);
                    iterations += 1;
                    edges += scanned;
                    depth += 1;
                    awake = found;
                    if awake == 0 || (awake < old && awake <= n as u64 / BETA) {
                        break;
                    }
                }
                queue = bitmap_to_queue(&front);
                scout = 1;
            }
            _ => {
                edges_to_check = edges_to_check.saturating_sub(scout);
                let step = Step {
                    level: &level,
                    parent: parent.as_deref(),
                    depth,
                    cancel,
                };
                let (q, s, e) = top_down_step(push, &queue, scout, &step);
                cancel.check()?;
                iterations += 1;
                edges += e;
                depth += 1;
                queue = q;
                scout = s;
            }
        }
    }
    Ok(Reach {
        level,
        parent,
        iterations,
        edges,
    })
}

/// What a step of [`reach`] writes to and polls: the levels (and parents), the level of its
/// frontier, the run's stop request.
struct Step<'a> {
    level: &'a [AtomicU32],
    parent: Option<&'a [AtomicU32]>,
    depth: u32,
    cancel: &'a Cancel,
}

/// One top-down step from the frontier `queue` (at level `step.depth`, with `frontier_edges`
/// out-edges): returns the next frontier, its out-edge count and the edges examined. A stop
/// request leaves it partial (the caller checks).
fn top_down_step(push: &Csr, queue: &[u32], frontier_edges: u64, step: &Step<'_>) -> (Vec<u32>, u64, u64) {
    let Step {
        level,
        parent,
        depth,
        cancel,
    } = *step;
    // Claims the unvisited vertices among `nbrs` (out-neighbours of `u`) for the next level.
    let claim = |u: u32, nbrs: &[u32], next: &mut Vec<u32>| -> u64 {
        let mut scout = 0;
        for &v in nbrs {
            let l = &level[v as usize];
            if l.load(Relaxed) == UNVISITED && l.compare_exchange(UNVISITED, depth + 1, Relaxed, Relaxed).is_ok() {
                if let Some(p) = parent {
                    p[v as usize].store(u, Relaxed);
                }
                next.push(v);
                scout += push.degree(v) as u64;
            }
        }
        scout
    };
    let visit = |chunk: &[u32]| -> (Vec<u32>, u64, u64) {
        let mut next = Vec::new();
        let (mut scout, mut edges) = (0, 0);
        let mut poll = Poll::new(cancel);
        for &u in chunk {
            let nbrs = push.neighbours(u);
            if poll.stop(1 + nbrs.len() as u64) {
                break;
            }
            edges += nbrs.len() as u64;
            if nbrs.len() > HUB_DEGREE {
                let parts: Vec<(Vec<u32>, u64)> = nbrs
                    .par_chunks(HUB_DEGREE / 4)
                    .map(|c| {
                        let mut part = Vec::new();
                        let s = if cancel.is_cancelled() {
                            0
                        } else {
                            claim(u, c, &mut part)
                        };
                        (part, s)
                    })
                    .collect();
                for (part, s) in parts {
                    next.extend_from_slice(&part);
                    scout += s;
                }
            } else {
                scout += claim(u, nbrs, &mut next);
            }
        }
        (next, scout, edges)
    };
    if frontier_edges < SEQUENTIAL_EDGES {
        return visit(queue);
    }
    let parts: Vec<(Vec<u32>, u64, u64)> = queue.par_chunks(chunk_len(queue.len(), 64)).map(visit).collect();
    let mut next = Vec::with_capacity(parts.iter().map(|p| p.0.len()).sum());
    let (mut scout, mut edges) = (0, 0);
    for (part, s, e) in parts {
        next.extend_from_slice(&part);
        scout += s;
        edges += e;
    }
    (next, scout, edges)
}

/// One bottom-up step: every unvisited vertex looks for an in-neighbour in `front` (level
/// `step.depth`); the vertices found are written to `next`. Returns (vertices found, edges
/// examined). A stop request leaves it partial (the caller checks).
fn bottom_up_step(pull: &Csr, front: &[AtomicU64], next: &[AtomicU64], step: &Step<'_>) -> (u64, u64) {
    let Step {
        level,
        parent,
        depth,
        cancel,
    } = *step;
    let n = level.len();
    let words_per_task = chunk_len(next.len(), 16);
    next.par_chunks(words_per_task)
        .enumerate()
        .map(|(task, words)| {
            let (mut found, mut edges) = (0u64, 0u64);
            let mut poll = Poll::new(cancel);
            let mut polled_edges = 0;
            for (i, word) in words.iter().enumerate() {
                // A word's 64 vertices and the in-edges the last word scanned.
                if poll.stop(64 + edges - polled_edges) {
                    break;
                }
                polled_edges = edges;
                let lo = (task * words_per_task + i) * 64;
                let mut bits = 0u64;
                for v in lo..(lo + 64).min(n) {
                    if level[v].load(Relaxed) != UNVISITED {
                        continue;
                    }
                    let nbrs = pull.neighbours(v as u32);
                    match nbrs
                        .iter()
                        .position(|&u| front[u as usize / 64].load(Relaxed) >> (u % 64) & 1 != 0)
                    {
                        Some(k) => {
                            edges += k as u64 + 1;
                            level[v].store(depth + 1, Relaxed);
                            if let Some(p) = parent {
                                p[v].store(nbrs[k], Relaxed);
                            }
                            bits |= 1 << (v - lo);
                            found += 1;
                        }
                        None => edges += nbrs.len() as u64,
                    }
                }
                word.store(bits, Relaxed);
            }
            (found, edges)
        })
        .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
}

/// Writes the frontier `queue` into the bitmap `bits` (clearing it first).
fn queue_to_bitmap(queue: &[u32], bits: &[AtomicU64]) {
    bits.par_iter().for_each(|w| w.store(0, Relaxed));
    queue.par_iter().with_min_len(1024).for_each(|&v| {
        bits[v as usize / 64].fetch_or(1 << (v % 64), Relaxed);
    });
}

/// The vertices set in the bitmap `bits`, ascending.
fn bitmap_to_queue(bits: &[AtomicU64]) -> Vec<u32> {
    let words_per_task = chunk_len(bits.len(), 64);
    let parts: Vec<Vec<u32>> = bits
        .par_chunks(words_per_task)
        .enumerate()
        .map(|(task, words)| {
            let mut out = Vec::new();
            for (i, w) in words.iter().enumerate() {
                let mut b = w.load(Relaxed);
                let base = ((task * words_per_task + i) * 64) as u32;
                while b != 0 {
                    out.push(base + b.trailing_zeros());
                    b &= b - 1;
                }
            }
            out
        })
        .collect();
    parts.concat()
}

/// Levels as plain integers, [`UNVISITED`] when unreached, converted in place (an atomic has
/// its integer's layout): no second array.
pub(crate) fn plain_levels(level: Vec<AtomicU32>) -> Vec<u32> {
    level.into_iter().map(AtomicU32::into_inner).collect()
}

/// Plain levels in the public form: `-1` when unreached.
pub(crate) fn signed_levels(levels: &[u32]) -> Vec<i64> {
    levels.par_iter().map(|&l| signed(l)).collect()
}

/// Converts internal levels or parents to the public form (`-1` for unreached).
pub(crate) fn to_i64(values: Vec<AtomicU32>) -> Vec<i64> {
    values.into_par_iter().map(|a| signed(a.into_inner())).collect()
}

/// An internal level or parent in the public form: `-1` for [`UNVISITED`].
#[inline]
pub(crate) fn signed(value: u32) -> i64 {
    if value == UNVISITED {
        -1
    } else {
        i64::from(value)
    }
}
