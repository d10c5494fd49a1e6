//! What a shards layout costs the shards engine's budget: the one formula behind the engine's
//! smallest budget (over a written layout's windows, [`ShardBudget::of_geometry`]) and behind
//! `partition --shards auto`'s choice of shard count and block size (over the intervals' arc
//! counts before any window is written, at the worst alignment, so a plan never promises less
//! than the written layout needs).
//!
//! An interval `p` reads, through the engine's block cache, the blocks covering its memory
//! shard `p` and its window in every other shard: three 4-byte columns (sources, targets, edge
//! values) of a plain layout, or a compressed layout's packed bytes and its value column. It
//! holds the arrays that group the memory shard by target (4 bytes an arc, 5 a vertex, and a
//! chunk's scratch), and a compressed layout's decoded pages (8 bytes an arc, in pages). The
//! smallest budget is the largest interval's blocks plus the largest interval's arrays.

use std::ops::Range;

use crate::shard_geometry::ShardGeometry;

/// Vertices of one unit of the engine's update work (a chunk runs on one thread).
pub const SHARD_UPDATE_CHUNK: u64 = 1024;
/// Bytes of scratch the budget allows per vertex of a chunk (cursors and runs of its windows).
const CHUNK_SCRATCH_PER_VERTEX: u64 = 64;
/// Bytes of grouping arrays per vertex of an interval (its in-edge start and its conflict flag).
const GROUPING_PER_VERTEX: u64 = 5;
/// Bytes of grouping arrays per arc of a memory shard (its position or source).
const GROUPING_PER_ARC: u64 = 4;
/// Columns of a plain layout an interval reads: sources, targets, edge values.
const PLAIN_COLUMNS: u64 = 3;
/// Bytes of one entry of a column (sources, targets and edge values are `u32`).
const COLUMN_ENTRY_BYTES: u64 = 4;
/// Arcs of a compressed layout's decoded page.
pub const DECODED_PAGE_ARCS: u64 = 1024;
/// Bytes of a decoded page: its arcs' sources, then their targets.
pub const DECODED_PAGE_BYTES: u64 = 8 * DECODED_PAGE_ARCS;
/// Bytes of the decoded page table per page of the whole layout.
pub const DECODED_TABLE_ENTRY_BYTES: u64 = 16;

/// Blocks of `per_block` units covering `r` (0 when empty).
pub fn blocks_covering(r: &Range<u64>, per_block: u64) -> u64 {
    match r.is_empty() {
        true => 0,
        false => (r.end - 1) / per_block - r.start / per_block + 1,
    }
}

/// Units (arcs, or packed bytes) an interval reads of one column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Extent {
    /// Where they lie, in a written layout.
    Exact(Vec<Range<u64>>),
    /// How many there are, over at most `ranges` ranges, in a layout being planned.
    Spread {
        /// Units in all.
        units: u64,
        /// Most ranges they lie in.
        ranges: u64,
    },
}

impl Extent {
    /// Blocks of `per_block` units covering it: exactly, or for a spread the most any alignment
    /// needs (a range of `u ≥ 1` units meets at most `⌊(u + per − 2)/per⌋ + 1` blocks, so
    /// ranges of `U` units in all meet at most `⌊U/per⌋ + 2` blocks each).
    pub fn blocks(&self, per_block: u64) -> u64 {
        match self {
            Extent::Exact(ranges) => ranges.iter().map(|r| blocks_covering(r, per_block)).sum(),
            Extent::Spread { units, ranges } => units / per_block + 2 * (*ranges).min(*units),
        }
    }
}

/// What one interval reads and holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IntervalLoad {
    /// Vertices of the interval.
    pub vertices: u64,
    /// Arcs of its memory shard.
    pub shard_arcs: u64,
    /// Its memory shard, in arcs.
    pub shard: Extent,
    /// Its windows in the other shards, in arcs.
    pub windows: Extent,
    /// A compressed layout's packed bytes of the same.
    pub packed: Option<PackedLoad>,
}

/// The packed bytes a compressed layout's interval reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PackedLoad {
    /// Of its memory shard.
    pub shard: Extent,
    /// Of its windows in the other shards.
    pub windows: Extent,
}

/// What a layout costs a run: the largest interval's blocks and arrays, and the reserve Greedy
/// Shard Caching keeps free.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShardBudget {
    /// Most bytes of blocks one interval reads (every column a program may ask for).
    pub blocks: u64,
    /// Most bytes of arrays one interval holds (with a compressed layout's decoded pages and
    /// page table).
    pub arrays: u64,
    /// Twice the average memory shard's blocks (targets and values, or packed and values).
    pub reserve: u64,
}

