//! The grid layout reader ([`GridLayout`]): opens a layout listed in a graph's manifest, checks
//! its metadata against the graph, its files' sizes and its block indexes (O(P²)), and reads
//! blocks, decoding those of a compressed layout.

use std::ops::Range;
use std::path::{Path, PathBuf};

use crate::codec::Codec;
use crate::data_file::{read_offsets, read_range};
use crate::error::FormatError;
use crate::grid_meta::EDGE_BYTES;
use crate::grid_meta::{GridEdge, GridMeta, GRID_BYTE_INDEX, GRID_EDGES, GRID_INDEX, GRID_PACKED, GRID_WEIGHTS};
use crate::grid_packed::{decode_block, BlockFrame, RunAxis};
use crate::grid_shape::GridShape;
use crate::grid_sort::GridSort;
use crate::layout_versions::LayoutPin;
use crate::read::GraphDir;

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
    /// Byte offsets of the blocks in `edges.packed` (compressed layouts).
    byte_index: Option<Vec<u64>>,
    /// Keeps the generation read on disk while this (or a clone) lives.
    _pin: LayoutPin,
}

impl GridLayout {
    /// Opens and checks the layout `name` of `graph` (O(P²)). The layout must be listed in the
    /// graph's manifest as a grid layout, and the manifest's record must agree with its
    /// `grid.json`; a missing or inconsistent file is an error naming it.
    pub fn open(graph: &GraphDir, name: &str) -> Result<GridLayout, FormatError> {
        let (path, meta, pin) = graph.layout_meta::<GridMeta>(name)?;
        for (file, entry) in &meta.files {
            graph.check_file(&path.join(file), entry.len)?;
        }
        let shape = meta.shape();
        let index = read_offsets(&path.join(GRID_INDEX), shape.num_blocks() + 1, meta.num_arcs)?;
        let byte_index = match meta.compressed {
            Some(_) => {
                let packed = meta.files.get(GRID_PACKED).map_or(0, |f| f.len);
                Some(read_offsets(
                    &path.join(GRID_BYTE_INDEX),
                    shape.num_blocks() + 1,
                    packed,
                )?)
            }
            None => None,
        };
        Ok(GridLayout {
            name: name.to_string(),
            path,
            meta,
            shape,
            index,
            byte_index,
            _pin: pin,
        })
    }

    /// The layout's directory name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The directory of the layout's generation that was opened (`grid-4`, or `grid-4.v3`).
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
        self.shape.rows()
    }

    /// Number of column (destination) ranges.
    pub fn cols(&self) -> u32 {
        self.shape.cols()
    }

    /// Vertices per row range.
    pub fn row_len(&self) -> u64 {
        self.shape.row_len()
    }

    /// Vertices per column range.
    pub fn col_len(&self) -> u64 {
        self.shape.col_len()
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

    /// Edge numbers of block `b` (multiply by [`EDGE_BYTES`](crate::EDGE_BYTES) for offsets in `edges.bin`, by 4
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

    /// The codec of a compressed layout's blocks (`None`: plain 8-byte edge records).
    pub fn compressed(&self) -> Option<Codec> {
        self.meta.compressed
    }

    /// Byte range of block `b` in the file holding the edges: `edges.packed` of a compressed
    /// layout, else `edges.bin` (8 bytes an edge).
    ///
    /// # Panics
    /// If `b` is not below [`GridLayout::num_blocks`].
    pub fn block_bytes(&self, b: usize) -> Range<u64> {
        match &self.byte_index {
            Some(bytes) => bytes[b]..bytes[b + 1],
            None => self.index[b] * EDGE_BYTES..self.index[b + 1] * EDGE_BYTES,
        }
    }

    /// The ranges and run axis compressed block `b` decodes with.
    ///
    /// # Panics
    /// If `b` is not below [`GridLayout::num_blocks`].
    pub fn block_frame(&self, b: usize) -> BlockFrame {
        BlockFrame {
            axis: RunAxis::of(&self.meta.sort).unwrap_or(RunAxis::Source),
            sources: self.source_range(b),
            destinations: self.destination_range(b),
        }
    }

    /// Decodes block `b` from its `bytes` ([`GridLayout::block_bytes`]) into `out`, which must
    /// be as long as the block ([`GridLayout::block_len`]; `list` is scratch); the error names
    /// the file and the block. A plain layout's records are copied.
    ///
    /// # Panics
    /// If `b` is not below [`GridLayout::num_blocks`].
    pub fn decode_block(
        &self,
        b: usize,
        bytes: &[u8],
        out: &mut [GridEdge],
        list: &mut Vec<u32>,
    ) -> Result<(), FormatError> {
        let bad = |reason: String| FormatError::Content {
            path: self.edges_path(),
            reason: format!("block {b} (bytes {:?}): {reason}", self.block_bytes(b)),
        };
        let Some(codec) = self.meta.compressed else {
            if bytes.len() as u64 != out.len() as u64 * EDGE_BYTES {
                return Err(bad(format!("{} bytes for {} edges", bytes.len(), out.len())));
            }
            for (d, s) in out.iter_mut().zip(bytes.chunks_exact(EDGE_BYTES as usize)) {
                *d = bytemuck::pod_read_unaligned(s);
            }
            return Ok(());
        };
        decode_block(codec, &self.block_frame(b), bytes, out, list).map_err(bad)
    }

    /// Path of a file of the layout.
    pub fn file_path(&self, name: &str) -> PathBuf {
        self.path.join(name)
    }

    /// Path of the file holding the edges: `edges.packed` when compressed, else `edges.bin`.
    pub fn edges_path(&self) -> PathBuf {
        match self.meta.compressed {
            Some(_) => self.file_path(GRID_PACKED),
            None => self.file_path(GRID_EDGES),
        }
    }

    /// Path of `weights.f32`, when the layout is weighted.
    pub fn weights_path(&self) -> Option<PathBuf> {
        self.meta.weighted.then(|| self.file_path(GRID_WEIGHTS))
    }

    /// Path of `bytes.idx` (compressed layouts).
    pub fn byte_index_path(&self) -> PathBuf {
        self.file_path(GRID_BYTE_INDEX)
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
        let edges = match self.meta.compressed {
            Some(_) => {
                let bytes: Vec<u8> = read_range(&self.edges_path(), self.block_bytes(b))?;
                let mut edges = vec![GridEdge::default(); self.block_len(b) as usize];
                self.decode_block(b, &bytes, &mut edges, &mut Vec::new())?;
                edges
            }
            None => self.read_edges(range.clone())?,
        };
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
        read_range(&self.edges_path(), range)
    }

    /// Weights `range` of `weights.f32`.
    pub(crate) fn read_weights(&self, range: Range<u64>) -> Result<Vec<f32>, FormatError> {
        read_range(&self.file_path(GRID_WEIGHTS), range)
    }
}
