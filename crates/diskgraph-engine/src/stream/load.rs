//! Computing on one loaded block: range checks, the run index, and the passes of loaded-data
//! reentry.
//!
//! Every edge is checked to lie in its block's source and destination ranges before any edge
//! function sees it. A load whose every edge is active and which gets one pass is processed
//! front to back (checks fused with the calls). Otherwise a *run index* is built first: the
//! positions where the source changes (inside a `grid` or `source` block, each source's edges are
//! one run), so a pass tests each source once and skips its whole run when inactive.
//!
//! Passes: pass 1 processes the runs of the active sources (GridGraph's rule: activity as of
//! the iteration's start); with `mrt > 1` every vertex of the block's source range that an edge
//! function updates is marked *pending* (the engine-wide `pending` bitmap), and passes 2, 3, …
//! process the runs of pending sources — clearing the mark before processing, so a source
//! updated again later in the same pass is processed again — until a pass leaves nothing pending
//! or `mrt` passes ran. Pending marks left over are cleared; every update is also recorded in the
//! iteration's `next` frontier, so nothing depends on the reentry passes for correctness.

use std::ops::Range;
use std::path::Path;

use diskgraph_format::{FormatError, GridEdge};
use rayon::prelude::*;

use super::{Frontier, Update};

/// A loaded block (or piece of one).
pub(crate) struct Loaded<'a> {
    pub edges: &'a [GridEdge],
    pub weights: Option<&'a [f32]>,
    /// Edge number of `edges[0]` in the layout.
    pub first: u64,
    pub block: usize,
    pub sources: Range<u64>,
    pub destinations: Range<u64>,
}

/// What computing on one load (or several) did.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct LoadCounts {
    pub processed: u64,
    pub skipped: u64,
    pub passes: u64,
}

impl std::ops::AddAssign for LoadCounts {
    fn add_assign(&mut self, o: LoadCounts) {
        self.processed += o.processed;
        self.skipped += o.skipped;
        self.passes += o.passes;
    }
}

/// Edges at least per parallel task.
const MIN_TASK_EDGES: usize = 4096;

/// How to compute on loads.
pub(crate) struct Exec<'a, F> {
    pub f: &'a F,
    pub active: Option<&'a Frontier>,
    pub next: Option<&'a Frontier>,
    pub pending: &'a Frontier,
    pub mrt: u32,
    /// Split a load's edges over the threads ([`Threads::Shared`](super::Threads::Shared)).
    pub split: bool,
    pub edges_path: &'a Path,
}

