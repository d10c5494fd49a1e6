//! What one iteration reads: the blocks in the order asked for, minus those whose source range
//! has no active vertex, cut into *loads* (the unit of reentry: a block, or a piece of a block
//! larger than a load), grouped into *requests* (the unit of I/O: consecutive loads contiguous in
//! the file, up to one load's worth of edges and of bytes). A compressed layout's blocks decode
//! only whole, so they are never cut: the engine sizes its loads to hold the largest block.

use std::ops::Range;

use diskgraph_format::{GridLayout, EDGE_BYTES};

use super::Frontier;

/// The order blocks are streamed in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Order {
    /// Row by row, `(0,0), (0,1), …, (1,0), …`: the file's own order (one sequential read when
    /// nothing is skipped); sources stay within one range at a time.
    #[default]
    RowMajor,
    /// Column by column, `(0,0), (1,0), …, (0,1), …`: destinations stay within one range at a
    /// time (GridGraph's order for destination-local updates).
    ColumnMajor,
}

/// A unit of reentry: edges `edges` of block `block`, stored at `bytes` of the edge file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Load {
    pub block: usize,
    pub edges: Range<u64>,
    pub bytes: Range<u64>,
}

/// A unit of I/O: the contiguous edges `edges`, stored at `bytes`, holding `loads`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Request {
    pub edges: Range<u64>,
    pub bytes: Range<u64>,
    pub loads: Range<usize>,
}

/// An iteration's reading plan.
#[derive(Debug, Default)]
pub(crate) struct Plan {
    pub loads: Vec<Load>,
    pub requests: Vec<Request>,
    /// Non-empty blocks skipped because no source of theirs is active.
    pub blocks_skipped: u64,
    /// Edges of those blocks (never read).
    pub block_edges_skipped: u64,
    /// Non-empty blocks read.
    pub blocks_loaded: u64,
}

/// Plans one iteration over `layout` in `order`: blocks whose row has no vertex of `active` are
/// skipped (none when `active` is `None`), blocks of a plain layout longer than `cap` edges are
/// cut into loads of `cap` (a compressed layout's never are: the caller makes `cap` hold its
/// largest block), and consecutive loads contiguous in the file share a request of at most `cap`
/// edges and `byte_cap` bytes.
pub(crate) fn plan(layout: &GridLayout, order: Order, active: Option<&Frontier>, cap: u64, byte_cap: u64) -> Plan {
    let shape = layout.shape();
    let (rows, cols) = (shape.rows(), shape.cols());
    let row_active: Vec<bool> = (0..rows)
        .map(|i| active.is_none_or(|a| a.any_in(shape.row_range(i))))
        .collect();
    let blocks: Box<dyn Iterator<Item = usize>> = match order {
        Order::RowMajor => Box::new(0..shape.num_blocks()),
        Order::ColumnMajor => Box::new((0..cols).flat_map(move |j| (0..rows).map(move |i| shape.block(i, j)))),
    };
    let mut p = Plan::default();
    for b in blocks {
        let edges = layout.block_edges(b);
        if edges.is_empty() {
            continue;
        }
        if !row_active[shape.block_position(b).0 as usize] {
            p.blocks_skipped += 1;
            p.block_edges_skipped += edges.end - edges.start;
            continue;
        }
        p.blocks_loaded += 1;
        if layout.compressed().is_some() {
            let bytes = layout.block_bytes(b);
            p.push(Load { block: b, edges, bytes }, cap, byte_cap);
            continue;
        }
        let mut at = edges.start;
        while at < edges.end {
            let end = edges.end.min(at + cap);
            let bytes = EDGE_BYTES * at..EDGE_BYTES * end;
            p.push(
                Load {
                    block: b,
                    edges: at..end,
                    bytes,
                },
                cap,
                byte_cap,
            );
            at = end;
        }
    }
    p
}

impl Plan {
    /// Appends a load, extending the last request when the load continues it within `cap`
    /// edges and `byte_cap` bytes.
    fn push(&mut self, load: Load, cap: u64, byte_cap: u64) {
        let i = self.loads.len();
        match self.requests.last_mut() {
            Some(r)
                if r.edges.end == load.edges.start
                    && load.edges.end - r.edges.start <= cap
                    && load.bytes.end - r.bytes.start <= byte_cap =>
            {
                r.edges.end = load.edges.end;
                r.bytes.end = load.bytes.end;
                r.loads.end = i + 1;
            }
            _ => self.requests.push(Request {
                edges: load.edges.clone(),
                bytes: load.bytes.clone(),
                loads: i..i + 1,
            }),
        }
        self.loads.push(load);
    }
}
