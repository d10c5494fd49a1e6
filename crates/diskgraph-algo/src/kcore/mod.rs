//! k-core decomposition: parallel level-synchronous peeling on the simple undirected view.
//!
//! The core number of a vertex is the largest `k` such that it belongs to a subgraph where
//! every vertex has degree at least `k` (NetworkX's `core_number` of the simple undirected
//! graph). Direction is ignored, duplicate edges and the two directions of an edge count once,
//! and self-loops are dropped: the simple view. It is never materialised: a vertex's simple
//! neighbours come from merging its sorted out-list with its sorted in-list (directed graphs)
//! on the fly, skipping repeats and the vertex itself. A directed graph loaded without in-edges
//! gets its transpose built first.
//!
//! The peeling is Kabir and Madduri's PKC ("Parallel k-core Decomposition on Multicore
//! Platforms", IPDPSW 2017), the parallel form of Batagelj and Zaversnik's bucket algorithm.
//! Levels go up through the distinct core values: at level `k` (the smallest remaining degree),
//! the remaining vertices of degree `k` are removed in parallel, each removal decrementing its
//! remaining neighbours' degrees with atomics; a neighbour that drops from `k + 1` to `k` is
//! removed in the same level by the thread that dropped it, and a decrement that would go below
//! `k` is undone. A removed vertex's final degree is its core number. The remaining vertices are
//! compacted at every level, so the scans cost O(Σ core) ≤ O(E) in all and the whole run is
//! O(V + E) work.

use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

use diskgraph_engine::{Cancel, Engine, EngineError, MemoryGraph};
use diskgraph_format::Csr;
use rayon::prelude::*;

use crate::descriptor::{Algorithm, Needs, On, Outcome, PerVertex, ResultKind, ValueType, Values, Variant};
use crate::parallel::chunk_len;
use crate::stop::{Poll, POLL_WORK};
use crate::AlgoError;
use diskgraph_engine::selective::SelectiveGraph;
use diskgraph_engine::sync::SyncGraph;

pub mod selective;
pub mod sync;
pub(crate) mod verify;

/// k-core decomposition.
pub const KCORE: Algorithm = Algorithm {
    name: "kcore",
    help: "core number of every vertex on the undirected simple view",
    options: &[],
    cluster: Some(crate::cluster::ClusterScheme::PeelingRounds),
    result: ResultKind {
        values: ValueType::Signed,
        name: "core",
        help: "the core number of each vertex (directions, self-loops and parallel edges ignored)",
    },
    variants: &[
        Variant {
            needs: Needs::IN_EDGES,
            run: &On::<MemoryGraph>(|g, _| Ok(present(kcore(g)?).edges(g.out().num_arcs() as u64))),
        },
        Variant {
            needs: Needs {
                in_edges: true,
                whole_lists: true,
                ..Needs::NONE
            },
            run: &On::<SelectiveGraph>(|g, _| Ok(present(selective::kcore(g)?))),
        },
        Variant {
            needs: Needs::IN_EDGES,
            run: &On::<SyncGraph>(|g, _| Ok(present(sync::kcore(g)?))),
        },
    ],
    verify: verify::verify,
    memory: |_, _, _| PerVertex {
        // Degrees, the vertices left and the lowest level (u32 each), the core numbers (u32),
        // their i64 form; the verifier's u32 copy beside the result.
        run: 16.0,
        verify: 12.0,
    },
};

/// The core numbers, the largest, and the peeling levels.
fn present(k: KCore) -> Outcome {
    let summary = format!("max core {}", k.max_core);
    Outcome::new(Values::Signed(k.core.iter().map(|&c| i64::from(c)).collect()), summary).iterations(k.levels)
}

/// The result of [`kcore`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KCore {
    /// Core number of every vertex.
    pub core: Vec<u32>,
    /// The largest core number (0 for an empty graph).
    pub max_core: u32,
    /// Peeling levels: one per distinct core number, each removing the vertices of that core
    /// number (the run's iterations).
    pub levels: u64,
}

/// Core numbers on the simple undirected view of `g` (see the module doc). A directed graph
/// loaded without in-edges gets its transpose built first (O(E) more memory).
///
/// Errors: [`EngineError::Cancelled`] once the run is asked to stop (polled every level and
/// within levels).
pub fn kcore(g: &MemoryGraph) -> Result<KCore, AlgoError> {
    let out = g.out();
    let cancel = g.cancel();
    let transpose;
    let inn = if g.directed() {
        Some(match g.in_edges() {
            Some(inn) => inn,
            None => {
                transpose = transposed(out, &cancel)?;
                &transpose
            }
        })
    } else {
        None
    };
    let view = SimpleView { out, inn };
    let (core, levels) = peel(&view, &cancel)?;
    let max_core = core.par_iter().copied().max().unwrap_or(0);
    Ok(KCore { core, max_core, levels })
}

/// The simple undirected view of a graph: out-lists merged with in-lists (when directed).
struct SimpleView<'a> {
    out: &'a Csr,
    inn: Option<&'a Csr>,
}

