//! `diskgraph verify`.

use std::path::PathBuf;

use anyhow::Result;

/// Arguments of `diskgraph verify`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Graph directory, or a split directory (`diskgraph split`: every part and the routing).
    graph: PathBuf,
}

pub fn run(a: Args) -> Result<()> {
    let start = std::time::Instant::now();
    let stop = crate::interrupt::cancel();
    let r = match diskgraph_format::is_split_dir(&a.graph) {
        true => diskgraph_format::verify_split_cancellable(&a.graph, &stop)?,
        false => diskgraph_format::verify_cancellable(&a.graph, &stop)?,
    };
    println!(
        "{}: ok ({} files, {:.1} MiB checksummed, {} neighbour IDs checked in {:.2} s)",
        a.graph.display(),
        r.files_checked,
        r.bytes_checked as f64 / (1u64 << 20) as f64,
        r.arcs_checked,
        start.elapsed().as_secs_f64()
    );
    if !r.stale_versions.is_empty() {
        eprintln!(
            "warning: {}: stale layout generations left by an interrupted writer: {} (harmless; the next partition, compress or select removes them)",
            a.graph.display(),
            r.stale_versions.join(", ")
        );
    }
    Ok(())
}
