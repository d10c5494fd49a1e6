//! The io_uring backend: one ring per I/O thread of the pipeline, O_DIRECT descriptors, the
//! thread's pool buffers registered with its ring (fixed-buffer reads) when the kernel allows,
//! and up to `queue_depth` reads in flight per thread.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use crate::backend::{Backend, Consume, Counters};
use crate::config::BackendKind;
use crate::error::IoError;
use crate::file::FileSet;
use crate::pipeline::{IoThread, Pipeline};
use crate::ring::{Ring, RingRead, Settled};
use crate::scheduler::Run;

/// An I/O thread's ring.
struct ThreadRing {
    ring: Ring,
    /// A round ended without knowing the kernel was done with its buffers: unusable.
    broken: bool,
}

/// io_uring + O_DIRECT.
pub(crate) struct UringBackend {
    // Declared before `pipe` so that rings (and their buffer registrations) go first.
    rings: Mutex<Vec<ThreadRing>>,
    pipe: Arc<Pipeline>,
    /// Why the buffers are not registered, if they are not.
    unregistered: Option<String>,
}

impl UringBackend {
    /// One ring per I/O thread, each with its thread's buffers registered when possible.
    pub(crate) fn new(pipe: Arc<Pipeline>, depth: u32) -> Result<Self, String> {
        let mut rings = Vec::with_capacity(pipe.io_threads());
        let mut unregistered = None;
        for t in 0..pipe.io_threads() {
            let (mut ring, fixed_ok) = Ring::new(depth)?;
            let (first, n) = pipe.thread_buffers(t);
            let (iovecs, per) = pipe.pool.iovecs(first, n);
            if !fixed_ok {
                unregistered.get_or_insert_with(|| "IORING_OP_READ_FIXED not supported".to_string());
            } else if iovecs.len() > usize::from(u16::MAX) {
                unregistered.get_or_insert_with(|| format!("{} buffer regions: too many to index", iovecs.len()));
            } else {
                // SAFETY: the iovecs cover buffers of the pool, which outlives the ring (`rings`
                // is dropped before `pipe`).
                if let Err(e) = unsafe { ring.register(&iovecs, per) } {
                    unregistered.get_or_insert_with(|| format!("IORING_REGISTER_BUFFERS: {e}"));
                }
            }
            rings.push(ThreadRing { ring, broken: false });
        }
        Ok(UringBackend {
            rings: Mutex::new(rings),
            pipe,
            unregistered,
        })
    }

    /// Why the buffers are not registered (fixed-buffer reads unavailable), if they are not.
    pub(crate) fn unregistered(&self) -> Option<&str> {
        self.unregistered.as_deref()
    }
}

impl Backend for UringBackend {
    fn kind(&self) -> BackendKind {
        BackendKind::Uring
    }

    fn read_runs(
        &self,
        set: &FileSet,
        runs: &[Run],
        consume: &Consume<'_>,
        counters: &Counters,
    ) -> Result<(), IoError> {
        let mut rings = self.rings.lock().unwrap_or_else(PoisonError::into_inner);
        if rings.iter().any(|r| r.broken) {
            return Err(IoError::Config(
                "an io_uring failed in an earlier round; open a new context".into(),
            ));
        }
        if set.files.len() > rings[0].ring.sq_entries() {
            return Err(IoError::Config(
                "more files in the set than io_uring submission entries".into(),
            ));
        }
        // A round whose reads all fit in one ring's queue (and one thread's slots) at once is
        // read inline, with ring 0, by the calling thread.
        let files = set.files.len();
        let at_once = (rings[0].ring.depth() / files).max(1).min(self.pipe.slots(files)?);
        if runs.len() <= self.pipe.inline_limit(at_once) {
            return self
                .pipe
                .run_inline(set, runs, consume, counters, &mut rings[0], uring_thread);
        }
        let states: Vec<&mut ThreadRing> = rings.iter_mut().collect();
        self.pipe.run(set, runs, consume, counters, states, uring_thread)
    }
}

/// Where one slot's reads stand.
#[derive(Clone, Default)]
struct SlotState {
    offset: u64,
    want: usize,
    /// Files not yet complete.
    left: usize,
    failed: bool,
}

fn user_data(slot: usize, f: usize) -> u64 {
    ((slot as u64) << 8) | f as u64
}

