//! An offsets index held in about a quarter of its size: the selective engine's arc offsets and
//! the byte offsets of compressed lists, `n + 1` non-decreasing entries each.
//!
//! Entries are kept as one `u64` base per [`BLOCK`] vertices and a `u16` delta per entry
//! (2.125 bytes per vertex instead of 8): what a billion-edge graph's O(V) state can afford
//! (Kronecker 28 has 268 M vertices; its two 8-byte indexes alone would be 4.3 GB). A block
//! spanning 2¹⁶ or more arcs (or bytes) is wide: its deltas are `u32`s of their own, found
//! through its first two narrow slots, and its base is marked. Blocks span disjoint ranges, so
//! wide blocks take at most [`WIDE_BYTES_PER_UNIT`] bytes per arc (or byte) of the whole index.
//! An index where some block spans 2³² or more stays whole, as does one loaded earlier and
//! shared with other runs ([`GraphIndex`](crate::GraphIndex)): it costs nothing more here.
//!
//! The index is read in pieces of [`PIECE`] entries through the I/O layer's
//! [`SequentialReader`] (O_DIRECT, reads in flight while the last piece is packed, the page cache
//! left alone) and packed as it comes, so the whole 8-byte index is never in memory, and checked
//! as [`GraphDir::load_offsets`] checks it.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use diskgraph_format::FormatError;
use diskgraph_io::{IoError, ReadRequest, SequentialConfig, SequentialReader};

/// Entries per base.
pub(crate) const BLOCK: usize = 64;

/// Entries read per piece while loading: 1 MiB, the sequential reader's read size, so its
/// [`LOAD_SLOTS`] buffers hold 8 MiB an index (two load side by side) and still keep reads in
/// flight while a piece is packed.
const PIECE: u64 = 1 << 17;

/// Pieces held at once while loading: one being packed, the others being read.
const LOAD_SLOTS: usize = 8;

/// Bytes per vertex a packed index holds, besides its wide blocks.
pub const PACKED_BYTES_PER_VERTEX: f64 = 2.0 + 8.0 / BLOCK as f64;

/// At most the bytes of wide blocks per unit (arc, or byte of compressed lists) the index
/// spans: a wide block spans at least 2¹⁶ units and holds [`BLOCK`] `u32`s.
pub const WIDE_BYTES_PER_UNIT: f64 = (4 * BLOCK) as f64 / 65536.0;

/// Marks the base of a wide block.
const WIDE: u64 = 1 << 63;

/// An offsets index, packed or whole.
#[derive(Clone)]
pub enum Offsets {
    /// A base per [`BLOCK`] entries and a delta per entry (see the module docs).
    Packed {
        /// `entry[i * BLOCK]`, with [`WIDE`] set when the block is wide.
        base: Vec<u64>,
        /// `entry[i] - base[i / BLOCK]` in a narrow block; a wide block's first two slots hold
        /// where its deltas start in `wide`, in [`BLOCK`]s (low half first).
        narrow: Vec<u16>,
        /// The deltas of the wide blocks, [`BLOCK`] each.
        wide: Vec<u32>,
    },
    /// Every entry (shared with a loaded [`GraphIndex`](crate::GraphIndex), or too wide).
    Whole(Arc<Vec<u64>>),
}

impl Offsets {
    /// Packs `entries` (non-decreasing), or keeps them whole when some block spans 2³² or
    /// more.
    pub fn pack(entries: &[u64]) -> Self {
        let mut p = Packer::default();
        if p.push(entries) {
            p.finish()
        } else {
            Offsets::Whole(Arc::new(entries.to_vec()))
        }
    }

