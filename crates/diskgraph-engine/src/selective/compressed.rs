//! Compressed lists on the selective engine: a direction read from a compressed layout
//! ([`CompressedLists`]: the layout and its byte-offset index), and the lists a round's reads
//! cut in two ([`Stitch`]).
//!
//! A round plans its reads over the byte ranges of `out.cadj` / `in.cadj` exactly as over a plain
//! file (see `ranges`); the worker that receives a read decodes every active list it holds whole
//! and hands the decoded list to the algorithm as one whole [`Piece`](super::Piece). A list that
//! straddles reads (a read ends at `--max-request`, or a page of the page cache ends) cannot be
//! decoded from a part: its parts are copied into a buffer of the list's size as they arrive, and
//! the worker that completes it decodes it. Only lists cut by a read boundary are held, each
//! until its last part arrives: the compressed bytes of the lists crossing the boundaries of
//! reads in flight. The budget gives them a share of a few maximal reads out of what the buffers
//! leave (`stitch_bytes`); only a list cut by reads that is larger than the share alone takes
//! more (the peak is reported as `stitch_peak_bytes` and counted in `peak_engine_memory`).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;

use diskgraph_format::{CompressedLayout, Direction};

use super::{EngineError, Offsets};

/// One direction of the graph read from a compressed layout.
pub(crate) struct CompressedLists {
    /// The layout (codec, bounds, file names for errors).
    pub(crate) layout: CompressedLayout,
    /// The direction's lists in the layout (`In` of an undirected graph is `Out`).
    pub(crate) dir: Direction,
    /// Byte offsets of the lists in the lists file, `n + 1` entries.
    pub(crate) bytes: Offsets,
    /// Length of the lists file's data.
    pub(crate) len: u64,
}

impl CompressedLists {
    /// Loads the byte-offset index of direction `d` of `layout`, the read polling `stop` (the
    /// run's stop request) between its pieces.
    pub(crate) fn open(layout: &CompressedLayout, d: Direction, stop: &AtomicBool) -> Result<Self, EngineError> {
        Ok(CompressedLists {
            bytes: Offsets::load(
                &layout.files_of(d).0,
                layout.meta().num_vertices + 1,
                layout.lists_len(d),
                stop,
            )?,
            len: layout.lists_len(d),
            layout: layout.clone(),
            dir: d,
        })
    }

    /// The lists file.
    pub(crate) fn path(&self) -> PathBuf {
        self.layout.files_of(self.dir).1
    }

    /// Decodes the list of `v` (bytes `start..` of the lists file) into `out`, and checks it
    /// holds `degree` IDs (the plain index's degree, which algorithms are told).
    pub(crate) fn decode(
        &self,
        v: u32,
        start: u64,
        bytes: &[u8],
        degree: u64,
        out: &mut Vec<u32>,
    ) -> Result<(), EngineError> {
        self.layout.decode_expecting(self.dir, v, start, bytes, degree, out)?;
        Ok(())
    }
}

/// A list whose bytes arrive in several reads.
struct Partial {
    /// The list's bytes, filled as they arrive.
    bytes: Vec<u8>,
    /// Bytes still to arrive.
    missing: u64,
}

/// The compressed lists of a round that its reads cut in two, gathered until whole.
#[derive(Default)]
pub(crate) struct Stitch {
    parts: Mutex<HashMap<u32, Partial>>,
    held: AtomicU64,
    peak: AtomicU64,
}

impl Stitch {
    /// Adds `part`, bytes `at..` of the list of `v`, which is bytes `a..b` of its file; returns
    /// the whole list once this part completes it. Each byte of a list must be added once.
    pub(crate) fn add(&self, v: u32, (a, b): (u64, u64), at: u64, part: &[u8]) -> Option<Vec<u8>> {
        let mut parts = self.parts.lock().unwrap_or_else(|e| e.into_inner());
        let p = parts.entry(v).or_insert_with(|| {
            let held = self.held.fetch_add(b - a, Relaxed) + (b - a);
            self.peak.fetch_max(held, Relaxed);
            Partial {
                bytes: vec![0; (b - a) as usize],
                missing: b - a,
            }
        });
        let from = (at - a) as usize;
        p.bytes[from..from + part.len()].copy_from_slice(part);
        p.missing -= part.len() as u64;
        if p.missing > 0 {
            return None;
        }
        let whole = parts.remove(&v).expect("just found").bytes;
        self.held.fetch_sub(b - a, Relaxed);
        Some(whole)
    }

    /// Ends a round: drops what is held, and returns the vertex of a list left incomplete (its
    /// reads did not all arrive: the round failed, or a bug).
    pub(crate) fn finish(&self) -> Option<u32> {
        let mut parts = self.parts.lock().unwrap_or_else(|e| e.into_inner());
        let left = parts.keys().min().copied();
        parts.clear();
        self.held.store(0, Relaxed);
        left
    }

    /// The most bytes held at once.
    pub(crate) fn peak(&self) -> u64 {
        self.peak.load(Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_in_any_order_make_the_list_once() {
        let s = Stitch::default();
        assert_eq!(s.add(7, (100, 110), 104, &[4, 5, 6]), None);
        assert_eq!(s.add(8, (110, 112), 110, &[1]), None);
        assert_eq!(s.add(7, (100, 110), 107, &[7, 8, 9]), None);
        assert_eq!(
            s.add(7, (100, 110), 100, &[0, 1, 2, 3]),
            Some(vec![0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
        );
        assert_eq!(s.peak(), 12);
        assert_eq!(s.finish(), Some(8), "vertex 8 never got its last byte");
        assert_eq!(s.finish(), None);
    }
}
