//! The stream engine (CLIP, ATC '17; GridGraph, ATC '15): iterations stream a graph's grid
//! layout block by block from disk, and every loaded block is squeezed before the next.
//!
//! # Model
//!
//! A [`StreamGraph`] opens one grid layout ([`GridLayout`]: `diskgraph partition`) and reads it
//! through a [`SequentialReader`]: a loader thread reads the blocks of an iteration in order, with
//! large O_DIRECT reads, into a ring of buffers while the calling thread computes on the block
//! before. [`StreamGraph::stream`] is one iteration (CLIP's `Exec`):
//!
//! - **Order**: row-major (the file's order) or column-major, as the algorithm asks ([`Order`]).
//! - **Selective scheduling**: with an active set ([`Frontier`]), a block whose source range has
//!   no active vertex is skipped without being read, and inside a loaded block the runs of edges
//!   of inactive sources are skipped whole (blocks of `grid` and `source` layouts are sorted by
//!   (src, dst), so each source's edges are one run).
//! - **Loaded-data reentry**: each loaded block is processed by up to `mrt` passes — pass 1 over
//!   the active sources, each later pass over the sources of this block that the passes before
//!   updated — until a pass leaves nothing to do. `mrt = 1` is GridGraph's one pass per block.
//! - **Programming model**: the edge function `edge_fn(edge, weight) -> Update` may read and
//!   write any vertex's state (beyond the neighbourhood: it captures the [`VertexArray`]s it
//!   needs) and says which endpoint it updated ([`Update`]); updated vertices go into the
//!   iteration's `next` frontier, and into the block's reentry passes. [`StreamGraph::vmap`] is
//!   `VMap`; CLIP's `Sort(F_s)` is the partition key API (`diskgraph_prep::partition_with_key`),
//!   whose layouts this engine streams like any other.
//! - **Threads** ([`Threads`]): algorithms that keep the neighbourhood constraint run each pass
//!   in parallel — either any split of a load's edges (their edge functions use atomics), or
//!   [`Threads::ByColumn`]: loads of different grid columns run at once and a column's edges never
//!   do, so an edge function may update the destination with plain reads and writes (no atomic
//!   read-modify-write, whose lock stops the core from overlapping cache misses). Beyond-
//!   neighbourhood algorithms ask for one thread, so edges are applied exactly in file order.
//!
//! A block larger than a buffer is cut into pieces, each loaded (and re-entered) on its own;
//! consecutive small blocks that are contiguous in the file share one read.
//!
//! # Memory
//!
//! `--memory` pays for everything the engine holds: [`SLOTS`] ring slots, each one load of edges
//! (8 bytes each) and, when weights are read, their weights (4 bytes each), plus alignment slack,
//! and the run index of one load (4 bytes per edge). The load size follows from the budget.
//! A compressed layout (`partition --compress`) fills the slots with compressed bytes and decodes
//! one request's blocks (in parallel, a block per task) into a buffer of 8 bytes per edge; its
//! blocks decode only whole, so loads hold at least the largest block.
//! Vertex state is semi-external (reported, not charged), or — with [`VertexStateKind::Mmap`] —
//! lives in a mapped scratch file the kernel pages, so it may exceed RAM.
//!
//! # Checks
//!
//! [`GridLayout::open`] checks the layout's metadata and block index against the graph; every
//! edge is range-checked against its block as the block arrives, before any edge function sees
//! it, so a corrupt layout is a [`FormatError`], never an out-of-bounds access.

mod frontier;
mod layout_choice;
mod load;
mod plan;
mod state;

use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};
use std::time::Instant;

use diskgraph_format::{ArcStream, Direction, FormatError, GraphDir, GridEdge, GridLayout, GridSort, EDGE_BYTES};
use diskgraph_io::{
    BackendKind, MappedScratch, ReadRequest, RoundRecord, SequentialConfig, SequentialReader, SequentialStats,
    STREAM_READ_BYTES,
};
use rayon::prelude::*;
use serde_json::json;

pub use frontier::Frontier;
pub use layout_choice::{choose_layout, default_layout, LayoutNeed};
pub use plan::Order;
pub use state::{AtomicWord, VertexArray, VertexStateKind};

use crate::contract::{Engine, EngineCore, EngineKind};
pub use crate::engine_options::DEFAULT_MRT;
use crate::engine_options::{LAYOUT, MRT, VERTEX_STATE};
use crate::index::{vertices_of, GraphIndex};
use crate::options::Params;
use crate::request::{Held, Needs, OpenEngine, OpenRequest};
use crate::{Cancel, EngineError, Recorder, RunStats, Snapshot};

/// Ring slots: loads held at once (one being computed on, the others loading ahead).
pub const SLOTS: usize = 4;
/// Smallest load the budget must allow, in edges.
pub const MIN_LOAD_EDGES: u64 = 256;
/// Read buffer of the offset index when degrees are streamed.
const INDEX_BUFFER: usize = 1 << 20;

