//! The io_uring backend: one ring per I/O thread, O_DIRECT descriptors, the thread's pool
//! buffers registered with its ring (fixed-buffer reads) when the kernel allows, and up to
//! `queue_depth` reads in flight per thread. Also [`measure_device`], the raw device rate.

use std::os::fd::AsRawFd;
use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use io_uring::{opcode, types, IoUring, Probe};
use serde::Serialize;

use crate::backend::{eof_error, resume_at, Backend, Consume, Counters, IoThread, Pipeline};
use crate::context::{FileSet, IoError};
use crate::pool::{BufferPool, BUF_ALIGN};
use crate::scheduler::Run;
use crate::BackendKind;

/// A ring and what is registered with it.
pub(crate) struct Ring {
    ring: IoUring,
    /// Reads in flight at most.
    depth: usize,
    /// Buffers per registered `iovec` (fixed-buffer reads), `None` when not registered.
    fixed: Option<usize>,
    /// A round ended without knowing the kernel was done with its buffers: unusable.
    broken: bool,
}

/// Creates a ring with room for `depth` reads and checks it works; returns it with whether
/// `IORING_OP_READ_FIXED` is supported.
pub(crate) fn probe_ring(depth: u32) -> Result<(IoUring, bool), String> {
    if crate::context::simulated("no-uring") {
        return Err(format!("simulated by {}", crate::context::SIMULATE_ENV));
    }
    let entries = depth.clamp(16, 4096).next_power_of_two();
    let mut ring: IoUring = IoUring::builder()
        .setup_clamp()
        .build(entries)
        .map_err(|e| format!("io_uring_setup: {e}"))?;
    let mut probe = Probe::new();
    ring.submitter()
        .register_probe(&mut probe)
        .map_err(|e| format!("IORING_REGISTER_PROBE: {e}"))?;
    if !probe.is_supported(opcode::Read::CODE) {
        return Err("IORING_OP_READ not supported".into());
    }
    // A no-op round trip: a ring that sets up but cannot complete requests (seccomp filters,
    // broken emulation) is no ring.
    let nop = opcode::Nop::new().build().user_data(7);
    // SAFETY: a no-op references no memory.
    unsafe { ring.submission().push(&nop) }.map_err(|_| "submission queue full".to_string())?;
    ring.submit_and_wait(1).map_err(|e| format!("io_uring_enter: {e}"))?;
    match ring.completion().next() {
        Some(c) if c.user_data() == 7 && c.result() >= 0 => {}
        other => return Err(format!("no-op did not complete: {:?}", other.map(|c| c.result()))),
    }
    Ok((ring, probe.is_supported(opcode::ReadFixed::CODE)))
}

/// io_uring + O_DIRECT.
pub(crate) struct UringBackend {
    // Declared before `pipe` so that rings (and their buffer registrations) go first.
    rings: Mutex<Vec<Ring>>,
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
            let (ring, fixed_ok) = probe_ring(depth)?;
            let mut fixed = None;
            let (first, n) = pipe.thread_buffers(t);
            let (iovecs, per) = pipe.pool.iovecs(first, n);
            if !fixed_ok {
                unregistered.get_or_insert_with(|| "IORING_OP_READ_FIXED not supported".to_string());
            } else if iovecs.len() > usize::from(u16::MAX) {
                unregistered.get_or_insert_with(|| format!("{} buffer regions: too many to index", iovecs.len()));
            } else {
                // SAFETY: the iovecs cover buffers of the pool, which outlives the ring (`rings`
                // is dropped before `pipe`).
                match unsafe { ring.submitter().register_buffers(&iovecs) } {
                    Ok(()) => fixed = Some(per),
                    Err(e) => {
                        unregistered.get_or_insert_with(|| format!("IORING_REGISTER_BUFFERS: {e}"));
                    }
                }
            }
            let depth = depth.min(ring.params().sq_entries()) as usize;
            rings.push(Ring {
                ring,
                depth,
                fixed,
                broken: false,
            });
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
        let mut rings = self.rings.lock().unwrap_or_else(PoisonError::into_inner);
        if rings.iter().any(|r| r.broken) {
            return Err(IoError::Config(
                "an io_uring failed in an earlier round; open a new context".into(),
            ));
        }
        if set.files.len() > rings[0].ring.params().sq_entries() as usize {
            return Err(IoError::Config(
                "more files in the set than io_uring submission entries".into(),
            ));
        }
        // A round whose reads all fit in one ring's queue (and one thread's slots) at once is
        // read inline, with ring 0, by the calling thread.
        let files = set.files.len();
        let at_once = (rings[0].depth / files).max(1).min(self.pipe.slots(files)?);
        if runs.len() <= self.pipe.inline_limit(at_once) {
            return self
                .pipe
                .run_inline(set, runs, consume, counters, &mut rings[0], uring_thread);
        }
        let states: Vec<&mut Ring> = rings.iter_mut().collect();
        self.pipe.run(set, runs, consume, counters, states, uring_thread)
    }
}

