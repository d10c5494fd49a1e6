//! The set of original vertex IDs seen during import, and their dense ranks.
//!
//! IDs are collected in a bitmap while the largest one stays within what the budget allows
//! (one bit per possible ID), and in an external sorter beyond that. The resulting rank table
//! is O(V) vertex state: semi-external as design.md defines it (held in memory, reported, not
//! counted in the budget): 1 bit per ID up to the largest ID for the bitmap, or 8 bytes per
//! vertex for sparse u64 IDs.

use std::ops::Range;
use std::path::{Path, PathBuf};

use diskgraph_format::RankBitmap;

use crate::sort::ExternalSorter;

/// Collects IDs.
pub(crate) struct IdCollector {
    bits: Vec<u64>,
    sorter: Option<ExternalSorter<u64>>,
    bitmap_limit: u64,
    scratch: PathBuf,
    memory: usize,
}

impl IdCollector {
    /// A collector allowed `memory` bytes for its bitmap or sort buffer.
    pub(crate) fn new(scratch: &Path, memory: usize) -> Self {
        IdCollector {
            bits: Vec::new(),
            sorter: None,
            bitmap_limit: memory as u64 * 8,
            scratch: scratch.into(),
            memory,
        }
    }

    /// Records one ID.
    #[inline]
    pub(crate) fn insert(&mut self, id: u64) -> std::io::Result<()> {
        if self.sorter.is_none() {
            let word = (id / 64) as usize;
            if word < self.bits.len() {
                self.bits[word] |= 1 << (id % 64);
                return Ok(());
            }
            if id < self.bitmap_limit {
                let want = (word + 1)
                    .max(self.bits.len() * 2)
                    .min(self.bitmap_limit.div_ceil(64) as usize);
                self.bits.resize(want, 0);
                self.bits[word] |= 1 << (id % 64);
                return Ok(());
            }
            self.switch_to_sorter()?;
        }
        self.sorter.as_mut().expect("sorter mode").push(id)
    }

    fn switch_to_sorter(&mut self) -> std::io::Result<()> {
        let mut sorter = ExternalSorter::new(&self.scratch, "ids", self.memory, Some(|a: &u64, b: &u64| a == b));
        for id in RankBitmap::new(std::mem::take(&mut self.bits)).iter() {
            sorter.push(id)?;
        }
        self.sorter = Some(sorter);
        Ok(())
    }

    /// Bytes of sort runs written so far (IDs beyond the bitmap's reach).
    pub(crate) fn bytes_written(&self) -> u64 {
        self.sorter.as_ref().map_or(0, |s| s.bytes_written())
    }

    /// Adds the declared IDs and returns the final vertex set.
    pub(crate) fn finish(mut self, declared: Option<Range<u64>>) -> std::io::Result<VertexIds> {
        if let Some(r) = declared.filter(|r| !r.is_empty()) {
            if self.sorter.is_none() && r.end <= self.bitmap_limit {
                self.insert(r.end - 1)?;
                fill_range(&mut self.bits, r);
            } else {
                for id in r {
                    self.insert(id)?;
                }
            }
        }
        match self.sorter {
            None => Ok(VertexIds::from_bitmap(self.bits)),
            Some(sorter) => {
                let mut sorted = sorter.finish()?;
                let mut ids: Vec<u64> = Vec::new();
                while let Some(id) = sorted.next()? {
                    if ids.last() != Some(&id) {
                        ids.push(id);
                    }
                }
                Ok(VertexIds::from_sorted(ids))
            }
        }
    }
}

fn fill_range(bits: &mut [u64], r: Range<u64>) {
    for id in r {
        // Word-at-a-time would be faster; declared ranges are filled once per import.
        bits[(id / 64) as usize] |= 1 << (id % 64);
    }
}

/// The final vertex set: maps original IDs to internal IDs 0..n in ascending order.
pub(crate) enum VertexIds {
    /// IDs are exactly 0..n: internal = original.
    Dense(u64),
    /// A bitmap of IDs with per-word prefix counts for O(1) rank.
    Bitmap(RankBitmap),
    /// Sorted distinct IDs; rank by binary search.
    Sorted(Vec<u64>),
}

impl VertexIds {
    fn from_bitmap(bits: Vec<u64>) -> Self {
        let ids = RankBitmap::new(bits);
        match ids.max() {
            Some(m) if m + 1 == ids.len() => VertexIds::Dense(ids.len()),
            None => VertexIds::Dense(0),
            Some(_) => VertexIds::Bitmap(ids),
        }
    }

    fn from_sorted(ids: Vec<u64>) -> Self {
        match ids.last() {
            None => VertexIds::Dense(0),
            Some(&last) if last.checked_add(1) == Some(ids.len() as u64) => VertexIds::Dense(ids.len() as u64),
            Some(_) => VertexIds::Sorted(ids),
        }
    }

    /// Number of vertices.
    pub(crate) fn len(&self) -> u64 {
        match self {
            VertexIds::Dense(n) => *n,
            VertexIds::Bitmap(ids) => ids.len(),
            VertexIds::Sorted(ids) => ids.len() as u64,
        }
    }

