//! Shard layouts (`shards-N/` inside a graph directory): GraphChi's shards. The specification is
//! `docs/FORMAT.md`, section "Shard layout".
//!
//! The vertices are cut into N *intervals* (`intervals`: N + 1 boundaries, interval `p` is
//! `[b[p], b[p + 1])`); shard `q` holds every stored arc whose destination lies in interval `q`,
//! sorted by (src, dst). The shards are stored one after another, `q` ascending, as two columns,
//! `src.u32` and `dst.u32`; `windows.idx` (u64[N·N + 1]) gives, for every shard `q` and interval
//! `p`, the first arc of shard `q` whose source lies in interval `p` (entry `q·N + p`), so the
//! *window* of interval `p` in shard `q` — the arcs Parallel Sliding Windows reads beside shard
//! `p` — is `[idx[q·N + p], idx[q·N + p + 1])`. `shards.json` ([`ShardMeta`]) describes the
//! layout and every file with its length and xxh3. The layout holds no weights.
//!
//! This module holds the file names, the limits and `shards.json` with its checks; the reader is
//! [`ShardLayout`](crate::ShardLayout), layouts are built with a
//! [`LayoutBuilder`](crate::LayoutBuilder) and checked in full by
//! [`verify_shards`](crate::verify_shards).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::codec::Codec;
use crate::data_file::{check_file_list, FileEntry, PAGE};
use crate::layout_meta::{check_built_from, check_format, LayoutMeta};
use crate::layout_record::{LayoutKind, LayoutRecord, ShardRecord};
use crate::manifest::Manifest;

/// Metadata file of a shard layout.
pub const SHARD_META: &str = "shards.json";
/// Sources of a shard layout's arcs, u32[E], shards one after another.
pub const SHARD_SRC: &str = "src.u32";
/// Destinations of a shard layout's arcs, u32[E], parallel to [`SHARD_SRC`].
pub const SHARD_DST: &str = "dst.u32";
/// Compressed windows of a compressed shard layout, one after another in window order.
pub const SHARD_PACKED: &str = "arcs.packed";
/// Byte index of a compressed shard layout: u64[N·N + 1] offsets into [`SHARD_PACKED`], entry
/// `q·N + p` where the window of interval `p` in shard `q` starts.
pub const SHARD_BYTE_WINDOWS: &str = "bytes.idx";
/// Window index of a shard layout: u64[N·N + 1] edge offsets, entry `q·N + p` the first arc of
/// shard `q` whose source lies in interval `p`.
pub const SHARD_WINDOWS: &str = "windows.idx";
/// Value of `shards.json`'s `format` field.
pub const SHARD_FORMAT: &str = "diskgraph-shards";
/// Shard layout version this crate reads and writes.
pub const SHARD_VERSION: u32 = 1;
/// Default edge-value block size of the shards engine (`--block-size`): 1 MiB, GraphChi's.
pub const DEFAULT_SHARD_BLOCK_BYTES: u64 = 1 << 20;
/// Smallest edge-value block size: one page.
pub const MIN_SHARD_BLOCK_BYTES: u64 = PAGE;
/// Largest edge-value block size: 64 MiB.
pub const MAX_SHARD_BLOCK_BYTES: u64 = 64 << 20;
/// Largest number of shards (so at most 2^24 windows and a 128 MiB window index).
pub const MAX_SHARDS: u32 = 4096;

/// The directory name of a shard layout with `num_shards` shards: `shards-N`, then `-CODEC`
/// when compressed (`shards-8-vbyte`).
pub fn shard_layout_name(num_shards: u32, compressed: Option<Codec>) -> String {
    match compressed {
        Some(codec) => format!("shards-{num_shards}-{codec}"),
        None => format!("shards-{num_shards}"),
    }
}

/// Checks an edge-value block size: a multiple of 4096 from [`MIN_SHARD_BLOCK_BYTES`] to
/// [`MAX_SHARD_BLOCK_BYTES`].
pub fn check_block_bytes(bytes: u64) -> Result<(), String> {
    if !bytes.is_multiple_of(PAGE) || !(MIN_SHARD_BLOCK_BYTES..=MAX_SHARD_BLOCK_BYTES).contains(&bytes) {
        return Err(format!(
            "block size {bytes} bytes must be a multiple of {PAGE} from {MIN_SHARD_BLOCK_BYTES} to {MAX_SHARD_BLOCK_BYTES} (4 KiB to 64 MiB)"
        ));
    }
    Ok(())
}

