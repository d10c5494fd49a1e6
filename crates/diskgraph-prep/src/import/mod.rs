//! The import pipeline: any [`EdgeSource`] to a published graph directory, under a memory budget
//! and with bounded scratch disk: the input is read several times instead of being sorted.
//!
//! 1. **First read.** Edges stream from the source; every endpoint goes into the ID collector
//!    (so IDs seen only in dropped self-loops still become vertices), self-loops are dropped
//!    unless kept, and while the IDs stay below what the counters' budget allows each vertex's
//!    arcs are counted by original ID (undirected edges count at both ends). A source that
//!    cannot start over (standard input, a pipe, the library API) is copied to a spool file as
//!    it passes ([`replay`]).
//! 2. **Out-lists.** Ranks are assigned to IDs in ascending order. With the counts (from the
//!    first read, or from counting passes over vertex ranges when IDs are sparse or too many),
//!    the vertices are cut into ranges whose arcs fit the placement buffer, and each range takes
//!    one more read of the input: its arcs are scattered into their slots, each list is sorted
//!    and its duplicates merged (the smallest weight stays) unless kept, and the lists are
//!    written in order ([`passes`]). A list too long for the buffer has a read of its own and
//!    goes through the external sorter.
//! 3. **In-lists** (directed only): the same, keyed by target.
//! 4. `ids.u64` when IDs are not exactly 0..n-1, the vertex names when the source has them
//!    (then its IDs must be exactly 0..n-1), the manifest, and an atomic publish.
//!
//! The source's warnings (an ignored column, a rounded weight) go to [`Progress::warn`] as they
//! come during the first read, and into the summary.
//!
//! During the first read a quarter of the budget goes to the ID collector and half to the
//! counters; then at most half to the counters and the rest to the placement buffer (4 bytes
//! per arc, 16 with weights, and 16 per vertex of the range).

mod ids;
mod passes;
mod records;
mod replay;

use std::path::Path;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use diskgraph_format::{FileEntry, GraphBuilder, ListEncoding, ListWriter, Manifest, FORMAT_NAME, FORMAT_VERSION};

use crate::progress::{advance, stop_point, Progress};
use crate::{EdgeSource, RawEdge};
use ids::IdCollector;
use passes::{build_side, placement_budget, reads_planned, Reader, Shape, Side, SideStats, Slot, Speculative};
use replay::Input;

/// The smallest memory budget an import works with (smaller budgets are raised to it): enough
/// for tests to force many passes. The command line asks for at least 1 MiB.
pub const MIN_MEMORY: u64 = 64 << 10;
/// How to import.
#[derive(Clone, Debug)]
pub struct ImportOptions {
    /// Store the graph as undirected even if the input does not declare it so.
    pub undirected: bool,
    /// Keep self-loops (dropped by default).
    pub keep_self_loops: bool,
    /// Keep duplicate edges (merged by default, keeping the minimum weight).
    pub keep_duplicates: bool,
    /// Memory budget in bytes for the ID collector, the arc counters and the placement buffer
    /// (at least [`MIN_MEMORY`]).
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
            memory: diskgraph_io::DEFAULT_MEMORY,
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
    /// Bytes written: scratch (spool, sort runs) plus the graph's data files.
    pub bytes_written: u64,
    /// Reads of the input, the first included.
    pub passes: u32,
    /// The most scratch bytes on disk at once (the spool of an input that cannot be read again,
    /// sort runs of sparse IDs and of lists too long for the placement buffer).
    pub peak_scratch_bytes: u64,
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
    let start = Instant::now();
    let info = source.info().clone();
    // Refused before anything is read: collecting the IDs of such a range would take hours.
    if let Some(declared) = info.declared_vertices.as_ref().map(|r| r.end.saturating_sub(r.start)) {
        if declared > diskgraph_format::MAX_VERTICES {
            bail!("the input declares {declared} vertices: more than the 2^32 a graph can hold");
        }
    }
    let directed = !(opts.undirected || info.directed == Some(false));
    let memory = opts.memory.max(MIN_MEMORY);
    let builder = GraphBuilder::create(output, opts.force)?;
    let scratch = builder.dir().join("scratch");
    // Named by the graph being made: the scratch directory's name is a temporary one.
    let scratch_err = || format!("the import's scratch files for {}", output.display());
    std::fs::create_dir(&scratch).with_context(scratch_err)?;
    let mut summary = ImportSummary {
        directed,
        weighted: info.weighted,
        ..Default::default()
    };
    let shape = Shape {
        undirected: !directed,
        keep_loops: opts.keep_self_loops,
        keep_duplicates: opts.keep_duplicates,
    };

