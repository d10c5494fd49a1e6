//! `diskgraph export`: the format follows the output's extension unless `--format` says
//! otherwise, and the output is checked before the graph is read.

use std::path::{Path, PathBuf};

use anyhow::{bail, Result};
use diskgraph_prep::export::{export, ExportFormat, EXTENSIONS};

use crate::out_path;
use crate::progress::Bar;

/// Arguments of `diskgraph export`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Graph directory.
    graph: PathBuf,
    /// Output file: .el, .wel, .snap, .mtx, .parquet, .csv, or .txt/.tsv (SNAP text unless --format says otherwise).
    #[arg(short, long)]
    output: PathBuf,
    /// Output format: el|wel|snap|mtx|parquet|bin32|bin64 (original IDs; bin32 and bin64 raw little-endian pairs, edges only) or csv (vertex names when the graph has them) [default: by the output's extension].
    #[arg(long, value_parser = ExportFormat::parse)]
    format: Option<ExportFormat>,
    /// Replace an existing output.
    #[arg(long)]
    force: bool,
}

pub fn run(a: Args) -> Result<()> {
    let known: Vec<&str> = EXTENSIONS.iter().map(|(ext, _)| *ext).collect();
    out_path::check_output(&a.output, "-o", &known, a.force)?;
    diskgraph_format::OutputPaths::new()
        .reads("GRAPH", &a.graph)
        .writes("-o", &a.output)?;
    let format = format_of(&a.output, a.format)?;
    let g = diskgraph_format::GraphDir::open(&a.graph)?;
    if g.manifest().has_names() && format != ExportFormat::Csv {
        eprintln!(
            "note: {} writes original IDs; csv (a .csv output) writes the graph's vertex names",
            format.name()
        );
    }
    let n = export(&g, &a.output, format, a.force, &mut Bar::new(false))?;
    println!("{}: {n} edges written", a.output.display());
    Ok(())
}

/// The format to write `output` in: `asked` if given, else the one its extension names. A
/// `.txt` or `.tsv` file takes any text format; another extension only its own.
fn format_of(output: &Path, asked: Option<ExportFormat>) -> Result<ExportFormat> {
    let ext = out_path::extension(output);
    let named = EXTENSIONS
        .iter()
        .find(|(e, _)| *e == ext)
        .map(|&(_, f)| f)
        .expect("the extension was checked");
    let generic = matches!(ext.as_str(), "txt" | "tsv");
    match asked {
        None => Ok(named),
        Some(f) if f == named || (generic && f.is_text()) => Ok(f),
        Some(f) => bail!(
            "-o {} names a .{ext} file, and --format is {}: name it .{} or leave --format out",
            output.display(),
            f.name(),
            f.name()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_extension_names_the_format() {
        let of = |p: &str, f: Option<ExportFormat>| format_of(Path::new(p), f);
        assert_eq!(of("g.parquet", None).unwrap(), ExportFormat::Parquet);
        assert_eq!(of("g.MTX", None).unwrap(), ExportFormat::Mtx);
        assert_eq!(of("g.txt", None).unwrap(), ExportFormat::Snap);
        assert_eq!(of("g.tsv", Some(ExportFormat::El)).unwrap(), ExportFormat::El);
        assert_eq!(of("g.wel", Some(ExportFormat::Wel)).unwrap(), ExportFormat::Wel);
        let e = of("g.parquet", Some(ExportFormat::El)).unwrap_err().to_string();
        assert!(e.contains("--format is el: name it .el"), "{e}");
        assert!(of("g.txt", Some(ExportFormat::Parquet)).is_err());
    }
}
