//! Grid layouts (`grid-P…/` inside a graph directory): the graph's stored arcs cut into blocks by
//! source range × destination range, for streaming engines (GridGraph, CLIP). The specification
//! is `docs/FORMAT.md`, section "Grid layout".
//!
//! The vertices are split into `rows` equal ranges of `row_len = ceil(V / rows)` vertices (and
//! `cols` ranges of `col_len` for destinations); block `(i, j)` holds every arc whose source is in
//! row range `i` and whose destination is in column range `j`. Blocks are stored contiguously in
//! row-major order (block `b = i * cols + j`) in `edges.bin` (8-byte `(src, dst)` records), with
//! `weights.f32` parallel to it for weighted graphs and `blocks.idx` (u64[blocks + 1]) giving
//! each block's edge range. `grid.json` ([`GridMeta`]) describes the shape, the order inside
//! blocks ([`GridSort`]) and every file with its length and xxh3.
//!
//! This module owns the names and the metadata, the reader ([`GridLayout`], whose `open` checks
//! metadata against the graph, file sizes and the block index in O(P²)), the atomic publisher
//! ([`GridBuilder`]) with its positioned writer ([`PositionedFile`]), and [`ArcStream`], a
//! bounded-memory sequential reader of a graph's CSR from which layouts are built and verified.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::Xxh3;

use crate::{padded_len, Direction, FileEntry, FormatError, GraphDir, Manifest, MANIFEST, OUT_ADJ};

/// Metadata file of a grid layout.
pub const GRID_META: &str = "grid.json";
/// Edge records of a grid layout: `(src u32, dst u32)`, 8 bytes each, blocks in row-major order.
pub const GRID_EDGES: &str = "edges.bin";
/// Weights of a grid layout, f32 parallel to [`GRID_EDGES`] (weighted graphs only).
pub const GRID_WEIGHTS: &str = "weights.f32";
/// Block index of a grid layout: u64[blocks + 1] edge offsets.
pub const GRID_INDEX: &str = "blocks.idx";
/// Value of `grid.json`'s `format` field.
pub const GRID_FORMAT: &str = "diskgraph-grid";
/// Grid layout version this crate reads and writes.
pub const GRID_VERSION: u32 = 1;
/// Largest number of ranges on either axis (so at most 2^24 blocks and a 128 MiB block index).
pub const MAX_GRID: u32 = 4096;
/// Bytes of one edge record in [`GRID_EDGES`].
pub const EDGE_BYTES: u64 = 8;
/// Longest name of an algorithm-supplied sort key.
pub const MAX_KEY_NAME: usize = 64;

/// One edge record of [`GRID_EDGES`], as stored (little-endian `src` then `dst`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, bytemuck::Pod, bytemuck::Zeroable)]
pub struct GridEdge {
    /// Source vertex.
    pub src: u32,
    /// Destination vertex.
    pub dst: u32,
}

/// The order of the edges inside each block, and with it the layout's shape and name.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum GridSort {
    /// P×P blocks, edges by (src, dst) inside a block: the file is in CLIP's grid order
    /// (src/len, dst/len, src, dst). Directory `grid-P`.
    Grid,
    /// P×1 row stripes (one block per source range, destinations unrestricted), edges by
    /// (src, dst): the whole file is source-sorted. Directory `grid-P-source`.
    Source,
    /// P×P blocks, edges by (dst, src) inside a block. Directory `grid-P-destination`.
    Destination,
    /// P×P blocks, edges by an algorithm-supplied key (CLIP's `Sort(F_s)`), ties by
    /// (src, dst). Directory `grid-P-NAME`; stored as `key:NAME`.
    Key(String),
}

impl GridSort {
    /// The layout's directory name for `rows` row ranges.
    pub fn layout_name(&self, rows: u32) -> String {
        match self {
            GridSort::Grid => format!("grid-{rows}"),
            GridSort::Source => format!("grid-{rows}-source"),
            GridSort::Destination => format!("grid-{rows}-destination"),
            GridSort::Key(name) => format!("grid-{rows}-{name}"),
        }
    }

    /// Number of column ranges for `rows` row ranges: 1 for [`GridSort::Source`], else `rows`.
    pub fn cols_for(&self, rows: u32) -> u32 {
        match self {
            GridSort::Source => 1,
            _ => rows,
        }
    }
}

/// Checks the name of an algorithm-supplied key: 1 to [`MAX_KEY_NAME`] characters of `a-z`,
/// `0-9`, `_` and `-`, starting with a letter, and none of `grid`, `source`, `destination`.
pub fn check_key_name(name: &str) -> Result<(), String> {
    let ok_chars = name
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-');
    let starts = name.bytes().next().is_some_and(|b| b.is_ascii_lowercase());
    if !ok_chars || !starts || name.len() > MAX_KEY_NAME {
        return Err(format!(
            "sort key name {name:?} must be 1 to {MAX_KEY_NAME} characters of a-z, 0-9, _ and -, starting with a letter"
        ));
    }
    if ["grid", "source", "destination"].contains(&name) {
        return Err(format!("sort key name {name:?} is reserved"));
    }
    Ok(())
}

impl std::fmt::Display for GridSort {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GridSort::Grid => f.write_str("grid"),
            GridSort::Source => f.write_str("source"),
            GridSort::Destination => f.write_str("destination"),
            GridSort::Key(name) => write!(f, "key:{name}"),
        }
    }
}

