//! Shard layouts from a graph's CSR: `diskgraph partition --shards` (GraphChi's shards, for
//! Parallel Sliding Windows), streamed under a memory budget and published atomically inside the
//! graph as `shards-N/` (see `docs/FORMAT.md`, "Shard layout").
//!
//! **Intervals.** The vertices are cut into N intervals so that each holds the destinations of
//! about E/N stored arcs. With `P(v)` the number of stored arcs whose destination is below `v`
//! (the in-degree prefix sum: `in.idx` of a directed graph, `out.idx` of an undirected one, which
//! is symmetric), the boundaries are placed greedily from left to right. Once `b[p−1]` is placed,
//! the target of boundary `p` is `T = P(b[p−1]) + (E − P(b[p−1])) / (N − p + 1)`, an even share of
//! the arcs still to place among the intervals still to cut; boundary `p` is the first vertex
//! `v ≥ lo` at which `v = hi`, or `P(v) ≥ T`, or `T` lies below the midpoint of `P(v)` and
//! `P(v + 1)` (cutting before `v` is nearer `T` than cutting after it; a tie goes to the later
//! cut). When `V ≥ N`, `lo = b[p−1] + 1` and `hi = V − (N − p)`, so every interval keeps at least
//! one vertex; when `V < N`, `lo = b[p−1]` and `hi = V`, and intervals may be empty. An interval
//! cannot split a vertex, so a hub's whole in-degree lands in one interval, and the intervals
//! after it share what is left. The rule is deterministic and takes one pass over the offset
//! index ([`shard_intervals`]).
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
//! **Automatic N** ([`auto_shards`]): GraphChi sizes shards so that one interval's working set
//! fits in memory. The shards engine's working set for interval `p` is about
//! [`WORKING_SET_BYTES_PER_ARC`] (28) bytes per arc of shard `p` and of the windows of interval
//! `p` in the other shards — three 4-byte columns of each, and 4 bytes of grouping per arc of
//! the shard — plus at least one block of each column for each of the N windows: about
//! `w(N) = 28·E/N + 3·N·B` for blocks of `B` bytes. N is the smallest count with
//! `w(N) ≤ M/2`; when no N fits, the N with the smallest `w(N)` (about `√(28·E / 3B)`), the
//! layout that runs in the least memory. N is at least 1, at most [`MAX_SHARDS`] and at most V,
//! and need not be a power of two.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use diskgraph_format::{
    check_block_bytes, interval_of, shard_layout_name, ArcStream, BlockFrame, Codec, Direction, FileEntry, GraphDir,
    GridEdge, LayoutBuilder, LayoutMeta, PositionedFile, RunAxis, ShardMeta, DEFAULT_SHARD_BLOCK_BYTES, MAX_SHARDS,
    SHARD_BYTE_WINDOWS, SHARD_DST, SHARD_PACKED, SHARD_SRC, SHARD_WINDOWS,
};

use crate::packed::BlockPacker;
use crate::progress::{stop_point, Ticker};
use crate::Progress;

/// Bytes of the shards engine's working set per arc of the interval being processed (its shard
/// and its windows in the other shards), the figure [`auto_shards`] sizes shards by.
pub const WORKING_SET_BYTES_PER_ARC: u64 = 28;

/// How to build a shard layout.
#[derive(Clone, Debug)]
pub struct ShardOptions {
    /// Number of shards N, 1 to [`MAX_SHARDS`]; `None` chooses it with [`auto_shards`].
    pub shards: Option<u32>,
    /// Memory budget in bytes (of this run, and the one [`auto_shards`] sizes shards for).
    pub memory: u64,
    /// Edge-value block size of the shards engine, recorded in `shards.json`: a multiple of
    /// 4096 from 4 KiB to 64 MiB.
    pub block_bytes: u64,
    /// Replace an existing layout of the same name.
    pub force: bool,
    /// Compress the windows with this codec (`--compress`): layout `shards-N-CODEC`.
    pub compress: Option<Codec>,
}

