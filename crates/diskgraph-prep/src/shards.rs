//! Shard layouts from a graph's CSR: `diskgraph partition --shards` (GraphChi's shards, for
//! Parallel Sliding Windows), streamed under a memory budget and published atomically inside the
//! graph as `shards-N/` (see `docs/FORMAT.md`, "Shard layout").
//!
//! **Intervals.** The vertices are cut into N intervals so that each holds the destinations of
//! about E/N stored arcs, by the rule of [`IntervalCut`] over the in-degree prefix sum `P(v)` (the
//! number of stored arcs whose destination is below `v`: `in.idx` of a directed graph, `out.idx`
//! of an undirected one, which is symmetric). An interval cannot split a vertex, so a hub's whole
//! in-degree lands in one interval, and the intervals after it share what is left. The rule is
//! deterministic and takes one pass over the offset index ([`shard_intervals`]).
//!
//! **Two passes over the out-CSR** in source order, as the grid writer does:
//!
//! 1. *Count* the arcs of every (destination interval `q`, source interval `p`) block, which gives
//!    `windows.idx` (block `q·N + p` is the window of interval `p` in shard `q`).
//! 2. *Write*: the CSR is read again interval by interval of sources. A stripe of consecutive
//!    sources lists its arcs by (src, dst), which is the order promised inside each window, so
//!    every arc is appended to the buffer of its destination's shard, and a full buffer is
//!    written at its window's next offset, into both `src.u32` and `dst.u32`. Only the N windows
//!    of one source interval are open at once.
//!
//! **Compressed** (`--compress CODEC`): a third pass reads the two columns just written, window
//! by window, and encodes each window as the runs of a compressed grid block
//! ([`BlockEncoder`]: a window is the block of sources in interval `p` and destinations in
//! interval `q`) into `arcs.packed`, with their byte offsets in `bytes.idx`; the plain columns
//! were scratch and are removed before the layout `shards-N-CODEC` is published.
//!
//! **Memory.** With budget `M` and N shards the peak is about `8·(N²+1)` bytes of window index,
//! plus two CSR read buffers of `R = clamp(M/16, 64 KiB, 4 MiB)`, plus N window buffers of
//! `clamp((M − index − 2R) / (N·8), 512, 131072)` arcs of 8 bytes. Budgets below that floor
//! (≈ `8·N² + N·4 KiB + 128 KiB`) are raised to it; [`ShardSummary::peak_memory`] reports the
//! figure used.
//!
//! **Shard count and block size** ([`plan_shards`]): with `--shards auto`, or without
//! `--block-size`, they are chosen for the budget by the shards engine's own formula for its
//! smallest budget ([`ShardBudget`]), so a layout made for `--memory M` runs at M (blocks at most
//! the mean window's column, so a small graph gets small blocks; the preferences among the
//! layouts that fit are [`plan_shards`]'s). When nothing fits M, `--shards auto` is refused
//! naming the smallest budget that would work; a fixed N takes the block that needs least. The
//! written layout's exact minimum ([`ShardSummary::min_memory`]) is at most the planned one; a
//! compressed layout, planned at 8 bytes a packed arc, is checked before it is published.

use diskgraph_io::spelling::{option, setting};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context, Result};
#[cfg(doc)]
use diskgraph_format::IntervalCut;
use diskgraph_format::{
    check_block_bytes, cut_by_degree, human_bytes, human_minimum, interval_of, plan_shards, shard_layout_name,
    ArcStream, BlockFrame, Codec, Direction, FileEntry, GraphDir, GridEdge, LayoutBuilder, LayoutMeta, PositionedFile,
    RunAxis, ShardBudget, ShardChoice, ShardGeometry, ShardMeta, ShardPlan, ShardRequest, MAX_SHARDS,
    SHARD_BYTE_WINDOWS, SHARD_DST, SHARD_PACKED, SHARD_SRC, SHARD_WINDOWS,
};

