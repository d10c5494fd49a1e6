//! The thread pipeline the buffer-reading backends (uring, pread) share.
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
//! A backend supplies the I/O loop: what one I/O thread does with the runs dealt to it, seen
//! through an [`IoThread`] (its runs, its free slots, its buffers, where completed slots go).
//!
//! Balance: Graphene gives every compute thread its own ring of I/O buffers and lets idle
//! threads steal from the others. Here all workers pull from one shared MPMC queue, which is
//! work sharing: no worker idles while any completed chunk waits, which is what stealing buys,
//! without per-thread rings to steal from.

use std::any::Any;
use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use crate::backend::{run_bytes, Chunk, Consume, Counters};
use crate::config::IoConfig;
use crate::crew::Crew;
use crate::error::IoError;
use crate::file::FileSet;
use crate::pool::BufferPool;
use crate::scheduler::Run;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Environment variable overriding the largest round read inline, on the calling thread, in
/// runs (`0` turns the fast path off). Default: what one ring keeps in flight at once (uring);
/// 16 runs with one I/O thread, else 1 (pread). A tuning and testing hook, read when a context
/// is created.
pub const INLINE_ENV: &str = "DISKGRAPH_IO_INLINE_RUNS";

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
    /// The runs dealt to this thread, in disk order, until the round is asked to stop.
    pub(crate) fn runs(&self) -> impl Iterator<Item = &'a Run> + 'a {
        let counters = self.counters;
        self.runs
            .iter()
            .skip(self.index)
            .step_by(self.stride)
            .take_while(move |_| !counters.stopped())
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