impl<F> Exec<'_, F>
where
    F: Fn(GridEdge, f32) -> Update + Sync,
{
    /// Checks and computes on `load`; `runs` is the run index's buffer.
    pub fn run(&self, load: &Loaded<'_>, runs: &mut Vec<u32>) -> Result<LoadCounts, FormatError> {
        if self.active.is_none() && self.mrt <= 1 {
            return self.front_to_back(load);
        }
        self.build_runs(load, runs)?;
        let tasks = self.tasks(runs);
        let track = self.mrt > 1;
        let sources = &load.sources;
        let first = |u: u32| {
            let go = self.active.is_none_or(|a| a.contains(u));
            if go && track {
                self.pending.remove(u);
            }
            go
        };
        let (processed, skipped) = self.pass(load, runs, &tasks, first);
        let mut counts = LoadCounts {
            processed,
            skipped,
            passes: 1,
        };
        if track {
            while counts.passes < u64::from(self.mrt) && self.pending.any_in(sources.clone()) {
                let (p, _) = self.pass(load, runs, &tasks, |u| self.pending.remove(u));
                counts.processed += p;
                counts.passes += 1;
            }
            self.pending.remove_range(sources.clone());
        }
        Ok(counts)
    }

    /// Records an update: in `next`, and as pending when it is a source of this load.
    #[inline]
    fn mark(&self, v: u32, sources: &Range<u64>) {
        if let Some(n) = self.next {
            n.insert(v);
        }
        if self.mrt > 1 && sources.contains(&u64::from(v)) {
            self.pending.insert(v);
        }
    }

    #[inline]
    fn apply(&self, load: &Loaded<'_>, i: usize) {
        let e = load.edges[i];
        let w = load.weights.map_or(1.0, |w| w[i]);
        let up = (self.f)(e, w);
        if up.dst() {
            self.mark(e.dst, &load.sources);
        }
        if up.src() {
            self.mark(e.src, &load.sources);
        }
    }

    fn outside(&self, load: &Loaded<'_>, i: usize) -> FormatError {
        outside_block(load, i, self.edges_path)
    }

    /// Every edge, once, in order (or in parallel pieces), each checked before its call.
    fn front_to_back(&self, load: &Loaded<'_>) -> Result<LoadCounts, FormatError> {
        let len = load.edges.len();
        let piece = |r: Range<usize>| -> Option<usize> {
            for i in r {
                if first_outside(load, i..i + 1).is_some() {
                    return Some(i);
                }
                self.apply(load, i);
            }
            None
        };
        let bad = if self.split && len >= 2 * MIN_TASK_EDGES {
            let step = task_len(len);
            (0..len.div_ceil(step))
                .into_par_iter()
                .filter_map(|t| piece(t * step..((t + 1) * step).min(len)))
                .min()
        } else {
            piece(0..len)
        };
        match bad {
            Some(i) => Err(self.outside(load, i)),
            None => Ok(LoadCounts {
                processed: len as u64,
                skipped: 0,
                passes: 1,
            }),
        }
    }

    /// Checks every edge and fills `runs` with the start of each run of equal sources, plus the
    /// end.
    fn build_runs(&self, load: &Loaded<'_>, runs: &mut Vec<u32>) -> Result<(), FormatError> {
        let edges = load.edges;
        let len = edges.len();
        runs.clear();
        let starts = |r: Range<usize>, out: &mut Vec<u32>| {
            for i in r {
                if i == 0 || edges[i].src != edges[i - 1].src {
                    out.push(i as u32);
                }
            }
        };
        if self.split && len >= 2 * MIN_TASK_EDGES {
            let step = task_len(len);
            let parts: Vec<(Option<usize>, Vec<u32>)> = (0..len.div_ceil(step))
                .into_par_iter()
                .map(|t| {
                    let r = t * step..((t + 1) * step).min(len);
                    let mut out = Vec::new();
                    starts(r.clone(), &mut out);
                    (first_outside(load, r), out)
                })
                .collect();
            if let Some(i) = parts.iter().filter_map(|p| p.0).min() {
                return Err(self.outside(load, i));
            }
            for (_, p) in parts {
                runs.extend(p);
            }
        } else {
            if let Some(i) = first_outside(load, 0..len) {
                return Err(self.outside(load, i));
            }
            starts(0..len, runs);
        }
        runs.push(len as u32);
        Ok(())
    }

    /// Ranges of run numbers for parallel tasks (one range when sequential).
    fn tasks(&self, runs: &[u32]) -> Vec<Range<usize>> {
        let nruns = runs.len() - 1;
        let len = runs[nruns] as usize;
        if !self.split || len < 2 * MIN_TASK_EDGES {
            return std::iter::once(0..nruns).collect();
        }
        let step = task_len(len) as u32;
        let mut tasks = Vec::new();
        let mut start = 0;
        for r in 1..nruns {
            if runs[r] - runs[start] >= step {
                tasks.push(start..r);
                start = r;
            }
        }
        tasks.push(start..nruns);
        tasks
    }

    /// One pass over the runs for which `go(source)` holds; returns (edges processed, edges
    /// skipped).
    fn pass(
        &self,
        load: &Loaded<'_>,
        runs: &[u32],
        tasks: &[Range<usize>],
        go: impl Fn(u32) -> bool + Sync,
    ) -> (u64, u64) {
        let task = |t: &Range<usize>| {
            let (mut processed, mut skipped) = (0u64, 0u64);
            for r in t.clone() {
                let (a, b) = (runs[r] as usize, runs[r + 1] as usize);
                if go(load.edges[a].src) {
                    for i in a..b {
                        self.apply(load, i);
                    }
                    processed += (b - a) as u64;
                } else {
                    skipped += (b - a) as u64;
                }
            }
            (processed, skipped)
        };
        if tasks.len() == 1 {
            return task(&tasks[0]);
        }
        tasks
            .par_iter()
            .map(task)
            .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
    }
}