impl std::str::FromStr for GridSort {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "grid" => Ok(GridSort::Grid),
            "source" => Ok(GridSort::Source),
            "destination" => Ok(GridSort::Destination),
            _ => match s.strip_prefix("key:") {
                Some(name) => check_key_name(name).map(|_| GridSort::Key(name.to_string())),
                None => Err(format!("unknown sort {s:?} (grid, source, destination or key:NAME)")),
            },
        }
    }
}

impl Serialize for GridSort {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for GridSort {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d)?.parse().map_err(serde::de::Error::custom)
    }
}

/// The geometry of a grid: which range each vertex falls in and which block each arc goes to.
///
/// Row range `i` is `[min(V, i·row_len), min(V, (i+1)·row_len))` with `row_len = ceil(V / rows)`
/// (ranges past the last vertex are empty); columns likewise with `col_len = ceil(V / cols)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GridShape {
    num_vertices: u64,
    rows: u32,
    cols: u32,
    row_len: u64,
    col_len: u64,
}

impl GridShape {
    /// The shape for `num_vertices` vertices in `rows` × `cols` ranges.
    ///
    /// # Panics
    /// If `rows` or `cols` is zero.
    pub fn new(num_vertices: u64, rows: u32, cols: u32) -> GridShape {
        assert!(rows > 0 && cols > 0, "a grid needs at least one row and one column");
        GridShape {
            num_vertices,
            rows,
            cols,
            row_len: num_vertices.div_ceil(u64::from(rows)),
            col_len: num_vertices.div_ceil(u64::from(cols)),
        }
    }

    /// Number of vertices V.
    pub fn num_vertices(&self) -> u64 {
        self.num_vertices
    }

    /// Number of row (source) ranges.
    pub fn rows(&self) -> u32 {
        self.rows
    }

    /// Number of column (destination) ranges.
    pub fn cols(&self) -> u32 {
        self.cols
    }

    /// Vertices per row range, `ceil(V / rows)`.
    pub fn row_len(&self) -> u64 {
        self.row_len
    }

    /// Vertices per column range, `ceil(V / cols)`.
    pub fn col_len(&self) -> u64 {
        self.col_len
    }

    /// Number of blocks, `rows × cols`.
    pub fn num_blocks(&self) -> usize {
        self.rows as usize * self.cols as usize
    }

    /// Row range of vertex `v` (which must be below V).
    pub fn row_of(&self, v: u32) -> u32 {
        (u64::from(v) / self.row_len) as u32
    }

    /// Column range of vertex `v` (which must be below V).
    pub fn col_of(&self, v: u32) -> u32 {
        (u64::from(v) / self.col_len) as u32
    }

    /// Block number of row `i`, column `j`: `i × cols + j`.
    pub fn block(&self, row: u32, col: u32) -> usize {
        row as usize * self.cols as usize + col as usize
    }

    /// Block holding the arc `src → dst`.
    pub fn block_of(&self, src: u32, dst: u32) -> usize {
        self.block(self.row_of(src), self.col_of(dst))
    }

    /// (row, column) of block `b`.
    pub fn block_position(&self, b: usize) -> (u32, u32) {
        ((b / self.cols as usize) as u32, (b % self.cols as usize) as u32)
    }

    /// Vertices of row range `i`.
    pub fn row_range(&self, i: u32) -> Range<u64> {
        range(self.num_vertices, self.row_len, i)
    }

    /// Vertices of column range `j`.
    pub fn col_range(&self, j: u32) -> Range<u64> {
        range(self.num_vertices, self.col_len, j)
    }

    /// Sources allowed in block `b`.
    pub fn source_range(&self, b: usize) -> Range<u64> {
        self.row_range(self.block_position(b).0)
    }

    /// Destinations allowed in block `b`.
    pub fn destination_range(&self, b: usize) -> Range<u64> {
        self.col_range(self.block_position(b).1)
    }
}

fn range(num_vertices: u64, len: u64, i: u32) -> Range<u64> {
    let start = len.saturating_mul(u64::from(i)).min(num_vertices);
    start..start.saturating_add(len).min(num_vertices)
}

/// `grid.json`: what a grid layout holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GridMeta {
    /// Always [`GRID_FORMAT`].
    pub format: String,
    /// Always [`GRID_VERSION`].
    pub version: u32,
    /// Number of row (source) ranges P.
    pub rows: u32,
    /// Number of column (destination) ranges: P, or 1 for a source-sorted layout.
    pub cols: u32,
    /// Vertices per row range, `ceil(V / rows)`.
    pub row_len: u64,
    /// Vertices per column range, `ceil(V / cols)`.
    pub col_len: u64,
    /// Order of the edges inside each block.
    pub sort: GridSort,
    /// V of the graph the layout was built from.
    pub num_vertices: u64,
    /// Number of stored arcs (= the graph's `num_arcs`).
    pub num_arcs: u64,
    /// Whether `weights.f32` is present.
    pub weighted: bool,
    /// xxh3 of the graph's `out.adj`: ties the layout to the graph it was built from.
    pub graph_out_adj: String,
    /// Every data file of the layout, by name.
    pub files: BTreeMap<String, FileEntry>,
    /// The tool and version that wrote the layout.
    pub tool: String,
}

