//! `diskgraph reorder`: write a graph relabelled by an ordering as a new graph directory.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result};
use diskgraph_engine::parse_size;
use diskgraph_format::OutputPaths;
use diskgraph_prep::reorder::GorderCheckpoint;
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
    /// Gorder's window. Default: the average number of adjacency lists per page (--page-size).
    #[arg(long)]
    window: Option<u64>,
    /// Gorder's default window is the average number of lists per page of this size (the
    /// paper's: the page cache's page) [default: 4KiB].
    #[arg(long, value_parser = parse_size)]
    page_size: Option<u64>,
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
    /// Gorder only: save its state to this file every --checkpoint-every seconds, and resume
    /// from it when it exists (same graph and window). Removed once the ordering is complete.
    #[arg(long)]
    checkpoint: Option<PathBuf>,
    /// Seconds between checkpoint saves.
    #[arg(long, default_value_t = 600.0, requires = "checkpoint", value_parser = seconds)]
    checkpoint_every: f64,
    /// Save the checkpoint and stop (exit status 75) once this run has lasted this many
    /// seconds; run the same command again to go on.
    #[arg(long, requires = "checkpoint", value_parser = seconds)]
    time_limit: Option<f64>,
}

/// A non-negative number of seconds.
fn seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if x >= 0.0 && x.is_finite() => Ok(x),
        _ => Err(format!("{s:?} is not a number of seconds (>= 0)")),
    }
}

/// Runs `diskgraph reorder`.
pub fn run(a: Args) -> Result<()> {
    let mut paths = OutputPaths::new();
    paths.reads("GRAPH", &a.graph).writes("-o", &a.output)?;
    if let Some(checkpoint) = &a.checkpoint {
        paths.writes("--checkpoint", checkpoint)?;
    }
    let opts = ReorderOptions {
        method: a.method,
        window: a.window,
        page_bytes: a.page_size,
        seed: a.seed,
        memory: a.memory,
        force: a.force,
        checkpoint: a.checkpoint.map(|path| GorderCheckpoint {
            path,
            every: Duration::from_secs_f64(a.checkpoint_every),
            time_limit: a.time_limit.map(Duration::from_secs_f64),
        }),
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
    let resumed = match s.order_seconds_before_resume {
        0.0 => String::new(),
        earlier => format!(", {earlier:.3} s of it in earlier runs"),
    };
    println!(
        "ordering computed in {:.3} s ({:.1} MiB of state{resumed})",
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
