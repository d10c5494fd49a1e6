//! The shard engine: GraphChi's parallel sliding windows (Kyrola, Blelloch and Guestrin, OSDI
//! '12) over a `shards-N` layout (`diskgraph partition --shards`), with a block cache that
//! keeps loaded blocks between intervals by Greedy Shard Caching (GSC; Li and Zheng).
//!
//! # A run
//!
//! A vertex-centric [`Program`] is run for iterations of N intervals each. For interval `p`
//! the engine loads the *memory shard* `p` (every arc into the interval, sorted by source) and
//! the *sliding window* of `p` in every other shard (the arcs out of the interval, contiguous
//! because each shard is sorted by source), groups the memory shard's arcs by target, and calls
//! `update` once for every vertex of the interval with its in-edges and out-edges, whose `u32`
//! values it may read and write. The values live in a scratch copy made for the run (the graph
//! directory is never written); every value starts at 0.
//!
//! # Visibility
//!
//! Updates run in ascending vertex order as far as any edge can tell: an update of `v` in
//! iteration `i` sees on an edge shared with `u` the value `u` last wrote — in iteration `i` if
//! `u < v`, in iteration `i − 1` if `u > v` (and its own previous write on a self-loop).
//! Vertices of the interval that share an edge with another vertex of the interval are updated
//! one at a time in ID order; the others in parallel, which no edge can observe. With
//! `deterministic` every update runs on one thread in ID order; results are the same.
//!
//! # Blocks and the budget
//!
//! The three columns (sources, targets, values) are read in blocks of the layout's block size
//! through a [`BlockCache`]; modified value blocks are written back (GraphChi writes them after
//! every interval; GSC delays the write while memory is free, see `diskgraph-cache`). The
//! budget holds the cache and the interval's grouping arrays; the smallest budget is the
//! largest interval's blocks and arrays ([`ShardGraph::minimum_budget`]). Vertex values are
//! the program's, outside the budget, as every engine's O(V) state.
//!
//! # Compressed layouts
//!
//! A `shards-N-<codec>` layout (`partition --shards N --compress CODEC`) holds each window as
//! packed runs instead of the two columns. The engine loads the packed blocks of the windows an
//! interval reads through the same cache (so GSC keeps compressed bytes: more of the graph stays
//! in memory), decodes the windows in parallel into pages addressed by arc number, and runs the
//! interval as over the plain columns; edge values stay one word per arc. The decoded pages
//! count as the interval's arrays in the budget.

mod advice;
mod columns;
mod decoded;
mod program;

use std::ops::Range;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::OnceLock;
use std::time::Instant;

use diskgraph_cache::{BlockCache, BlockKey};
use diskgraph_format::{
    shard_layouts, Direction, FormatError, GraphDir, ShardBudget, ShardLayout, SHARD_DST, SHARD_PACKED, SHARD_SRC,
    SHARD_UPDATE_CHUNK,
};
use rayon::prelude::*;
use serde_json::json;

use crate::engine_options::{DETERMINISTIC, GSC, LAYOUT, SCRATCH};
use crate::index::vertices_of;
use crate::options::Params;
use crate::request::{Held, Needs, OpenEngine, OpenRequest};
use crate::{
    human_bytes, Cancel, Engine, EngineCore, EngineError, EngineKind, GraphIndex, Recorder, RunStats, Snapshot,
    COMPRESSED_FROM_THREADS,
};
use columns::{ColumnFiles, Columns, DST, SRC, VALUES};
pub use program::{InEdges, OutEdges, Program, ProgramNeeds, Update};

/// Vertices per unit of work: updates of one chunk run in order on one thread.
const CHUNK: usize = SHARD_UPDATE_CHUNK as usize;
/// Block reads and write-backs the cache keeps in flight.
const IO_THREADS: usize = 8;

