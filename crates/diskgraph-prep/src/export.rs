//! Writing a graph back out in original IDs: as text (GAP `.el`/`.wel`, SNAP text, Matrix
//! Market), as raw binary pairs (`bin32`/`bin64`: little-endian IDs, the edges only, what
//! `import --format bin32|bin64` reads; streamed from the lists, so any size exports in a few
//! MiB), or as Parquet (columns `src`, `dst` and, for a weighted graph, `weight`: what
//! `diskgraph.from_parquet` reads); or as CSV (`source,target[,weight]` header), which writes
//! vertex names when the graph has them (original IDs otherwise), quoting each name the
//! importer would otherwise read differently, so a graph imported from a CSV of names exports
//! back to one whose names read back byte for byte. Undirected graphs write each edge once
//! (source ≤ target); Matrix Market writes them as `symmetric`. Matrix Market is 1-based: a graph whose IDs
//! include 0 is written with every ID shifted by one, and a comment line says so.

use std::io::{BufWriter, Write};
use std::path::Path;

use anyhow::{bail, Context, Result};
use diskgraph_format::{Direction, GraphDir, OutputPaths, VertexNames};

use crate::progress::{stop_point, Ticker};
use crate::Progress;

use crate::parse::rows::write_field;

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
    /// Parquet: UINT64 columns `src` and `dst`, and FLOAT `weight` for a weighted graph, in row
    /// groups of [`PARQUET_ROWS`] edges.
    Parquet,
    /// CSV with a header, vertex names (or IDs), and weights if any.
    Csv,
    /// Little-endian `u32` pairs, no header, no weights (every ID below 2³²).
    Bin32,
    /// Little-endian `u64` pairs, no header, no weights.
    Bin64,
}

/// Edges per Parquet row group.
pub const PARQUET_ROWS: usize = 1 << 20;

/// File extensions and the format each names: `txt` and `tsv` name no format of their own
/// (SNAP text unless one is asked for).
pub const EXTENSIONS: &[(&str, ExportFormat)] = &[
    ("el", ExportFormat::El),
    ("wel", ExportFormat::Wel),
    ("snap", ExportFormat::Snap),
    ("txt", ExportFormat::Snap),
    ("tsv", ExportFormat::Snap),
    ("mtx", ExportFormat::Mtx),
    ("parquet", ExportFormat::Parquet),
    ("csv", ExportFormat::Csv),
    ("bin32", ExportFormat::Bin32),
    ("bin64", ExportFormat::Bin64),
];

impl ExportFormat {
    /// Parses `el|wel|snap|mtx|parquet|csv|bin32|bin64`.
    pub fn parse(s: &str) -> Result<Self> {
        Ok(match s {
            "el" => ExportFormat::El,
            "wel" => ExportFormat::Wel,
            "snap" => ExportFormat::Snap,
            "mtx" => ExportFormat::Mtx,
            "parquet" => ExportFormat::Parquet,
            "csv" => ExportFormat::Csv,
            "bin32" => ExportFormat::Bin32,
            "bin64" => ExportFormat::Bin64,
            _ => bail!("unknown export format {s:?} (expected el, wel, snap, mtx, parquet, csv, bin32 or bin64)"),
        })
    }

    /// The format's name, as [`ExportFormat::parse`] reads it.
    pub fn name(self) -> &'static str {
        match self {
            ExportFormat::El => "el",
            ExportFormat::Wel => "wel",
            ExportFormat::Snap => "snap",
            ExportFormat::Mtx => "mtx",
            ExportFormat::Parquet => "parquet",
            ExportFormat::Csv => "csv",
            ExportFormat::Bin32 => "bin32",
            ExportFormat::Bin64 => "bin64",
        }
    }

    /// Whether the format is text.
    pub fn is_text(self) -> bool {
        !matches!(self, ExportFormat::Parquet | ExportFormat::Bin32 | ExportFormat::Bin64)
    }
}

