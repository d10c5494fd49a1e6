//! The selective engine (Graphene, FAST '17): iterations over a frontier whose vertices'
//! adjacency lists are read from disk on demand, block by block, and computed on as the reads
//! complete.
//!
//! # Model
//!
//! Vertex state is *semi-external*: the offsets index of every direction in use (`*.idx`,
//! O(V)), and the algorithm's own arrays (levels, ranks, labels) live in memory; they are
//! reported but not charged to the budget. Edges stay on disk. Everything else the engine
//! holds comes out of the `--memory` budget: the I/O buffers (handed to the I/O layer as
//! [`IoConfig::buffer_bytes`]), a claim bitmap with one bit per block of the adjacency files, and,
//! for algorithms that need whole adjacency lists at once, an assembly buffer (half of what the
//! claims leave; an algorithm may keep lists of its own in part of it,
//! [`SelectiveGraph::hold_lists`]). The buffers get the rest, capped at what can be in use — four times
//! (`queue_depth × io_threads + compute_threads`) maximal reads of every file read together —
//! since more buffers than reads in flight plus a short queue per worker buy nothing. What is
//! left may hold retained lists ([`SelectiveOptions::retain_lists`]).
//!
//! One *round* reads the adjacency lists of a [`VertexSubset`] in one direction: the engine
//! turns the subset into byte ranges (ascending, i.e. partition by partition; see
//! [`partition`]; under the plug-list baseline a discovered frontier goes out one range per vertex
//! in activation order instead, see [`VertexSubset::arrival`]), the I/O layer's scheduler
//! deduplicates, sorts and merges their blocks and
//! reads them, and every completed read ([`Chunk`](diskgraph_io::Chunk)) is mapped back to the
//! active vertices whose lists intersect it, on the worker thread that received it. The
//! algorithm sees each such intersection as a [`Piece`]: a vertex, a slice of its neighbours
//! (and weights when asked for), and the slice's position in the list. A list that spans reads
//! arrives in several pieces, possibly on several threads at once, so vertex state is updated
//! with atomics.
//!
//! Guarantees of a round, whatever the I/O layer does: every edge of every active vertex is
//! delivered exactly once (a claim bitmap drops blocks a second read delivers again, as a
//! pluglist scheduler may), bytes read only to fill gaps are never delivered, and every
//! neighbour ID is range-checked as it arrives: an out-of-range ID ends the round with
//! [`FormatError::NeighbourOutOfRange`](diskgraph_format::FormatError::NeighbourOutOfRange), never with an out-of-bounds access.
//!
//! # Vocabulary
//!
//! - [`VertexSubset`]: sparse sorted list or dense bitmap, switching by size; built
//!   concurrently with [`FrontierBuilder`].
//! - [`SelectiveGraph::for_each_piece`] (the IoIterator: `compute(v, neighbours[, weights])` on
//!   the lists of the active vertices) and [`SelectiveGraph::for_each_list`] (whole lists, both
//!   directions merged per vertex, batched under the budget, beside the lists the algorithm
//!   holds in the same share: [`SelectiveGraph::hold_lists`]).
//! - [`SelectiveGraph::edge_map`]: Ligra's `edgeMap(frontier, update, cond)` on top of it, push
//!   (read the frontier's lists) or pull (read the candidates' reverse lists), chosen by I/O
//!   volume ([`EdgeMapOptions`]). Beyond Graphene, a pull can read *head first* (the block
//!   holding each candidate's first edge, then the rest only for candidates still looking — the
//!   disk form of bottom-up BFS's early exit), and it keeps the small whole lists the next round
//!   will read again in what the budget leaves after the buffers (`retained`), so the sparse
//!   tail levels of a traversal, whose few tiny lists are spread over the whole file, are not
//!   read from disk twice.

mod assembly;
mod budget;
mod claims;
mod compressed;
mod delivery;
mod edge_map;
pub mod frontier;
mod in_memory;
mod io_iterator;
pub mod offsets;
mod paged;
pub mod partition;
mod piece;
mod ranges;
mod retained;
mod static_cache;
mod words;

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex, RwLock};

use diskgraph_format::{basc_layout_name, CompressedLayout, Direction, GraphDir};
use diskgraph_io::FileSet;
pub use diskgraph_io::{BackendKind, IoConfig, IoContext, IoError, IoStats, SchedulerKind};
use serde_json::json;