/// How to open the shard engine.
#[derive(Clone, Debug)]
pub struct ShardOptions {
    /// The `shards-N` layout to run over (default: the fewest shards that fit the budget).
    pub layout: Option<String>,
    /// The budget, in bytes.
    pub memory: u64,
    /// Keep blocks between intervals by Greedy Shard Caching.
    pub gsc: bool,
    /// Run every update on one thread in ID order.
    pub deterministic: bool,
    /// Where the run's scratch copy of the edge values goes (default: the system's temporary
    /// directory).
    pub scratch: Option<PathBuf>,
    /// A loaded index of the graph (its original IDs).
    pub index: Option<GraphIndex>,
    /// The run's stop request: the opening's loads and every interval poll it (ending with
    /// [`EngineError::Cancelled`]); the engine's [`Recorder`] carries it.
    pub cancel: Option<Cancel>,
}

/// How a run opens the shard engine: the options with the run's whole budget, and whether the
/// algorithm holds whole lists of its own besides the engine.
#[derive(Clone, Debug)]
pub struct ShardStart {
    /// The options; their budget is the run's.
    pub options: ShardOptions,
    /// The algorithm holds lists of its own: the engine gets half the budget, or less when it
    /// needs more, and its least grows by [`MIN_HELD_LISTS`].
    pub whole_lists: bool,
}

/// The least a variant that holds lists of its own is left for them beside the engine's budget.
pub const MIN_HELD_LISTS: u64 = 64 << 10;

impl OpenEngine for ShardGraph {
    const KIND: EngineKind = EngineKind::Shards;
    type Options = ShardStart;

    fn options(_: &GraphDir, req: &OpenRequest) -> Result<ShardStart, EngineError> {
        let params = req.params;
        let options = ShardOptions {
            layout: params.text(&LAYOUT),
            memory: req.memory,
            gsc: params.flag(&GSC),
            deterministic: params.flag(&DETERMINISTIC),
            scratch: params.text(&SCRATCH).map(PathBuf::from),
            index: req.index.clone(),
            cancel: req.cancel.clone(),
        };
        Ok(ShardStart {
            options,
            whole_lists: req.needs.whole_lists,
        })
    }

    fn least_budget(graph: &GraphDir, start: &ShardStart) -> Result<u64, EngineError> {
        let engine = ShardGraph::minimum_budget(graph, &start.options)?;
        Ok(match start.whole_lists {
            true => engine + MIN_HELD_LISTS,
            false => engine,
        })
    }

    /// Opens with the whole budget, or, for a variant that holds lists of its own, with half
    /// of it (or less when the engine needs more).
    fn open_with(graph: &GraphDir, start: &ShardStart) -> Result<Self, EngineError> {
        let memory = start.options.memory;
        let engine_memory = match start.whole_lists {
            true => {
                let half = ShardOptions {
                    memory: memory / 2,
                    ..start.options.clone()
                };
                let least = ShardGraph::minimum_budget(graph, &half)?;
                (memory / 2).max(least).min(memory)
            }
            false => memory,
        };
        ShardGraph::open(
            graph,
            &ShardOptions {
                memory: engine_memory,
                ..start.options.clone()
            },
        )
    }

    /// A frontier bitmap (its arrays are the algorithm's).
    fn held(_: Option<&GraphDir>, _: &Params, _: Needs) -> Held {
        Held::by_vertex(0.25)
    }
}

/// What one interval holds: its memory shard's grouping by target and, per shard, its window.
struct Plan {
    /// The interval's number.
    p: u32,
    /// The interval's vertices.
    vertices: Range<u32>,
    /// The memory shard's arcs.
    shard: Range<u64>,
    /// The interval's window in every shard (the memory shard's own among them), by shard.
    windows: Vec<Range<u64>>,
}

/// The scratch copy's directory name: this prefix, the pid of its run, `-`, random letters.
const SCRATCH_PREFIX: &str = "diskgraph-shards-";

