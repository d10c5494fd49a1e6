//! The I/O iterator: one round turns the active vertices' adjacency lists into byte ranges for
//! [`IoContext::read_round`](diskgraph_io::IoContext::read_round), maps every completed read
//! back to the active vertices whose lists it holds, and hands the algorithm [`Piece`]s.
//!
//! Mapping a read of edges `[lo, hi)` back to vertices: with a sparse subset, a binary search
//! over the sorted active list finds the first vertex whose list ends after `lo`, then the list
//! is walked while lists start before `hi`; with a dense subset, a binary search over the offsets
//! finds the vertex holding edge `lo`, then the bitmap is walked. Both cost O(log n + vertices
//! touched) per read.
//!
//! Issue order: under the bitmap scheduler (Graphene) the ranges go out ascending, neighbouring
//! lists merged — the scheduler sorts and merges globally anyway. Under the plug-list scheduler
//! (the baseline: an engine without Graphene's global view of the round) a subset that kept its
//! activation order ([`VertexSubset::arrival`], i.e. a frontier discovered by `edge_map`) goes out
//! as one range per vertex in that order, nothing sorted or merged, so only the scheduler's
//! 16-request batches sort and merge. Subsets without an arrival order — dense frontiers, whole
//! or batched scans, sets built from a predicate or sorted by the caller — go out ascending and
//! merged under both schedulers: a dense frontier is a scan in any engine. The mapping of reads
//! back to vertices above does not depend on the issue order (it searches the sorted set).
//!
//! Exactly-once delivery: the claim bitmap has one bit per block of the adjacency file; a read
//! claims its blocks with `fetch_or` and delivers only the blocks it claimed first. A bitmap
//! scheduler never reads a block twice in a round, so claims always succeed there; a pluglist
//! scheduler may, and then the second copy is dropped. Reads must start on a block boundary
//! (they do: runs are made of blocks) and end on one or at the end of the data.

use std::borrow::Cow;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::Mutex;

use diskgraph_format::{Direction, FormatError};
use diskgraph_io::{Chunk, FileSet, IoError, SchedulerKind};
use rayon::prelude::*;

use super::frontier::{self, bit, next_set_bit, Repr};
use super::retained::Generation;
use super::{Adjacency, EngineError, SelectiveGraph, VertexSubset};

/// A slice of one vertex's adjacency list, as delivered by a round.
#[derive(Clone, Copy, Debug)]
pub struct Piece<'a> {
    /// Position of `targets[0]` in the vertex's list.
    pub start: u64,
    /// Length of the vertex's whole list.
    pub degree: u64,
    /// Neighbour IDs (range-checked), ascending within the list.
    pub targets: &'a [u32],
    /// Weights parallel to `targets`, when the round asked for them and the graph has them.
    pub weights: Option<&'a [f32]>,
}

impl Piece<'_> {
    /// Whether this piece is the whole list.
    pub fn is_whole(&self) -> bool {
        self.start == 0 && self.targets.len() as u64 == self.degree
    }

    /// Weight of `targets[k]` (1 when unweighted).
    #[inline]
    pub fn weight(&self, k: usize) -> f32 {
        self.weights.map_or(1.0, |w| w[k])
    }
}

/// Which part of each active list a round reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ListWindow {
    /// The whole list.
    Whole,
    /// The list's edges up to the end of the block holding its first edge: one block read per
    /// list (a bottom-up BFS vertex usually finds a parent there).
    Head,
    /// The rest of the list after [`Head`](Self::Head).
    Tail,
}

/// The edge range `[a, b)` of each vertex's list that a round reads, under a [`ListWindow`].
#[derive(Clone, Copy)]
struct Spans<'a> {
    offsets: &'a [u64],
    window: ListWindow,
    /// Edges per block.
    block_edges: u64,
    /// Vertices whose lists are served from memory (the static cache, retained lists): nothing
    /// is read for them.
    in_memory: [Option<&'a [u64]>; 2],
}

impl Spans<'_> {
    /// Edges of `v`'s list read this round (`a == b` when none).
    #[inline]
    fn get(&self, v: u32) -> (u64, u64) {
        let (a, b) = (self.offsets[v as usize], self.offsets[v as usize + 1]);
        if self.in_memory.iter().flatten().any(|r| bit(r, v)) {
            return (a, a);
        }
        let head_end = || b.min((a / self.block_edges + 1) * self.block_edges);
        match self.window {
            ListWindow::Whole => (a, b),
            ListWindow::Head => (a, head_end()),
            ListWindow::Tail => (head_end(), b),
        }
    }
}

