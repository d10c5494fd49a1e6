//! The backends behind one internal trait, and the thread pipeline the buffered ones share.
//!
//! ```text
//!  runs ──deal──► I/O thread 0 ─┐ (uring: many reads in flight; pread: one)      ┌─► worker 1 ─► consume
//!                 I/O thread 1 ─┴─► queue of completed buffers (mutex + condvar) ─┼─► worker 2 ─► consume
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
//! Threads: the I/O threads and the workers other than the caller are long-lived threads of the
//! context (a [`Crew`]), spawned on the first round that needs them, asleep on a condition
//! variable between rounds, and joined when the context is dropped; a round wakes the ones it
//! needs and lends them its borrowed state. Nobody spins: a thread with nothing to do blocks on
//! a condition variable or in `io_uring_enter`. A round small enough to be in flight at once
//! (uring: at most one ring's worth of runs; pread: a couple of runs) is read *inline*: the
//! calling thread reads with I/O thread 0's ring and buffers and calls `consume` as each read
//! completes, without waking anyone.
//!
//! Balance: Graphene gives every compute thread its own ring of I/O buffers and lets idle
//! threads steal from the others. Here all workers pull from one shared MPMC queue, which is
//! work sharing: no worker idles while any completed chunk waits, which is what stealing buys,
//! without per-thread rings to steal from.

use std::any::Any;
use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use crate::context::{Chunk, FileSet, IoError, SetFile};
use crate::crew::Crew;
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
    /// Nanoseconds during which an I/O thread had a read in flight (uring) or was inside a read
    /// call (pread), summed over the I/O threads.
    pub(crate) busy_nanos: AtomicU64,
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

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Environment variable overriding the largest round read inline, on the calling thread, in
/// runs (`0` turns the fast path off). Default: what one ring keeps in flight at once (uring);
/// 16 runs with one I/O thread, else 1 (pread). A tuning and testing hook, read when a context
/// is created.
pub const INLINE_ENV: &str = "DISKGRAPH_IO_INLINE_RUNS";

/// Rounds of at most this many runs are read inline by the pread backend with one I/O thread
/// (which reads one run at a time anyway); with more I/O threads, which read in parallel, only
/// rounds of one run are.
const PREAD_INLINE_RUNS: usize = 16;

/// Buffers and threads shared by the buffer-reading backends.
pub(crate) struct Pipeline {
    /// The long-lived threads: seats `0..io_threads` are the I/O threads, the next
    /// `compute_threads - 1` the workers (the calling thread is the other worker). Declared
    /// first: the threads are joined before the buffers go.
    crew: Crew,
    pub(crate) pool: BufferPool,
    io_threads: usize,
    compute_threads: usize,
    pub(crate) block_size: u32,
    /// Override of the inline limit ([`INLINE_ENV`]).
    inline_runs: Option<usize>,
    /// One round at a time per context (the buffers are shared).
    round: Mutex<()>,
}

/// Free slots of one I/O thread. Only that thread waits on it.
struct FreeList {
    state: Mutex<FreeState>,
    cv: Condvar,
}

struct FreeState {
    slots: Vec<usize>,
    waiting: bool,
}

impl FreeList {
    fn new(nslots: usize) -> Self {
        FreeList {
            state: Mutex::new(FreeState {
                slots: (0..nslots).rev().collect(),
                waiting: false,
            }),
            cv: Condvar::new(),
        }
    }

    fn put(&self, slot: usize) {
        let mut s = lock(&self.state);
        s.slots.push(slot);
        if s.waiting {
            self.cv.notify_one();
        }
    }

    /// A free slot, waiting for one if need be; `None` once `abort` is set.
    fn take(&self, abort: &AtomicBool) -> Option<usize> {
        let mut s = lock(&self.state);
        loop {
            if abort.load(Ordering::Relaxed) {
                return None;
            }
            if let Some(slot) = s.slots.pop() {
                return Some(slot);
            }
            s.waiting = true;
            s = self.cv.wait(s).unwrap_or_else(PoisonError::into_inner);
            s.waiting = false;
        }
    }

    fn try_take(&self, abort: &AtomicBool) -> Option<usize> {
        let mut s = lock(&self.state);
        if abort.load(Ordering::Relaxed) {
            return None;
        }
        s.slots.pop()
    }

    /// Wakes the waiting I/O thread so that it sees the abort flag (set before).
    fn wake(&self) {
        let _s = lock(&self.state);
        self.cv.notify_all();
    }
}

/// Completed reads waiting for a worker, how many I/O threads may still add some, and how many
/// workers take from it.
///
/// Wake-ups are rationed: a batch of completions wakes only as many sleeping workers as there are
/// jobs beyond what the workers still awake will take when they come back. Cheap `consume`s are
/// then served by one worker without a futex round trip per chunk; a burst of chunks (a batch of
/// io_uring completions) wakes everyone.
struct Completed<'a> {
    state: Mutex<CompletedState<'a>>,
    cv: Condvar,
}

