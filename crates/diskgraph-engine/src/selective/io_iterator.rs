//! The I/O iterator (Graphene's IoIterator): a round of [`SelectiveGraph::for_each_piece`] and
//! its kin. It turns the active vertices' adjacency lists into byte ranges (`ranges`), hands
//! them to [`IoContext::read_round`](diskgraph_io::IoContext::read_round) or to the page cache
//! (`paged`), and maps every completed read back to the active vertices whose lists it holds
//! (`delivery`), each block once (`claims`); the lists held in memory are served meanwhile
//! (`in_memory`). The algorithm gets [`Piece`]s.

use std::sync::atomic::Ordering::Relaxed;

use diskgraph_format::Direction;
use diskgraph_io::{Chunk, SchedulerKind};

use super::delivery::{FirstError, Round};
use super::piece::{Closures, Compute, Piece};
use super::ranges::{ranges_in_parallel, ListWindow, PerVertexRanges, Ranges, Spans};
use super::words::as_f32s;
use super::{Adjacency, EngineError, Offsets, SelectiveGraph, VertexSubset};
use crate::Engine;

impl SelectiveGraph {
    /// Reads the lists of direction `d` of the vertices in `active` and calls `compute(v, piece)`
    /// for every piece of every such list, on the worker threads of the I/O layer, as reads
    /// complete (Graphene's IoIterator: `IsActive` is membership in `active`, `Compute` is
    /// `compute`). `weights` also reads the weight file (when the graph was opened with weights).
    ///
    /// Rounds of one graph run one at a time (a round started from inside `compute` would wait
    /// for itself forever).
    ///
    /// Errors: [`EngineError::MissingInEdges`], an I/O failure, or a neighbour ID out of range
    /// ([`FormatError::NeighbourOutOfRange`](diskgraph_format::FormatError::NeighbourOutOfRange));
    /// no further pieces are delivered after an error.
    ///
    /// # Panics
    /// If `active` is over a different number of vertices.
    pub fn for_each_piece(
        &self,
        d: Direction,
        active: &VertexSubset,
        weights: bool,
        compute: impl Fn(u32, Piece<'_>) + Sync,
    ) -> Result<(), EngineError> {
        self.for_each_piece_with(d, active, weights, || (), |_, v, p| compute(v, p), |_| ())
    }

    /// [`for_each_piece`](Self::for_each_piece) with per-read worker state: `init()` makes a
    /// state when a read completes, `compute(&mut state, v, piece)` runs for its pieces, and
    /// `flush(state)` ends it (e.g. a [`LocalFrontier`](super::LocalFrontier) or a local sum).
    pub fn for_each_piece_with<L>(
        &self,
        d: Direction,
        active: &VertexSubset,
        weights: bool,
        init: impl Fn() -> L + Sync,
        compute: impl Fn(&mut L, u32, Piece<'_>) + Sync,
        flush: impl Fn(L) + Sync,
    ) -> Result<(), EngineError> {
        let compute = Closures::new(init, compute, flush);
        self.read_window(d, active, ListWindow::Whole, weights, &compute)
    }

    /// [`for_each_piece_with`](Self::for_each_piece_with) reading only `window` of each list:
    /// pieces are clamped to it, so a round delivers exactly the window's edges once.
    pub(crate) fn read_window<C: Compute>(
        &self,
        d: Direction,
        active: &VertexSubset,
        window: ListWindow,
        weights: bool,
        compute: &C,
    ) -> Result<(), EngineError> {
        assert_eq!(
            active.num_vertices(),
            self.core.vertices.len(),
            "subset over another graph"
        );
        self.check_cancelled()?;
        let adj = self.adjacency(d)?;
        let (files, weights) = match (&adj.weighted, weights) {
            (Some(w), true) => (w, true),
            _ => (&adj.lists, false),
        };
        let statics = if weights { None } else { self.static_lists(d) };
        let retained = if weights { None } else { self.retained(d) };
        let static_bits = statics.map(|s| s.lists().held.bits());
        let round = Round {
            adj,
            files,
            weights,
            active,
            spans: self.spans(adj, window, [static_bits, retained.as_deref().map(|g| g.held.bits())]),
            claims: &self.claims,
            stitch: &self.stitch,
        };
        let lock = self.round_lock.lock().unwrap_or_else(|e| e.into_inner());
        self.rounds.fetch_add(1, Relaxed);
        if active.is_empty() {
            return Ok(());
        }
        // Lists held in memory are computed on while the others are read: the two share no
        // state but the algorithm's, which takes pieces from any thread in any order.
        let from_memory = || {
            if let Some(s) = statics {
                if window != ListWindow::Tail {
                    s.requests.fetch_add(
                        active.sum_by(|v| u64::from(adj.offsets.degree(v as usize) > 0)),
                        Relaxed,
                    );
                }
                let (lists, _) = self.serve_lists(s.lists(), None, active, window, compute);
                s.hits.fetch_add(lists, Relaxed);
            }
            if let Some(g) = &retained {
                let (lists, edges) = self.serve_lists(g, static_bits, active, window, compute);
                self.retained_lists_served.fetch_add(lists, Relaxed);
                self.retained_edges_served.fetch_add(edges, Relaxed);
            }
        };
        let ((), result) = rayon::join(from_memory, || self.read_from_disk(d, &round, compute));
        drop(lock);
        self.step(Some(active.len() as u64));
        result?;
        // The lists served from memory stop delivering once the run is asked to stop.
        self.check_cancelled()
    }

    /// Whether `v`'s list in direction `d` goes on past its [`ListWindow::Head`] (never for
    /// compressed lists, whose head is the whole list).
    pub(crate) fn has_tail(&self, d: Direction, v: u32) -> bool {
        let Ok(adj) = self.adjacency(d) else {
            return false;
        };
        let (a, b) = self.spans(adj, ListWindow::Tail, [None, None]).get(v);
        a < b
    }

    /// The spans of a round reading `window` of the lists of `adj`: over the byte-offset index
    /// of compressed lists (read whole), else over the arc offsets.
    fn spans<'a>(&self, adj: &'a Adjacency, window: ListWindow, in_memory: [Option<&'a [u64]>; 2]) -> Spans<'a> {
        let (offsets, unit): (&Offsets, u64) = match &adj.compressed {
            Some(c) => (&c.bytes, 1),
            None => (&adj.offsets, 4),
        };
        Spans {
            offsets,
            unit,
            whole_lists: adj.compressed.is_some(),
            window,
            block_edges: self.claims.block() / unit,
            in_memory,
        }
    }

    /// The part of a [`read_window`](Self::read_window) round over direction `d` that reads:
    /// the active lists (within the window) not held in memory, through the page cache when
    /// there is one.
    fn read_from_disk<C: Compute>(&self, d: Direction, round: &Round<'_>, compute: &C) -> Result<(), EngineError> {
        let errors = FirstError::default();
        let consume = |chunk: Chunk<'_>| {
            let delivered = round.deliver_chunk(&chunk, compute, &errors);
            self.edges_delivered.fetch_add(delivered, Relaxed);
        };
        let (spans, active, files) = (round.spans, round.active, round.files);
        let arrival = match self.io.config().scheduler {
            SchedulerKind::Pluglist => active.arrival(),
            SchedulerKind::Bitmap => None,
        };
        let per_vertex = arrival.map(|order| PerVertexRanges {
            spans,
            vertices: order.iter().copied(),
        });
        let result = match (&self.page_cache, round.weights) {
            (Some(cache), false) => {
                let file = u64::from(self.physical(d) == Direction::In);
                let ranges = match per_vertex {
                    Some(issued) => issued.collect(),
                    None => ranges_in_parallel(spans, active),
                };
                super::paged::read_through(&self.io, cache, file, files, ranges, &consume)
            }
            _ => match per_vertex {
                Some(mut issued) => self.io.read_round(files, &mut issued, &consume),
                None => self
                    .io
                    .read_round(files, &mut Ranges::new(spans, active.iter()), &consume),
            },
        };
        self.claims.reset();
        let cut = self.stitch.finish();
        result?;
        errors.into_result()?;
        match (cut, &round.adj.compressed) {
            (Some(v), Some(c)) => Err(diskgraph_format::FormatError::Content {
                path: c.path(),
                reason: format!("the round ended before every part of the list of vertex {v} was read"),
            }
            .into()),
            _ => Ok(()),
        }
    }

    /// Reads the whole weight file of direction `d` in one sequential round and calls
    /// `f(first, weights)` for every piece of it, `first` being the edge index of `weights[0]`;
    /// every weight is delivered exactly once. Does nothing when weights were not opened.
    ///
    /// Errors: [`EngineError::MissingInEdges`] or an I/O failure.
    pub fn scan_weights(&self, d: Direction, f: impl Fn(u64, &[f32]) + Sync) -> Result<(), EngineError> {
        self.check_cancelled()?;
        let adj = self.adjacency(d)?;
        let Some(set) = &adj.weights_only else {
            return Ok(());
        };
        let lock = self.round_lock.lock().unwrap_or_else(|e| e.into_inner());
        self.rounds.fetch_add(1, Relaxed);
        let errors = FirstError::default();
        let consume = |chunk: Chunk<'_>| {
            let claimed = self
                .claims
                .claim_words(&chunk, &adj.adj_path, self.core.num_arcs * 4, 4, |lo, span| {
                    f(lo, &as_f32s(&chunk.data[0][span]))
                });
            if let Err(e) = claimed {
                errors.record(e.into());
            }
        };
        let mut whole = std::iter::once((0, self.core.num_arcs * 4)).filter(|r| r.1 > 0);
        let result = self.io.read_round(set, &mut whole, &consume);
        self.claims.reset();
        drop(lock);
        self.step(None);
        result?;
        errors.into_result()
    }
}