/// Measures the time an I/O thread has reads in flight, into [`Counters::busy_nanos`].
#[derive(Default)]
struct BusyClock {
    since: Option<Instant>,
}

impl BusyClock {
    /// Records whether reads are in flight now.
    fn set(&mut self, busy: bool, counters: &Counters) {
        match (busy, self.since) {
            (true, None) => self.since = Some(Instant::now()),
            (false, Some(t)) => {
                counters
                    .busy_nanos
                    .fetch_add(t.elapsed().as_nanos() as u64, Ordering::Relaxed);
                self.since = None;
            }
            _ => {}
        }
    }
}

/// An I/O thread's loop: keeps up to `depth / files` runs in flight, one read per file each,
/// and hands each slot over once all of its reads are in.
fn uring_thread(io: &IoThread<'_>, tr: &mut ThreadRing) -> Result<(), IoError> {
    tr.broken = true;
    let ring = &mut tr.ring;
    let files = io.files;
    let max_jobs = (ring.depth() / files).max(1);
    let mut states = vec![SlotState::default(); io.nslots];
    let mut reads = vec![
        RingRead {
            buf: std::ptr::null_mut(),
            fixed: None,
            offset: 0,
            len: 0,
            want: 0,
            got: 0,
        };
        io.nslots * files
    ];
    let mut runs = io.runs().peekable();
    let (mut in_flight, mut jobs) = (0usize, 0usize);
    let mut busy = BusyClock::default();
    let mut error: Option<IoError> = None;
    let mut cqes: Vec<(u64, i32)> = Vec::with_capacity(ring.cq_entries());
    loop {
        // Fill the queue.
        while error.is_none() && !io.aborted() && jobs < max_jobs && runs.peek().is_some() {
            let slot = if jobs == 0 { io.wait_slot() } else { io.try_slot() };
            let Some(slot) = slot else { break };
            let run = runs.next().expect("peeked");
            let (offset, read_len, want) = io.run_bytes(run);
            states[slot] = SlotState {
                offset,
                want,
                left: files,
                failed: false,
            };
            for (f, file) in io.set.files.iter().enumerate() {
                let read = &mut reads[slot * files + f];
                *read = RingRead {
                    buf: io.buf(slot, f),
                    fixed: ring.fixed_index(io.local_buf(slot, f)),
                    offset,
                    len: read_len,
                    want,
                    got: 0,
                };
                // SAFETY: the buffer belongs to `slot`, which this thread handed to the kernel
                // and takes back only after reaping this read's completion (every round drains
                // its reads before returning), and holds `read_len` bytes (a run never exceeds
                // it); the descriptor stays open for the round, as the set is borrowed.
                unsafe { ring.push(file, read, user_data(slot, f)) };
            }
            in_flight += files;
            jobs += 1;
        }
        busy.set(in_flight > 0, io.counters);
        if in_flight == 0 {
            break;
        }
        if let Err(e) = ring.submit_and_wait() {
            // The kernel's view of the queued reads is unknown: the ring stays broken.
            io.abort();
            return Err(IoError::Config(format!("io_uring_enter failed: {e}")));
        }
        ring.reap(&mut cqes);
        for &(ud, res) in &cqes {
            let (slot, f) = ((ud >> 8) as usize, (ud & 0xff) as usize);
            if res > 0 {
                io.counters.bytes_read.fetch_add(res as u64, Ordering::Relaxed);
            }
            let st = &mut states[slot];
            let resume = !st.failed && error.is_none();
            // SAFETY: the read was queued above under the same guarantees.
            match unsafe { ring.settle(&io.set.files[f], &mut reads[slot * files + f], res, ud, resume) } {
                Settled::Queued => continue,
                Settled::Done => {}
                Settled::Failed(e) => {
                    error.get_or_insert(e);
                    st.failed = true;
                }
            }
            in_flight -= 1;
            st.left -= 1;
            if st.left == 0 {
                jobs -= 1;
                if st.failed || error.is_some() {
                    io.release(slot);
                } else {
                    io.complete(slot, st.offset, st.want);
                }
            }
        }
        busy.set(in_flight > 0, io.counters);
        io.flush();
        if error.is_some() {
            io.abort();
        }
    }
    tr.broken = false;
    match error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}