impl SimpleView<'_> {
    /// Calls `f` on every simple neighbour of `v`, ascending.
    #[inline]
    fn for_each(&self, v: u32, f: impl FnMut(u32)) {
        let a = self.out.neighbours(v);
        let b = self.inn.map_or(&[][..], |i| i.neighbours(v));
        simple_neighbours(v, a, b, f);
    }

    /// Length of `v`'s out- and in-lists together: the work of a pass over its neighbours.
    fn lists_len(&self, v: u32) -> u64 {
        (self.out.degree(v) + self.inn.map_or(0, |i| i.degree(v))) as u64
    }

    /// Number of simple neighbours of `v`.
    fn degree(&self, v: u32) -> u32 {
        let mut d = 0;
        self.for_each(v, |_| d += 1);
        d
    }
}

/// Calls `f` on every simple neighbour of `v`, ascending, given `v`'s sorted out-list `a` and
/// sorted in-list `b` (empty for an undirected graph): the merge of both, without repeats and
/// without `v` itself.
#[inline]
pub(crate) fn simple_neighbours(v: u32, a: &[u32], b: &[u32], mut f: impl FnMut(u32)) {
    let (mut i, mut j) = (0, 0);
    let mut last = v; // skips the self-loops as well as repeats
    let mut emit = |x: u32| {
        if x != v && x != last {
            f(x);
        }
        last = x;
    };
    while i < a.len() && j < b.len() {
        if a[i] <= b[j] {
            emit(a[i]);
            i += 1;
        } else {
            emit(b[j]);
            j += 1;
        }
    }
    a[i..].iter().chain(&b[j..]).for_each(|&x| emit(x));
}

/// PKC peeling: the core number of every vertex, and the levels peeled; polls `cancel`.
///
/// Errors: [`EngineError::Cancelled`] once `cancel` is set.
fn peel(g: &SimpleView<'_>, cancel: &Cancel) -> Result<(Vec<u32>, u64), EngineError> {
    let n = g.out.num_vertices();
    let deg: Vec<AtomicU32> = (0..n as u32)
        .into_par_iter()
        .map_init(
            || Poll::new(cancel),
            |poll, v| match poll.stop(1 + g.lists_len(v)) {
                true => AtomicU32::new(0),
                false => AtomicU32::new(g.degree(v)),
            },
        )
        .collect();
    cancel.check()?;
    let mut remaining: Vec<u32> = (0..n as u32).collect();
    let mut levels = 0;
    while !remaining.is_empty() {
        cancel.check()?;
        levels += 1;
        let (level, frontier) = lowest_level(&remaining, &deg);
        frontier.par_chunks(chunk_len(frontier.len(), 256)).for_each(|chunk| {
            let mut stack = chunk.to_vec();
            let mut poll = Poll::new(cancel);
            while let Some(v) = stack.pop() {
                if poll.stop(1 + g.lists_len(v)) {
                    return;
                }
                g.for_each(v, |u| {
                    let d = &deg[u as usize];
                    if d.load(Relaxed) > level {
                        match d.fetch_sub(1, Relaxed) {
                            x if x == level + 1 => stack.push(u),
                            x if x <= level => {
                                d.fetch_add(1, Relaxed);
                            }
                            _ => {}
                        }
                    }
                });
            }
        });
        cancel.check()?;
        remaining = remaining
            .into_par_iter()
            .filter(|&v| deg[v as usize].load(Relaxed) > level)
            .collect();
    }
    Ok((deg.into_par_iter().map(AtomicU32::into_inner).collect(), levels))
}

/// The transpose of `out` (no weights), each list ascending; polls `cancel` every
/// [`POLL_WORK`](crate::POLL_WORK) arcs.
///
/// Errors: [`EngineError::Cancelled`] once `cancel` is set.
fn transposed(out: &Csr, cancel: &Cancel) -> Result<Csr, EngineError> {
    let n = out.num_vertices();
    let mut offsets = vec![0u64; n + 1];
    let mut poll = Poll::new(cancel);
    for piece in out.targets.chunks(POLL_WORK as usize) {
        if poll.stop(POLL_WORK) {
            return Err(EngineError::Cancelled);
        }
        for &t in piece {
            offsets[t as usize + 1] += 1;
        }
    }
    for v in 0..n {
        offsets[v + 1] += offsets[v];
    }
    let mut fill = offsets.clone();
    let mut targets = vec![0u32; out.num_arcs()];
    for u in 0..n as u32 {
        if poll.stop(1 + out.degree(u) as u64) {
            return Err(EngineError::Cancelled);
        }
        for &v in out.neighbours(u) {
            targets[fill[v as usize] as usize] = u;
            fill[v as usize] += 1;
        }
    }
    Ok(Csr {
        offsets,
        targets,
        weights: None,
    })
}

/// The smallest current degree among `remaining` vertices, and the vertices that have it.
///
/// # Panics
/// If `remaining` is empty.
pub(crate) fn lowest_level(remaining: &[u32], deg: &[AtomicU32]) -> (u32, Vec<u32>) {
    let level = remaining
        .par_iter()
        .map(|&v| deg[v as usize].load(Relaxed))
        .min()
        .expect("non-empty");
    let at_level = remaining
        .par_iter()
        .copied()
        .filter(|&v| deg[v as usize].load(Relaxed) == level)
        .collect();
    (level, at_level)
}