struct CompletedState<'a> {
    jobs: VecDeque<Job<'a>>,
    producers: usize,
    /// Workers taking part (a worker leaves when the round is over or `consume` panicked).
    workers: usize,
    /// Workers asleep on the condition variable (or woken and not yet running).
    idle: usize,
}

impl<'a> Completed<'a> {
    fn new(producers: usize, workers: usize, capacity: usize) -> Self {
        Completed {
            state: Mutex::new(CompletedState {
                jobs: VecDeque::with_capacity(capacity),
                producers,
                workers,
                idle: 0,
            }),
            cv: Condvar::new(),
        }
    }

    /// Queues completed reads.
    fn push(&self, jobs: impl Iterator<Item = Job<'a>>) {
        let mut s = lock(&self.state);
        s.jobs.extend(jobs);
        let awake = s.workers.saturating_sub(s.idle);
        let wake = s.jobs.len().saturating_sub(awake).min(s.idle);
        if wake == s.idle && wake > 1 {
            self.cv.notify_all();
        } else {
            for _ in 0..wake {
                self.cv.notify_one();
            }
        }
    }

    /// An I/O thread is done with the round.
    fn producer_done(&self) {
        let mut s = lock(&self.state);
        s.producers -= 1;
        if s.producers == 0 && s.idle > 0 {
            self.cv.notify_all();
        }
    }

    /// A worker leaves the round.
    fn worker_done(&self) {
        lock(&self.state).workers -= 1;
    }

    /// The next completed read; `None` when every I/O thread is done and the queue is empty.
    fn pop(&self) -> Option<Job<'a>> {
        let mut s = lock(&self.state);
        loop {
            if let Some(job) = s.jobs.pop_front() {
                return Some(job);
            }
            if s.producers == 0 {
                return None;
            }
            s.idle += 1;
            s = self.cv.wait(s).unwrap_or_else(PoisonError::into_inner);
            s.idle -= 1;
        }
    }
}

/// A completed read: slot `slot` of an I/O thread holds `len` valid bytes per file.
pub(crate) struct Job<'a> {
    slot: usize,
    offset: u64,
    len: usize,
    first_buf: usize,
    files: usize,
    pool: &'a BufferPool,
    free: &'a FreeList,
}

impl Job<'_> {
    /// Calls `consume` with the job's chunk.
    fn deliver(&self, consume: &Consume<'_>) {
        let slice = |f: usize| -> &[u8] {
            // SAFETY: the job owns its slot until it is dropped after `consume`; the I/O thread
            // wrote at least `len` bytes into each of its buffers (len ≤ buffer size) before
            // handing it over, and the hand-over (a lock, or the same thread) orders those
            // writes before this read.
            unsafe { std::slice::from_raw_parts(self.pool.ptr(self.first_buf + self.slot * self.files + f), self.len) }
        };
        let mut small: [&[u8]; 4] = [&[]; 4];
        let large: Vec<&[u8]>;
        let data: &[&[u8]] = if self.files <= small.len() {
            for (f, s) in small.iter_mut().enumerate().take(self.files) {
                *s = slice(f);
            }
            &small[..self.files]
        } else {
            large = (0..self.files).map(slice).collect();
            &large
        };
        consume(Chunk {
            offset: self.offset,
            data,
        });
    }
}

impl Drop for Job<'_> {
    fn drop(&mut self) {
        self.free.put(self.slot);
    }
}

/// A completed read before it becomes a [`Job`]: `(slot, offset, len)`.
type Completion = (usize, u64, usize);

/// Queues a batch of completions for the workers.
type Push<'a> = dyn Fn(&mut dyn Iterator<Item = Completion>) + 'a;

