//! Delivering a completed read: the runs of edges it claimed first (see `claims`) are mapped
//! back to the active vertices whose lists they hold and handed to the algorithm as [`Piece`]s,
//! on the worker thread that received the read.
//!
//! Mapping a run of edges `[lo, hi)` back to vertices: with a sparse subset, a binary search
//! over the sorted active list finds the first vertex whose list ends after `lo`, then the list
//! is walked while lists start before `hi`; with a dense subset, a binary search over the offsets
//! finds the vertex holding edge `lo`, then the bitmap is walked. Both cost O(log n + vertices
//! touched) per read, whatever order the reads were issued in.
//!
//! A direction read from a compressed layout maps runs of *bytes* back the same way, over the
//! byte-offset index, and decodes each list there whole (see `compressed`): the algorithm gets
//! whole decoded lists, never the bytes.

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Mutex;

use diskgraph_format::FormatError;
use diskgraph_io::{Chunk, FileSet};

use super::claims::Claims;
use super::compressed::{CompressedLists, Stitch};
use super::frontier::{next_set_bit, Repr};
use super::piece::{Compute, Piece};
use super::ranges::Spans;
use super::words::{as_f32s, as_u32s};
use super::{Adjacency, EngineError, Offsets, VertexSubset};

/// What one round reads from disk, and how its reads map back to the active vertices.
pub(crate) struct Round<'a> {
    /// The direction read (its offsets, and its adjacency file's path for errors).
    pub(crate) adj: &'a Adjacency,
    /// The files read: the adjacency file, then the weight file when `weights`.
    pub(crate) files: &'a FileSet,
    /// Whether the round reads weights.
    pub(crate) weights: bool,
    /// The active vertices.
    pub(crate) active: &'a VertexSubset,
    /// The edges read of each active list.
    pub(crate) spans: Spans<'a>,
    /// The blocks claimed so far this round.
    pub(crate) claims: &'a Claims,
    /// The compressed lists cut by reads this round.
    pub(crate) stitch: &'a Stitch,
}

