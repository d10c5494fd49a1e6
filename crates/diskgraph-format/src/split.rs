//! Split directories (`diskgraph split GRAPH --parts N -o DIR`): a graph cut into N parts by
//! Graphene's row-column balanced 2D partitioning, one graph directory per part, and the routing
//! manifest `split.json` ([`SplitMeta`]) that says which vertices' arcs each part holds. The
//! specification is `docs/FORMAT.md`, section "Split directory".
//!
//! Every part is a complete graph directory of the whole vertex set (V vertices, the graph's own
//! IDs, `ids.u64` and names copied), *directed*, holding the arcs `s → d` of the graph's `out.*`
//! with `s` in its row's source range and `d` in its column's destination range (`out.*`, and
//! the same arcs transposed in `in.*`). An undirected graph's parts hold both directions of its
//! edges as arcs, so the routing manifest records whether the graph was directed.
//!
//! [`SplitDir`] opens and checks a split directory (O(parts)); [`verify_split`] checks it in
//! full; [`SplitBuilder`] publishes one atomically.

use std::ops::Range;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::arc_stream::ArcStream;
use crate::atomic::{self, rename_into_place, start_directory, sync_dir, write_synced};
use crate::cancel::{Cancel, CancelPoints};
use crate::error::FormatError;
use crate::read::{Direction, GraphDir};
use crate::verify::{verify_cancellable, VerifyReport};

/// The routing manifest of a split directory.
pub const SPLIT_META: &str = "split.json";
/// Value of `split.json`'s `format` field.
pub const SPLIT_FORMAT: &str = "diskgraph-split";
/// Split directory version this crate reads and writes.
pub const SPLIT_VERSION: u32 = 1;
/// Most parts a split may have (one worker's machine each; the splitter writes all parts at
/// once, with a write buffer per file of each).
pub const MAX_PARTS: u32 = 256;

/// The directory name of the part in row `r`, column `c`: `part-R-C`.
pub fn part_name(r: u32, c: u32) -> String {
    format!("part-{r}-{c}")
}

/// One part as `split.json` lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SplitPart {
    /// Its directory name, `part-R-C`.
    pub name: String,
    /// Its row: its sources are `row_bounds[row]..row_bounds[row + 1]`.
    pub row: u32,
    /// Its column in the row: its destinations are `col_bounds[row][col]..col_bounds[row][col + 1]`.
    pub col: u32,
    /// Arcs it holds.
    pub num_arcs: u64,
    /// xxh3 of its `out.adj` (ties the routing to the part's data).
    pub out_adj: String,
}

/// `split.json`: how a graph was split and where each part's arcs lie.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SplitMeta {
    /// Always [`SPLIT_FORMAT`].
    pub format: String,
    /// Always [`SPLIT_VERSION`].
    pub version: u32,
    /// V of the graph (every part has V vertices).
    pub num_vertices: u64,
    /// Arcs of the graph's `out.*` (the parts' arcs add up to it).
    pub num_arcs: u64,
    /// Whether the graph was directed (the parts always are).
    pub directed: bool,
    /// Whether the parts carry weights.
    pub weighted: bool,
    /// Rows R (source ranges).
    pub rows: u32,
    /// Columns C per row (destination ranges); the split has R·C parts.
    pub cols: u32,
    /// R + 1 source boundaries: row `r` is `row_bounds[r]..row_bounds[r + 1]`.
    pub row_bounds: Vec<u32>,
    /// Per row, C + 1 destination boundaries (each row is cut so its columns hold equal arcs).
    pub col_bounds: Vec<Vec<u32>>,
    /// The parts, row by row.
    pub parts: Vec<SplitPart>,
    /// xxh3 of the split graph's `out.adj`.
    pub graph_out_adj: String,
    /// The tool and version that wrote the split.
    pub tool: String,
}

impl SplitMeta {
    /// Number of parts (R·C).
    pub fn num_parts(&self) -> u32 {
        self.rows * self.cols
    }

    /// Sources of row `r`.
    pub fn row(&self, r: u32) -> Range<u32> {
        self.row_bounds[r as usize]..self.row_bounds[r as usize + 1]
    }

    /// Destinations of column `c` of row `r`.
    pub fn col(&self, r: u32, c: u32) -> Range<u32> {
        let b = &self.col_bounds[r as usize];
        b[c as usize]..b[c as usize + 1]
    }