/// One bit per block of an adjacency file, claimed by the reads of a round.
pub(crate) struct Claims {
    block: u64,
    blocks: u64,
    words: Vec<AtomicU64>,
    /// Words touched this round: `lo..hi`.
    lo: AtomicUsize,
    hi: AtomicUsize,
}

impl Claims {
    /// Bytes of the bitmap for a file of `file_bytes` logical bytes.
    pub(crate) fn bytes_for(file_bytes: u64, block: u64) -> u64 {
        file_bytes.div_ceil(block).div_ceil(64) * 8
    }

    pub(crate) fn new(file_bytes: u64, block: u64) -> Self {
        let blocks = file_bytes.div_ceil(block);
        Claims {
            block,
            blocks,
            words: frontier::atomic_zeros(blocks.div_ceil(64) as usize),
            lo: AtomicUsize::new(usize::MAX),
            hi: AtomicUsize::new(0),
        }
    }

    pub(crate) fn bytes(&self) -> u64 {
        self.words.len() as u64 * 8
    }

    /// Claims blocks `first..end` and calls `f(b0, b1)` for every maximal run `b0..b1` of
    /// blocks that no read claimed before in this round.
    fn claim(&self, first: u64, end: u64, mut f: impl FnMut(u64, u64)) {
        let end = end.min(self.blocks);
        if first >= end {
            return;
        }
        let (w0, w1) = ((first / 64) as usize, ((end - 1) / 64) as usize);
        self.lo.fetch_min(w0, Relaxed);
        self.hi.fetch_max(w1 + 1, Relaxed);
        let mut run: Option<(u64, u64)> = None;
        for w in w0..=w1 {
            let base = w as u64 * 64;
            let from = first.max(base) - base;
            let to = end.min(base + 64) - base;
            let mask = if to - from == 64 {
                u64::MAX
            } else {
                ((1u64 << (to - from)) - 1) << from
            };
            let mut new = mask & !self.words[w].fetch_or(mask, Relaxed);
            while new != 0 {
                let s = u64::from(new.trailing_zeros());
                let len = u64::from((new >> s).trailing_ones());
                let (a, b) = (base + s, base + s + len);
                run = match run {
                    Some((ra, rb)) if rb == a => Some((ra, b)),
                    Some((ra, rb)) => {
                        f(ra, rb);
                        Some((a, b))
                    }
                    None => Some((a, b)),
                };
                new = if s + len >= 64 {
                    0
                } else {
                    new & !(((1u64 << len) - 1) << s)
                };
            }
        }
        if let Some((a, b)) = run {
            f(a, b);
        }
    }

    /// Clears the claims of the round (only the words it touched).
    fn reset(&self) {
        let (lo, hi) = (self.lo.swap(usize::MAX, Relaxed), self.hi.swap(0, Relaxed));
        if lo < hi {
            self.words[lo..hi]
                .par_iter()
                .with_min_len(4096)
                .for_each(|w| w.store(0, Relaxed));
        }
    }
}

/// The byte ranges of the given vertices' lists (ascending vertices), ascending, contiguous
/// lists merged.
struct Ranges<'a, I> {
    spans: Spans<'a>,
    vertices: I,
    pending: Option<(u64, u64)>,
}

impl<'a, I> Ranges<'a, I> {
    fn new(spans: Spans<'a>, vertices: I) -> Self {
        Ranges {
            spans,
            vertices,
            pending: None,
        }
    }
}

/// Active vertices per task when a round's ranges are built in parallel: the set is cut at
/// these multiples (of its list, or of its bitmap's bits), so contiguous lists on either side of
/// a cut give two ranges instead of one, which the page cache's pages make one again.
const RANGE_TASK_VERTICES: usize = 1 << 16;

/// [`Ranges`] of `active`, built in parallel: for the page cache, which collects a round's
/// ranges before anything else (one thread took 11 ms of a 100 ms bfs round on Kronecker 22).
fn ranges_in_parallel(spans: Spans<'_>, active: &VertexSubset) -> Vec<(u64, u64)> {
    match active.repr() {
        Repr::Sparse(list) => list
            .par_chunks(RANGE_TASK_VERTICES)
            .flat_map_iter(|part| Ranges::new(spans, part.iter().copied()))
            .collect(),
        Repr::Dense { bits, .. } => bits
            .par_chunks(RANGE_TASK_VERTICES / 64)
            .enumerate()
            .flat_map_iter(|(k, words)| {
                let first = (k * RANGE_TASK_VERTICES) as u32;
                let vertices = frontier::Iter::Dense {
                    bits: words,
                    word: 0,
                    current: words[0],
                };
                Ranges::new(spans, vertices.map(move |v| first + v))
            })
            .collect(),
    }
}