/// How to open a graph on the stream engine.
#[derive(Clone, Debug)]
pub struct StreamOptions {
    /// The memory budget in bytes (`--memory`).
    pub memory: u64,
    /// Maximum reentry times of a loaded block (`--mrt`); 1 is GridGraph.
    pub mrt: u32,
    /// Where vertex state lives.
    pub vertex_state: VertexStateKind,
    /// Directory of the scratch file of mapped vertex state; default: the graph directory's
    /// parent (the graph's device), else the system's temporary directory.
    pub scratch_dir: Option<PathBuf>,
    /// Read the weights (when the layout has them).
    pub weights: bool,
    /// `None`: io_uring when available, else pread; `Pread` forces pread (`Mmap` is refused).
    pub backend: Option<BackendKind>,
    /// Reads in flight (io_uring).
    pub queue_depth: u32,
    /// The graph's index loaded earlier: its IDs are used instead of reading them again.
    pub index: Option<GraphIndex>,
    /// The run's stop request: the opening's loads and every pass poll it (between loads of
    /// blocks), ending with [`EngineError::Cancelled`]; the engine's [`Recorder`] carries it.
    pub cancel: Option<Cancel>,
}

impl Default for StreamOptions {
    fn default() -> Self {
        StreamOptions {
            memory: diskgraph_io::DEFAULT_MEMORY,
            mrt: DEFAULT_MRT,
            vertex_state: VertexStateKind::Memory,
            scratch_dir: None,
            weights: false,
            backend: None,
            queue_depth: 32,
            index: None,
            cancel: None,
        }
    }
}

/// How a run opens the stream engine: the layout it streams and the options.
#[derive(Clone, Debug)]
pub struct StreamStart {
    /// The layout's name.
    pub layout: String,
    /// The options.
    pub options: StreamOptions,
}

impl OpenEngine for StreamGraph {
    const KIND: EngineKind = EngineKind::Stream;
    type Options = StreamStart;

    /// The budget, reentry, vertex state, backend and queue depth, and the layout: the one
    /// `--layout` names, else the one the algorithm's [`LayoutNeed`] prefers.
    fn options(graph: &GraphDir, req: &OpenRequest) -> Result<StreamStart, EngineError> {
        let params = req.params;
        if req.io.backend == Some(BackendKind::Mmap) {
            return Err(EngineError::Setting(
                "the stream engine reads with uring or pread, not mmap".into(),
            ));
        }
        let need = (req.needs.layout)(params);
        let layout = choose_layout(req.algorithm, graph, params.text(&LAYOUT), need, req.threads())?;
        let options = StreamOptions {
            memory: req.memory,
            mrt: params.value::<u64>(&MRT) as u32,
            vertex_state: params.choice_value(&VERTEX_STATE),
            scratch_dir: None,
            weights: req.needs.weights,
            backend: req.io.backend,
            queue_depth: req.io.queue_depth,
            index: req.index.clone(),
            cancel: req.cancel.clone(),
        };
        Ok(StreamStart { layout, options })
    }

    fn least_budget(graph: &GraphDir, start: &StreamStart) -> Result<u64, EngineError> {
        StreamGraph::minimum_budget(graph, &start.layout, &start.options)
    }

    fn open_with(graph: &GraphDir, start: &StreamStart) -> Result<Self, EngineError> {
        StreamGraph::open(graph, &start.layout, &start.options)
    }

    /// A frontier bitmap (its arrays are the algorithm's).
    fn held(_: Option<&GraphDir>, _: &Params, _: Needs) -> Held {
        Held::by_vertex(0.25)
    }
}

/// Which endpoints of an edge the edge function updated (the engine activates them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Update(u8);

impl Update {
    /// Nothing changed.
    pub const NONE: Update = Update(0);
    /// The destination changed.
    pub const DST: Update = Update(1);
    /// The source changed.
    pub const SRC: Update = Update(2);
    /// Both changed.
    pub const BOTH: Update = Update(3);

    /// [`Update::DST`] when `changed`, else [`Update::NONE`].
    #[inline]
    pub fn dst_if(changed: bool) -> Update {
        Update(changed as u8)
    }

    /// Whether the destination changed.
    #[inline]
    pub fn dst(self) -> bool {
        self.0 & 1 != 0
    }

    /// Whether the source changed.
    #[inline]
    pub fn src(self) -> bool {
        self.0 & 2 != 0
    }
}

impl std::ops::BitOr for Update {
    type Output = Update;

    fn bitor(self, o: Update) -> Update {
        Update(self.0 | o.0)
    }
}

/// One iteration's settings (see [`StreamGraph::stream`]).
#[derive(Clone, Copy, Debug)]
pub struct Pass<'a> {
    /// Block order.
    pub order: Order,
    /// Only edges whose source is in this set are processed (blocks and runs without one are
    /// skipped); `None`: every edge.
    pub active: Option<&'a Frontier>,
    /// Where updated vertices are recorded (`None`: nowhere).
    pub next: Option<&'a Frontier>,
    /// Passes per loaded block at most (1: no reentry).
    pub mrt: u32,
    /// How the pass uses the threads.
    pub threads: Threads,
    /// Hand the edge function the edges' weights (1.0 when the layout has none).
    pub weights: bool,
}