    /// Reads and checks the index at `path` (`count` entries, from 0 up to `last`, never
    /// decreasing), polling `stop` between pieces, packed as it is read (whole when it does
    /// not pack).
    ///
    /// Errors: a missing or short file; an entry out of order ([`FormatError::Index`] naming
    /// the file and the entry); a stop request.
    pub fn load(path: &Path, count: u64, last: u64, stop: &AtomicBool) -> Result<Self, FormatError> {
        let bad = |entry: u64, reason: String| FormatError::Index {
            path: path.to_path_buf(),
            entry,
            reason,
        };
        let requests: Vec<ReadRequest> = (0..count)
            .step_by(PIECE as usize)
            .map(|at| ReadRequest::from(8 * at..8 * (at + PIECE).min(count)))
            .collect();
        let mut packer = Packer::default();
        let mut whole: Option<Vec<u64>> = None;
        let mut piece = Vec::with_capacity(PIECE.min(count) as usize);
        // The I/O layer's errors do not name the file: these do (a stop stays a stop).
        let named = |e: IoError| match e {
            IoError::Stopped => FormatError::Read(e),
            e => FormatError::Io {
                path: path.to_path_buf(),
                source: std::io::Error::other(e),
            },
        };
        if count > 0 {
            let reader = SequentialReader::open(
                &[(path, 8 * PIECE.min(count))],
                &SequentialConfig {
                    slots: LOAD_SLOTS,
                    ..SequentialConfig::default()
                },
            )
            .map_err(named)?;
            let read = reader.read(&requests, |i, data: &[&[u8]]| {
                if stop.load(Ordering::Relaxed) {
                    return Err(FormatError::Read(IoError::Stopped));
                }
                let at = i as u64 * PIECE;
                piece.clear();
                piece.extend(
                    data[0]
                        .chunks_exact(8)
                        .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes"))),
                );
                if at == 0 && piece[0] != 0 {
                    return Err(bad(0, format!("first offset is {}, expected 0", piece[0])));
                }
                let mut last_seen = if at == 0 { 0 } else { prev_of(&whole, &packer) };
                for (i, &o) in piece.iter().enumerate() {
                    if o < last_seen {
                        return Err(bad(
                            at + i as u64,
                            format!("offset {o} is below the previous {last_seen}"),
                        ));
                    }
                    last_seen = o;
                }
                match &mut whole {
                    Some(w) => w.extend_from_slice(&piece),
                    None => {
                        if !packer.push(&piece) {
                            let mut w = std::mem::take(&mut packer).unpack();
                            w.extend_from_slice(&piece);
                            whole = Some(w);
                        }
                    }
                }
                Ok(())
            });
            read.map_err(|e| match e {
                FormatError::Read(e) => named(e),
                e => e,
            })?;
        }
        let offsets = match whole {
            Some(w) => Offsets::Whole(Arc::new(w)),
            None => packer.finish(),
        };
        let end = if count == 0 { 0 } else { offsets.get(count as usize - 1) };
        if count > 0 && end != last {
            return Err(bad(count - 1, format!("last offset {end} != num_arcs {last}")));
        }
        Ok(offsets)
    }

    /// Entry `i`.
    #[inline]
    pub fn get(&self, i: usize) -> u64 {
        match self {
            Offsets::Packed { base, narrow, wide } => {
                let b = base[i / BLOCK];
                if b & WIDE == 0 {
                    b + u64::from(narrow[i])
                } else {
                    let first = i / BLOCK * BLOCK;
                    let at = u32::from(narrow[first]) as usize | (narrow[first + 1] as usize) << 16;
                    (b & !WIDE) + u64::from(wide[at * BLOCK + i % BLOCK])
                }
            }
            Offsets::Whole(w) => w[i],
        }
    }

    /// Number of entries (`n + 1`).
    pub fn len(&self) -> usize {
        match self {
            Offsets::Packed { narrow, .. } => narrow.len(),
            Offsets::Whole(w) => w.len(),
        }
    }

    /// Whether there are no entries.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The last entry (0 when there are none).
    pub fn last(&self) -> u64 {
        match self.len() {
            0 => 0,
            k => self.get(k - 1),
        }
    }

    /// `get(v + 1) - get(v)`: the length of `v`'s list.
    #[inline]
    pub fn degree(&self, v: usize) -> u64 {
        self.get(v + 1) - self.get(v)
    }

