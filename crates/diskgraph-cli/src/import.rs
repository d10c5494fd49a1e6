//! `diskgraph import`.

use std::path::PathBuf;

use anyhow::Result;
use diskgraph_prep::parse::{open_input, parse_format_name, ParseOptions};
use diskgraph_prep::{ImportOptions, ImportSummary};

use crate::progress::Bar;
use diskgraph_engine::parse_size;

/// Arguments of `diskgraph import`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Input edge list (may be gzip-compressed).
    input: PathBuf,
    /// Output graph directory.
    #[arg(short, long)]
    output: PathBuf,
    /// Input format: auto|snap|konect|mtx|dimacs|el|wel|bin32|bin64|bvgraph (a BVGraph: its basename or .graph file).
    #[arg(long, default_value = "auto", value_parser = parse_format_name)]
    format: diskgraph_prep::parse::FormatChoice,
    /// Store the graph as undirected (each edge in both directions).
    #[arg(long)]
    undirected: bool,
    /// Read weights (3rd column of text edge lists; formats with weights are weighted anyway).
    #[arg(long)]
    weighted: bool,
    /// f32 weight file for bin32/bin64 input, one weight per edge.
    #[arg(long)]
    weights: Option<PathBuf>,
    /// Keep self-loops (dropped by default).
    #[arg(long)]
    keep_self_loops: bool,
    /// Keep duplicate edges (merged by default, keeping the minimum weight).
    #[arg(long)]
    keep_duplicates: bool,
    /// Memory budget for the external sort.
    #[arg(long, default_value = "1GiB", value_parser = parse_size)]
    memory: u64,
    /// Replace an existing output.
    #[arg(long)]
    force: bool,
}

pub fn run(a: Args) -> Result<()> {
    let opts = ParseOptions {
        format: a.format,
        weighted: a.weighted,
        weight_file: a.weights,
    };
    let (mut source, decided) = open_input(&a.input, &opts)?;
    if let Some(msg) = decided {
        eprintln!("{msg}");
    }
    let iopts = ImportOptions {
        undirected: a.undirected,
        keep_self_loops: a.keep_self_loops,
        keep_duplicates: a.keep_duplicates,
        memory: a.memory,
        force: a.force,
    };
    let summary = diskgraph_prep::import(source.as_mut(), &a.output, &iopts, &mut Bar::new(true))?;
    print_summary(&a.output, &summary);
    Ok(())
}

/// Prints what an import or generate did, including its throughput and write volume.
pub fn print_summary(output: &std::path::Path, s: &ImportSummary) {
    let kind = match (s.directed, s.weighted) {
        (true, true) => "directed, weighted",
        (true, false) => "directed",
        (false, true) => "undirected, weighted",
        (false, false) => "undirected",
    };
    println!(
        "{}: {} vertices, {} edges ({kind})",
        output.display(),
        s.num_vertices,
        s.num_edges
    );
    println!(
        "read {} input edges in {:.2} s ({:.2} M edges/s); dropped {} self-loops, merged {} duplicate arcs{}",
        s.input_edges,
        s.seconds,
        s.input_edges as f64 / s.seconds.max(1e-9) / 1e6,
        s.self_loops_dropped,
        s.duplicates_merged,
        if s.ids_remapped { "; IDs remapped (ids.u64)" } else { "" }
    );
    println!(
        "wrote {:.1} MiB ({:.1} bytes per input edge, scratch included)",
        s.bytes_written as f64 / (1u64 << 20) as f64,
        s.bytes_written as f64 / s.input_edges.max(1) as f64
    );
    let phases: Vec<String> = s
        .phase_seconds
        .iter()
        .map(|(name, t)| format!("{name} {t:.2} s"))
        .collect();
    println!("phases: {}", phases.join(", "));
}
