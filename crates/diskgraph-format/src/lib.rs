//! The diskgraph graph directory, format v1 (see `docs/FORMAT.md`).
//!
//! A graph is an immutable directory: `manifest.json` plus little-endian data files, each padded
//! to a multiple of [`PAGE`] bytes so O_DIRECT readers can fetch any block. This crate owns the
//! file names, the manifest, the writers (which publish atomically through a temporary
//! directory and `rename`) and the readers (which check sizes and index monotonicity on
//! [`GraphDir::open`], and checksums plus every neighbour ID in [`verify`]). Derived layouts —
//! grid layouts (`grid-P…/`, [`GridLayout`]), BAsC selections (`basc-<name>/`,
//! [`BascSelection`]) and shard layouts (`shards-N/`, [`ShardLayout`]) — are built with a
//! [`LayoutBuilder`], published atomically inside a graph and recorded in its manifest
//! ([`LayoutRecord`]); a replacement is a new generation of the layout (`grid-4.v1/`), swapped
//! in by the manifest's record, while readers keep the generation they opened ([`LayoutPin`]).
//!
//! | module | holds |
//! | --- | --- |
//! | `error` | [`FormatError`] |
//! | `input` | the one way the files a graph names are opened: regular files only, metadata bounded |
//! | `data_file` | padded data files: [`PAGE`], [`FileEntry`], size and checksum checks, range reads |
//! | `atomic` | atomic publishing: temporary names, synced writes, directory locks and syncs |
//! | `cancel` | [`Cancel`], the stop request every long operation polls, and its error [`Interrupted`] |
//! | `manifest` | [`Manifest`] (`manifest.json`) and the graph's file names |
//! | `output_paths` | [`OutputPaths`], a command's outputs checked against each other and the directories it reads |
//! | `names` | [`VertexNames`], the optional vertex names (`names.idx`, `names.bin`) |
//! | `read` | [`GraphDir`], the opened graph, and in-memory [`Csr`] loads |
//! | `arc_stream` | [`ArcStream`], the bounded-memory sequential CSR reader |
//! | `list_scan` | [`ListScan`], whole lists in batches, read ahead (O_DIRECT) by a thread of its own |
//! | `write` | [`GraphBuilder`] and the CSR and data file writers |
//! | `positioned` | [`PositionedFile`], a data file written at arbitrary offsets |
//! | `layout_record` | [`LayoutRecord`], the manifest's entry for a derived layout |
//! | `layout_meta` | [`LayoutMeta`], what every kind of layout metadata file offers |
//! | `layout_versions` | a layout's generation directories, [`LayoutPin`], [`stale_layout_versions`] |
//! | `layout_builder` | [`LayoutBuilder`], which publishes a derived layout |
//! | `grid_sort` | [`GridSort`], the order inside a grid layout's blocks (and its name) |
//! | `grid_shape` | [`GridShape`], a grid's ranges and the block of each arc |
//! | `grid_meta` | grid layout file names, [`GridEdge`], [`GridMeta`] (`grid.json`) |
//! | `grid_layout` | [`GridLayout`], the grid layout reader |
//! | `basc_meta` | BAsC selection file names, [`BascMeta`] (`basc.json`), static cache size |
//! | `basc_selection` | [`BascSelection`], the reader; [`publish_basc`], [`verify_basc`] |
//! | `shard_meta` | shard layout file names and limits, [`ShardMeta`] (`shards.json`), [`interval_of`] |
//! | `shard_geometry` | [`ShardGeometry`], where a shard layout's intervals, shards and windows lie |
//! | `shard_budget` | [`ShardBudget`], what a shard layout costs the shards engine's budget (its one formula) |
//! | `shard_layout` | [`ShardLayout`], the shard layout reader; [`shard_layouts`] |
//! | `shard_plan` | [`IntervalCut`], the interval rule; [`plan_shards`], a layout's shard count and block size for a budget |
//! | `shard_verify` | [`verify_shards`], the full O(E) check of a shard layout |
//! | `split` | split directories: [`SplitMeta`] (`split.json`), [`SplitDir`], [`verify_split`], [`SplitBuilder`] |
//! | `codec` | [`Codec`], the encodings of one compressed list |
//! | `compressed_meta` | compressed layout file names, [`CompressedMeta`] (`compressed.json`) |
//! | `compressed_layout` | [`compress`], [`CompressedLayout`] (the reader), [`verify_compressed`] |
//! | `list_writer` | [`ListWriter`], [`ListEncoding`]: a direction's lists written plain, compressed or both |
//! | `verify` | [`verify`], the full O(E) check |
//! | `id_order`, `rank_bitmap` | original-ID order of a reordered graph |
//! | `shared_slice` | [`SharedSlice`], a slice parallel tasks write at disjoint positions (the one home of that `unsafe`) |

#![deny(unsafe_op_in_unsafe_fn)]
#![warn(clippy::undocumented_unsafe_blocks)]