pub use diskgraph_cache::{PageCacheStats, Replacement};
pub use edge_map::{reverse, EdgeFn, EdgeMapOptions, Mode, PULL_CHECK_DIVISOR, PULL_READ_RATIO};
pub use frontier::{FrontierBuilder, LocalFrontier, VertexSubset, DENSE_DIVISOR};
pub use offsets::{Offsets, PACKED_BYTES_PER_VERTEX, WIDE_BYTES_PER_UNIT};
pub use paged::PageCacheOptions;
pub use partition::Partitions;
pub use piece::Piece;
pub use static_cache::{BascOptions, LoadedStatic};

use crate::contract::{Engine, EngineCore, EngineKind};
use crate::engine_options::{ADJACENCY, BASC, BASC_FRACTION, PAGE_POLICY, PAGE_SIZE, RETAIN_LISTS, TRACK_UTILIZATION};
use crate::index::{vertices_of, GraphIndex};
use crate::options::Params;
use crate::request::{directions_and_weights, reads_compressed, Held, Needs, OpenEngine, OpenRequest};
use crate::AdjacencyChoice;
use crate::{Cancel, EngineError, Recorder, RunStats, Snapshot};

/// How to open a graph on the selective engine.
#[derive(Clone, Debug)]
pub struct SelectiveOptions {
    /// I/O settings; `buffer_bytes` is replaced by what the budget leaves for buffers.
    pub io: IoConfig,
    /// The memory budget in bytes (`--memory`).
    pub memory: u64,
    /// Open the in-edges of a directed graph too (undirected graphs: in = out).
    pub need_in: bool,
    /// Open the weight files too (weighted graphs).
    pub need_weights: bool,
    /// Reserve half of the budget for assembling whole lists ([`SelectiveGraph::for_each_list`])
    /// and for the lists an algorithm builds from them ([`SelectiveGraph::hold_lists`]).
    pub assemble_lists: bool,
    /// Number of row partitions (default: four per compute thread).
    pub partitions: Option<usize>,
    /// Keep the small lists a pull round read and the next round needs again, in what the
    /// budget leaves after the buffers (see `retained`); on by default.
    pub retain_lists: bool,
    /// Load a BAsC selection into a static cache taking this fraction of the budget.
    pub basc: Option<BascOptions>,
    /// Read through a page cache holding what the budget leaves after the claims, the static
    /// cache and the buffers (retained lists are off then: the page cache keeps what was read).
    pub page_cache: Option<PageCacheOptions>,
    /// The graph's index loaded earlier ([`GraphIndex::load`]): its IDs and offsets are used
    /// instead of reading them again.
    pub index: Option<GraphIndex>,
    /// Which copy of the lists to read (`--adjacency`).
    pub adjacency: AdjacencyChoice,
    /// The run's stop request: the opening's loads (the offsets, the static cache) and every
    /// I/O round poll it between their reads (ending with [`EngineError::Cancelled`]), and the
    /// engine's [`Recorder`] carries it.
    pub cancel: Option<Cancel>,
}

impl Default for SelectiveOptions {
    fn default() -> Self {
        SelectiveOptions {
            io: IoConfig::default(),
            memory: diskgraph_io::DEFAULT_MEMORY,
            need_in: false,
            need_weights: false,
            assemble_lists: false,
            partitions: None,
            retain_lists: true,
            basc: None,
            page_cache: None,
            index: None,
            adjacency: AdjacencyChoice::Auto,
            cancel: None,
        }
    }
}

/// One direction of the graph: its offsets in memory and its files opened for reading.
struct Adjacency {
    /// The lists file read (`*.adj`, or `*.cadj` of a compressed layout), for error messages.
    adj_path: PathBuf,
    /// Offsets index (arc offsets), `n + 1` entries: the degrees, and where weights are.
    offsets: Offsets,
    /// `[*.adj]`, or `[*.cadj]` when the lists are read compressed.
    lists: FileSet,
    /// The compressed layout's lists and byte-offset index, when the lists are read from it.
    compressed: Option<compressed::CompressedLists>,
    /// `[*.adj, *.wgt]` when weights were asked for and exist.
    weighted: Option<FileSet>,
    /// `[*.wgt]` alone, likewise.
    weights_only: Option<FileSet>,
    /// Row partitions of this direction.
    partitions: Partitions,
}

