//! `diskgraph export`.

use std::path::PathBuf;

use anyhow::Result;
use diskgraph_prep::export::{export, ExportFormat};

/// Arguments of `diskgraph export`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Graph directory.
    graph: PathBuf,
    /// Output file.
    #[arg(short, long)]
    output: PathBuf,
    /// Output format: el|wel|snap|mtx (original IDs) or csv (vertex names when the graph has them).
    #[arg(long, default_value = "el", value_parser = ExportFormat::parse)]
    format: ExportFormat,
    /// Replace an existing output.
    #[arg(long)]
    force: bool,
}

pub fn run(a: Args) -> Result<()> {
    let g = diskgraph_format::GraphDir::open(&a.graph)?;
    if g.manifest().has_names() && a.format != ExportFormat::Csv {
        eprintln!("note: this format writes original IDs; --format csv writes the graph's vertex names");
    }
    let n = export(&g, &a.output, a.format, a.force)?;
    println!("{}: {n} edges written", a.output.display());
    Ok(())
}