impl GridMeta {
    /// Metadata for a layout of `graph` with `rows` row ranges in `sort` order, holding `files`.
    pub fn new(graph: &Manifest, sort: GridSort, rows: u32, files: BTreeMap<String, FileEntry>) -> GridMeta {
        let cols = sort.cols_for(rows);
        let shape = GridShape::new(graph.num_vertices, rows.max(1), cols.max(1));
        GridMeta {
            format: GRID_FORMAT.into(),
            version: GRID_VERSION,
            rows,
            cols,
            row_len: shape.row_len,
            col_len: shape.col_len,
            sort,
            num_vertices: graph.num_vertices,
            num_arcs: graph.num_arcs,
            weighted: graph.weighted,
            graph_out_adj: graph.files.get(OUT_ADJ).map(|f| f.xxh3.clone()).unwrap_or_default(),
            files,
            tool: format!("diskgraph {}", env!("CARGO_PKG_VERSION")),
        }
    }

    /// Parses `grid.json` at `path` (no consistency checks; see [`GridLayout::open`]).
    pub fn read(path: &Path) -> Result<GridMeta, FormatError> {
        let bytes = std::fs::read(path).map_err(|e| FormatError::io(path, e))?;
        serde_json::from_slice(&bytes).map_err(|e| FormatError::Manifest {
            path: path.to_path_buf(),
            reason: e.to_string(),
        })
    }

    /// The layout's directory name.
    pub fn name(&self) -> String {
        self.sort.layout_name(self.rows)
    }

    /// The grid geometry.
    ///
    /// # Panics
    /// If `rows` or `cols` is zero (never for metadata that passed [`GridLayout::open`]).
    pub fn shape(&self) -> GridShape {
        GridShape::new(self.num_vertices, self.rows, self.cols)
    }

    /// The files the layout must hold.
    pub fn required_files(&self) -> Vec<&'static str> {
        let mut f = vec![GRID_EDGES, GRID_INDEX];
        if self.weighted {
            f.push(GRID_WEIGHTS);
        }
        f
    }

    /// Expected logical length of a layout file, from the counts.
    pub fn expected_len(&self, name: &str) -> Option<u64> {
        let blocks = u64::from(self.rows) * u64::from(self.cols);
        match name {
            GRID_EDGES => Some(self.num_arcs.saturating_mul(EDGE_BYTES)),
            GRID_WEIGHTS => Some(self.num_arcs.saturating_mul(4)),
            GRID_INDEX => Some((blocks + 1) * 8),
            _ => None,
        }
    }

    /// Checks the metadata against itself, the graph's manifest and the directory `name`.
    pub fn check(&self, graph: &Manifest, name: &str) -> Result<(), String> {
        if self.format != GRID_FORMAT || self.version != GRID_VERSION {
            return Err(format!(
                "format {:?} version {} is not {GRID_FORMAT:?} version {GRID_VERSION}",
                self.format, self.version
            ));
        }
        self.check_shape()?;
        if self.name() != name {
            return Err(format!("metadata describes layout {}, not {name}", self.name()));
        }
        self.check_graph(graph)?;
        self.check_files()
    }

    fn check_shape(&self) -> Result<(), String> {
        if !(1..=MAX_GRID).contains(&self.rows) || !(1..=MAX_GRID).contains(&self.cols) {
            return Err(format!(
                "{}×{} blocks: each side must be 1 to {MAX_GRID}",
                self.rows, self.cols
            ));
        }
        if self.cols != self.sort.cols_for(self.rows) {
            return Err(format!(
                "sort {} needs {} columns, not {}",
                self.sort,
                self.sort.cols_for(self.rows),
                self.cols
            ));
        }
        let shape = self.shape();
        if (self.row_len, self.col_len) != (shape.row_len, shape.col_len) {
            return Err(format!(
                "range lengths {}/{} disagree with ceil(V / rows) {} and ceil(V / cols) {}",
                self.row_len, self.col_len, shape.row_len, shape.col_len
            ));
        }
        Ok(())
    }

    fn check_graph(&self, graph: &Manifest) -> Result<(), String> {
        let ours = (self.num_vertices, self.num_arcs, self.weighted);
        let theirs = (graph.num_vertices, graph.num_arcs, graph.weighted);
        if ours != theirs {
            return Err(format!(
                "(vertices, arcs, weighted) {ours:?} disagree with the graph's {theirs:?}"
            ));
        }
        let adj = graph.files.get(OUT_ADJ).map(|f| f.xxh3.as_str());
        if adj != Some(self.graph_out_adj.as_str()) {
            return Err(format!(
                "built from a graph whose out.adj has xxh3 {}, this graph's is {}",
                self.graph_out_adj,
                adj.unwrap_or("missing")
            ));
        }
        Ok(())
    }

    fn check_files(&self) -> Result<(), String> {
        let required = self.required_files();
        if let Some(extra) = self.files.keys().find(|k| !required.contains(&k.as_str())) {
            return Err(format!("unexpected file {extra} listed"));
        }
        for name in required {
            let entry = self
                .files
                .get(name)
                .ok_or_else(|| format!("file {name} is not listed"))?;
            let want = self.expected_len(name).expect("required files have lengths");
            if entry.len != want {
                return Err(format!("{name} has length {}, counts imply {want}", entry.len));
            }
            if entry.xxh3.len() != 16 || !entry.xxh3.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(format!("{name} has a malformed checksum {:?}", entry.xxh3));
            }
        }
        Ok(())
    }
}

/// One block as [`GridLayout::read_block`] returns it: its `(src, dst)` edges and, when the
/// layout is weighted, their weights.
pub type Block = (Vec<(u32, u32)>, Option<Vec<f32>>);