/// A graph opened on the selective engine. See the [module docs](self).
pub struct SelectiveGraph {
    /// The counts, IDs, budget and whether weights were opened; the log, a step per round.
    core: EngineCore,
    graph_weighted: bool,
    io: IoContext,
    out: Adjacency,
    /// In-edges of a directed graph (when asked for); `None` for undirected graphs, whose
    /// in-edges are the out-edges.
    inn: Option<Adjacency>,
    /// One bit per block of the adjacency files; see `claims`.
    claims: claims::Claims,
    /// The compressed layout the lists are read from (`None`: the plain lists).
    layout: Option<CompressedLayout>,
    /// Why a compressed layout asked for is not read (weighted runs read the plain lists).
    adjacency_note: Option<String>,
    /// Compressed lists cut by a round's reads; see `compressed`.
    stitch: compressed::Stitch,
    /// The budget's share for them.
    stitch_bytes: u64,
    /// Serialises rounds (the claim bitmap is per round).
    round_lock: Mutex<()>,
    /// What this open asked of the budget (for the smallest budget an error states).
    demand: budget::Demand,
    buffer_bytes: u64,
    assembly_bytes: u64,
    /// The largest assembly buffer used, plus the lists held from the share at the time.
    assembly_peak: AtomicU64,
    /// Bytes of the whole-list share the algorithm holds lists in
    /// ([`hold_lists`](Self::hold_lists)).
    held_lists: AtomicU64,
    edges_delivered: AtomicU64,
    rounds: AtomicU64,
    /// Bytes the retained lists may take (0: retention off).
    retain_capacity: u64,
    /// The lists kept by the last pull round.
    retained: RwLock<Option<Arc<retained::Generation>>>,
    retained_peak: AtomicU64,
    /// Lists and edges delivered from retained lists instead of reads.
    retained_lists_served: AtomicU64,
    retained_edges_served: AtomicU64,
    /// The BAsC static cache, when asked for.
    static_cache: Option<static_cache::StaticCache>,
    /// The page cache, when asked for.
    page_cache: Option<diskgraph_cache::PageCache>,
}

impl OpenEngine for SelectiveGraph {
    const KIND: EngineKind = EngineKind::Selective;
    type Options = SelectiveOptions;

    /// The budget, the I/O settings, retained lists, the static cache (the one loaded earlier,
    /// else the selection `--basc` names) and the page cache, with what the algorithm needs.
    fn options(_: &GraphDir, req: &OpenRequest) -> Result<SelectiveOptions, EngineError> {
        let params = req.params;
        let fraction = params.value(&BASC_FRACTION);
        let named = params.text(&BASC).map(|name| BascOptions {
            layout: match name.starts_with("basc-") {
                true => name,
                false => basc_layout_name(&name),
            },
            fraction,
            preloaded: None,
        });
        let basc = match &req.static_cache {
            Some(loaded) => Some(BascOptions {
                preloaded: Some(loaded.clone()),
                ..named.unwrap_or_else(|| BascOptions {
                    layout: loaded.layout().to_string(),
                    fraction,
                    preloaded: None,
                })
            }),
            None => named,
        };
        let page_cache = params.size(&PAGE_SIZE).map(|size| PageCacheOptions {
            page_size: size as u32,
            policy: params.choice_value(&PAGE_POLICY),
            track_utilization: params.flag(&TRACK_UTILIZATION),
        });
        Ok(SelectiveOptions {
            io: req.io.clone(),
            memory: req.memory,
            need_in: req.needs.in_edges,
            need_weights: req.needs.weights,
            assemble_lists: req.needs.whole_lists,
            partitions: None,
            retain_lists: params.flag(&RETAIN_LISTS),
            basc,
            page_cache,
            index: req.index.clone(),
            adjacency: params.choice_value(&ADJACENCY),
            cancel: req.cancel.clone(),
        })
    }

    /// The engine's least (see [`SelectiveGraph::minimum_budget`]), once the lists it needs
    /// exist ([`SelectiveGraph::check_lists`]).
    fn least_budget(graph: &GraphDir, opts: &SelectiveOptions) -> Result<u64, EngineError> {
        SelectiveGraph::check_lists(graph, opts)?;
        Ok(SelectiveGraph::minimum_budget(graph, opts))
    }

    fn open_with(graph: &GraphDir, opts: &SelectiveOptions) -> Result<Self, EngineError> {
        SelectiveGraph::open(graph, opts)
    }