/// Removes the scratch copies in `dir` of shard runs that are no longer running (killed: a run
/// that ends removes its own), judged by `/proc/<pid>`. Best effort.
fn remove_dead_scratch(dir: &std::path::Path) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let pid = name
            .strip_prefix(SCRATCH_PREFIX)
            .and_then(|rest| rest.split_once('-'))
            .and_then(|(pid, _)| pid.parse::<u32>().ok());
        let Some(pid) = pid else { continue };
        if pid != std::process::id() && !std::path::Path::new("/proc").join(pid.to_string()).exists() {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// A graph opened on the shard engine.
pub struct ShardGraph {
    graph: GraphDir,
    layout: ShardLayout,
    /// The counts, IDs and budget (no weights: vertex programs see edge values); the log, a
    /// step per sweep.
    core: EngineCore,
    gsc: bool,
    deterministic: bool,
    cache: BlockCache,
    files: ColumnFiles,
    /// Kept for its drop, which removes the scratch copy.
    _scratch: tempfile::TempDir,
    max_degree: OnceLock<Result<u32, String>>,
    edges: AtomicU64,
    io_nanos: AtomicU64,
    /// Time spent decoding a compressed layout's windows.
    decode_nanos: AtomicU64,
    peak_arrays: u64,
}

impl ShardGraph {
    /// Opens `graph` over the layout `opts` name (or the default one).
    ///
    /// Errors: the graph has no shards layout (naming the command that makes one), the layout
    /// is damaged, the budget cannot hold its largest interval, the scratch copy cannot be
    /// made.
    pub fn open(graph: &GraphDir, opts: &ShardOptions) -> Result<ShardGraph, EngineError> {
        let cancel = opts.cancel.clone().unwrap_or_default();
        cancel.check()?;
        let layout = choose_layout(graph, opts.layout.as_deref(), opts.memory)?;
        let sizes = budget_of(&layout);
        let minimum = sizes.minimum();
        if opts.memory < minimum {
            return Err(EngineError::BudgetTooSmall {
                budget: opts.memory,
                what: format!("the largest interval of {} (its blocks and arrays)", layout.name()),
                minimum,
                fix: advice::for_layout(graph, &layout, opts.memory),
            });
        }
        let vertices = vertices_of(graph, opts.index.as_ref(), cancel.flag())?;
        let dir = opts.scratch.clone().unwrap_or_else(std::env::temp_dir);
        remove_dead_scratch(&dir);
        let scratch = tempfile::Builder::new()
            .prefix(&format!("{SCRATCH_PREFIX}{}-", std::process::id()))
            .tempdir_in(&dir)
            .map_err(|source| EngineError::Scratch {
                dir: dir.clone(),
                source,
            })?;
        let arc_files = match layout.compressed() {
            Some(_) => vec![layout.column_path(SHARD_PACKED)],
            None => vec![layout.column_path(SHARD_SRC), layout.column_path(SHARD_DST)],
        };
        let arc_files: Vec<&std::path::Path> = arc_files.iter().map(|p| p.as_path()).collect();
        let files = ColumnFiles::open(&arc_files, scratch.path(), layout.num_arcs(), layout.block_bytes())?;
        let capacity = opts.memory - sizes.arrays;
        let cache = BlockCache::new(
            layout.block_bytes() as usize,
            capacity,
            opts.gsc,
            sizes.reserve,
            IO_THREADS,
        );
        Ok(ShardGraph {
            graph: graph.clone(),
            core: EngineCore {
                kind: <Self as OpenEngine>::KIND,
                vertices,
                num_arcs: layout.num_arcs(),
                directed: graph.manifest().directed,
                weighted: false,
                budget: opts.memory,
                recorder: Recorder::with_cancel(opts.cancel.as_ref()),
            },
            layout,
            gsc: opts.gsc,
            deterministic: opts.deterministic,
            cache,
            files,
            _scratch: scratch,
            max_degree: OnceLock::new(),
            edges: AtomicU64::new(0),
            io_nanos: AtomicU64::new(0),
            decode_nanos: AtomicU64::new(0),
            peak_arrays: sizes.arrays,
        })
    }

    /// The smallest budget `opts` open `graph` with: the largest interval's blocks plus the
    /// largest interval's grouping arrays, on the layout `opts` would choose.
    pub fn minimum_budget(graph: &GraphDir, opts: &ShardOptions) -> Result<u64, EngineError> {
        Ok(budget_of(&choose_layout(graph, opts.layout.as_deref(), opts.memory)?).minimum())
    }

    /// The layout the run goes over.
    pub fn layout(&self) -> &ShardLayout {
        &self.layout
    }

    /// Runs `program` for at most `max_iterations` iterations (fewer when
    /// [`Program::after_iteration`] says stop) with vertex values `values` (one per vertex),
    /// and writes back every modified block. Returns the iterations run.
    ///
    /// Errors: damaged layout data (an ID outside its interval, a shard out of order), an I/O
    /// failure.
    ///
    /// # Panics
    /// If `values` does not hold one value per vertex.
    pub fn run<P: Program>(
        &self,
        program: &mut P,
        values: &mut [P::Value],
        max_iterations: u32,
    ) -> Result<u32, EngineError> {
        assert_eq!(values.len(), self.num_vertices(), "one value per vertex");
        let needs = program.needs();
        let shift = (self.layout.block_bytes() / 4).trailing_zeros();
        let blocks = (4 * self.layout.num_arcs()).div_ceil(self.layout.block_bytes());
        let packed = self.layout.compressed().map(|_| {
            let len = self.layout.meta().files.get(SHARD_PACKED).map_or(0, |f| f.len);
            len.div_ceil(self.layout.block_bytes())
        });
        let mut columns = Columns::new(blocks, shift, packed);
        let mut iterations = 0;
        for iteration in 0..max_iterations {
            program.before_iteration(iteration, values);
            for p in 0..self.layout.num_shards() {
                let plan = self.plan(p);
                if plan.vertices.is_empty() {
                    continue;
                }
                self.check_cancelled()?;
                self.timed(|| self.load(&plan, needs, &mut columns))?;
                let interval = Interval::group(&self.layout, &plan, needs, &columns)?;
                let range = plan.vertices.start as usize..plan.vertices.end as usize;
                let cancel = self.cancel();
                let edges = interval.execute(
                    &*program,
                    iteration,
                    &mut values[range.clone()],
                    self.deterministic,
                    &cancel,
                );
                cancel.check()?;
                self.edges.fetch_add(edges, Relaxed);
                program.after_interval(iteration, plan.vertices.clone(), &mut values[range]);
                drop(interval);
                columns.clear();
                self.timed(|| self.cache.after_interval(&self.files).map_err(EngineError::from))?;
            }
            iterations = iteration + 1;
            let more = program.after_iteration(iteration, values);
            self.step(None);
            if !more {
                break;
            }
        }
        self.timed(|| self.cache.flush(&self.files).map_err(EngineError::from))?;
        Ok(iterations)
    }

    /// Runs `f`, adding its time to the I/O time.
    fn timed<T>(&self, f: impl FnOnce() -> T) -> T {
        let t = Instant::now();
        let r = f();
        self.io_nanos.fetch_add(t.elapsed().as_nanos() as u64, Relaxed);
        r
    }

    /// Interval `p`'s vertices, memory shard and windows.
    fn plan(&self, p: u32) -> Plan {
        let l = &self.layout;
        Plan {
            p,
            vertices: l.interval(p),
            shard: l.shard(p),
            windows: (0..l.num_shards()).map(|q| l.window(q, p)).collect(),
        }
    }

    /// Loads the blocks `plan` needs into `columns`, and decodes a compressed layout's windows.
    fn load(&self, plan: &Plan, needs: ProgramNeeds, columns: &mut Columns) -> Result<(), EngineError> {
        let windows = decoded_windows(plan, needs, self.layout.num_shards());
        let keys = match self.layout.compressed() {
            Some(_) => packed_block_keys(&self.layout, plan, &windows, needs, columns),
            None => block_keys(plan, needs, columns),
        };
        let blocks = self.cache.load(&keys, &self.files).map_err(|e| match e {
            Some(e) => EngineError::from(e),
            None => EngineError::Setting(format!(
                "the blocks of an interval of {} do not fit in the budget's cache",
                self.layout.name()
            )),
        })?;
        columns.insert(&keys, blocks);
        if columns.decoded.is_some() {
            let t = Instant::now();
            let r = self.decode(&windows, columns);
            self.decode_nanos.fetch_add(t.elapsed().as_nanos() as u64, Relaxed);
            r?;
        }
        Ok(())
    }

    /// Decodes the compressed `windows` (as `(shard, interval)`) from the packed blocks loaded
    /// in `columns` into its decoded arcs, in parallel.
    fn decode(&self, windows: &[(u32, u32)], columns: &mut Columns) -> Result<(), EngineError> {
        let l = &self.layout;
        let decoded = columns.decoded.as_mut().expect("a compressed layout");
        for &(q, p) in windows {
            decoded.reserve(&l.window(q, p));
        }
        let columns = &*columns;
        let decoded = columns.decoded.as_ref().expect("a compressed layout");
        windows.par_iter().try_for_each_init(
            || (Vec::new(), Vec::new()),
            |(scratch, list), &(q, p)| {
                let start = l.window(q, p).start;
                let bytes = columns.packed_bytes(&l.window_bytes(q, p), scratch);
                l.decode_window(q, p, bytes, list, |i, e| decoded.set(start + i as u64, e.src, e.dst))
            },
        )?;
        Ok(())
    }

    /// Out-offsets of direction `d`, read from the graph.
    fn offsets(&self, d: Direction) -> Result<Vec<u64>, EngineError> {
        if d == Direction::In && !self.graph.manifest().directed {
            return Ok(self.graph.load_offsets(Direction::Out)?);
        }
        Ok(self.graph.load_offsets(d)?)
    }
}

/// The distinct keys of the blocks `plan` reads, ascending.
fn block_keys(plan: &Plan, needs: ProgramNeeds, columns: &Columns) -> Vec<BlockKey> {
    let mut keys: Vec<BlockKey> = Vec::new();
    keys.extend(columns.keys(DST, &plan.shard));
    if needs.edge_values {
        keys.extend(columns.keys(VALUES, &plan.shard));
    }
    if needs.out_edges {
        for w in &plan.windows {
            keys.extend(columns.keys(SRC, w));
            if needs.edge_values {
                keys.extend(columns.keys(VALUES, w));
            }
            if needs.out_targets {
                keys.extend(columns.keys(DST, w));
            }
        }
    } else {
        // The memory shard's own window: the arcs inside the interval, for its conflicts.
        keys.extend(columns.keys(SRC, &plan.windows[plan.p as usize]));
    }
    if needs.in_sources {
        keys.extend(columns.keys(SRC, &plan.shard));
    }
    keys.sort_unstable();
    keys.dedup();
    keys
}

/// The windows (as `(shard, interval)`) a compressed layout's interval `plan.p` decodes: its
/// memory shard's, and when the program reads out-edges its window in every other shard.
fn decoded_windows(plan: &Plan, needs: ProgramNeeds, n: u32) -> Vec<(u32, u32)> {
    let mut windows: Vec<(u32, u32)> = (0..n).map(|p| (plan.p, p)).collect();
    if needs.out_edges {
        windows.extend((0..n).filter(|&q| q != plan.p).map(|q| (q, plan.p)));
    }
    windows
}

/// The distinct keys of the blocks a compressed layout's interval reads, ascending: the packed
/// blocks of `windows`, and the value blocks the program reads.
fn packed_block_keys(
    l: &ShardLayout,
    plan: &Plan,
    windows: &[(u32, u32)],
    needs: ProgramNeeds,
    columns: &Columns,
) -> Vec<BlockKey> {
    let mut keys: Vec<BlockKey> = Vec::new();
    for &(q, p) in windows {
        keys.extend(columns.packed_keys(&l.window_bytes(q, p)));
    }
    if needs.edge_values {
        keys.extend(columns.keys(VALUES, &plan.shard));
        if needs.out_edges {
            for w in &plan.windows {
                keys.extend(columns.keys(VALUES, w));
            }
        }
    }
    keys.sort_unstable();
    keys.dedup();
    keys
}

/// What `l` costs a run ([`ShardBudget`], the formula `partition --shards auto` plans with).
fn budget_of(l: &ShardLayout) -> ShardBudget {
    ShardBudget::of_geometry(&l.geometry(), l.block_bytes())
}

/// The layout to run over: the one named, else among the graph's shards layouts the one with
/// the fewest shards whose largest interval fits `memory` (the one that needs least when none
/// fits, so that the open says the least the graph's layouts need). Between a plain and a
/// compressed layout of the same count, the compressed one from [`COMPRESSED_FROM_THREADS`]
/// threads, else the plain one: on 2 cores a program that reads and writes edge values spends
/// more decoding than the smaller reads save (measured in docs/BENCHMARKS.md, "Compressed
/// adjacency").
fn choose_layout(graph: &GraphDir, name: Option<&str>, memory: u64) -> Result<ShardLayout, EngineError> {
    if let Some(name) = name {
        // A layout the manifest does not list is a setting to fix (or, while a writer replaces
        // it, to retry), not a damaged graph.
        if graph.layout(name).is_none() {
            let path = graph.path().display();
            let has: Vec<&str> = graph.layouts().iter().map(|r| r.name()).collect();
            let has = if has.is_empty() {
                "none".to_string()
            } else {
                has.join(", ")
            };
            return Err(EngineError::Setting(format!(
                "{path} has no layout {name} (it has: {has}); create one with `diskgraph partition {path} --shards N`"
            )));
        }
        return Ok(ShardLayout::open(graph, name)?);
    }
    let prefer_compressed = rayon::current_num_threads() >= COMPRESSED_FROM_THREADS;
    let mut records: Vec<(u32, bool, String)> = shard_layouts(graph)
        .into_iter()
        .map(|r| {
            (
                r.num_shards,
                r.compressed.is_some() != prefer_compressed,
                r.name.clone(),
            )
        })
        .collect();
    records.sort();
    if records.is_empty() {
        let path = graph.path().display();
        let make = advice::first_layout(graph, memory).unwrap_or_else(|| {
            format!(
                "`diskgraph partition {path} --shards auto --memory {}`",
                human_bytes(memory)
            )
        });
        return Err(EngineError::Setting(format!(
            "{path} has no shards layout for the shard engine: make one with {make}"
        )));
    }
    let mut least: Option<(u64, ShardLayout)> = None;
    for (_, _, name) in records {
        let l = ShardLayout::open(graph, &name)?;
        let minimum = budget_of(&l).minimum();
        if minimum <= memory {
            return Ok(l);
        }
        if least.as_ref().is_none_or(|(m, _)| minimum < *m) {
            least = Some((minimum, l));
        }
    }
    Ok(least.expect("at least one layout").1)
}

/// One interval's arcs grouped for its updates.
struct Interval<'c> {
    columns: &'c Columns,
    plan_vertices: Range<u32>,
    shard_start: u64,
    windows: Vec<Range<u64>>,
    /// Each vertex's in-edges in `grouped`: `in_start[v - first]..in_start[v - first + 1]`.
    in_start: Vec<u32>,
    /// The memory shard's arcs, grouped by target, each group by ascending source: their
    /// sources when the program reads sources and no edge values (read in order, not looked
    /// up in the shard's blocks), else their positions in the shard.
    grouped: Vec<u32>,
    /// Whether `grouped` holds sources.
    grouped_sources: bool,
    /// Vertices sharing an edge with another vertex of the interval.
    critical: Vec<bool>,
}

