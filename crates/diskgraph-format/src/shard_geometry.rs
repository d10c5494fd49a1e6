//! [`ShardGeometry`]: where a shards layout's intervals, shards and windows lie, from its
//! interval boundaries and window indexes — of a layout opened from disk
//! ([`ShardLayout::geometry`](crate::ShardLayout::geometry)) or of one whose windows have been
//! counted but not yet written.

use std::ops::Range;

/// A shards layout's interval boundaries (N + 1), window index (`N·N + 1` arc offsets, entry
/// `q·N + p` the first arc of shard `q` whose source lies in interval `p`) and, compressed, its
/// byte index into the packed windows (the same shape). The indexes are taken as checked.
#[derive(Clone, Copy, Debug)]
pub struct ShardGeometry<'a> {
    intervals: &'a [u32],
    windows: &'a [u64],
    byte_windows: Option<&'a [u64]>,
}

impl<'a> ShardGeometry<'a> {
    /// The geometry of `intervals`, `windows` and a compressed layout's `byte_windows`.
    ///
    /// # Panics
    /// If there is no interval, or an index does not hold `N·N + 1` entries.
    pub fn new(intervals: &'a [u32], windows: &'a [u64], byte_windows: Option<&'a [u64]>) -> ShardGeometry<'a> {
        let n = intervals
            .len()
            .checked_sub(1)
            .filter(|&n| n > 0)
            .expect("at least one interval");
        assert_eq!(windows.len(), n * n + 1, "the window index of {n} shards");
        if let Some(b) = byte_windows {
            assert_eq!(b.len(), n * n + 1, "the byte index of {n} shards");
        }
        ShardGeometry {
            intervals,
            windows,
            byte_windows,
        }
    }

    /// Number of shards N.
    pub fn num_shards(&self) -> u32 {
        (self.intervals.len() - 1) as u32
    }

    /// Arcs of the layout.
    pub fn num_arcs(&self) -> u64 {
        self.windows.last().copied().unwrap_or(0)
    }

    /// The window index.
    pub fn windows(&self) -> &'a [u64] {
        self.windows
    }

    /// The byte index of a compressed layout's packed windows.
    pub fn byte_windows(&self) -> Option<&'a [u64]> {
        self.byte_windows
    }

    /// Vertices of interval `p`.
    ///
    /// # Panics
    /// If `p` is not below N.
    pub fn interval(&self, p: u32) -> Range<u32> {
        self.intervals[p as usize]..self.intervals[p as usize + 1]
    }

    /// Arcs of shard `q` (those whose destination is in interval `q`).
    ///
    /// # Panics
    /// If `q` is not below N.
    pub fn shard(&self, q: u32) -> Range<u64> {
        let n = self.num_shards() as usize;
        let q = q as usize;
        self.windows[q * n]..self.windows[(q + 1) * n]
    }

    /// Arcs of the window of interval `p` in shard `q`: those of shard `q` whose source is in
    /// interval `p`.
    ///
    /// # Panics
    /// If `q` or `p` is not below N.
    pub fn window(&self, q: u32, p: u32) -> Range<u64> {
        let w = self.entry(q, p);
        self.windows[w]..self.windows[w + 1]
    }

    /// Packed bytes of the window of interval `p` in shard `q`.
    ///
    /// # Panics
    /// If the layout is not compressed, or `q` or `p` is not below N.
    pub fn window_bytes(&self, q: u32, p: u32) -> Range<u64> {
        let w = self.entry(q, p);
        let b = self.byte_windows.expect("a compressed layout");
        b[w]..b[w + 1]
    }

    /// Packed bytes of shard `q` (its windows lie one after another).
    ///
    /// # Panics
    /// If the layout is not compressed, or `q` is not below N.
    pub fn shard_bytes(&self, q: u32) -> Range<u64> {
        let n = self.num_shards();
        self.window_bytes(q, 0).start..self.window_bytes(q, n - 1).end
    }

    /// The index entry of the window of interval `p` in shard `q`.
    fn entry(&self, q: u32, p: u32) -> usize {
        let n = self.num_shards() as usize;
        assert!((p as usize) < n && (q as usize) < n, "window ({q}, {p}) of {n} shards");
        q as usize * n + p as usize
    }
}
