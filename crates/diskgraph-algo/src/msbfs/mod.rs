//! Multi-source BFS: up to 64 breadth-first searches at once, bit-parallel (Then et al., "The
//! More the Merrier: Efficient Multi-Source Graph Traversal", VLDB 2014; Graphene's APSP).
//!
//! Source `i` owns bit `i` of a `u64` per vertex. `seen[v]` holds the searches that reached `v`,
//! `visit[v]` those that reached it at the current level. A level expands every vertex with a
//! non-zero `visit` once, for all its searches together: for each out-edge `u → v`,
//! `next[v] |= visit[u] & !seen[v]` (an atomic OR). Then every vertex with new bits records the
//! level for each of them, adds them to `seen`, and they become its `visit`. One pass over a
//! vertex's list serves all the searches that reach it at that level, which is what makes the
//! I/O (and the memory traffic) cheap.
//!
//! Results: per vertex, the sum of its finite distances from the sources, how many sources reach
//! it and the largest such distance (O(V) each), and on request the whole `k × V` distance matrix.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};

use diskgraph_engine::options::{Default, Engines, OptionKind, OptionSpec};
use diskgraph_engine::{Engine, EngineError, EngineKind, MemoryGraph};
use rayon::prelude::*;
use serde_json::json;

use crate::descriptor::{Algorithm, Needs, On, Outcome, PerVertex, ResultKind, Run, ValueType, Values, Variant};
use crate::options::{SEED, SOURCES_DEFAULT};
use diskgraph_engine::selective::SelectiveGraph;

use crate::parallel::chunk_len;
use crate::stop::Poll;
use crate::AlgoError;

pub mod selective;
pub(crate) mod verify;

/// `--sources` of msbfs: at most 64, one bit each.
pub const SOURCES: OptionSpec = OptionSpec {
    name: "sources",
    kind: OptionKind::Sources { max: Some(MAX_SOURCES) },
    default: Default::Sample(SOURCES_DEFAULT),
    help: "a count K (K distinct vertices sampled with --seed; at most 64) or original IDs a,b,c (a single one as a,)",
    engines: Engines::All,
    examples: &[],
};

/// Multi-source BFS.
pub const MSBFS: Algorithm = Algorithm {
    name: "msbfs",
    help: "multi-source BFS from up to 64 --sources at once: sum of finite distances (-1 unreached)",
    options: &[&SOURCES, &SEED],
    cluster: None,
    result: ResultKind {
        values: ValueType::Signed,
        name: "distance_sum",
        help: "the sum of each vertex's finite hop distances from the sources, -1 when none reaches it",
    },
    variants: &[
        Variant {
            needs: Needs::NONE,
            run: &On::<MemoryGraph>(|g, run| Ok(present(msbfs(g, run.sources(), false)?, run))),
        },
        Variant {
            needs: Needs::NONE,
            run: &On::<SelectiveGraph>(|g, run| Ok(present(selective::msbfs(g, run.sources(), false)?, run))),
        },
    ],
    verify: verify::verify,
    memory: |_, engine, _| match engine {
        // The searches seen, visiting and arriving (u64 bits each), the sums of distances
        // (u64) and the sources reaching and the largest distance (u32 each), whatever the
        // number of sources; a level's frontier (u32, taken as a bitmap or a list of at most
        // n / 20: 4.125 while the one becomes the other, 0.2 after) and the vertices it reaches
        // (u32, each once a level), filtered in place into the next frontier. The sums and
        // counts become the i64 result, 24 in all, after the state is dropped. The verifier:
        // the result and bitmaps of the sources and of the vertices entered.
        EngineKind::Selective => PerVertex {
            run: 44.2,
            verify: 8.25,
        },
        _ => PerVertex::BOUND,
    },
};

/// The sums of distances, the sources and how far they reached.
fn present(r: MultiBfs, run: &Run) -> Outcome {
    let pairs: u64 = r.reached.iter().map(|&x| u64::from(x)).sum();
    let depth = r.max.iter().copied().max().unwrap_or(0);
    let values = Values::Signed(r.values());
    present_sources(
        values,
        &r.sources,
        (r.iterations, r.edges_processed),
        (pairs, depth),
        run,
    )
}

/// What msbfs and apsp report alike: the sources (original IDs, in bit order) and seed, the
/// `(iterations, edges)` counted, and the `(source, vertex)` pairs reached and their largest
/// distance.
pub(crate) fn present_sources(
    values: Values,
    sources: &[u32],
    counts: (usize, u64),
    reach: (u64, u32),
    run: &Run,
) -> Outcome {
    let ids: Vec<u64> = sources.iter().map(|&s| run.id(s)).collect();
    let (pairs, depth) = reach;
    let summary = format!(
        "{} sources, {pairs} (source, vertex) pairs reached of {}, max distance {depth}",
        ids.len(),
        ids.len() * run.vertices.len(),
    );
    Outcome::new(values, summary)
        .iterations(counts.0 as u64)
        .edges(counts.1)
        .setting("sources", json!(ids))
        .setting("seed", json!(run.params.count(&SEED)))
}