impl Pass<'_> {
    /// Every edge once, row-major, in parallel, without weights, recording nothing.
    pub fn all() -> Pass<'static> {
        Pass {
            order: Order::RowMajor,
            active: None,
            next: None,
            mrt: 1,
            threads: Threads::Shared,
            weights: false,
        }
    }
}

/// How a pass spreads its edges over the threads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Threads {
    /// One thread, edges in file order (for edge functions that touch any vertex).
    #[default]
    One,
    /// Any split of a load's edges over all threads: the edge function must make its own
    /// updates safe (atomics).
    Shared,
    /// Loads of different grid columns (so disjoint destination ranges) run in parallel, the
    /// loads of one column one after another: no two threads ever hold edges with the same
    /// destination, so the edge function may update the destination with plain reads and writes,
    /// and each destination sees its edges in file order. Sources are shared: read them only.
    /// With reentry (`mrt > 1`) loads run one at a time (their pending sources would overlap).
    /// Only loads of distinct columns run at once, so a layout of few columns (blocks larger
    /// than a load) gets little parallelism: see [`StreamGraph::column_parallel`].
    ByColumn,
}

/// What one iteration did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PassReport {
    /// Edge-function calls (every reentry pass counted).
    pub edges_processed: u64,
    /// Edges of loaded blocks skipped because their source was inactive (first passes).
    pub edges_skipped: u64,
    /// Non-empty blocks read.
    pub blocks_loaded: u64,
    /// Non-empty blocks skipped without being read.
    pub blocks_skipped: u64,
    /// Edges of the skipped blocks.
    pub block_edges_skipped: u64,
    /// Loads computed on (blocks, or pieces of blocks larger than a load).
    pub loads: u64,
    /// Passes over loads (first passes plus reentry passes).
    pub load_passes: u64,
    /// The reads.
    pub io: SequentialStats,
}

/// Totals over a graph's iterations.
#[derive(Clone, Debug, Default)]
struct Totals {
    iterations: u64,
    edges_processed: u64,
    edges_skipped: u64,
    blocks_loaded: u64,
    blocks_skipped: u64,
    block_edges_skipped: u64,
    loads: u64,
    load_passes: u64,
    rounds: Vec<RoundRecord>,
}

/// A graph opened on the stream engine. See the [module docs](self).
pub struct StreamGraph {
    graph: GraphDir,
    layout: GridLayout,
    opts: StreamOptions,
    reader: SequentialReader,
    /// Edges per load at most.
    load_edges: u64,
    /// Bytes of the edge file per request at most.
    load_bytes: u64,
    /// A compressed layout's decoded edges of one request (grown to the largest once).
    decoded: Mutex<Vec<GridEdge>>,
    scratch: PathBuf,
    /// Vertices pending another pass of the load being computed on.
    pending: Frontier,
    /// Bytes of vertex state made through the engine.
    state_bytes: std::sync::atomic::AtomicU64,
    /// The mapped scratch files of the vertex arrays made through the engine, checked for
    /// pages that could not be read or written after every pass.
    scratches: Mutex<Vec<std::sync::Weak<MappedScratch>>>,
    totals: Mutex<Totals>,
    /// The counts, IDs, budget and whether weights are read; the log, a step per pass.
    core: EngineCore,
}

/// How loads are sized.
#[derive(Clone, Copy, Debug)]
struct Sizing {
    /// Edges per load (and per request) at most.
    load_edges: u64,
    /// Bytes of the edge file per request at most.
    load_bytes: u64,
}

