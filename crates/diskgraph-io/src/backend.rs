//! The [`Backend`] trait, one way of reading the runs of a round, and what a round hands a
//! backend: the file set and runs to read, the [`Chunk`] callback, and the round's [`Counters`].
//!
//! The implementations: `uring` and `pread` read into pool buffers on the thread pipeline
//! (`pipeline.rs`); `mmap` hands out slices of mapped files.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use crate::config::BackendKind;
use crate::error::IoError;
use crate::file::FileSet;
use crate::scheduler::Run;

/// One completed read: the same byte range of every file of the set.
pub struct Chunk<'a> {
    /// Byte offset of `data[i][0]` in file `i`.
    pub offset: u64,
    /// The bytes, one slice per file of the set, all of the same length.
    pub data: &'a [&'a [u8]],
}

impl Chunk<'_> {
    /// Length in bytes of each slice.
    pub fn len(&self) -> usize {
        self.data.first().map_or(0, |d| d.len())
    }

    /// Whether the chunk holds no bytes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// One past the last byte offset.
    pub fn end(&self) -> u64 {
        self.offset + self.len() as u64
    }
}

/// The user's chunk callback.
pub(crate) type Consume<'c> = dyn Fn(Chunk<'_>) + Sync + 'c;

/// Counters a round accumulates on several threads, and the stop request it polls.
#[derive(Default)]
pub(crate) struct Counters {
    /// The context's stop request (see [`IoContext::stop_when`](crate::IoContext::stop_when)):
    /// once set, the round starts no further read.
    pub(crate) stop: Option<Arc<AtomicBool>>,
    pub(crate) bytes_read: AtomicU64,
    pub(crate) wait_nanos: AtomicU64,
    /// Nanoseconds during which an I/O thread had a read in flight (uring) or was inside a read
    /// call (pread), summed over the I/O threads.
    pub(crate) busy_nanos: AtomicU64,
}

impl Counters {
    /// Whether the round was asked to stop.
    pub(crate) fn stopped(&self) -> bool {
        self.stop.as_ref().is_some_and(|s| s.load(Ordering::Relaxed))
    }
}

/// A way of reading the runs of a round.
pub(crate) trait Backend: Send + Sync {
    fn kind(&self) -> BackendKind;

    /// Reads `runs` of `set` and calls `consume` with each chunk.
    fn read_runs(&self, set: &FileSet, runs: &[Run], consume: &Consume<'_>, counters: &Counters)
        -> Result<(), IoError>;
}

/// Byte range of a run and the length of its chunk (clamped to the logical length `len`):
/// `(offset, read length, chunk length)`.
pub(crate) fn run_bytes(run: &Run, block_size: u32, len: u64) -> (u64, usize, usize) {
    let (start, end) = run.byte_range(block_size);
    (start, (end - start) as usize, (end.min(len) - start) as usize)
}