impl<'c> Interval<'c> {
    /// Checks the interval's arcs and groups the memory shard by target.
    fn group(
        l: &ShardLayout,
        plan: &Plan,
        needs: ProgramNeeds,
        columns: &'c Columns,
    ) -> Result<Interval<'c>, EngineError> {
        let first = plan.vertices.start;
        let nv = (plan.vertices.end - first) as usize;
        let bad = |file: &str, entry: u64, reason: String| {
            EngineError::Format(FormatError::Index {
                path: l.column_path(file),
                entry,
                reason,
            })
        };
        if plan.shard.end - plan.shard.start > u64::from(u32::MAX) {
            return Err(EngineError::Setting(format!(
                "a shard of {} holds 2^32 arcs or more: partition it into more shards",
                l.name()
            )));
        }
        let mut in_start = vec![0u32; nv + 1];
        for e in plan.shard.clone() {
            let d = columns.target(e);
            if !plan.vertices.contains(&d) {
                return Err(bad(
                    SHARD_DST,
                    e,
                    format!("target {d} is outside the shard's interval {:?}", plan.vertices),
                ));
            }
            in_start[(d - first) as usize + 1] += 1;
        }
        for i in 0..nv {
            in_start[i + 1] += in_start[i];
        }
        let mut fill = in_start.clone();
        let grouped_sources = needs.in_sources && !needs.edge_values;
        let mut grouped = vec![0u32; (plan.shard.end - plan.shard.start) as usize];
        for e in plan.shard.clone() {
            let slot = &mut fill[(columns.target(e) - first) as usize];
            grouped[*slot as usize] = match grouped_sources {
                true => columns.source(e),
                false => (e - plan.shard.start) as u32,
            };
            *slot += 1;
        }
        // Sources of every window in the interval (of the memory shard's own alone when the
        // program reads no out-edges), in order; targets where the program reads them; sources
        // of the whole memory shard where it reads them.
        let mut critical = vec![false; nv];
        for (q, w) in plan.windows.iter().enumerate() {
            if !needs.out_edges && q as u32 != plan.p {
                continue;
            }
            let mut last = first;
            for e in w.clone() {
                let s = columns.source(e);
                if !plan.vertices.contains(&s) || s < last {
                    return Err(bad(
                        SHARD_SRC,
                        e,
                        format!(
                            "source {s} is outside interval {:?} or out of order in its window",
                            plan.vertices
                        ),
                    ));
                }
                last = s;
                if needs.out_targets || q as u32 == plan.p {
                    let d = columns.target(e);
                    if !l.interval(q as u32).contains(&d) {
                        return Err(bad(SHARD_DST, e, format!("target {d} is outside shard {q}'s interval")));
                    }
                    if plan.vertices.contains(&d) && d != s {
                        critical[(s - first) as usize] = true;
                        critical[(d - first) as usize] = true;
                    }
                }
            }
        }
        if needs.in_sources {
            for q in 0..l.num_shards() {
                let w = l.window(plan.p, q);
                let range = l.interval(q);
                let mut last = range.start;
                for e in w.clone() {
                    let s = columns.source(e);
                    if !range.contains(&s) || s < last {
                        return Err(bad(
                            SHARD_SRC,
                            e,
                            format!("source {s} is outside interval {range:?} or out of order in its window"),
                        ));
                    }
                    last = s;
                }
            }
        }
        Ok(Interval {
            columns,
            plan_vertices: plan.vertices.clone(),
            shard_start: plan.shard.start,
            windows: match needs.out_edges {
                true => plan.windows.clone(),
                false => Vec::new(),
            },
            in_start,
            grouped,
            grouped_sources,
            critical,
        })
    }

    /// Runs the updates of the interval (`values` its vertices' values), polling `cancel` (the
    /// run's stop request) per chunk of vertices; returns the edges the updates were given.
    fn execute<P: Program>(
        &self,
        program: &P,
        iteration: u32,
        values: &mut [P::Value],
        deterministic: bool,
        cancel: &Cancel,
    ) -> u64 {
        let edges = AtomicU64::new(0);
        let run_chunk = |c: usize, chunk: &mut [P::Value], critical: bool| {
            // A chunk's updates at most between two polls; a stopped run's interval is left
            // part-updated (the caller checks the request).
            if cancel.is_cancelled() {
                return;
            }
            let n = self.chunk_updates(program, iteration, c, chunk, |v| {
                deterministic || self.critical[v] == critical
            });
            edges.fetch_add(n, Relaxed);
        };
        if !deterministic {
            values
                .par_chunks_mut(CHUNK)
                .enumerate()
                .for_each(|(c, chunk)| run_chunk(c, chunk, false));
        }
        if deterministic || self.critical.iter().any(|&c| c) {
            for (c, chunk) in values.chunks_mut(CHUNK).enumerate() {
                run_chunk(c, chunk, true);
            }
        }
        edges.into_inner()
    }

    /// Runs the updates of chunk `c` (values `chunk`) whose local index `take` accepts, in
    /// ID order; returns the edges given to them.
    fn chunk_updates<P: Program>(
        &self,
        program: &P,
        iteration: u32,
        c: usize,
        chunk: &mut [P::Value],
        take: impl Fn(usize) -> bool,
    ) -> u64 {
        let first_local = c * CHUNK;
        let first = self.plan_vertices.start + first_local as u32;
        // A cursor per window at the chunk's first vertex.
        let mut cursors: Vec<Range<u64>> = self
            .windows
            .iter()
            .map(|w| {
                let (mut lo, mut hi) = (w.start, w.end);
                while lo < hi {
                    let mid = lo + (hi - lo) / 2;
                    match self.columns.source(mid) < first {
                        true => lo = mid + 1,
                        false => hi = mid,
                    }
                }
                lo..w.end
            })
            .collect();
        let mut runs: Vec<Range<u64>> = Vec::with_capacity(cursors.len());
        let mut edges = 0u64;
        for (i, value) in chunk.iter_mut().enumerate() {
            let local = first_local + i;
            let v = first + i as u32;
            runs.clear();
            let mut out_len = 0usize;
            for cur in &mut cursors {
                let start = cur.start;
                while cur.start < cur.end && self.columns.source(cur.start) == v {
                    cur.start += 1;
                }
                if cur.start > start {
                    runs.push(start..cur.start);
                    out_len += (cur.start - start) as usize;
                }
            }
            if !take(local) {
                continue;
            }
            let grouped = &self.grouped[self.in_start[local] as usize..self.in_start[local + 1] as usize];
            edges += (grouped.len() + out_len) as u64;
            program.update(Update {
                vertex: v,
                iteration,
                value,
                in_edges: InEdges {
                    columns: self.columns,
                    base: self.shard_start,
                    grouped,
                    sources: self.grouped_sources,
                },
                out_edges: OutEdges {
                    columns: self.columns,
                    runs: &runs,
                    len: out_len,
                },
            });
        }
        edges
    }
}

