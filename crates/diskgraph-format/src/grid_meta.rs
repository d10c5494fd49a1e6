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
//! This module holds the file names, the record type [`GridEdge`] and `grid.json` with its
//! checks; [`GridSort`] and [`GridShape`] have modules of their own, the reader is
//! [`GridLayout`](crate::GridLayout), and layouts are built with a
//! [`LayoutBuilder`](crate::LayoutBuilder) and checked in full by
//! [`verify_grid`](crate::verify_grid).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::codec::Codec;
use crate::data_file::{check_file_list, FileEntry};
use crate::grid_packed::RunAxis;
use crate::grid_shape::GridShape;
use crate::grid_sort::GridSort;
use crate::layout_meta::{check_built_from, check_format, LayoutMeta};
use crate::layout_record::{GridRecord, LayoutKind, LayoutRecord};
use crate::manifest::Manifest;

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
/// Compressed edges of a compressed grid layout: each block's runs ([`crate::grid_packed`]),
/// blocks in row-major order.
pub const GRID_PACKED: &str = "edges.packed";
/// Byte index of a compressed grid layout: u64[blocks + 1] offsets of the blocks in
/// [`GRID_PACKED`].
pub const GRID_BYTE_INDEX: &str = "bytes.idx";
/// Largest number of ranges on either axis (so at most 2^24 blocks and a 128 MiB block index).
pub const MAX_GRID: u32 = 4096;
/// Bytes of one edge record in [`GRID_EDGES`].
pub const EDGE_BYTES: u64 = 8;

/// One edge record of [`GRID_EDGES`], as stored (little-endian `src` then `dst`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, bytemuck::Pod, bytemuck::Zeroable)]
pub struct GridEdge {
    /// Source vertex.
    pub src: u32,
    /// Destination vertex.
    pub dst: u32,
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
    /// The codec of a compressed layout (`edges.packed` and `bytes.idx` instead of
    /// `edges.bin`); absent for plain layouts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compressed: Option<Codec>,
    /// xxh3 of the graph's `out.adj`: ties the layout to the graph it was built from.
    pub graph_out_adj: String,
    /// Every data file of the layout, by name.
    pub files: BTreeMap<String, FileEntry>,
    /// The tool and version that wrote the layout.
    pub tool: String,
}

impl GridMeta {
    /// Metadata for a layout of `graph` with `rows` row ranges in `sort` order, holding `files`,
    /// its blocks compressed with `compressed` (if any).
    pub fn new(
        graph: &Manifest,
        sort: GridSort,
        rows: u32,
        compressed: Option<Codec>,
        files: BTreeMap<String, FileEntry>,
    ) -> GridMeta {
        let cols = sort.cols_for(rows);
        let shape = GridShape::new(graph.num_vertices, rows.max(1), cols.max(1));
        GridMeta {
            format: GRID_FORMAT.into(),
            version: GRID_VERSION,
            rows,
            cols,
            row_len: shape.row_len(),
            col_len: shape.col_len(),
            sort,
            num_vertices: graph.num_vertices,
            num_arcs: graph.num_arcs,
            weighted: graph.weighted,
            compressed,
            graph_out_adj: graph.lists_tie().unwrap_or_default().to_string(),
            files,
            tool: crate::TOOL.to_string(),
        }
    }

    /// The layout's directory name.
    pub fn name(&self) -> String {
        layout_name(&self.sort, self.rows, self.compressed)
    }

    /// The grid geometry.
    ///
    /// # Panics
    /// If `rows` or `cols` is zero (never for metadata that passed [`GridLayout::open`](crate::GridLayout::open)).
    pub fn shape(&self) -> GridShape {
        GridShape::new(self.num_vertices, self.rows, self.cols)
    }

    /// The files the layout must hold.
    pub fn required_files(&self) -> Vec<&'static str> {
        let mut f = match self.compressed {
            Some(_) => vec![GRID_PACKED, GRID_BYTE_INDEX, GRID_INDEX],
            None => vec![GRID_EDGES, GRID_INDEX],
        };
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
            GRID_INDEX | GRID_BYTE_INDEX => Some((blocks + 1) * 8),
            _ => None,
        }
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
        if (self.row_len, self.col_len) != (shape.row_len(), shape.col_len()) {
            return Err(format!(
                "range lengths {}/{} disagree with ceil(V / rows) {} and ceil(V / cols) {}",
                self.row_len,
                self.col_len,
                shape.row_len(),
                shape.col_len()
            ));
        }
        Ok(())
    }

    fn check_graph(&self, graph: &Manifest) -> Result<(), String> {
        let ours = (self.num_vertices, self.num_arcs, self.weighted);
        check_built_from(graph, &self.graph_out_adj, ours, graph.weighted, "weighted")
    }
}

/// The directory name of a grid layout: [`GridSort::layout_name`], then `-CODEC` when
/// compressed (`grid-8-vbyte`, `grid-8-destination-vbyte`).
pub fn layout_name(sort: &GridSort, rows: u32, compressed: Option<Codec>) -> String {
    match compressed {
        Some(c) => format!("{}-{c}", sort.layout_name(rows)),
        None => sort.layout_name(rows),
    }
}

impl LayoutMeta for GridMeta {
    const KIND: LayoutKind = LayoutKind::Grid;
    const FILE: &'static str = GRID_META;

    fn files(&self) -> &BTreeMap<String, FileEntry> {
        &self.files
    }

    fn check(&self, graph: &Manifest, name: &str) -> Result<(), String> {
        check_format((&self.format, self.version), (GRID_FORMAT, GRID_VERSION))?;
        self.check_shape()?;
        if let (Some(codec), None) = (self.compressed, RunAxis::of(&self.sort)) {
            return Err(format!("a {} layout cannot be compressed ({codec})", self.sort));
        }
        if self.name() != name {
            return Err(format!("metadata describes layout {}, not {name}", self.name()));
        }
        self.check_graph(graph)?;
        check_file_list(&self.files, &self.required_files(), |f| self.expected_len(f))
    }

    fn record(&self, name: &str) -> LayoutRecord {
        LayoutRecord::Grid(GridRecord {
            name: name.to_string(),
            sort: self.sort.clone(),
            rows: self.rows,
            cols: self.cols,
            num_arcs: self.num_arcs,
            weighted: self.weighted,
            compressed: self.compressed,
            bytes_on_disk: self.bytes_on_disk(),
            generation: 0,
        })
    }
}
