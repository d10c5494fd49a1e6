//! `diskgraph run ALGO GRAPH`.

use std::path::PathBuf;

use anyhow::{Context, Result};
use diskgraph_algo::registry::{self, RunRequest};
use diskgraph_format::GraphDir;

use crate::output::write_values;
use diskgraph_engine::parse_size;

/// Arguments of `diskgraph run`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Algorithm: bfs, sssp, wcc, scc, pagerank, kcore.
    algorithm: String,
    /// Graph directory.
    graph: PathBuf,
    /// Engine: memory or auto.
    #[arg(long, default_value = "auto")]
    engine: String,
    /// Source of bfs and sssp: an original vertex ID, `smallest` or `max-degree`.
    #[arg(long, default_value = "smallest")]
    source: registry::Source,
    /// Memory budget.
    #[arg(long, default_value = "1GiB", value_parser = parse_size)]
    memory: u64,
    /// Worker threads (all cores by default).
    #[arg(long)]
    threads: Option<usize>,
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
}

pub fn run(a: Args) -> Result<()> {
    let g = GraphDir::open(&a.graph)?;
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