    /// The packed offsets index ([`PACKED_BYTES_PER_VERTEX`] a direction, twice for compressed
    /// lists) and [`ROUND_BYTES`] a vertex; its wide blocks, at most [`WIDE_BYTES_PER_UNIT`] an
    /// arc (and a byte of compressed lists), a direction.
    fn held(graph: Option<&GraphDir>, params: &Params, needs: Needs) -> Held {
        let (dirs, _) = directions_and_weights(graph, needs);
        let compressed = reads_compressed(graph, params, needs);
        let (indexes, bytes_per_arc) = match (compressed, graph) {
            (true, Some(graph)) => (2.0, compressed_bytes_per_arc(graph)),
            _ => (1.0, 0.0),
        };
        Held {
            per_vertex: PACKED_BYTES_PER_VERTEX * dirs * indexes + ROUND_BYTES,
            per_arc: WIDE_BYTES_PER_UNIT * dirs * (1.0 + bytes_per_arc),
        }
    }
}

/// Bytes a vertex of a selective run's frontiers and round state: the frontier being built (a
/// bitmap and a list of up to `n / 20` vertices), the current one, a pull round's candidates,
/// the per-round ranges and the lists kept for the next round's index.
pub const ROUND_BYTES: f64 = 2.0;

/// Bytes an arc of `graph`'s largest compressed layout takes on disk (its byte-offset index
/// spans them).
fn compressed_bytes_per_arc(graph: &GraphDir) -> f64 {
    let m = graph.manifest();
    let bytes = m
        .layouts
        .iter()
        .filter_map(|l| match l {
            diskgraph_format::LayoutRecord::Compressed(c) => Some(c.bytes_on_disk),
            _ => None,
        })
        .max()
        .unwrap_or(0);
    bytes as f64 / m.num_arcs.max(1) as f64
}

impl SelectiveGraph {
    /// Opens `dir`: loads and checks the offsets of the directions asked for, carves the budget
    /// and starts the I/O context.
    ///
    /// Errors: a damaged directory; [`EngineError::BudgetTooSmall`] when the budget cannot hold
    /// the claim bitmap plus two maximal reads of every file read together; I/O settings the
    /// I/O layer refuses.
    pub fn open(dir: &GraphDir, opts: &SelectiveOptions) -> Result<Self, EngineError> {
        let m = dir.manifest();
        let n = m.num_vertices as usize;
        let directed = m.directed;
        let weighted = m.weighted && opts.need_weights;
        let num_arcs = m.num_arcs;
        let budget = opts.memory;
        if let Some(b) = &opts.basc {
            if !(b.fraction > 0.0 && b.fraction < 1.0) {
                return Err(EngineError::Setting(format!(
                    "the static cache fraction must be between 0 and 1, got {}",
                    b.fraction
                )));
            }
        }
        let layout = opts.adjacency.for_threads(opts.io.compute_threads).open(dir)?;
        if weighted && !dir.has_plain_lists() {
            return Err(compressed_only_weights(dir));
        }
        let (layout, adjacency_note) = match layout {
            Some(l) if weighted => (
                None,
                Some(format!(
                    "{} not read: weights are read beside the plain lists, by arc offset",
                    l.name()
                )),
            ),
            l => (l, None),
        };
        let demand = demand(dir, opts, layout.as_ref());
        if let Some(p) = &opts.page_cache {
            check_page_size(p, &opts.io)?;
        }
        let carve = demand.check(budget)?;
        let page_cache = opts
            .page_cache
            .as_ref()
            .map(|p| open_page_cache(p, carve.page_cache_bytes));
        let cancel = opts.cancel.clone().unwrap_or_default();
        let stop = cancel.flag();
        cancel.check()?;
        let vertices = vertices_of(dir, opts.index.as_ref(), stop)?;
        let buffer_bytes = carve.buffer_bytes;
        let io = IoContext::new(IoConfig {
            buffer_bytes,
            ..opts.io.clone()
        })?;
        io.stop_when(Arc::clone(stop));
        let parts = opts.partitions.unwrap_or(4 * io.config().compute_threads.max(1)).max(1);
        let open_dir = |d: Direction| -> Result<Adjacency, EngineError> {
            let (_, adj, wgt) = dir.files_of(d);
            // The arc offsets and the compressed lists' byte offsets load side by side: each
            // is a sequential read of its own file.
            let (offsets, compressed) = rayon::join(
                || match opts.index.as_ref().and_then(|i| i.offsets().get(d)) {
                    Some(o) if o.len() == n + 1 && o.last() == Some(&num_arcs) => Ok(Offsets::Whole(Arc::clone(o))),
                    Some(_) => Err(EngineError::IndexMismatch {
                        graph: dir.path().to_path_buf(),
                    }),
                    None => load_offsets(dir, d, stop),
                },
                || {
                    layout
                        .as_ref()
                        .map(|l| compressed::CompressedLists::open(l, d, stop))
                        .transpose()
                },
            );
            let (offsets, compressed) = (offsets?, compressed?);
            let adj_path = compressed.as_ref().map_or_else(|| dir.file_path(adj), |c| c.path());
            let lists = io.open(&[&adj_path])?;
            let (weighted, weights_only) = if weighted {
                let wgt = dir.file_path(wgt);
                (Some(io.open(&[&adj_path, &wgt])?), Some(io.open(&[&wgt])?))
            } else {
                (None, None)
            };
            let partitions = Partitions::balanced(&offsets, parts);
            Ok(Adjacency {
                adj_path,
                offsets,
                lists,
                compressed,
                weighted,
                weights_only,
                partitions,
            })
        };
        let out = open_dir(Direction::Out)?;
        let inn = if directed && opts.need_in {
            Some(open_dir(Direction::In)?)
        } else {
            None
        };
        let mut g = SelectiveGraph {
            core: EngineCore {
                kind: <Self as OpenEngine>::KIND,
                vertices,
                num_arcs,
                directed,
                weighted,
                budget,
                recorder: Recorder::with_cancel(opts.cancel.as_ref()),
            },
            graph_weighted: m.weighted,
            claims: claims::Claims::new(demand.adjacency_bytes, u64::from(opts.io.block_size.max(1))),
            layout,
            adjacency_note,
            stitch: compressed::Stitch::default(),
            stitch_bytes: carve.stitch_bytes,
            io,
            out,
            inn,
            round_lock: Mutex::new(()),
            demand,
            buffer_bytes,
            assembly_bytes: carve.assembly_bytes,
            assembly_peak: AtomicU64::new(0),
            held_lists: AtomicU64::new(0),
            edges_delivered: AtomicU64::new(0),
            rounds: AtomicU64::new(0),
            retain_capacity: carve.retain_capacity,
            retained: RwLock::new(None),
            retained_peak: AtomicU64::new(0),
            retained_lists_served: AtomicU64::new(0),
            retained_edges_served: AtomicU64::new(0),
            static_cache: None,
            page_cache: None,
        };
        // The static cache loads before the page cache is attached: its lists are read straight
        // (merged, large requests) and their pages never occupy the page cache, which the static
        // cache is consulted ahead of.
        if let Some(b) = &opts.basc {
            g.load_static(dir, b, carve.static_share)?;
        }
        g.page_cache = page_cache;
        Ok(g)
    }

