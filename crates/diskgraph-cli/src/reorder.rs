//! `diskgraph reorder`: write a graph relabelled by an ordering as a new graph directory.

use std::path::PathBuf;

use anyhow::{Context, Result};
use diskgraph_engine::parse_size;
use diskgraph_prep::{Method, ReorderOptions, ReorderSummary};

use crate::progress::Bar;

/// Arguments of `diskgraph reorder`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Graph directory to reorder.
    graph: PathBuf,
    /// Output graph directory (results on it still come out in original IDs).
    #[arg(short, long)]
    output: PathBuf,
    /// Ordering: norder (depth-2 BFS blocks from high in-degree vertices), degree (descending
    /// in-degree), random, pagerank (descending PageRank), gorder (greedy window; holds the whole
    /// graph in memory, O(V+E), and refuses when that exceeds --memory) or original (ascending
    /// original ID; undoes a reordering).
    #[arg(long)]
    method: Method,
    /// Gorder's window. Default: the average number of adjacency lists per 4 KiB page.
    #[arg(long)]
    window: Option<u64>,
    /// Seed of the random ordering (default 0).
    #[arg(long)]
    seed: Option<u64>,
    /// Memory budget: the external sort that writes the new graph, and Gorder's limit. The other
    /// orderings keep O(V) vertex state outside it.
    #[arg(long, default_value = "1GiB", value_parser = parse_size)]
    memory: u64,
    /// Replace an existing output.
    #[arg(long)]
    force: bool,
}

/// Runs `diskgraph reorder`.
pub fn run(a: Args) -> Result<()> {
    let opts = ReorderOptions {
        method: a.method,
        window: a.window,
        seed: a.seed,
        memory: a.memory,
        force: a.force,
    };
    let summary = diskgraph_prep::reorder(&a.graph, &a.output, &opts, &mut Bar::new(false))
        .with_context(|| format!("cannot reorder {}", a.graph.display()))?;
    print_summary(&summary);
    Ok(())
}

/// Prints what a reorder run wrote, with the ordering and writing times apart.
fn print_summary(s: &ReorderSummary) {
    let mib = |b: u64| b as f64 / (1u64 << 20) as f64;
    let window = s.window.map(|w| format!(", window {w}")).unwrap_or_default();
    println!(
        "{}: {} ordering{window}, {} vertices, {} arcs{}",
        s.path.display(),
        s.method,
        s.num_vertices,
        s.num_arcs,
        if s.ids_remapped {
            ", original IDs in ids.u64"
        } else {
            ""
        }
    );
    println!(
        "ordering computed in {:.3} s ({:.1} MiB of state)",
        s.order_seconds,
        mib(s.order_state_bytes)
    );
    println!(
        "graph written in {:.3} s ({:.1} MiB; sort buffer {:.1} MiB, {:.1} MiB of scratch runs)",
        s.write_seconds,
        mib(s.bytes_written),
        mib(s.sort_buffer_bytes),
        mib(s.scratch_bytes)
    );
}
