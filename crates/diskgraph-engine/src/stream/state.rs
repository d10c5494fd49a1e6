//! Vertex state of the stream engine: one array of atomic words per vertex property, held in
//! memory or — CLIP's external mode — in a memory-mapped scratch file, so that it may exceed RAM
//! and the kernel pages it (hot vertices stay cached, cold ones go back to the file).

use std::path::Path;
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicU8, Ordering::Relaxed};
use std::sync::Arc;

use diskgraph_io::{IoError, MappedScratch};

use crate::error::EngineError;

use rayon::prelude::*;

/// Where vertex state lives (`--vertex-state`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum VertexStateKind {
    /// In memory (semi-external: reported, not charged to the budget).
    #[default]
    Memory,
    /// In an unnamed scratch file mapped into memory (`memmap2`): the page cache holds what fits.
    Mmap,
}

impl std::str::FromStr for VertexStateKind {
    type Err = String;

    /// Parses `memory` or `mmap`.
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "memory" => Ok(VertexStateKind::Memory),
            "mmap" => Ok(VertexStateKind::Mmap),
            _ => Err(format!("unknown vertex state {s:?} (use memory or mmap)")),
        }
    }
}

impl std::fmt::Display for VertexStateKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            VertexStateKind::Memory => "memory",
            VertexStateKind::Mmap => "mmap",
        })
    }
}

/// An atomic word a vertex property is stored in.
///
/// # Safety
/// Implementors must have the size and alignment of their plain integer and accept every bit
/// pattern, all-zero included (so a zero-filled mapped file is a valid array of them).
pub unsafe trait AtomicWord: Send + Sync + 'static {
    /// The plain value.
    type Value: Copy + Send + Sync;
    /// A word holding `v`.
    fn new(v: Self::Value) -> Self;
    /// Reads the word (relaxed).
    fn get(&self) -> Self::Value;
    /// Writes the word (relaxed).
    fn set(&self, v: Self::Value);
}

macro_rules! atomic_word {
    ($atomic:ty, $plain:ty) => {
        // SAFETY: the std atomics have the size and alignment of their integer (on every platform
        // with the matching native atomic) and accept every bit pattern.
        unsafe impl AtomicWord for $atomic {
            type Value = $plain;
            #[inline]
            fn new(v: $plain) -> Self {
                <$atomic>::new(v)
            }
            #[inline]
            fn get(&self) -> $plain {
                self.load(Relaxed)
            }
            #[inline]
            fn set(&self, v: $plain) {
                self.store(v, Relaxed)
            }
        }
    };
}

atomic_word!(AtomicU8, u8);
atomic_word!(AtomicU32, u32);
atomic_word!(AtomicU64, u64);

/// One property of every vertex: `n` atomic words in memory or in a mapped scratch file
/// (an unnamed temporary file, so nothing is left behind even after a crash). Dereferences to
/// `[A]`.
pub struct VertexArray<A: AtomicWord> {
    storage: Storage<A>,
}

enum Storage<A> {
    Memory(Vec<A>),
    /// Held raw: the pointer of the scratch's `MmapRaw` carries write permission from `&self`,
    /// which the atomic words need (one taken from a shared `&[u8]` of an `MmapMut` does not).
    /// The scratch is shared with the engine, which checks it for faults after every pass; the
    /// first word's address is kept here so that indexing reads no pointer behind the `Arc`.
    Mapped {
        words: std::ptr::NonNull<A>,
        len: usize,
        scratch: Arc<MappedScratch>,
    },
}

impl<A: AtomicWord> VertexArray<A> {
    /// `n` words, word `v` set to `init(v)`, in memory or (`Mmap`) in a scratch file created in
    /// `scratch`.
    pub fn new(
        kind: VertexStateKind,
        n: usize,
        scratch: &Path,
        init: impl Fn(u32) -> A::Value + Sync,
    ) -> std::io::Result<Self> {
        let storage = match kind {
            VertexStateKind::Mmap if n > 0 => {
                let bytes = (n as u64)
                    .checked_mul(std::mem::size_of::<A>() as u64)
                    .ok_or_else(|| std::io::Error::other("vertex state size overflows"))?;
                let map = MappedScratch::create(scratch, bytes)?;
                assert!(
                    (map.as_mut_ptr() as usize).is_multiple_of(std::mem::align_of::<A>()),
                    "mappings are page-aligned"
                );
                let words = std::ptr::NonNull::new(map.as_mut_ptr().cast::<A>()).expect("a mapping is not at 0");
                Storage::Mapped {
                    words,
                    len: n,
                    scratch: Arc::new(map),
                }
            }
            _ => Storage::Memory((0..n as u32).into_par_iter().map(|v| A::new(init(v))).collect()),
        };
        let array = VertexArray { storage };
        if let Storage::Mapped { .. } = array.storage {
            array
                .par_iter()
                .with_min_len(4096)
                .enumerate()
                .for_each(|(v, w)| w.set(init(v as u32)));
        }
        Ok(array)
    }