    /// The row holding source `v` (the non-empty one among empty rows at `v`).
    pub fn row_of(&self, v: u32) -> u32 {
        (self.row_bounds.partition_point(|&b| b <= v) - 1) as u32
    }

    /// The column of row `r` holding destination `v`.
    pub fn col_of(&self, r: u32, v: u32) -> u32 {
        (self.col_bounds[r as usize].partition_point(|&b| b <= v) - 1) as u32
    }

    /// Reads and checks the routing manifest `split.json` of the split directory `dir`, without
    /// opening any part (a cluster's driver may hold only some of them).
    pub fn read(dir: &Path) -> Result<SplitMeta, FormatError> {
        let meta_path = dir.join(SPLIT_META);
        let bytes = crate::input::read_metadata(&meta_path)?;
        let bad = |reason: String| FormatError::Manifest {
            path: meta_path.clone(),
            reason,
        };
        let meta: SplitMeta = serde_json::from_slice(&bytes).map_err(|e| bad(e.to_string()))?;
        meta.check().map_err(bad)?;
        Ok(meta)
    }

    /// Opens part `i` under `dir` and checks it against the routing: V vertices, directed,
    /// weighted as the split, the arcs and the `out.adj` the routing lists (an error naming the
    /// part and `split.json` otherwise).
    pub fn open_part(&self, dir: &Path, i: usize) -> Result<GraphDir, FormatError> {
        let p = &self.parts[i];
        let g = GraphDir::open(dir.join(&p.name))?;
        let m = g.manifest();
        let out_adj = m.lists_tie().unwrap_or("");
        let ours = (m.num_vertices, m.num_arcs, m.directed, m.weighted, out_adj);
        let want = (self.num_vertices, p.num_arcs, true, self.weighted, p.out_adj.as_str());
        if ours != want {
            return Err(FormatError::Manifest {
                path: dir.join(SPLIT_META),
                reason: format!(
                    "part {} has (vertices, arcs, directed, weighted, out.adj xxh3) {ours:?}, the routing says {want:?}",
                    p.name
                ),
            });
        }
        Ok(g)
    }

    /// The part (index into [`parts`](Self::parts)) that holds arcs `s → d`.
    pub fn part_of(&self, s: u32, d: u32) -> usize {
        let r = self.row_of(s);
        (r * self.cols + self.col_of(r, d)) as usize
    }

    /// The checks of the manifest alone: format, counts, boundaries, names.
    fn check(&self) -> Result<(), String> {
        if (self.format.as_str(), self.version) != (SPLIT_FORMAT, SPLIT_VERSION) {
            return Err(format!(
                "format {:?} version {} is not {SPLIT_FORMAT:?} version {SPLIT_VERSION}",
                self.format, self.version
            ));
        }
        if self.rows == 0 || self.cols == 0 || u64::from(self.rows) * u64::from(self.cols) > u64::from(MAX_PARTS) {
            return Err(format!(
                "{} rows × {} columns: a split has 1 to {MAX_PARTS} parts",
                self.rows, self.cols
            ));
        }
        check_bounds("row_bounds", &self.row_bounds, self.rows, self.num_vertices)?;
        if self.col_bounds.len() != self.rows as usize {
            return Err(format!(
                "col_bounds has {} rows, not {}",
                self.col_bounds.len(),
                self.rows
            ));
        }
        for (r, b) in self.col_bounds.iter().enumerate() {
            check_bounds(&format!("col_bounds[{r}]"), b, self.cols, self.num_vertices)?;
        }
        if self.parts.len() != self.num_parts() as usize {
            return Err(format!(
                "{} parts listed, {} expected",
                self.parts.len(),
                self.num_parts()
            ));
        }
        for (i, p) in self.parts.iter().enumerate() {
            let (r, c) = (i as u32 / self.cols, i as u32 % self.cols);
            if (p.row, p.col, p.name.as_str()) != (r, c, part_name(r, c).as_str()) {
                return Err(format!(
                    "parts[{i}] is {} (row {}, column {}), expected {} (row {r}, column {c})",
                    p.name,
                    p.row,
                    p.col,
                    part_name(r, c)
                ));
            }
        }
        let total: u64 = self.parts.iter().map(|p| p.num_arcs).sum();
        if total != self.num_arcs {
            return Err(format!("the parts hold {total} arcs, the graph {}", self.num_arcs));
        }
        Ok(())
    }
}

