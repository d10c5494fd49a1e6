//! `diskgraph partition`: publish a grid layout inside a graph directory.

use std::path::PathBuf;

use anyhow::{Context, Result};
use diskgraph_engine::parse_size;
use diskgraph_prep::{PartitionOptions, PartitionSummary, SortOrder};

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
    /// Memory budget.
    #[arg(long, default_value = "1GiB", value_parser = parse_size)]
    memory: u64,
    /// Replace an existing layout of the same name.
    #[arg(long)]
    force: bool,
}

/// Runs `diskgraph partition`.
pub fn run(a: Args) -> Result<()> {
    let opts = PartitionOptions {
        grid: a.grid,
        memory: a.memory,
        force: a.force,
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
        s.path.display(),
        s.rows,
        s.cols,
        s.row_len,
        s.sort
    );
    println!(
        "wrote {} edges, {:.1} MiB in {:.2} s (planned memory {:.1} MiB)",
        s.num_arcs,
        s.bytes_written as f64 / (1u64 << 20) as f64,
        s.seconds,
        s.peak_memory as f64 / (1u64 << 20) as f64
    );
}
