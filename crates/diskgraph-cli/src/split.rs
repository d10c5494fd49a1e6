//! `diskgraph split`: a graph cut into parts for workers on several machines.

use std::path::PathBuf;

use anyhow::{Context, Result};
use diskgraph_format::OutputPaths;
use diskgraph_prep::SplitOptions;

use crate::progress::Bar;

/// Arguments of `diskgraph split`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Graph directory.
    graph: PathBuf,
    /// Number of parts N (1 to 256): R×C with R the largest divisor of N not above √N; each
    /// row of sources and each column of a row's destinations holds about equal arcs.
    #[arg(long)]
    parts: u32,
    /// The split directory to write (a graph directory per part, and split.json).
    #[arg(short, long)]
    output: PathBuf,
    /// Replace an existing split directory.
    #[arg(long)]
    force: bool,
}

/// Runs `diskgraph split`.
pub fn run(a: Args) -> Result<()> {
    OutputPaths::new().reads("GRAPH", &a.graph).writes("-o", &a.output)?;
    let opts = SplitOptions {
        parts: a.parts,
        force: a.force,
    };
    let s = diskgraph_prep::split(&a.graph, &a.output, &opts, &mut Bar::new(false))
        .with_context(|| format!("cannot split {}", a.graph.display()))?;
    let arcs: u64 = s.part_arcs.iter().sum();
    println!(
        "{}: {} parts ({}×{}), {arcs} arcs, largest part {:.3}× the mean",
        s.path.display(),
        s.part_arcs.len(),
        s.rows,
        s.cols,
        s.balance
    );
    println!(
        "wrote {:.1} MiB in {:.2} s",
        s.bytes_written as f64 / (1u64 << 20) as f64,
        s.seconds
    );
    Ok(())
}