/// `n + 1` boundaries from 0 to `v`, never decreasing.
fn check_bounds(what: &str, b: &[u32], n: u32, v: u64) -> Result<(), String> {
    let ok = b.len() == n as usize + 1
        && b.first() == Some(&0)
        && b.last().map(|&x| u64::from(x)) == Some(v)
        && b.windows(2).all(|w| w[0] <= w[1]);
    match ok {
        true => Ok(()),
        false => Err(format!(
            "{what} must be {} boundaries from 0 to {v}, never decreasing: {b:?}",
            n + 1
        )),
    }
}

/// An opened split directory: `split.json` parsed and checked, every part a graph directory of
/// V vertices, directed, weighted as the split says, holding the arcs and the `out.adj` the
/// routing lists.
#[derive(Debug)]
pub struct SplitDir {
    path: PathBuf,
    meta: SplitMeta,
    parts: Vec<GraphDir>,
}

impl SplitDir {
    /// Opens the split directory at `path` (O(parts): each part's manifest and file sizes).
    pub fn open(path: impl AsRef<Path>) -> Result<SplitDir, FormatError> {
        let path = path.as_ref().to_path_buf();
        let meta = SplitMeta::read(&path)?;
        let mut parts = Vec::with_capacity(meta.parts.len());
        for i in 0..meta.parts.len() {
            parts.push(meta.open_part(&path, i)?);
        }
        Ok(SplitDir { path, meta, parts })
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The parsed `split.json`.
    pub fn meta(&self) -> &SplitMeta {
        &self.meta
    }

    /// The parts, row by row (as [`SplitMeta::parts`]).
    pub fn parts(&self) -> &[GraphDir] {
        &self.parts
    }
}

/// Whether `path` is a split directory (it holds `split.json`).
pub fn is_split_dir(path: &Path) -> bool {
    path.join(SPLIT_META).is_file()
}

/// Read buffer of each part file the routing check streams.
const SCAN_BUFFER: usize = 1 << 20;

/// Full check of a split directory: [`SplitDir::open`], every part verified in full
/// ([`verify`](crate::verify())), and every arc of every part inside its row's sources and its
/// column's destinations (a part holding an arc of another part is an error naming it).
pub fn verify_split(path: impl AsRef<Path>) -> Result<VerifyReport, FormatError> {
    verify_split_cancellable(path, &Cancel::new())
}

/// [`verify_split`], polling `cancel` as [`verify_cancellable`] does.
pub fn verify_split_cancellable(path: impl AsRef<Path>, cancel: &Cancel) -> Result<VerifyReport, FormatError> {
    let split = SplitDir::open(path)?;
    let mut report = VerifyReport::default();
    for (p, g) in split.meta.parts.iter().zip(&split.parts) {
        let r = verify_cancellable(g.path(), cancel)?;
        report.files_checked += r.files_checked;
        report.bytes_checked += r.bytes_checked;
        report.arcs_checked += r.arcs_checked;
        report.layouts_checked += r.layouts_checked;
        let stale = r.stale_versions.iter().map(|v| format!("{}/{v}", p.name));
        report.stale_versions.extend(stale);
        let (rows, cols) = (split.meta.row(p.row), split.meta.col(p.row, p.col));
        let mut s = ArcStream::open(g, Direction::Out, false, SCAN_BUFFER)?;
        let mut points = CancelPoints::new(cancel);
        while let Some((v, degree)) = s.next_vertex()? {
            points.at(s.position() + u64::from(v))?;
            if degree > 0 && !rows.contains(&v) {
                return Err(FormatError::Content {
                    path: g.file_path(crate::OUT_IDX),
                    reason: format!(
                        "vertex {v} has {degree} arcs in part {}, whose sources are {rows:?}",
                        p.name
                    ),
                });
            }
            while let Some((d, _)) = s.next_arc()? {
                if !cols.contains(&d) {
                    return Err(FormatError::Content {
                        path: g.file_path(crate::OUT_ADJ),
                        reason: format!(
                            "arc {v} -> {d} of part {} lies outside its destinations {cols:?}",
                            p.name
                        ),
                    });
                }
            }
        }
    }
    Ok(report)
}

/// Publishes a split directory atomically: the parts are built inside a temporary directory
/// next to the destination, `split.json` is written last, and the directory is renamed into
/// place. Dropping an unpublished builder removes the temporary directory; the temporaries of a
/// builder that was killed are removed by the next builder of the same path.
pub struct SplitBuilder {
    final_path: PathBuf,
    name: String,
    tmp_path: PathBuf,
    force: bool,
    published: bool,
}

impl SplitBuilder {
    /// Starts a split directory at `path`. Fails if `path` exists and `force` is false, or if it
    /// is a directory that is neither a split directory nor empty.
    pub fn create(path: &Path, force: bool) -> Result<SplitBuilder, FormatError> {
        let (name, tmp_path) = start_directory(path, |p| check_replaceable(p, force))?;
        Ok(SplitBuilder {
            final_path: path.to_path_buf(),
            name,
            tmp_path,
            force,
            published: false,
        })
    }

