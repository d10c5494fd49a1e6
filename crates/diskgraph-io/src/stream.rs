//! Sequential reads for streaming engines: a loader thread reads a list of requests — each the
//! same kind of byte range of one or more files — strictly in order, with large O_DIRECT reads,
//! into a ring of buffers, and hands each completed request to the caller through a bounded
//! channel, so the caller computes on one request while the next ones load.
//!
//! ```text
//!  requests ─► loader thread ─► ring slot 0 ─┐           ┌─► consume(0, [edges, weights]) ─┐
//!              (io_uring: up to              ├─ channel ─┤                                 │
//!               queue_depth reads            │  (in order)└─► consume(1, …)                │
//!               in flight; else pread)  ...  ┘                                             │
//!                   ▲ free slots ◄──────────────────── a slot returns after consume ◄──────┘
//! ```
//!
//! The ring has `slots` slots; a slot holds one request: one buffer per file, each the file's
//! *capacity* (the largest range the caller will ask of it) plus 4 KiB of alignment slack, cut
//! from one aligned mapping (the I/O layer's buffer pool: hugepages when the system has them).
//! O_DIRECT needs aligned offsets and lengths, so each range is read from its 4096-aligned start
//! to its 4096-aligned end (graph files are padded to 4096) and handed over trimmed to exactly
//! the bytes asked for.
//!
//! Backends, probed once per reader: io_uring (each request's ranges cut into reads of at most
//! `read_bytes`, up to `queue_depth` of them in flight across the requests being loaded), else
//! `pread` (one read per range: the kernel splits a large O_DIRECT read into device requests
//! itself). A file whose file system refuses O_DIRECT is read buffered. Each fallback is logged
//! to stderr once per process and kept in [`SequentialReader::fallback_reason`]; the simulation
//! hook [`SIMULATE_ENV`](crate::SIMULATE_ENV) (`no-uring`, `no-direct`) forces them. The reads
//! themselves are the context's backends' reads: files are opened and read with `pread` through
//! `file.rs` ([`OpenFile::read_full`]), and each io_uring read is queued and settled (EINTR,
//! short reads, errors) by `ring.rs` ([`Ring`]); this module keeps the order of requests and the
//! slots.
//!
//! Every [`SequentialReader::read`] returns what it did ([`SequentialStats`]): bytes read, read
//! requests, the loader's time in I/O (so a pass's rate can be set against the device's own
//! sequential rate, [`measure_device`](crate::measure_device)), and the caller's time waiting.

use std::collections::VecDeque;
use std::ops::Range;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender};

use crate::config::BackendKind;
use crate::error::IoError;
use crate::fallback::log_once;
use crate::file::OpenFile;
use crate::pool::{BufferPool, BUF_ALIGN};
use crate::ring::{Ring, RingRead, Settled};

/// Default largest single read of the io_uring loader: 1 MiB, the access size of the device's
/// sequential rate measurement.
pub const STREAM_READ_BYTES: usize = 1 << 20;

/// Alignment of O_DIRECT offsets and lengths used by the loader (safe on any device).
const ALIGN: u64 = BUF_ALIGN as u64;

/// Settings of a [`SequentialReader`].
#[derive(Clone, Debug)]
pub struct SequentialConfig {
    /// `None` or `Uring`: io_uring when the kernel allows it, else pread (logged); `Pread`:
    /// pread. `Mmap` is refused: a sequential reader reads into its own buffers.
    pub backend: Option<BackendKind>,
    /// Requests held at once (being read or consumed); at least 2, so loading overlaps compute.
    pub slots: usize,
    /// Reads in flight at most (io_uring).
    pub queue_depth: u32,
    /// Largest single read in bytes (io_uring), a positive multiple of 4096.
    pub read_bytes: usize,
}

impl Default for SequentialConfig {
    fn default() -> Self {
        SequentialConfig {
            backend: None,
            slots: 4,
            queue_depth: 32,
            read_bytes: STREAM_READ_BYTES,
        }
    }
}

/// One request: a byte range of each file of the reader, in the order the files were opened
/// (an empty range reads nothing and is delivered as an empty slice).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReadRequest {
    /// One range per file.
    pub ranges: Vec<Range<u64>>,
}

impl From<Range<u64>> for ReadRequest {
    /// A request of one range, for a reader of one file.
    fn from(r: Range<u64>) -> Self {
        ReadRequest {
            ranges: std::iter::once(r).collect(),
        }
    }
}

