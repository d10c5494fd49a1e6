//! The graph reader: [`GraphDir`] opens and checks a graph directory, and loads one direction of
//! its CSR ([`Csr`]) or its original IDs into memory.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use crate::arc_stream::Chunked;
use crate::basc_meta::BascMeta;
use crate::compressed_layout::{read_lists_from, CompressedLayout};
use crate::compressed_meta::CompressedMeta;
use crate::data_file::{check_inside, check_size, read_offsets_stoppable, read_range, read_range_stoppable};
use crate::error::FormatError;
use crate::grid_meta::GridMeta;
use crate::layout_meta::LayoutMeta;
use crate::layout_record::{LayoutKind, LayoutRecord};
use crate::layout_versions::{LayoutPin, PinFailure};
use crate::manifest::{
    Manifest, IDS, IN_ADJ, IN_IDX, IN_WGT, MANIFEST, NAMES_BIN, NAMES_IDX, OUT_ADJ, OUT_IDX, OUT_WGT,
};
use crate::names::{check_offsets, VertexNames};
use crate::shard_meta::ShardMeta;

/// Index entries [`GraphDir::for_each_degree`] reads at a time (8 MiB).
pub const DEGREE_PIECE: u64 = 1 << 20;

/// Most generations opening a layout tries, each replaced by a writer before it was pinned,
/// before it gives up ([`FormatError::LayoutReplaced`]).
const OPEN_ATTEMPTS: u32 = 8;

#[cfg(target_endian = "big")]
compile_error!("diskgraph files are little-endian and are read by casting; big-endian hosts are not supported");

/// Which adjacency of a vertex: its out-edges or its in-edges.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// Edges leaving the vertex (`out.*`).
    Out,
    /// Edges entering the vertex (`in.*`; the same as `Out` for undirected graphs).
    In,
}

/// One direction of a graph held fully in memory, in compressed sparse row form.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Csr {
    /// `offsets[v]..offsets[v+1]` indexes the neighbours of `v`; length V+1.
    pub offsets: Vec<u64>,
    /// Neighbour IDs, ascending within each vertex.
    pub targets: Vec<u32>,
    /// Edge weights parallel to `targets`, when the graph is weighted.
    pub weights: Option<Vec<f32>>,
}

impl Csr {
    /// Number of vertices.
    pub fn num_vertices(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// Number of stored arcs.
    pub fn num_arcs(&self) -> usize {
        self.targets.len()
    }

    /// Neighbours of `v`.
    pub fn neighbours(&self, v: u32) -> &[u32] {
        let (a, b) = self.range(v);
        &self.targets[a..b]
    }

    /// Weights of `v`'s edges, parallel to [`Csr::neighbours`].
    pub fn edge_weights(&self, v: u32) -> Option<&[f32]> {
        let (a, b) = self.range(v);
        self.weights.as_ref().map(|w| &w[a..b])
    }

    /// Degree of `v`.
    pub fn degree(&self, v: u32) -> usize {
        let (a, b) = self.range(v);
        b - a
    }

    fn range(&self, v: u32) -> (usize, usize) {
        let v = v as usize;
        (self.offsets[v] as usize, self.offsets[v + 1] as usize)
    }
}

/// An opened graph directory: its manifest has been parsed and checked, every data file has
/// the size the manifest implies and lies inside the directory (no symlink out of it), the
/// offset indexes are monotone and end at the arc count, and the names index (if any) stays
/// within `names.bin`.
#[derive(Clone, Debug)]
pub struct GraphDir {
    path: PathBuf,
    /// The directory's canonical path: every file and layout must resolve to a place under it.
    root: PathBuf,
    manifest: Manifest,
}

impl GraphDir {
    /// Opens and checks the graph directory at `path` (O(V)). A layout the manifest lists by
    /// name only (written before layout records) gets its record from its metadata file.
    pub fn open(path: impl AsRef<Path>) -> Result<GraphDir, FormatError> {
        let path = path.as_ref().to_path_buf();
        let meta = std::fs::metadata(&path).map_err(|e| FormatError::io(&path, e))?;
        if !meta.is_dir() {
            return Err(FormatError::io(&path, std::io::Error::other("not a graph directory")));
        }
        let root = std::fs::canonicalize(&path).map_err(|e| FormatError::io(&path, e))?;
        let manifest = read_manifest(&path)?;
        check_inside(&root, &path.join(MANIFEST))?;
        let dir = GraphDir { path, root, manifest };
        for (name, entry) in &dir.manifest.files {
            dir.check_file(&dir.file_path(name), entry.len)?;
        }
        dir.load_offsets(Direction::Out)?;
        if dir.manifest.directed {
            dir.load_offsets(Direction::In)?;
        }
        dir.lists_layout()?;
        if dir.manifest.has_names() {
            let path = dir.file_path(NAMES_IDX);
            let offsets: Vec<u64> = read_range(&path, 0..dir.num_vertices() + 1)?;
            check_offsets(&offsets, dir.names_len()).map_err(|(entry, reason)| FormatError::Index {
                path,
                entry,
                reason,
            })?;
        }
        Ok(dir)
    }