/// Most sources one run can take (one bit each).
pub const MAX_SOURCES: usize = 64;
/// Distance in the matrix of a vertex a source does not reach.
pub const UNREACHED: u32 = u32::MAX;

/// The result of [`msbfs`].
#[derive(Clone, Debug, PartialEq)]
pub struct MultiBfs {
    /// The sources, in bit order.
    pub sources: Vec<u32>,
    /// `distances[i * n + v]`: hops from `sources[i]` to `v`, [`UNREACHED`] when unreached (when
    /// asked for).
    pub distances: Option<Vec<u32>>,
    /// Sum over the sources of the finite distances to each vertex.
    pub sum: Vec<u64>,
    /// Number of sources reaching each vertex.
    pub reached: Vec<u32>,
    /// Largest finite distance from a source to each vertex (0 when none reaches it).
    pub max: Vec<u32>,
    /// Levels expanded (deepest level + 1).
    pub iterations: usize,
    /// Edges examined.
    pub edges_processed: u64,
}

impl MultiBfs {
    /// The per-vertex value the registry reports: the sum of finite distances from the sources,
    /// `-1` for a vertex no source reaches.
    pub fn values(&self) -> Vec<i64> {
        self.sum
            .par_iter()
            .zip(&self.reached)
            .map(|(&s, &r)| if r == 0 { -1 } else { s as i64 })
            .collect()
    }
}

/// Bit-parallel multi-source BFS from `sources` (1 to 64 vertices, repeats allowed) along
/// out-edges; `want_matrix` also returns every distance.
pub fn msbfs(g: &MemoryGraph, sources: &[u32], want_matrix: bool) -> Result<MultiBfs, AlgoError> {
    let out = g.out();
    let cancel = g.cancel();
    let mut state = State::new(g.num_vertices(), sources, want_matrix)?;
    let mut edges = 0u64;
    while !state.frontier.is_empty() {
        cancel.check()?;
        let frontier = std::mem::take(&mut state.frontier);
        let parts: Vec<(Vec<u32>, u64)> = frontier
            .par_chunks(chunk_len(frontier.len(), 64))
            .map(|chunk| {
                let mut touched = Vec::new();
                let mut e = 0;
                let mut poll = Poll::new(&cancel);
                for &u in chunk {
                    let nbrs = out.neighbours(u);
                    if poll.stop(1 + nbrs.len() as u64) {
                        break;
                    }
                    e += nbrs.len() as u64;
                    state.expand(u, nbrs, &mut touched);
                }
                (touched, e)
            })
            .collect();
        cancel.check()?;
        edges += parts.iter().map(|p| p.1).sum::<u64>();
        let touched: Vec<u32> = parts.into_iter().flat_map(|p| p.0).collect();
        state.settle(&frontier, touched);
    }
    Ok(state.finish(edges))
}

/// Keeps the entries of `list` for which `keep` holds, in order and in place (no second list):
/// each chunk is compacted at its start in parallel, then the chunks are moved together.
fn retain_in_place(list: &mut Vec<u32>, keep: impl Fn(u32) -> bool + Sync) {
    let chunk = chunk_len(list.len(), 4096);
    let kept: Vec<usize> = list
        .par_chunks_mut(chunk)
        .map(|c| {
            (0..c.len()).fold(0, |k, i| {
                let v = c[i];
                match keep(v) {
                    true => {
                        c[k] = v;
                        k + 1
                    }
                    false => k,
                }
            })
        })
        .collect();
    let mut end = 0;
    for (i, k) in kept.into_iter().enumerate() {
        list.copy_within(i * chunk..i * chunk + k, end);
        end += k;
    }
    list.truncate(end);
}

/// The bit-parallel state shared by the engines' variants.
pub(crate) struct State {
    n: usize,
    sources: Vec<u32>,
    seen: Vec<AtomicU64>,
    visit: Vec<AtomicU64>,
    next: Vec<AtomicU64>,
    sum: Vec<AtomicU64>,
    reached: Vec<AtomicU32>,
    max: Vec<AtomicU32>,
    matrix: Option<Vec<AtomicU32>>,
    /// Vertices to expand at the current level, ascending.
    pub frontier: Vec<u32>,
    level: u32,
    pub iterations: usize,
}