/// Where one slot's reads stand.
#[derive(Clone, Default)]
struct SlotState {
    offset: u64,
    read_len: usize,
    want: usize,
    /// Files not yet complete.
    left: usize,
    failed: bool,
}

fn user_data(slot: usize, f: usize) -> u64 {
    ((slot as u64) << 8) | f as u64
}

/// Queues the read of file `f` of `slot` from byte `done` of its run on.
fn push_read(ring: &mut Ring, io: &IoThread<'_>, st: &SlotState, slot: usize, f: usize, done: usize) {
    let file = &io.set.files[f];
    let fd = types::Fd(file.file.as_raw_fd());
    // SAFETY: `done < read_len ≤ buffer size`, so the pointer stays inside the slot's buffer.
    let buf = unsafe { io.buf(slot, f).add(done) };
    let len = (st.read_len - done) as u32;
    let offset = st.offset + done as u64;
    let entry = match ring.fixed {
        Some(per) => opcode::ReadFixed::new(fd, buf, len, (io.local_buf(slot, f) / per) as u16)
            .offset(offset)
            .build(),
        None => opcode::Read::new(fd, buf, len).offset(offset).build(),
    };
    // SAFETY: the buffer belongs to `slot`, which this thread handed to the kernel and takes
    // back only after reaping this read's completion (every round drains its reads before
    // returning); the descriptor stays open for the round, as the set is borrowed.
    unsafe { ring.ring.submission().push(&entry.user_data(user_data(slot, f))) }
        .expect("reads in flight never exceed the submission queue");
}

/// Measures the time an I/O thread has reads in flight, into [`Counters::busy_nanos`].
#[derive(Default)]
struct BusyClock {
    since: Option<std::time::Instant>,
}