    /// Whether the words live in a mapped file.
    pub fn mapped(&self) -> bool {
        matches!(self.storage, Storage::Mapped { .. })
    }

    /// Bytes of the words.
    pub fn bytes(&self) -> u64 {
        (self.len() * std::mem::size_of::<A>()) as u64
    }

    /// The values, in vertex order; an error naming the scratch file if a page of it could not
    /// be read or written (the values hold zeros there).
    pub fn values(&self) -> Result<Vec<A::Value>, EngineError> {
        let values = self.par_iter().with_min_len(4096).map(A::get).collect();
        self.check()?;
        Ok(values)
    }

    /// An error naming the scratch file if a page of it could not be read or written since it
    /// was mapped; `Ok` for words in memory.
    pub fn check(&self) -> Result<(), IoError> {
        match &self.storage {
            Storage::Memory(_) => Ok(()),
            Storage::Mapped { scratch, .. } => scratch.check(),
        }
    }

    /// The mapped scratch file, for the engine to check after each pass.
    pub(crate) fn scratch(&self) -> Option<&Arc<MappedScratch>> {
        match &self.storage {
            Storage::Memory(_) => None,
            Storage::Mapped { scratch, .. } => Some(scratch),
        }
    }
}

// SAFETY: the mapped words are atomics (`A: Send + Sync`) in a mapping the array owns through
// its `Arc<MappedScratch>`; the pointer is only that mapping's address, so sending or sharing
// the array is sending or sharing `[A]`, as for the words in memory.
unsafe impl<A: AtomicWord> Send for Storage<A> {}
// SAFETY: as above.
unsafe impl<A: AtomicWord> Sync for Storage<A> {}

impl<A: AtomicWord> std::ops::Deref for VertexArray<A> {
    type Target = [A];

    fn deref(&self) -> &[A] {
        match &self.storage {
            Storage::Memory(v) => v,
            // SAFETY: the mapping holds `len` words (checked size, page alignment asserted), it
            // lives as long as `self`, and `A` accepts any bit pattern (`AtomicWord`'s contract);
            // the pointer is the mapping's own, with write permission. All access goes through
            // atomics, so shared references are sound. A page that faults is replaced by a zero
            // page (`MappedScratch`), zeros being valid words too.
            Storage::Mapped { words, len, .. } => unsafe { std::slice::from_raw_parts(words.as_ptr(), *len) },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg_attr(miri, ignore = "Miri cannot map files")]
    fn memory_and_mapped_hold_the_same() {
        let dir = tempfile::tempdir().unwrap();
        for kind in [VertexStateKind::Memory, VertexStateKind::Mmap] {
            for n in [0usize, 1, 5000] {
                let a = VertexArray::<AtomicU64>::new(kind, n, dir.path(), |v| u64::from(v) * 3).unwrap();
                assert_eq!(a.len(), n);
                assert_eq!(a.mapped(), kind == VertexStateKind::Mmap && n > 0);
                if n > 0 {
                    a[n - 1].set(7);
                }
                let want: Vec<u64> = (0..n as u64)
                    .map(|v| if v + 1 == n as u64 { 7 } else { v * 3 })
                    .collect();
                assert_eq!(a.values().unwrap(), want);
            }
        }
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            0,
            "scratch files are unnamed"
        );
        assert_eq!("mmap".parse::<VertexStateKind>(), Ok(VertexStateKind::Mmap));
        assert!("disk".parse::<VertexStateKind>().is_err());
    }

    #[test]
    #[cfg_attr(miri, ignore = "Miri cannot map files")]
    fn a_scratch_page_that_cannot_be_written_fails_the_values() {
        let dir = tempfile::tempdir().unwrap();
        let a = VertexArray::<AtomicU64>::new(VertexStateKind::Mmap, 5000, dir.path(), u64::from).unwrap();
        let scratch = a.scratch().unwrap();
        let start = scratch.as_mut_ptr() as usize;
        // The unnamed file, cut short through its mapping (needs CAP_SYS_ADMIN: tests run as root).
        let end = (start + scratch.len()).next_multiple_of(4096);
        let mapping = format!("/proc/self/map_files/{start:x}-{end:x}");
        let file = std::fs::OpenOptions::new().write(true).open(&mapping).unwrap();
        file.set_len(0).unwrap();
        a[1000].set(9);
        let err = a.values().unwrap_err().to_string();
        assert!(err.contains("vertex-state scratch file"), "{err}");
        assert!(err.contains("the mapped page at byte 8000"), "{err}");
    }
}