/// Writes `graph` to `output` (atomically: a temporary file renamed into place). Progress counts
/// the edges written; a stop `progress` asks for (polled every 2^20 edges and before the rename)
/// ends it with [`Interrupted`](crate::Interrupted), the temporary file removed and `output`
/// untouched.
pub fn export(
    graph: &GraphDir,
    output: &Path,
    format: ExportFormat,
    force: bool,
    progress: &mut dyn Progress,
) -> Result<u64> {
    let m = graph.manifest();
    if format == ExportFormat::Wel && !m.weighted {
        bail!("{}: graph is unweighted; export it as el", graph.path().display());
    }
    OutputPaths::new()
        .reads("graph", graph.path())
        .writes("output", output)?;
    if output.exists() && !force {
        bail!(
            "{}: output already exists (use {} to replace it)",
            output.display(),
            diskgraph_io::spelling::switch("force")
        );
    }
    let binary = matches!(format, ExportFormat::Bin32 | ExportFormat::Bin64);
    // The binary formats stream the lists: a graph that names each vertex by itself needs no
    // ID table for them (8 bytes a vertex).
    let ids = match binary && !m.ids_remapped {
        true => Vec::new(),
        false => graph.original_ids()?,
    };
    if format == ExportFormat::Bin32 && ids.last().is_some_and(|&id| id > u64::from(u32::MAX)) {
        bail!(
            "{}: vertex IDs reach {}, beyond bin32's 2^32; export it as bin64",
            graph.path().display(),
            ids.last().copied().unwrap_or(0)
        );
    }
    let csr = match binary {
        true => None,
        false => {
            progress.phase("loading lists", None);
            Some(graph.load_csr(Direction::Out, true)?)
        }
    };
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
    stop_point(progress)?;
    progress.phase("writing edges", Some(m.num_edges));
    let written = match (format, &csr) {
        (ExportFormat::Parquet, Some(csr)) => write_parquet(csr, &ids, m, &tmp, progress),
        (ExportFormat::Csv, Some(csr)) => write_csv(csr, &ids, names.as_ref(), m, &tmp, progress),
        (_, Some(csr)) => write_edges(csr, &ids, m, format, &tmp, progress),
        (_, None) => {
            let ids = m.ids_remapped.then_some(ids.as_slice());
            write_binary(graph, ids, format == ExportFormat::Bin64, &tmp, progress)
        }
    }
    .and_then(|count| stop_point(progress).map(|()| count))
    .with_context(|| format!("cannot write {}", output.display()));
    match written {
        Ok(count) => {
            std::fs::rename(&tmp, output).with_context(|| format!("cannot write {}", output.display()))?;
            progress.finish();
            Ok(count)
        }
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            Err(e)
        }
    }
}

/// Bytes of the lists read at once by [`write_binary`].
const STREAM_BUFFER: usize = 4 << 20;

/// Writes the edges of `graph` (undirected ones once, source ≤ target) as little-endian pairs of
/// original IDs (`ids`, or the vertices themselves when `None`), `u64`s when `wide`, else `u32`s
/// (checked to fit by the caller), reading the lists as a stream.
fn write_binary(
    graph: &GraphDir,
    ids: Option<&[u64]>,
    wide: bool,
    path: &Path,
    progress: &mut dyn Progress,
) -> Result<u64> {
    let id = |v: u32| ids.map_or(u64::from(v), |ids| ids[v as usize]);
    let directed = graph.manifest().directed;
    let mut w = BufWriter::with_capacity(1 << 20, std::fs::File::create(path)?);
    let mut arcs = diskgraph_format::ArcStream::open(graph, Direction::Out, false, STREAM_BUFFER)?;
    let mut write = |id: u64| match wide {
        true => w.write_all(&id.to_le_bytes()),
        false => w.write_all(&(id as u32).to_le_bytes()),
    };
    let (mut count, mut ticker) = (0u64, Ticker::new());
    while let Some((u, _)) = arcs.next_vertex()? {
        while let Some((v, _)) = arcs.next_arc()? {
            if !directed && v < u {
                continue;
            }
            write(id(u))?;
            write(id(v))?;
            count += 1;
            ticker.tick(progress, count)?;
        }
    }
    w.into_inner().map_err(|e| e.into_error())?.sync_all()?;
    Ok(count)
}

fn write_edges(
    csr: &diskgraph_format::Csr,
    ids: &[u64],
    m: &diskgraph_format::Manifest,
    format: ExportFormat,
    path: &Path,
    progress: &mut dyn Progress,
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
        ExportFormat::El
        | ExportFormat::Wel
        | ExportFormat::Parquet
        | ExportFormat::Csv
        | ExportFormat::Bin32
        | ExportFormat::Bin64 => {}
    }
    let sep = if format == ExportFormat::Snap { '\t' } else { ' ' };
    let mut count = 0u64;
    let mut ticker = Ticker::new();
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
            ticker.tick(progress, count)?;
        }
    }
    w.into_inner().map_err(|e| e.into_error())?.sync_all()?;
    Ok(count)
}

