//! Writing a graph back out as text, in original IDs: GAP `.el`/`.wel`, SNAP text, or Matrix
//! Market; or as CSV (`source,target[,weight]` header, quoted as needed), which writes vertex
//! names when the graph has them (and original IDs otherwise), so a graph imported from a CSV of
//! names exports back to one. Undirected graphs write each edge once (source ≤ target); Matrix
//! Market writes them as `symmetric`. Matrix Market is 1-based: a graph whose IDs include 0 is
//! written with every ID shifted by one, and a comment line says so.

use std::io::{BufWriter, Write};
use std::path::Path;

use anyhow::{bail, Context, Result};
use diskgraph_format::{Direction, GraphDir, VertexNames};

/// Text formats `export` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExportFormat {
    /// `u v` per line, no header.
    El,
    /// `u v w` per line, no header (weighted graphs only).
    Wel,
    /// SNAP text: `#` header, then `u<TAB>v[<TAB>w]`.
    Snap,
    /// Matrix Market coordinate (pattern or real; general or symmetric).
    Mtx,
    /// CSV with a header, vertex names (or IDs), and weights if any.
    Csv,
}

impl ExportFormat {
    /// Parses `el|wel|snap|mtx|csv`.
    pub fn parse(s: &str) -> Result<Self> {
        Ok(match s {
            "el" => ExportFormat::El,
            "wel" => ExportFormat::Wel,
            "snap" => ExportFormat::Snap,
            "mtx" => ExportFormat::Mtx,
            "csv" => ExportFormat::Csv,
            _ => bail!("unknown export format {s:?} (expected el, wel, snap, mtx or csv)"),
        })
    }
}

/// Writes `graph` to `output` (atomically: a temporary file renamed into place).
pub fn export(graph: &GraphDir, output: &Path, format: ExportFormat, force: bool) -> Result<u64> {
    let m = graph.manifest();
    if format == ExportFormat::Wel && !m.weighted {
        bail!("{}: graph is unweighted; export it as el", graph.path().display());
    }
    if output.exists() && !force {
        bail!(
            "{}: output already exists (use --force to replace it)",
            output.display()
        );
    }
    let csr = graph.load_csr(Direction::Out, true)?;
    let ids = graph.original_ids()?;
    let names = match format {
        ExportFormat::Csv => graph.names()?,
        _ => None,
    };
    let tmp = output.with_file_name(format!(
        ".{}.tmp-{}",
        output
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
        std::process::id()
    ));
    let written = match format {
        ExportFormat::Csv => write_csv(&csr, &ids, names.as_ref(), m, &tmp),
        _ => write_edges(&csr, &ids, m, format, &tmp),
    }
    .with_context(|| format!("cannot write {}", output.display()));
    match written {
        Ok(count) => {
            std::fs::rename(&tmp, output).with_context(|| format!("cannot write {}", output.display()))?;
            Ok(count)
        }
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            Err(e)
        }
    }
}

fn write_edges(
    csr: &diskgraph_format::Csr,
    ids: &[u64],
    m: &diskgraph_format::Manifest,
    format: ExportFormat,
    path: &Path,
) -> Result<u64> {
    let mut w = BufWriter::with_capacity(1 << 20, std::fs::File::create(path)?);
    let with_weight = m.weighted && format != ExportFormat::El;
    let shift = u64::from(format == ExportFormat::Mtx && ids.first() == Some(&0));
    if shift == 1 && ids.last() == Some(&u64::MAX) {
        bail!("Matrix Market is 1-based: a graph with both vertex 0 and vertex 2^64-1 cannot be shifted; use el");
    }
    match format {
        ExportFormat::Mtx => {
            let field = if with_weight { "real" } else { "pattern" };
            let symmetry = if m.directed { "general" } else { "symmetric" };
            writeln!(w, "%%MatrixMarket matrix coordinate {field} {symmetry}")?;
            if shift == 1 {
                writeln!(w, "% diskgraph: IDs shifted by +1 (the graph has vertex 0)")?;
            }
            let size = ids.last().map_or(0, |&x| x + shift);
            writeln!(w, "{size} {size} {}", m.num_edges)?;
        }
        ExportFormat::Snap => {
            let kind = if m.directed { "Directed" } else { "Undirected" };
            writeln!(w, "# {kind} graph exported by diskgraph")?;
            writeln!(w, "# Nodes: {} Edges: {}", m.num_vertices, m.num_edges)?;
            writeln!(w, "# FromNodeId\tToNodeId{}", if with_weight { "\tWeight" } else { "" })?;
        }
        ExportFormat::El | ExportFormat::Wel | ExportFormat::Csv => {}
    }
    let sep = if format == ExportFormat::Snap { '\t' } else { ' ' };
    let mut count = 0u64;
    for u in 0..csr.num_vertices() as u32 {
        let weights = csr.edge_weights(u);
        for (i, &v) in csr.neighbours(u).iter().enumerate() {
            if !m.directed && v < u {
                continue;
            }
            write!(w, "{}{sep}{}", ids[u as usize] + shift, ids[v as usize] + shift)?;
            match weights {
                Some(ws) if with_weight => writeln!(w, "{sep}{}", ws[i])?,
                _ => writeln!(w)?,
            }
            count += 1;
        }
    }
    w.into_inner().map_err(|e| e.into_error())?.sync_all()?;
    Ok(count)
}

/// Writes the edges as CSV: a `source,target[,weight]` header, then one row per edge naming
/// its vertices by name (or original ID).
fn write_csv(
    csr: &diskgraph_format::Csr,
    ids: &[u64],
    names: Option<&VertexNames>,
    m: &diskgraph_format::Manifest,
    path: &Path,
) -> Result<u64> {
    let mut w = csv::Writer::from_writer(BufWriter::with_capacity(1 << 20, std::fs::File::create(path)?));
    match m.weighted {
        true => w.write_record(["source", "target", "weight"])?,
        false => w.write_record(["source", "target"])?,
    }
    let label = |v: u32| -> String {
        let id = ids[v as usize];
        names
            .and_then(|n| n.get(id))
            .map_or_else(|| id.to_string(), str::to_string)
    };
    let mut count = 0u64;
    for u in 0..csr.num_vertices() as u32 {
        let weights = csr.edge_weights(u);
        let source = label(u);
        for (i, &v) in csr.neighbours(u).iter().enumerate() {
            if !m.directed && v < u {
                continue;
            }
            let target = label(v);
            match weights {
                Some(ws) => w.write_record([source.as_str(), target.as_str(), &ws[i].to_string()])?,
                None => w.write_record([source.as_str(), target.as_str()])?,
            }
            count += 1;
        }
    }
    let inner = w.into_inner().map_err(|e| anyhow::anyhow!("{}", e.error()))?;
    inner.into_inner().map_err(|e| e.into_error())?.sync_all()?;
    Ok(count)
}