impl Engine for ShardGraph {
    fn core(&self) -> &EngineCore {
        &self.core
    }

    fn max_degree_vertex(&self) -> Result<u32, EngineError> {
        self.max_degree
            .get_or_init(|| {
                self.offsets(Direction::Out)
                    .map(|o| self.core.vertices.max_degree(&o))
                    .map_err(|e| e.to_string())
            })
            .clone()
            .map_err(EngineError::Setting)
    }

    fn for_each_degree(&self, d: Direction, mut f: impl FnMut(u32, u64)) -> Result<(), EngineError> {
        let offsets = self.offsets(d)?;
        for (v, w) in offsets.windows(2).enumerate() {
            f(v as u32, w[1] - w[0]);
        }
        Ok(())
    }

    fn edges_counted(&self) -> Option<u64> {
        Some(self.edges.load(Relaxed))
    }

    /// Bytes read (counted per block read), edges processed, the block cache's hit ratio.
    fn snapshot(&self) -> Snapshot {
        let c = self.cache.stats();
        let mut cache_hit_ratio = std::collections::BTreeMap::new();
        if c.hits + c.misses > 0 {
            cache_hit_ratio.insert("blocks".into(), c.hits as f64 / (c.hits + c.misses) as f64);
        }
        Snapshot {
            bytes_read: self.files.bytes_read(),
            edges: self.edges_counted(),
            cache_hit_ratio,
            bytes_live: true,
        }
    }

