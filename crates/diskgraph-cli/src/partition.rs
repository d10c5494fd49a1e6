//! `diskgraph partition`: publish a grid layout, or GraphChi's shards (`--shards`), inside a
//! graph directory.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use diskgraph_engine::parse_size;
use diskgraph_format::{human_minimum, Codec};
use diskgraph_prep::{PartitionOptions, PartitionSummary, ShardOptions, ShardSummary, SortOrder};

use crate::progress::Bar;

/// Arguments of `diskgraph partition`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Graph directory.
    graph: PathBuf,
    /// Number of vertex ranges P (P×P blocks; P×1 with `--sort source`), 1 to 4096. Default: the
    /// smallest power of two with ceil(V/P)·8 bytes ≤ memory/16, at most 256.
    #[arg(long)]
    grid: Option<u32>,
    /// Order inside blocks: grid (src, dst), source (P×1 stripes, globally source-sorted) or
    /// destination (dst, src).
    #[arg(long, default_value = "grid")]
    sort: SortOrder,
    /// Publish GraphChi's shards for the shards engine instead of a grid layout: N shards
    /// (1 to 4096) as `shards-N`, or `auto`: a layout the shards engine runs within --memory,
    /// N and the block size priced by the engine's own formula (refused, naming the smallest
    /// budget that would work, when none fits).
    #[arg(long, value_name = "N|auto", value_parser = parse_shards, conflicts_with_all = ["grid", "sort"])]
    shards: Option<ShardCount>,
    /// With `--shards`: the shards engine's edge-value block size (its scratch column's and its
    /// cache's unit), a multiple of 4 KiB from 4 KiB to 64 MiB. Default: chosen with N for
    /// --memory, at most the mean window's column and 1 MiB.
    #[arg(long, value_name = "SIZE", value_parser = parse_size, requires = "shards")]
    block_size: Option<u64>,
    /// Compress the blocks with this codec (layout `grid-P…-CODEC`, about half the bytes or
    /// less; orders `grid`, `source` and `destination`), or with `--shards` the windows
    /// (layout `shards-N-CODEC`).
    #[arg(long, value_name = "CODEC")]
    compress: Option<Codec>,
    /// Memory budget (with `--shards`, also the shards engine's budget the layout is made for).
    #[arg(long, default_value = "1GiB", value_parser = parse_size)]
    memory: u64,
    /// Replace an existing layout of the same name.
    #[arg(long)]
    force: bool,
}

/// The value of `--shards`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ShardCount {
    /// Chosen from `--memory`.
    Auto,
    /// Exactly this many.
    Fixed(u32),
}

/// Parses `--shards`: `auto` or a count.
fn parse_shards(s: &str) -> Result<ShardCount, String> {
    match s {
        "auto" => Ok(ShardCount::Auto),
        _ => s
            .parse()
            .map(ShardCount::Fixed)
            .map_err(|_| format!("{s:?} is neither a number of shards nor auto")),
    }
}

/// Runs `diskgraph partition`.
pub fn run(a: Args) -> Result<()> {
    if let Some(count) = a.shards {
        let opts = ShardOptions {
            shards: match count {
                ShardCount::Auto => None,
                ShardCount::Fixed(n) => Some(n),
            },
            memory: a.memory,
            block_bytes: a.block_size,
            force: a.force,
            compress: a.compress,
        };
        let summary = diskgraph_prep::partition_shards(&a.graph, &opts, &mut Bar::new(false))
            .with_context(|| format!("cannot partition {} into shards", a.graph.display()))?;
        print_shard_summary(&summary);
        return Ok(());
    }
    let opts = PartitionOptions {
        grid: a.grid,
        memory: a.memory,
        force: a.force,
        compress: a.compress,
    };
    let summary = diskgraph_prep::partition(&a.graph, a.sort, &opts, &mut Bar::new(false))
        .with_context(|| format!("cannot partition {}", a.graph.display()))?;
    print_summary(&summary);
    Ok(())
}

/// Prints what a partition run wrote.
fn print_summary(s: &PartitionSummary) {
    let chosen = if s.grid_from_budget {
        ", P chosen from --memory"
    } else {
        ""
    };
    println!(
        "{}: {}×{} blocks, {} vertices per range, {} order{chosen}",
        layout_label(&s.path, &s.name),
        s.rows,
        s.cols,
        s.row_len,
        s.sort
    );
    print_written(s.num_arcs, s.bytes_written, s.seconds, s.peak_memory);
}

/// Prints what a shard partition run wrote.
fn print_shard_summary(s: &ShardSummary) {
    let chosen = match (s.shards_from_budget, s.block_from_budget) {
        (true, true) => ", N and block size chosen from --memory",
        (true, false) => ", N chosen from --memory",
        (false, true) => ", block size chosen from --memory",
        (false, false) => "",
    };
    println!(
        "{}: {} shards, largest {} arcs, {} KiB edge-value blocks{chosen}; the shards engine runs it in --memory {} or more",
        layout_label(&s.path, &s.name),
        s.num_shards,
        s.largest_shard,
        s.block_bytes >> 10,
        human_minimum(s.min_memory)
    );
    print_written(s.num_arcs, s.bytes_written, s.seconds, s.peak_memory);
}

/// The layout written at `path` as `--layout` names it (`g/grid-4`), with the directory it
/// went to when that is a later generation (`g/grid-4 (in grid-4.v1/)`).
fn layout_label(path: &Path, name: &str) -> String {
    let graph = path.parent().unwrap_or(path).join(name);
    match path.file_name() {
        Some(dir) if dir != name => format!("{} (in {}/)", graph.display(), dir.to_string_lossy()),
        _ => graph.display().to_string(),
    }
}

/// The second line of a summary: what was written, how fast, in what memory.
fn print_written(arcs: u64, bytes: u64, seconds: f64, memory: u64) {
    let mib = |b: u64| b as f64 / (1u64 << 20) as f64;
    println!(
        "wrote {arcs} edges, {:.1} MiB in {seconds:.2} s (planned memory {:.1} MiB)",
        mib(bytes),
        mib(memory)
    );
}