/// What a [`SequentialReader::read`] did (or, from [`SequentialReader::totals`], all of them).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SequentialStats {
    /// Bytes the kernel returned (aligned reads: a little more than asked).
    pub bytes_read: u64,
    /// Bytes asked for (the sum of the requests' range lengths).
    pub useful_bytes: u64,
    /// Read system calls (pread) or submissions (io_uring).
    pub requests: u64,
    /// Requests delivered.
    pub delivered: u64,
    /// Seconds the loader spent in I/O: inside `pread`, or waiting for io_uring completions
    /// (not waiting for a free slot while the caller computes).
    pub io_seconds: f64,
    /// Seconds the caller waited for the next request to arrive.
    pub wait_seconds: f64,
    /// Wall seconds of the read calls.
    pub wall_seconds: f64,
}

impl SequentialStats {
    fn add(&mut self, o: &SequentialStats) {
        self.bytes_read += o.bytes_read;
        self.useful_bytes += o.useful_bytes;
        self.requests += o.requests;
        self.delivered += o.delivered;
        self.io_seconds += o.io_seconds;
        self.wait_seconds += o.wait_seconds;
        self.wall_seconds += o.wall_seconds;
    }

    /// Bytes read per second of loader I/O time (0 when nothing was read).
    pub fn io_rate(&self) -> f64 {
        if self.io_seconds > 0.0 {
            self.bytes_read as f64 / self.io_seconds
        } else {
            0.0
        }
    }
}

/// One file of the reader.
struct SeqFile {
    file: OpenFile,
    /// Physical size at open.
    size: u64,
    /// Largest range the caller may ask of this file.
    capacity: u64,
    /// Offset of this file's buffer inside a slot, and the buffer's length.
    part: (usize, usize),
}

/// Reads requests of byte ranges in order through a ring of buffers on a loader thread.
///
/// The ring has `slots` slots, each one buffer per file (the file's capacity, rounded up to 4096,
/// plus 4096 of alignment slack) cut from one aligned mapping. Ranges are read from their
/// 4096-aligned start to their 4096-aligned end with O_DIRECT (graph files are padded) and handed
/// over trimmed. io_uring (reads of at most `read_bytes`, `queue_depth` in flight) when the kernel
/// allows it, else pread; a file system without O_DIRECT is read buffered; each fallback is logged
/// once per process and kept in [`fallback_reason`](Self::fallback_reason).
pub struct SequentialReader {
    files: Vec<SeqFile>,
    pool: BufferPool,
    slots: usize,
    slot_bytes: usize,
    ring: Option<Mutex<Ring>>,
    read_bytes: usize,
    fallback: Option<String>,
    totals: Mutex<SequentialStats>,
    /// One read at a time (the slots are shared).
    busy: Mutex<()>,
}

static LOGGED_URING: AtomicBool = AtomicBool::new(false);
static LOGGED_DIRECT: AtomicBool = AtomicBool::new(false);

fn round_up(x: u64) -> u64 {
    x.div_ceil(ALIGN) * ALIGN
}

fn round_down(x: u64) -> u64 {
    x / ALIGN * ALIGN
}