/// Sizes the loads of `layout` read with `opts` under `opts.memory`; the error is the least
/// budget that would do.
///
/// Plain layouts: [`SLOTS`] ring slots of one load of 8-byte edges (and 4-byte weights when
/// read), plus the run index of one load (4 bytes an edge), plus each buffer's slack. Compressed
/// layouts: the slots hold compressed bytes instead, and one request's edges are decoded into a
/// buffer of 8 bytes an edge; a compressed block decodes only whole, so a load must hold the
/// largest block — the slots are sized for the largest block's bytes, or more when the budget
/// allows loads of several blocks at the layout's average bytes per edge.
fn sizing(layout: &GridLayout, opts: &StreamOptions) -> Result<Sizing, u64> {
    let w: u64 = if opts.weights && layout.weighted() { 4 } else { 0 };
    let files = if layout.weighted() { 2 } else { 1 };
    // Each file's buffer: its capacity rounded up to 4096, plus 4096 of slack.
    let slack = SLOTS as u64 * files * 8192 + 4;
    let slots = SLOTS as u64;
    let most = layout.num_arcs().max(MIN_LOAD_EDGES).min(u64::from(u32::MAX) - 1);
    if layout.compressed().is_none() {
        let per_edge = slots * (8 + w) + 4;
        let fit = opts.memory.saturating_sub(slack) / per_edge;
        if fit < MIN_LOAD_EDGES {
            return Err(slack + per_edge * MIN_LOAD_EDGES);
        }
        let load_edges = fit.min(most);
        return Ok(Sizing {
            load_edges,
            load_bytes: load_edges * EDGE_BYTES,
        });
    }
    let blocks = 0..layout.num_blocks();
    let max_edges = blocks
        .clone()
        .map(|b| layout.block_len(b))
        .max()
        .unwrap_or(0)
        .max(MIN_LOAD_EDGES);
    let max_bytes = blocks
        .map(|b| layout.block_bytes(b))
        .map(|r| r.end - r.start)
        .max()
        .unwrap_or(0);
    // Decoded edges (8), run index (4), weights in every slot.
    let per_edge = 12 + slots * w;
    let least = slack + slots * max_bytes + per_edge * max_edges;
    if opts.memory < least {
        return Err(least);
    }
    // Loads of several blocks at the average bytes per edge, when the budget allows.
    let packed = layout.block_bytes(layout.num_blocks() - 1).end;
    let ratio = packed as f64 / layout.num_arcs().max(1) as f64;
    let fit = ((opts.memory - slack) as f64 / (per_edge as f64 + slots as f64 * ratio)) as u64;
    let bytes = ((fit as f64 * ratio).ceil() as u64).max(max_bytes);
    let (load_edges, load_bytes) = if fit >= max_edges && slack + slots * bytes + per_edge * fit <= opts.memory {
        (fit, bytes)
    } else {
        ((opts.memory - slack - slots * max_bytes) / per_edge, max_bytes)
    };
    Ok(Sizing {
        load_edges: load_edges.min(most).max(max_edges),
        load_bytes,
    })
}

impl StreamGraph {
    /// The smallest budget [`open`](Self::open) accepts for layout `layout` of `graph` with
    /// `opts` (whatever `opts.memory` is): reads only the layout's metadata, so `auto` can ask
    /// it before opening an engine. Errors: a missing or damaged layout.
    pub fn minimum_budget(graph: &GraphDir, layout: &str, opts: &StreamOptions) -> Result<u64, EngineError> {
        let opts = StreamOptions {
            memory: 0,
            ..opts.clone()
        };
        // No budget is enough for nothing: sizing always answers with the least one.
        Ok(sizing(&GridLayout::open(graph, layout)?, &opts).err().unwrap_or(0))
    }

    /// Opens layout `layout` of `graph` (checked by [`GridLayout::open`]), sizes the loads from
    /// the budget and starts the reader.
    ///
    /// Errors: a missing or damaged layout; [`EngineError::BudgetTooSmall`] when the budget cannot
    /// hold [`SLOTS`] loads of [`MIN_LOAD_EDGES`]; `mrt` of 0; reader settings it refuses.
    pub fn open(graph: &GraphDir, layout: &str, opts: &StreamOptions) -> Result<StreamGraph, EngineError> {
        if opts.mrt == 0 {
            return Err(EngineError::Setting(format!(
                "{} must be at least 1",
                diskgraph_io::spelling::option("mrt")
            )));
        }
        let cancel = opts.cancel.clone().unwrap_or_default();
        cancel.check()?;
        let layout = GridLayout::open(graph, layout)?;
        let weights = opts.weights && layout.weighted();
        let Sizing { load_edges, load_bytes } = sizing(&layout, opts).map_err(|least| {
            let what = match layout.compressed() {
                Some(_) => format!("{SLOTS} loads of the largest compressed block, decoded, and its run index"),
                None => format!("{SLOTS} loads of {MIN_LOAD_EDGES} edges and their run index"),
            };
            EngineError::budget(opts.memory, what, least)
        })?;
        let mut paths: Vec<(PathBuf, u64)> = vec![(layout.edges_path(), load_bytes)];
        if let Some(w) = layout.weights_path() {
            // Unread weights keep a minimal buffer: their ranges stay empty.
            paths.push((w, if weights { load_edges * 4 } else { 4 }));
        }
        let refs: Vec<(&Path, u64)> = paths.iter().map(|(p, c)| (p.as_path(), *c)).collect();
        let reader = SequentialReader::open(
            &refs,
            &SequentialConfig {
                backend: opts.backend,
                slots: SLOTS,
                queue_depth: opts.queue_depth.max(1),
                read_bytes: STREAM_READ_BYTES,
            },
        )?;
        let scratch = match (&opts.scratch_dir, opts.vertex_state) {
            (Some(d), _) => d.clone(),
            (None, VertexStateKind::Memory) => std::env::temp_dir(),
            (None, VertexStateKind::Mmap) => default_scratch(graph.path()),
        };
        let n = graph.num_vertices() as usize;
        let vertices = vertices_of(graph, opts.index.as_ref(), cancel.flag())?;
        Ok(StreamGraph {
            graph: graph.clone(),
            pending: Frontier::new(n),
            state_bytes: std::sync::atomic::AtomicU64::new(n.div_ceil(64) as u64 * 8),
            layout,
            opts: opts.clone(),
            reader,
            load_edges,
            load_bytes,
            decoded: Mutex::new(Vec::new()),
            scratch,
            totals: Mutex::new(Totals::default()),
            core: EngineCore {
                kind: <Self as OpenEngine>::KIND,
                vertices,
                num_arcs: graph.manifest().num_arcs,
                directed: graph.manifest().directed,
                weighted: weights,
                budget: opts.memory,
                recorder: Recorder::with_cancel(opts.cancel.as_ref()),
            },
            scratches: Mutex::new(Vec::new()),
        })
    }

