//! Grid layouts from a graph's CSR: `diskgraph partition` (GridGraph's P×P grid, CLIP's
//! `Sort()`), streamed under a memory budget and published atomically inside the graph.
//!
//! **Built-in orders** ([`partition`]) take two sequential passes over one CSR direction:
//!
//! 1. *Count*: the arcs of every block (`grid`, `destination`), or only the offsets of each row
//!    stripe (`source`, where a stripe is one block), give `blocks.idx`.
//! 2. *Write*: the CSR is read again stripe by stripe. A CSR stripe of consecutive sources lists
//!    its arcs by (src, dst), which is already the order promised inside each block, so every
//!    arc is appended to its block's small buffer, and a full buffer is written at the block's
//!    next offset. Only the blocks of one stripe are open at once. `--sort destination` streams
//!    the transpose (`in.*`; `out.*` itself for undirected graphs, which are symmetric) in
//!    column stripes, which lists each block's arcs by (dst, src).
//!
//! **Algorithm keys** ([`partition_with_key`]) go through the external sorter
//! ([`crate::sort::ExternalSorter`]) as (block, key, src, dst, weight) records, so blocks of any
//! size work under the budget; the sorted stream is written front to back.
//!
//! **Memory.** With budget `M` and `P` ranges the peak is about `8·(P²+1)` bytes of block index,
//! plus three CSR read buffers of `R = clamp(M/16, 64 KiB, 4 MiB)`, plus the stripe's block
//! buffers, each `clamp((M − index − 3R) / (P·12), 512, 131072)` edges of 8 (+4 weight) bytes. Budgets
//! below that floor (≈ `8·P² + P·6 KiB + 192 KiB`) are raised to it, as the importer raises
//! tiny budgets; [`PartitionSummary::peak_memory`] reports the figure used. The key path spends
//! what the index, the read buffers and one batch of 65536 keyed arcs (2.75 MiB) leave on the
//! sorter (at least 1 MiB); its merge reads each run through a buffer of at least 64 KiB.
//!
//! **Default P** ([`default_grid`]): the smallest power of two such that one range's vertex
//! state at 8 bytes per vertex, `ceil(V/P)·8`, is at most `M/16`, capped at
//! [`MAX_DEFAULT_GRID`].

use diskgraph_io::spelling::setting;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use diskgraph_format::{
    layout_name, ArcStream, Codec, Direction, FileEntry, GraphDir, GridEdge, GridMeta, GridShape, GridSort,
    LayoutBuilder, LayoutMeta, PositionedFile, RunAxis, EDGE_BYTES, GRID_BYTE_INDEX, GRID_EDGES, GRID_INDEX,
    GRID_PACKED, GRID_WEIGHTS, MAX_GRID,
};
use rayon::prelude::*;

use crate::packed::BlockPacker;
use crate::progress::{stop_point, Ticker};
use crate::sort::ExternalSorter;
use crate::Progress;

/// Largest P chosen by [`default_grid`].
pub const MAX_DEFAULT_GRID: u32 = 256;

/// The built-in orders of `diskgraph partition --sort`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SortOrder {
    /// P×P blocks, (src, dst) inside each: CLIP's grid order. Layout `grid-P`.
    Grid,
    /// P×1 row stripes, (src, dst): the whole file source-sorted. Layout `grid-P-source`.
    Source,
    /// P×P blocks, (dst, src) inside each. Layout `grid-P-destination`.
    Destination,
}

impl SortOrder {
    /// The format's description of this order.
    pub fn grid_sort(self) -> GridSort {
        match self {
            SortOrder::Grid => GridSort::Grid,
            SortOrder::Source => GridSort::Source,
            SortOrder::Destination => GridSort::Destination,
        }
    }
}

impl std::str::FromStr for SortOrder {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "grid" => Ok(SortOrder::Grid),
            "source" => Ok(SortOrder::Source),
            "destination" => Ok(SortOrder::Destination),
            _ => Err(format!("unknown sort {s:?} (grid, source or destination)")),
        }
    }
}

/// How to partition.
#[derive(Clone, Debug)]
pub struct PartitionOptions {
    /// Number of vertex ranges P; `None` chooses it with [`default_grid`].
    pub grid: Option<u32>,
    /// Memory budget in bytes.
    pub memory: u64,
    /// Replace an existing layout of the same name.
    pub force: bool,
    /// Compress the blocks with this codec (`--compress`): layout `grid-P…-CODEC` (built-in
    /// orders only).
    pub compress: Option<Codec>,
}