mod arc_stream;
mod atomic;
mod basc_meta;
mod basc_selection;
mod cancel;
mod codec;
mod compressed_layout;
mod compressed_meta;
mod data_file;
mod error;
mod grid_layout;
mod grid_meta;
mod grid_packed;
mod grid_shape;
mod grid_sort;
mod id_order;
mod input;
mod layout_builder;
mod layout_meta;
mod layout_record;
mod layout_versions;
mod list_scan;
mod list_writer;
mod manifest;
mod names;
mod output_paths;
mod positioned;
mod rank_bitmap;
mod read;
mod shard_budget;
mod shard_geometry;
mod shard_layout;
mod shard_meta;
mod shard_plan;
mod shard_verify;
mod shared_slice;
mod split;
mod verify;
mod write;

pub use arc_stream::ArcStream;
pub use atomic::{remove_stale_temporaries_of, temporary_name};
pub use basc_meta::{
    basc_layout_name, static_cache_bytes, BascMeta, BASC_FORMAT, BASC_LISTS, BASC_META, BASC_VERSION, BASC_VERTICES,
    STATIC_LIST_OVERHEAD_BYTES,
};
pub use basc_selection::{publish_basc, verify_basc, BascInfo, BascSelection};
pub use cancel::{Cancel, Interrupted};
pub use codec::{Bounds, Codec, CodecError};
pub use compressed_layout::{compress, compress_cancellable, verify_compressed, CompressReport, CompressedLayout};
pub use compressed_meta::{
    compressed_files_of, compressed_layout_name, CompressedMeta, COMPRESSED_FORMAT, COMPRESSED_META,
    COMPRESSED_VERSION, IN_CADJ, IN_CIDX, OUT_CADJ, OUT_CIDX,
};
pub use data_file::{padded_len, read_range, read_range_stoppable, FileEntry, LOAD_PIECE_BYTES, PAGE};
pub use diskgraph_io::{human_bytes, human_minimum};
pub use error::FormatError;
pub use grid_layout::{Block, GridLayout};
pub use grid_meta::{
    layout_name, GridEdge, GridMeta, EDGE_BYTES, GRID_BYTE_INDEX, GRID_EDGES, GRID_FORMAT, GRID_INDEX, GRID_META,
    GRID_PACKED, GRID_VERSION, GRID_WEIGHTS, MAX_GRID,
};
pub use grid_packed::{decode_block, decode_runs, BlockEncoder, BlockFrame, RunAxis, MAX_RUN};
pub use grid_shape::GridShape;
pub use grid_sort::{check_key_name, GridSort, MAX_KEY_NAME};
pub use id_order::{IdOrder, IdRanking};
pub use input::open_file;
pub use layout_builder::LayoutBuilder;
pub use layout_meta::LayoutMeta;
pub use layout_record::{BascRecord, CompressedRecord, GridRecord, LayoutKind, LayoutRecord, ShardRecord};
pub use layout_versions::{parse_version_dir, stale_layout_versions, version_dir_name, LayoutPin};
pub use list_scan::{ListBatch, ListScan};
pub use list_writer::{ListEncoding, ListWriter};
pub use manifest::{
    check_layout_name, check_ordering_name, Manifest, FORMAT_NAME, FORMAT_VERSION, IDS, IN_ADJ, IN_IDX, IN_WGT,
    MANIFEST, MAX_VERTICES, NAMES_BIN, NAMES_IDX, ORIGINAL_ORDERING, OUT_ADJ, OUT_IDX, OUT_WGT, TOOL,
};
pub use names::VertexNames;
pub use output_paths::OutputPaths;
pub use positioned::PositionedFile;
pub use rank_bitmap::RankBitmap;
pub use read::{read_manifest, Csr, Direction, GraphDir, DEGREE_PIECE};
pub use shard_budget::{
    blocks_covering, Extent, IntervalLoad, PackedLoad, ShardBudget, DECODED_PAGE_ARCS, DECODED_PAGE_BYTES,
    DECODED_TABLE_ENTRY_BYTES, SHARD_UPDATE_CHUNK,
};
pub use shard_geometry::ShardGeometry;
pub use shard_layout::{shard_layouts, ShardLayout};
pub use shard_meta::{
    check_block_bytes, check_intervals, interval_of, shard_layout_name, ShardMeta, DEFAULT_SHARD_BLOCK_BYTES,
    MAX_SHARDS, MAX_SHARD_BLOCK_BYTES, MIN_SHARD_BLOCK_BYTES, SHARD_BYTE_WINDOWS, SHARD_DST, SHARD_FORMAT, SHARD_META,
    SHARD_PACKED, SHARD_SRC, SHARD_VERSION, SHARD_WINDOWS,
};
pub use shard_plan::{
    block_cap, cut_by_degree, interval_arcs, plan_shards, planned_budget, shard_counts, IntervalArcs, IntervalCut,
    ShardChoice, ShardPlan, ShardRequest,
};
pub use shard_verify::verify_shards;
pub use shared_slice::SharedSlice;
pub use split::{
    is_split_dir, part_name, verify_split, verify_split_cancellable, SplitBuilder, SplitDir, SplitMeta, SplitPart,
    MAX_PARTS, SPLIT_FORMAT, SPLIT_META, SPLIT_VERSION,
};
pub use verify::{verify, verify_cancellable, verify_grid, VerifyReport};
pub use write::{CsrWriter, DataFileWriter, GraphBuilder};
