//! `diskgraph split GRAPH --parts N -o DIR`: a graph cut into N parts by Graphene's row-column
//! balanced 2D partitioning (Liu and Huang, FAST '17, §4.1), one graph directory per part, for
//! workers on several machines (the format: `docs/FORMAT.md`, "Split directory").
//!
//! **Shape.** N = R·C with R the largest divisor of N not above √N (2 → 1×2, 4 → 2×2, 8 → 2×4,
//! a prime N → 1×N).
//!
//! **Rows, then columns.** The sources are cut into R rows of about equal arcs (out-degree sums),
//! by the rule that cuts shard intervals ([`IntervalCut`]); then every row's destinations are cut into C
//! columns of about equal arcs *of that row*, so each row has its own column boundaries and every
//! part holds about E/N arcs — unlike a grid of equal vertex ranges, where a hub's row or column
//! makes one part far larger than the rest. A vertex is never split, so a hub's list still lands
//! in one row.
//!
//! **Passes.** One over `out.idx` (row cuts), one over `out.*` (each row's destination counts, in
//! an array of V counters reused row after row, give its columns), one over `out.*` writing every
//! part's `out.*` at once (the graph's lists, filtered, are already sorted), and for the `in.*` of
//! the parts one over the graph's `in.*` (`out.*` of an undirected graph, which is symmetric),
//! filtered the same way. Every part is a directed graph directory of all V vertices with the
//! graph's IDs (`ids.u64` and names copied); the routing manifest says whether the graph was
//! directed. Memory: 8 bytes per vertex of counters, a 1 MiB write buffer per file of each part
//! (two or three files), and three read buffers.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use diskgraph_format::{
    cut_by_degree, part_name, ArcStream, CsrWriter, Direction, FileEntry, GraphBuilder, GraphDir, IntervalCut,
    Manifest, OutputPaths, SplitBuilder, SplitMeta, SplitPart, IDS, MAX_PARTS, NAMES_BIN, NAMES_IDX, SPLIT_FORMAT,
    SPLIT_VERSION,
};

use crate::progress::{stop_point, Ticker};
use crate::Progress;

/// Read buffer of each graph file streamed.
const READ_BUFFER: usize = 4 << 20;

/// How to split a graph.
#[derive(Clone, Debug)]
pub struct SplitOptions {
    /// Number of parts N, 1 to [`MAX_PARTS`].
    pub parts: u32,
    /// Replace an existing split directory.
    pub force: bool,
}

/// What a split wrote.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct SplitSummary {
    /// The published directory.
    pub path: PathBuf,
    /// Rows R.
    pub rows: u32,
    /// Columns C per row.
    pub cols: u32,
    /// Arcs of each part, row by row.
    pub part_arcs: Vec<u64>,
    /// The largest part's arcs over the mean (1.0 is perfect balance).
    pub balance: f64,
    /// Bytes of the parts' files on disk.
    pub bytes_written: u64,
    /// Wall time in seconds.
    pub seconds: f64,
}

/// R×C for `parts`: R the largest divisor of `parts` not above its square root.
pub fn split_shape(parts: u32) -> (u32, u32) {
    let rows = (1..=parts)
        .take_while(|r| r * r <= parts)
        .filter(|r| parts.is_multiple_of(*r))
        .last()
        .unwrap_or(1);
    (rows, parts / rows)
}

