//! The import pipeline: any [`EdgeSource`] to a published graph directory, under a memory budget.
//!
//! 1. **Ingest.** Edges stream from the source; every endpoint goes into the ID collector
//!    (so IDs seen only in dropped self-loops still become vertices), self-loops are dropped
//!    unless kept, undirected edges are stored both ways, and the edges go into an external
//!    sorter keyed by original (source, target, weight).
//! 2. **Out-edges.** Ranks are assigned to IDs in ascending order; since ranking is monotone the
//!    sorted stream is already in internal (source, target) order. Duplicates are merged (the
//!    first of a run has the smallest weight) unless kept, and `out.*` is written as the stream
//!    passes. Directed graphs push every edge reversed into a second sorter.
//! 3. **In-edges** (directed only): the second sorter's output is written as `in.*`.
//! 4. `ids.u64` when IDs are not exactly 0..n-1, the vertex names when the source has them
//!    (then its IDs must be exactly 0..n-1), the manifest, and an atomic publish.
//!
//! The source's warnings (an ignored column, a rounded weight) go to [`Progress::warn`] as they
//! come, and into the summary.
//!
//! Half the budget goes to the edge sort buffer, a quarter to the ID collector; the merge
//! reads each run through a buffer carved from the budget.

mod ids;
mod records;

use std::path::Path;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use diskgraph_format::{GraphBuilder, ListEncoding, ListWriter, Manifest, FORMAT_NAME, FORMAT_VERSION};

use crate::progress::{advance, stop_point, Progress};
use crate::sort::ExternalSorter;
use crate::{EdgeSource, RawEdge};
use ids::IdCollector;
use records::{Narrow, NarrowRecord, NarrowWeighted, Wide, WideRecord, WideWeighted};

/// How to import.
#[derive(Clone, Debug)]
pub struct ImportOptions {
    /// Store the graph as undirected even if the input does not declare it so.
    pub undirected: bool,
    /// Keep self-loops (dropped by default).
    pub keep_self_loops: bool,
    /// Keep duplicate edges (merged by default, keeping the minimum weight).
    pub keep_duplicates: bool,
    /// Memory budget in bytes for sort buffers and merge buffers.
    pub memory: u64,
    /// Replace an existing output.
    pub force: bool,
    /// How the lists are stored: plain (the default), compressed only, or both.
    pub encoding: ListEncoding,
}

impl Default for ImportOptions {
    fn default() -> Self {
        ImportOptions {
            undirected: false,
            keep_self_loops: false,
            keep_duplicates: false,
            memory: 1 << 30,
            force: false,
            encoding: ListEncoding::Plain,
        }
    }
}

/// What an import did.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct ImportSummary {
    /// Vertices in the graph.
    pub num_vertices: u64,
    /// Edges in the graph (arcs if directed, each undirected edge once otherwise).
    pub num_edges: u64,
    /// Entries in `out.adj`.
    pub num_arcs: u64,
    /// Whether the graph is directed.
    pub directed: bool,
    /// Whether the graph is weighted.
    pub weighted: bool,
    /// Edges read from the input.
    pub input_edges: u64,
    /// Self-loops dropped.
    pub self_loops_dropped: u64,
    /// Duplicate arcs merged.
    pub duplicates_merged: u64,
    /// Whether IDs were remapped (`ids.u64` written).
    pub ids_remapped: bool,
    /// Whether the vertices have names (`names.idx` and `names.bin` written).
    pub names: bool,
    /// What the input was warned about, each naming the file and line.
    pub warnings: Vec<String>,
    /// Bytes written: scratch runs plus the graph's data files.
    pub bytes_written: u64,
    /// Bytes of the ID rank table (semi-external vertex state).
    pub id_table_bytes: u64,
    /// Wall time in seconds.
    pub seconds: f64,
    /// Wall time of each phase (`ingest`, `out-edges`, `in-edges`, `finish`) in seconds.
    pub phase_seconds: Vec<(String, f64)>,
}