    /// The smallest budget [`open`](Self::open) accepts for `dir` with `opts` (whatever
    /// `opts.memory` is), computed from the manifest, the settings and a compressed layout's
    /// metadata alone: no list or index is read and nothing is started, so `auto` can ask it of
    /// every candidate engine before opening one.
    pub fn minimum_budget(dir: &GraphDir, opts: &SelectiveOptions) -> u64 {
        // The layout's metadata only (O(1)); one that does not open leaves the plain lists' demand,
        // and `open` reports why.
        let weighted = dir.manifest().weighted && opts.need_weights;
        let layout = if weighted {
            None
        } else {
            opts.adjacency
                .for_threads(opts.io.compute_threads)
                .open(dir)
                .ok()
                .flatten()
        };
        demand(dir, opts, layout.as_ref()).minimum()
    }

    /// Whether this engine can run on `dir` with `opts`: not when the run needs weights and
    /// the graph is compressed-only (the engine reads weights beside the plain lists).
    pub fn check_lists(dir: &GraphDir, opts: &SelectiveOptions) -> Result<(), EngineError> {
        match dir.manifest().weighted && opts.need_weights && !dir.has_plain_lists() {
            true => Err(compressed_only_weights(dir)),
            false => Ok(()),
        }
    }

    /// Whether the graph has weights (opened or not).
    pub fn graph_weighted(&self) -> bool {
        self.graph_weighted
    }

    /// Whether lists of direction `d` can be read (`In` of a directed graph needs `need_in`).
    pub fn has(&self, d: Direction) -> bool {
        d == Direction::Out || !self.core.directed || self.inn.is_some()
    }

