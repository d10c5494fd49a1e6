//! The shard layout reader ([`ShardLayout`]): opens a shard layout listed in a graph's manifest,
//! checks its metadata against the manifest's record and the graph, its files' sizes and its
//! window index (O(N²)), and answers where each interval, shard and window lies; a compressed
//! layout's windows decode here too.

use std::ops::Range;
use std::path::{Path, PathBuf};

use crate::codec::Codec;
use crate::data_file::{read_offsets, read_range};
use crate::error::FormatError;
use crate::grid_meta::GridEdge;
use crate::grid_packed::{decode_runs, BlockFrame, RunAxis};
use crate::layout_record::ShardRecord;
use crate::layout_versions::LayoutPin;
use crate::read::GraphDir;
use crate::shard_geometry::ShardGeometry;
use crate::shard_meta::{
    interval_of, ShardMeta, SHARD_BYTE_WINDOWS, SHARD_DST, SHARD_PACKED, SHARD_SRC, SHARD_WINDOWS,
};

/// The records of the shard layouts a graph lists, by ascending number of shards (the
/// manifest's own order is by name, where `shards-16` comes before `shards-4`).
pub fn shard_layouts(graph: &GraphDir) -> Vec<&ShardRecord> {
    let mut records: Vec<&ShardRecord> = graph.layouts().iter().filter_map(|l| l.shards()).collect();
    records.sort_by_key(|r| (r.num_shards, r.name.as_str()));
    records
}

/// An opened shard layout: the manifest's record agrees with `shards.json`, the metadata with
/// the graph, every file has the size the metadata implies, the intervals are valid, and the
/// window index (read whole) starts at 0, never decreases and ends at the arc count.
#[derive(Clone, Debug)]
pub struct ShardLayout {
    path: PathBuf,
    name: String,
    meta: ShardMeta,
    windows: Vec<u64>,
    /// Byte offsets of the windows in `arcs.packed` (compressed layouts).
    byte_windows: Option<Vec<u64>>,
    /// Keeps the generation read on disk while this (or a clone) lives.
    _pin: LayoutPin,
}

impl ShardLayout {
    /// Opens and checks the shard layout `name` of `graph` (O(N²)). The layout must be listed in
    /// the graph's manifest as a shard layout, and the manifest's record must agree with its
    /// `shards.json`; a missing or inconsistent file is an error naming it.
    pub fn open(graph: &GraphDir, name: &str) -> Result<ShardLayout, FormatError> {
        let (path, meta, pin) = graph.layout_meta::<ShardMeta>(name)?;
        for (file, entry) in &meta.files {
            graph.check_file(&path.join(file), entry.len)?;
        }
        let n = meta.num_shards as usize;
        let windows = read_offsets(&path.join(SHARD_WINDOWS), n * n + 1, meta.num_arcs)?;
        let byte_windows = match meta.compressed {
            Some(_) => {
                let packed = meta.files.get(SHARD_PACKED).map_or(0, |f| f.len);
                Some(read_offsets(&path.join(SHARD_BYTE_WINDOWS), n * n + 1, packed)?)
            }
            None => None,
        };
        Ok(ShardLayout {
            path,
            name: name.to_string(),
            meta,
            windows,
            byte_windows,
            _pin: pin,
        })
    }

    /// The layout's directory name (`shards-N`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The layout's directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The parsed `shards.json`.
    pub fn meta(&self) -> &ShardMeta {
        &self.meta
    }

    /// Number of shards N (= number of vertex intervals).
    pub fn num_shards(&self) -> u32 {
        self.meta.num_shards
    }

    /// Number of arcs in the layout (the graph's stored arcs).
    pub fn num_arcs(&self) -> u64 {
        self.meta.num_arcs
    }

    /// Edge-value block size of the shards engine, in bytes (a multiple of 4096).
    pub fn block_bytes(&self) -> u64 {
        self.meta.block_bytes
    }

    /// The N + 1 interval boundaries: interval `p` is `[intervals[p], intervals[p + 1])`.
    pub fn intervals(&self) -> &[u32] {
        &self.meta.intervals
    }

    /// Vertices of interval `p` (may be empty).
    ///
    /// # Panics
    /// If `p` is not below [`ShardLayout::num_shards`].
    pub fn interval(&self, p: u32) -> Range<u32> {
        let b = self.intervals();
        b[p as usize]..b[p as usize + 1]
    }

    /// The interval holding vertex `v` (a binary search; among empty intervals at `v`'s
    /// position, the non-empty one after them).
    ///
    /// # Panics
    /// If `v` is not a vertex of the graph (`v ≥ V`).
    pub fn interval_of(&self, v: u32) -> u32 {
        interval_of(self.intervals(), v)
    }

    /// The whole window index: entry `q·N + p` is the first arc of shard `q` whose source is in
    /// interval `p`; `N·N + 1` entries, the last the arc count.
    pub fn windows(&self) -> &[u64] {
        &self.windows
    }