impl BusyClock {
    /// Records whether reads are in flight now.
    fn set(&mut self, busy: bool, counters: &Counters) {
        match (busy, self.since) {
            (true, None) => self.since = Some(std::time::Instant::now()),
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

fn uring_thread(io: &IoThread<'_>, ring: &mut Ring) -> Result<(), IoError> {
    ring.broken = true;
    let files = io.files;
    let max_jobs = (ring.depth / files).max(1);
    let mut states = vec![SlotState::default(); io.nslots];
    let mut got = vec![0usize; io.nslots * files];
    let mut runs = io.runs().peekable();
    let (mut in_flight, mut jobs) = (0usize, 0usize);
    let mut busy = BusyClock::default();
    let mut error: Option<IoError> = None;
    let mut cqes: Vec<(u64, i32)> = Vec::with_capacity(ring.ring.params().cq_entries() as usize);
    loop {
        // Fill the queue.
        while error.is_none() && !io.aborted() && jobs < max_jobs && runs.peek().is_some() {
            let slot = if jobs == 0 { io.wait_slot() } else { io.try_slot() };
            let Some(slot) = slot else { break };
            let run = runs.next().expect("peeked");
            let (offset, read_len, want) = io.run_bytes(run);
            states[slot] = SlotState {
                offset,
                read_len,
                want,
                left: files,
                failed: false,
            };
            for f in 0..files {
                got[slot * files + f] = 0;
                push_read(ring, io, &states[slot], slot, f, 0);
            }
            in_flight += files;
            jobs += 1;
        }
        busy.set(in_flight > 0, io.counters);
        if in_flight == 0 {
            break;
        }
        match ring.ring.submit_and_wait(1) {
            Ok(_) => {}
            Err(e) if matches!(e.raw_os_error(), Some(libc::EINTR | libc::EAGAIN | libc::EBUSY)) => {}
            Err(e) => {
                // The kernel's view of the queued reads is unknown: the ring stays broken.
                io.abort();
                return Err(IoError::Config(format!("io_uring_enter failed: {e}")));
            }
        }
        cqes.clear();
        cqes.extend(ring.ring.completion().map(|c| (c.user_data(), c.result())));
        for &(ud, res) in &cqes {
            let (slot, f) = ((ud >> 8) as usize, (ud & 0xff) as usize);
            let file = &io.set.files[f];
            let st = &mut states[slot];
            let g = &mut got[slot * files + f];
            let mut finished = true;
            if res == -libc::EINTR || res == -libc::EAGAIN {
                push_read(ring, io, st, slot, f, *g);
                finished = false;
            } else if res < 0 {
                error.get_or_insert_with(|| file.os_error(std::io::Error::from_raw_os_error(-res)));
                st.failed = true;
            } else {
                let n = res as usize;
                io.counters.bytes_read.fetch_add(n as u64, Ordering::Relaxed);
                if *g + n < st.want && !st.failed && error.is_none() {
                    match resume_at(file, *g, *g + n) {
                        Some(next) => {
                            *g = next;
                            push_read(ring, io, st, slot, f, next);
                            finished = false;
                        }
                        None => {
                            error = Some(eof_error(file, st.offset + st.want as u64));
                            st.failed = true;
                        }
                    }
                } else {
                    *g += n;
                }
            }
            if finished {
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
        }
        busy.set(in_flight > 0, io.counters);
        io.flush();
        if error.is_some() {
            io.abort();
        }
    }
    ring.broken = false;
    match error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

// ---------------------------------------------------------------------------------------------
// Device measurement

/// Throughput of a device measured by [`measure_device`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DeviceRate {
    /// Bytes per second.
    pub bytes_per_second: f64,
    /// Completed reads per second.
    pub iops: f64,
    /// Bytes read.
    pub bytes: u64,
    /// Reads completed.
    pub requests: u64,
    /// Wall time in seconds.
    pub seconds: f64,
    /// Request size in bytes.
    pub access: usize,
    /// Reads in flight.
    pub depth: u32,
    /// Random (true) or sequential offsets.
    pub random: bool,
}

/// Reads about `bytes` bytes of the file at `path` with O_DIRECT through io_uring, in requests
/// of `access` bytes (a multiple of 512; 4096 is safe on any device) with `depth` reads in
/// flight, either sequentially from the start of the file (at most the whole file) or at
/// uniformly random `access`-aligned offsets (any amount; offsets may repeat).
///
/// O_DIRECT bypasses this machine's page cache but not a cache below it (a VM's host): use a
/// file larger than that for cold figures. Fails when io_uring or O_DIRECT is unavailable.
pub fn measure_device(path: &Path, bytes: u64, access: usize, depth: u32, random: bool) -> Result<DeviceRate, IoError> {
    use std::os::unix::fs::OpenOptionsExt;
    let os = |source| IoError::Os {
        path: path.to_path_buf(),
        source,
    };
    if access == 0 || !access.is_multiple_of(512) || access > u32::MAX as usize {
        return Err(IoError::Config(format!(
            "access size {access} is not a positive multiple of 512"
        )));
    }
    if depth == 0 {
        return Err(IoError::Config("depth must be at least 1".into()));
    }
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECT)
        .open(path)
        .map_err(os)?;
    let slots = file.metadata().map_err(os)?.len() / access as u64;
    if slots == 0 {
        return Err(IoError::Config(format!(
            "{} is smaller than one access of {access} bytes",
            path.display()
        )));
    }
    let (mut ring, _) = probe_ring(depth).map_err(|e| IoError::Config(format!("io_uring unavailable: {e}")))?;
    let depth = depth.min(ring.params().sq_entries()) as usize;
    let buf_size = access.div_ceil(BUF_ALIGN) * BUF_ALIGN;
    let pool = BufferPool::new(buf_size, depth).map_err(|e| IoError::Config(format!("buffers: {e}")))?;
    let total = if random {
        bytes / access as u64
    } else {
        (bytes / access as u64).min(slots)
    }
    .max(1);
    let mut rng = 0x9E37_79B9_7F4A_7C15u64 ^ ((access as u64) << 20) ^ depth as u64;
    let mut next_offset = |i: u64| -> u64 {
        let slot = if random {
            // xorshift64*
            rng ^= rng >> 12;
            rng ^= rng << 25;
            rng ^= rng >> 27;
            rng.wrapping_mul(0x2545_F491_4F6C_DD1D) % slots
        } else {
            i % slots
        };
        slot * access as u64
    };
    let fd = types::Fd(file.as_raw_fd());
    let (mut issued, mut completed, mut in_flight, mut read) = (0u64, 0u64, 0usize, 0u64);
    let mut free: Vec<usize> = (0..depth).collect();
    let start = Instant::now();
    while completed < total {
        while issued < total && in_flight < depth {
            let b = free.pop().expect("a free buffer per read in flight");
            let entry = opcode::Read::new(fd, pool.ptr(b), access as u32)
                .offset(next_offset(issued))
                .build()
                .user_data(b as u64);
            // SAFETY: buffer `b` is taken off the free list until its completion is reaped below;
            // the pool and the file outlive the loop, which drains every read it queues.
            unsafe { ring.submission().push(&entry) }.expect("depth ≤ submission entries");
            issued += 1;
            in_flight += 1;
        }
        if let Err(e) = ring.submit_and_wait(1) {
            if !matches!(e.raw_os_error(), Some(libc::EINTR | libc::EAGAIN | libc::EBUSY)) {
                // Leak the pool: the kernel may still write into it.
                std::mem::forget(pool);
                return Err(IoError::Config(format!("io_uring_enter: {e}")));
            }
        }
        let mut failure = None;
        for c in ring.completion() {
            in_flight -= 1;
            completed += 1;
            free.push(c.user_data() as usize);
            if c.result() < 0 {
                failure.get_or_insert(c.result());
            } else {
                read += c.result() as u64;
            }
        }
        if let Some(r) = failure {
            while in_flight > 0 {
                if ring.submit_and_wait(in_flight).is_ok() {
                    in_flight -= ring.completion().count();
                }
            }
            return Err(os(std::io::Error::from_raw_os_error(-r)));
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    Ok(DeviceRate {
        bytes_per_second: read as f64 / seconds,
        iops: completed as f64 / seconds,
        bytes: read,
        requests: completed,
        seconds,
        access,
        depth: depth as u32,
        random,
    })
}
