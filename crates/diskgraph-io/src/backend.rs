//! The backends behind one internal trait, and the thread pipeline the buffered ones share.
//!
//! ```text
//!  runs ──deal──► I/O thread 0 ─┐ (uring: many reads in flight; pread: one)      ┌─► worker 0 ─► consume
//!                 I/O thread 1 ─┴─► bounded queue of completed buffers (MPMC) ───┼─► worker 1 ─► consume
//!                   ▲ free slots                                                 └─► caller  ─► consume
//!                   └──────────────── buffers come back after consume ◄──────────────┘
//! ```
//!
//! Each I/O thread owns a fixed part of the buffer pool (and, for uring, the ring those buffers
//! are registered with); a *slot* is one buffer per file of the set. A slot is owned by exactly
//! one party at a time: the I/O thread's free list, the kernel (read in flight), the completed
//! queue, or the worker calling `consume`. Dropping a [`Job`] gives its slot back, so buffers
//! return even when `consume` panics.
//!
//! Balance: Graphene gives every compute thread its own ring of I/O buffers and lets idle
//! threads steal from the others. Here all workers pull from one shared MPMC queue, which is
//! work sharing: no worker idles while any completed chunk waits, which is what stealing buys,
//! without per-thread rings to steal from.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender};

use crate::context::{Chunk, FileSet, IoError, SetFile};
use crate::pool::BufferPool;
use crate::scheduler::Run;
use crate::{BackendKind, IoConfig};

/// The user's chunk callback.
pub(crate) type Consume<'c> = dyn Fn(Chunk<'_>) + Sync + 'c;

/// Counters a round accumulates on several threads.
#[derive(Default)]
pub(crate) struct Counters {
    pub(crate) bytes_read: AtomicU64,
    pub(crate) wait_nanos: AtomicU64,
}

/// A way of reading the runs of a round.
pub(crate) trait Backend: Send + Sync {
    fn kind(&self) -> BackendKind;

    /// The buffer pipeline, for backends that read into buffers.
    fn pipeline(&self) -> Option<Arc<Pipeline>> {
        None
    }

    /// Reads `runs` of `set` and calls `consume` with each chunk.
    fn read_runs(&self, set: &FileSet, runs: &[Run], consume: &Consume<'_>, counters: &Counters)
        -> Result<(), IoError>;
}

/// Byte range of a run and the length of its chunk (clamped to the logical length).
fn run_bytes(run: &Run, block_size: u32, len: u64) -> (u64, usize, usize) {
    let (start, end) = run.byte_range(block_size);
    (start, (end - start) as usize, (end.min(len) - start) as usize)
}

pub(crate) fn eof_error(file: &SetFile, at: u64) -> IoError {
    file.os_error(std::io::Error::new(
        std::io::ErrorKind::UnexpectedEof,
        format!("file ends before byte {at} (truncated since open?)"),
    ))
}

/// After a read left the file's buffer filled to `got` bytes (`got < want`), the position to
/// continue from: O_DIRECT needs it aligned, so an unaligned tail is read again. `None` when the
/// read made no usable progress.
pub(crate) fn resume_at(file: &SetFile, before: usize, got: usize) -> Option<usize> {
    let next = if file.direct {
        got & !(file.align as usize - 1)
    } else {
        got
    };
    (next > before).then_some(next)
}

// ---------------------------------------------------------------------------------------------
// The pipeline shared by uring and pread.

/// Sent on a free list to make its I/O thread stop (a worker panicked).
const STOP: usize = usize::MAX;

/// Buffers and threads shared by the buffer-reading backends.
pub(crate) struct Pipeline {
    pub(crate) pool: BufferPool,
    io_threads: usize,
    compute_threads: usize,
    pub(crate) block_size: u32,
    /// One round at a time per context (the buffers are shared).
    round: Mutex<()>,
}

/// A completed read: slot `slot` of an I/O thread holds `len` valid bytes per file.
pub(crate) struct Job<'a> {
    slot: usize,
    offset: u64,
    len: usize,
    first_buf: usize,
    files: usize,
    pool: &'a BufferPool,
    free: &'a Sender<usize>,
}

impl Drop for Job<'_> {
    fn drop(&mut self) {
        // The I/O thread may have finished: then nobody needs the slot back this round.
        let _ = self.free.send(self.slot);
    }
}