    /// Checks that the graph on disk is still the one opened, by reading its manifest again:
    /// the same counts and data files (lengths and checksums; see
    /// [`Manifest::graph_difference`]). Layouts published since do not matter. Costs one read
    /// of `manifest.json`, whatever the graph's size.
    ///
    /// Errors: [`FormatError::Replaced`] naming the first difference; a manifest that cannot
    /// be read, as [`GraphDir::open`] reports it.
    pub fn check_unchanged(&self) -> Result<(), FormatError> {
        let now = read_manifest(&self.path)?;
        match self.manifest.graph_difference(&now) {
            None => Ok(()),
            Some(what) => Err(FormatError::Replaced {
                path: self.path.clone(),
                what,
            }),
        }
    }

    /// Checks a data file of the graph or of one of its layouts: it resolves to a place inside
    /// the graph directory, and has the padded size of logical length `len`.
    pub(crate) fn check_file(&self, path: &Path, len: u64) -> Result<(), FormatError> {
        check_inside(&self.root, path)?;
        check_size(path, len)
    }

    /// Checks that `path` resolves to a place inside the graph directory.
    pub(crate) fn check_inside(&self, path: &Path) -> Result<(), FormatError> {
        check_inside(&self.root, path)
    }

    /// Logical length of `names.bin` (0 without names).
    fn names_len(&self) -> u64 {
        self.manifest.files.get(NAMES_BIN).map_or(0, |f| f.len)
    }

    /// The vertex names, when the graph has them (see [`VertexNames`]): read and checked (every
    /// offset in bounds, every name UTF-8); a fault is an error naming the file.
    pub fn names(&self) -> Result<Option<VertexNames>, FormatError> {
        if !self.manifest.has_names() {
            return Ok(None);
        }
        VertexNames::read(&self.path, self.num_vertices(), self.names_len()).map(Some)
    }

    /// The directory's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The parsed manifest.
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// The manifest's records of the derived layouts, in its order (publishers keep it sorted
    /// by name), as of `open`.
    pub fn layouts(&self) -> &[LayoutRecord] {
        &self.manifest.layouts
    }

    /// The record of layout `name` (a subdirectory name, e.g. `grid-4`), if the manifest lists
    /// it.
    pub fn layout(&self, name: &str) -> Option<&LayoutRecord> {
        self.layouts().iter().find(|l| l.name() == name)
    }

    /// The records of the layouts of one kind, in the manifest's order.
    pub fn layouts_of(&self, kind: LayoutKind) -> impl Iterator<Item = &LayoutRecord> {
        self.layouts().iter().filter(move |l| l.kind() == kind)
    }