impl<I: Iterator<Item = u32>> Iterator for Ranges<'_, I> {
    type Item = (u64, u64);

    fn next(&mut self) -> Option<(u64, u64)> {
        loop {
            let Some(v) = self.vertices.next() else {
                return self.pending.take();
            };
            let (a, b) = self.spans.get(v);
            let (a, b) = (a * 4, b * 4);
            if a == b {
                continue;
            }
            match self.pending {
                Some((s, e)) if e == a => self.pending = Some((s, b)),
                Some(p) => {
                    self.pending = Some((a, b));
                    return Some(p);
                }
                None => self.pending = Some((a, b)),
            }
        }
    }
}

/// The byte ranges of the given vertices' lists, one per vertex with a non-empty list, in the
/// vertices' order, nothing merged (the plug-list baseline's issue order).
struct PerVertexRanges<'a, I> {
    spans: Spans<'a>,
    vertices: I,
}

impl<I: Iterator<Item = u32>> Iterator for PerVertexRanges<'_, I> {
    type Item = (u64, u64);

    fn next(&mut self) -> Option<(u64, u64)> {
        for v in self.vertices.by_ref() {
            let (a, b) = self.spans.get(v);
            if a < b {
                return Some((a * 4, b * 4));
            }
        }
        None
    }
}

/// Edges a task of a round served from memory delivers, about: enough that starting a task
/// costs nothing, few enough that two threads share even a skewed round evenly.
const TASK_EDGES: u64 = 1 << 16;
/// Most lists a task of a sparse round served from memory looks up.
const TASK_LISTS: usize = 4096;

/// Boundaries `0 = c_0 < c_1 < … = len` of tasks over items `0..len` whose edge counts are
/// `edges(i)`: each task ends once it holds [`TASK_EDGES`] edges or [`TASK_LISTS`] items.
fn cuts_by_edges(len: usize, edges: impl Fn(usize) -> u64) -> Vec<usize> {
    let mut cuts = vec![0];
    let mut held = 0;
    for i in 0..len {
        held += edges(i);
        if held >= TASK_EDGES || i + 1 - cuts.last().expect("0 is there") >= TASK_LISTS {
            cuts.push(i + 1);
            held = 0;
        }
    }
    if *cuts.last().expect("0 is there") < len {
        cuts.push(len);
    }
    cuts
}

/// Little-endian `u32`s from bytes: borrowed when aligned, copied otherwise.
pub(crate) fn as_u32s(bytes: &[u8]) -> Cow<'_, [u32]> {
    match bytemuck::try_cast_slice(bytes) {
        Ok(s) => Cow::Borrowed(s),
        Err(_) => Cow::Owned(
            bytes
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
                .collect(),
        ),
    }
}