    // 1. First read.
    let mut input = Input::new(source, &scratch)?;
    // What the counters, IDs and placement get: the budget less the writer's buffers and the
    // input's own.
    let side_buffers = ListWriter::buffer_bytes(opts.encoding, rayon::current_num_threads()) + input.buffered_bytes();
    let memory = memory.saturating_sub(side_buffers).max(MIN_MEMORY);
    let mut ids = IdCollector::new(&scratch, (memory / 4) as usize);
    let mut counts = Speculative::new((memory / 2) as usize, directed);
    let mut batch: Vec<RawEdge> = Vec::new();
    progress.phase("pass 1: reading input", input.progress().1);
    while input.next_batch(&mut batch)? {
        for e in &batch {
            ids.insert(e.src).with_context(scratch_err)?;
            ids.insert(e.dst).with_context(scratch_err)?;
            summary.self_loops_dropped += u64::from(e.src == e.dst && !opts.keep_self_loops);
            counts.count(e, &shape)?;
        }
        for id in input.source().extra_vertices() {
            ids.insert(id).with_context(scratch_err)?;
        }
        for warning in input.source().warnings() {
            progress.warn(&warning);
            summary.warnings.push(warning);
        }
        summary.input_edges += batch.len() as u64;
        advance(progress, input.progress().0)?;
    }
    for id in input.source().extra_vertices() {
        ids.insert(id).with_context(scratch_err)?;
    }
    for warning in input.source().warnings() {
        progress.warn(&warning);
        summary.warnings.push(warning);
    }
    let id_runs = ids.bytes_written();
    summary.peak_scratch_bytes = input.spool_bytes() + id_runs;
    summary.bytes_written += id_runs;
    let vertex_ids = ids.finish(info.declared_vertices.clone()).with_context(scratch_err)?;
    let n = vertex_ids.len();
    if n > diskgraph_format::MAX_VERTICES {
        bail!("{n} distinct vertex IDs: more than the 2^32 a graph can hold");
    }
    if n == 0 {
        bail!("the input has no vertices");
    }
    summary.num_vertices = n;
    summary.ids_remapped = !vertex_ids.is_identity();
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

    // 2. and 3. Out-lists, then in-lists.
    let (out_counts, in_counts) = match counts.into_ranked(&vertex_ids) {
        Some((out, inn)) => (Some(out), inn),
        None => (None, None),
    };
    let per_arc = if info.weighted {
        <u64 as Slot>::BYTES_PER_ARC
    } else {
        <u32 as Slot>::BYTES_PER_ARC
    };
    let n_bytes = 4 * n;
    // The ID table stays in memory while the lists are placed (IDs are ranked as they come).
    let id_table = vertex_ids.memory_bytes();
    let planned = match (&out_counts, &in_counts, directed) {
        (Some(out), inn, _) if inn.is_some() || !directed => Some(
            1 + reads_planned(
                out,
                placement_budget(memory, id_table + n_bytes * (1 + u64::from(directed))),
                per_arc,
            ) + inn.as_ref().map_or(0, |c| {
                reads_planned(c, placement_budget(memory, id_table + n_bytes), per_arc)
            }),
        ),
        _ => None,
    };
    let mut reader = Reader {
        input: &mut input,
        progress: &mut *progress,
        planned,
    };
    let sides = [(Side::Out, out_counts, "out", "out-edges")]
        .into_iter()
        .chain(directed.then_some((Side::In, in_counts, "in", "in-edges")));
    let mut files: Vec<(String, FileEntry)> = Vec::new();
    let mut out_stats = SideStats::default();
    for (side, counts, prefix, phase) in sides {
        let mut lists = ListOutput::new(builder.lists(prefix, n, info.weighted, opts.encoding)?);
        let build = match info.weighted {
            false => build_side::<u32>,
            true => build_side::<u64>,
        };
        // While the out-lists are placed, the in-counts wait in memory; the ID table throughout.
        let held = id_table
            + if side == Side::Out && counts.is_some() && directed {
                n_bytes
            } else {
                0
            };
        let stats = build(
            &mut reader,
            &vertex_ids,
            shape,
            side,
            counts,
            memory,
            held,
            &scratch,
            &mut lists,
        )?;
        files.extend(lists.finish()?);
        summary.peak_scratch_bytes = summary
            .peak_scratch_bytes
            .max(reader.input.spool_bytes() + stats.peak_scratch);
        summary.bytes_written += stats.scratch_written;
        if side == Side::Out {
            out_stats = stats;
        }
        lap(&mut summary, phase);
        stop_point(reader.progress)?;
    }
    summary.passes = input.reads();
    summary.bytes_written += input.spool_bytes();
    let names = input.source().take_names();
    drop(input);
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
    summary.names = names.is_some();
    let arcs = out_stats.arcs;
    let self_loops = out_stats.self_loops;
    summary.duplicates_merged = out_stats.pushed - arcs;

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

/// Where the finished lists of one direction go: the one place that knows the output's writer.
pub(crate) struct ListOutput {
    writer: ListWriter,
}

impl ListOutput {
    fn new(writer: ListWriter) -> ListOutput {
        ListOutput { writer }
    }

    /// Appends the complete lists of vertices `first..first + offsets.len() - 1`: list `i` is
    /// `targets[offsets[i]..offsets[i + 1]]` (offsets relative to the batch), with the same
    /// range of `weights` for a weighted graph.
    pub(crate) fn write_range(
        &mut self,
        first: u32,
        offsets: &[u64],
        targets: &[u32],
        weights: Option<&[f32]>,
    ) -> Result<()> {
        Ok(self.writer.push_lists(first, offsets, targets, weights)?)
    }

    /// Appends `targets` (and `weights`) to the list of `vertex`, which follows the lists
    /// written before: consecutive calls for one vertex make one list (a list too long to be
    /// placed at once; the writer holds it whole until the next range, as a codec needs it).
    pub(crate) fn write_part(&mut self, vertex: u32, targets: &[u32], weights: Option<&[f32]>) -> Result<()> {
        for (j, &t) in targets.iter().enumerate() {
            self.writer.push(vertex, t, weights.map(|w| w[j]))?;
        }
        Ok(())
    }

    fn finish(self) -> Result<Vec<(String, FileEntry)>> {
        Ok(self.writer.finish()?)
    }
}