/// An opened grid layout: its metadata agrees with the graph, every file has the size the
/// metadata implies, and the block index starts at 0, never decreases and ends at the arc count.
#[derive(Clone, Debug)]
pub struct GridLayout {
    path: PathBuf,
    name: String,
    meta: GridMeta,
    shape: GridShape,
    index: Vec<u64>,
}

impl GridLayout {
    /// Opens and checks the layout `name` of `graph` (O(P²)). The layout must be listed in the
    /// graph's manifest; a missing or inconsistent file is an error naming it.
    pub fn open(graph: &GraphDir, name: &str) -> Result<GridLayout, FormatError> {
        if !graph.layouts().iter().any(|l| l == name) {
            return Err(FormatError::Manifest {
                path: graph.file_path(MANIFEST),
                reason: format!("layout {name} is not listed"),
            });
        }
        let path = graph.path().join(name);
        let mpath = path.join(GRID_META);
        let meta = GridMeta::read(&mpath)?;
        meta.check(graph.manifest(), name)
            .map_err(|reason| FormatError::Manifest { path: mpath, reason })?;
        for (file, entry) in &meta.files {
            check_size(&path.join(file), entry.len)?;
        }
        let shape = meta.shape();
        let index = read_index(&path.join(GRID_INDEX), shape.num_blocks() + 1, meta.num_arcs)?;
        Ok(GridLayout {
            name: name.to_string(),
            path,
            meta,
            shape,
            index,
        })
    }

    /// The layout's directory name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The layout's directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The parsed `grid.json`.
    pub fn meta(&self) -> &GridMeta {
        &self.meta
    }

    /// The grid geometry (ranges, block numbering).
    pub fn shape(&self) -> &GridShape {
        &self.shape
    }

    /// Order of the edges inside each block.
    pub fn sort(&self) -> &GridSort {
        &self.meta.sort
    }

    /// Number of row (source) ranges.
    pub fn rows(&self) -> u32 {
        self.shape.rows
    }

    /// Number of column (destination) ranges.
    pub fn cols(&self) -> u32 {
        self.shape.cols
    }

    /// Vertices per row range.
    pub fn row_len(&self) -> u64 {
        self.shape.row_len
    }

    /// Vertices per column range.
    pub fn col_len(&self) -> u64 {
        self.shape.col_len
    }

    /// Number of blocks.
    pub fn num_blocks(&self) -> usize {
        self.shape.num_blocks()
    }

    /// Number of edges in the layout.
    pub fn num_arcs(&self) -> u64 {
        self.meta.num_arcs
    }

    /// Whether the layout has `weights.f32`.
    pub fn weighted(&self) -> bool {
        self.meta.weighted
    }

    /// The block index: block `b`'s edges are `index[b]..index[b + 1]`.
    pub fn index(&self) -> &[u64] {
        &self.index
    }

    /// Edge numbers of block `b` (multiply by [`EDGE_BYTES`] for offsets in `edges.bin`, by 4
    /// in `weights.f32`).
    ///
    /// # Panics
    /// If `b` is not below [`GridLayout::num_blocks`].
    pub fn block_edges(&self, b: usize) -> Range<u64> {
        self.index[b]..self.index[b + 1]
    }

    /// Number of edges in block `b`.
    ///
    /// # Panics
    /// If `b` is not below [`GridLayout::num_blocks`].
    pub fn block_len(&self, b: usize) -> u64 {
        self.index[b + 1] - self.index[b]
    }

    /// Sources allowed in block `b`.
    pub fn source_range(&self, b: usize) -> Range<u64> {
        self.shape.source_range(b)
    }

    /// Destinations allowed in block `b`.
    pub fn destination_range(&self, b: usize) -> Range<u64> {
        self.shape.destination_range(b)
    }

    /// Path of a file of the layout.
    pub fn file_path(&self, name: &str) -> PathBuf {
        self.path.join(name)
    }

    /// Path of `edges.bin`.
    pub fn edges_path(&self) -> PathBuf {
        self.file_path(GRID_EDGES)
    }

    /// Path of `weights.f32`, when the layout is weighted.
    pub fn weights_path(&self) -> Option<PathBuf> {
        self.meta.weighted.then(|| self.file_path(GRID_WEIGHTS))
    }

    /// Path of `blocks.idx`.
    pub fn index_path(&self) -> PathBuf {
        self.file_path(GRID_INDEX)
    }

    /// Reads block `b`: its edges and, when weighted, their weights. Every edge is checked to lie
    /// in the block's ranges (a corrupt file is an error naming it, never a bad index later).
    /// Meant for tests and small tools; engines read blocks through the I/O layer.
    ///
    /// # Panics
    /// If `b` is not below [`GridLayout::num_blocks`].
    pub fn read_block(&self, b: usize) -> Result<Block, FormatError> {
        let range = self.block_edges(b);
        let edges = self.read_edges(range.clone())?;
        let (rows, cols) = (self.source_range(b), self.destination_range(b));
        if let Some(i) = edges
            .iter()
            .position(|e| !rows.contains(&u64::from(e.src)) || !cols.contains(&u64::from(e.dst)))
        {
            let e = edges[i];
            return Err(FormatError::Content {
                path: self.edges_path(),
                reason: format!(
                    "edge {} ({} -> {}) lies outside block {b} (sources {rows:?}, destinations {cols:?})",
                    range.start + i as u64,
                    e.src,
                    e.dst
                ),
            });
        }
        let weights = match self.weighted() {
            true => Some(self.read_weights(range)?),
            false => None,
        };
        Ok((edges.iter().map(|e| (e.src, e.dst)).collect(), weights))
    }

