//! `diskgraph cost`: the I/O cost model and locality figures of a graph's ordering.

use std::path::PathBuf;

use anyhow::{Context, Result};

/// Arguments of `diskgraph cost`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Graph directory.
    graph: PathBuf,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

/// Runs `diskgraph cost`.
pub fn run(a: Args) -> Result<()> {
    let r = diskgraph_prep::cost::cost(&a.graph).with_context(|| format!("cannot cost {}", a.graph.display()))?;
    if a.json {
        println!("{}", serde_json::to_string_pretty(&r)?);
        return Ok(());
    }
    println!(
        "{}: ordering {}, {} vertices, {} arcs",
        a.graph.display(),
        r.ordering,
        r.num_vertices,
        r.num_arcs
    );
    println!(
        "io cost     {:.6e}  (Σ in-degree(v)·σ²(neighbour IDs of v); {:.4} of random IDs)",
        r.cost, r.cost_vs_random
    );
    println!(
        "mean gap    {:.1}  (mean |u − v| over arcs; {:.4} of random IDs)",
        r.mean_gap, r.gap_vs_random
    );
    println!(
        "neighbours  {:.2} pages of 4 KiB hold the lists of a vertex's out-neighbours ({:.1}% of their bytes used)",
        r.neighbourhood_pages,
        100.0 * r.page_utility
    );
    Ok(())
}