impl Default for PartitionOptions {
    fn default() -> Self {
        PartitionOptions {
            grid: None,
            memory: diskgraph_io::DEFAULT_MEMORY,
            force: false,
            compress: None,
        }
    }
}

/// What a partition run wrote.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct PartitionSummary {
    /// The published layout directory.
    pub path: PathBuf,
    /// Its name (`grid-P`, `grid-P-source`, …).
    pub name: String,
    /// Row (source) ranges P.
    pub rows: u32,
    /// Column (destination) ranges.
    pub cols: u32,
    /// Vertices per row range.
    pub row_len: u64,
    /// Order inside blocks (`grid`, `source`, `destination`, `key:NAME`).
    pub sort: String,
    /// Whether P was chosen from the budget (no `--grid`).
    pub grid_from_budget: bool,
    /// Edges in the layout.
    pub num_arcs: u64,
    /// Bytes of the layout's files on disk (padded).
    pub bytes_written: u64,
    /// Bytes of scratch sort runs written (key orders only).
    pub scratch_bytes: u64,
    /// The memory figure the run was planned for (the budget, or the floor above it).
    pub peak_memory: u64,
    /// Wall time in seconds.
    pub seconds: f64,
}

/// P for a graph of `num_vertices` under `memory` bytes: the smallest power of two with
/// `ceil(V/P) · 8 ≤ memory / 16`, at most [`MAX_DEFAULT_GRID`].
pub fn default_grid(num_vertices: u64, memory: u64) -> u32 {
    let target = (memory / 16).max(8);
    let mut p = 1u32;
    while p < MAX_DEFAULT_GRID && num_vertices.div_ceil(u64::from(p)).saturating_mul(8) > target {
        p *= 2;
    }
    p
}

/// Publishes the `sort` layout of the graph at `graph` (see the module documentation).
pub fn partition(
    graph: &Path,
    sort: SortOrder,
    opts: &PartitionOptions,
    progress: &mut dyn Progress,
) -> Result<PartitionSummary> {
    let start = Instant::now();
    let g = GraphDir::open(graph)?;
    let rows = choose_grid(&g, opts)?;
    let sort = sort.grid_sort();
    let shape = GridShape::new(g.num_vertices(), rows, sort.cols_for(rows));
    let plan = Plan::new(shape, sort == GridSort::Destination);
    let memory = Memory::plan(opts.memory, &plan, g.manifest().weighted);
    let builder = LayoutBuilder::create(&g, &layout_name(&sort, rows, opts.compress), opts.force)?;
    let index = count_blocks(&g, &plan, &memory, progress)?;
    let mut out = Outputs::create(&builder, g.manifest().num_arcs, g.manifest().weighted)?;
    write_stripes(&g, &plan, &index, &memory, &mut out, progress)?;
    let mut files = out.finish(&builder, &index)?;
    if let Some(codec) = opts.compress {
        // The plain blocks were scratch: packed, then dropped from the layout.
        files.remove(GRID_EDGES);
        let plain = builder.dir().join(GRID_EDGES);
        files.extend(pack_blocks(
            &builder,
            &plain,
            &plan.shape,
            &sort,
            &index,
            codec,
            &memory,
            progress,
        )?);
        std::fs::remove_file(&plain).with_context(|| format!("cannot remove {}", plain.display()))?;
    }
    let summary = Summary {
        grid_from_budget: opts.grid.is_none(),
        scratch_bytes: 0,
        peak_memory: memory.total,
        start,
    };
    publish(&g, builder, sort, rows, opts.compress, files, summary, progress)
}

