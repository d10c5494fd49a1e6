//! The diskgraph graph directory, format v1 (see `docs/FORMAT.md`).
//!
//! A graph is an immutable directory: `manifest.json` plus little-endian data files, each padded
//! to a multiple of [`PAGE`] bytes so O_DIRECT readers can fetch any block. This crate owns the
//! file names, the manifest, the writers (which publish atomically through a temporary
//! directory and `rename`) and the readers (which check sizes and index monotonicity on
//! [`GraphDir::open`], and checksums plus every neighbour ID in [`verify`]). Derived grid layouts
//! (`grid-P…/` subdirectories, [`GridLayout`], [`GridBuilder`]) are published atomically inside
//! a graph and listed in its manifest.

mod basc;
mod error;
mod grid;
mod id_order;
mod manifest;
mod rank_bitmap;
mod read;
mod verify;
mod write;

pub use basc::{
    basc_layout_name, publish_basc, static_cache_bytes, verify_basc, BascInfo, BascMeta, BascSelection, BASC_FORMAT,
    BASC_LISTS, BASC_META, BASC_VERSION, BASC_VERTICES, STATIC_LIST_OVERHEAD_BYTES,
};
pub use error::FormatError;
pub use grid::{
    check_key_name, check_layout_name, ArcStream, Block, GridBuilder, GridEdge, GridLayout, GridMeta, GridShape,
    GridSort, PositionedFile, EDGE_BYTES, GRID_EDGES, GRID_FORMAT, GRID_INDEX, GRID_META, GRID_VERSION, GRID_WEIGHTS,
    MAX_GRID, MAX_KEY_NAME,
};
pub use id_order::{IdOrder, IdRanking};
pub use manifest::{check_ordering_name, FileEntry, Manifest, FORMAT_NAME, FORMAT_VERSION, ORIGINAL_ORDERING};
pub use rank_bitmap::RankBitmap;
pub use read::{Csr, Direction, GraphDir};
pub use verify::{verify, verify_grid, VerifyReport};
pub use write::{padded_len, CsrWriter, DataFileWriter, GraphBuilder};

/// Every data file is padded with zero bytes to a multiple of this many bytes.
pub const PAGE: u64 = 4096;
/// Name of the manifest file.
pub const MANIFEST: &str = "manifest.json";
/// Out-edge offsets, `u64[V+1]`.
pub const OUT_IDX: &str = "out.idx";
/// Out-neighbour IDs, `u32[E]`, each list ascending.
pub const OUT_ADJ: &str = "out.adj";
/// Out-edge weights, `f32[E]` (weighted graphs only).
pub const OUT_WGT: &str = "out.wgt";
/// In-edge offsets, `u64[V+1]` (directed graphs only).
pub const IN_IDX: &str = "in.idx";
/// In-neighbour IDs, `u32[E]` (directed graphs only).
pub const IN_ADJ: &str = "in.adj";
/// In-edge weights, `f32[E]` (directed weighted graphs only).
pub const IN_WGT: &str = "in.wgt";
/// Original u64 ID of every internal vertex (present when IDs were remapped): strictly ascending
/// under the [`ORIGINAL_ORDERING`], distinct but in any order under another ordering.
pub const IDS: &str = "ids.u64";
/// Largest number of vertices a graph may have: internal IDs are u32.
pub const MAX_VERTICES: u64 = u32::MAX as u64 + 1;