/// Checks interval boundaries for `num_shards` intervals of `num_vertices` vertices:
/// `num_shards + 1` of them, the first 0, the last V, never decreasing.
pub fn check_intervals(intervals: &[u32], num_shards: u32, num_vertices: u64) -> Result<(), String> {
    let want = num_shards as usize + 1;
    if intervals.len() != want {
        return Err(format!(
            "intervals has {} boundaries, {num_shards} shards need {want}",
            intervals.len()
        ));
    }
    if intervals[0] != 0 {
        return Err(format!("intervals starts at {}, not 0", intervals[0]));
    }
    if let Some(i) = intervals.windows(2).position(|w| w[1] < w[0]) {
        return Err(format!(
            "intervals boundary {} is {}, below the previous {}",
            i + 1,
            intervals[i + 1],
            intervals[i]
        ));
    }
    let last = u64::from(intervals[want - 1]);
    if last != num_vertices {
        return Err(format!(
            "intervals ends at {last}, not at the number of vertices {num_vertices}"
        ));
    }
    Ok(())
}

/// The interval holding vertex `v` under the boundaries `intervals` (N + 1 of them, as
/// [`check_intervals`] accepts): the `p` with `intervals[p] ≤ v < intervals[p + 1]`, found by
/// binary search. Empty intervals never hold a vertex.
///
/// # Panics
/// If `v` is not below the last boundary (V).
pub fn interval_of(intervals: &[u32], v: u32) -> u32 {
    let last = intervals.last().copied().unwrap_or(0);
    assert!(v < last, "vertex {v} is not below the last interval boundary {last}");
    (intervals.partition_point(|&b| b <= v) - 1) as u32
}

/// `shards.json`: what a shard layout holds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShardMeta {
    /// Always [`SHARD_FORMAT`].
    pub format: String,
    /// Always [`SHARD_VERSION`].
    pub version: u32,
    /// V of the graph the layout was built from (below 2^32: boundaries are u32).
    pub num_vertices: u64,
    /// Number of stored arcs (= the graph's `num_arcs`).
    pub num_arcs: u64,
    /// Whether the graph is directed (an undirected graph's shards hold both directions of
    /// every edge, as its `out.*` does).
    pub directed: bool,
    /// Number of shards N (= number of vertex intervals), 1 to [`MAX_SHARDS`].
    pub num_shards: u32,
    /// Edge-value block size of the shards engine: a multiple of 4096, 4 KiB to 64 MiB.
    pub block_bytes: u64,
    /// N + 1 interval boundaries: interval `p` is `[intervals[p], intervals[p + 1])`.
    pub intervals: Vec<u32>,
    /// The codec of a compressed layout (`arcs.packed` and `bytes.idx` instead of the two
    /// columns); absent when plain.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compressed: Option<Codec>,
    /// xxh3 of the graph's `out.adj`: ties the layout to the graph it was built from.
    pub graph_out_adj: String,
    /// Every data file of the layout, by name.
    pub files: BTreeMap<String, FileEntry>,
    /// The tool and version that wrote the layout.
    pub tool: String,
}

impl ShardMeta {
    /// Metadata for a shard layout of `graph` with these interval boundaries (N + 1 of them)
    /// and edge-value block size, its windows compressed with `compressed` (if any), holding
    /// `files`.
    pub fn new(
        graph: &Manifest,
        intervals: Vec<u32>,
        block_bytes: u64,
        compressed: Option<Codec>,
        files: BTreeMap<String, FileEntry>,
    ) -> ShardMeta {
        ShardMeta {
            format: SHARD_FORMAT.into(),
            version: SHARD_VERSION,
            num_vertices: graph.num_vertices,
            num_arcs: graph.num_arcs,
            directed: graph.directed,
            num_shards: intervals.len().saturating_sub(1) as u32,
            block_bytes,
            intervals,
            compressed,
            graph_out_adj: graph.lists_tie().unwrap_or_default().to_string(),
            files,
            tool: crate::TOOL.to_string(),
        }
    }