/// Imports `source` into a new graph directory at `output`.
pub fn import(
    source: &mut dyn EdgeSource,
    output: &Path,
    opts: &ImportOptions,
    progress: &mut dyn Progress,
) -> Result<ImportSummary> {
    let weighted = source.info().weighted;
    match weighted {
        false => import_with::<Wide, Narrow>(source, output, opts, progress),
        true => import_with::<WideWeighted, NarrowWeighted>(source, output, opts, progress),
    }
}

fn import_with<W: WideRecord, N: NarrowRecord>(
    source: &mut dyn EdgeSource,
    output: &Path,
    opts: &ImportOptions,
    progress: &mut dyn Progress,
) -> Result<ImportSummary> {
    let start = Instant::now();
    let info = source.info().clone();
    // Refused before anything is read: collecting the IDs of such a range would take hours.
    if let Some(declared) = info.declared_vertices.as_ref().map(|r| r.end.saturating_sub(r.start)) {
        if declared > diskgraph_format::MAX_VERTICES {
            bail!("the input declares {declared} vertices: more than the 2^32 a graph can hold");
        }
    }
    let directed = !(opts.undirected || info.directed == Some(false));
    let memory = opts.memory.max(1 << 20) as usize;
    let builder = GraphBuilder::create(output, opts.force)?;
    let scratch = builder.dir().join("scratch");
    // Named by the graph being made: the scratch directory's name is a temporary one.
    let scratch_err = || format!("the sort's scratch files for {}", output.display());
    std::fs::create_dir(&scratch).with_context(scratch_err)?;
    let mut summary = ImportSummary {
        directed,
        weighted: info.weighted,
        ..Default::default()
    };

    // 1. Ingest.
    let dedup: Option<fn(&W, &W) -> bool> = if opts.keep_duplicates {
        None
    } else {
        Some(|a, b| a.src() == b.src() && a.dst() == b.dst())
    };
    let mut edges = ExternalSorter::<W>::new(&scratch, "edges", memory / 2, dedup);
    let mut ids = IdCollector::new(&scratch, memory / 4);
    let mut batch: Vec<RawEdge> = Vec::new();
    let mut pushed = 0u64;
    progress.phase("reading input", source.progress().1);
    while source.next_batch(&mut batch)? {
        for e in &batch {
            ids.insert(e.src).with_context(scratch_err)?;
            ids.insert(e.dst).with_context(scratch_err)?;
            if e.src == e.dst && !opts.keep_self_loops {
                summary.self_loops_dropped += 1;
                continue;
            }
            edges.push(W::new(e.src, e.dst, e.weight)).with_context(scratch_err)?;
            pushed += 1;
            if !directed && e.src != e.dst {
                edges.push(W::new(e.dst, e.src, e.weight)).with_context(scratch_err)?;
                pushed += 1;
            }
        }
        for id in source.extra_vertices() {
            ids.insert(id).with_context(scratch_err)?;
        }
        for warning in source.warnings() {
            progress.warn(&warning);
            summary.warnings.push(warning);
        }
        summary.input_edges += batch.len() as u64;
        advance(progress, source.progress().0)?;
    }
    for id in source.extra_vertices() {
        ids.insert(id).with_context(scratch_err)?;
    }
    let vertex_ids = ids.finish(info.declared_vertices.clone()).with_context(scratch_err)?;
    let n = vertex_ids.len();
    if n > diskgraph_format::MAX_VERTICES {
        bail!("{n} distinct vertex IDs: more than the 2^32 a graph can hold");
    }
    if n == 0 {
        bail!("the input has no vertices");
    }
    for warning in source.warnings() {
        progress.warn(&warning);
        summary.warnings.push(warning);
    }
    let names = source.take_names();
    if let Some(names) = &names {
        if !vertex_ids.is_identity() || names.len() as u64 != n {
            bail!(
                "the input names {} vertices but has {n} vertex IDs{}: named vertices must have the IDs 0..{}",
                names.len(),
                if vertex_ids.is_identity() { "" } else { " (not 0..n)" },
                names.len()
            );
        }
        if let Some((a, b)) = names.first_repeat() {
            bail!(
                "vertices {a} and {b} have the same name {:?}: names must be distinct",
                names.get(a).unwrap_or_default()
            );
        }
    }
    summary.num_vertices = n;
    summary.ids_remapped = !vertex_ids.is_identity();
    summary.names = names.is_some();
    summary.id_table_bytes = vertex_ids.memory_bytes();

    let mut phase_start = start;
    let mut lap = |summary: &mut ImportSummary, name: &str| {
        summary
            .phase_seconds
            .push((name.to_string(), phase_start.elapsed().as_secs_f64()));
        phase_start = Instant::now();
    };
    lap(&mut summary, "ingest");
    stop_point(progress)?;

    // 2. Out-edges (and the reversed stream for in-edges).
    let mut sorted = edges.finish().with_context(scratch_err)?;
    let mut out = builder.lists("out", n, info.weighted, opts.encoding)?;
    let mut reversed = directed.then(|| ExternalSorter::<N>::new(&scratch, "reversed", memory / 2, None));
    let mut prev: Option<(u64, u64)> = None;
    let mut self_loops = 0u64;
    progress.phase("writing out-edges", None);
    while let Some(e) = sorted.next().with_context(scratch_err)? {
        let key = (e.src(), e.dst());
        if !opts.keep_duplicates && prev == Some(key) {
            continue;
        }
        prev = Some(key);
        let (s, d) = (vertex_ids.rank(key.0), vertex_ids.rank(key.1));
        self_loops += u64::from(s == d);
        out.push(s, d, e.weight())?;
        if let Some(r) = &mut reversed {
            r.push(N::new(d, s, e.weight())).with_context(scratch_err)?;
        }
        if out.num_edges().is_multiple_of(1 << 20) {
            advance(progress, out.num_edges())?;
        }
    }
    summary.bytes_written += sorted.bytes_written();
    drop(sorted);
    let arcs = out.num_edges();
    summary.duplicates_merged = pushed - arcs;
    let mut files = out.finish()?;
    lap(&mut summary, "out-edges");
    stop_point(progress)?;

    // 3. In-edges.
    if let Some(r) = reversed {
        let mut sorted = r.finish().with_context(scratch_err)?;
        let mut inn: ListWriter = builder.lists("in", n, info.weighted, opts.encoding)?;
        progress.phase("writing in-edges", Some(arcs));
        while let Some(e) = sorted.next().with_context(scratch_err)? {
            inn.push(e.key(), e.other(), e.weight())?;
            if inn.num_edges().is_multiple_of(1 << 20) {
                advance(progress, inn.num_edges())?;
            }
        }
        summary.bytes_written += sorted.bytes_written();
        files.extend(inn.finish()?);
        lap(&mut summary, "in-edges");
    }

    // 4. IDs, manifest, publish.
    if summary.ids_remapped {
        let mut w = builder.file(diskgraph_format::IDS)?;
        vertex_ids.for_each_chunk(|c| w.write_u64s(c))?;
        files.push(w.finish()?);
    }
    if let Some(names) = &names {
        files.extend(builder.names(names)?);
    }
    summary.num_arcs = arcs;
    summary.num_edges = if directed {
        arcs
    } else {
        (arcs - self_loops) / 2 + self_loops
    };
    summary.bytes_written += files
        .iter()
        .map(|(_, f)| diskgraph_format::padded_len(f.len))
        .sum::<u64>();
    let mut provenance = std::collections::BTreeMap::new();
    provenance.insert("input_format".to_string(), info.format.name().to_string());
    provenance.insert("input".to_string(), info.description.clone());
    let manifest = Manifest {
        format: FORMAT_NAME.into(),
        version: FORMAT_VERSION,
        num_vertices: n,
        num_edges: summary.num_edges,
        num_arcs: arcs,
        num_self_loops: self_loops,
        directed,
        weighted: info.weighted,
        multi_edges: opts.keep_duplicates,
        ordering: "original".into(),
        ids_remapped: summary.ids_remapped,
        files: files.into_iter().collect(),
        layouts: Vec::new(),
        tool: diskgraph_format::TOOL.to_string(),
        source: provenance,
    };
    stop_point(progress)?;
    builder.publish(&manifest)?;
    lap(&mut summary, "finish");
    progress.finish();
    summary.seconds = start.elapsed().as_secs_f64();
    Ok(summary)
}