    /// Reads the metadata of layout `name`, listed in the manifest as a layout of `M`'s kind,
    /// pins the generation that holds it ([`LayoutPin`]) and checks the metadata against the
    /// graph and against the manifest's record; returns the generation's directory with them.
    ///
    /// The generation pinned is the one the manifest names once it is pinned: a writer may have
    /// published a new one since this graph was opened (or while it was being pinned), and then
    /// the new one is opened instead, up to [`OPEN_ATTEMPTS`] generations.
    pub(crate) fn layout_meta<M: LayoutMeta>(&self, name: &str) -> Result<(PathBuf, M, LayoutPin), FormatError> {
        let refuse = |reason: String| FormatError::Manifest {
            path: self.file_path(MANIFEST),
            reason,
        };
        let mut record = self.layout(name).cloned().ok_or_else(|| {
            refuse(format!(
                "layout {name} is not listed (make it with `{}`)",
                M::KIND.made_by()
            ))
        })?;
        for _ in 0..OPEN_ATTEMPTS {
            if record.kind() != M::KIND {
                return Err(refuse(format!(
                    "layout {name} is a {} layout, not a {} layout",
                    record.kind(),
                    M::KIND
                )));
            }
            let dir = self.path.join(record.dir_name());
            let pin = LayoutPin::shared(&dir);
            let manifest = read_manifest(&self.path)?;
            let current = manifest
                .layouts
                .iter()
                .find(|l| l.name() == name)
                .cloned()
                .ok_or_else(|| refuse(format!("layout {name} is no longer listed")))?;
            let same = current.dir_name() == record.dir_name();
            match pin {
                Ok(pin) if same => return self.checked_meta(&dir, name, &current, &manifest, pin),
                Err(PinFailure::Failed(e)) => return Err(e),
                // Named by the manifest before and after, and missing: damage, not a writer.
                Err(PinFailure::Gone(e)) if same => return Err(FormatError::io(dir.join(M::FILE), e)),
                _ => record = current,
            }
        }
        Err(FormatError::LayoutReplaced {
            path: self.path.join(name),
            attempts: OPEN_ATTEMPTS,
        })
    }

    /// Reads the metadata file of the pinned generation `dir` of layout `name` and checks it
    /// against the graph's `manifest` and the manifest's `record` of the layout.
    fn checked_meta<M: LayoutMeta>(
        &self,
        dir: &Path,
        name: &str,
        record: &LayoutRecord,
        manifest: &Manifest,
        pin: LayoutPin,
    ) -> Result<(PathBuf, M, LayoutPin), FormatError> {
        let meta_path = dir.join(M::FILE);
        // Resolving the metadata file catches a symlinked layout directory too.
        if meta_path.exists() {
            self.check_inside(&meta_path)?;
        }
        let meta = M::read(&meta_path)?;
        meta.check(manifest, name).map_err(|reason| FormatError::Manifest {
            path: meta_path.clone(),
            reason,
        })?;
        if let Some((field, recorded, found)) = record.first_difference(&meta.record(name)) {
            return Err(FormatError::RecordMismatch {
                path: meta_path,
                field,
                recorded,
                found,
            });
        }
        Ok((dir.to_path_buf(), meta, pin))
    }

    /// Number of vertices.
    pub fn num_vertices(&self) -> u64 {
        self.manifest.num_vertices
    }

    /// Path of a data file in this graph.
    pub fn file_path(&self, name: &str) -> PathBuf {
        self.path.join(name)
    }

    /// The compressed layout that holds the graph's lists when it has no plain lists (a
    /// compressed-only graph), opened and checked; `None` when the lists are plain.
    pub fn lists_layout(&self) -> Result<Option<CompressedLayout>, FormatError> {
        match self.manifest.lists_layout() {
            None => Ok(None),
            Some(record) => CompressedLayout::open(self, &record.name).map(Some),
        }
    }

    /// Whether the graph stores its lists plain (`out.adj`); see
    /// [`lists_layout`](Self::lists_layout) for a compressed-only graph's.
    pub fn has_plain_lists(&self) -> bool {
        self.manifest.has_plain_lists()
    }

    /// File names (idx, adj, wgt) of one direction (the adj file is absent from a
    /// compressed-only graph); `In` maps to `out.*` for undirected graphs.
    pub fn files_of(&self, dir: Direction) -> (&'static str, &'static str, &'static str) {
        match (dir, self.manifest.directed) {
            (Direction::In, true) => (IN_IDX, IN_ADJ, IN_WGT),
            _ => (OUT_IDX, OUT_ADJ, OUT_WGT),
        }
    }

    /// Reads and checks the offset index of one direction: starts at 0, never decreases, ends
    /// at the arc count.
    pub fn load_offsets(&self, dir: Direction) -> Result<Vec<u64>, FormatError> {
        self.load_offsets_stoppable(dir, &AtomicBool::new(false))
    }

    /// [`load_offsets`](Self::load_offsets), reading in pieces and polling `stop` (a run's stop
    /// request) before each, as [`read_range_stoppable`] does.
    pub fn load_offsets_stoppable(&self, dir: Direction, stop: &AtomicBool) -> Result<Vec<u64>, FormatError> {
        let (idx, _, _) = self.files_of(dir);
        read_offsets_stoppable(
            &self.file_path(idx),
            self.manifest.num_vertices as usize + 1,
            self.manifest.num_arcs,
            stop,
        )
    }

