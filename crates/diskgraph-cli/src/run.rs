//! `diskgraph run ALGO GRAPH`.

use std::path::{Path, PathBuf};
use std::str::FromStr;

use anyhow::{bail, Context, Result};
use diskgraph_algo::registry::{self, RunRequest};
use diskgraph_engine::parse_size;
use diskgraph_engine::selective::{BackendKind, IoConfig, PageCacheOptions, Replacement, SchedulerKind};
use diskgraph_engine::stream::{VertexStateKind, DEFAULT_MRT};
use diskgraph_format::GraphDir;

use crate::output::write_values;

/// Arguments of `diskgraph run`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Algorithm: bfs, sssp, wcc, scc, pagerank, kcore, msbfs, apsp, spmv, mis, sp, diameter, bc.
    algorithm: String,
    /// Graph directory.
    graph: PathBuf,
    /// Engine: memory (load the CSR), selective (read adjacency lists from disk per iteration),
    /// stream (stream a grid layout from `diskgraph partition`), or auto (memory when the CSR fits
    /// in --memory, else selective; stream for mis).
    #[arg(long, default_value = "auto")]
    engine: String,
    /// The algorithm's method: wcc on the stream engine union-find (default) or
    /// label-propagation; mis greedy (default) or luby (seeded with --seed).
    #[arg(long)]
    method: Option<String>,
    /// Source of bfs, sssp, sp and diameter: an original vertex ID, `smallest` or `max-degree`.
    #[arg(long, default_value = "smallest")]
    source: registry::Source,
    /// msbfs and apsp sources: a count K (K vertices sampled with --seed; at most 64 for msbfs)
    /// or original IDs `a,b,c` (a single one as `a,`).
    #[arg(long, default_value = "64")]
    sources: registry::Sources,
    /// msbfs, apsp and bc --samples: seed of the sampled sources (drawn by original ID, the same
    /// on every ordering of a graph); mis --method luby: seed of the priorities.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// spmv: x, one f64 per vertex in ascending vertex-ID order: a text file (one value per
    /// line) or a 1-D .npy array (f8, f4, i8 or i4). All ones when absent.
    #[arg(long)]
    x: Option<PathBuf>,
    /// Memory budget: everything the selective engine (I/O buffers, block claims, list
    /// assembly) or the stream engine (ring buffers) holds; auto compares the CSR with it.
    #[arg(long, default_value = "1GiB", value_parser = parse_size)]
    memory: u64,
    /// Worker threads (all cores by default): rayon pool and the selective engine's compute
    /// workers.
    #[arg(long)]
    threads: Option<usize>,
    /// The out-of-core engines' settings (boxed, which keeps this struct small).
    #[command(flatten)]
    engines: Box<EngineArgs>,
    /// Write per-vertex results: .tsv, .npy or .parquet (by extension).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Write RunStats JSON.
    #[arg(long)]
    stats: Option<PathBuf>,
    /// bfs: output the parent of each vertex (original ID, -1 unreached) instead of its level.
    #[arg(long)]
    parents: bool,
    /// pagerank: stop when the L1 change is below N × tolerance (NetworkX's rule).
    #[arg(long, default_value_t = 1e-9)]
    tolerance: f64,
    /// pagerank: run exactly this many iterations.
    #[arg(long)]
    iterations: Option<usize>,
    /// pagerank: give up (and say so) after this many iterations.
    #[arg(long, default_value_t = 10_000)]
    max_iterations: usize,
    /// bc: sample this many sources (with --seed) instead of every vertex.
    #[arg(long)]
    samples: Option<usize>,
    /// diameter: BFS sweeps.
    #[arg(long, default_value_t = diskgraph_algo::DEFAULT_SWEEPS)]
    rounds: usize,
}