/// Splits the graph at `graph` into `opts.parts` parts published at `output` (see the module
/// documentation).
pub fn split(graph: &Path, output: &Path, opts: &SplitOptions, progress: &mut dyn Progress) -> Result<SplitSummary> {
    let start = Instant::now();
    if !(1..=MAX_PARTS).contains(&opts.parts) {
        bail!(
            "{}: the number of parts must be 1 to {MAX_PARTS}",
            diskgraph_io::spelling::setting("parts", opts.parts)
        );
    }
    OutputPaths::new().reads("graph", graph).writes("output", output)?;
    let g = GraphDir::open(graph)?;
    let m = g.manifest().clone();
    let (rows, cols) = split_shape(opts.parts);
    progress.phase("cutting rows and columns", Some(m.num_arcs));
    let row_bounds = cut_by_degree(&g, Direction::Out, rows, READ_BUFFER)?;
    let col_bounds = cut_columns(&g, &row_bounds, cols, progress)?;
    let builder = SplitBuilder::create(output, opts.force)?;
    let mut meta = SplitMeta {
        format: SPLIT_FORMAT.into(),
        version: SPLIT_VERSION,
        num_vertices: m.num_vertices,
        num_arcs: m.num_arcs,
        directed: m.directed,
        weighted: m.weighted,
        rows,
        cols,
        row_bounds,
        col_bounds,
        parts: Vec::new(),
        graph_out_adj: m.lists_tie().unwrap_or_default().to_string(),
        tool: diskgraph_format::TOOL.to_string(),
    };
    let mut parts: Vec<Part> = (0..rows * cols)
        .map(|i| Part::create(&builder, i / cols, i % cols))
        .collect::<Result<_>>()?;
    progress.phase("writing out-lists", Some(m.num_arcs));
    write_direction(&g, Direction::Out, &meta, &mut parts, progress)?;
    progress.phase("writing in-lists", Some(m.num_arcs));
    write_direction(&g, Direction::In, &meta, &mut parts, progress)?;
    let mut bytes_written = 0;
    for part in parts {
        let (record, bytes) = part.publish(&g, graph)?;
        bytes_written += bytes;
        meta.parts.push(record);
    }
    stop_point(progress)?;
    let path = builder.publish(&meta).with_context(|| {
        format!(
            "cannot publish the split of {} at {}",
            graph.display(),
            output.display()
        )
    })?;
    progress.finish();
    let part_arcs: Vec<u64> = meta.parts.iter().map(|p| p.num_arcs).collect();
    let mean = m.num_arcs as f64 / f64::from(opts.parts);
    Ok(SplitSummary {
        path,
        rows,
        cols,
        balance: match m.num_arcs {
            0 => 1.0,
            _ => *part_arcs.iter().max().unwrap_or(&0) as f64 / mean,
        },
        part_arcs,
        bytes_written,
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// Per row, the C + 1 column boundaries: columns of about equal arcs of that row, from the
/// row's destination counts.
fn cut_columns(g: &GraphDir, row_bounds: &[u32], cols: u32, progress: &mut dyn Progress) -> Result<Vec<Vec<u32>>> {
    let v_count = g.num_vertices();
    let mut counts = vec![0u64; v_count as usize];
    let mut s = ArcStream::open(g, Direction::Out, false, READ_BUFFER)?;
    let mut bounds = Vec::with_capacity(row_bounds.len() - 1);
    let mut ticker = Ticker::new();
    for row in row_bounds.windows(2) {
        let mut arcs = 0u64;
        for _ in row[0]..row[1] {
            s.next_vertex()?;
            while let Some((d, _)) = s.next_arc()? {
                counts[d as usize] += 1;
                arcs += 1;
            }
            ticker.tick(progress, s.position())?;
        }
        let mut cut = IntervalCut::new(cols, v_count, arcs);
        let mut prefix = 0u64;
        for v in 0..=v_count {
            let here = match v < v_count {
                true => std::mem::take(&mut counts[v as usize]),
                false => 0,
            };
            cut.at(v, prefix, prefix + here);
            prefix += here;
        }
        bounds.push(cut.boundaries());
    }
    Ok(bounds)
}

/// One part while it is written.
struct Part {
    row: u32,
    col: u32,
    builder: GraphBuilder,
    writer: Option<CsrWriter>,
    files: Vec<(String, FileEntry)>,
    num_arcs: u64,
    self_loops: u64,
}

impl Part {
    fn create(split: &SplitBuilder, row: u32, col: u32) -> Result<Part> {
        let builder = GraphBuilder::create(&split.part_path(&part_name(row, col)), false)?;
        Ok(Part {
            row,
            col,
            builder,
            writer: None,
            files: Vec::new(),
            num_arcs: 0,
            self_loops: 0,
        })
    }

    /// Copies the graph's ID and name files, writes the manifest and publishes the part inside
    /// the split's temporary directory; its record and bytes on disk.
    fn publish(self, g: &GraphDir, graph: &Path) -> Result<(SplitPart, u64)> {
        let m = g.manifest();
        let mut files: std::collections::BTreeMap<String, FileEntry> = self.files.into_iter().collect();
        for name in [IDS, NAMES_IDX, NAMES_BIN] {
            if let Some(entry) = m.files.get(name) {
                let to = self.builder.dir().join(name);
                std::fs::copy(g.file_path(name), &to)
                    .with_context(|| format!("cannot copy {} to {}", g.file_path(name).display(), to.display()))?;
                files.insert(name.to_string(), entry.clone());
            }
        }
        let name = part_name(self.row, self.col);
        let mut source = m.source.clone();
        source.insert("split_from".into(), graph.display().to_string());
        source.insert("split_part".into(), name.clone());
        let manifest = Manifest {
            num_edges: self.num_arcs,
            num_arcs: self.num_arcs,
            num_self_loops: self.self_loops,
            directed: true,
            files,
            layouts: Vec::new(),
            tool: diskgraph_format::TOOL.to_string(),
            source,
            ..m.clone()
        };
        let bytes = manifest.bytes_on_disk();
        let out_adj = manifest.lists_tie().unwrap_or_default().to_string();
        self.builder.publish(&manifest)?;
        let record = SplitPart {
            name,
            row: self.row,
            col: self.col,
            num_arcs: self.num_arcs,
            out_adj,
        };
        Ok((record, bytes))
    }
}

/// Writes direction `dir` of every part from the graph's lists of that direction (`out.*`, or
/// `in.*` — `out.*` of an undirected graph): each arc goes to the part of its source's row and
/// its destination's column in that row.
fn write_direction(
    g: &GraphDir,
    dir: Direction,
    meta: &SplitMeta,
    parts: &mut [Part],
    progress: &mut dyn Progress,
) -> Result<()> {
    let prefix = match dir {
        Direction::Out => "out",
        Direction::In => "in",
    };
    for p in parts.iter_mut() {
        p.writer = Some(p.builder.csr(prefix, meta.num_vertices, meta.weighted)?);
    }
    let mut s = ArcStream::open(g, dir, true, READ_BUFFER)?;
    let mut ticker = Ticker::new();
    let mut row = 0u32;
    while let Some((v, _)) = s.next_vertex()? {
        if dir == Direction::Out {
            while v >= meta.row_bounds[row as usize + 1] {
                row += 1;
            }
        }
        while let Some((u, w)) = s.next_arc()? {
            // The arc is src → dst: v → u out of v, u → v into v.
            let (src, dst) = match dir {
                Direction::Out => (v, u),
                Direction::In => (u, v),
            };
            let r = match dir {
                Direction::Out => row,
                Direction::In => meta.row_of(src),
            };
            let part = &mut parts[(r * meta.cols + meta.col_of(r, dst)) as usize];
            let writer = part.writer.as_mut().expect("opened above");
            writer.push(v, u, meta.weighted.then_some(w))?;
            if dir == Direction::Out {
                part.num_arcs += 1;
                part.self_loops += u64::from(src == dst);
            }
        }
        ticker.tick(progress, s.position())?;
    }
    for p in parts.iter_mut() {
        let files = p.writer.take().expect("opened above").finish()?;
        p.files.extend(files);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_are_as_square_as_the_count_allows() {
        let shapes: Vec<(u32, u32)> = [1, 2, 3, 4, 6, 8, 9, 12, 16, 17]
            .iter()
            .map(|&n| split_shape(n))
            .collect();
        assert_eq!(
            shapes,
            [
                (1, 1),
                (1, 2),
                (1, 3),
                (2, 2),
                (2, 3),
                (2, 4),
                (3, 3),
                (3, 4),
                (4, 4),
                (1, 17)
            ]
        );
    }
}