    /// Edge records `range` of `edges.bin`, unchecked.
    pub(crate) fn read_edges(&self, range: Range<u64>) -> Result<Vec<GridEdge>, FormatError> {
        read_at(&self.edges_path(), range)
    }

    /// Weights `range` of `weights.f32`.
    pub(crate) fn read_weights(&self, range: Range<u64>) -> Result<Vec<f32>, FormatError> {
        read_at(&self.file_path(GRID_WEIGHTS), range)
    }
}

/// Checks that `path` has the padded size of logical length `len`.
fn check_size(path: &Path, len: u64) -> Result<(), FormatError> {
    let actual = std::fs::metadata(path).map_err(|e| FormatError::io(path, e))?.len();
    let expected = padded_len(len);
    if actual != expected {
        return Err(FormatError::FileSize {
            path: path.to_path_buf(),
            expected,
            actual,
            logical: len,
        });
    }
    Ok(())
}

/// Reads a block index of `count` entries and checks it: 0 first, never decreasing, `arcs` last.
fn read_index(path: &Path, count: usize, arcs: u64) -> Result<Vec<u64>, FormatError> {
    let index: Vec<u64> = read_at(path, 0..count as u64)?;
    let bad = |entry: usize, reason: String| FormatError::Index {
        path: path.to_path_buf(),
        entry: entry as u64,
        reason,
    };
    if index[0] != 0 {
        return Err(bad(0, format!("first offset is {}, expected 0", index[0])));
    }
    if let Some(i) = index.windows(2).position(|w| w[1] < w[0]) {
        return Err(bad(
            i + 1,
            format!("offset {} is below the previous {}", index[i + 1], index[i]),
        ));
    }
    if index[count - 1] != arcs {
        return Err(bad(
            count - 1,
            format!("last offset {} != num_arcs {arcs}", index[count - 1]),
        ));
    }
    Ok(index)
}

/// Reads elements `range` of a file of `T`s.
fn read_at<T: bytemuck::Pod>(path: &Path, range: Range<u64>) -> Result<Vec<T>, FormatError> {
    let size = std::mem::size_of::<T>() as u64;
    let mut values = vec![T::zeroed(); (range.end - range.start) as usize];
    let mut f = File::open(path).map_err(|e| FormatError::io(path, e))?;
    f.seek(SeekFrom::Start(range.start * size))
        .and_then(|_| f.read_exact(bytemuck::cast_slice_mut(&mut values)))
        .map_err(|e| FormatError::io(path, e))?;
    Ok(values)
}

/// Checks a derived layout's directory name: non-empty, at most 255 bytes, no `/` or NUL, and not
/// starting with `.` (temporary names start with a dot).
pub fn check_layout_name(name: &str) -> Result<(), String> {
    if name.is_empty() || name.len() > 255 || name.starts_with('.') || name.contains(['/', '\0']) {
        return Err(format!("{name:?} is not a valid layout directory name"));
    }
    Ok(())
}

/// Builds a derived layout (a grid, or a BAsC selection through
/// [`publish_with`](Self::publish_with)) in a temporary directory inside the graph
/// (`.NAME.tmp-<pid>-<nanos>`) and publishes it: rename into place, then an atomic rewrite of
/// `manifest.json` listing it.
/// Dropping a builder that was not published removes the temporary directory.
pub struct GridBuilder {
    graph_path: PathBuf,
    name: String,
    tmp_path: PathBuf,
    force: bool,
    published: bool,
}

impl GridBuilder {
    /// Starts building layout `name` inside `graph`. Fails if the graph already lists it and
    /// `force` is false. Removes temporary directories left by earlier runs that died.
    pub fn create(graph: &GraphDir, name: &str, force: bool) -> Result<GridBuilder, FormatError> {
        let graph_path = graph.path().to_path_buf();
        check_layout_name(name).map_err(|reason| FormatError::Manifest {
            path: graph.file_path(MANIFEST),
            reason,
        })?;
        if !force && graph.layouts().iter().any(|l| l == name) {
            return Err(FormatError::Exists {
                path: graph_path.join(name),
            });
        }
        {
            let _lock = lock_dir(&graph_path)?;
            remove_stale_temporaries(&graph_path);
        }
        let tmp_path = graph_path.join(temporary_name(name, "tmp"));
        std::fs::create_dir(&tmp_path).map_err(|e| FormatError::io(&tmp_path, e))?;
        Ok(GridBuilder {
            graph_path,
            name: name.to_string(),
            tmp_path,
            force,
            published: false,
        })
    }

    /// The temporary directory being filled (scratch files may go here; they are removed on
    /// publish).
    pub fn dir(&self) -> &Path {
        &self.tmp_path
    }

    /// The layout's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Creates a data file of logical length `len`, written at arbitrary offsets (or front to
    /// back, which saves the checksum pass).
    pub fn positioned(&self, name: &str, len: u64) -> Result<PositionedFile, FormatError> {
        PositionedFile::create(&self.tmp_path, name, len)
    }

