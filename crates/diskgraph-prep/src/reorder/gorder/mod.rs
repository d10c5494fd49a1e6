//! Gorder (Wei, Yu, Lu and Lin, "Speedup Graph Processing by Graph Ordering", SIGMOD '16): the
//! slow state-of-the-art baseline Norder is measured against.
//!
//! The greedy algorithm places one vertex at a time: the next vertex is the unplaced one with
//! the highest score against the last `w` placed vertices (the window), where the score of `u`
//! against `v` counts the arcs between them (either direction) plus their common in-neighbours
//! (siblings). Scores live in a "unit heap": one doubly linked list of vertices per score, so
//! each score change is O(1) and the maximum is found by walking down from the last one; as in
//! the authors' code, decrements are applied lazily (see [`UnitHeap`]). Also as in their code,
//! in-neighbours whose out-degree exceeds √V are not used as siblings (nor as neighbours), a
//! vertex of out-degree above √V does not score its out-neighbours, the first vertex is the one
//! of highest in-degree, and ties (a window unrelated to every unplaced vertex in particular)
//! go to the vertex of highest in-degree at first.
//!
//! The whole graph (out- and, for directed graphs, in-lists) and the heap are held in memory:
//! [`gorder_memory`] bytes, which must fit in `--memory`. Long runs can be checkpointed and
//! resumed ([`GorderCheckpoint`]; the file format is in `checkpoint.rs`).

mod checkpoint;
mod heap;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use diskgraph_format::{Csr, Direction, GraphDir, Manifest};
use diskgraph_io::human_bytes;

use super::simple;
use crate::progress::stop_point;
use crate::Progress;
use heap::UnitHeap;

/// The "no vertex" link in the unit heap.
const NIL: u32 = u32::MAX;
/// Placements between progress updates.
const PROGRESS_EVERY: usize = 1 << 10;

/// Gorder's default window for this graph: the average number of adjacency lists per
/// `page_bytes` page of `out.adj` (4-byte entries per page over the mean list length), at least
/// 1 and at most V. The paper sets the window so for the page cache's pages.
pub fn default_window(m: &Manifest, page_bytes: u64) -> u64 {
    let n = m.num_vertices.max(1);
    if m.num_arcs == 0 {
        return n;
    }
    let entries = (page_bytes / 4).max(1) as f64;
    let per_page = (entries * n as f64 / m.num_arcs as f64).round() as u64;
    per_page.clamp(1, n)
}

/// Bytes Gorder holds for this graph: each CSR direction it needs (8 bytes per offset, 4 per
/// arc; an undirected graph's `out.*` serves both directions) plus 28 bytes per vertex: 20 for
/// the heap, 4 for the order and 4 for the initial in-degree ranking.
pub fn gorder_memory(m: &Manifest) -> u64 {
    let directions = if m.directed { 2 } else { 1 };
    let csr = (m.num_vertices + 1)
        .saturating_mul(8)
        .saturating_add(m.num_arcs.saturating_mul(4));
    csr.saturating_mul(directions)
        .saturating_add(m.num_vertices.saturating_mul(28))
}

/// Where Gorder keeps its state between runs, how often it saves it, and how long one run may
/// last: Gorder takes hours on large graphs, so a run can be stopped (killed, or at its time
/// limit) and the next one with the same checkpoint goes on from the last save.
#[derive(Clone, Debug, PartialEq)]
pub struct GorderCheckpoint {
    /// The state file. A run resumes from it when it exists (it must hold the state of the same
    /// graph and window) and removes it once the ordering is complete.
    pub path: PathBuf,
    /// Wall time between saves.
    pub every: Duration,
    /// Save and stop with [`GorderSuspended`] once this run has lasted this long.
    pub time_limit: Option<Duration>,
}

/// A Gorder run stopped at its time limit after saving its state: not a failure, the next run
/// with the same checkpoint goes on.
#[derive(Debug, thiserror::Error)]
#[error(
    "gorder stopped at its time limit with {placed} of {total} vertices placed ({seconds:.0} s of \
     ordering so far); its state is saved in {}: run the same command again to go on",
    path.display()
)]
pub struct GorderSuspended {
    /// The checkpoint file.
    pub path: PathBuf,
    /// Vertices placed so far.
    pub placed: u64,
    /// Vertices of the graph.
    pub total: u64,
    /// Seconds of ordering over every run so far.
    pub seconds: f64,
}

/// A computed Gorder ordering.
pub(super) struct GorderResult {
    pub(super) order: Vec<u32>,
    /// Seconds the runs before this one spent (zero unless resumed from a checkpoint).
    pub(super) earlier_seconds: f64,
}

