//! `diskgraph compress`: publish a compressed copy of a graph's adjacency lists
//! (`compressed-<codec>/`) that the memory, selective and sync engines read instead of the plain
//! lists.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use diskgraph_format::{compress_cancellable, Codec, GraphDir};

/// Arguments of `diskgraph compress`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Graph directory.
    graph: PathBuf,
    /// List encoding: vbyte (Stream VByte over gaps: fast to decode) or another codec
    /// `diskgraph compress --help` lists.
    #[arg(long, default_value = "vbyte", value_parser = parse_codec)]
    codec: Codec,
    /// Replace an existing compressed layout of the same codec.
    #[arg(long)]
    force: bool,
}

/// Parses a codec's name.
pub fn parse_codec(s: &str) -> Result<Codec, String> {
    s.parse()
}

/// Runs `diskgraph compress`.
pub fn run(a: Args) -> Result<()> {
    compress_graph(&a.graph, a.codec, a.force)
}

/// Compresses the graph at `path` with `codec` and prints what it made.
pub fn compress_graph(path: &Path, codec: Codec, force: bool) -> Result<()> {
    let g = GraphDir::open(path)?;
    let r = compress_cancellable(&g, codec, force, &crate::interrupt::cancel())
        .with_context(|| format!("cannot compress {}", path.display()))?;
    println!(
        "{}: {} arcs in {:.3} bytes per arc ({:.1} MiB, {:.1}% of the plain lists' {:.1} MiB), {codec} codec, encoded in {:.2} s",
        r.path.display(),
        r.arcs,
        r.bytes_per_arc(),
        r.list_bytes as f64 / (1u64 << 20) as f64,
        100.0 * r.list_bytes as f64 / r.plain_bytes.max(1) as f64,
        r.plain_bytes as f64 / (1u64 << 20) as f64,
        r.seconds
    );
    Ok(())
}
