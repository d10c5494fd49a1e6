//! `diskgraph threshold`: the shard engine's memory-threshold curve, as the GSC paper measures
//! GraphChi's (its Figures 2 and 6). One algorithm runs on one shards layout at budgets from
//! the smallest that holds an interval to one that caches every block, each budget with Greedy
//! Shard Caching off (GraphChi: every interval writes back and drops its blocks) and on; the
//! table gives time and bytes read + written, and the threshold — the smallest budget whose
//! time is within 10% of the time at the largest — of each.

use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use diskgraph_algo::registry::{self, RunRequest};
use diskgraph_engine::engine_options::{ENGINE, GSC, LAYOUT, MEMORY};
use diskgraph_engine::options::Value;
use diskgraph_engine::shards::{ShardGraph, ShardOptions};
use diskgraph_engine::{human_bytes, OpenEngine, OpenRequest};
use diskgraph_format::GraphDir;
use serde::Serialize;

/// Arguments of `diskgraph threshold`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Graph directory (with a shards layout: `diskgraph partition GRAPH --shards auto`).
    graph: PathBuf,
    /// Algorithm to run (one the shard engine runs: `diskgraph algorithms`).
    #[arg(long)]
    algo: String,
    /// The shards layout (default: the one the engine picks at the smallest budget).
    #[arg(long)]
    layout: Option<String>,
    /// Number of budgets, spaced geometrically from the smallest to the whole layout.
    #[arg(long, default_value_t = 6, value_parser = clap::value_parser!(u32).range(2..=64))]
    points: u32,
    /// An option of the algorithm, NAME=VALUE (repeatable), e.g. --set iterations=10.
    #[arg(long = "set", value_name = "NAME=VALUE")]
    set: Vec<String>,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

/// One budget's two runs.
#[derive(Serialize)]
struct Point {
    memory: u64,
    graphchi_seconds: f64,
    graphchi_io_bytes: u64,
    gsc_seconds: f64,
    gsc_io_bytes: u64,
}

/// Runs `diskgraph threshold`.
pub fn run(a: Args) -> Result<()> {
    let graph = GraphDir::open(&a.graph).with_context(|| format!("cannot open {}", a.graph.display()))?;
    let alg = registry::find(&a.algo)?;
    let mut base = RunRequest::new(&a.algo).with(&ENGINE, Value::Choice("shards"));
    for s in &a.set {
        let Some((name, value)) = s.split_once('=') else {
            bail!("--set {s:?}: expected NAME=VALUE");
        };
        let spec = registry::option(alg, name)?;
        let value = spec.parse(value).map_err(|e| anyhow::anyhow!("--set {name}: {e}"))?;
        base = base.with(spec, value);
    }
    let mut req = OpenRequest::new(&a.algo, &base.params, 1)?;
    req.memory = u64::MAX;
    let opts = ShardOptions {
        layout: a.layout.clone(),
        ..ShardGraph::options(&graph, &req)?.options
    };
    // Refused here when no shard layout of the graph runs (the error says how to make one).
    ShardGraph::minimum_budget(&graph, &opts)?;
    // The layout the engine picks with all the memory it could want is the one with the fewest
    // shards; the curve runs over it, from the smallest budget the run takes (the engine's
    // least and the run's state).
    let layout = match &a.layout {
        Some(l) => l.clone(),
        None => diskgraph_format::shard_layouts(&graph)
            .into_iter()
            .min_by_key(|r| r.num_shards)
            .map(|r| r.name.clone())
            .expect("minimum_budget found a layout"),
    };
    let base = base.with(&LAYOUT, Value::Text(layout.clone()));
    let smallest = registry::minimum_memory(&graph, &base)?;
    let arcs = graph.manifest().num_arcs;
    // Every block of the three columns (12 bytes an arc) and GSC's reserve beside them.
    let whole = smallest + 16 * arcs;
    let budgets: Vec<u64> = (0..a.points)
        .map(|i| {
            let f = f64::from(i) / f64::from(a.points - 1);
            (smallest as f64 * (whole as f64 / smallest as f64).powf(f)) as u64
        })
        .collect();
    let mut points = Vec::new();
    for &memory in &budgets {
        let one = |gsc: bool| -> Result<(f64, u64)> {
            let req = RunRequest {
                cancel: Some(crate::interrupt::cancel()),
                ..base
                    .clone()
                    .with(&MEMORY, Value::Size(memory))
                    .with(&GSC, Value::Flag(gsc))
            };
            let out = registry::run(&graph, &req)?;
            Ok((
                out.stats.compute_seconds,
                out.stats.bytes_read + out.stats.bytes_written,
            ))
        };
        let (graphchi_seconds, graphchi_io_bytes) = one(false)?;
        let (gsc_seconds, gsc_io_bytes) = one(true)?;
        points.push(Point {
            memory,
            graphchi_seconds,
            graphchi_io_bytes,
            gsc_seconds,
            gsc_io_bytes,
        });
    }
    if a.json {
        println!("{}", serde_json::to_string_pretty(&points)?);
        return Ok(());
    }
    let mib = |b: u64| b as f64 / (1u64 << 20) as f64;
    println!(
        "{} on {} ({layout}), compute time and I/O (read + written):",
        a.algo,
        a.graph.display()
    );
    println!("  memory MiB   GraphChi s   I/O MiB     GSC s    I/O MiB   speedup  I/O ratio");
    for p in &points {
        println!(
            "  {:>10.1} {:>12.3} {:>9.1} {:>9.3} {:>10.1} {:>9.2} {:>10.2}",
            mib(p.memory),
            p.graphchi_seconds,
            mib(p.graphchi_io_bytes),
            p.gsc_seconds,
            mib(p.gsc_io_bytes),
            p.graphchi_seconds / p.gsc_seconds.max(1e-9),
            p.graphchi_io_bytes as f64 / p.gsc_io_bytes.max(1) as f64
        );
    }
    let threshold = |time: &dyn Fn(&Point) -> f64| {
        let last = time(points.last().expect("at least two points"));
        points.iter().find(|p| time(p) <= 1.1 * last).map_or(0, |p| p.memory)
    };
    println!(
        "threshold (time within 10% of the largest budget's): GraphChi {}, GSC {}",
        human_bytes(threshold(&|p| p.graphchi_seconds)),
        human_bytes(threshold(&|p| p.gsc_seconds))
    );
    Ok(())
}