/// Publishes the layout `grid-P-NAME` of the graph at `graph`: P×P blocks, each block's edges
/// ordered by `key(src, dst, weight)` (compared with `f64::total_cmp`; weight 1.0 on unweighted
/// graphs), ties by (src, dst). This is CLIP's `Sort(F_s)`; it runs through the external sorter,
/// so blocks larger than the budget work.
pub fn partition_with_key<K>(
    graph: &Path,
    name: &str,
    key: K,
    opts: &PartitionOptions,
    progress: &mut dyn Progress,
) -> Result<PartitionSummary>
where
    K: Fn(u32, u32, f32) -> f64 + Sync,
{
    let start = Instant::now();
    diskgraph_format::check_key_name(name).map_err(anyhow::Error::msg)?;
    if let Some(codec) = opts.compress {
        bail!(
            "{}: layouts sorted by an algorithm's key are not compressed (their blocks are not sorted by vertex)",
            setting("compress", codec)
        );
    }
    let g = GraphDir::open(graph)?;
    let rows = choose_grid(&g, opts)?;
    let sort = GridSort::Key(name.to_string());
    let shape = GridShape::new(g.num_vertices(), rows, rows);
    let plan = Plan::new(shape, false);
    let memory = Memory::plan(opts.memory, &plan, g.manifest().weighted);
    let builder = LayoutBuilder::create(&g, &sort.layout_name(rows), opts.force)?;
    let (files, scratch_bytes) = write_keyed(&g, &builder, &plan, &memory, &key, progress)?;
    let summary = Summary {
        grid_from_budget: opts.grid.is_none(),
        scratch_bytes,
        peak_memory: memory.key_total,
        start,
    };
    publish(&g, builder, sort, rows, None, files, summary, progress)
}

/// `--grid`, checked, or the default from the budget.
fn choose_grid(g: &GraphDir, opts: &PartitionOptions) -> Result<u32> {
    match opts.grid {
        Some(p) if (1..=MAX_GRID).contains(&p) => Ok(p),
        Some(p) => bail!("{}: the number of ranges must be 1 to {MAX_GRID}", setting("grid", p)),
        None => Ok(default_grid(g.num_vertices(), opts.memory)),
    }
}

/// Figures of a run that [`publish`] turns into its summary.
struct Summary {
    grid_from_budget: bool,
    scratch_bytes: u64,
    peak_memory: u64,
    start: Instant,
}

/// Writes the metadata and publishes the layout.
#[allow(clippy::too_many_arguments)]
fn publish(
    g: &GraphDir,
    builder: LayoutBuilder,
    sort: GridSort,
    rows: u32,
    compressed: Option<Codec>,
    files: BTreeMap<String, FileEntry>,
    s: Summary,
    progress: &mut dyn Progress,
) -> Result<PartitionSummary> {
    let meta = GridMeta::new(g.manifest(), sort, rows, compressed, files);
    let name = builder.name().to_string();
    stop_point(progress)?;
    let path = builder
        .publish(&meta)
        .with_context(|| format!("cannot publish layout {name} in {}", g.path().display()))?;
    progress.finish();
    Ok(PartitionSummary {
        path,
        name,
        rows: meta.rows,
        cols: meta.cols,
        row_len: meta.row_len,
        sort: meta.sort.to_string(),
        grid_from_budget: s.grid_from_budget,
        num_arcs: meta.num_arcs,
        bytes_written: meta.bytes_on_disk(),
        scratch_bytes: s.scratch_bytes,
        peak_memory: s.peak_memory,
        seconds: s.start.elapsed().as_secs_f64(),
    })
}

/// Which CSR direction is streamed and how its (major, minor) vertices map onto blocks: the
/// major vertex is the one whose adjacency list is read (the source, or the destination when
/// `transpose`), stripes are ranges of major vertices.
struct Plan {
    shape: GridShape,
    transpose: bool,
}

impl Plan {
    fn new(shape: GridShape, transpose: bool) -> Plan {
        Plan { shape, transpose }
    }

    fn direction(&self) -> Direction {
        if self.transpose {
            Direction::In
        } else {
            Direction::Out
        }
    }

    /// Stripe of a major vertex.
    fn stripe(&self, u: u32) -> u32 {
        if self.transpose {
            self.shape.col_of(u)
        } else {
            self.shape.row_of(u)
        }
    }

    /// Position of a minor vertex inside a stripe.
    fn minor(&self, v: u32) -> u32 {
        if self.transpose {
            self.shape.row_of(v)
        } else {
            self.shape.col_of(v)
        }
    }

    /// Number of blocks in a stripe.
    fn stripe_blocks(&self) -> u32 {
        if self.transpose {
            self.shape.rows()
        } else {
            self.shape.cols()
        }
    }

    /// Block number of position `m` in stripe `k`.
    fn block(&self, k: u32, m: u32) -> usize {
        if self.transpose {
            self.shape.block(m, k)
        } else {
            self.shape.block(k, m)
        }
    }

