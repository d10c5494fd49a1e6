//! `edge_map`: Ligra's `edgeMap(frontier, F)` over the I/O iterator.
//!
//! For every edge `s → d` with `s` in the frontier and `cond(d)`, call `update(s, d, w)`; the
//! vertices `d` for which it returned true form the next frontier. Two ways to find the edges:
//!
//! - **push**: read the frontier's lists (direction `along`) and update their targets;
//! - **pull**: read the *reverse* lists of the candidates — vertices `d` with `cond(d)` and a
//!   non-empty reverse list — and update from those in-neighbours that are in the frontier,
//!   stopping at a vertex's first successful update when `cond` turns false (bottom-up BFS).
//!
//! In memory, pulling pays because a vertex stops scanning early; on disk a list is read whole
//! either way, so [`Mode::Auto`] chooses by *bytes read*: it considers pulling only when the
//! frontier's lists hold more than `1/check_divisor` of all edges (so small frontiers never pay
//! for the O(n) candidate scan), and pulls when the candidates' reverse lists hold at most
//! `pull_ratio` times the frontier's edges (pull reads are denser — whole runs of consecutive
//! lists — so they are allowed to be somewhat larger).
//!
//! `update` may run concurrently for the same `d` — a list can arrive in pieces on several
//! workers, in either mode — so it must be atomic (Ligra's `updateAtomic`).

use diskgraph_format::Direction;

use super::frontier::bit;
use super::piece::Closures;
use super::ranges::ListWindow;
use super::retained::{LocalStash, Stash};
use super::{EngineError, FrontierBuilder, SchedulerKind, SelectiveGraph, VertexSubset};

/// Consider pulling only when the frontier's lists hold more than `1 / PULL_CHECK_DIVISOR` of
/// the edges (Ligra's dense threshold).
pub const PULL_CHECK_DIVISOR: u64 = 20;
/// Pull when the candidates' reverse lists hold at most this many times the frontier's edges.
pub const PULL_READ_RATIO: f64 = 2.0;

/// The algorithm's side of [`SelectiveGraph::edge_map`].
pub trait EdgeFn: Sync {
    /// Whether `d` can still be updated (Ligra's `cond`); false skips it. Default: always.
    fn cond(&self, _d: u32) -> bool {
        true
    }

    /// Applies the edge `s → d` of weight `w` (1 when weights were not read); true puts `d` in
    /// the next frontier. Must be safe to call concurrently, also for the same `d`.
    fn update(&self, s: u32, d: u32, w: f32) -> bool;
}

/// Push, pull, or choose per call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Read the frontier's lists.
    Push,
    /// Read the candidates' reverse lists.
    Pull,
    /// Choose by bytes to read (see the module doc).
    Auto,
}

/// Settings of an [`edge_map`](SelectiveGraph::edge_map) call.
#[derive(Clone, Debug)]
pub struct EdgeMapOptions {
    /// Push, pull or auto.
    pub mode: Mode,
    /// Which edges: `Out` follows stored out-edges `s → d`; `In` follows them backwards
    /// (`s` is the head of a stored edge and `d` its tail).
    pub along: Direction,
    /// Read the weights too.
    pub weights: bool,
    /// See [`PULL_CHECK_DIVISOR`].
    pub check_divisor: u64,
    /// See [`PULL_READ_RATIO`].
    pub pull_ratio: f64,
    /// Pull in two rounds: first the head of each candidate's list (up to the end of the block
    /// holding its first edge), then the rest only for candidates whose `cond` still holds.
    /// Pays when `cond` turns false after one update (bottom-up BFS): most candidates stop in
    /// their first block, and the long lists, which hold most of the bytes, are mostly not read.
    pub head_first: bool,
}

impl Default for EdgeMapOptions {
    fn default() -> Self {
        EdgeMapOptions {
            mode: Mode::Auto,
            along: Direction::Out,
            weights: false,
            check_divisor: PULL_CHECK_DIVISOR,
            pull_ratio: PULL_READ_RATIO,
            head_first: false,
        }
    }
}

impl EdgeMapOptions {
    /// The default options following `along`.
    pub fn along(along: Direction) -> Self {
        EdgeMapOptions {
            along,
            ..Default::default()
        }
    }

    /// The same with `mode`.
    pub fn mode(mut self, mode: Mode) -> Self {
        self.mode = mode;
        self
    }

    /// The same, pulling head first (see [`head_first`](Self::head_first)).
    pub fn head_first(mut self) -> Self {
        self.head_first = true;
        self
    }

    /// The same, reading weights.
    pub fn with_weights(mut self) -> Self {
        self.weights = true;
        self
    }
}

/// The other direction.
pub fn reverse(d: Direction) -> Direction {
    match d {
        Direction::Out => Direction::In,
        Direction::In => Direction::Out,
    }
}

impl SelectiveGraph {
    /// `edgeMap`: applies `f` to the edges leaving `frontier` (see the module doc) and returns
    /// the vertices it activated.
    pub fn edge_map<F: EdgeFn>(
        &self,
        frontier: &VertexSubset,
        f: &F,
        opts: &EdgeMapOptions,
    ) -> Result<VertexSubset, EngineError> {
        let mut out = FrontierBuilder::new(self.core.vertices.len());
        self.edge_map_into(frontier, f, opts, &out)?;
        Ok(out.take())
    }