impl Default for ShardOptions {
    fn default() -> Self {
        ShardOptions {
            shards: None,
            memory: 1 << 30,
            block_bytes: DEFAULT_SHARD_BLOCK_BYTES,
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
    /// Bytes of the layout's files on disk (padded).
    pub bytes_written: u64,
    /// The memory figure the run was planned for (the budget, or the floor above it).
    pub peak_memory: u64,
    /// Wall time in seconds.
    pub seconds: f64,
}

/// The working set [`auto_shards`] estimates for `n` shards of `num_arcs` arcs in blocks of
/// `block_bytes`: `28·E/N + 3·N·B` bytes.
pub fn working_set(num_arcs: u64, n: u32, block_bytes: u64) -> u128 {
    let n = u128::from(n.max(1));
    (u128::from(WORKING_SET_BYTES_PER_ARC) * u128::from(num_arcs)).div_ceil(n) + 3 * n * u128::from(block_bytes)
}

/// N for a graph of `num_vertices` and `num_arcs` stored arcs under `memory` bytes with blocks of
/// `block_bytes`: the smallest N whose [`working_set`] is at most `memory/2`, else the N with
/// the smallest working set; at least 1, at most [`MAX_SHARDS`] and at most V.
pub fn auto_shards(num_vertices: u64, num_arcs: u64, memory: u64, block_bytes: u64) -> u32 {
    let cap = u64::from(MAX_SHARDS).min(num_vertices).max(1) as u32;
    let w = |n: u32| working_set(num_arcs, n, block_bytes);
    // w falls until about √(28·E / 3B), then rises: the fitting N, if any, is at most that.
    let best = (1..=cap).min_by_key(|&n| (w(n), n)).expect("at least one count");
    (1..=best).find(|&n| w(n) <= u128::from(memory / 2)).unwrap_or(best)
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
    cut_by_degree(graph, direction, num_shards, buffer_bytes)
}

/// The N + 1 boundaries of `n` ranges of about equal degree sums in direction `dir` of `graph`
/// (the rule of [`Cut`]), from one pass over its offsets through buffers of `buffer_bytes`.
pub(crate) fn cut_by_degree(graph: &GraphDir, dir: Direction, n: u32, buffer_bytes: usize) -> Result<Vec<u32>> {
    let v_count = graph.num_vertices();
    let mut s = ArcStream::open(graph, dir, false, buffer_bytes)?;
    let mut cut = Cut::new(n, v_count, graph.manifest().num_arcs);
    let mut prefix = 0u64;
    for v in 0..=v_count {
        let degree = match v < v_count {
            true => s.next_vertex()?.map_or(0, |(_, d)| d),
            false => 0,
        };
        cut.at(v, prefix, prefix + degree);
        prefix += degree;
    }
    Ok(cut.boundaries())
}

/// The boundaries of the interval rule, placed left to right as the in-degree prefix `P(v)`
/// streams past (also the splitter's rule for rows and columns, over out-degrees and a row's
/// destination counts).
pub(crate) struct Cut {
    /// N.
    n: u64,
    /// V.
    v_count: u64,
    /// E.
    e: u64,
    /// Boundaries placed so far (`boundaries[0] = 0`; the last is V once all are placed).
    boundaries: Vec<u32>,
    /// `P(b[p − 1])`: arcs below the last boundary placed.
    base: u64,
}

impl Cut {
    /// The rule for `num_shards` ranges of `v_count` vertices holding `e` arcs.
    pub(crate) fn new(num_shards: u32, v_count: u64, e: u64) -> Cut {
        Cut {
            n: u64::from(num_shards),
            v_count,
            e,
            boundaries: vec![0],
            base: 0,
        }
    }

    /// Places every boundary that falls at vertex `v`, where `P(v) = here` and
    /// `P(v + 1) = next` (`next = here` at `v = V`); called for every `v` from 0 to V.
    pub(crate) fn at(&mut self, v: u64, here: u64, next: u64) {
        while (self.boundaries.len() as u64) < self.n {
            let p = self.boundaries.len() as u64;
            let last = u64::from(self.boundaries[p as usize - 1]);
            let (lo, hi) = match self.v_count >= self.n {
                true => (last + 1, self.v_count - (self.n - p)),
                false => (last, self.v_count),
            };
            // The target T = base + (E − base) / k, scaled by k: an even share of the arcs still
            // to place among the k intervals still to cut.
            let k = u128::from(self.n - p + 1);
            let target = k * u128::from(self.base) + u128::from(self.e - self.base);
            let (here_k, next_k) = (k * u128::from(here), k * u128::from(next));
            let near = here_k >= target || 2 * target < here_k + next_k;
            if v < lo || !(near || v >= hi) {
                return;
            }
            self.boundaries.push(v as u32);
            self.base = here;
        }
        if v == self.v_count && self.boundaries.len() as u64 == self.n {
            self.boundaries.push(v as u32);
        }
    }

    /// The N + 1 boundaries, once `at` has seen every vertex.
    pub(crate) fn boundaries(self) -> Vec<u32> {
        self.boundaries
    }
}

/// Publishes the shard layout `shards-N` of the graph at `graph` (see the module
/// documentation). A directed graph's intervals come from its `in.idx`, which every directed
/// graph has (opening the graph fails, naming the file, otherwise).
pub fn partition_shards(graph: &Path, opts: &ShardOptions, progress: &mut dyn Progress) -> Result<ShardSummary> {
    let start = Instant::now();
    check_block_bytes(opts.block_bytes).map_err(|e| anyhow::anyhow!("--block-size: {e}"))?;
    let g = GraphDir::open(graph)?;
    let (v_count, e) = (g.num_vertices(), g.manifest().num_arcs);
    let n = match opts.shards {
        Some(n) if (1..=MAX_SHARDS).contains(&n) => n,
        Some(n) => bail!("--shards {n}: the number of shards must be 1 to {MAX_SHARDS}"),
        None => auto_shards(v_count, e, opts.memory, opts.block_bytes),
    };
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
    if let Some(codec) = opts.compress {
        // The plain columns were scratch: packed, then dropped from the layout.
        files.clear();
        files.extend(pack_windows(&builder, &intervals, &windows, codec, &memory, progress)?);
        for column in [SHARD_SRC, SHARD_DST] {
            let path = builder.dir().join(column);
            std::fs::remove_file(&path).with_context(|| format!("cannot remove {}", path.display()))?;
        }
    }
    let bytes: &[u8] = bytemuck::cast_slice(&windows);
    let mut idx = builder.positioned(SHARD_WINDOWS, bytes.len() as u64)?;
    idx.write_at(0, bytes)?;
    files.extend([idx.finish()?]);
    let meta = ShardMeta::new(g.manifest(), intervals, opts.block_bytes, opts.compress, files);
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
        block_bytes: opts.block_bytes,
        bytes_written: meta.bytes_on_disk(),
        peak_memory: memory.total,
        seconds: start.elapsed().as_secs_f64(),
    })
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

/// Pass 3 of `--compress`: reads the plain columns written by pass 2 front to back (they hold
/// the windows in window order) and writes every window's runs to `arcs.packed`
/// ([`BlockEncoder`]) and their byte offsets to `bytes.idx`; returns both files' entries.
fn pack_windows(
    builder: &LayoutBuilder,
    intervals: &[u32],
    windows: &[u64],
    codec: Codec,
    mem: &Memory,
    progress: &mut dyn Progress,
) -> Result<Vec<(String, FileEntry)>> {
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
    packer.finish(builder, SHARD_BYTE_WINDOWS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_shards_follows_the_rule() {
        const B: u64 = 1 << 20;
        // 28·E/N + 3·N·B ≤ M/2, the smallest such N.
        assert_eq!(auto_shards(1000, 0, 1 << 30, B), 1);
        assert_eq!(auto_shards(1000, 1 << 20, 1 << 30, B), 1);
        for (e, m) in [(12_345u64, 1u64 << 24), (1 << 24, 256 << 20), (1 << 26, 256 << 20)] {
            let n = auto_shards(u64::MAX, e, m, B);
            let fits = |k: u32| working_set(e, k, B) <= u128::from(m / 2);
            match (1..=MAX_SHARDS).any(fits) {
                true => assert!(
                    fits(n) && (n == 1 || !fits(n - 1)),
                    "N={n} not the smallest for E={e}, M={m}"
                ),
                false => assert!((1..=MAX_SHARDS).all(|k| working_set(e, k, B) >= working_set(e, n, B))),
            }
        }
        assert_eq!(auto_shards(u64::MAX, 1 << 24, 256 << 20, B), 4);
        // Nothing fits: the N of the smallest working set, about √(28·E / 3B).
        let n = auto_shards(u64::MAX, 1 << 24, 1, 4096);
        assert!(
            (n as f64 - (28.0 * (1u64 << 24) as f64 / (3.0 * 4096.0)).sqrt()).abs() <= 1.0,
            "{n}"
        );
        // At most V, at most MAX_SHARDS, at least 1.
        assert_eq!(auto_shards(3, 1 << 30, 1 << 20, 4096), 3);
        assert_eq!(auto_shards(0, 0, 0, B), 1);
        assert_eq!(auto_shards(1 << 30, u64::MAX >> 8, 1, 1), MAX_SHARDS);
    }

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