    /// The stored edge for major `u`, minor `v`.
    fn edge(&self, u: u32, v: u32) -> GridEdge {
        if self.transpose {
            GridEdge { src: v, dst: u }
        } else {
            GridEdge { src: u, dst: v }
        }
    }
}

/// How the budget is spent.
struct Memory {
    /// Bytes of each CSR read buffer.
    read: usize,
    /// Edges per block buffer.
    block_edges: usize,
    /// Bytes of the key path's sorter.
    sorter: usize,
    /// The planned peak of the built-in orders: the budget, or the floor above it.
    total: u64,
    /// The planned peak of the key path.
    key_total: u64,
}

const MIN_READ: u64 = 64 << 10;
const MAX_READ: u64 = 4 << 20;
const MIN_BLOCK_EDGES: u64 = 512;
const MAX_BLOCK_EDGES: u64 = 1 << 17;
const MIN_SORTER: u64 = 1 << 20;

impl Memory {
    fn plan(memory: u64, plan: &Plan, weighted: bool) -> Memory {
        let index = 8 * (plan.shape.num_blocks() as u64 + 1);
        let read = (memory / 16).clamp(MIN_READ, MAX_READ);
        let per_edge = if weighted { 12 } else { 8 };
        let writers = u64::from(plan.stripe_blocks()) * per_edge;
        let rest = memory.saturating_sub(index + 3 * read);
        let block_edges = (rest / writers).clamp(MIN_BLOCK_EDGES, MAX_BLOCK_EDGES);
        let floor = index + 3 * read + writers * block_edges;
        let batch = (KEY_BATCH * (12 + std::mem::size_of::<KeyedArc>())) as u64;
        let sorter = rest.saturating_sub(batch).max(MIN_SORTER);
        Memory {
            read: read as usize,
            block_edges: block_edges as usize,
            sorter: sorter as usize,
            total: memory.max(floor),
            key_total: memory.max(index + 3 * read + batch + sorter),
        }
    }
}

/// Pass 1: `blocks.idx` from the per-block arc counts.
fn count_blocks(g: &GraphDir, plan: &Plan, mem: &Memory, progress: &mut dyn Progress) -> Result<Vec<u64>> {
    let mut counts = vec![0u64; plan.shape.num_blocks() + 1];
    let mut s = ArcStream::open(g, plan.direction(), false, mem.read)?;
    progress.phase("counting blocks", Some(g.manifest().num_arcs));
    let mut ticker = Ticker::new();
    while let Some((u, degree)) = s.next_vertex()? {
        let k = plan.stripe(u);
        match plan.stripe_blocks() {
            1 => counts[plan.block(k, 0) + 1] += degree,
            _ => {
                while let Some((v, _)) = s.next_arc()? {
                    counts[plan.block(k, plan.minor(v)) + 1] += 1;
                }
            }
        }
        ticker.tick(progress, s.position())?;
    }
    for b in 1..counts.len() {
        counts[b] += counts[b - 1];
    }
    Ok(counts)
}

/// The layout's edge and weight files while they are written at block offsets.
struct Outputs {
    edges: PositionedFile,
    weights: Option<PositionedFile>,
}

impl Outputs {
    fn create(builder: &LayoutBuilder, arcs: u64, weighted: bool) -> Result<Outputs> {
        Ok(Outputs {
            edges: builder.positioned(GRID_EDGES, arcs * EDGE_BYTES)?,
            weights: match weighted {
                true => Some(builder.positioned(GRID_WEIGHTS, arcs * 4)?),
                false => None,
            },
        })
    }

    /// Finishes the data files and writes `blocks.idx`.
    fn finish(self, builder: &LayoutBuilder, index: &[u64]) -> Result<BTreeMap<String, FileEntry>> {
        let mut files = BTreeMap::new();
        files.extend([self.edges.finish()?]);
        if let Some(w) = self.weights {
            files.extend([w.finish()?]);
        }
        let bytes: &[u8] = bytemuck::cast_slice(index);
        let mut idx = builder.positioned(GRID_INDEX, bytes.len() as u64)?;
        idx.write_at(0, bytes)?;
        files.extend([idx.finish()?]);
        Ok(files)
    }
}

/// Buffered edges of one block of the current stripe.
#[derive(Default)]
struct BlockBuffer {
    /// Edge number the buffer will be written at.
    at: u64,
    /// End of the block.
    end: u64,
    edges: Vec<GridEdge>,
    weights: Vec<f32>,
}