/// Where an I/O thread's completed reads go.
enum Sink<'a> {
    /// To the workers: completions gather in `pending` until [`IoThread::flush`] queues them
    /// with `push`.
    Queue {
        push: &'a Push<'a>,
        pending: RefCell<Vec<Completion>>,
    },
    /// Straight to `consume`, on the reading thread (the inline fast path). A panic in
    /// `consume` is kept here and aborts the round; it is resumed once the reads are drained.
    Inline {
        consume: &'a Consume<'a>,
        panic: RefCell<Option<Box<dyn Any + Send>>>,
        /// Time spent in `consume`.
        busy: Cell<Duration>,
    },
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
    free: &'a FreeList,
    sink: Sink<'a>,
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

    /// A free slot, waiting for one if need be; `None` when the round is being aborted.
    pub(crate) fn wait_slot(&self) -> Option<usize> {
        self.free.take(self.abort)
    }

    /// A free slot if one is at hand.
    pub(crate) fn try_slot(&self) -> Option<usize> {
        self.free.try_take(self.abort)
    }

    /// Returns an unused slot.
    pub(crate) fn release(&self, slot: usize) {
        self.free.put(slot);
    }

    /// Index within this thread's buffers of file `f`'s buffer in `slot`.
    pub(crate) fn local_buf(&self, slot: usize, f: usize) -> usize {
        slot * self.files + f
    }

    /// Address of file `f`'s buffer in `slot`.
    pub(crate) fn buf(&self, slot: usize, f: usize) -> *mut u8 {
        self.pool.ptr(self.first_buf + self.local_buf(slot, f))
    }

    /// Hands a filled slot to the workers at the next [`flush`](Self::flush) (or, inline,
    /// to `consume` right away).
    pub(crate) fn complete(&self, slot: usize, offset: u64, len: usize) {
        match &self.sink {
            Sink::Queue { pending, .. } => pending.borrow_mut().push((slot, offset, len)),
            Sink::Inline { consume, panic, busy } => {
                let job = Job {
                    slot,
                    offset,
                    len,
                    first_buf: self.first_buf,
                    files: self.files,
                    pool: self.pool,
                    free: self.free,
                };
                if self.aborted() {
                    return;
                }
                let t0 = Instant::now();
                let r = catch_unwind(AssertUnwindSafe(|| job.deliver(*consume)));
                busy.set(busy.get() + t0.elapsed());
                if let Err(p) = r {
                    panic.borrow_mut().get_or_insert(p);
                    self.abort();
                }
            }
        }
    }

    /// Queues the completions gathered since the last flush (one lock and at most a few
    /// wake-ups for the lot).
    pub(crate) fn flush(&self) {
        if let Sink::Queue { push, pending } = &self.sink {
            let mut p = pending.borrow_mut();
            if !p.is_empty() {
                push(&mut p.drain(..));
            }
        }
    }
}

/// Stops the I/O threads when a worker unwinds out of `consume`.
struct PanicGuard<'g, 'a> {
    abort: &'g AtomicBool,
    free: &'g [FreeList],
    done: &'g Completed<'a>,
}

impl Drop for PanicGuard<'_, '_> {
    fn drop(&mut self) {
        self.done.worker_done();
        if std::thread::panicking() {
            self.abort.store(true, Ordering::Relaxed);
            for f in self.free {
                f.wake();
            }
        }
    }
}

/// Tells the workers that an I/O thread is done, even if it unwinds.
struct ProducerGuard<'q, 'a> {
    done: &'q Completed<'a>,
    abort: &'q AtomicBool,
}

impl Drop for ProducerGuard<'_, '_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.abort.store(true, Ordering::Relaxed);
        }
        self.done.producer_done();
    }
}

fn worker(done: &Completed<'_>, consume: &Consume<'_>, abort: &AtomicBool, free: &[FreeList], counters: &Counters) {
    let _guard = PanicGuard { abort, free, done };
    let mut wait = Duration::ZERO;
    loop {
        let t0 = Instant::now();
        let job = done.pop();
        wait += t0.elapsed();
        let Some(job) = job else { break };
        if !abort.load(Ordering::Relaxed) {
            job.deliver(consume);
        }
    }
    counters.wait_nanos.fetch_add(wait.as_nanos() as u64, Ordering::Relaxed);
}

