//! Triangle counting on the shard engine, GraphChi's way: the oriented lists of a chunk of
//! *pivot* vertices are held in memory while every vertex intersects its own oriented list with
//! those of its pivot neighbours; the structure alone is read (no edge values).
//!
//! Iteration 0 gives every vertex its simple degree (from its in-edges' sources and out-edges'
//! targets, [`simple_neighbours`]), which ranks the vertices ([`precedes`]) and cuts them into
//! chunks whose oriented lists fit half of what the engine leaves of the budget — one chunk is
//! held while the next is collected — (bounding a list by the vertex's degree and by `√(2E)`,
//! which no oriented list exceeds). In iteration `k ≥ 1` each
//! vertex of chunk `k − 1` keeps its oriented list, and every vertex counts the triangles whose
//! lowest vertex (in rank) it is and whose middle vertex lies in chunk `k − 2`, whose lists the
//! iteration before kept ([`count_at`]): a triangle `a < b < c` is found once, at `a`, when
//! `b`'s chunk is held. `C` chunks take `C + 2` iterations, each reading the layout's sources
//! and targets once.

use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use diskgraph_engine::shards::{Program, ProgramNeeds, ShardGraph, Update};
use diskgraph_engine::Engine;

use super::{count_at, oriented_neighbours, Triangles};
use crate::kcore::simple_neighbours;
use crate::AlgoError;

/// Bytes a held oriented list costs besides its entries (its `Vec`).
const LIST_OVERHEAD: u64 = 24;

thread_local! {
    /// An update's in-sources and out-targets, reused by every update on the thread.
    static SCRATCH: std::cell::RefCell<(Vec<u32>, Vec<u32>)> = const { std::cell::RefCell::new((Vec::new(), Vec::new())) };
    /// An update's oriented list, reused likewise (a collected list is copied out at its size).
    static UP: std::cell::RefCell<Vec<u32>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// A vertex's simple degree and, while its chunk is being collected, its oriented list.
#[derive(Clone, Debug, Default)]
struct Vertex {
    degree: u32,
    up: Vec<u32>,
}

/// The counting program.
struct Counting {
    directed: bool,
    /// Bytes the lists of one chunk may take (two chunks are in memory at once).
    chunk_budget: u64,
    degree: Vec<u32>,
    chunks: Vec<Range<u32>>,
    /// The chunk whose lists are held, and the lists.
    held: Option<(Range<u32>, Vec<Vec<u32>>)>,
    counts: Vec<AtomicU64>,
    largest_chunk_bytes: u64,
}

impl Counting {
    /// Calls `f` with the sorted out-targets and in-sources of the vertex of `u` (the in-sources
    /// alone, as neighbours, on an undirected graph).
    /// The lists are gathered into the thread's reused buffers: no allocation per update.
    fn lists<R>(&self, u: &Update<'_, Vertex>, f: impl FnOnce(&[u32], &[u32]) -> R) -> R {
        SCRATCH.with_borrow_mut(|(sources, targets)| {
            sources.clear();
            sources.extend((0..u.in_edges.len()).map(|i| u.in_edges.source(i)));
            match self.directed {
                true => {
                    targets.clear();
                    targets.extend(u.out_edges.targets());
                    f(targets, sources)
                }
                false => f(sources, &[]),
            }
        })
    }

    /// The chunk of iteration `k`'s collection (`k − 1`), if any.
    fn collecting(&self, iteration: u32) -> Option<&Range<u32>> {
        (iteration as usize).checked_sub(1).and_then(|c| self.chunks.get(c))
    }

    /// Cuts the vertices into chunks whose oriented lists fit the chunk budget.
    fn cut(&mut self) {
        let edges: u64 = self.degree.iter().map(|&d| u64::from(d)).sum::<u64>() / 2;
        let longest = (2.0 * edges as f64).sqrt() as u64 + 1;
        let (mut start, mut bytes) = (0u32, 0u64);
        for (v, &d) in self.degree.iter().enumerate() {
            let cost = 4 * u64::from(d).min(longest) + LIST_OVERHEAD;
            if bytes + cost > self.chunk_budget && v as u32 > start {
                self.chunks.push(start..v as u32);
                self.largest_chunk_bytes = self.largest_chunk_bytes.max(bytes);
                (start, bytes) = (v as u32, 0);
            }
            bytes += cost;
        }
        if (start as usize) < self.degree.len() {
            self.chunks.push(start..self.degree.len() as u32);
            self.largest_chunk_bytes = self.largest_chunk_bytes.max(bytes);
        }
    }
}

impl Program for Counting {
    type Value = Vertex;

    fn needs(&self) -> ProgramNeeds {
        ProgramNeeds {
            in_sources: true,
            out_targets: self.directed,
            edge_values: false,
            // An undirected graph's in-edges are every neighbour.
            out_edges: self.directed,
        }
    }

    fn update(&self, u: Update<'_, Vertex>) {
        let v = u.vertex;
        if u.iteration == 0 {
            let mut d = 0;
            self.lists(&u, |out, inn| simple_neighbours(v, out, inn, |_| d += 1));
            u.value.degree = d;
            return;
        }
        UP.with_borrow_mut(|up| {
            up.clear();
            self.lists(&u, |out, inn| {
                oriented_neighbours(v, out, inn, &self.degree, |w| up.push(w))
            });
            if let Some((chunk, lists)) = &self.held {
                let mut found = 0;
                for &w in up.iter().filter(|w| chunk.contains(w)) {
                    found += count_at(&self.counts, w, up, &lists[(w - chunk.start) as usize]);
                }
                if found > 0 {
                    self.counts[v as usize].fetch_add(found, Relaxed);
                }
            }
            if self.collecting(u.iteration).is_some_and(|c| c.contains(&v)) {
                u.value.up = up.clone();
            }
        });
    }

    fn after_iteration(&mut self, iteration: u32, values: &mut [Vertex]) -> bool {
        if iteration == 0 {
            self.degree = values.iter().map(|x| x.degree).collect();
            self.cut();
        }
        self.held = self.collecting(iteration).cloned().map(|chunk| {
            let lists = values[chunk.start as usize..chunk.end as usize]
                .iter_mut()
                .map(|x| std::mem::take(&mut x.up))
                .collect();
            (chunk, lists)
        });
        // After the degrees, the first chunk is collected; after that, until the last is held
        // and counted.
        (iteration == 0 && !self.chunks.is_empty()) || self.held.is_some()
    }
}

/// Triangle counts on the simple undirected view of `g` (see the module doc) within a run's
/// budget of `memory` bytes: the held and the collected chunk's lists share what the engine's
/// budget leaves of it (the registry gives the engine half, or its minimum when that is more).
///
/// Errors: engine failures.
pub fn triangles(g: &ShardGraph, memory: u64) -> Result<Triangles, AlgoError> {
    let n = g.num_vertices();
    let mut program = Counting {
        directed: g.directed(),
        chunk_budget: memory.saturating_sub(g.budget()) / 2,
        degree: Vec::new(),
        chunks: Vec::new(),
        held: None,
        counts: (0..n).map(|_| AtomicU64::new(0)).collect(),
        largest_chunk_bytes: 0,
    };
    let mut values = vec![Vertex::default(); n];
    g.run(&mut program, &mut values, u32::MAX)?;
    let per_vertex: Vec<u64> = program.counts.into_iter().map(AtomicU64::into_inner).collect();
    Ok(Triangles {
        total: per_vertex.iter().sum::<u64>() / 3,
        per_vertex,
        chunks: program.chunks.len() as u64,
        oriented_bytes: program.largest_chunk_bytes,
        edges_processed: None,
    })
}