impl State {
    /// Level 0: every source has its bit.
    pub fn new(n: usize, sources: &[u32], want_matrix: bool) -> Result<Self, AlgoError> {
        if sources.is_empty() || sources.len() > MAX_SOURCES {
            return Err(AlgoError::InvalidSetting(format!(
                "msbfs takes 1 to {MAX_SOURCES} sources, got {}",
                sources.len()
            )));
        }
        if let Some(&s) = sources.iter().find(|&&s| s as usize >= n) {
            return Err(EngineError::InvalidVertex {
                vertex: s,
                num_vertices: n,
            }
            .into());
        }
        let zeros64 = || (0..n).into_par_iter().map(|_| AtomicU64::new(0)).collect::<Vec<_>>();
        let zeros32 = || (0..n).into_par_iter().map(|_| AtomicU32::new(0)).collect::<Vec<_>>();
        let mut state = State {
            n,
            sources: sources.to_vec(),
            seen: zeros64(),
            visit: zeros64(),
            next: zeros64(),
            sum: zeros64(),
            reached: zeros32(),
            max: zeros32(),
            matrix: want_matrix.then(|| {
                (0..sources.len() * n)
                    .into_par_iter()
                    .map(|_| AtomicU32::new(UNREACHED))
                    .collect()
            }),
            frontier: Vec::new(),
            level: 0,
            iterations: 0,
        };
        // Level 0 is settled like any other: every source arrives at itself.
        for (i, &s) in sources.iter().enumerate() {
            state.next[s as usize].fetch_or(1 << i, Relaxed);
        }
        state.settle(&[], sources.to_vec());
        Ok(state)
    }

    /// Expands `u` over its out-neighbours `nbrs` (any piece of its list): pushes `u`'s current
    /// searches to the neighbours that have not seen them; a neighbour is appended to `touched`
    /// by the call that gives it its first searches of the level, so once a level over all
    /// calls (the list holds a vertex at most once, however many searches arrive).
    #[inline]
    pub fn expand(&self, u: u32, nbrs: &[u32], touched: &mut Vec<u32>) {
        let bits = self.visit[u as usize].load(Relaxed);
        if bits == 0 {
            return;
        }
        for &v in nbrs {
            let new = bits & !self.seen[v as usize].load(Relaxed);
            if new != 0 {
                let next = &self.next[v as usize];
                if next.load(Relaxed) & new != new && next.fetch_or(new, Relaxed) == 0 {
                    touched.push(v);
                }
            }
        }
    }

    /// `u` is visited by no search any more (its level is expanded): what
    /// [`settle`](Self::settle) does for its `frontier`, for a caller that holds the frontier
    /// otherwise.
    #[inline]
    pub fn stop_visiting(&self, u: u32) {
        self.visit[u as usize].store(0, Relaxed);
    }

    /// Ends a level: the vertices of `frontier` stop being visited, and every vertex in
    /// `touched` records the searches that reached it first at the new level.
    pub fn settle(&mut self, frontier: &[u32], mut touched: Vec<u32>) {
        frontier
            .par_iter()
            .for_each(|&u| self.visit[u as usize].store(0, Relaxed));
        touched.par_sort_unstable();
        touched.dedup();
        let level = self.level;
        let n = self.n;
        touched.par_iter().for_each(|&v| {
            let v = v as usize;
            let new = self.next[v].swap(0, Relaxed) & !self.seen[v].load(Relaxed);
            if new == 0 {
                return;
            }
            self.seen[v].fetch_or(new, Relaxed);
            self.visit[v].store(new, Relaxed);
            self.sum[v].fetch_add(u64::from(new.count_ones()) * u64::from(level), Relaxed);
            self.reached[v].fetch_add(new.count_ones(), Relaxed);
            self.max[v].store(level, Relaxed);
            if let Some(m) = &self.matrix {
                let mut b = new;
                while b != 0 {
                    let i = b.trailing_zeros() as usize;
                    m[i * n + v].store(level, Relaxed);
                    b &= b - 1;
                }
            }
        });
        retain_in_place(&mut touched, |v| self.visit[v as usize].load(Relaxed) != 0);
        self.frontier = touched;
        if !self.frontier.is_empty() {
            self.iterations += 1;
        }
        self.level += 1;
    }

    /// The result.
    pub fn finish(self, edges_processed: u64) -> MultiBfs {
        // Sequential `into_iter().map().collect()` converts in place (an atomic has its
        // integer's layout): no second allocation, whose fresh pages the kernel would zero —
        // gigabytes for the distance matrix of Kronecker 24.
        let plain64 = |v: Vec<AtomicU64>| v.into_iter().map(AtomicU64::into_inner).collect();
        let plain32 = |v: Vec<AtomicU32>| v.into_iter().map(AtomicU32::into_inner).collect::<Vec<_>>();
        MultiBfs {
            sources: self.sources,
            distances: self.matrix.map(plain32),
            sum: plain64(self.sum),
            reached: plain32(self.reached),
            max: plain32(self.max),
            iterations: self.iterations,
            edges_processed,
        }
    }
}