    /// Where the part `name` is to be built (inside the temporary directory).
    pub fn part_path(&self, name: &str) -> PathBuf {
        self.tmp_path.join(name)
    }

    /// Writes `split.json` and renames the directory into place (replacing an existing split
    /// directory only when `force` was given).
    pub fn publish(mut self, meta: &SplitMeta) -> Result<PathBuf, FormatError> {
        meta.check().map_err(|reason| FormatError::Manifest {
            path: self.final_path.join(SPLIT_META),
            reason,
        })?;
        let mut json = serde_json::to_vec_pretty(meta).expect("split.json serialises");
        json.push(b'\n');
        write_synced(&self.tmp_path.join(SPLIT_META), &json)?;
        sync_dir(&self.tmp_path);
        check_replaceable(&self.final_path, self.force)?;
        rename_into_place(&self.tmp_path, &self.final_path, &self.name)?;
        self.published = true;
        Ok(self.final_path.clone())
    }
}

impl Drop for SplitBuilder {
    fn drop(&mut self) {
        if !self.published {
            let _ = std::fs::remove_dir_all(&self.tmp_path);
        }
    }
}

/// An existing output may be replaced only with `force`, and only if it is a split directory or
/// an empty one (a file is refused too).
fn check_replaceable(path: &Path, force: bool) -> Result<(), FormatError> {
    if path.is_file() && force {
        return Err(FormatError::io(
            path,
            std::io::Error::other("refusing to replace a file with a split directory"),
        ));
    }
    atomic::check_replaceable(path, force, "split directory", is_split_dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta() -> SplitMeta {
        SplitMeta {
            format: SPLIT_FORMAT.into(),
            version: SPLIT_VERSION,
            num_vertices: 10,
            num_arcs: 7,
            directed: false,
            weighted: false,
            rows: 2,
            cols: 2,
            row_bounds: vec![0, 4, 10],
            col_bounds: vec![vec![0, 5, 10], vec![0, 0, 10]],
            parts: (0..4)
                .map(|i| SplitPart {
                    name: part_name(i / 2, i % 2),
                    row: i / 2,
                    col: i % 2,
                    num_arcs: [3, 1, 0, 3][i as usize],
                    out_adj: "0123456789abcdef".into(),
                })
                .collect(),
            graph_out_adj: "0123456789abcdef".into(),
            tool: "test".into(),
        }
    }

    #[test]
    fn routing_finds_rows_and_columns() {
        let m = meta();
        assert_eq!(m.check(), Ok(()));
        assert_eq!((m.row_of(0), m.row_of(3), m.row_of(4), m.row_of(9)), (0, 0, 1, 1));
        assert_eq!(
            (m.col_of(0, 4), m.col_of(0, 5), m.col_of(1, 0), m.col_of(1, 9)),
            (0, 1, 1, 1)
        );
        assert_eq!((m.row(1), m.col(0, 1)), (4..10, 5..10));
    }

    /// A change to a manifest, and what the error about it says.
    type Case = (fn(&mut SplitMeta), &'static str);

    #[test]
    fn bad_manifests_are_refused() {
        let cases: [Case; 5] = [
            (|m| m.row_bounds = vec![0, 11, 10], "row_bounds"),
            (|m| m.col_bounds.pop().map(drop).unwrap_or(()), "col_bounds has 1 rows"),
            (|m| m.parts.swap(0, 1), "parts[0] is part-0-1"),
            (|m| m.parts[3].num_arcs = 4, "the parts hold 8 arcs"),
            (|m| m.rows = 0, "a split has 1 to"),
        ];
        for (change, says) in cases {
            let mut m = meta();
            change(&mut m);
            let err = m.check().unwrap_err();
            assert!(err.contains(says), "{err}");
        }
    }
}