impl BlockBuffer {
    fn flush(&mut self, out: &mut Outputs) -> Result<()> {
        out.edges
            .write_at(self.at * EDGE_BYTES, bytemuck::cast_slice(&self.edges))?;
        if let Some(w) = &mut out.weights {
            w.write_at(self.at * 4, bytemuck::cast_slice(&self.weights))?;
        }
        self.at += self.edges.len() as u64;
        self.edges.clear();
        self.weights.clear();
        Ok(())
    }
}

/// The blocks of the stripe being written.
struct Stripe {
    blocks: Vec<BlockBuffer>,
    cap: usize,
}

impl Stripe {
    /// Positions the buffers at the blocks of stripe `k`.
    fn start(&mut self, plan: &Plan, index: &[u64], k: u32) {
        for (m, buf) in self.blocks.iter_mut().enumerate() {
            let b = plan.block(k, m as u32);
            (buf.at, buf.end) = (index[b], index[b + 1]);
        }
    }

    #[inline]
    fn push(&mut self, m: u32, e: GridEdge, w: f32, out: &mut Outputs) -> Result<()> {
        let buf = &mut self.blocks[m as usize];
        if buf.at + buf.edges.len() as u64 >= buf.end {
            bail!(
                "{}: the graph changed while it was partitioned (a block overflowed)",
                out.edges.path().display()
            );
        }
        if buf.edges.capacity() == 0 {
            buf.edges.reserve_exact(self.cap);
            buf.weights
                .reserve_exact(if out.weights.is_some() { self.cap } else { 0 });
        }
        buf.edges.push(e);
        if out.weights.is_some() {
            buf.weights.push(w);
        }
        if buf.edges.len() == self.cap {
            buf.flush(out)?;
        }
        Ok(())
    }

    /// Writes what is buffered and checks every block of the stripe is complete.
    fn finish(&mut self, out: &mut Outputs) -> Result<()> {
        for buf in &mut self.blocks {
            buf.flush(out)?;
            if buf.at != buf.end {
                bail!(
                    "{}: the graph changed while it was partitioned (a block came out short)",
                    out.edges.path().display()
                );
            }
        }
        Ok(())
    }
}

/// Pass 2: every stripe's arcs into their blocks.
fn write_stripes(
    g: &GraphDir,
    plan: &Plan,
    index: &[u64],
    mem: &Memory,
    out: &mut Outputs,
    progress: &mut dyn Progress,
) -> Result<()> {
    let mut stripe = Stripe {
        blocks: (0..plan.stripe_blocks()).map(|_| BlockBuffer::default()).collect(),
        cap: mem.block_edges,
    };
    let mut s = ArcStream::open(g, plan.direction(), true, mem.read)?;
    let mut current: Option<u32> = None;
    progress.phase("writing blocks", Some(g.manifest().num_arcs));
    let mut ticker = Ticker::new();
    while let Some((u, _)) = s.next_vertex()? {
        let k = plan.stripe(u);
        if current != Some(k) {
            if current.is_some() {
                stripe.finish(out)?;
                // A stripe writes each of its P blocks: with many blocks that, more than its
                // arcs, is the work between two ticks.
                stop_point(progress)?;
            }
            stripe.start(plan, index, k);
            current = Some(k);
        }
        while let Some((v, w)) = s.next_arc()? {
            stripe.push(plan.minor(v), plan.edge(u, v), w, out)?;
        }
        ticker.tick(progress, s.position())?;
    }
    if current.is_some() {
        stripe.finish(out)?;
    }
    Ok(())
}