impl SequentialReader {
    /// Opens `files`, each `(path, capacity)`: the largest range a request will ask of it, in
    /// bytes. Allocates `slots` slots of one buffer per file (capacity rounded up to 4096, plus
    /// 4096 of alignment slack) and sets up io_uring unless told otherwise.
    pub fn open(files: &[(&Path, u64)], config: &SequentialConfig) -> Result<SequentialReader, IoError> {
        if config.backend == Some(BackendKind::Mmap) {
            return Err(IoError::Config("sequential reads use uring or pread, not mmap".into()));
        }
        if config.slots < 2 || config.queue_depth == 0 {
            return Err(IoError::Config(
                "a sequential reader needs at least 2 slots and a queue depth of at least 1".into(),
            ));
        }
        if config.read_bytes == 0 || !config.read_bytes.is_multiple_of(BUF_ALIGN) || config.read_bytes > 1 << 30 {
            return Err(IoError::Config(format!(
                "read size {} is not a positive multiple of 4096 up to 1 GiB",
                config.read_bytes
            )));
        }
        if files.is_empty() || files.len() > 255 {
            return Err(IoError::Config("a sequential reader reads 1 to 255 files".into()));
        }
        let mut fallback = None;
        let mut opened = Vec::with_capacity(files.len());
        let mut slot_bytes = 0usize;
        for &(path, capacity) in files {
            // 4096-byte blocks: the reader's reads start and end on 4096-byte boundaries.
            let (file, buffered) = OpenFile::open(path, BUF_ALIGN as u32)?;
            if let Some(why) = buffered {
                log_once(&LOGGED_DIRECT, &format!("{why}; reading it buffered"));
                fallback.get_or_insert(why);
            }
            let size = file.size()?;
            let len = usize::try_from(round_up(capacity) + ALIGN)
                .map_err(|_| IoError::Config(format!("capacity {capacity} is too large")))?;
            opened.push(SeqFile {
                file,
                size,
                capacity,
                part: (slot_bytes, len),
            });
            slot_bytes = slot_bytes
                .checked_add(len)
                .ok_or_else(|| IoError::Config("slot size overflows".into()))?;
        }
        let pool = BufferPool::new(slot_bytes, config.slots).map_err(|e| {
            IoError::Config(format!(
                "cannot allocate {} × {slot_bytes} bytes of read buffers: {e}",
                config.slots
            ))
        })?;
        let ring = match config.backend {
            Some(BackendKind::Pread) => None,
            _ => match Ring::new(config.queue_depth) {
                Ok((r, _)) => Some(Mutex::new(r)),
                Err(why) => {
                    let msg = format!("io_uring unavailable ({why}); sequential reads use pread");
                    log_once(&LOGGED_URING, &msg);
                    fallback = Some(msg);
                    None
                }
            },
        };
        Ok(SequentialReader {
            files: opened,
            pool,
            slots: config.slots,
            slot_bytes,
            ring,
            read_bytes: config.read_bytes,
            fallback,
            totals: Mutex::new(SequentialStats::default()),
            busy: Mutex::new(()),
        })
    }

    /// The backend in use: `Uring` or `Pread`.
    pub fn backend(&self) -> BackendKind {
        match self.ring {
            Some(_) => BackendKind::Uring,
            None => BackendKind::Pread,
        }
    }

    /// Why the reader does not use io_uring and O_DIRECT, if it does not.
    pub fn fallback_reason(&self) -> Option<&str> {
        self.fallback.as_deref()
    }

    /// Whether every file was opened with O_DIRECT.
    pub fn direct(&self) -> bool {
        self.files.iter().all(|f| f.file.direct)
    }

    /// Bytes of buffers held (slots × slot size).
    pub fn buffer_bytes(&self) -> u64 {
        (self.slots * self.slot_bytes) as u64
    }

    /// The largest range a request may ask of file `f`.
    ///
    /// # Panics
    /// If `f` is not a file of the reader.
    pub fn capacity(&self, f: usize) -> u64 {
        self.files[f].capacity
    }