    /// Whether internal IDs equal original IDs.
    pub(crate) fn is_identity(&self) -> bool {
        matches!(self, VertexIds::Dense(_))
    }

    /// Internal ID of an original ID that is in the set.
    #[inline]
    pub(crate) fn rank(&self, id: u64) -> u32 {
        match self {
            VertexIds::Dense(_) => id as u32,
            VertexIds::Bitmap(ids) => ids.rank(id),
            VertexIds::Sorted(ids) => ids.binary_search(&id).expect("every edge endpoint was collected") as u32,
        }
    }

    /// The original ID of internal ID `rank` (< `len()`).
    pub(crate) fn id_of(&self, rank: u32) -> u64 {
        match self {
            VertexIds::Dense(_) => u64::from(rank),
            VertexIds::Sorted(ids) => ids[rank as usize],
            VertexIds::Bitmap(ids) => {
                // The smallest member with `rank` members below it and itself a member.
                let (mut lo, mut hi) = (0u64, ids.max().expect("a member"));
                while lo < hi {
                    let mid = lo + (hi - lo) / 2;
                    let at_most = u64::from(ids.rank(mid)) + u64::from(ids.position(mid).is_some());
                    if at_most > u64::from(rank) {
                        hi = mid;
                    } else {
                        lo = mid + 1;
                    }
                }
                lo
            }
        }
    }

    /// Calls `f(rank, id)` for every vertex in ascending order.
    pub(crate) fn for_each(&self, mut f: impl FnMut(usize, u64)) {
        match self {
            VertexIds::Dense(n) => (0..*n).for_each(|id| f(id as usize, id)),
            VertexIds::Sorted(ids) => ids.iter().enumerate().for_each(|(r, &id)| f(r, id)),
            VertexIds::Bitmap(ids) => ids.iter().enumerate().for_each(|(r, id)| f(r, id)),
        }
    }

    /// The original IDs in ascending order, in chunks, for writing `ids.u64`.
    pub(crate) fn for_each_chunk(
        &self,
        mut f: impl FnMut(&[u64]) -> Result<(), diskgraph_format::FormatError>,
    ) -> Result<(), diskgraph_format::FormatError> {
        const CHUNK: usize = 1 << 16;
        match self {
            VertexIds::Dense(n) => {
                let all: Vec<u64> = (0..*n).collect();
                all.chunks(CHUNK).try_for_each(f)
            }
            VertexIds::Sorted(ids) => ids.chunks(CHUNK).try_for_each(f),
            VertexIds::Bitmap(ids) => {
                let mut buf = Vec::with_capacity(CHUNK);
                for id in ids.iter() {
                    buf.push(id);
                    if buf.len() == CHUNK {
                        f(&buf)?;
                        buf.clear();
                    }
                }
                f(&buf)
            }
        }
    }

    /// Bytes held by the rank table.
    pub(crate) fn memory_bytes(&self) -> u64 {
        match self {
            VertexIds::Dense(_) => 0,
            VertexIds::Bitmap(ids) => ids.memory_bytes(),
            VertexIds::Sorted(ids) => ids.len() as u64 * 8,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn collect(ids: &[u64], declared: Option<Range<u64>>, memory: usize) -> VertexIds {
        let dir = tempfile::tempdir().unwrap();
        let mut c = IdCollector::new(dir.path(), memory);
        for &id in ids {
            c.insert(id).unwrap();
        }
        c.finish(declared).unwrap()
    }

    #[test]
    fn dense_sparse_and_huge_ids_rank_in_ascending_order() {
        let v = collect(&[3, 0, 1, 2, 2], None, 1 << 20);
        assert!(v.is_identity());
        assert_eq!(v.len(), 4);
        for memory in [1 << 20, 1024] {
            let ids = [10, 5, 1 << 40, 7, 5, u64::MAX];
            let v = collect(&ids, None, memory);
            assert!(!v.is_identity());
            assert_eq!(v.len(), 5);
            let ranks: Vec<u32> = [5, 7, 10, 1 << 40, u64::MAX].iter().map(|&i| v.rank(i)).collect();
            assert_eq!(ranks, vec![0, 1, 2, 3, 4]);
        }
        let v = collect(&[100, 2], Some(1..4), 1 << 20);
        assert_eq!((v.len(), v.rank(1), v.rank(3), v.rank(100)), (4, 0, 2, 3));
        let v = collect(&[5000, 2], None, 64);
        assert_eq!((v.len(), v.rank(2), v.rank(5000)), (2, 0, 1));
        for big in [1 << 12, 1 << 40] {
            let ids = [70, 3, 64, big, 0, 65];
            let v = collect(&ids, None, 1 << 20);
            let mut seen = Vec::new();
            v.for_each(|r, id| seen.push((r, id)));
            assert_eq!(seen.len(), 6);
            for (r, id) in seen {
                assert_eq!((v.id_of(r as u32), v.rank(id)), (id, r as u32));
            }
        }
    }
}