    /// Writes `grid.json`, removes files the metadata does not list, renames the directory into
    /// place and lists it in the graph's manifest (replacing an existing layout only with
    /// `force`). Under a lock on the graph directory, so concurrent publishers do not lose
    /// each other's manifest entries.
    ///
    /// Replacing first rewrites the manifest without the old layout, then swaps directories,
    /// then lists the new one: a crash at any point leaves a manifest whose layouts all exist.
    pub fn publish(self, meta: &GridMeta) -> Result<PathBuf, FormatError> {
        let mut json = serde_json::to_vec_pretty(meta).expect("grid metadata serialises");
        json.push(b'\n');
        let name = self.name.clone();
        let gpath = self.tmp_path.join(GRID_META);
        self.publish_with(GRID_META, &json, &meta.files, |manifest| {
            meta.check(manifest, &name)
                .map_err(|reason| FormatError::Manifest { path: gpath, reason })
        })
    }

    /// [`publish`](Self::publish) for any kind of layout: `check(graph manifest)` under the
    /// lock, then the metadata file `meta_name` with `json`, keeping only `files` besides it.
    pub fn publish_with(
        mut self,
        meta_name: &str,
        json: &[u8],
        files: &BTreeMap<String, FileEntry>,
        check: impl FnOnce(&Manifest) -> Result<(), FormatError>,
    ) -> Result<PathBuf, FormatError> {
        let _lock = lock_dir(&self.graph_path)?;
        let mut manifest = Manifest::read(&self.graph_path.join(MANIFEST))?;
        check(&manifest)?;
        self.write_meta(meta_name, json, files)?;
        self.unlist_replaced(&mut manifest)?;
        let old = self.move_into_place()?;
        manifest.layouts.push(self.name.clone());
        manifest.layouts.sort();
        manifest.write_atomic(&self.graph_path)?;
        if let Some(old) = old {
            remove_path(&old).map_err(|e| FormatError::io(&old, e))?;
        }
        Ok(self.graph_path.join(&self.name))
    }

    /// If the manifest lists the layout already: an error without `force`, else the manifest
    /// is rewritten without it.
    fn unlist_replaced(&self, manifest: &mut Manifest) -> Result<(), FormatError> {
        if !manifest.layouts.contains(&self.name) {
            return Ok(());
        }
        if !self.force {
            return Err(FormatError::Exists {
                path: self.graph_path.join(&self.name),
            });
        }
        manifest.layouts.retain(|l| *l != self.name);
        manifest.write_atomic(&self.graph_path)
    }

    /// Renames whatever holds the layout's name aside and the temporary directory into place;
    /// returns the path of the entry moved aside, if any.
    fn move_into_place(&mut self) -> Result<Option<PathBuf>, FormatError> {
        let target = self.graph_path.join(&self.name);
        let old = self.graph_path.join(temporary_name(&self.name, "old"));
        let replaced = std::fs::symlink_metadata(&target).is_ok();
        if replaced {
            std::fs::rename(&target, &old).map_err(|e| FormatError::io(&target, e))?;
        }
        std::fs::rename(&self.tmp_path, &target).map_err(|e| FormatError::io(&target, e))?;
        self.published = true;
        Ok(replaced.then_some(old))
    }

    /// Removes entries other than `files` from the temporary directory and writes the metadata
    /// file `meta_name`, synced.
    fn write_meta(&self, meta_name: &str, json: &[u8], files: &BTreeMap<String, FileEntry>) -> Result<(), FormatError> {
        let io = |p: &Path, e| FormatError::io(p, e);
        let entries = std::fs::read_dir(&self.tmp_path).map_err(|e| io(&self.tmp_path, e))?;
        for entry in entries {
            let entry = entry.map_err(|e| io(&self.tmp_path, e))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if !files.contains_key(&name) {
                remove_path(&entry.path()).map_err(|e| io(&entry.path(), e))?;
            }
        }
        write_synced(&self.tmp_path.join(meta_name), json)?;
        sync_dir(&self.tmp_path);
        Ok(())
    }
}

impl Drop for GridBuilder {
    fn drop(&mut self) {
        if !self.published {
            let _ = std::fs::remove_dir_all(&self.tmp_path);
        }
    }
}

/// `.NAME.KIND-<pid>-<nanos>`: a temporary name no reader treats as a layout.
pub(crate) fn temporary_name(name: &str, kind: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    format!(".{name}.{kind}-{}-{nanos}", std::process::id())
}

/// The writer's pid of a temporary name made by [`temporary_name`], if `name` is one.
fn temporary_pid(name: &str) -> Option<u32> {
    let rest = name.strip_prefix('.')?;
    let at = rest.rfind(".tmp-").or_else(|| rest.rfind(".old-"))?;
    let (pid, nanos) = rest[at + 5..].split_once('-')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    (digits(pid) && digits(nanos)).then(|| pid.parse().ok()).flatten()
}

/// Removes temporary entries of writers that are no longer running (judged by `/proc/<pid>`;
/// entries of this process are left alone). Best effort: leftovers are harmless.
fn remove_stale_temporaries(graph: &Path) {
    let Ok(entries) = std::fs::read_dir(graph) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(pid) = temporary_pid(&name) else { continue };
        if pid != std::process::id() && !Path::new("/proc").join(pid.to_string()).exists() {
            let _ = remove_path(&entry.path());
        }
    }
}

fn remove_path(path: &Path) -> std::io::Result<()> {
    match std::fs::symlink_metadata(path)?.is_dir() {
        true => std::fs::remove_dir_all(path),
        false => std::fs::remove_file(path),
    }
}

/// An exclusive lock on a directory, released when the returned handle drops.
fn lock_dir(path: &Path) -> Result<File, FormatError> {
    let f = File::open(path).map_err(|e| FormatError::io(path, e))?;
    f.lock().map_err(|e| FormatError::io(path, e))?;
    Ok(f)
}

