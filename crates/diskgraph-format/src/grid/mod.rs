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
//! | module | holds |
//! | --- | --- |
//! | `sort` | [`GridSort`], the order inside blocks, which also names the layout |
//! | `shape` | [`GridShape`], the ranges and the block of each arc |
//! | `meta` | the file names, [`GridEdge`] and [`GridMeta`] (`grid.json`) with its checks |
//! | `layout` | [`GridLayout`], the reader, whose `open` checks metadata against the graph, file sizes and the block index in O(P²) |
//!
//! Layouts are built with the crate's [`LayoutBuilder`](crate::LayoutBuilder) and verified by
//! [`verify_grid`](crate::verify_grid).

pub(crate) mod layout;
pub(crate) mod meta;
pub(crate) mod shape;
pub(crate) mod sort;