/// Pass 3 of `--compress`: reads the plain `edges` file written by pass 2 front to back and
/// writes every block's runs to `edges.packed` ([`BlockEncoder`]) and their byte offsets to
/// `bytes.idx`; returns both files' entries.
#[allow(clippy::too_many_arguments)]
fn pack_blocks(
    builder: &LayoutBuilder,
    plain: &Path,
    shape: &GridShape,
    sort: &GridSort,
    index: &[u64],
    codec: Codec,
    mem: &Memory,
    progress: &mut dyn Progress,
) -> Result<Vec<(String, FileEntry)>> {
    let axis = RunAxis::of(sort).expect("built-in orders have a run axis");
    let file = std::fs::File::open(plain).with_context(|| format!("cannot open {}", plain.display()))?;
    let mut reader = std::io::BufReader::with_capacity(mem.read, file);
    let mut packer = BlockPacker::create(builder, GRID_PACKED, codec)?;
    let mut chunk: Vec<GridEdge> = vec![GridEdge::default(); (mem.read / EDGE_BYTES as usize).max(1)];
    progress.phase("compressing blocks", Some(*index.last().unwrap_or(&0)));
    let mut ticker = Ticker::new();
    for b in 0..shape.num_blocks() {
        if b % shape.cols() as usize == 0 {
            // Per row of blocks: each block costs more than its arcs.
            stop_point(progress)?;
        }
        packer.start(diskgraph_format::BlockFrame {
            axis,
            sources: shape.source_range(b),
            destinations: shape.destination_range(b),
        });
        let mut left = index[b + 1] - index[b];
        while left > 0 {
            let n = left.min(chunk.len() as u64) as usize;
            std::io::Read::read_exact(&mut reader, bytemuck::cast_slice_mut(&mut chunk[..n]))
                .with_context(|| format!("cannot read {}", plain.display()))?;
            for &e in &chunk[..n] {
                packer.push(e)?;
            }
            left -= n as u64;
            ticker.tick(progress, index[b + 1] - left)?;
        }
        packer.end()?;
    }
    packer.finish(builder, GRID_BYTE_INDEX)
}

/// A keyed arc as the external sorter orders it: block, then key, then (src, dst), then weight.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, bytemuck::Pod, bytemuck::Zeroable)]
struct KeyedArc {
    block: u64,
    key: u64,
    src: u32,
    dst: u32,
    weight: u32,
    pad: u32,
}

/// `f64` to `u64` preserving `f64::total_cmp` order.
fn key_bits(k: f64) -> u64 {
    let b = k.to_bits();
    if b >> 63 == 1 {
        !b
    } else {
        b | 1 << 63
    }
}

/// Arcs keyed per batch (in parallel).
const KEY_BATCH: usize = 1 << 16;

/// Key path: sort (block, key, src, dst) externally, then write the sorted stream.
fn write_keyed<K>(
    g: &GraphDir,
    builder: &LayoutBuilder,
    plan: &Plan,
    mem: &Memory,
    key: &K,
    progress: &mut dyn Progress,
) -> Result<(BTreeMap<String, FileEntry>, u64)>
where
    K: Fn(u32, u32, f32) -> f64 + Sync,
{
    let scratch = builder.dir().join("scratch");
    // Named by the layout being made: the scratch directory's name is a temporary one.
    let scratch_err = || {
        format!(
            "the sort's scratch files for layout {} of {}",
            builder.name(),
            g.path().display()
        )
    };
    std::fs::create_dir(&scratch).with_context(scratch_err)?;
    let mut sorter = ExternalSorter::<KeyedArc>::new(&scratch, "keys", mem.sorter, None);
    let mut counts = vec![0u64; plan.shape.num_blocks() + 1];
    let mut batch: Vec<(u32, u32, f32)> = Vec::with_capacity(KEY_BATCH);
    let mut keyed: Vec<KeyedArc> = Vec::with_capacity(KEY_BATCH);
    let mut s = ArcStream::open(g, Direction::Out, true, mem.read)?;
    progress.phase("sorting by key", Some(g.manifest().num_arcs));
    loop {
        let more = fill_batch(&mut s, &mut batch)?;
        key_batch(&batch, &plan.shape, key, &mut keyed);
        for r in &keyed {
            counts[r.block as usize + 1] += 1;
            sorter.push(*r).with_context(scratch_err)?;
        }
        crate::progress::advance(progress, s.position())?;
        if !more {
            break;
        }
    }
    for b in 1..counts.len() {
        counts[b] += counts[b - 1];
    }
    let mut sorted = sorter.finish().with_context(scratch_err)?;
    let mut out = SequentialOutputs::create(builder, g.manifest().num_arcs, g.manifest().weighted)?;
    progress.phase("writing blocks", Some(g.manifest().num_arcs));
    let (mut ticker, mut written) = (Ticker::new(), 0u64);
    while let Some(r) = sorted.next().with_context(scratch_err)? {
        out.push(GridEdge { src: r.src, dst: r.dst }, f32::from_bits(r.weight))?;
        written += 1;
        ticker.tick(progress, written)?;
    }
    let scratch_bytes = sorted.bytes_written();
    drop(sorted);
    std::fs::remove_dir_all(&scratch).with_context(scratch_err)?;
    Ok((out.outputs()?.finish(builder, &counts)?, scratch_bytes))
}

