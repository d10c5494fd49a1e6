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
    /// Output format: el|wel|snap|mtx.
    #[arg(long, default_value = "el", value_parser = ExportFormat::parse)]
    format: ExportFormat,
    /// Replace an existing output.
    #[arg(long)]
    force: bool,
}

pub fn run(a: Args) -> Result<()> {
    let g = diskgraph_format::GraphDir::open(&a.graph)?;
    let n = export(&g, &a.output, a.format, a.force)?;
    println!("{}: {n} edges written", a.output.display());
    Ok(())
}