/// Creates `path` with `bytes` and syncs it.
pub(crate) fn write_synced(path: &Path, bytes: &[u8]) -> Result<(), FormatError> {
    let mut f = File::create(path).map_err(|e| FormatError::io(path, e))?;
    f.write_all(bytes)
        .and_then(|_| f.sync_all())
        .map_err(|e| FormatError::io(path, e))
}

/// Syncs a directory's entries (best effort: not every platform allows it).
pub(crate) fn sync_dir(path: &Path) {
    if let Ok(d) = File::open(path) {
        let _ = d.sync_all();
    }
}

/// A data file of known logical length written at arbitrary offsets (several blocks at once).
/// `finish` checks every byte was written once, pads to [`crate::PAGE`], and syncs. The xxh3 of
/// the logical bytes is computed as the bytes pass while every write continues where the last
/// one ended, else by reading the file back once at the end.
pub struct PositionedFile {
    path: PathBuf,
    name: String,
    file: File,
    len: u64,
    written: u64,
    hasher: Option<Xxh3>,
}

/// Read buffer of [`PositionedFile::finish`]'s checksum pass.
const HASH_BUFFER: usize = 1 << 20;

impl PositionedFile {
    fn create(dir: &Path, name: &str, len: u64) -> Result<PositionedFile, FormatError> {
        let path = dir.join(name);
        let file = File::options()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(|e| FormatError::io(&path, e))?;
        Ok(PositionedFile {
            path,
            name: name.to_string(),
            file,
            len,
            written: 0,
            hasher: Some(Xxh3::new()),
        })
    }

    /// Writes `bytes` at byte `offset`.
    ///
    /// # Panics
    /// If the bytes would end past the logical length: the caller computed offsets wrongly.
    pub fn write_at(&mut self, offset: u64, bytes: &[u8]) -> Result<(), FormatError> {
        assert!(
            offset + bytes.len() as u64 <= self.len,
            "write past the end of {}",
            self.name
        );
        let io = |e| FormatError::io(&self.path, e);
        self.file.seek(SeekFrom::Start(offset)).map_err(io)?;
        self.file.write_all(bytes).map_err(io)?;
        match &mut self.hasher {
            Some(h) if offset == self.written => h.update(bytes),
            _ => self.hasher = None,
        }
        self.written += bytes.len() as u64;
        Ok(())
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Pads, checksums and syncs; returns the file's name and metadata entry.
    pub fn finish(mut self) -> Result<(String, FileEntry), FormatError> {
        if self.written != self.len {
            return Err(FormatError::Content {
                path: self.path.clone(),
                reason: format!("{} bytes written, {} expected", self.written, self.len),
            });
        }
        let digest = match self.hasher.take() {
            Some(h) => h.digest(),
            None => self.read_back_hash()?,
        };
        let io = |e| FormatError::io(&self.path, e);
        self.file.set_len(padded_len(self.len)).map_err(io)?;
        self.file.sync_all().map_err(io)?;
        let entry = FileEntry {
            len: self.len,
            xxh3: format!("{digest:016x}"),
        };
        Ok((self.name, entry))
    }

    fn read_back_hash(&mut self) -> Result<u64, FormatError> {
        let io = |e| FormatError::io(&self.path, e);
        self.file.seek(SeekFrom::Start(0)).map_err(io)?;
        let mut hasher = Xxh3::new();
        let mut buf = vec![0u8; HASH_BUFFER.min(self.len as usize)];
        let mut left = self.len;
        while left > 0 {
            let n = (left as usize).min(buf.len());
            self.file.read_exact(&mut buf[..n]).map_err(io)?;
            hasher.update(&buf[..n]);
            left -= n as u64;
        }
        Ok(hasher.digest())
    }
}

/// Reads one direction of a graph's CSR front to back through fixed-size buffers, so a graph of
/// any size streams in bounded memory: `next_vertex` moves to the next source and gives its
/// degree, `next_arc` the next neighbour (and weight) of that source. Arcs not asked for are
/// skipped without being read. Offsets and neighbour IDs are checked as they are read.
pub struct ArcStream {
    idx: Chunked<u64>,
    adj: Chunked<u32>,
    wgt: Option<Chunked<f32>>,
    num_vertices: u64,
    num_arcs: u64,
    vertex: u64,
    next: u64,
    end: u64,
}

impl ArcStream {
    /// A stream over direction `dir` of `graph` (`In` is the transpose, `out.*` for undirected
    /// graphs), with weights if `weights` and the graph has them, each of the (up to) three files
    /// read through a buffer of `buffer_bytes`.
    pub fn open(
        graph: &GraphDir,
        dir: Direction,
        weights: bool,
        buffer_bytes: usize,
    ) -> Result<ArcStream, FormatError> {
        let (idx, adj, wgt) = graph.files_of(dir);
        let m = graph.manifest();
        let (n, arcs) = (m.num_vertices, m.num_arcs);
        let mut idx = Chunked::open(&graph.file_path(idx), n + 1, buffer_bytes)?;
        let first = idx.get(0)?;
        Ok(ArcStream {
            adj: Chunked::open(&graph.file_path(adj), arcs, buffer_bytes)?,
            wgt: match weights && m.weighted {
                true => Some(Chunked::open(&graph.file_path(wgt), arcs, buffer_bytes)?),
                false => None,
            },
            idx,
            num_vertices: n,
            num_arcs: arcs,
            vertex: 0,
            next: first,
            end: first,
        })
    }