/// Writes the edges of `csr` (in original IDs `ids`; undirected ones once, source ≤ target) as
/// Parquet (see [`ExportFormat::Parquet`]).
fn write_parquet(
    csr: &diskgraph_format::Csr,
    ids: &[u64],
    m: &diskgraph_format::Manifest,
    path: &Path,
    progress: &mut dyn Progress,
) -> Result<u64> {
    use parquet::data_type::{FloatType, Int64Type};
    use parquet::file::properties::WriterProperties;
    use parquet::file::writer::SerializedFileWriter;
    use parquet::schema::parser::parse_message_type;

    let weight = if m.weighted { "REQUIRED FLOAT weight;" } else { "" };
    let schema = format!(
        "message edges {{ REQUIRED INT64 src (INTEGER(64,false)); REQUIRED INT64 dst (INTEGER(64,false)); {weight} }}"
    );
    let schema = std::sync::Arc::new(parse_message_type(&schema)?);
    let props = std::sync::Arc::new(WriterProperties::builder().build());
    let mut writer = SerializedFileWriter::new(std::fs::File::create(path)?, schema, props)?;
    // One row group's columns; unsigned IDs are stored as their INT64 bit patterns.
    let (mut src, mut dst, mut w) = (Vec::new(), Vec::new(), Vec::new());
    let mut count = 0u64;
    let mut ticker = Ticker::new();
    let mut flush = |src: &mut Vec<i64>, dst: &mut Vec<i64>, w: &mut Vec<f32>| -> Result<()> {
        let mut rg = writer.next_row_group()?;
        let mut column = 0;
        while let Some(mut col) = rg.next_column()? {
            match column {
                0 => col.typed::<Int64Type>().write_batch(src, None, None)?,
                1 => col.typed::<Int64Type>().write_batch(dst, None, None)?,
                _ => col.typed::<FloatType>().write_batch(w, None, None)?,
            };
            col.close()?;
            column += 1;
        }
        rg.close()?;
        src.clear();
        dst.clear();
        w.clear();
        Ok(())
    };
    for u in 0..csr.num_vertices() as u32 {
        let weights = csr.edge_weights(u);
        for (i, &v) in csr.neighbours(u).iter().enumerate() {
            if !m.directed && v < u {
                continue;
            }
            src.push(ids[u as usize] as i64);
            dst.push(ids[v as usize] as i64);
            if let Some(ws) = weights {
                w.push(ws[i]);
            }
            count += 1;
            ticker.tick(progress, count)?;
            if src.len() == PARQUET_ROWS {
                flush(&mut src, &mut dst, &mut w)?;
            }
        }
    }
    if !src.is_empty() || count == 0 {
        flush(&mut src, &mut dst, &mut w)?;
    }
    writer.into_inner()?.sync_all()?;
    Ok(count)
}

/// Writes the edges as CSV: a `source,target[,weight]` header, then one row per edge naming
/// its vertices by name (or original ID). Names are quoted where the importer would otherwise
/// read them differently ([`write_field`]), so every name reads back byte for byte.
fn write_csv(
    csr: &diskgraph_format::Csr,
    ids: &[u64],
    names: Option<&VertexNames>,
    m: &diskgraph_format::Manifest,
    path: &Path,
    progress: &mut dyn Progress,
) -> Result<u64> {
    let mut w = BufWriter::with_capacity(1 << 20, std::fs::File::create(path)?);
    match m.weighted {
        true => w.write_all(b"source,target,weight\n")?,
        false => w.write_all(b"source,target\n")?,
    }
    let write_vertex = |w: &mut BufWriter<std::fs::File>, v: u32| -> std::io::Result<()> {
        let id = ids[v as usize];
        match names.and_then(|n| n.get(id)) {
            Some(name) => write_field(w, name, b','),
            None => write!(w, "{id}"),
        }
    };
    let mut count = 0u64;
    let mut ticker = Ticker::new();
    for u in 0..csr.num_vertices() as u32 {
        let weights = csr.edge_weights(u);
        for (i, &v) in csr.neighbours(u).iter().enumerate() {
            if !m.directed && v < u {
                continue;
            }
            write_vertex(&mut w, u)?;
            w.write_all(b",")?;
            write_vertex(&mut w, v)?;
            match weights {
                Some(ws) => writeln!(w, ",{}", ws[i])?,
                None => writeln!(w)?,
            }
            count += 1;
            ticker.tick(progress, count)?;
        }
    }
    w.into_inner().map_err(|e| e.into_error())?.sync_all()?;
    Ok(count)
}