/// The Gorder ordering of `g` with window `window`, refused when [`gorder_memory`] exceeds
/// `memory`; with a checkpoint, resumed from it and saved to it (see [`GorderCheckpoint`]).
pub(super) fn gorder(
    g: &GraphDir,
    window: u64,
    memory: u64,
    checkpoint: Option<&GorderCheckpoint>,
    progress: &mut dyn Progress,
) -> Result<GorderResult> {
    let m = g.manifest();
    let need = gorder_memory(m);
    if need > memory {
        bail!(
            "gorder keeps the whole graph and its priority queue in memory: this graph needs {}, \
             more than --memory {} (raise --memory, or use norder, which keeps O(V) state)",
            human_bytes(need),
            human_bytes(memory)
        );
    }
    if m.num_vertices > u64::from(NIL) {
        bail!(
            "gorder handles at most {NIL} vertices, the graph has {}",
            m.num_vertices
        );
    }
    let started = Instant::now();
    let identity = checkpoint::identity(m, window);
    let resumed = match checkpoint {
        Some(c) if c.path.exists() => Some(checkpoint::load(&c.path, identity, m.num_vertices)?),
        _ => None,
    };
    let (mut heap, mut order, earlier_seconds) = match resumed {
        Some(state) => (state.heap, state.order, state.seconds),
        None => (
            UnitHeap::new(&simple::degree(g)?),
            Vec::with_capacity(m.num_vertices as usize),
            0.0,
        ),
    };
    let out = g.load_csr(Direction::Out, false)?;
    let inn = match m.directed {
        true => Some(g.load_csr(Direction::In, false)?),
        false => None,
    };
    let scores = Scores {
        out: &out,
        inn: inn.as_ref().unwrap_or(&out),
        huge: (m.num_vertices as f64).sqrt() as usize,
    };
    let n = m.num_vertices as usize;
    let window = usize::try_from(window).unwrap_or(usize::MAX);
    progress.phase("gorder", Some(n as u64));
    let mut saved = Instant::now();
    for p in order.len()..n {
        // A placement can take seconds (hubs): the stop is polled at each.
        stop_point(progress)?;
        let v = heap.pop_max().expect("an unplaced vertex remains while p < V");
        order.push(v);
        scores.relate(v, |u| heap.increment(u));
        if p >= window {
            scores.relate(order[p - window], |u| heap.decrement(u));
        }
        if (p + 1) % PROGRESS_EVERY == 0 {
            progress.update(p as u64 + 1);
        }
        // The clock is read after every placement: early ones (hubs and their neighbours) can
        // each take many seconds on a large graph.
        let Some(c) = checkpoint.filter(|_| p + 1 < n) else {
            continue;
        };
        let over = c.time_limit.is_some_and(|limit| started.elapsed() >= limit);
        if over || saved.elapsed() >= c.every {
            let seconds = earlier_seconds + started.elapsed().as_secs_f64();
            checkpoint::save(&c.path, identity, &heap, &order, seconds)?;
            saved = Instant::now();
            if over {
                return Err(GorderSuspended {
                    path: c.path.clone(),
                    placed: order.len() as u64,
                    total: n as u64,
                    seconds,
                }
                .into());
            }
        }
    }
    if let Some(c) = checkpoint.filter(|c| c.path.exists()) {
        std::fs::remove_file(&c.path).with_context(|| format!("cannot remove {}", c.path.display()))?;
    }
    Ok(GorderResult { order, earlier_seconds })
}

/// The graph as Gorder's score function sees it.
struct Scores<'a> {
    out: &'a Csr,
    inn: &'a Csr,
    /// Out-degree above which a vertex is "huge" (√V).
    huge: usize,
}

impl Scores<'_> {
    /// Calls `f(u)` once per unit of score between `v` and `u`: for each out-neighbour `u` of
    /// `v` (unless `v` is huge); for each in-neighbour `x` of `v` that is not huge, `x` itself
    /// and every out-neighbour of `x` (a sibling of `v`, `v` itself included: it is placed).
    fn relate(&self, v: u32, mut f: impl FnMut(u32)) {
        if self.out.degree(v) <= self.huge {
            self.out.neighbours(v).iter().for_each(|&u| f(u));
        }
        for &x in self.inn.neighbours(v) {
            let degree = self.out.degree(x);
            if degree <= self.huge {
                f(x);
                if degree > 1 {
                    self.out.neighbours(x).iter().for_each(|&u| f(u));
                }
            }
        }
    }
}