    /// Moves to the next vertex: `(v, degree)`, or `None` after the last vertex.
    pub fn next_vertex(&mut self) -> Result<Option<(u32, u64)>, FormatError> {
        if self.vertex >= self.num_vertices {
            return Ok(None);
        }
        let v = self.vertex;
        let end = self.idx.get(v + 1)?;
        if end < self.end || end > self.num_arcs {
            return Err(FormatError::Index {
                path: self.idx.path.clone(),
                entry: v + 1,
                reason: format!(
                    "offset {end} is below the previous {} or past {}",
                    self.end, self.num_arcs
                ),
            });
        }
        (self.next, self.end) = (self.end, end);
        self.vertex += 1;
        Ok(Some((v as u32, end - self.next)))
    }

    /// The next neighbour of the current vertex with its weight (1.0 when the stream has no
    /// weights), or `None` at the end of its list.
    #[inline]
    pub fn next_arc(&mut self) -> Result<Option<(u32, f32)>, FormatError> {
        if self.next >= self.end {
            return Ok(None);
        }
        let i = self.next;
        let d = self.adj.get(i)?;
        if u64::from(d) >= self.num_vertices {
            return Err(FormatError::NeighbourOutOfRange {
                path: self.adj.path.clone(),
                index: i,
                value: d,
                num_vertices: self.num_vertices,
            });
        }
        let w = match &mut self.wgt {
            Some(w) => w.get(i)?,
            None => 1.0,
        };
        self.next += 1;
        Ok(Some((d, w)))
    }

    /// The vertex whose list `next_arc` reads (the last one `next_vertex` returned).
    pub fn current_vertex(&self) -> Option<u32> {
        self.vertex.checked_sub(1).map(|v| v as u32)
    }

    /// Arcs passed so far (read or skipped).
    pub fn position(&self) -> u64 {
        self.next
    }
}

/// A read-only array file read through one buffer; any index may be asked for, sequential
/// access is what it is fast at.
struct Chunked<T> {
    path: PathBuf,
    file: File,
    len: u64,
    cap: usize,
    start: u64,
    buf: Vec<T>,
}

impl<T: bytemuck::Pod> Chunked<T> {
    fn open(path: &Path, len: u64, buffer_bytes: usize) -> Result<Chunked<T>, FormatError> {
        Ok(Chunked {
            path: path.to_path_buf(),
            file: File::open(path).map_err(|e| FormatError::io(path, e))?,
            len,
            cap: (buffer_bytes / std::mem::size_of::<T>()).max(1),
            start: 0,
            buf: Vec::new(),
        })
    }

    #[inline]
    fn get(&mut self, i: u64) -> Result<T, FormatError> {
        let off = i.wrapping_sub(self.start);
        if off < self.buf.len() as u64 {
            return Ok(self.buf[off as usize]);
        }
        self.fill(i)?;
        Ok(self.buf[0])
    }

    fn fill(&mut self, i: u64) -> Result<(), FormatError> {
        if i >= self.len {
            return Err(FormatError::Content {
                path: self.path.clone(),
                reason: format!("entry {i} is past the end ({} entries)", self.len),
            });
        }
        let n = (self.len - i).min(self.cap as u64) as usize;
        self.buf.clear();
        self.buf.resize(n, T::zeroed());
        let size = std::mem::size_of::<T>() as u64;
        self.file
            .seek(SeekFrom::Start(i * size))
            .and_then(|_| self.file.read_exact(bytemuck::cast_slice_mut(&mut self.buf)))
            .map_err(|e| FormatError::io(&self.path, e))?;
        self.start = i;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_cover_the_vertices_once() {
        for n in [0u64, 1, 2, 5, 16, 17, 100] {
            for p in [1u32, 2, 3, 4, 16, 40] {
                let s = GridShape::new(n, p, p);
                let mut next = 0;
                for i in 0..p {
                    let r = s.row_range(i);
                    assert_eq!(r.start, next);
                    assert!(r.start <= r.end);
                    next = r.end;
                    for v in r {
                        assert_eq!(s.row_of(v as u32), i);
                    }
                }
                assert_eq!(next, n);
            }
        }
    }

    #[test]
    fn sorts_round_trip_through_text() {
        for s in [
            GridSort::Grid,
            GridSort::Source,
            GridSort::Destination,
            GridSort::Key("mis_1".into()),
        ] {
            assert_eq!(s.to_string().parse::<GridSort>(), Ok(s.clone()));
        }
        assert!("key:source".parse::<GridSort>().is_err());
        assert!("key:Bad".parse::<GridSort>().is_err());
        assert!("key:".parse::<GridSort>().is_err());
        assert!("src".parse::<GridSort>().is_err());
        assert_eq!(GridSort::Key("deg".into()).layout_name(8), "grid-8-deg");
        assert_eq!(GridSort::Source.cols_for(8), 1);
    }

    #[test]
    fn temporary_names_are_recognised() {
        let t = temporary_name("grid-4", "tmp");
        assert_eq!(temporary_pid(&t), Some(std::process::id()));
        assert_eq!(temporary_pid(".grid-4.old-12-34"), Some(12));
        assert_eq!(temporary_pid(".manifest.json.tmp-7-8"), Some(7));
        assert_eq!(temporary_pid("grid-4"), None);
        assert_eq!(temporary_pid(".grid-4.tmp-x-1"), None);
        assert!(check_layout_name(&t).is_err());
    }
}