/// The selective and stream engines' flags.
#[derive(clap::Args, Debug)]
struct EngineArgs {
    /// selective, stream: I/O backend, uring, pread or mmap (selective only) (default: uring when
    /// the kernel allows it, else pread).
    #[arg(long, value_parser = BackendKind::from_str)]
    io: Option<BackendKind>,
    /// selective: I/O block size, a power of two from 512 B to 64 KiB.
    #[arg(long, default_value = "512", value_parser = parse_size)]
    block_size: u64,
    /// selective: largest gap, in blocks, merged into a read.
    #[arg(long, default_value_t = IoConfig::default().max_gap_blocks)]
    max_gap: u32,
    /// selective: largest read; longer runs are cut.
    #[arg(long, default_value = "64KiB", value_parser = parse_size)]
    max_request: u64,
    /// selective: I/O scheduler, bitmap (global dedup/sort/merge) or pluglist (the baseline).
    #[arg(long, default_value = "bitmap", value_parser = SchedulerKind::from_str)]
    scheduler: SchedulerKind,
    /// selective, stream: reads in flight per I/O thread.
    #[arg(long, default_value_t = IoConfig::default().queue_depth)]
    queue_depth: u32,
    /// selective: dedicated I/O threads.
    #[arg(long, default_value_t = IoConfig::default().io_threads)]
    io_threads: usize,
    /// selective: keep the small lists a bottom-up (pull) round read that the next round reads
    /// again, in the budget the I/O buffers leave (`false` is the baseline).
    #[arg(long, default_value_t = true, action = clap::ArgAction::Set)]
    retain_lists: bool,
    /// stream: maximum reentry times, passes over each loaded block (1 is GridGraph's one pass).
    #[arg(long, default_value_t = DEFAULT_MRT)]
    mrt: u32,
    /// stream: where vertex state lives, memory or mmap (a mapped scratch file next to the graph,
    /// so it may exceed RAM).
    #[arg(long, default_value = "memory", value_parser = VertexStateKind::from_str)]
    vertex_state: VertexStateKind,
    /// stream: the grid layout to stream (default: the one the algorithm prefers among the
    /// graph's layouts).
    #[arg(long)]
    layout: Option<String>,
    /// selective: load BAsC selection NAME (`diskgraph select`) into a static cache.
    #[arg(long)]
    basc: Option<String>,
    /// selective: share of --memory given to the static cache.
    #[arg(long, default_value_t = 0.5)]
    basc_fraction: f64,
    /// selective: read through a page cache of pages of this size (holding what the budget
    /// leaves after the static cache and the I/O buffers).
    #[arg(long, value_parser = parse_size)]
    page_size: Option<u64>,
    /// selective: the page cache's replacement, clock or lru.
    #[arg(long, default_value = "clock", value_parser = Replacement::from_str)]
    page_policy: Replacement,
    /// selective: track page utilisation (64-byte units touched while resident).
    #[arg(long)]
    track_utilization: bool,
}