    /// Where the intervals, shards and windows lie.
    pub fn geometry(&self) -> ShardGeometry<'_> {
        ShardGeometry::new(self.intervals(), &self.windows, self.byte_windows.as_deref())
    }

    /// Global edge range of shard `q` (arcs whose destination is in interval `q`), in
    /// [`SHARD_SRC`] and [`SHARD_DST`].
    ///
    /// # Panics
    /// If `q` is not below [`ShardLayout::num_shards`].
    pub fn shard(&self, q: u32) -> Range<u64> {
        self.geometry().shard(q)
    }

    /// Global edge range of the window of interval `p` in shard `q`: the arcs of shard `q`
    /// whose source is in interval `p`.
    ///
    /// # Panics
    /// If `q` or `p` is not below [`ShardLayout::num_shards`].
    pub fn window(&self, q: u32, p: u32) -> Range<u64> {
        self.geometry().window(q, p)
    }

    /// The codec of a compressed layout's windows; `None` for the plain columns.
    pub fn compressed(&self) -> Option<Codec> {
        self.meta.compressed
    }

    /// Byte range of the window of interval `p` in shard `q` in [`SHARD_PACKED`].
    ///
    /// # Panics
    /// If the layout is not compressed, or `q` or `p` is not below [`ShardLayout::num_shards`].
    pub fn window_bytes(&self, q: u32, p: u32) -> Range<u64> {
        self.geometry().window_bytes(q, p)
    }

    /// Decodes the window of interval `p` in shard `q` of a compressed layout from exactly its
    /// `bytes` ([`ShardLayout::window_bytes`]), handing each arc to `put` with its position in
    /// the window (0, 1, … in order); `list` is scratch. Every source is checked against
    /// interval `p`, every destination against interval `q`, the count against `windows.idx`;
    /// damaged bytes are an error naming [`SHARD_PACKED`] and the window.
    ///
    /// # Panics
    /// If the layout is not compressed, or `q` or `p` is not below [`ShardLayout::num_shards`].
    pub fn decode_window(
        &self,
        q: u32,
        p: u32,
        bytes: &[u8],
        list: &mut Vec<u32>,
        put: impl FnMut(usize, GridEdge),
    ) -> Result<(), FormatError> {
        let codec = self.meta.compressed.expect("a compressed layout");
        let frame = BlockFrame {
            axis: RunAxis::Source,
            sources: range64(self.interval(p)),
            destinations: range64(self.interval(q)),
        };
        let arcs = self.window(q, p);
        decode_runs(codec, &frame, bytes, (arcs.end - arcs.start) as usize, list, put).map_err(|reason| {
            FormatError::Content {
                path: self.column_path(SHARD_PACKED),
                reason: format!(
                    "shard {q}, window {p} (bytes {:?}, arcs {arcs:?}): {reason}",
                    self.window_bytes(q, p)
                ),
            }
        })
    }

    /// Path of a column file of the layout ([`SHARD_SRC`] or [`SHARD_DST`]; any name is joined
    /// to the layout's directory).
    pub fn column_path(&self, file: &str) -> PathBuf {
        self.path.join(file)
    }

    /// Reads the window of interval `p` in shard `q` as `(src, dst)` pairs, checking every
    /// source against interval `p` and every destination against interval `q` (a corrupt file is
    /// an error naming it and the arc). Meant for tests and small tools; an engine reads the
    /// columns through the I/O layer.
    ///
    /// # Panics
    /// If `q` or `p` is not below [`ShardLayout::num_shards`].
    pub fn read_window(&self, q: u32, p: u32) -> Result<Vec<(u32, u32)>, FormatError> {
        let range = self.window(q, p);
        if self.compressed().is_some() {
            let bytes: Vec<u8> = read_range(&self.column_path(SHARD_PACKED), self.window_bytes(q, p))?;
            let mut arcs = vec![(0, 0); (range.end - range.start) as usize];
            self.decode_window(q, p, &bytes, &mut Vec::new(), |i, e| arcs[i] = (e.src, e.dst))?;
            return Ok(arcs);
        }
        let src: Vec<u32> = read_range(&self.column_path(SHARD_SRC), range.clone())?;
        let dst: Vec<u32> = read_range(&self.column_path(SHARD_DST), range.clone())?;
        let (sources, destinations) = (self.interval(p), self.interval(q));
        for (i, (&s, &d)) in src.iter().zip(&dst).enumerate() {
            let (file, what, v, allowed) = match (sources.contains(&s), destinations.contains(&d)) {
                (false, _) => (SHARD_SRC, "source", s, &sources),
                (_, false) => (SHARD_DST, "destination", d, &destinations),
                _ => continue,
            };
            return Err(FormatError::Content {
                path: self.column_path(file),
                reason: format!(
                    "arc {} ({s} -> {d}) of shard {q}, window {p}: {what} {v} lies outside {allowed:?}",
                    range.start + i as u64
                ),
            });
        }
        Ok(src.into_iter().zip(dst).collect())
    }
}

/// A `u32` range as `u64`s.
fn range64(r: Range<u32>) -> Range<u64> {
    u64::from(r.start)..u64::from(r.end)
}