    /// The graph directory.
    pub fn graph(&self) -> &GraphDir {
        &self.graph
    }

    /// The layout streamed.
    pub fn layout(&self) -> &GridLayout {
        &self.layout
    }

    /// The options it was opened with.
    pub fn options(&self) -> &StreamOptions {
        &self.opts
    }

    /// Whether [`Threads::ByColumn`] keeps every thread busy on this layout: it has at least
    /// four columns per thread, and its average block fits in a load several times over.
    pub fn column_parallel(&self) -> bool {
        let shape = self.layout.shape();
        let blocks = shape.num_blocks() as u64;
        let threads = rayon::current_num_threads() as u64;
        u64::from(shape.cols()) >= 4 * threads && self.layout.num_arcs() / blocks.max(1) <= self.load_edges / 4
    }

    /// Edges per load at most.
    pub fn load_edges(&self) -> u64 {
        self.load_edges
    }

    /// A vertex property, word `v` set to `init(v)`, where the options put vertex state.
    pub fn vertex_array<A: AtomicWord>(
        &self,
        init: impl Fn(u32) -> A::Value + Sync,
    ) -> Result<VertexArray<A>, EngineError> {
        let a =
            VertexArray::new(self.opts.vertex_state, self.num_vertices(), &self.scratch, init).map_err(|source| {
                EngineError::Scratch {
                    dir: self.scratch.clone(),
                    source,
                }
            })?;
        self.state_bytes
            .fetch_add(a.bytes(), std::sync::atomic::Ordering::Relaxed);
        if let Some(scratch) = a.scratch() {
            let mut scratches = self.scratches.lock().unwrap_or_else(PoisonError::into_inner);
            scratches.retain(|s| s.strong_count() > 0);
            scratches.push(std::sync::Arc::downgrade(scratch));
        }
        Ok(a)
    }

    /// An error naming the scratch file if a page of mapped vertex state could not be read or
    /// written (it read as zeros, so the pass computed on garbage).
    fn check_state(&self) -> Result<(), EngineError> {
        let scratches = self.scratches.lock().unwrap_or_else(PoisonError::into_inner);
        for scratch in scratches.iter().filter_map(std::sync::Weak::upgrade) {
            scratch.check()?;
        }
        Ok(())
    }

    /// An empty frontier over the vertices (counted as vertex state).
    pub fn frontier(&self) -> Frontier {
        let f = Frontier::new(self.num_vertices());
        self.state_bytes
            .fetch_add(f.bytes(), std::sync::atomic::Ordering::Relaxed);
        f
    }

    /// CLIP's `VMap`: `f(v)` for every vertex, in parallel.
    pub fn vmap(&self, f: impl Fn(u32) + Sync + Send) {
        (0..self.num_vertices() as u32)
            .into_par_iter()
            .with_min_len(1024)
            .for_each(f);
    }