    fn adjacency(&self, d: Direction) -> Result<&Adjacency, EngineError> {
        match d {
            Direction::Out => Ok(&self.out),
            Direction::In if !self.core.directed => Ok(&self.out),
            Direction::In => self.inn.as_ref().ok_or(EngineError::MissingInEdges),
        }
    }

    /// The offsets index of direction `d` (`n + 1` entries).
    ///
    /// # Panics
    /// If `d` is `In` on a directed graph opened without in-edges.
    pub fn offsets(&self, d: Direction) -> &Offsets {
        &self.adjacency(d).expect("direction not opened").offsets
    }

    /// Degree of `v` in direction `d` (stored arcs, duplicates and self-loops included).
    ///
    /// # Panics
    /// As [`offsets`](Self::offsets), and if `v >= n`.
    #[inline]
    pub fn degree(&self, d: Direction, v: u32) -> u64 {
        self.offsets(d).degree(v as usize)
    }

    /// The row partitions of the out-edges (equal `edges + vertices` each).
    pub fn partitions(&self) -> &Partitions {
        &self.out.partitions
    }

    /// The I/O context (settings, backend, counters).
    pub fn io(&self) -> &IoContext {
        &self.io
    }

    /// Bytes of vertex state the engine itself keeps (the offsets indexes, and the byte-offset
    /// indexes of compressed lists): semi-external, reported, not charged to the budget.
    pub fn vertex_state_bytes(&self) -> u64 {
        let idx = |a: &Adjacency| a.offsets.bytes() + a.compressed.as_ref().map_or(0, |c| c.bytes.bytes());
        idx(&self.out) + self.inn.as_ref().map_or(0, idx)
    }

    /// Peak bytes the engine held out of the budget: the I/O buffers granted, the claim bitmap,
    /// and the largest assembly buffer used together with the lists the algorithm held from the
    /// same share ([`hold_lists`](Self::hold_lists)) — which exceed the share only for a single
    /// vertex whose lists alone are larger — and the compressed lists gathered across reads.
    pub fn peak_engine_memory(&self) -> u64 {
        let statics = self.static_cache.as_ref().map_or(0, |s| s.lists().bytes())
            + self.page_cache.as_ref().map_or(0, |c| c.bytes());
        self.buffer_bytes
            + self.claims.bytes()
            + self.assembly_peak.load(Relaxed)
            + self.retained_peak.load(Relaxed)
            + self.stitch.peak()
            + statics
    }

    /// The adjacency file that holds direction `d` (an undirected graph's in-edges are its
    /// out-edges).
    pub(crate) fn physical(&self, d: Direction) -> Direction {
        if self.core.directed {
            d
        } else {
            Direction::Out
        }
    }

    /// A stash for lists of direction `d`, when retention is on.
    pub(crate) fn stash(&self, d: Direction) -> Option<retained::Stash> {
        (self.retain_capacity > 0).then(|| {
            let capacity = retained::stash_capacity(self.retain_capacity, self.core.vertices.len());
            retained::Stash::new(self.physical(d), self.core.vertices.len(), capacity)
        })
    }

    /// The retained lists of direction `d`, if any.
    pub(crate) fn retained(&self, d: Direction) -> Option<Arc<retained::Generation>> {
        let g = self.retained.read().unwrap_or_else(|e| e.into_inner());
        g.as_ref().filter(|g| g.dir == self.physical(d)).cloned()
    }

    /// Makes the lists `stash` kept the retained lists, dropping the previous ones; the peak
    /// counts both generations and the stash's bookkeeping, all held while it is finished.
    pub(crate) fn retain(&self, stash: retained::Stash) {
        let held = self
            .retained
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .as_ref()
            .map_or(0, |g| g.bytes());
        self.retained_peak.fetch_max(held + stash.charged(), Relaxed);
        let g = stash.finish();
        *self.retained.write().unwrap_or_else(|e| e.into_inner()) = g.map(Arc::new);
    }

    /// The copy of the lists read: `plain`, or the compressed layout's name.
    pub fn adjacency_name(&self) -> &str {
        self.layout.as_ref().map_or("plain", |l| l.name())
    }

    /// Rounds run (one per direction read).
    pub fn rounds(&self) -> u64 {
        self.rounds.load(Relaxed)
    }

    /// Edges delivered to compute so far.
    pub fn edges_delivered(&self) -> u64 {
        self.edges_delivered.load(Relaxed)
    }

    /// The smallest budget this graph's settings take (what a too-small budget is told).
    pub(crate) fn min_budget(&self) -> u64 {
        self.demand.minimum()
    }
}