impl Pipeline {
    pub(crate) fn new(pool: BufferPool, c: &IoConfig) -> Self {
        let io_threads = c.io_threads;
        Pipeline {
            crew: Crew::new(io_threads + c.compute_threads - 1, move |s| {
                if s < io_threads {
                    format!("diskgraph-io-{s}")
                } else {
                    format!("diskgraph-worker-{}", s - io_threads + 1)
                }
            }),
            pool,
            io_threads,
            compute_threads: c.compute_threads,
            block_size: c.block_size,
            inline_runs: std::env::var(INLINE_ENV).ok().and_then(|v| v.trim().parse().ok()),
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

    /// Slots (one buffer per file) of each I/O thread for a set of `files` files.
    pub(crate) fn slots(&self, files: usize) -> Result<usize, IoError> {
        let (_, per_thread) = self.thread_buffers(0);
        match per_thread / files.max(1) {
            0 => Err(IoError::Config(format!(
                "each I/O thread has {per_thread} buffers, too few for {files} files: buffer_bytes must be at least \
                 io_threads × files × buffer size (IoConfig::min_buffer_bytes)"
            ))),
            n => Ok(n),
        }
    }

    /// The largest round read inline: the override, else `default`.
    pub(crate) fn inline_limit(&self, default: usize) -> usize {
        self.inline_runs.unwrap_or(default)
    }

    /// Runs one round: `io_loop(thread, state)` on up to `io_threads` of the context's I/O
    /// threads (one `state` each), `consume` on `compute_threads` workers: the calling thread
    /// and the context's worker threads.
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
        let _round = lock(&self.round);
        let files = set.files.len();
        let nslots = self.slots(files)?;
        let threads = self.io_threads.min(runs.len()).min(states.len());
        let workers = self.compute_threads.min(runs.len()).max(1);
        let states: Vec<Mutex<Option<S>>> = states.into_iter().map(|s| Mutex::new(Some(s))).collect();
        // Declared before the queue: jobs left in it give their slots back when it drops.
        let free: Vec<FreeList> = (0..threads).map(|_| FreeList::new(nslots)).collect();
        let done = Completed::new(threads, workers, threads * nslots);
        let abort = AtomicBool::new(false);
        let first_error: Mutex<Option<IoError>> = Mutex::new(None);
        let task = |seat: usize| {
            if seat >= self.io_threads {
                worker(&done, consume, &abort, &free, counters);
                return;
            }
            let _producer = ProducerGuard {
                done: &done,
                abort: &abort,
            };
            let state = lock(&states[seat]).take().expect("one state per I/O thread");
            let first_buf = self.thread_buffers(seat).0;
            let push = |batch: &mut dyn Iterator<Item = Completion>| {
                done.push(batch.map(|(slot, offset, len)| Job {
                    slot,
                    offset,
                    len,
                    first_buf,
                    files,
                    pool: &self.pool,
                    free: &free[seat],
                }));
            };
            let io = IoThread {
                set,
                runs,
                index: seat,
                stride: threads,
                block_size: self.block_size,
                files,
                first_buf,
                nslots,
                pool: &self.pool,
                free: &free[seat],
                sink: Sink::Queue {
                    push: &push,
                    pending: RefCell::new(Vec::with_capacity(nslots)),
                },
                abort: &abort,
                counters,
            };
            let result = io_loop(&io, state);
            io.flush();
            if let Err(e) = result {
                io.abort();
                lock(&first_error).get_or_insert(e);
            }
        };
        // The I/O threads must run (the workers wait for every one of them to finish); a worker
        // thread that wakes up only after the round is over is skipped.
        let io_seats: Vec<usize> = (0..threads).collect();
        let worker_seats: Vec<usize> = (self.io_threads..self.io_threads + workers - 1).collect();
        self.crew.lock().run(&io_seats, &worker_seats, &task, || {
            worker(&done, consume, &abort, &free, counters)
        });
        match first_error.into_inner().unwrap_or_else(PoisonError::into_inner) {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Runs one round on the calling thread alone: `io_loop(thread, state)` with I/O thread 0's
    /// buffers, calling `consume` as each read completes. For rounds small enough that waking
    /// other threads costs more than it saves.
    pub(crate) fn run_inline<S>(
        &self,
        set: &FileSet,
        runs: &[Run],
        consume: &Consume<'_>,
        counters: &Counters,
        state: S,
        io_loop: impl FnOnce(&IoThread<'_>, S) -> Result<(), IoError>,
    ) -> Result<(), IoError> {
        let _round = lock(&self.round);
        let files = set.files.len();
        let nslots = self.slots(files)?;
        let free = FreeList::new(nslots);
        let abort = AtomicBool::new(false);
        let start = Instant::now();
        let io = IoThread {
            set,
            runs,
            index: 0,
            stride: 1,
            block_size: self.block_size,
            files,
            first_buf: self.thread_buffers(0).0,
            nslots,
            pool: &self.pool,
            free: &free,
            sink: Sink::Inline {
                consume,
                panic: RefCell::new(None),
                busy: Cell::new(Duration::ZERO),
            },
            abort: &abort,
            counters,
        };
        let result = io_loop(&io, state);
        let Sink::Inline { panic, busy, .. } = io.sink else {
            unreachable!("inline sink")
        };
        let wait = start.elapsed().saturating_sub(busy.get());
        counters.wait_nanos.fetch_add(wait.as_nanos() as u64, Ordering::Relaxed);
        if let Some(p) = panic.into_inner() {
            resume_unwind(p);
        }
        result
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
    let started = std::time::Instant::now();
    let result = pread_all(file, buf, offset, want, counters);
    counters
        .busy_nanos
        .fetch_add(started.elapsed().as_nanos() as u64, Ordering::Relaxed);
    result
}

/// [`pread_full`]'s loop: reads until `want` bytes or the end of the file's data.
fn pread_all(file: &SetFile, buf: &mut [u8], offset: u64, want: usize, counters: &Counters) -> Result<(), IoError> {
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
        io.flush();
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

// ---------------------------------------------------------------------------------------------
// mmap

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
        let helpers = self.compute_threads.min(runs.len()).saturating_sub(1);
        if helpers == 0 {
            work();
            return Ok(());
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
        Ok(())
    }
}