/// What an I/O thread sees of the round.
pub(crate) struct IoThread<'a> {
    pub(crate) set: &'a FileSet,
    runs: &'a [Run],
    index: usize,
    stride: usize,
    pub(crate) block_size: u32,
    /// Files per slot.
    pub(crate) files: usize,
    /// Buffers of this thread: `[first_buf, first_buf + nslots * files)`.
    first_buf: usize,
    pub(crate) nslots: usize,
    pool: &'a BufferPool,
    free_rx: Receiver<usize>,
    free_tx: &'a Sender<usize>,
    done: Sender<Job<'a>>,
    abort: &'a AtomicBool,
    pub(crate) counters: &'a Counters,
}

impl<'a> IoThread<'a> {
    /// The runs dealt to this thread, in disk order.
    pub(crate) fn runs(&self) -> impl Iterator<Item = &'a Run> + 'a {
        self.runs.iter().skip(self.index).step_by(self.stride)
    }

    /// Byte range of a run: `(offset, read length, chunk length)`.
    pub(crate) fn run_bytes(&self, run: &Run) -> (u64, usize, usize) {
        run_bytes(run, self.block_size, self.set.len)
    }

    pub(crate) fn aborted(&self) -> bool {
        self.abort.load(Ordering::Relaxed)
    }

    pub(crate) fn abort(&self) {
        self.abort.store(true, Ordering::Relaxed);
    }

    fn take(&self, got: Option<usize>) -> Option<usize> {
        match got {
            Some(STOP) => {
                self.abort();
                None
            }
            Some(s) if self.aborted() => {
                self.release(s);
                None
            }
            s => s,
        }
    }

    /// A free slot, waiting for one if need be; `None` when the round is being aborted.
    pub(crate) fn wait_slot(&self) -> Option<usize> {
        if self.aborted() {
            return None;
        }
        self.take(self.free_rx.recv().ok())
    }

    /// A free slot if one is at hand.
    pub(crate) fn try_slot(&self) -> Option<usize> {
        self.take(self.free_rx.try_recv().ok())
    }

    /// Returns an unused slot.
    pub(crate) fn release(&self, slot: usize) {
        let _ = self.free_tx.send(slot);
    }

    /// Index within this thread's buffers of file `f`'s buffer in `slot`.
    pub(crate) fn local_buf(&self, slot: usize, f: usize) -> usize {
        slot * self.files + f
    }

    /// Address of file `f`'s buffer in `slot`.
    pub(crate) fn buf(&self, slot: usize, f: usize) -> *mut u8 {
        self.pool.ptr(self.first_buf + self.local_buf(slot, f))
    }

    /// Hands a filled slot to the workers.
    pub(crate) fn complete(&self, slot: usize, offset: u64, len: usize) {
        let job = Job {
            slot,
            offset,
            len,
            first_buf: self.first_buf,
            files: self.files,
            pool: self.pool,
            free: self.free_tx,
        };
        // The queue holds every slot of the round, so this never blocks; it fails only if every
        // worker is gone, and then the job's drop returns the slot.
        let _ = self.done.send(job);
    }
}

/// Stops the I/O threads when a worker unwinds out of `consume`.
struct PanicGuard<'a> {
    abort: &'a AtomicBool,
    free: &'a [Sender<usize>],
}

impl Drop for PanicGuard<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.abort.store(true, Ordering::Relaxed);
            for tx in self.free {
                let _ = tx.send(STOP);
            }
        }
    }
}

fn worker(
    jobs: Receiver<Job<'_>>,
    consume: &Consume<'_>,
    abort: &AtomicBool,
    free: &[Sender<usize>],
    counters: &Counters,
) {
    let _guard = PanicGuard { abort, free };
    let mut wait = Duration::ZERO;
    loop {
        let t0 = Instant::now();
        let job = jobs.recv();
        wait += t0.elapsed();
        let Ok(job) = job else { break };
        if abort.load(Ordering::Relaxed) {
            continue;
        }
        let slice = |f: usize| -> &[u8] {
            // SAFETY: the job owns its slot until it is dropped after `consume`; the I/O thread
            // wrote at least `len` bytes into each of its buffers (len ≤ buffer size) before
            // queueing it, and the channel orders those writes before this read.
            unsafe { std::slice::from_raw_parts(job.pool.ptr(job.first_buf + job.slot * job.files + f), job.len) }
        };
        let mut small: [&[u8]; 4] = [&[]; 4];
        let large: Vec<&[u8]>;
        let data: &[&[u8]] = if job.files <= small.len() {
            for (f, s) in small.iter_mut().enumerate().take(job.files) {
                *s = slice(f);
            }
            &small[..job.files]
        } else {
            large = (0..job.files).map(slice).collect();
            &large
        };
        consume(Chunk {
            offset: job.offset,
            data,
        });
    }
    counters.wait_nanos.fetch_add(wait.as_nanos() as u64, Ordering::Relaxed);
}