    /// The layout's directory name, `shards-N` or `shards-N-<codec>`.
    pub fn name(&self) -> String {
        shard_layout_name(self.num_shards, self.compressed)
    }

    /// The files the layout must hold.
    pub fn required_files(&self) -> Vec<&'static str> {
        match self.compressed {
            Some(_) => vec![SHARD_PACKED, SHARD_BYTE_WINDOWS, SHARD_WINDOWS],
            None => vec![SHARD_SRC, SHARD_DST, SHARD_WINDOWS],
        }
    }

    /// Expected logical length of a layout file, from the counts.
    pub fn expected_len(&self, name: &str) -> Option<u64> {
        let n = u64::from(self.num_shards);
        match name {
            SHARD_SRC | SHARD_DST => Some(self.num_arcs.saturating_mul(4)),
            SHARD_WINDOWS | SHARD_BYTE_WINDOWS => Some((n * n + 1) * 8),
            _ => None,
        }
    }

    fn check_graph(&self, graph: &Manifest) -> Result<(), String> {
        let ours = (self.num_vertices, self.num_arcs, self.directed);
        check_built_from(graph, &self.graph_out_adj, ours, graph.directed, "directed")
    }
}

impl LayoutMeta for ShardMeta {
    const KIND: LayoutKind = LayoutKind::Shards;
    const FILE: &'static str = SHARD_META;

    fn files(&self) -> &BTreeMap<String, FileEntry> {
        &self.files
    }

    fn check(&self, graph: &Manifest, name: &str) -> Result<(), String> {
        check_format((&self.format, self.version), (SHARD_FORMAT, SHARD_VERSION))?;
        if !(1..=MAX_SHARDS).contains(&self.num_shards) {
            return Err(format!("num_shards {} must be 1 to {MAX_SHARDS}", self.num_shards));
        }
        if self.name() != name {
            return Err(format!("metadata describes layout {}, not {name}", self.name()));
        }
        check_block_bytes(self.block_bytes).map_err(|e| format!("block_bytes: {e}"))?;
        self.check_graph(graph)?;
        check_intervals(&self.intervals, self.num_shards, self.num_vertices)?;
        check_file_list(&self.files, &self.required_files(), |f| self.expected_len(f))
    }

    fn record(&self, name: &str) -> LayoutRecord {
        LayoutRecord::Shards(ShardRecord {
            name: name.to_string(),
            num_shards: self.num_shards,
            block_bytes: self.block_bytes,
            num_arcs: self.num_arcs,
            compressed: self.compressed,
            bytes_on_disk: self.bytes_on_disk(),
            generation: 0,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_sizes_are_pages_from_4k_to_64m() {
        for ok in [4096, 8192, DEFAULT_SHARD_BLOCK_BYTES, 64 << 20] {
            assert_eq!(check_block_bytes(ok), Ok(()), "{ok}");
        }
        for bad in [0, 1, 4095, 4097, 6000, (64 << 20) + 4096, u64::MAX] {
            let err = check_block_bytes(bad).unwrap_err();
            assert!(err.contains(&bad.to_string()), "{err}");
        }
    }

    #[test]
    fn interval_of_skips_empty_intervals() {
        let b = [0, 2, 2, 2, 5, 6];
        let want = [0, 0, 3, 3, 3, 4];
        for (v, &p) in want.iter().enumerate() {
            assert_eq!(interval_of(&b, v as u32), p, "vertex {v}");
        }
        assert_eq!(interval_of(&[0, 0, 0, 1], 0), 2);
    }

    #[test]
    fn intervals_are_checked() {
        assert_eq!(check_intervals(&[0, 3, 3, 10], 3, 10), Ok(()));
        assert_eq!(check_intervals(&[0, 0], 1, 0), Ok(()));
        let cases: [(&[u32], &str); 4] = [
            (&[0, 3, 10], "3 shards need 4"),
            (&[1, 3, 4, 10], "starts at 1"),
            (&[0, 5, 4, 10], "boundary 2 is 4, below the previous 5"),
            (&[0, 3, 4, 9], "ends at 9"),
        ];
        for (b, says) in cases {
            let err = check_intervals(b, 3, 10).unwrap_err();
            assert!(err.contains(says), "{b:?}: {err}");
        }
    }
}