    /// [`edge_map`](Self::edge_map) adding the activated vertices to `out` (so several calls,
    /// e.g. along both directions, can fill one frontier). Returns the mode it used.
    ///
    /// Errors: as [`for_each_piece`](Self::for_each_piece); [`EngineError::MissingInEdges`]
    /// when `Mode::Pull` (or `along: In`) needs in-edges that were not opened.
    pub fn edge_map_into<F: EdgeFn>(
        &self,
        frontier: &VertexSubset,
        f: &F,
        opts: &EdgeMapOptions,
        out: &FrontierBuilder,
    ) -> Result<Mode, EngineError> {
        let along = opts.along;
        let back = reverse(along);
        if self.io.config().scheduler == SchedulerKind::Pluglist {
            // The baseline issues the next round's reads in activation order (see `ranges`).
            out.keep_arrival_order();
        }
        if !self.has(along) {
            return Err(EngineError::MissingInEdges);
        }
        let candidates = match opts.mode {
            Mode::Push => None,
            Mode::Pull if !self.has(back) => return Err(EngineError::MissingInEdges),
            Mode::Pull => Some(self.candidates(f, back)),
            Mode::Auto => self.choose(frontier, f, opts),
        };
        match candidates {
            None => {
                self.for_each_piece_with(
                    along,
                    frontier,
                    opts.weights,
                    || out.local(),
                    |local, s, p| {
                        for (k, &d) in p.targets.iter().enumerate() {
                            if f.cond(d) && f.update(s, d, p.weight(k)) {
                                local.insert(d);
                            }
                        }
                    },
                    drop,
                )?;
                Ok(Mode::Push)
            }
            Some(candidates) => {
                self.pull(frontier, &candidates, f, opts, out)?;
                Ok(Mode::Pull)
            }
        }
    }

    /// The pull side of [`edge_map_into`](Self::edge_map_into): reads the candidates' reverse
    /// lists (head first when asked) and updates each candidate from its in-neighbours in the
    /// frontier. Keeps the whole lists the next round will read again (see `retained`): those
    /// of candidates that stay candidates, and — when the push direction reads the same file
    /// and all candidates' lists fit — those of the vertices it activates.
    fn pull<F: EdgeFn>(
        &self,
        frontier: &VertexSubset,
        candidates: &VertexSubset,
        f: &F,
        opts: &EdgeMapOptions,
        out: &FrontierBuilder,
    ) -> Result<(), EngineError> {
        let back = reverse(opts.along);
        let front = frontier.to_bits();
        let stash = if opts.weights { None } else { self.stash(back) };
        let keep_activated = stash.as_ref().is_some_and(|s| {
            self.physical(back) == self.physical(opts.along)
                && candidates.sum_by(|d| Stash::cost(self.degree(back, d))) <= s.capacity()
        });
        let compute = Closures::new(
            || (out.local(), LocalStash::default()),
            |(local, kept), d, p| {
                if !f.cond(d) {
                    return;
                }
                for (k, &s) in p.targets.iter().enumerate() {
                    if bit(&front, s) {
                        if f.update(s, d, p.weight(k)) {
                            local.insert(d);
                        }
                        if !f.cond(d) {
                            break;
                        }
                    }
                }
                if let Some(stash) = &stash {
                    if p.is_whole() && (keep_activated || f.cond(d)) && !self.is_static(back, d) {
                        stash.keep(kept, d, p.targets);
                    }
                }
            },
            |(local, kept)| {
                drop(local);
                if let Some(stash) = &stash {
                    stash.merge(kept);
                }
            },
        );
        let read = |set: &VertexSubset, window| self.read_window(back, set, window, opts.weights, &compute);
        if opts.head_first {
            read(candidates, ListWindow::Head)?;
            let rest = candidates.filter(|d| f.cond(d) && self.has_tail(back, d));
            read(&rest, ListWindow::Tail)?;
        } else {
            read(candidates, ListWindow::Whole)?;
        }
        if let Some(stash) = stash {
            self.retain(stash);
        }
        Ok(())
    }

    /// Vertices with `cond` and a non-empty list in direction `back`.
    fn candidates<F: EdgeFn>(&self, f: &F, back: Direction) -> VertexSubset {
        VertexSubset::from_fn(self.core.vertices.len(), |d| self.degree(back, d) > 0 && f.cond(d))
    }

    /// `Mode::Auto`: `Some(candidates)` to pull, `None` to push.
    fn choose<F: EdgeFn>(&self, frontier: &VertexSubset, f: &F, opts: &EdgeMapOptions) -> Option<VertexSubset> {
        let back = reverse(opts.along);
        if !self.has(back) {
            return None;
        }
        let frontier_edges = frontier.sum_by(|v| self.degree(opts.along, v));
        if frontier_edges.saturating_mul(opts.check_divisor.max(1)) <= self.core.num_arcs {
            return None;
        }
        let candidates = self.candidates(f, back);
        let candidate_edges = candidates.sum_by(|d| self.degree(back, d));
        (candidate_edges as f64 <= opts.pull_ratio * frontier_edges as f64).then_some(candidates)
    }
}