impl Pipeline {
    pub(crate) fn new(pool: BufferPool, c: &IoConfig) -> Self {
        Pipeline {
            pool,
            io_threads: c.io_threads,
            compute_threads: c.compute_threads,
            block_size: c.block_size,
            round: Mutex::new(()),
        }
    }

    /// Buffers `[first, first + n)` owned by I/O thread `t`.
    pub(crate) fn thread_buffers(&self, t: usize) -> (usize, usize) {
        let per = self.pool.count() / self.io_threads;
        (t * per, per)
    }

    pub(crate) fn io_threads(&self) -> usize {
        self.io_threads
    }

    /// Runs one round: `io_loop(thread, state)` on up to `io_threads` threads (one `state` each),
    /// `consume` on `compute_threads` workers.
    pub(crate) fn run<S, L>(
        &self,
        set: &FileSet,
        runs: &[Run],
        consume: &Consume<'_>,
        counters: &Counters,
        states: Vec<S>,
        io_loop: L,
    ) -> Result<(), IoError>
    where
        S: Send,
        L: Fn(&IoThread<'_>, S) -> Result<(), IoError> + Sync,
    {
        let _round = self.round.lock().unwrap_or_else(PoisonError::into_inner);
        let files = set.files.len();
        let (_, per_thread) = self.thread_buffers(0);
        let nslots = per_thread / files;
        if nslots == 0 {
            return Err(IoError::Config(format!(
                "each I/O thread has {per_thread} buffers, too few for {files} files: buffer_bytes must be at least \
                 io_threads × files × buffer size (IoConfig::min_buffer_bytes)"
            )));
        }
        let threads = self.io_threads.min(runs.len()).min(states.len());
        let free: Vec<(Sender<usize>, Receiver<usize>)> =
            (0..threads).map(|_| crossbeam_channel::unbounded()).collect();
        for (tx, _) in &free {
            for s in 0..nslots {
                tx.send(s).expect("receiver alive");
            }
        }
        let (free_txs, free_rxs): (Vec<_>, Vec<_>) = free.into_iter().unzip();
        let (done_tx, done_rx) = crossbeam_channel::bounded::<Job<'_>>(threads * nslots);
        let abort = AtomicBool::new(false);
        let first_error: Mutex<Option<IoError>> = Mutex::new(None);
        std::thread::scope(|s| {
            for (t, (state, free_rx)) in states.into_iter().zip(free_rxs).enumerate().take(threads) {
                let io = IoThread {
                    set,
                    runs,
                    index: t,
                    stride: threads,
                    block_size: self.block_size,
                    files,
                    first_buf: self.thread_buffers(t).0,
                    nslots,
                    pool: &self.pool,
                    free_rx,
                    free_tx: &free_txs[t],
                    done: done_tx.clone(),
                    abort: &abort,
                    counters,
                };
                let (io_loop, first_error) = (&io_loop, &first_error);
                std::thread::Builder::new()
                    .name(format!("diskgraph-io-{t}"))
                    .spawn_scoped(s, move || {
                        if let Err(e) = io_loop(&io, state) {
                            io.abort();
                            first_error
                                .lock()
                                .unwrap_or_else(PoisonError::into_inner)
                                .get_or_insert(e);
                        }
                    })
                    .expect("spawn I/O thread");
            }
            drop(done_tx);
            // No more workers than chunks.
            for w in 1..self.compute_threads.min(runs.len()) {
                let rx = done_rx.clone();
                let (abort, free_txs) = (&abort, &free_txs);
                std::thread::Builder::new()
                    .name(format!("diskgraph-worker-{w}"))
                    .spawn_scoped(s, move || worker(rx, consume, abort, free_txs, counters))
                    .expect("spawn worker");
            }
            worker(done_rx, consume, &abort, &free_txs, counters);
        });
        match first_error.into_inner().unwrap_or_else(PoisonError::into_inner) {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// pread

/// `pread(2)` on O_DIRECT (or, where the file system refuses it, buffered) descriptors: one read
/// at a time per I/O thread, the queue-depth-1 baseline.
pub(crate) struct PreadBackend {
    pipe: Arc<Pipeline>,
}

impl PreadBackend {
    pub(crate) fn new(pipe: Arc<Pipeline>) -> Self {
        PreadBackend { pipe }
    }
}

/// Reads `want` bytes (reading whole blocks, `buf.len()`) of `file` at `offset` into `buf`.
fn pread_full(file: &SetFile, buf: &mut [u8], offset: u64, want: usize, counters: &Counters) -> Result<(), IoError> {
    use std::os::unix::fs::FileExt;
    let mut done = 0;
    while done < want {
        match file.file.read_at(&mut buf[done..], offset + done as u64) {
            Ok(0) => return Err(eof_error(file, offset + want as u64)),
            Ok(n) => {
                counters.bytes_read.fetch_add(n as u64, Ordering::Relaxed);
                if done + n >= want {
                    break;
                }
                done = resume_at(file, done, done + n).ok_or_else(|| eof_error(file, offset + want as u64))?;
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(file.os_error(e)),
        }
    }
    Ok(())
}

fn pread_thread(io: &IoThread<'_>) -> Result<(), IoError> {
    for run in io.runs() {
        let Some(slot) = io.wait_slot() else { break };
        let (offset, read_len, want) = io.run_bytes(run);
        for (f, file) in io.set.files.iter().enumerate() {
            // SAFETY: this thread owns `slot` (taken from its free list) until `complete` or
            // `release`; the buffer holds at least `read_len` bytes (a run never exceeds it).
            let buf = unsafe { std::slice::from_raw_parts_mut(io.buf(slot, f), read_len) };
            if let Err(e) = pread_full(file, buf, offset, want, io.counters) {
                io.release(slot);
                return Err(e);
            }
        }
        io.complete(slot, offset, want);
    }
    Ok(())
}

impl Backend for PreadBackend {
    fn kind(&self) -> BackendKind {
        BackendKind::Pread
    }

    fn pipeline(&self) -> Option<Arc<Pipeline>> {
        Some(self.pipe.clone())
    }

    fn read_runs(
        &self,
        set: &FileSet,
        runs: &[Run],
        consume: &Consume<'_>,
        counters: &Counters,
    ) -> Result<(), IoError> {
        let states = vec![(); self.pipe.io_threads()];
        self.pipe
            .run(set, runs, consume, counters, states, |io, ()| pread_thread(io))
    }
}

// ---------------------------------------------------------------------------------------------
// mmap

/// Slices of memory-mapped files: the kernel page cache does the reading, on page faults inside
/// `consume` (so its time shows up as compute, not I/O wait). No I/O threads and no buffers;
/// `compute_threads` workers take runs from a shared counter.
pub(crate) struct MmapBackend {
    compute_threads: usize,
    block_size: u32,
}

impl MmapBackend {
    pub(crate) fn new(compute_threads: usize, block_size: u32) -> Self {
        MmapBackend {
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
        for f in &set.files {
            let size = f.file.metadata().map_err(|e| f.os_error(e))?.len();
            let mapped = f.map.as_ref().map_or(0, |m| m.len() as u64);
            if size < need || mapped < need {
                return Err(eof_error(f, need));
            }
        }
        let next = AtomicUsize::new(0);
        let work = || loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(run) = runs.get(i) else { break };
            let (offset, _, len) = run_bytes(run, self.block_size, set.len);
            let range = offset as usize..offset as usize + len;
            let data: Vec<&[u8]> = set
                .files
                .iter()
                .map(|f| f.map.as_ref().map_or(&[][..], |m| &m[range.clone()]))
                .collect();
            counters
                .bytes_read
                .fetch_add((len * data.len()) as u64, Ordering::Relaxed);
            consume(Chunk { offset, data: &data });
        };
        std::thread::scope(|s| {
            for _ in 1..self.compute_threads.min(runs.len()) {
                s.spawn(work);
            }
            work();
        });
        Ok(())
    }
}