impl Round<'_> {
    /// Delivers the edges of `chunk` that no other read of the round delivered as pieces to one
    /// task of `compute`; returns the number of edges delivered. Does nothing once `errors`
    /// holds an error, and records its own there.
    pub(crate) fn deliver_chunk<C: Compute>(&self, chunk: &Chunk<'_>, compute: &C, errors: &FirstError) -> u64 {
        if errors.failed() {
            return 0;
        }
        if let Some(c) = &self.adj.compressed {
            return self.deliver_compressed(c, chunk, compute, errors);
        }
        let mut state = compute.init();
        let mut delivered = 0u64;
        let data_end = self.adj.offsets.last() * 4;
        let claimed = self
            .claims
            .claim_words(chunk, &self.adj.adj_path, data_end, 4, |lo, span| {
                if errors.failed() {
                    return;
                }
                let targets = as_u32s(&chunk.data[0][span.clone()]);
                let weights = self.weights.then(|| as_f32s(&chunk.data[1][span]));
                match self.deliver_run(lo, &targets, weights.as_deref(), &mut state, compute) {
                    Ok(n) => delivered += n,
                    Err(e) => errors.record(e),
                }
            });
        if let Err(e) = claimed {
            errors.record(e.into());
        }
        compute.flush(state);
        delivered
    }

    /// [`deliver_chunk`](Self::deliver_chunk) of a read of compressed lists: each active list
    /// the claimed bytes hold whole is decoded and delivered whole; a list they hold part of
    /// goes to the stitch, and is decoded and delivered here if this part completes it.
    fn deliver_compressed<C: Compute>(
        &self,
        c: &CompressedLists,
        chunk: &Chunk<'_>,
        compute: &C,
        errors: &FirstError,
    ) -> u64 {
        let mut state = compute.init();
        let mut delivered = 0u64;
        let mut list = Vec::new();
        let claimed = self
            .claims
            .claim_words(chunk, &self.adj.adj_path, c.len, 1, |lo, span| {
                let bytes = &chunk.data[0][span];
                let hi = lo + bytes.len() as u64;
                self.for_each_active(&c.bytes, lo, hi, |v| {
                    if errors.failed() {
                        return;
                    }
                    let (a, b) = self.spans.get(v);
                    let (s, e) = (a.max(lo), b.min(hi));
                    if s >= e {
                        return;
                    }
                    let part = &bytes[(s - lo) as usize..(e - lo) as usize];
                    let stitched;
                    let whole = if (s, e) == (a, b) {
                        part
                    } else {
                        match self.stitch.add(v, (a, b), s, part) {
                            Some(w) => {
                                stitched = w;
                                &stitched[..]
                            }
                            None => return,
                        }
                    };
                    let degree = self.adj.offsets.degree(v as usize);
                    match c.decode(v, a, whole, degree, &mut list) {
                        Ok(()) => {
                            delivered += degree;
                            let piece = Piece {
                                start: 0,
                                degree,
                                targets: &list,
                                weights: None,
                            };
                            compute.compute(&mut state, v, piece);
                        }
                        Err(e) => errors.record(e),
                    }
                });
            });
        if let Err(e) = claimed {
            errors.record(e.into());
        }
        compute.flush(state);
        delivered
    }

    /// Calls `f(v)` for the active vertices whose lists may intersect words `lo..hi` of the file
    /// indexed by `off` (ascending; `f` clamps to the round's spans).
    fn for_each_active(&self, off: &Offsets, lo: u64, hi: u64, mut f: impl FnMut(u32)) {
        let active = self.active;
        let num_vertices = active.num_vertices();
        match active.repr() {
            Repr::Sparse(list) => {
                let list: &[u32] = list;
                let mut i = list.partition_point(|&v| off.get(v as usize + 1) <= lo);
                while let Some(&v) = list.get(i) {
                    if off.get(v as usize) >= hi {
                        break;
                    }
                    f(v);
                    i += 1;
                }
            }
            Repr::Dense { bits, .. } => {
                let bits: &[u64] = bits;
                // The last vertex whose list starts at or before `lo`.
                let mut v = off.count_at_most(lo).saturating_sub(1);
                while let Some(u) = next_set_bit(bits, v) {
                    if u >= num_vertices || off.get(u) >= hi {
                        break;
                    }
                    f(u as u32);
                    v = u + 1;
                }
            }
        }
    }

    /// Delivers the pieces of the active lists intersecting edges `lo..lo + targets.len()`
    /// (with `weights` parallel to `targets` when read); returns the number of edges delivered.
    ///
    /// Errors: a neighbour ID out of range ([`FormatError::NeighbourOutOfRange`]), before
    /// anything of the run is delivered.
    fn deliver_run<C: Compute>(
        &self,
        lo: u64,
        targets: &[u32],
        weights: Option<&[f32]>,
        state: &mut C::State,
        compute: &C,
    ) -> Result<u64, EngineError> {
        let Round { adj, active, spans, .. } = *self;
        let num_vertices = active.num_vertices();
        let n = num_vertices as u32;
        if let Some(max) = targets.iter().copied().max() {
            if max >= n {
                let k = targets.iter().position(|&t| t >= n).expect("the maximum is there");
                return Err(FormatError::NeighbourOutOfRange {
                    path: adj.adj_path.clone(),
                    index: lo + k as u64,
                    value: targets[k],
                    num_vertices: num_vertices as u64,
                }
                .into());
            }
        }
        let hi = lo + targets.len() as u64;
        // Slices taken once: what they point to is reached through `self`, so the compiler
        // would otherwise load their addresses again after every call to `compute`.
        let off: &Offsets = &adj.offsets;
        let mut delivered = 0;
        let emit = |v: u32| {
            let a = off.get(v as usize);
            let (wa, wb) = spans.get(v);
            let (s, e) = (wa.max(lo), wb.min(hi));
            if s < e {
                let span = (s - lo) as usize..(e - lo) as usize;
                delivered += e - s;
                compute.compute(
                    state,
                    v,
                    Piece {
                        start: s - a,
                        degree: off.get(v as usize + 1) - a,
                        targets: &targets[span.clone()],
                        weights: weights.map(|w| &w[span]),
                    },
                );
            }
        };
        self.for_each_active(off, lo, hi, emit);
        Ok(delivered)
    }
}

/// The first error of a round's workers (later ones are dropped), and a flag they check to stop
/// delivering once there is one.
#[derive(Default)]
pub(crate) struct FirstError {
    failed: AtomicBool,
    error: Mutex<Option<EngineError>>,
}

impl FirstError {
    /// Whether an error was recorded.
    #[inline]
    pub(crate) fn failed(&self) -> bool {
        self.failed.load(Relaxed)
    }

    /// Records `e` unless an error was recorded before.
    pub(crate) fn record(&self, e: EngineError) {
        self.failed.store(true, Relaxed);
        self.error.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert(e);
    }

    /// The error recorded, if any.
    pub(crate) fn into_result(self) -> Result<(), EngineError> {
        match self.error.into_inner().unwrap_or_else(|e| e.into_inner()) {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}