use crate::packed::BlockPacker;
use crate::progress::{stop_point, Ticker};
use crate::Progress;

/// `--shards auto` refused: no layout of the graph runs within `--memory` on the shards engine
/// (the message names the smallest budget that would, or the option to drop).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct NoLayoutFits(pub String);

/// How to build a shard layout.
#[derive(Clone, Debug)]
pub struct ShardOptions {
    /// Number of shards N, 1 to [`MAX_SHARDS`]; `None` chooses it for `memory` ([`plan_shards`]).
    pub shards: Option<u32>,
    /// Memory budget in bytes (of this run, and the shards engine's the layout is made for).
    pub memory: u64,
    /// Edge-value block size of the shards engine, recorded in `shards.json`: a multiple of
    /// 4096 from 4 KiB to 64 MiB; `None` chooses it for `memory` ([`plan_shards`]).
    pub block_bytes: Option<u64>,
    /// Replace an existing layout of the same name.
    pub force: bool,
    /// Compress the windows with this codec (`--compress`): layout `shards-N-CODEC`.
    pub compress: Option<Codec>,
}

impl Default for ShardOptions {
    fn default() -> Self {
        ShardOptions {
            shards: None,
            memory: diskgraph_io::DEFAULT_MEMORY,
            block_bytes: None,
            force: false,
            compress: None,
        }
    }
}

/// What a shard partition run wrote.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct ShardSummary {
    /// The published layout directory.
    pub path: PathBuf,
    /// Its name, `shards-N`.
    pub name: String,
    /// Number of shards N.
    pub num_shards: u32,
    /// Whether N was chosen from the budget (`--shards auto`).
    pub shards_from_budget: bool,
    /// Arcs in the layout (the graph's stored arcs).
    pub num_arcs: u64,
    /// Arcs of the largest shard.
    pub largest_shard: u64,
    /// Edge-value block size recorded for the engine.
    pub block_bytes: u64,
    /// Whether the block size was chosen from the budget (no `--block-size`).
    pub block_from_budget: bool,
    /// The smallest budget the shards engine runs the layout in.
    pub min_memory: u64,
    /// Bytes of the layout's files on disk (padded).
    pub bytes_written: u64,
    /// The memory figure the run was planned for (the budget, or the floor above it).
    pub peak_memory: u64,
    /// Wall time in seconds.
    pub seconds: f64,
}

/// The N + 1 interval boundaries of `graph` for `num_shards` shards, by the rule of the module
/// documentation, from one pass over the in-degree offsets (`in.idx` of a directed graph,
/// `out.idx` of an undirected one, which is symmetric) through read buffers of `buffer_bytes`.
pub fn shard_intervals(graph: &GraphDir, num_shards: u32, buffer_bytes: usize) -> Result<Vec<u32>> {
    if !(1..=MAX_SHARDS).contains(&num_shards) {
        bail!("{num_shards} shards: the number of shards must be 1 to {MAX_SHARDS}");
    }
    let v_count = graph.num_vertices();
    if v_count > u64::from(u32::MAX) {
        bail!("{v_count} vertices: shard intervals need fewer than 2^32 (their boundaries are u32)");
    }
    let direction = match graph.manifest().directed {
        true => Direction::In,
        false => Direction::Out,
    };
    Ok(cut_by_degree(graph, direction, num_shards, buffer_bytes)?)
}