    /// The block cache's and the files' counters.
    fn record(&self, stats: &mut RunStats) {
        let c = self.cache.stats();
        stats.bytes_read = self.files.bytes_read();
        stats.bytes_written = self.files.bytes_written();
        stats.io_requests = c.misses + c.write_backs;
        stats.io_wait_seconds = self.io_nanos.load(Relaxed) as f64 * 1e-9;
        stats.peak_engine_memory = c.peak_bytes + self.peak_arrays;
        if c.hits + c.misses > 0 {
            stats
                .cache_hit_ratio
                .insert("blocks".into(), c.hits as f64 / (c.hits + c.misses) as f64);
        }
        for (k, v) in [
            ("layout", json!(self.layout.name())),
            ("shards", json!(self.layout.num_shards())),
            ("block_bytes", json!(self.layout.block_bytes())),
            ("gsc", json!(self.gsc)),
            ("deterministic", json!(self.deterministic)),
            ("direct_io", json!(self.files.direct())),
            ("block_hits", json!(c.hits)),
            ("block_misses", json!(c.misses)),
            ("block_write_backs", json!(c.write_backs)),
            ("blocks_dropped_clean", json!(c.dropped_clean)),
            ("layout_compressed", json!(self.layout.compressed())),
            ("decode_seconds", json!(self.decode_nanos.load(Relaxed) as f64 * 1e-9)),
        ] {
            stats.settings.insert(k.into(), v);
        }
    }
}