    /// The number of entries at most `x` (entries never decrease): `partition_point(|o| o <= x)`
    /// of the whole index.
    pub fn count_at_most(&self, x: u64) -> usize {
        match self {
            Offsets::Whole(w) => w.partition_point(|&o| o <= x),
            Offsets::Packed { base, narrow, .. } => {
                // The blocks whose first entry is at most x, then within the last of them.
                let b = base.partition_point(|&o| o & !WIDE <= x);
                if b == 0 {
                    return 0;
                }
                let from = (b - 1) * BLOCK;
                let to = (from + BLOCK).min(narrow.len());
                let (mut lo, mut hi) = (from, to);
                while lo < hi {
                    let mid = (lo + hi) / 2;
                    if self.get(mid) <= x {
                        lo = mid + 1;
                    } else {
                        hi = mid;
                    }
                }
                lo
            }
        }
    }

    /// Bytes held (a whole index shared with a loaded graph index included).
    pub fn bytes(&self) -> u64 {
        match self {
            Offsets::Packed { base, narrow, wide } => {
                8 * base.len() as u64 + 2 * narrow.len() as u64 + 4 * wide.len() as u64
            }
            Offsets::Whole(w) => 8 * w.len() as u64,
        }
    }
}

impl std::fmt::Debug for Offsets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = match self {
            Offsets::Packed { .. } => "packed",
            Offsets::Whole(_) => "whole",
        };
        write!(f, "Offsets({kind}, {} entries)", self.len())
    }
}

/// The last entry pushed so far (0 before any).
fn prev_of(whole: &Option<Vec<u64>>, packer: &Packer) -> u64 {
    match whole {
        Some(w) => w.last().copied().unwrap_or(0),
        None => packer.last,
    }
}

/// Packs entries as they come: a block's entries wait in `pending` until it is whole.
#[derive(Default)]
struct Packer {
    base: Vec<u64>,
    narrow: Vec<u16>,
    wide: Vec<u32>,
    pending: Vec<u64>,
    last: u64,
}

impl Packer {
    /// Appends `entries`; false (nothing of them appended) when one is 2³² or more past its
    /// block's base.
    fn push(&mut self, entries: &[u64]) -> bool {
        let before = (
            self.base.len(),
            self.narrow.len(),
            self.wide.len(),
            self.pending.clone(),
        );
        for &o in entries {
            if self.pending.first().is_some_and(|&b| o - b > u64::from(u32::MAX)) {
                self.base.truncate(before.0);
                self.narrow.truncate(before.1);
                self.wide.truncate(before.2);
                self.pending = before.3;
                return false;
            }
            self.pending.push(o);
            if self.pending.len() == BLOCK {
                self.flush();
            }
        }
        if let Some(&o) = entries.last() {
            self.last = o;
        }
        true
    }

    /// Stores the pending block (a whole one, or the last, shorter one).
    fn flush(&mut self) {
        let Some(&first) = self.pending.first() else {
            return;
        };
        let span = self.pending[self.pending.len() - 1] - first;
        if span <= u64::from(u16::MAX) || self.pending.len() < 2 {
            self.base.push(first);
            self.narrow.extend(self.pending.iter().map(|&o| (o - first) as u16));
        } else {
            let at = self.wide.len() / BLOCK;
            self.base.push(first | WIDE);
            self.narrow.extend([at as u16, (at >> 16) as u16]);
            self.narrow.extend(std::iter::repeat_n(0, self.pending.len() - 2));
            self.wide.extend(self.pending.iter().map(|&o| (o - first) as u32));
            self.wide.resize(self.wide.len().next_multiple_of(BLOCK), 0);
        }
        self.pending.clear();
    }

    /// The entries pushed so far, whole.
    fn unpack(self) -> Vec<u64> {
        let p = self.finish();
        (0..p.len()).map(|i| p.get(i)).collect()
    }

