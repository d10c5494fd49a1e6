//! The mmap backend: chunks are slices of memory-mapped files, and the kernel page cache does
//! the reading, on page faults inside `consume`. A page that cannot be read faults with SIGBUS;
//! the maps' guards catch it (`sigbus`), the round stops taking runs and fails with an error
//! naming the file and the byte.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use crate::backend::{run_bytes, Backend, Chunk, Consume, Counters};
use crate::config::BackendKind;
use crate::crew::Crew;
use crate::error::IoError;
use crate::faults;
use crate::file::FileSet;
use crate::scheduler::Run;

/// Slices of memory-mapped files: the kernel page cache does the reading, on page faults inside
/// `consume` (so its time shows up as compute, not I/O wait). No I/O threads and no buffers;
/// `compute_threads` workers (the caller and the context's long-lived workers) take runs from a
/// shared counter.
pub(crate) struct MmapBackend {
    /// Seat `i` is worker `i + 1`.
    crew: Crew,
    compute_threads: usize,
    block_size: u32,
}

impl MmapBackend {
    pub(crate) fn new(compute_threads: usize, block_size: u32) -> Self {
        MmapBackend {
            crew: Crew::new(compute_threads - 1, |s| format!("diskgraph-worker-{}", s + 1)),
            compute_threads,
            block_size,
        }
    }
}

impl Backend for MmapBackend {
    fn kind(&self) -> BackendKind {
        BackendKind::Mmap
    }

    fn read_runs(
        &self,
        set: &FileSet,
        runs: &[Run],
        consume: &Consume<'_>,
        counters: &Counters,
    ) -> Result<(), IoError> {
        // A mapped page past the end of a file faults (SIGBUS): refuse a round over files that
        // shrank since they were opened.
        let need = runs
            .iter()
            .map(|r| r.byte_range(self.block_size).1)
            .max()
            .unwrap_or(0)
            .min(set.len);
        for (f, map) in set.files.iter().zip(&set.maps) {
            let size = f.size()?;
            let mapped = map.as_ref().map_or(0, |m| m.len() as u64);
            if size < need || mapped < need {
                return Err(f.eof_error(need));
            }
            // Mapped pages are read by page faults, where a real EIO is a SIGBUS; a planned one
            // fails the round before any page is touched.
            for run in runs.iter().filter(|_| faults::armed()) {
                let (offset, _, len) = run_bytes(run, self.block_size, set.len);
                if let Some(e) = faults::mapped(&f.path, offset, len) {
                    return Err(f.read_error(e, offset));
                }
            }
        }
        let next = AtomicUsize::new(0);
        let faulted = AtomicBool::new(false);
        let work = || loop {
            if counters.stopped() {
                break;
            }
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(run) = runs.get(i).filter(|_| !faulted.load(Ordering::Relaxed)) else {
                break;
            };
            let (offset, _, len) = run_bytes(run, self.block_size, set.len);
            let range = offset as usize..offset as usize + len;
            let data: Vec<&[u8]> = set
                .maps
                .iter()
                .map(|m| m.as_ref().map_or(&[][..], |m| &m[range.clone()]))
                .collect();
            counters
                .bytes_read
                .fetch_add((len * data.len()) as u64, Ordering::Relaxed);
            consume(Chunk { offset, data: &data });
            // A page of this chunk that could not be read was zeros to `consume`: stop here,
            // the round fails below.
            if set.maps.iter().flatten().any(|m| m.check().is_err()) {
                faulted.store(true, Ordering::Relaxed);
            }
        };
        let helpers = self.compute_threads.min(runs.len()).saturating_sub(1);
        if helpers == 0 {
            work();
            return check_maps(set);
        }
        // Mmap rounds of one context may run concurrently (they share nothing but the crew):
        // a round that finds the crew busy, e.g. one started from inside `consume`, spawns its
        // own helpers as before.
        match self.crew.try_lock() {
            Some(mut crew) => {
                let seats: Vec<usize> = (0..helpers).collect();
                crew.run(&[], &seats, &|_| work(), work);
            }
            None => std::thread::scope(|s| {
                for _ in 0..helpers {
                    s.spawn(work);
                }
                work();
            }),
        }
        check_maps(set)
    }
}

/// The error of the first map of `set` in which a page could not be read, if any (a fault is
/// kept: every later round over the set fails too, its map holding zeros where the page was).
fn check_maps(set: &FileSet) -> Result<(), IoError> {
    set.maps.iter().flatten().try_for_each(|m| m.check())
}