impl Engine for SelectiveGraph {
    fn core(&self) -> &EngineCore {
        &self.core
    }

    fn max_degree_vertex(&self) -> Result<u32, EngineError> {
        let o = self.offsets(Direction::Out);
        Ok(self
            .core
            .vertices
            .max_degree_by(o.len().saturating_sub(1), |v| o.degree(v)))
    }

    fn for_each_degree(&self, d: Direction, mut f: impl FnMut(u32, u64)) -> Result<(), EngineError> {
        let o = &self.adjacency(d)?.offsets;
        for v in 0..o.len().saturating_sub(1) {
            f(v as u32, o.degree(v));
        }
        Ok(())
    }

    fn edges_counted(&self) -> Option<u64> {
        Some(self.edges_delivered())
    }

    /// Bytes read (counted when a round's reads end), edges delivered, the caches' hit ratios.
    fn snapshot(&self) -> Snapshot {
        let mut cache_hit_ratio = std::collections::BTreeMap::new();
        if let Some(c) = &self.page_cache {
            cache_hit_ratio.insert("page".into(), c.hit_ratio());
        }
        if let Some(c) = &self.static_cache {
            cache_hit_ratio.insert("basc".into(), c.hit_ratio());
        }
        Snapshot {
            bytes_read: self.io.bytes_read(),
            edges: self.edges_counted(),
            cache_hit_ratio,
            bytes_live: false,
        }
    }

    /// Every I/O counter, the backend and its settings, the budget split,
    /// `peak_engine_memory`, the caches' figures.
    fn record(&self, stats: &mut RunStats) {
        let mut io = self.io.stats();
        let c = self.io.config();
        stats.bytes_read = io.bytes_read;
        stats.io_requests = io.requests;
        stats.blocks_requested = io.blocks_requested;
        stats.blocks_after_dedup = io.blocks_after_dedup;
        stats.merged_runs = io.merged_runs;
        stats.io_utility = io.utility();
        stats.io_wait_seconds = io.io_wait_seconds;
        stats.peak_engine_memory = self.peak_engine_memory();
        stats.io_rounds = std::mem::take(&mut io.round_log);
        let s = &mut stats.settings;
        s.insert("io_backend".into(), json!(self.io.backend()));
        s.insert("block_size".into(), json!(c.block_size));
        s.insert("max_gap_blocks".into(), json!(c.max_gap_blocks));
        s.insert("max_request_bytes".into(), json!(c.max_request_bytes));
        s.insert("scheduler".into(), json!(c.scheduler));
        s.insert("queue_depth".into(), json!(c.queue_depth));
        s.insert("io_threads".into(), json!(c.io_threads));
        s.insert("compute_threads".into(), json!(c.compute_threads));
        s.insert("io_buffer_bytes".into(), json!(self.buffer_bytes));
        s.insert("claim_bitmap_bytes".into(), json!(self.claims.bytes()));
        s.insert("assembly_bytes".into(), json!(self.assembly_bytes));
        s.insert("adjacency".into(), json!(self.adjacency_name()));
        if let Some(note) = &self.adjacency_note {
            s.insert("adjacency_note".into(), json!(note));
        }
        if self.layout.is_some() {
            s.insert("stitch_bytes".into(), json!(self.stitch_bytes));
            s.insert("stitch_peak_bytes".into(), json!(self.stitch.peak()));
        }
        s.insert("partitions".into(), json!(self.out.partitions.len()));
        s.insert("rounds".into(), json!(self.rounds()));
        s.insert("useful_bytes".into(), json!(io.useful_bytes));
        s.insert("blocks_read".into(), json!(io.blocks_read));
        s.insert("io_rounds".into(), json!(io.rounds));
        s.insert("io_busy_seconds".into(), json!(io.io_busy_seconds));
        s.insert("buffer_kind".into(), json!(self.io.buffer_kind()));
        s.insert("registered_buffers".into(), json!(self.io.registered_buffers()));
        if let Some(why) = self.io.fallback_reason() {
            s.insert("io_fallback".into(), json!(why));
        }
        s.insert("vertex_state_bytes".into(), json!(self.vertex_state_bytes()));
        s.insert("retain_capacity_bytes".into(), json!(self.retain_capacity));
        s.insert("retained_peak_bytes".into(), json!(self.retained_peak.load(Relaxed)));
        s.insert(
            "retained_lists_served".into(),
            json!(self.retained_lists_served.load(Relaxed)),
        );
        s.insert(
            "retained_edges_served".into(),
            json!(self.retained_edges_served.load(Relaxed)),
        );
        if let Some(c) = &self.page_cache {
            let p = c.stats();
            stats.cache_hit_ratio.insert("page".into(), p.hit_ratio());
            s.insert("page_cache".into(), json!(p));
            s.insert("page_cache_bytes".into(), json!(c.bytes()));
            s.insert("page_size".into(), json!(c.page_size()));
        }
        if let Some(c) = &self.static_cache {
            stats.cache_hit_ratio.insert("basc".into(), c.hit_ratio());
            s.insert("basc".into(), json!(c.loaded.layout()));
            s.insert("basc_share_bytes".into(), json!(c.share));
            s.insert("basc_bytes".into(), json!(c.lists().bytes()));
            s.insert("basc_lists".into(), json!(c.lists().len()));
            s.insert("basc_load_seconds".into(), json!(c.load_seconds));
            s.insert("basc_load_bytes".into(), json!(c.load_bytes));
            s.insert("basc_preloaded".into(), json!(c.preloaded));
            s.insert("basc_lists_served".into(), json!(c.hits.load(Relaxed)));
            s.insert("basc_lists_requested".into(), json!(c.requests.load(Relaxed)));
        }
    }
}