/// Computes `work` on `loads` in order, running loads of distinct columns (`column(load)`) at
/// once: the loads are cut into waves in which no column repeats, each wave's loads run in
/// parallel (each on one thread), and the waves one after another.
pub(crate) fn by_column<W>(
    loads: &[Loaded<'_>],
    column: impl Fn(&Loaded<'_>) -> u32,
    work: W,
) -> Result<LoadCounts, FormatError>
where
    W: Fn(&Loaded<'_>) -> Result<LoadCounts, FormatError> + Sync,
{
    let wave = |wave: &[Loaded<'_>]| -> Result<LoadCounts, FormatError> {
        if let [one] = wave {
            return work(one);
        }
        let counts: Vec<LoadCounts> = wave.par_iter().with_max_len(1).map(&work).collect::<Result<_, _>>()?;
        Ok(counts.into_iter().fold(LoadCounts::default(), |mut t, c| {
            t += c;
            t
        }))
    };
    let mut total = LoadCounts::default();
    let mut columns = std::collections::HashSet::new();
    let mut start = 0;
    for (i, l) in loads.iter().enumerate() {
        if !columns.insert(column(l)) {
            total += wave(&loads[start..i])?;
            columns.clear();
            columns.insert(column(l));
            start = i;
        }
    }
    total += wave(&loads[start..])?;
    Ok(total)
}

/// Gathers a load of a destination-sorted layout: checks every edge against the block, then
/// calls `f(dst, edges, weights)` once per run of edges with one destination, in file order.
pub(crate) fn gather<G>(load: &Loaded<'_>, edges_path: &Path, f: &G) -> Result<LoadCounts, FormatError>
where
    G: Fn(u32, &[GridEdge], Option<&[f32]>),
{
    let edges = load.edges;
    if let Some(i) = first_outside(load, 0..edges.len()) {
        return Err(outside_block(load, i, edges_path));
    }
    let mut a = 0;
    while a < edges.len() {
        let dst = edges[a].dst;
        let b = a + edges[a..].iter().position(|e| e.dst != dst).unwrap_or(edges.len() - a);
        f(dst, &edges[a..b], load.weights.map(|w| &w[a..b]));
        a = b;
    }
    Ok(LoadCounts {
        processed: edges.len() as u64,
        skipped: 0,
        passes: 1,
    })
}

/// The position of the first edge of `range` outside the load's block, if any.
#[inline]
fn first_outside(load: &Loaded<'_>, range: Range<usize>) -> Option<usize> {
    let (src_first, src_count) = (load.sources.start, load.sources.end - load.sources.start);
    let (dst_first, dst_count) = (load.destinations.start, load.destinations.end - load.destinations.start);
    range.into_iter().find(|&i| {
        let e = load.edges[i];
        u64::from(e.src).wrapping_sub(src_first) >= src_count || u64::from(e.dst).wrapping_sub(dst_first) >= dst_count
    })
}

/// The error for edge `i` of `load` lying outside its block.
fn outside_block(load: &Loaded<'_>, i: usize, edges_path: &Path) -> FormatError {
    let e = load.edges[i];
    FormatError::Content {
        path: edges_path.to_path_buf(),
        reason: format!(
            "edge {} ({} -> {}) lies outside block {} (sources {:?}, destinations {:?})",
            load.first + i as u64,
            e.src,
            e.dst,
            load.block,
            load.sources,
            load.destinations
        ),
    }
}

/// Edges per parallel task: about four tasks per thread, at least [`MIN_TASK_EDGES`].
fn task_len(len: usize) -> usize {
    len.div_ceil(4 * rayon::current_num_threads()).max(MIN_TASK_EDGES)
}