    /// Calls `f(v, degree)` for every vertex in order, from the offset index of `dir` read in
    /// pieces of [`DEGREE_PIECE`] entries: the degrees of a graph too large to hold them, in
    /// 8 MiB. The index is checked as [`load_offsets`](Self::load_offsets) checks it; a fault is
    /// an error naming the file and entry, once `f` has seen the degrees before it.
    pub fn for_each_degree(&self, dir: Direction, mut f: impl FnMut(u32, u64)) -> Result<(), FormatError> {
        let (idx, _, _) = self.files_of(dir);
        let path = self.file_path(idx);
        let (count, last) = (self.manifest.num_vertices + 1, self.manifest.num_arcs);
        let bad = |entry: u64, reason: String| FormatError::Index {
            path: path.clone(),
            entry,
            reason,
        };
        let mut index = Chunked::<u64>::open(&path, count, 8 * DEGREE_PIECE as usize)?;
        let mut previous = index.get(0)?;
        if previous != 0 {
            return Err(bad(0, format!("first offset is {previous}, expected 0")));
        }
        for entry in 1..count {
            let o = index.get(entry)?;
            if o < previous || o > last {
                return Err(bad(
                    entry,
                    format!("offset {o} is below the previous {previous} or past num_arcs {last}"),
                ));
            }
            f((entry - 1) as u32, o - previous);
            previous = o;
        }
        if previous != last {
            return Err(bad(count - 1, format!("last offset {previous} != num_arcs {last}")));
        }
        Ok(())
    }

    /// Original ID of internal vertex `v` (`v` below V): one read of the ID table when IDs
    /// were remapped.
    pub fn original_id(&self, v: u32) -> Result<u64, FormatError> {
        if self.manifest.ids_remapped {
            let id: Vec<u64> = read_range(&self.file_path(IDS), u64::from(v)..u64::from(v) + 1)?;
            Ok(id[0])
        } else {
            Ok(u64::from(v))
        }
    }

    /// The list of vertex `v` in direction `dir` (`v` below V), every ID checked to be below V:
    /// read from `*.adj`, or decoded for a compressed-only graph (checked against its degree).
    /// A few reads: for single lists, not for scans.
    pub fn read_list(&self, dir: Direction, v: u32) -> Result<Vec<u32>, FormatError> {
        let (idx, _, _) = self.files_of(dir);
        let path = self.file_path(idx);
        let offsets: Vec<u64> = read_range(&path, u64::from(v)..u64::from(v) + 2)?;
        if offsets[1] < offsets[0] || offsets[1] > self.manifest.num_arcs {
            return Err(FormatError::Index {
                path,
                entry: u64::from(v) + 1,
                reason: format!(
                    "offset {} is below the previous {} or past the arcs",
                    offsets[1], offsets[0]
                ),
            });
        }
        let layout = self.lists_layout()?;
        read_lists_from(self, layout.as_ref(), dir, v as usize, &offsets)
    }

    /// Loads one direction fully into memory, checking every neighbour ID is in range.
    pub fn load_csr(&self, dir: Direction, with_weights: bool) -> Result<Csr, FormatError> {
        self.load_csr_stoppable(dir, with_weights, &AtomicBool::new(false))
    }

    /// [`load_csr`](Self::load_csr), reading in pieces and polling `stop` (a run's stop request)
    /// before each, as [`read_range_stoppable`] does.
    pub fn load_csr_stoppable(
        &self,
        dir: Direction,
        with_weights: bool,
        stop: &AtomicBool,
    ) -> Result<Csr, FormatError> {
        let (idx, adj, _) = self.files_of(dir);
        let offsets = self.load_offsets_stoppable(dir, stop)?;
        if let Some(layout) = self.lists_layout()? {
            let csr = layout.load_csr_stoppable(self, dir, with_weights, stop)?;
            if let Some(v) = offsets.iter().zip(&csr.offsets).position(|(a, b)| a != b) {
                return Err(FormatError::Content {
                    path: layout.files_of(dir).1,
                    reason: format!(
                        "the list of vertex {} decodes to {} IDs, {idx} gives it {}",
                        v - 1,
                        csr.offsets[v] - csr.offsets[v - 1],
                        offsets[v] - offsets[v - 1]
                    ),
                });
            }
            return Ok(csr);
        }
        let apath = self.file_path(adj);
        let targets: Vec<u32> = read_range_stoppable(&apath, 0..self.manifest.num_arcs, stop)?;
        let n = self.manifest.num_vertices;
        if let Some(index) = targets.iter().position(|&t| u64::from(t) >= n) {
            let value = targets[index];
            return Err(FormatError::NeighbourOutOfRange {
                path: apath,
                index: index as u64,
                value,
                num_vertices: n,
            });
        }
        Ok(Csr {
            offsets,
            targets,
            weights: self.load_weights_stoppable(dir, with_weights, stop)?,
        })
    }