pub fn run(a: Args) -> Result<()> {
    let g = GraphDir::open(&a.graph)?;
    let x = match &a.x {
        Some(path) => Some(read_x(path).with_context(|| format!("cannot read x from {}", path.display()))?),
        None => None,
    };
    let narrow = |what: &str, v: u64| u32::try_from(v).map_err(|_| anyhow::anyhow!("--{what} {v} is too large"));
    let e = *a.engines;
    let io = IoConfig {
        backend: e.io,
        block_size: narrow("block-size", e.block_size)?,
        max_gap_blocks: e.max_gap,
        max_request_bytes: narrow("max-request", e.max_request)?,
        scheduler: e.scheduler,
        queue_depth: e.queue_depth,
        io_threads: e.io_threads,
        ..IoConfig::default()
    };
    let req = RunRequest {
        algorithm: a.algorithm,
        engine: a.engine,
        source: a.source,
        parents: a.parents,
        tolerance: a.tolerance,
        iterations: a.iterations,
        max_iterations: a.max_iterations,
        threads: a.threads,
        memory: a.memory,
        sources: a.sources,
        seed: a.seed,
        x,
        io,
        retain_lists: e.retain_lists,
        mrt: e.mrt,
        vertex_state: e.vertex_state,
        layout: e.layout,
        method: a.method,
        samples: a.samples,
        rounds: a.rounds,
        basc: e.basc,
        basc_loaded: None,
        basc_fraction: e.basc_fraction,
        page_cache: match e.page_size {
            Some(size) => Some(PageCacheOptions {
                page_size: narrow("page-size", size)?,
                policy: e.page_policy,
                track_utilization: e.track_utilization,
            }),
            None => None,
        },
        // One run per process: the index is read once anyway.
        index: None,
        // Rows are put in ID order only to be written.
        in_id_order: a.out.is_some(),
    };
    let out = registry::run(&g, &req).with_context(|| format!("{} on {}", req.algorithm, a.graph.display()))?;
    println!("{}", out.summary);
    println!("{}", out.stats.summary());
    if let Some(path) = &a.out {
        write_values(path, &out.vertex_ids, &out.values)?;
        println!("results written to {}", path.display());
    }
    if let Some(path) = &a.stats {
        let json = serde_json::to_string_pretty(&out.stats)?;
        std::fs::write(path, json + "\n").with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}

/// Reads spmv's `x`: a `.npy` 1-D array of f8, f4, i8 or i4 (little-endian, C order), or text
/// with one number per line (blank lines and `#` comments skipped).
fn read_x(path: &Path) -> Result<Vec<f64>> {
    let bytes = std::fs::read(path)?;
    if !bytes.starts_with(b"\x93NUMPY") {
        let text = String::from_utf8(bytes).map_err(|_| anyhow::anyhow!("not UTF-8 text and not .npy"))?;
        let mut x = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let t = line.trim();
            if t.is_empty() || t.starts_with('#') {
                continue;
            }
            x.push(
                t.parse()
                    .map_err(|_| anyhow::anyhow!("line {}: {t:?} is not a number", i + 1))?,
            );
        }
        return Ok(x);
    }
    let bad = |why: &str| anyhow::anyhow!("bad .npy file: {why}");
    if bytes.len() < 10 {
        bail!(bad("truncated header"));
    }
    let (header_len, start) = match bytes[6] {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10),
        2 | 3 if bytes.len() >= 12 => (
            u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize,
            12,
        ),
        _ => bail!(bad("unknown version")),
    };
    let header = bytes
        .get(start..start + header_len)
        .ok_or_else(|| bad("truncated header"))?;
    let header = String::from_utf8_lossy(header).replace(' ', "");
    if header.contains("'fortran_order':True") {
        bail!(bad("Fortran order"));
    }
    let field = |key: &str| -> Option<String> {
        let at = header.find(&format!("'{key}':"))? + key.len() + 3;
        let rest = &header[at..];
        let end = if rest.starts_with('(') {
            rest.find(')')? + 1
        } else {
            rest.find(',')?
        };
        Some(rest[..end].trim_matches('\'').to_string())
    };
    let descr = field("descr").ok_or_else(|| bad("no descr"))?;
    let shape = field("shape").ok_or_else(|| bad("no shape"))?;
    let dims: Vec<&str> = shape
        .trim_matches(|c| c == '(' || c == ')')
        .split(',')
        .filter(|d| !d.is_empty())
        .collect();
    let count: usize = match dims.as_slice() {
        [d] => d.parse().map_err(|_| bad("bad shape"))?,
        _ => bail!(bad("x must be a 1-D array")),
    };
    let data = &bytes[start + header_len..];
    let width = match descr.as_str() {
        "<f8" | "<i8" => 8,
        "<f4" | "<i4" => 4,
        other => bail!(bad(&format!("dtype {other} (use f8, f4, i8 or i4, little-endian)"))),
    };
    if data.len() < count * width {
        bail!(bad("truncated data"));
    }
    let x = data[..count * width]
        .chunks_exact(width)
        .map(|c| match descr.as_str() {
            "<f8" => f64::from_le_bytes(c.try_into().expect("8 bytes")),
            "<i8" => i64::from_le_bytes(c.try_into().expect("8 bytes")) as f64,
            "<f4" => f32::from_le_bytes(c.try_into().expect("4 bytes")) as f64,
            _ => i32::from_le_bytes(c.try_into().expect("4 bytes")) as f64,
        })
        .collect();
    Ok(x)
}