    /// Counters summed over every [`read`](Self::read) so far.
    pub fn totals(&self) -> SequentialStats {
        self.totals.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// Reads `requests` in order on a loader thread and calls `consume(i, data)` for each on the
    /// calling thread, in order, where `data[f]` holds exactly the bytes of range `f` of request
    /// `i`. Up to `slots - 1` requests are read ahead while `consume` runs. A single request is
    /// read on the calling thread (nothing to overlap). Reads of one reader run one at a time
    /// (they share the slots): `consume` must not call `read` on the same reader.
    ///
    /// Errors: a range longer than its file's capacity or past the end of the file
    /// ([`IoError::Config`], [`IoError::OutOfRange`], before anything is read), an I/O error (the
    /// reads stop), or the first error `consume` returns (the reads stop; reads in flight are
    /// completed first). A panic in `consume` stops the loader and is resumed.
    pub fn read<E, F>(&self, requests: &[ReadRequest], mut consume: F) -> Result<SequentialStats, E>
    where
        E: From<IoError>,
        F: FnMut(usize, &[&[u8]]) -> Result<(), E>,
    {
        self.check(requests)?;
        let _one_at_a_time = self.busy.lock().unwrap_or_else(PoisonError::into_inner);
        let started = Instant::now();
        let mut stats = SequentialStats {
            useful_bytes: requests
                .iter()
                .flat_map(|r| r.ranges.iter())
                .map(|r| r.end - r.start)
                .sum(),
            ..SequentialStats::default()
        };
        let result = if requests.len() <= 1 {
            self.read_inline(requests, &mut consume, &mut stats)
        } else {
            self.read_pipelined(requests, &mut consume, &mut stats)
        };
        stats.wall_seconds = started.elapsed().as_secs_f64();
        self.totals.lock().unwrap_or_else(PoisonError::into_inner).add(&stats);
        result.map(|()| stats)
    }

    fn check(&self, requests: &[ReadRequest]) -> Result<(), IoError> {
        for r in requests {
            if r.ranges.len() != self.files.len() {
                return Err(IoError::Config(format!(
                    "a request has {} ranges for {} files",
                    r.ranges.len(),
                    self.files.len()
                )));
            }
            for (f, range) in self.files.iter().zip(&r.ranges) {
                if range.end < range.start || range.end - range.start > f.capacity {
                    return Err(IoError::Config(format!(
                        "range {range:?} of {} is longer than the reader's capacity of {} bytes",
                        f.file.path.display(),
                        f.capacity
                    )));
                }
                if range.end > f.size {
                    return Err(IoError::OutOfRange {
                        start: range.start,
                        end: range.end,
                        len: f.size,
                    });
                }
            }
        }
        Ok(())
    }

    /// Address of file `f`'s buffer in `slot`.
    fn buf(&self, slot: usize, f: usize) -> *mut u8 {
        // SAFETY: part offsets lie inside the slot (their sum is the slot size).
        unsafe { self.pool.ptr(slot).add(self.files[f].part.0) }
    }

    /// The delivered slices of `req` in `slot`.
    fn slices(&self, slot: usize, req: &ReadRequest) -> Vec<&[u8]> {
        self.files
            .iter()
            .zip(&req.ranges)
            .enumerate()
            .map(|(f, (_, r))| {
                let skip = (r.start - round_down(r.start)) as usize;
                let len = (r.end - r.start) as usize;
                // SAFETY: the loader filled the slot's buffer from the aligned start past
                // `skip + len` bytes (≤ the part's length) before handing the slot over, and the
                // slot is not reused until the caller gives it back after `consume`.
                unsafe { std::slice::from_raw_parts(self.buf(slot, f).add(skip), len) }
            })
            .collect()
    }

    /// Reads request `req` into `slot` with pread.
    fn pread_request(&self, slot: usize, req: &ReadRequest, stats: &mut SequentialStats) -> Result<(), IoError> {
        for (f, (file, r)) in self.files.iter().zip(&req.ranges).enumerate() {
            if r.start == r.end {
                continue;
            }
            let start = round_down(r.start);
            let want = (r.end - start) as usize;
            let read_len = round_up(r.end - start) as usize;
            // SAFETY: the caller owns `slot`; the part holds `read_len` bytes (capacity + slack).
            let buf = unsafe { std::slice::from_raw_parts_mut(self.buf(slot, f), read_len) };
            let t0 = Instant::now();
            let result = file.file.read_full(buf, start, want, |n| {
                stats.requests += 1;
                stats.bytes_read += n as u64;
            });
            stats.io_seconds += t0.elapsed().as_secs_f64();
            result?;
        }
        Ok(())
    }

    fn read_inline<E, F>(&self, requests: &[ReadRequest], consume: &mut F, stats: &mut SequentialStats) -> Result<(), E>
    where
        E: From<IoError>,
        F: FnMut(usize, &[&[u8]]) -> Result<(), E>,
    {
        for (i, req) in requests.iter().enumerate() {
            self.pread_request(0, req, stats)?;
            stats.delivered += 1;
            consume(i, &self.slices(0, req))?;
        }
        Ok(())
    }

    fn read_pipelined<E, F>(
        &self,
        requests: &[ReadRequest],
        consume: &mut F,
        stats: &mut SequentialStats,
    ) -> Result<(), E>
    where
        E: From<IoError>,
        F: FnMut(usize, &[&[u8]]) -> Result<(), E>,
    {
        let (full_tx, full_rx) = crossbeam_channel::bounded::<Result<(usize, usize), IoError>>(self.slots);
        let (free_tx, free_rx) = crossbeam_channel::bounded::<usize>(self.slots);
        for slot in 0..self.slots {
            free_tx.send(slot).expect("the receiver is alive");
        }
        let mut loader_stats = SequentialStats::default();
        let result = std::thread::scope(|s| {
            let loader = s.spawn(|| {
                let mut ls = SequentialStats::default();
                let r = match &self.ring {
                    Some(ring) => {
                        let mut ring = ring.lock().unwrap_or_else(PoisonError::into_inner);
                        self.uring_loader(&mut ring, requests, &free_rx, &full_tx, &mut ls)
                    }
                    None => self.pread_loader(requests, &free_rx, &full_tx, &mut ls),
                };
                if let Err(e) = r {
                    // The caller may have gone (it stopped first): nothing to tell then.
                    let _ = full_tx.send(Err(e));
                }
                ls
            });
            let consumed = self.consume_in_order(requests, &full_rx, free_tx, consume, stats);
            drop(full_rx);
            loader_stats = loader.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
            consumed
        });
        stats.bytes_read += loader_stats.bytes_read;
        stats.requests += loader_stats.requests;
        stats.io_seconds += loader_stats.io_seconds;
        result
    }

    /// The caller's side of the pipeline: takes requests off the channel in order, consumes
    /// them and gives their slots back. Dropping `free_tx` on return stops the loader.
    fn consume_in_order<E, F>(
        &self,
        requests: &[ReadRequest],
        full_rx: &Receiver<Result<(usize, usize), IoError>>,
        free_tx: Sender<usize>,
        consume: &mut F,
        stats: &mut SequentialStats,
    ) -> Result<(), E>
    where
        E: From<IoError>,
        F: FnMut(usize, &[&[u8]]) -> Result<(), E>,
    {
        let mut wait = Duration::ZERO;
        let mut result = Ok(());
        for expected in 0..requests.len() {
            let t0 = Instant::now();
            let msg = full_rx.recv();
            wait += t0.elapsed();
            let (i, slot) = match msg {
                Ok(Ok(m)) => m,
                Ok(Err(e)) => {
                    result = Err(e.into());
                    break;
                }
                Err(_) => {
                    result = Err(IoError::Config("the loader thread stopped early".into()).into());
                    break;
                }
            };
            debug_assert_eq!(i, expected, "requests arrive in order");
            stats.delivered += 1;
            let r = consume(i, &self.slices(slot, &requests[i]));
            // The loader may have stopped on an error already queued; that error wins below.
            let _ = free_tx.send(slot);
            if let Err(e) = r {
                result = Err(e);
                break;
            }
        }
        stats.wait_seconds += wait.as_secs_f64();
        result
    }

    fn pread_loader(
        &self,
        requests: &[ReadRequest],
        free_rx: &Receiver<usize>,
        full_tx: &Sender<Result<(usize, usize), IoError>>,
        stats: &mut SequentialStats,
    ) -> Result<(), IoError> {
        for (i, req) in requests.iter().enumerate() {
            let Ok(slot) = free_rx.recv() else { return Ok(()) };
            self.pread_request(slot, req, stats)?;
            if full_tx.send(Ok((i, slot))).is_err() {
                return Ok(());
            }
        }
        Ok(())
    }

    fn uring_loader(
        &self,
        ring: &mut Ring,
        requests: &[ReadRequest],
        free_rx: &Receiver<usize>,
        full_tx: &Sender<Result<(usize, usize), IoError>>,
        stats: &mut SequentialStats,
    ) -> Result<(), IoError> {
        let mut state = UringState {
            loading: VecDeque::new(),
            reads: Vec::new(),
            free_reads: Vec::new(),
            in_flight: 0,
            next: 0,
            error: None,
            stopped: false,
        };
        let mut cqes: Vec<(u64, i32)> = Vec::with_capacity(ring.cq_entries());
        loop {
            if !state.stopped && state.error.is_none() {
                self.start_requests(&mut state, requests, free_rx);
                self.submit_reads(ring, &mut state);
                // Hand over every finished request at the head, in order.
                while state.loading.front().is_some_and(|l| l.done()) {
                    let l = state.loading.pop_front().expect("front exists");
                    if full_tx.send(Ok((l.index, l.slot))).is_err() {
                        state.stopped = true;
                        break;
                    }
                }
            }
            let finished = state.next == requests.len() && state.loading.is_empty();
            if state.in_flight == 0 && (finished || state.stopped || state.error.is_some()) {
                break;
            }
            if state.in_flight == 0 {
                continue;
            }
            let t0 = Instant::now();
            let waited = ring.submit_and_wait();
            stats.io_seconds += t0.elapsed().as_secs_f64();
            if let Err(e) = waited {
                // The kernel's view of the reads in flight is unknown: the buffers cannot be
                // reused safely, so this process must not continue using them.
                panic!("io_uring_enter failed with reads in flight: {e}");
            }
            ring.reap(&mut cqes);
            for &(ud, res) in &cqes {
                self.complete_read(ring, &mut state, ud as usize, res, stats);
            }
        }
        match state.error {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Takes free slots for the next requests and queues their reads (not yet submitted).
    fn start_requests(&self, state: &mut UringState, requests: &[ReadRequest], free_rx: &Receiver<usize>) {
        while state.next < requests.len() {
            // Block for a slot only when nothing else can make progress.
            let slot = if state.loading.is_empty() && state.in_flight == 0 {
                match free_rx.recv() {
                    Ok(s) => s,
                    Err(_) => {
                        state.stopped = true;
                        return;
                    }
                }
            } else {
                match free_rx.try_recv() {
                    Ok(s) => s,
                    Err(crossbeam_channel::TryRecvError::Empty) => return,
                    Err(crossbeam_channel::TryRecvError::Disconnected) => {
                        state.stopped = true;
                        return;
                    }
                }
            };
            let req = &requests[state.next];
            let mut pending = VecDeque::new();
            for (f, r) in req.ranges.iter().enumerate() {
                if r.start == r.end {
                    continue;
                }
                let start = round_down(r.start);
                let end = round_up(r.end);
                let mut at = start;
                while at < end {
                    let len = (end - at).min(self.read_bytes as u64);
                    pending.push_back(PieceRead {
                        file: f,
                        read: RingRead {
                            // SAFETY: `at - start < end - start ≤` the part's length.
                            buf: unsafe { self.buf(slot, f).add((at - start) as usize) },
                            fixed: None,
                            offset: at,
                            len: len as usize,
                            want: (r.end.min(at + len) - at) as usize,
                            got: 0,
                        },
                    });
                    at += len;
                }
            }
            state.loading.push_back(Loading {
                index: state.next,
                slot,
                unsubmitted: pending,
                outstanding: 0,
            });
            state.next += 1;
        }
    }

    /// Queues reads in request order while fewer than the ring's depth are in flight.
    fn submit_reads(&self, ring: &mut Ring, state: &mut UringState) {
        for li in 0..state.loading.len() {
            let request = state.loading[li].index;
            while state.in_flight < ring.depth() {
                let Some(piece) = state.loading[li].unsubmitted.pop_front() else {
                    break;
                };
                let id = match state.free_reads.pop() {
                    Some(id) => {
                        state.reads[id] = (request, piece);
                        id
                    }
                    None => {
                        state.reads.push((request, piece));
                        state.reads.len() - 1
                    }
                };
                state.loading[li].outstanding += 1;
                state.in_flight += 1;
                let piece = &state.reads[id].1;
                // SAFETY: the buffer lies in a slot this loader holds until the read's completion
                // is reaped (the loader drains every read before returning); the file outlives
                // the read.
                unsafe { ring.push(&self.files[piece.file].file, &piece.read, id as u64) };
            }
        }
    }

    fn complete_read(&self, ring: &mut Ring, state: &mut UringState, id: usize, res: i32, stats: &mut SequentialStats) {
        stats.requests += 1;
        if res > 0 {
            stats.bytes_read += res as u64;
        }
        let (request, piece) = &mut state.reads[id];
        let file = &self.files[piece.file].file;
        // SAFETY: queued by `submit_reads` under the same guarantees.
        match unsafe { ring.settle(file, &mut piece.read, res, id as u64, state.error.is_none()) } {
            Settled::Queued => return,
            Settled::Done => {}
            Settled::Failed(e) => {
                state.error.get_or_insert(e);
            }
        }
        let li = state
            .loading
            .iter()
            .position(|l| l.index == *request)
            .expect("a read belongs to a request being loaded");
        state.in_flight -= 1;
        state.loading[li].outstanding -= 1;
        state.free_reads.push(id);
    }
}

/// A request being loaded by the io_uring loader.
struct Loading {
    index: usize,
    slot: usize,
    unsubmitted: VecDeque<PieceRead>,
    outstanding: usize,
}

impl Loading {
    fn done(&self) -> bool {
        self.unsubmitted.is_empty() && self.outstanding == 0
    }
}

/// One read of at most `read_bytes` of a request's range of file `file`.
struct PieceRead {
    file: usize,
    read: RingRead,
}

/// The io_uring loader's bookkeeping.
struct UringState {
    loading: VecDeque<Loading>,
    /// Reads by id (`user_data`): the request they belong to and the read.
    reads: Vec<(usize, PieceRead)>,
    free_reads: Vec<usize>,
    in_flight: usize,
    next: usize,
    error: Option<IoError>,
    /// The caller went away.
    stopped: bool,
}