/// Publishes the shard layout `shards-N` of the graph at `graph` (see the module
/// documentation). A directed graph's intervals come from its `in.idx`, which every directed
/// graph has (opening the graph fails, naming the file, otherwise).
///
/// Errors: besides the graph's and the files', `--shards auto` when no layout runs within
/// `--memory` on the shards engine (naming the smallest budget that would).
pub fn partition_shards(graph: &Path, opts: &ShardOptions, progress: &mut dyn Progress) -> Result<ShardSummary> {
    let start = Instant::now();
    if let Some(b) = opts.block_bytes {
        check_block_bytes(b).map_err(|e| anyhow::anyhow!("{}: {e}", option("block_size")))?;
    }
    if let Some(n) = opts.shards.filter(|n| !(1..=MAX_SHARDS).contains(n)) {
        bail!(
            "{}: the number of shards must be 1 to {MAX_SHARDS}",
            setting("shards", n)
        );
    }
    let g = GraphDir::open(graph)?;
    let e = g.manifest().num_arcs;
    progress.phase("choosing shards", None);
    let (n, block_bytes) = choose(&g, opts)?;
    let memory = Memory::plan(opts.memory, n);
    let builder = LayoutBuilder::create(&g, &shard_layout_name(n, opts.compress), opts.force)?;
    progress.phase("choosing intervals", None);
    let intervals = shard_intervals(&g, n, memory.read)?;
    let windows = count_windows(&g, &intervals, &memory, progress)?;
    let mut out = Columns {
        src: builder.positioned(SHARD_SRC, e * 4)?,
        dst: builder.positioned(SHARD_DST, e * 4)?,
    };
    write_windows(&g, &intervals, &windows, &memory, &mut out, progress)?;
    let mut files = BTreeMap::new();
    files.extend([out.src.finish()?, out.dst.finish()?]);
    let mut byte_windows = None;
    if let Some(codec) = opts.compress {
        // The plain columns were scratch: packed, then dropped from the layout.
        files.clear();
        let (packed, offsets) = pack_windows(&builder, &intervals, &windows, codec, &memory, progress)?;
        files.extend(packed);
        byte_windows = Some(offsets);
        for column in [SHARD_SRC, SHARD_DST] {
            let path = builder.dir().join(column);
            std::fs::remove_file(&path).with_context(|| format!("cannot remove {}", path.display()))?;
        }
    }
    let geometry = ShardGeometry::new(&intervals, &windows, byte_windows.as_deref());
    let min_memory = ShardBudget::of_geometry(&geometry, block_bytes).minimum();
    if opts.shards.is_none() && min_memory > opts.memory {
        bail!(
            "{} came out needing {} on the shards engine, more than {} (its packed windows \
             take more than the 8 bytes an arc they were planned at): give {} or more, or \
             leave {} out",
            builder.name(),
            human_minimum(min_memory),
            setting("memory", human_bytes(opts.memory)),
            setting("memory", human_minimum(min_memory)),
            option("compress")
        );
    }
    let bytes: &[u8] = bytemuck::cast_slice(&windows);
    let mut idx = builder.positioned(SHARD_WINDOWS, bytes.len() as u64)?;
    idx.write_at(0, bytes)?;
    files.extend([idx.finish()?]);
    let meta = ShardMeta::new(g.manifest(), intervals, block_bytes, opts.compress, files);
    let name = builder.name().to_string();
    stop_point(progress)?;
    let path = builder
        .publish(&meta)
        .with_context(|| format!("cannot publish layout {name} in {}", g.path().display()))?;
    progress.finish();
    let nn = n as usize;
    let largest_shard = (0..nn)
        .map(|q| windows[(q + 1) * nn] - windows[q * nn])
        .max()
        .unwrap_or(0);
    Ok(ShardSummary {
        path,
        name,
        num_shards: n,
        shards_from_budget: opts.shards.is_none(),
        num_arcs: e,
        largest_shard,
        block_bytes,
        block_from_budget: opts.block_bytes.is_none(),
        min_memory,
        bytes_written: meta.bytes_on_disk(),
        peak_memory: memory.total,
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// The shard count and block size of the layout `opts` ask of `g`: as given, else planned for
/// the budget ([`plan_shards`]). A fixed count takes the block that needs least when none fits;
/// `--shards auto` is refused then, naming the smallest budget that would work.
fn choose(g: &GraphDir, opts: &ShardOptions) -> Result<(u32, u64)> {
    if let (Some(n), Some(b)) = (opts.shards, opts.block_bytes) {
        return Ok((n, b));
    }
    let request = ShardRequest {
        memory: opts.memory,
        shards: opts.shards,
        block_bytes: opts.block_bytes,
        compressed: opts.compress.is_some(),
    };
    let buffer = Memory::plan(opts.memory, 1).read;
    let least = match plan_shards(g, &request, buffer)? {
        ShardPlan::Fits(c) => return Ok((c.num_shards, c.block_bytes)),
        ShardPlan::TooSmall { least } if opts.shards.is_some() => return Ok((least.num_shards, least.block_bytes)),
        ShardPlan::TooSmall { least } => least,
    };
    let mut why = format!(
        "no shards layout of {} runs within {} on the shards engine: the one that needs least, {}, needs {}",
        g.path().display(),
        setting("memory", human_bytes(opts.memory)),
        describe(&least),
        human_minimum(least.minimum)
    );
    if opts.block_bytes.is_some() {
        let free = ShardRequest {
            block_bytes: None,
            ..request
        };
        if let ShardPlan::Fits(c) = plan_shards(g, &free, buffer)? {
            why += &format!("; without {} it fits ({})", option("block_size"), describe(&c));
            return Err(NoLayoutFits(why).into());
        }
    }
    why += &format!("; give {} or more", setting("memory", human_minimum(least.minimum)));
    Err(NoLayoutFits(why).into())
}

/// A planned layout for a person: `34 shards of 64 KiB blocks`.
fn describe(c: &ShardChoice) -> String {
    format!("{} shards of {} blocks", c.num_shards, human_bytes(c.block_bytes))
}

/// How the budget is spent.
struct Memory {
    /// Bytes of each CSR read buffer.
    read: usize,
    /// Arcs per window buffer.
    window_arcs: usize,
    /// The planned peak: the budget, or the floor above it.
    total: u64,
}

const MIN_READ: u64 = 64 << 10;
const MAX_READ: u64 = 4 << 20;
const MIN_WINDOW_ARCS: u64 = 512;
const MAX_WINDOW_ARCS: u64 = 1 << 17;
/// Bytes of one buffered arc (its source and its destination).
const ARC_BYTES: u64 = 8;

impl Memory {
    fn plan(memory: u64, num_shards: u32) -> Memory {
        let n = u64::from(num_shards);
        let index = 8 * (n * n + 1) + 4 * (n + 1);
        let read = (memory / 16).clamp(MIN_READ, MAX_READ);
        let rest = memory.saturating_sub(index + 2 * read);
        let window_arcs = (rest / (n * ARC_BYTES)).clamp(MIN_WINDOW_ARCS, MAX_WINDOW_ARCS);
        let floor = index + 2 * read + n * ARC_BYTES * window_arcs;
        Memory {
            read: read as usize,
            window_arcs: window_arcs as usize,
            total: memory.max(floor),
        }
    }
}

/// The source interval of `v`, moved forward from `p` (sources arrive in ascending order).
fn advance(intervals: &[u32], mut p: usize, v: u32) -> usize {
    while v >= intervals[p + 1] {
        p += 1;
    }
    p
}

/// Pass 1: `windows.idx` from the per-window arc counts (window `q·N + p`).
fn count_windows(g: &GraphDir, intervals: &[u32], mem: &Memory, progress: &mut dyn Progress) -> Result<Vec<u64>> {
    let n = intervals.len() - 1;
    let mut counts = vec![0u64; n * n + 1];
    let mut s = ArcStream::open(g, Direction::Out, false, mem.read)?;
    progress.phase("counting windows", Some(g.manifest().num_arcs));
    let mut ticker = Ticker::new();
    let mut p = 0;
    while let Some((v, _)) = s.next_vertex()? {
        p = advance(intervals, p, v);
        while let Some((d, _)) = s.next_arc()? {
            counts[interval_of(intervals, d) as usize * n + p + 1] += 1;
        }
        ticker.tick(progress, s.position())?;
    }
    for w in 1..counts.len() {
        counts[w] += counts[w - 1];
    }
    Ok(counts)
}

/// The layout's two column files while they are written at window offsets.
struct Columns {
    src: PositionedFile,
    dst: PositionedFile,
}

/// Buffered arcs of one window of the current source interval.
#[derive(Default)]
struct WindowBuffer {
    /// Arc number the buffer will be written at.
    at: u64,
    /// End of the window.
    end: u64,
    src: Vec<u32>,
    dst: Vec<u32>,
}

impl WindowBuffer {
    fn flush(&mut self, out: &mut Columns) -> Result<()> {
        out.src.write_at(self.at * 4, bytemuck::cast_slice(&self.src))?;
        out.dst.write_at(self.at * 4, bytemuck::cast_slice(&self.dst))?;
        self.at += self.src.len() as u64;
        self.src.clear();
        self.dst.clear();
        Ok(())
    }
}

/// The windows of the source interval being written, one per shard.
struct Stripe {
    windows: Vec<WindowBuffer>,
    cap: usize,
}

impl Stripe {
    /// Positions the buffers at the windows of source interval `p`.
    fn start(&mut self, windows: &[u64], p: usize) {
        let n = self.windows.len();
        for (q, buf) in self.windows.iter_mut().enumerate() {
            (buf.at, buf.end) = (windows[q * n + p], windows[q * n + p + 1]);
        }
    }

    #[inline]
    fn push(&mut self, q: usize, src: u32, dst: u32, out: &mut Columns) -> Result<()> {
        let buf = &mut self.windows[q];
        if buf.at + buf.src.len() as u64 >= buf.end {
            bail!(
                "{}: the graph changed while it was partitioned (a window overflowed)",
                out.src.path().display()
            );
        }
        if buf.src.capacity() == 0 {
            buf.src.reserve_exact(self.cap);
            buf.dst.reserve_exact(self.cap);
        }
        buf.src.push(src);
        buf.dst.push(dst);
        if buf.src.len() == self.cap {
            buf.flush(out)?;
        }
        Ok(())
    }

    /// Writes what is buffered and checks every window of the stripe is complete.
    fn finish(&mut self, out: &mut Columns) -> Result<()> {
        for buf in &mut self.windows {
            buf.flush(out)?;
            if buf.at != buf.end {
                bail!(
                    "{}: the graph changed while it was partitioned (a window came out short)",
                    out.src.path().display()
                );
            }
        }
        Ok(())
    }
}

/// Pass 2: every source interval's arcs into its windows.
fn write_windows(
    g: &GraphDir,
    intervals: &[u32],
    windows: &[u64],
    mem: &Memory,
    out: &mut Columns,
    progress: &mut dyn Progress,
) -> Result<()> {
    let n = intervals.len() - 1;
    let mut stripe = Stripe {
        windows: (0..n).map(|_| WindowBuffer::default()).collect(),
        cap: mem.window_arcs,
    };
    let mut s = ArcStream::open(g, Direction::Out, false, mem.read)?;
    let mut current: Option<usize> = None;
    progress.phase("writing shards", Some(g.manifest().num_arcs));
    let mut ticker = Ticker::new();
    let mut p = 0;
    while let Some((v, _)) = s.next_vertex()? {
        p = advance(intervals, p, v);
        if current != Some(p) {
            if current.is_some() {
                stripe.finish(out)?;
                // An interval writes each of its N windows: with many shards that, more than
                // its arcs, is the work between two ticks.
                stop_point(progress)?;
            }
            stripe.start(windows, p);
            current = Some(p);
        }
        while let Some((d, _)) = s.next_arc()? {
            stripe.push(interval_of(intervals, d) as usize, v, d, out)?;
        }
        ticker.tick(progress, s.position())?;
    }
    if current.is_some() {
        stripe.finish(out)?;
    }
    Ok(())
}

/// What [`pack_windows`] wrote: the files' entries and every window's byte offset.
type PackedWindows = (Vec<(String, FileEntry)>, Vec<u64>);

/// Pass 3 of `--compress`: reads the plain columns written by pass 2 front to back (they hold
/// the windows in window order) and writes every window's runs to `arcs.packed`
/// ([`BlockEncoder`]) and their byte offsets to `bytes.idx`; returns both files' entries and
/// the byte offsets.
fn pack_windows(
    builder: &LayoutBuilder,
    intervals: &[u32],
    windows: &[u64],
    codec: Codec,
    mem: &Memory,
    progress: &mut dyn Progress,
) -> Result<PackedWindows> {
    let n = intervals.len() - 1;
    let reader = |column: &str| -> Result<(PathBuf, std::io::BufReader<std::fs::File>)> {
        let path = builder.dir().join(column);
        let file = std::fs::File::open(&path).with_context(|| format!("cannot open {}", path.display()))?;
        Ok((path, std::io::BufReader::with_capacity(mem.read, file)))
    };
    let (mut src, mut dst) = (reader(SHARD_SRC)?, reader(SHARD_DST)?);
    let chunk_len = (mem.read / 4).max(1);
    let (mut s, mut d) = (vec![0u32; chunk_len], vec![0u32; chunk_len]);
    let mut packer = BlockPacker::create(builder, SHARD_PACKED, codec)?;
    progress.phase("compressing windows", Some(*windows.last().unwrap_or(&0)));
    let mut ticker = Ticker::new();
    let range = |p: usize| u64::from(intervals[p])..u64::from(intervals[p + 1]);
    for w in 0..n * n {
        let (q, p) = (w / n, w % n);
        if p == 0 {
            // Per shard: each window costs more than its arcs.
            stop_point(progress)?;
        }
        packer.start(BlockFrame {
            axis: RunAxis::Source,
            sources: range(p),
            destinations: range(q),
        });
        let mut left = windows[w + 1] - windows[w];
        while left > 0 {
            let k = left.min(chunk_len as u64) as usize;
            for ((path, r), buf) in [(&mut src, &mut s), (&mut dst, &mut d)] {
                std::io::Read::read_exact(r, bytemuck::cast_slice_mut(&mut buf[..k]))
                    .with_context(|| format!("cannot read {}", path.display()))?;
            }
            for i in 0..k {
                packer.push(GridEdge { src: s[i], dst: d[i] })?;
            }
            left -= k as u64;
            ticker.tick(progress, windows[w + 1] - left)?;
        }
        packer.end()?;
    }
    let offsets = packer.offsets().to_vec();
    Ok((packer.finish(builder, SHARD_BYTE_WINDOWS)?, offsets))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_floor_and_split() {
        let m = Memory::plan(1, 16);
        assert_eq!(m.window_arcs as u64, MIN_WINDOW_ARCS);
        assert_eq!(
            m.total,
            8 * 257 + 4 * 17 + 2 * MIN_READ + 16 * ARC_BYTES * MIN_WINDOW_ARCS
        );
        let m = Memory::plan(1 << 30, 16);
        assert_eq!(m.total, 1 << 30);
        assert_eq!(m.window_arcs as u64, MAX_WINDOW_ARCS);
        assert_eq!(m.read as u64, MAX_READ);
    }

    #[test]
    fn sources_advance_over_empty_intervals() {
        let b = [0, 2, 2, 5, 5, 9];
        assert_eq!(advance(&b, 0, 1), 0);
        assert_eq!(advance(&b, 0, 2), 2);
        assert_eq!(advance(&b, 2, 5), 4);
        assert_eq!(advance(&b, 0, 8), 4);
    }
}