    /// The weights of direction `dir` whole, when `wanted` and the graph has them.
    pub fn load_weights(&self, dir: Direction, wanted: bool) -> Result<Option<Vec<f32>>, FormatError> {
        self.load_weights_stoppable(dir, wanted, &AtomicBool::new(false))
    }

    /// [`load_weights`](Self::load_weights), reading in pieces and polling `stop` (a run's stop
    /// request) before each, as [`read_range_stoppable`] does.
    pub fn load_weights_stoppable(
        &self,
        dir: Direction,
        wanted: bool,
        stop: &AtomicBool,
    ) -> Result<Option<Vec<f32>>, FormatError> {
        if !(wanted && self.manifest.weighted) {
            return Ok(None);
        }
        let (_, _, wgt) = self.files_of(dir);
        read_range_stoppable(&self.file_path(wgt), 0..self.manifest.num_arcs, stop).map(Some)
    }

    /// Original ID of every internal vertex (the identity when IDs were not remapped).
    pub fn original_ids(&self) -> Result<Vec<u64>, FormatError> {
        self.original_ids_stoppable(&AtomicBool::new(false))
    }

    /// [`original_ids`](Self::original_ids), reading in pieces and polling `stop` (a run's
    /// stop request) before each, as [`read_range_stoppable`] does.
    pub fn original_ids_stoppable(&self, stop: &AtomicBool) -> Result<Vec<u64>, FormatError> {
        if self.manifest.ids_remapped {
            read_range_stoppable(&self.file_path(IDS), 0..self.manifest.num_vertices, stop)
        } else {
            Ok((0..self.manifest.num_vertices).collect())
        }
    }
}

/// Reads the manifest of the graph directory `dir`, giving each layout listed by name only
/// the record its metadata file implies (see [`record_from_meta`]).
pub fn read_manifest(dir: &Path) -> Result<Manifest, FormatError> {
    let path = dir.join(MANIFEST);
    // A missing directory, or a file, is left to the manifest's read to report as what it is.
    if dir.is_dir() && matches!(path.try_exists(), Ok(false)) {
        return Err(FormatError::NotAGraph {
            path: dir.to_path_buf(),
            split: crate::is_split_dir(dir),
        });
    }
    Manifest::read(&path, |name| record_from_meta(dir, name))
}

/// The record of layout `name` of the graph directory `dir` from the layout's metadata file:
/// `grid.json` for a grid layout, `basc.json` for a BAsC selection, `shards.json` for a shard
/// layout (parsed, not checked: opening the layout checks it).
fn record_from_meta(dir: &Path, name: &str) -> Result<LayoutRecord, FormatError> {
    fn from<M: LayoutMeta>(layout: &Path, name: &str) -> Option<Result<LayoutRecord, FormatError>> {
        let path = layout.join(M::FILE);
        path.exists().then(|| M::read(&path).map(|meta| meta.record(name)))
    }
    let layout = dir.join(name);
    from::<GridMeta>(&layout, name)
        .or_else(|| from::<BascMeta>(&layout, name))
        .or_else(|| from::<ShardMeta>(&layout, name))
        .or_else(|| from::<CompressedMeta>(&layout, name))
        .unwrap_or_else(|| {
            Err(FormatError::Manifest {
                path: dir.join(MANIFEST),
                reason: format!(
                    "layout {name} is listed by name only and {name}/ has none of {}, {}, {} or {}",
                    GridMeta::FILE,
                    BascMeta::FILE,
                    ShardMeta::FILE,
                    CompressedMeta::FILE
                ),
            })
        })
}
