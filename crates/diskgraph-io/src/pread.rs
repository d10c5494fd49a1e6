//! The pread backend: `pread(2)` on O_DIRECT (or, where the file system refuses it, buffered)
//! descriptors, one read at a time per I/O thread of the pipeline: the queue-depth-1 baseline and
//! the fallback when io_uring is unavailable.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

use crate::backend::{Backend, Consume, Counters};
use crate::config::BackendKind;
use crate::error::IoError;
use crate::file::FileSet;
use crate::pipeline::{IoThread, Pipeline};
use crate::scheduler::Run;

/// Rounds of at most this many runs are read inline by the pread backend with one I/O thread
/// (which reads one run at a time anyway); with more I/O threads, which read in parallel, only
/// rounds of one run are.
const PREAD_INLINE_RUNS: usize = 16;

/// `pread(2)` on the pipeline's I/O threads.
pub(crate) struct PreadBackend {
    pipe: Arc<Pipeline>,
}

impl PreadBackend {
    pub(crate) fn new(pipe: Arc<Pipeline>) -> Self {
        PreadBackend { pipe }
    }
}

/// An I/O thread's loop: reads each run dealt to it into a free slot, file after file.
fn pread_thread(io: &IoThread<'_>) -> Result<(), IoError> {
    for run in io.runs() {
        let Some(slot) = io.wait_slot() else { break };
        let (offset, read_len, want) = io.run_bytes(run);
        for (f, file) in io.set.files.iter().enumerate() {
            // SAFETY: this thread owns `slot` (taken from its free list) until `complete` or
            // `release`; the buffer holds at least `read_len` bytes (a run never exceeds it).
            let buf = unsafe { std::slice::from_raw_parts_mut(io.buf(slot, f), read_len) };
            let started = Instant::now();
            let result = file.read_full(buf, offset, want, |n| {
                io.counters.bytes_read.fetch_add(n as u64, Ordering::Relaxed);
            });
            io.counters
                .busy_nanos
                .fetch_add(started.elapsed().as_nanos() as u64, Ordering::Relaxed);
            if let Err(e) = result {
                io.release(slot);
                return Err(e);
            }
        }
        io.complete(slot, offset, want);
        io.flush();
    }
    Ok(())
}

impl Backend for PreadBackend {
    fn kind(&self) -> BackendKind {
        BackendKind::Pread
    }

    fn read_runs(
        &self,
        set: &FileSet,
        runs: &[Run],
        consume: &Consume<'_>,
        counters: &Counters,
    ) -> Result<(), IoError> {
        let limit = if self.pipe.io_threads() == 1 {
            PREAD_INLINE_RUNS
        } else {
            1
        };
        if runs.len() <= self.pipe.inline_limit(limit) {
            return self
                .pipe
                .run_inline(set, runs, consume, counters, (), |io, ()| pread_thread(io));
        }
        let states = vec![(); self.pipe.io_threads()];
        self.pipe
            .run(set, runs, consume, counters, states, |io, ()| pread_thread(io))
    }
}