    /// The packed index.
    fn finish(mut self) -> Offsets {
        self.flush();
        self.base.shrink_to_fit();
        self.narrow.shrink_to_fit();
        self.wide.shrink_to_fit();
        Offsets::Packed {
            base: self.base,
            narrow: self.narrow,
            wide: self.wide,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(n: usize) -> Vec<u64> {
        let mut o = vec![0u64];
        for v in 0..n as u64 {
            o.push(o[v as usize] + (v * 7 + v / 3) % 5);
        }
        o
    }

    #[test]
    fn packed_entries_and_searches_match_the_whole_index() {
        for n in [0, 1, 63, 64, 65, 1000] {
            let whole = entries(n);
            let p = Offsets::pack(&whole);
            assert!(matches!(p, Offsets::Packed { .. }));
            assert_eq!(p.len(), whole.len());
            for (i, &o) in whole.iter().enumerate() {
                assert_eq!(p.get(i), o);
            }
            for x in 0..=whole.last().unwrap() + 2 {
                assert_eq!(p.count_at_most(x), whole.partition_point(|&o| o <= x), "n {n} x {x}");
            }
        }
    }

    #[test]
    fn wide_blocks_keep_their_entries_and_stay_within_their_bound() {
        // Blocks alternately narrow and wide (a hub of 70,000 arcs every other block), and a
        // short last block that is wide.
        let mut whole = vec![0u64];
        for v in 0..(BLOCK * 9 + 5) {
            let d = if v % (2 * BLOCK) == 7 || v == BLOCK * 9 + 1 {
                70_000
            } else {
                v as u64 % 3
            };
            whole.push(whole[v] + d);
        }
        let p = Offsets::pack(&whole);
        let Offsets::Packed { wide, .. } = &p else {
            panic!("not packed")
        };
        assert_eq!(wide.len(), 6 * BLOCK);
        assert!(wide.len() as f64 * 4.0 <= WIDE_BYTES_PER_UNIT * p.last() as f64);
        for (i, &o) in whole.iter().enumerate() {
            assert_eq!(p.get(i), o, "entry {i}");
        }
        for x in (0..=whole.last().unwrap() + 2).step_by(97) {
            assert_eq!(p.count_at_most(x), whole.partition_point(|&o| o <= x), "x {x}");
        }
        // Pushed in pieces that split blocks, the same index.
        let mut packer = Packer::default();
        for piece in whole.chunks(37) {
            assert!(packer.push(piece));
        }
        let q = packer.finish();
        assert!((0..whole.len()).all(|i| q.get(i) == whole[i]));
    }

    #[test]
    fn a_block_spanning_four_billion_stays_whole() {
        let whole = vec![0, 5, 5 + (1u64 << 32), 6 + (1u64 << 32)];
        let p = Offsets::pack(&whole);
        assert!(matches!(p, Offsets::Whole(_)));
        assert_eq!((0..4).map(|i| p.get(i)).collect::<Vec<_>>(), whole);
    }

    #[test]
    fn a_file_is_packed_in_pieces_and_checked() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.idx");
        let n = 3 * PIECE as usize + 17;
        let whole = entries(n);
        std::fs::write(&path, bytemuck::cast_slice(&whole)).unwrap();
        let stop = AtomicBool::new(false);
        let last = *whole.last().unwrap();
        let p = Offsets::load(&path, whole.len() as u64, last, &stop).unwrap();
        assert!(matches!(p, Offsets::Packed { .. }));
        assert!((0..whole.len()).step_by(997).all(|i| p.get(i) == whole[i]));
        assert_eq!(p.last(), last);
        let e = Offsets::load(&path, whole.len() as u64, last + 1, &stop)
            .unwrap_err()
            .to_string();
        assert!(e.contains("num_arcs"), "{e}");
        let mut bad = whole.clone();
        bad[PIECE as usize] = 0;
        std::fs::write(&path, bytemuck::cast_slice(&bad)).unwrap();
        let e = Offsets::load(&path, bad.len() as u64, last, &stop).unwrap_err();
        assert!(matches!(e, FormatError::Index { entry, .. } if entry == PIECE), "{e}");
        // A file shorter than its count is an error naming it; a stop request stops the load.
        let e = Offsets::load(&path, bad.len() as u64 + 1, last, &stop)
            .unwrap_err()
            .to_string();
        assert!(e.contains("out.idx"), "{e}");
        std::fs::write(&path, bytemuck::cast_slice(&whole)).unwrap();
        stop.store(true, Ordering::Relaxed);
        let e = Offsets::load(&path, whole.len() as u64, last, &stop).unwrap_err();
        assert!(matches!(e, FormatError::Read(IoError::Stopped)), "{e}");
    }
}