/// The arc offsets of direction `d` of `dir`, packed as they are read (see `offsets`); an index
/// the manifest does not list is left to the graph to give (and refuse).
fn load_offsets(dir: &GraphDir, d: Direction, stop: &std::sync::atomic::AtomicBool) -> Result<Offsets, EngineError> {
    let (idx, _, _) = dir.files_of(d);
    let m = dir.manifest();
    if !m.files.contains_key(idx) {
        return Ok(Offsets::pack(&dir.load_offsets_stoppable(d, stop)?));
    }
    Ok(Offsets::load(
        &dir.file_path(idx),
        m.num_vertices + 1,
        m.num_arcs,
        stop,
    )?)
}

/// What opening `dir` with `opts`, reading the lists from `layout` (`None`: the plain lists),
/// asks of the budget.
fn demand(dir: &GraphDir, opts: &SelectiveOptions, layout: Option<&CompressedLayout>) -> budget::Demand {
    let m = dir.manifest();
    let adjacency_bytes = match layout {
        Some(l) => l.lists_len(Direction::Out).max(l.lists_len(Direction::In)),
        None => m.num_arcs * 4,
    };
    budget::Demand {
        adjacency_bytes,
        io: opts.io.clone(),
        weighted: m.weighted && opts.need_weights,
        static_fraction: opts.basc.as_ref().map(|b| b.fraction),
        assemble_lists: opts.assemble_lists,
        page_size: opts.page_cache.as_ref().map(|p| p.page_size),
        retain_lists: opts.retain_lists,
        compressed: layout.is_some(),
    }
}

/// Checks a page cache's page size against the I/O settings.
fn check_page_size(opts: &PageCacheOptions, io: &IoConfig) -> Result<(), EngineError> {
    let ps = opts.page_size;
    if !ps.is_power_of_two() || ps < io.block_size || ps > io.max_request_bytes {
        return Err(EngineError::Io(IoError::Config(format!(
            "page size {ps} must be a power of two, a multiple of the block size ({}) and at most the largest read ({})",
            io.block_size, io.max_request_bytes
        ))));
    }
    Ok(())
}

/// The page cache of `opts` in `capacity` bytes (data and bookkeeping).
fn open_page_cache(opts: &PageCacheOptions, capacity: u64) -> diskgraph_cache::PageCache {
    let page_bytes = u64::from(opts.page_size);
    let slot_bytes = page_bytes + budget::PAGE_BOOKKEEPING_BYTES;
    diskgraph_cache::PageCache::new(
        capacity / slot_bytes * page_bytes,
        opts.page_size as usize,
        opts.policy,
        opts.track_utilization,
    )
}

/// The error for a weighted run on a compressed-only graph: the selective engine reads weights
/// beside the plain lists, by arc offset.
fn compressed_only_weights(dir: &GraphDir) -> EngineError {
    EngineError::Setting(format!(
        "the selective engine reads weights beside the plain lists, and {} is compressed-only (no out.adj): use {}",
        dir.path().display(),
        diskgraph_io::spelling::setting("engine", "memory, sync, stream or shards")
    ))
}