/// Little-endian `f32`s from bytes: borrowed when aligned, copied otherwise.
fn as_f32s(bytes: &[u8]) -> Cow<'_, [f32]> {
    match bytemuck::try_cast_slice(bytes) {
        Ok(s) => Cow::Borrowed(s),
        Err(_) => Cow::Owned(
            bytes
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")))
                .collect(),
        ),
    }
}

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
    /// ([`FormatError::NeighbourOutOfRange`]); no further pieces are delivered after an error.
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
        self.read_window(d, active, ListWindow::Whole, weights, init, compute, flush)
    }

    /// Delivers the in-memory lists of `g` of the active vertices (except those in `skip`) as
    /// whole pieces (in the [`ListWindow::Head`] round of a two-round read: the whole list is its
    /// head then); returns the lists and edges delivered.
    #[allow(clippy::too_many_arguments)]
    fn serve_lists<L>(
        &self,
        g: &Generation,
        active: &VertexSubset,
        window: ListWindow,
        skip: Option<&[u64]>,
        init: &(impl Fn() -> L + Sync),
        compute: &(impl Fn(&mut L, u32, Piece<'_>) + Sync),
        flush: &(impl Fn(L) + Sync),
    ) -> (u64, u64) {
        if window == ListWindow::Tail {
            return (0, 0);
        }
        let served = AtomicU64::new(0);
        let served_edges = AtomicU64::new(0);
        let deliver = |held: &mut dyn Iterator<Item = (u32, &[u32])>| {
            let mut state = init();
            let (mut lists, mut edges) = (0, 0);
            for (v, list) in held {
                if skip.is_some_and(|b| bit(b, v)) {
                    continue;
                }
                lists += 1;
                edges += list.len() as u64;
                let piece = Piece {
                    start: 0,
                    degree: list.len() as u64,
                    targets: list,
                    weights: None,
                };
                compute(&mut state, v, piece);
            }
            flush(state);
            served.fetch_add(lists, Relaxed);
            served_edges.fetch_add(edges, Relaxed);
            self.edges_delivered.fetch_add(edges, Relaxed);
        };
        // Tasks of about TASK_EDGES edges each, every one free to go to either thread: lists are
        // stored by vertex and an ordering such as Norder puts the heaviest vertices first, so
        // tasks of equal vertex counts left one thread a round's bulk. A small sparse round looks
        // its vertices up, so a large store costs nothing to rounds that touch few of its lists;
        // a dense round walks the store's membership words.
        match active.as_sparse().filter(|list| list.len() < g.len()) {
            Some(vs) => {
                let held: Vec<(u32, u32)> = vs
                    .par_iter()
                    .filter_map(|&v| g.find(v).map(|at| (v, at as u32)))
                    .collect();
                let cuts = cuts_by_edges(held.len(), |i| g.list(held[i].1 as usize).len() as u64);
                cuts.par_windows(2).with_max_len(1).for_each(|w| {
                    deliver(&mut held[w[0]..w[1]].iter().map(|&(v, at)| (v, g.list(at as usize))));
                });
            }
            None => {
                let words = g.held.bits().len();
                let total = g.edges_before_word(words);
                let tasks = total.div_ceil(TASK_EDGES).clamp(1, words.max(1) as u64) as usize;
                // Task k starts at the first word at or after which a share k / tasks of the
                // held edges starts; the last one ends at the last word.
                let mut cuts: Vec<usize> = (0..tasks)
                    .map(|k| {
                        let target = (u128::from(total) * k as u128 / tasks as u128) as u64;
                        let (mut lo, mut hi) = (0, words);
                        while lo < hi {
                            let mid = (lo + hi) / 2;
                            if g.edges_before_word(mid) < target {
                                lo = mid + 1;
                            } else {
                                hi = mid;
                            }
                        }
                        lo
                    })
                    .collect();
                cuts.push(words);
                cuts.par_windows(2).with_max_len(1).for_each(|w| {
                    deliver(&mut g.lists_in_words(w[0]..w[1]).filter(|&(v, _)| active.contains(v)));
                });
            }
        }
        (served.into_inner(), served_edges.into_inner())
    }

    /// Whether `v`'s list in direction `d` goes on past its [`ListWindow::Head`].
    pub(crate) fn has_tail(&self, d: Direction, v: u32) -> bool {
        let offsets = self.offsets(d);
        let spans = Spans {
            offsets,
            window: ListWindow::Tail,
            block_edges: self.claims.block / 4,
            in_memory: [None, None],
        };
        let (a, b) = spans.get(v);
        a < b
    }

    /// [`for_each_piece_with`](Self::for_each_piece_with) reading only `window` of each list:
    /// pieces are clamped to it, so a round delivers exactly the window's edges once.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn read_window<L>(
        &self,
        d: Direction,
        active: &VertexSubset,
        window: ListWindow,
        weights: bool,
        init: impl Fn() -> L + Sync,
        compute: impl Fn(&mut L, u32, Piece<'_>) + Sync,
        flush: impl Fn(L) + Sync,
    ) -> Result<(), EngineError> {
        assert_eq!(active.num_vertices(), self.n, "subset over another graph");
        let adj = self.adjacency(d)?;
        let (set, with_weights) = match (&adj.weighted, weights) {
            (Some(w), true) => (w, true),
            _ => (&adj.plain, false),
        };
        let statics = if with_weights { None } else { self.static_lists(d) };
        let retained = if with_weights { None } else { self.retained(d) };
        let static_bits = statics.map(|s| s.lists().held.bits());
        let spans = Spans {
            offsets: &adj.offsets,
            window,
            block_edges: self.claims.block / 4,
            in_memory: [static_bits, retained.as_deref().map(|g| g.held.bits())],
        };
        let _round = self.round_lock.lock().unwrap_or_else(|e| e.into_inner());
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
                        active.sum_by(|v| u64::from(adj.offsets[v as usize + 1] > adj.offsets[v as usize])),
                        Relaxed,
                    );
                }
                let (lists, _) = self.serve_lists(s.lists(), active, window, None, &init, &compute, &flush);
                s.hits.fetch_add(lists, Relaxed);
            }
            if let Some(g) = &retained {
                let (lists, edges) = self.serve_lists(g, active, window, static_bits, &init, &compute, &flush);
                self.retained_lists_served.fetch_add(lists, Relaxed);
                self.retained_edges_served.fetch_add(edges, Relaxed);
            }
        };
        let ((), result) = rayon::join(from_memory, || {
            self.read_from_disk(d, adj, set, with_weights, spans, active, &init, &compute, &flush)
        });
        result
    }

    /// The part of a [`read_window`](Self::read_window) round that reads: the active lists
    /// (within the window) not held in memory, through the page cache when there is one.
    #[allow(clippy::too_many_arguments)]
    fn read_from_disk<L>(
        &self,
        d: Direction,
        adj: &Adjacency,
        set: &FileSet,
        with_weights: bool,
        spans: Spans<'_>,
        active: &VertexSubset,
        init: &(impl Fn() -> L + Sync),
        compute: &(impl Fn(&mut L, u32, Piece<'_>) + Sync),
        flush: &(impl Fn(L) + Sync),
    ) -> Result<(), EngineError> {
        let failed = AtomicBool::new(false);
        let error: Mutex<Option<EngineError>> = Mutex::new(None);
        let fail = |e: EngineError| {
            failed.store(true, Relaxed);
            error.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert(e);
        };
        let consume = |chunk: Chunk<'_>| {
            if failed.load(Relaxed) {
                return;
            }
            let mut state = init();
            let mut delivered = 0u64;
            let claimed = self.claim_edges(&chunk, adj, |lo, span| {
                if failed.load(Relaxed) {
                    return;
                }
                let targets = as_u32s(&chunk.data[0][span.clone()]);
                let wts = with_weights.then(|| as_f32s(&chunk.data[1][span]));
                match self.visit(adj, spans, active, lo, &targets, wts.as_deref(), &mut state, compute) {
                    Ok(n) => delivered += n,
                    Err(e) => fail(e),
                }
            });
            if let Err(e) = claimed {
                fail(e);
            }
            flush(state);
            self.edges_delivered.fetch_add(delivered, Relaxed);
        };
        let arrival = match self.io.config().scheduler {
            SchedulerKind::Pluglist => active.arrival(),
            SchedulerKind::Bitmap => None,
        };
        let per_vertex = arrival.map(|order| PerVertexRanges {
            spans,
            vertices: order.iter().copied(),
        });
        let result = match (&self.page_cache, with_weights) {
            (Some(cache), false) => {
                let file = u64::from(self.physical(d) == Direction::In);
                let ranges = match per_vertex {
                    Some(issued) => issued.collect(),
                    None => ranges_in_parallel(spans, active),
                };
                super::paged::read_through(&self.io, cache, file, set, ranges, &consume)
            }
            _ => match per_vertex {
                Some(mut issued) => self.io.read_round(set, &mut issued, &consume),
                None => self
                    .io
                    .read_round(set, &mut Ranges::new(spans, active.iter()), &consume),
            },
        };
        self.claims.reset();
        result?;
        match error.into_inner().unwrap_or_else(|e| e.into_inner()) {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Claims the blocks of `chunk` and calls `f(lo, span)` for every run of edges `lo..` it
    /// claimed first, `span` being the run's bytes within the chunk (data bytes only: never the
    /// padding after the last edge).
    fn claim_edges(
        &self,
        chunk: &Chunk<'_>,
        adj: &Adjacency,
        mut f: impl FnMut(u64, std::ops::Range<usize>),
    ) -> Result<(), EngineError> {
        let block = self.claims.block;
        let data_end = self.num_arcs * 4;
        let (c0, c1) = (chunk.offset, chunk.offset + chunk.data[0].len() as u64);
        if !c0.is_multiple_of(block) || (!c1.is_multiple_of(block) && c1 < data_end) {
            return Err(EngineError::Io(IoError::Config(format!(
                "read of bytes {c0}..{c1} of {} is not aligned to {block}-byte blocks",
                adj.adj_path.display()
            ))));
        }
        self.claims.claim(c0 / block, c1.div_ceil(block), |b0, b1| {
            let lo = (b0 * block).max(c0) / 4;
            let hi = (b1 * block).min(c1).min(data_end) / 4;
            if lo < hi {
                f(lo, (lo * 4 - c0) as usize..(hi * 4 - c0) as usize);
            }
        });
        Ok(())
    }

    /// Reads the whole weight file of direction `d` in one sequential round and calls
    /// `f(first, weights)` for every piece of it, `first` being the edge index of `weights[0]`;
    /// every weight is delivered exactly once. Does nothing when weights were not opened.
    ///
    /// Errors: [`EngineError::MissingInEdges`] or an I/O failure.
    pub fn scan_weights(&self, d: Direction, f: impl Fn(u64, &[f32]) + Sync) -> Result<(), EngineError> {
        let adj = self.adjacency(d)?;
        let Some(set) = &adj.weights_only else {
            return Ok(());
        };
        let _round = self.round_lock.lock().unwrap_or_else(|e| e.into_inner());
        self.rounds.fetch_add(1, Relaxed);
        let error: Mutex<Option<EngineError>> = Mutex::new(None);
        let consume = |chunk: Chunk<'_>| {
            let claimed = self.claim_edges(&chunk, adj, |lo, span| f(lo, &as_f32s(&chunk.data[0][span])));
            if let Err(e) = claimed {
                error.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert(e);
            }
        };
        let mut whole = std::iter::once((0, self.num_arcs * 4)).filter(|r| r.1 > 0);
        let result = self.io.read_round(set, &mut whole, &consume);
        self.claims.reset();
        result?;
        match error.into_inner().unwrap_or_else(|e| e.into_inner()) {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Delivers the pieces of the active lists intersecting edges `lo..lo + targets.len()`;
    /// returns the number of edges delivered.
    #[allow(clippy::too_many_arguments)]
    fn visit<L>(
        &self,
        adj: &Adjacency,
        spans: Spans<'_>,
        active: &VertexSubset,
        lo: u64,
        targets: &[u32],
        weights: Option<&[f32]>,
        state: &mut L,
        compute: &impl Fn(&mut L, u32, Piece<'_>),
    ) -> Result<u64, EngineError> {
        let n = self.n as u32;
        if let Some(max) = targets.iter().copied().max() {
            if max >= n {
                let k = targets.iter().position(|&t| t >= n).expect("the maximum is there");
                return Err(FormatError::NeighbourOutOfRange {
                    path: adj.adj_path.clone(),
                    index: lo + k as u64,
                    value: targets[k],
                    num_vertices: self.n as u64,
                }
                .into());
            }
        }
        let hi = lo + targets.len() as u64;
        let off = &adj.offsets;
        let mut delivered = 0;
        let mut emit = |v: u32| {
            let a = off[v as usize];
            let (wa, wb) = spans.get(v);
            let (s, e) = (wa.max(lo), wb.min(hi));
            if s < e {
                let span = (s - lo) as usize..(e - lo) as usize;
                delivered += e - s;
                compute(
                    state,
                    v,
                    Piece {
                        start: s - a,
                        degree: off[v as usize + 1] - a,
                        targets: &targets[span.clone()],
                        weights: weights.map(|w| &w[span]),
                    },
                );
            }
        };
        match active.repr() {
            Repr::Sparse(list) => {
                let mut i = list.partition_point(|&v| off[v as usize + 1] <= lo);
                while let Some(&v) = list.get(i) {
                    if off[v as usize] >= hi {
                        break;
                    }
                    emit(v);
                    i += 1;
                }
            }
            Repr::Dense { bits, .. } => {
                // The last vertex whose list starts at or before `lo`.
                let mut v = off.partition_point(|&o| o <= lo).saturating_sub(1);
                while let Some(u) = next_set_bit(bits, v) {
                    if u >= self.n || off[u] >= hi {
                        break;
                    }
                    emit(u as u32);
                    v = u + 1;
                }
            }
        }
        Ok(delivered)
    }

    /// Calls `compute(v, out_list, in_list)` with the *whole* lists of every vertex in `active`
    /// (the in-list is empty for an undirected graph, whose out-lists hold both directions, and
    /// when `with_in` is false). The lists are assembled in a buffer from the budget share
    /// reserved by [`SelectiveOptions::assemble_lists`](super::SelectiveOptions): the active
    /// vertices go in batches (ascending) whose lists fit, each batch is read (one round per
    /// direction) and then computed in parallel. A single vertex whose lists alone exceed the
    /// share gets a batch and a buffer of its own (reported in `peak_engine_memory`).
    ///
    /// Errors: as [`for_each_piece`](Self::for_each_piece), and
    /// [`EngineError::Setting`] when no share was reserved.
    pub fn for_each_list(
        &self,
        active: &VertexSubset,
        with_in: bool,
        compute: impl Fn(u32, &[u32], &[u32]) + Sync + Send,
    ) -> Result<(), EngineError> {
        let with_in = with_in && self.directed;
        if with_in {
            self.adjacency(Direction::In)?;
        }
        if self.assembly_bytes < 4 {
            return Err(EngineError::Setting(
                "whole lists are assembled only on a graph opened with SelectiveOptions::assemble_lists".into(),
            ));
        }
        let capacity = self.assembly_bytes / 4;
        let out_deg = |v: u32| self.degree(Direction::Out, v);
        let total_deg = |v: u32| out_deg(v) + if with_in { self.degree(Direction::In, v) } else { 0 };
        let mut buf: Vec<u32> = Vec::new();
        let mut vertices = active.iter().peekable();
        while vertices.peek().is_some() {
            let mut batch = Vec::new();
            let mut starts = vec![0u64];
            let mut total = 0u64;
            while let Some(&v) = vertices.peek() {
                let d = total_deg(v);
                if !batch.is_empty() && total + d > capacity {
                    break;
                }
                vertices.next();
                batch.push(v);
                total += d;
                starts.push(total);
            }
            if buf.capacity() as u64 > capacity {
                buf = Vec::new(); // the previous batch was one oversized vertex
            }
            buf.clear();
            buf.reserve_exact(total as usize);
            buf.resize(total as usize, 0);
            self.assembly_peak.fetch_max(buf.capacity() as u64 * 4, Relaxed);
            let subset = VertexSubset::from_sorted_unchecked(self.n, batch);
            let batch = subset.as_sparse().expect("sparse");
            {
                let shared = SharedSlice::new(&mut buf);
                let place = |d: Direction, v: u32, p: Piece<'_>| {
                    let i = batch.binary_search(&v).expect("pieces are of batch vertices");
                    let skip = if d == Direction::In { out_deg(v) } else { 0 };
                    let at = starts[i] + skip + p.start;
                    // SAFETY: a round delivers every edge position of every batch vertex exactly
                    // once (block claims), and vertex `v`'s positions map to its own region
                    // `starts[i]..starts[i + 1]` of the buffer, so no two writes overlap; nothing
                    // reads the buffer until the round has returned.
                    unsafe { shared.write(at as usize, p.targets) };
                };
                self.for_each_piece(Direction::Out, &subset, false, |v, p| place(Direction::Out, v, p))?;
                if with_in {
                    self.for_each_piece(Direction::In, &subset, false, |v, p| place(Direction::In, v, p))?;
                }
            }
            batch.par_iter().enumerate().with_min_len(64).for_each(|(i, &v)| {
                let (s, e) = (starts[i] as usize, starts[i + 1] as usize);
                let mid = s + out_deg(v) as usize;
                compute(v, &buf[s..mid], &buf[mid..e]);
            });
        }
        Ok(())
    }
}

/// A mutable slice written concurrently at disjoint positions.
pub(crate) struct SharedSlice<'a> {
    ptr: *mut u32,
    len: usize,
    _borrow: PhantomData<&'a mut [u32]>,
}

// SAFETY: the pointer comes from a `&mut [u32]` borrowed for `'a`; concurrent use is limited to
// `write`, whose contract forbids overlapping writes.
unsafe impl Sync for SharedSlice<'_> {}

impl<'a> SharedSlice<'a> {
    pub(crate) fn new(slice: &'a mut [u32]) -> Self {
        SharedSlice {
            ptr: slice.as_mut_ptr(),
            len: slice.len(),
            _borrow: PhantomData,
        }
    }

    /// Copies `src` to positions `at..at + src.len()`.
    ///
    /// # Safety
    /// No other call may write an overlapping range concurrently.
    ///
    /// # Panics
    /// If the range is out of bounds.
    pub(crate) unsafe fn write(&self, at: usize, src: &[u32]) {
        assert!(
            at.checked_add(src.len()).is_some_and(|end| end <= self.len),
            "write out of bounds"
        );
        // SAFETY: in bounds (checked above) of a live exclusive borrow; the caller guarantees no
        // concurrent overlapping write; `src` cannot alias the buffer (it is a read buffer).
        unsafe { std::ptr::copy_nonoverlapping(src.as_ptr(), self.ptr.add(at), src.len()) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tasks_end_at_their_edge_or_list_bound() {
        assert_eq!(cuts_by_edges(10_000, |_| 1), [0, 4096, 8192, 10_000]);
        let heavy = |i: usize| if i == 2 { 3 * TASK_EDGES } else { 10 };
        assert_eq!(cuts_by_edges(5, heavy), [0, 3, 5]);
        let even = cuts_by_edges(100, |_| TASK_EDGES / 4);
        assert_eq!(even, (0..=25).map(|k| 4 * k).collect::<Vec<_>>());
        assert_eq!(cuts_by_edges(0, |_| 1), [0]);
    }

    #[test]
    fn claims_deliver_each_block_once() {
        let c = Claims::new(512 * 200, 512);
        let mut got = Vec::new();
        c.claim(10, 70, |a, b| got.push((a, b)));
        c.claim(0, 20, |a, b| got.push((a, b)));
        c.claim(60, 200, |a, b| got.push((a, b)));
        c.claim(60, 300, |a, b| got.push((a, b)));
        assert_eq!(got, vec![(10, 70), (0, 10), (70, 200)]);
        c.reset();
        got.clear();
        c.claim(63, 65, |a, b| got.push((a, b)));
        c.claim(0, 128, |a, b| got.push((a, b)));
        assert_eq!(got, vec![(63, 65), (0, 63), (65, 128)]);
    }

    fn spans<'a>(offsets: &'a [u64], window: ListWindow, block_edges: u64, retained: Option<&'a [u64]>) -> Spans<'a> {
        Spans {
            offsets,
            window,
            block_edges,
            in_memory: [None, retained],
        }
    }

    #[test]
    fn ranges_merge_contiguous_lists() {
        let offsets = [0u64, 2, 2, 5, 9, 10];
        let all = VertexSubset::all(5);
        let r: Vec<_> = Ranges::new(spans(&offsets, ListWindow::Whole, 128, None), all.iter()).collect();
        assert_eq!(r, vec![(0, 40)]);
        let some = VertexSubset::from_vertices(5, vec![0, 1, 3, 4]);
        let r: Vec<_> = Ranges::new(spans(&offsets, ListWindow::Whole, 128, None), some.iter()).collect();
        assert_eq!(r, vec![(0, 8), (20, 40)]);
    }

    /// `ranges` with touching neighbours merged.
    fn merged(ranges: &[(u64, u64)]) -> Vec<(u64, u64)> {
        let mut out: Vec<(u64, u64)> = Vec::new();
        for &(a, b) in ranges {
            match out.last_mut() {
                Some(last) if last.1 == a => last.1 = b,
                _ => out.push((a, b)),
            }
        }
        out
    }

    #[test]
    fn ranges_built_in_parallel_are_the_serial_ones_cut_at_task_bounds() {
        // Lists of 0 to 4 edges over several tasks' vertices; some vertices left out.
        let n = 3 * RANGE_TASK_VERTICES + 123;
        let mut offsets = vec![0u64];
        for v in 0..n as u64 {
            offsets.push(offsets[v as usize] + (v * 7 + v / 3) % 5);
        }
        let sp = spans(&offsets, ListWindow::Whole, 128, None);
        let sparse = VertexSubset::from_fn(n, |v| v % 11 != 3 && v % 13 != 5).into_sparse();
        let dense = sparse.clone().into_dense();
        let everyone = VertexSubset::all(n);
        for set in [&sparse, &dense, &everyone] {
            let serial: Vec<_> = Ranges::new(sp, set.iter()).collect();
            let parallel = ranges_in_parallel(sp, set);
            assert!(parallel.len() >= serial.len() && parallel.len() <= serial.len() + 3);
            assert_eq!(merged(&parallel), serial, "dense: {}", set.is_dense());
        }
        assert_eq!(merged(&ranges_in_parallel(sp, &everyone)), vec![(0, offsets[n] * 4)]);
        assert!(ranges_in_parallel(sp, &VertexSubset::empty(n)).is_empty());
    }

    #[test]
    fn windows_split_lists_at_the_end_of_their_first_block() {
        // Blocks of 4 edges; lists 0..2, 2..2, 2..5, 5..9, 9..10.
        let offsets = [0u64, 2, 2, 5, 9, 10];
        let head = spans(&offsets, ListWindow::Head, 4, None);
        let tail = spans(&offsets, ListWindow::Tail, 4, None);
        let heads: Vec<_> = (0..5).map(|v| head.get(v)).collect();
        let tails: Vec<_> = (0..5).map(|v| tail.get(v)).collect();
        assert_eq!(heads, vec![(0, 2), (2, 2), (2, 4), (5, 8), (9, 10)]);
        assert_eq!(tails, vec![(2, 2), (2, 2), (4, 5), (8, 9), (10, 10)]);
        let retained = [0b01000u64];
        let skip = spans(&offsets, ListWindow::Whole, 4, Some(&retained));
        assert_eq!(skip.get(3), (5, 5), "a retained list is not read");
        assert_eq!(skip.get(2), (2, 5));
    }

    #[test]
    fn per_vertex_ranges_keep_order_and_do_not_merge() {
        let offsets = [0u64, 2, 2, 5, 9, 10];
        let r: Vec<_> = PerVertexRanges {
            spans: spans(&offsets, ListWindow::Whole, 128, None),
            vertices: [4u32, 1, 3, 0, 2].into_iter(),
        }
        .collect();
        assert_eq!(r, vec![(36, 40), (20, 36), (0, 8), (8, 20)]);
    }
}