    /// One iteration (CLIP's `Exec`): streams the layout in `pass.order`, skipping blocks and
    /// runs without an active source, and calls `edge_fn(edge, weight)` on the edges of every
    /// loaded block for up to `pass.mrt` passes (see the [module docs](self)). Updated vertices
    /// go into `pass.next`.
    ///
    /// Errors: an edge outside its block (a damaged layout), a failed read, weights asked of a
    /// graph opened without them.
    pub fn stream<F>(&self, pass: &Pass<'_>, edge_fn: F) -> Result<PassReport, EngineError>
    where
        F: Fn(GridEdge, f32) -> Update + Sync,
    {
        if pass.mrt == 0 {
            return Err(EngineError::Setting("a pass needs mrt of at least 1".into()));
        }
        self.check_cancelled()?;
        let edges_path = self.layout.edges_path();
        let exec = load::Exec {
            f: &edge_fn,
            active: pass.active,
            next: pass.next,
            pending: &self.pending,
            mrt: pass.mrt,
            split: pass.threads == Threads::Shared,
            edges_path: &edges_path,
        };
        let by_column = pass.threads == Threads::ByColumn && pass.mrt == 1;
        let shape = *self.layout.shape();
        let mut runs: Vec<u32> = Vec::new();
        self.each_request(pass.order, pass.active, pass.weights, |loads| {
            if by_column {
                return load::by_column(
                    loads,
                    |l| shape.block_position(l.block).1,
                    |l| exec.run(l, &mut Vec::new()),
                );
            }
            let mut total = load::LoadCounts::default();
            for l in loads {
                total += exec.run(l, &mut runs)?;
            }
            Ok(total)
        })
    }

    /// One iteration over every edge of a `destination`-sorted layout, gathering: `f(dst, edges,
    /// weights)` is called once per run of edges with one destination (each block holds a
    /// destination's edges as one run, by ascending source), loads of distinct columns in
    /// parallel as with [`Threads::ByColumn`] — so `f` may update `dst` with plain reads and
    /// writes and keep its running value in a register. Row-major, no reentry, nothing
    /// recorded; `weights` as [`Pass::weights`].
    ///
    /// Errors: a layout not sorted by destination; an edge outside its block; a failed read;
    /// weights asked of a graph opened without them.
    pub fn gather<G>(&self, weights: bool, f: G) -> Result<PassReport, EngineError>
    where
        G: Fn(u32, &[GridEdge], Option<&[f32]>) + Sync,
    {
        if self.layout.meta().sort != GridSort::Destination {
            return Err(EngineError::Setting(format!(
                "gathering needs a destination-sorted layout (`diskgraph partition --sort destination`), not {}",
                self.layout.name()
            )));
        }
        let edges_path = self.layout.edges_path();
        let shape = *self.layout.shape();
        self.each_request(Order::RowMajor, None, weights, |loads| {
            load::by_column(
                loads,
                |l| shape.block_position(l.block).1,
                |l| load::gather(l, &edges_path, &f),
            )
        })
    }

    /// The reading loop of one iteration: plans the blocks (`order`, skipping rows without an
    /// `active` source), reads them and hands `compute` each request's loads; counts and records
    /// the iteration.
    fn each_request(
        &self,
        order: Order,
        active: Option<&Frontier>,
        weights: bool,
        mut compute: impl FnMut(&[load::Loaded<'_>]) -> Result<load::LoadCounts, FormatError>,
    ) -> Result<PassReport, EngineError> {
        if weights && self.layout.weighted() && !self.core.weighted {
            return Err(EngineError::Setting(
                "weights asked for, but the graph was opened without them (StreamOptions::weights)".into(),
            ));
        }
        let started = Instant::now();
        let p = plan::plan(&self.layout, order, active, self.load_edges, self.load_bytes);
        let with_weights = weights && self.core.weighted;
        let requests: Vec<ReadRequest> = p.requests.iter().map(|r| self.read_request(r, with_weights)).collect();
        // Kept across passes: a fresh buffer would fault its pages in (zeroed) every pass.
        let mut decoded = self.decoded.lock().unwrap_or_else(PoisonError::into_inner);
        let edges_path = self.layout.edges_path();
        let shape = *self.layout.shape();
        let mut report = PassReport {
            blocks_loaded: p.blocks_loaded,
            blocks_skipped: p.blocks_skipped,
            block_edges_skipped: p.block_edges_skipped,
            ..PassReport::default()
        };
        let io = self.reader.read(&requests, |i, data| -> Result<(), EngineError> {
            // One load's work at most between two polls: a stop ends the pass here.
            self.check_cancelled()?;
            let req = &p.requests[i];
            let edges: &[GridEdge] = match self.layout.compressed() {
                Some(_) => {
                    self.decode(&p.loads[req.loads.clone()], req, data[0], &mut decoded)?;
                    &decoded[..(req.edges.end - req.edges.start) as usize]
                }
                None => cast(data[0], &edges_path)?,
            };
            let weights: Option<&[f32]> = match with_weights {
                true => Some(cast(data[1], &edges_path)?),
                false => None,
            };
            let loads: Vec<load::Loaded<'_>> = p.loads[req.loads.clone()]
                .iter()
                .map(|l| {
                    let (a, b) = (
                        (l.edges.start - req.edges.start) as usize,
                        (l.edges.end - req.edges.start) as usize,
                    );
                    load::Loaded {
                        edges: &edges[a..b],
                        weights: weights.map(|w| &w[a..b]),
                        first: l.edges.start,
                        block: l.block,
                        sources: shape.source_range(l.block),
                        destinations: shape.destination_range(l.block),
                    }
                })
                .collect();
            let counts = compute(&loads)?;
            report.edges_processed += counts.processed;
            report.edges_skipped += counts.skipped;
            report.load_passes += counts.passes;
            report.loads += loads.len() as u64;
            Ok(())
        })?;
        self.check_state()?;
        report.io = io;
        let mut t = self.totals.lock().unwrap_or_else(PoisonError::into_inner);
        t.iterations += 1;
        t.edges_processed += report.edges_processed;
        t.edges_skipped += report.edges_skipped;
        t.blocks_loaded += report.blocks_loaded;
        t.blocks_skipped += report.blocks_skipped;
        t.block_edges_skipped += report.block_edges_skipped;
        t.loads += report.loads;
        t.load_passes += report.load_passes;
        t.rounds.push(RoundRecord {
            bytes_read: report.io.bytes_read,
            requests: report.io.requests,
            useful_bytes: report.io.useful_bytes,
            seconds: started.elapsed().as_secs_f64(),
            io_busy_seconds: report.io.io_seconds,
        });
        drop(t);
        self.step(active.map(Frontier::count));
        Ok(report)
    }

    /// Streams the layout's weights alone, front to back, calling `f` with each piece (one
    /// sequential read of `weights.f32`; nothing when the layout is unweighted). For checks that
    /// need every weight, such as refusing negative ones.
    ///
    /// Errors: a layout with weights opened without them; a failed read.
    pub fn for_each_weight(&self, mut f: impl FnMut(&[f32])) -> Result<(), EngineError> {
        if !self.layout.weighted() {
            return Ok(());
        }
        if !self.core.weighted {
            return Err(EngineError::Setting(
                "weights asked for, but the graph was opened without them (StreamOptions::weights)".into(),
            ));
        }
        let total = self.layout.num_arcs();
        let requests: Vec<ReadRequest> = (0..total.div_ceil(self.load_edges))
            .map(|k| {
                let (a, b) = (k * self.load_edges, ((k + 1) * self.load_edges).min(total));
                ReadRequest {
                    ranges: vec![0..0, 4 * a..4 * b],
                }
            })
            .collect();
        let path = self.layout.edges_path();
        let io = self.reader.read(&requests, |_, data| -> Result<(), EngineError> {
            f(cast(data[1], &path)?);
            Ok(())
        })?;
        let mut t = self.totals.lock().unwrap_or_else(PoisonError::into_inner);
        t.rounds.push(RoundRecord {
            bytes_read: io.bytes_read,
            requests: io.requests,
            useful_bytes: io.useful_bytes,
            seconds: io.wall_seconds,
            io_busy_seconds: io.io_seconds,
        });
        Ok(())
    }

    fn read_request(&self, r: &plan::Request, weights: bool) -> ReadRequest {
        let weight_range = if weights {
            4 * r.edges.start..4 * r.edges.end
        } else {
            0..0
        };
        let ranges = std::iter::once(r.bytes.clone())
            .chain(self.layout.weighted().then_some(weight_range))
            .collect();
        ReadRequest { ranges }
    }

    /// Decodes the compressed `loads` of request `req` from its bytes into the front of `out`
    /// (grown to the request's edges when shorter), the loads in parallel (each a whole block).
    fn decode(
        &self,
        loads: &[plan::Load],
        req: &plan::Request,
        bytes: &[u8],
        out: &mut Vec<GridEdge>,
    ) -> Result<(), FormatError> {
        let n = (req.edges.end - req.edges.start) as usize;
        if out.len() < n {
            out.resize(n, GridEdge::default());
        }
        let mut pieces = Vec::with_capacity(loads.len());
        let mut rest = &mut out[..n];
        for l in loads {
            let (piece, tail) = rest.split_at_mut((l.edges.end - l.edges.start) as usize);
            let at = (l.bytes.start - req.bytes.start) as usize..(l.bytes.end - req.bytes.start) as usize;
            pieces.push((l.block, &bytes[at], piece));
            rest = tail;
        }
        let decode = |(b, bytes, piece): (usize, &[u8], &mut [GridEdge])| {
            self.layout.decode_block(b, bytes, piece, &mut Vec::new())
        };
        if pieces.len() == 1 {
            return pieces.into_iter().try_for_each(decode);
        }
        pieces.into_par_iter().with_max_len(1).try_for_each(decode)
    }

    /// Iterations run so far.
    pub fn iterations(&self) -> u64 {
        self.totals.lock().unwrap_or_else(PoisonError::into_inner).iterations
    }

    /// Bytes the engine holds out of the budget: the ring buffers and one load's run index,
    /// and for a compressed layout the decoded edges of one request.
    pub fn peak_engine_memory(&self) -> u64 {
        let decoded = match self.layout.compressed() {
            Some(_) => EDGE_BYTES * self.load_edges,
            None => 0,
        };
        self.reader.buffer_bytes() + 4 * (self.load_edges + 1) + decoded
    }

    /// Bytes of vertex state made through the engine (arrays, frontiers, its own pending set).
    pub fn vertex_state_bytes(&self) -> u64 {
        self.state_bytes.load(std::sync::atomic::Ordering::Relaxed)
    }
}

impl Engine for StreamGraph {
    fn core(&self) -> &EngineCore {
        &self.core
    }

    /// From the graph's out-offsets, read for the purpose (the engine keeps no index).
    fn max_degree_vertex(&self) -> Result<u32, EngineError> {
        Ok(self.core.vertices.max_degree(&self.graph.load_offsets(Direction::Out)?))
    }

    /// The graph's offset index read front to back through a small buffer: O(1) memory, as
    /// the engine's vertex state may not fit in RAM.
    fn for_each_degree(&self, d: Direction, mut f: impl FnMut(u32, u64)) -> Result<(), EngineError> {
        let mut index = ArcStream::open(&self.graph, d, false, INDEX_BUFFER)?;
        while let Some((v, degree)) = index.next_vertex()? {
            f(v, degree);
        }
        Ok(())
    }

    /// Edge-function calls so far.
    fn edges_counted(&self) -> Option<u64> {
        Some(
            self.totals
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .edges_processed,
        )
    }

    /// Bytes read (counted when a pass's reads end) and edges processed.
    fn snapshot(&self) -> Snapshot {
        Snapshot {
            bytes_read: self.reader.totals().bytes_read,
            edges: self.edges_counted(),
            cache_hit_ratio: Default::default(),
            bytes_live: false,
        }
    }

    /// Bytes read, read requests, time waiting for reads, one I/O round per iteration, peak
    /// memory, and in `settings` the layout, MRT, vertex state, backend, load size, blocks and
    /// edges skipped, passes.
    fn record(&self, stats: &mut RunStats) {
        let io = self.reader.totals();
        let t = self.totals.lock().unwrap_or_else(PoisonError::into_inner).clone();
        stats.bytes_read = io.bytes_read;
        stats.io_requests = io.requests;
        stats.io_wait_seconds = io.wait_seconds;
        stats.io_utility = if io.bytes_read > 0 {
            io.useful_bytes as f64 / io.bytes_read as f64
        } else {
            1.0
        };
        stats.peak_engine_memory = self.peak_engine_memory();
        stats.io_rounds = t.rounds;
        let m = self.layout.meta();
        let s = &mut stats.settings;
        s.insert("layout".into(), json!(self.layout.name()));
        s.insert("layout_sort".into(), json!(m.sort.to_string()));
        if let Some(codec) = m.compressed {
            s.insert("layout_compressed".into(), json!(codec));
        }
        s.insert("grid_rows".into(), json!(m.rows));
        s.insert("grid_cols".into(), json!(m.cols));
        s.insert("mrt".into(), json!(self.opts.mrt));
        s.insert("vertex_state".into(), json!(self.opts.vertex_state));
        s.insert("vertex_state_bytes".into(), json!(self.vertex_state_bytes()));
        if self.opts.vertex_state == VertexStateKind::Mmap {
            s.insert("scratch_dir".into(), json!(self.scratch));
        }
        s.insert("io_backend".into(), json!(self.reader.backend()));
        s.insert("direct_io".into(), json!(self.reader.direct()));
        if let Some(why) = self.reader.fallback_reason() {
            s.insert("io_fallback".into(), json!(why));
        }
        s.insert("io_buffer_bytes".into(), json!(self.reader.buffer_bytes()));
        s.insert("slots".into(), json!(SLOTS));
        s.insert("load_edges".into(), json!(self.load_edges));
        s.insert("stream_iterations".into(), json!(t.iterations));
        s.insert("loads".into(), json!(t.loads));
        s.insert("load_passes".into(), json!(t.load_passes));
        s.insert("reentry_passes".into(), json!(t.load_passes - t.loads));
        s.insert("blocks_loaded".into(), json!(t.blocks_loaded));
        s.insert("blocks_skipped".into(), json!(t.blocks_skipped));
        s.insert("block_edges_skipped".into(), json!(t.block_edges_skipped));
        s.insert("edges_skipped".into(), json!(t.edges_skipped));
        s.insert("useful_bytes".into(), json!(io.useful_bytes));
        s.insert("io_seconds".into(), json!(io.io_seconds));
        s.insert("io_rate".into(), json!(io.io_rate()));
    }
}

/// The default scratch directory of mapped vertex state: the graph directory's parent when a
/// file can be made there, else the system's temporary directory.
fn default_scratch(graph: &Path) -> PathBuf {
    let parent = graph
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    match tempfile::tempfile_in(parent) {
        Ok(_) => parent.to_path_buf(),
        Err(_) => std::env::temp_dir(),
    }
}

/// Reinterprets delivered bytes as records (the reader's buffers are aligned, and ranges start
/// at multiples of the record size).
fn cast<'a, T: bytemuck::Pod>(bytes: &'a [u8], path: &Path) -> Result<&'a [T], EngineError> {
    bytemuck::try_cast_slice(bytes).map_err(|e| {
        EngineError::Format(FormatError::Content {
            path: path.to_path_buf(),
            reason: format!("misaligned block data: {e}"),
        })
    })
}

/// Whether blocks of a layout sorted `sort` list each source's edges as one run and in
/// ascending (src, dst) order: `grid` and `source`.
pub fn source_sorted(sort: &GridSort) -> bool {
    matches!(sort, GridSort::Grid | GridSort::Source)
}