impl ShardBudget {
    /// The budget of a layout of `num_arcs` arcs in blocks of `block_bytes` whose intervals
    /// read and hold `loads` (one per interval).
    pub fn of(block_bytes: u64, num_arcs: u64, loads: impl IntoIterator<Item = IntervalLoad>) -> ShardBudget {
        let per_block = block_bytes / COLUMN_ENTRY_BYTES;
        let (mut blocks, mut arrays, mut shard_blocks, mut n) = (0u64, 0u64, 0u64, 0u64);
        let mut compressed = false;
        for load in loads {
            n += 1;
            let grouping = GROUPING_PER_ARC * load.shard_arcs
                + GROUPING_PER_VERTEX * (load.vertices + 1)
                + SHARD_UPDATE_CHUNK * CHUNK_SCRATCH_PER_VERTEX;
            let values = load.shard.blocks(per_block) + load.windows.blocks(per_block);
            match &load.packed {
                None => {
                    blocks = blocks.max(PLAIN_COLUMNS * values * block_bytes);
                    arrays = arrays.max(grouping);
                    shard_blocks += 2 * load.shard.blocks(per_block);
                }
                Some(packed) => {
                    compressed = true;
                    let packed_blocks = packed.shard.blocks(block_bytes) + packed.windows.blocks(block_bytes);
                    blocks = blocks.max((packed_blocks + values) * block_bytes);
                    let pages = load.shard.blocks(DECODED_PAGE_ARCS) + load.windows.blocks(DECODED_PAGE_ARCS);
                    arrays = arrays.max(grouping + pages * DECODED_PAGE_BYTES);
                    shard_blocks += packed.shard.blocks(block_bytes) + load.shard.blocks(per_block);
                }
            }
        }
        if compressed {
            arrays += num_arcs.div_ceil(DECODED_PAGE_ARCS) * DECODED_TABLE_ENTRY_BYTES;
        }
        ShardBudget {
            blocks,
            arrays,
            reserve: 2 * (shard_blocks * block_bytes).div_ceil(n.max(1)),
        }
    }

    /// The budget of the layout `geometry` describes, in blocks of `block_bytes`: exact.
    pub fn of_geometry(geometry: &ShardGeometry<'_>, block_bytes: u64) -> ShardBudget {
        let n = geometry.num_shards();
        let loads = (0..n).map(|p| {
            let others = || (0..n).filter(move |&q| q != p);
            let vertices = geometry.interval(p);
            let shard = geometry.shard(p);
            IntervalLoad {
                vertices: u64::from(vertices.end - vertices.start),
                shard_arcs: shard.end - shard.start,
                shard: Extent::Exact(vec![shard]),
                windows: Extent::Exact(others().map(|q| geometry.window(q, p)).collect()),
                packed: geometry.byte_windows().map(|_| PackedLoad {
                    shard: Extent::Exact(vec![geometry.shard_bytes(p)]),
                    windows: Extent::Exact(others().map(|q| geometry.window_bytes(q, p)).collect()),
                }),
            }
        });
        ShardBudget::of(block_bytes, geometry.num_arcs(), loads)
    }

    /// The smallest budget: the largest interval's blocks plus the largest interval's arrays.
    pub fn minimum(&self) -> u64 {
        self.blocks + self.arrays
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spread_covers_every_alignment_of_its_ranges() {
        for per in [1u64, 2, 3, 1024] {
            for lens in [
                vec![1u64],
                vec![per],
                vec![per + 1, 1],
                vec![5 * per - 1, per + 2, 7],
                vec![0, 3],
            ] {
                let units: u64 = lens.iter().sum();
                let spread = Extent::Spread {
                    units,
                    ranges: lens.len() as u64,
                };
                for start in 0..2 * per {
                    let mut at = start;
                    let ranges: Vec<Range<u64>> = lens
                        .iter()
                        .map(|&l| {
                            let r = at..at + l;
                            at += l + per / 2;
                            r
                        })
                        .collect();
                    let exact = Extent::Exact(ranges).blocks(per);
                    assert!(exact <= spread.blocks(per), "per {per}, lengths {lens:?} from {start}");
                }
            }
        }
    }

    #[test]
    fn a_plain_interval_reads_three_columns() {
        let load = |arcs: u64, windows: Vec<Range<u64>>| IntervalLoad {
            vertices: 9,
            shard_arcs: arcs,
            shard: Extent::Exact(std::iter::once(0..arcs).collect()),
            windows: Extent::Exact(windows),
            packed: None,
        };
        // 4096-byte blocks hold 1024 arcs: the shard meets 2 blocks, the windows 1 and 2.
        let b = ShardBudget::of(4096, 3000, [load(1500, vec![2100..2200, 2900..3100])]);
        assert_eq!(b.blocks, 3 * 5 * 4096);
        assert_eq!(b.arrays, 4 * 1500 + 5 * 10 + 1024 * 64);
        assert_eq!(b.reserve, 2 * 2 * 2 * 4096);
        assert_eq!(b.minimum(), b.blocks + b.arrays);
    }
}