/// Reads up to [`KEY_BATCH`] arcs as (src, dst, weight); false once the stream is exhausted.
fn fill_batch(s: &mut ArcStream, batch: &mut Vec<(u32, u32, f32)>) -> Result<bool> {
    batch.clear();
    loop {
        while let Some((d, w)) = s.next_arc()? {
            batch.push((current_vertex(s), d, w));
            if batch.len() == KEY_BATCH {
                return Ok(true);
            }
        }
        if s.next_vertex()?.is_none() {
            return Ok(false);
        }
    }
}

/// The vertex whose list an [`ArcStream`] is in.
fn current_vertex(s: &ArcStream) -> u32 {
    s.current_vertex().expect("next_arc only yields after next_vertex")
}

/// Keys a batch in parallel.
fn key_batch<K>(batch: &[(u32, u32, f32)], shape: &GridShape, key: &K, out: &mut Vec<KeyedArc>)
where
    K: Fn(u32, u32, f32) -> f64 + Sync,
{
    out.clear();
    out.par_extend(batch.par_iter().map(|&(src, dst, w)| KeyedArc {
        block: shape.block_of(src, dst) as u64,
        key: key_bits(key(src, dst, w)),
        src,
        dst,
        weight: w.to_bits(),
        pad: 0,
    }));
}

/// Edge and weight files written front to back through buffers of [`KEY_BATCH`] records.
struct SequentialOutputs {
    out: Outputs,
    edges: Vec<GridEdge>,
    weights: Vec<f32>,
    at: u64,
}

impl SequentialOutputs {
    fn create(builder: &LayoutBuilder, arcs: u64, weighted: bool) -> Result<SequentialOutputs> {
        Ok(SequentialOutputs {
            out: Outputs::create(builder, arcs, weighted)?,
            edges: Vec::with_capacity(KEY_BATCH),
            weights: Vec::with_capacity(if weighted { KEY_BATCH } else { 0 }),
            at: 0,
        })
    }

    fn push(&mut self, e: GridEdge, w: f32) -> Result<()> {
        self.edges.push(e);
        if self.out.weights.is_some() {
            self.weights.push(w);
        }
        if self.edges.len() == KEY_BATCH {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        let mut buf = BlockBuffer {
            at: self.at,
            end: u64::MAX,
            edges: std::mem::take(&mut self.edges),
            weights: std::mem::take(&mut self.weights),
        };
        buf.flush(&mut self.out)?;
        self.at = buf.at;
        (self.edges, self.weights) = (buf.edges, buf.weights);
        Ok(())
    }

    fn outputs(mut self) -> Result<Outputs> {
        self.flush()?;
        Ok(self.out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_grid_follows_the_rule() {
        assert_eq!(default_grid(0, 1 << 30), 1);
        assert_eq!(default_grid(8 << 20, 1 << 30), 1);
        assert_eq!(default_grid((8 << 20) + 1, 1 << 30), 2);
        assert_eq!(default_grid(16 << 20, 1 << 30), 2);
        assert_eq!(default_grid(1000, 1024), 128);
        assert_eq!(default_grid(u64::from(u32::MAX), 1 << 20), MAX_DEFAULT_GRID);
    }

    #[test]
    fn key_bits_preserve_total_order() {
        let xs = [
            f64::NEG_INFINITY,
            -1e300,
            -1.0,
            -0.0,
            0.0,
            1e-300,
            1.0,
            f64::INFINITY,
            f64::NAN,
        ];
        for a in xs {
            for b in xs {
                assert_eq!(key_bits(a).cmp(&key_bits(b)), a.total_cmp(&b), "{a} {b}");
            }
        }
    }

    #[test]
    fn memory_floor_and_split() {
        let shape = GridShape::new(1000, 16, 16);
        let m = Memory::plan(1, &Plan::new(shape, false), true);
        assert_eq!(m.block_edges as u64, MIN_BLOCK_EDGES);
        assert_eq!(m.total, 8 * 257 + 3 * MIN_READ + 16 * 12 * MIN_BLOCK_EDGES);
        let m = Memory::plan(1 << 30, &Plan::new(shape, false), false);
        assert_eq!(m.total, 1 << 30);
        assert_eq!(m.block_edges as u64, MAX_BLOCK_EDGES);
    }
}
