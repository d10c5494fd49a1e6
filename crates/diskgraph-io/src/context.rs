//! The context: the public face of round reads. [`IoContext`] checks the settings, probes the
//! kernel and picks a backend (falling back when it must), allocates the buffer pool and the
//! pipeline, opens file sets, schedules each round's ranges into runs, hands them to the backend,
//! and keeps the statistics.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError, RwLock};
use std::time::Instant;

use crate::backend::{Backend, Chunk, Counters};
use crate::config::{BackendKind, IoConfig, MmapAdvice, SchedulerKind};
use crate::error::IoError;
use crate::fallback::log_once;
use crate::file::{FileSet, OpenFile};
use crate::mapped::GuardedMmap;
use crate::mmap::MmapBackend;
use crate::pipeline::Pipeline;
use crate::pool::{BufferKind, BufferPool};
use crate::pread::PreadBackend;
use crate::scheduler::{BitmapScheduler, PluglistScheduler, Schedule};
use crate::stats::{IoStats, RoundRecord};
use crate::uring::UringBackend;

/// Reads rounds of byte ranges through the scheduler and a backend.
///
/// The backend is chosen once, in [`new`](Self::new): `uring` if requested or by default when
/// the kernel passes the probe (ring set-up, `IORING_OP_READ` supported, a no-op round trip),
/// else `pread`; `mmap` only when asked for. The file system is probed at [`open`](Self::open):
/// a file that cannot be read with O_DIRECT (EINVAL at open or on a probe read, or a block size
/// below its direct-I/O alignment) is read buffered, and a `uring` context then falls back to
/// `pread` for good. Every fallback is logged to stderr once per process and kept in
/// [`fallback_reason`](Self::fallback_reason).
///
/// The context owns its threads (I/O threads and compute workers, spawned on first use); dropping
/// it joins them.
pub struct IoContext {
    config: IoConfig,
    stats: Mutex<IoStats>,
    backend: RwLock<Arc<dyn Backend>>,
    /// The buffers and threads of the uring and pread backends (`None` for mmap).
    pipe: Option<Arc<Pipeline>>,
    buffer_kind: BufferKind,
    registered: AtomicBool,
    backend_fallback: OnceLock<String>,
    direct_fallback: OnceLock<String>,
    /// The stop request rounds poll ([`stop_when`](Self::stop_when)).
    stop: OnceLock<Arc<AtomicBool>>,
}

static LOGGED_BACKEND: AtomicBool = AtomicBool::new(false);
static LOGGED_DIRECT: AtomicBool = AtomicBool::new(false);
static LOGGED_UNREGISTERED: AtomicBool = AtomicBool::new(false);

impl IoContext {
    /// Opens a context with `config`: checks the settings, probes the kernel, allocates the
    /// buffer pool (not for mmap) and sets up one io_uring per I/O thread (uring).
    pub fn new(config: IoConfig) -> Result<Self, IoError> {
        let c = &config;
        c.validate()?;
        let mut ctx = IoContext {
            config: config.clone(),
            stats: Mutex::new(IoStats::default()),
            backend: RwLock::new(Arc::new(MmapBackend::new(config.compute_threads, config.block_size))),
            pipe: None,
            buffer_kind: BufferKind::Unallocated,
            registered: AtomicBool::new(false),
            backend_fallback: OnceLock::new(),
            direct_fallback: OnceLock::new(),
            stop: OnceLock::new(),
        };
        if c.backend == Some(BackendKind::Mmap) {
            return Ok(ctx);
        }
        // One buffer holds the longest run.
        let buf_size = c.buffer_size() as usize;
        let count = usize::try_from(c.buffer_bytes).unwrap_or(usize::MAX) / buf_size;
        if count < c.io_threads {
            return Err(IoError::Config(format!(
                "buffer pool of {} bytes holds {count} buffers of {buf_size} bytes: fewer than the {} I/O threads",
                c.buffer_bytes, c.io_threads
            )));
        }
        let pool = BufferPool::new(buf_size, count)
            .map_err(|e| IoError::Config(format!("cannot allocate {} bytes of I/O buffers: {e}", c.buffer_bytes)))?;
        ctx.buffer_kind = pool.kind();
        let pipe = Arc::new(Pipeline::new(pool, c));
        let b: Arc<dyn Backend> = match c.backend {
            Some(BackendKind::Pread) => Arc::new(PreadBackend::new(pipe.clone())),
            _ => match UringBackend::new(pipe.clone(), c.queue_depth) {
                Ok(u) => {
                    match u.unregistered() {
                        None => ctx.registered.store(true, Ordering::Relaxed),
                        Some(why) => log_once(
                            &LOGGED_UNREGISTERED,
                            &format!("io_uring buffers not registered ({why}); using unregistered reads"),
                        ),
                    }
                    Arc::new(u)
                }
                Err(why) => {
                    ctx.record_backend_fallback(format!("io_uring unavailable ({why}); using pread"));
                    Arc::new(PreadBackend::new(pipe.clone()))
                }
            },
        };
        ctx.backend = RwLock::new(b);
        ctx.pipe = Some(pipe);
        Ok(ctx)
    }

    fn record_backend_fallback(&self, msg: String) {
        log_once(&LOGGED_BACKEND, &msg);
        let _ = self.backend_fallback.set(msg);
    }

    fn current(&self) -> Arc<dyn Backend> {
        self.backend.read().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// The backend in use.
    pub fn backend(&self) -> BackendKind {
        self.current().kind()
    }

    /// Why the context does not use what was asked for (or the best backend): io_uring
    /// unavailable, or a file system without O_DIRECT. `None` when nothing fell back.
    pub fn fallback_reason(&self) -> Option<&str> {
        self.backend_fallback
            .get()
            .or(self.direct_fallback.get())
            .map(String::as_str)
    }

    /// What memory backs the I/O buffers.
    pub fn buffer_kind(&self) -> BufferKind {
        self.buffer_kind
    }

    /// Whether the buffers are registered with the io_uring instances (fixed-buffer reads).
    pub fn registered_buffers(&self) -> bool {
        self.registered.load(Ordering::Relaxed) && self.backend() == BackendKind::Uring
    }

    /// The settings.
    pub fn config(&self) -> &IoConfig {
        &self.config
    }

    /// Opens files to be read together; the logical length is the first file's size.
    pub fn open(&self, paths: &[&Path]) -> Result<FileSet, IoError> {
        self.open_inner(paths, None)
    }

    /// Opens files to be read together with logical length `len` (e.g. the manifest's length
    /// of files padded to 4096 bytes): ranges must end at or below `len` and chunks are clamped
    /// to it. Every file must be at least `len` bytes long.
    pub fn open_with_len(&self, paths: &[&Path], len: u64) -> Result<FileSet, IoError> {
        self.open_inner(paths, Some(len))
    }

    fn open_inner(&self, paths: &[&Path], logical: Option<u64>) -> Result<FileSet, IoError> {
        if paths.len() > 255 {
            return Err(IoError::Config("at most 255 files per set".into()));
        }
        let kind = self.backend();
        let mut files = Vec::with_capacity(paths.len());
        let mut sizes = Vec::with_capacity(paths.len());
        for p in paths {
            let file = if kind == BackendKind::Mmap {
                OpenFile::buffered(p)?
            } else {
                let (file, buffered) = OpenFile::open(p, self.config.block_size)?;
                if let Some(why) = buffered {
                    let msg = match kind {
                        BackendKind::Uring => format!("{why}; using buffered pread instead of io_uring"),
                        _ => format!("{why}; using buffered pread"),
                    };
                    if kind == BackendKind::Uring {
                        let pipe = self.pipe.clone().expect("uring has a pipeline");
                        *self.backend.write().unwrap_or_else(PoisonError::into_inner) =
                            Arc::new(PreadBackend::new(pipe));
                        self.record_backend_fallback(msg.clone());
                    }
                    log_once(&LOGGED_DIRECT, &msg);
                    let _ = self.direct_fallback.set(msg);
                }
                file
            };
            sizes.push(file.size()?);
            files.push(file);
        }
        let len = logical.unwrap_or(sizes.first().copied().unwrap_or(0));
        for (f, &size) in files.iter().zip(&sizes) {
            if size < len {
                return Err(IoError::Config(format!(
                    "{} has {size} bytes, fewer than the set's length {len}",
                    f.path.display()
                )));
            }
        }
        let mut maps = Vec::new();
        if kind == BackendKind::Mmap {
            for (f, &size) in files.iter().zip(&sizes) {
                if size == 0 {
                    maps.push(None);
                    continue;
                }
                // A file truncated behind our back is detected before each round (`MmapBackend`);
                // one truncated during a round, or a page the device cannot read, faults, and
                // the guard turns the fault into the round's error.
                let map = GuardedMmap::map(&f.file, &f.path)?;
                let advice = match self.config.mmap_advice {
                    MmapAdvice::Normal => memmap2::Advice::Normal,
                    MmapAdvice::Random => memmap2::Advice::Random,
                    MmapAdvice::Sequential => memmap2::Advice::Sequential,
                    MmapAdvice::WillNeed => memmap2::Advice::WillNeed,
                };
                map.advise(advice).map_err(|e| f.os_error(e))?;
                maps.push(Some(map));
            }
        }
        Ok(FileSet {
            files,
            maps,
            len,
            mapped: kind == BackendKind::Mmap,
            bitmap: Mutex::new(None),
        })
    }

    /// Turns the ranges into runs with the configured scheduler.
    fn schedule(
        &self,
        set: &FileSet,
        ranges: &mut dyn Iterator<Item = (u64, u64)>,
    ) -> Result<(Schedule, u64), IoError> {
        let c = &self.config;
        let mut useful = 0;
        match c.scheduler {
            SchedulerKind::Bitmap => {
                let mut guard = set.bitmap.lock().unwrap_or_else(PoisonError::into_inner);
                let reuse = guard
                    .as_ref()
                    .is_some_and(|b| b.matches(set.len, c.block_size, c.max_gap_blocks, c.max_request_bytes));
                if !reuse {
                    *guard = Some(BitmapScheduler::new(
                        set.len,
                        c.block_size,
                        c.max_gap_blocks,
                        c.max_request_bytes,
                    ));
                }
                let sched = guard.as_mut().expect("just set");
                for (a, b) in ranges {
                    if b <= a {
                        continue;
                    }
                    if b > set.len {
                        sched.clear();
                        return Err(IoError::OutOfRange {
                            start: a,
                            end: b,
                            len: set.len,
                        });
                    }
                    useful += b - a;
                    sched.add(a, b);
                }
                Ok((sched.finish(), useful))
            }
            SchedulerKind::Pluglist => {
                let mut sched = PluglistScheduler::new(set.len, c.block_size, c.max_gap_blocks, c.max_request_bytes);
                for (a, b) in ranges {
                    if b <= a {
                        continue;
                    }
                    if b > set.len {
                        return Err(IoError::OutOfRange {
                            start: a,
                            end: b,
                            len: set.len,
                        });
                    }
                    useful += b - a;
                    sched.add(a, b);
                }
                Ok((sched.finish(), useful))
            }
        }
    }

    /// Reads every byte range of one round and calls `consume` with each completed chunk.
    ///
    /// All ranges are scheduled first (the scheduler needs the whole round), then the runs are
    /// dealt out to the I/O threads, which read them into pool buffers and queue each completed
    /// buffer; `compute_threads` workers (the calling thread among them) take chunks from that
    /// one shared queue as soon as they complete and call `consume`. A buffer returns to the pool
    /// when `consume` returns, so the data in flight never exceeds the pool. The I/O threads and
    /// the other workers belong to the context: spawned by the first round that needs them,
    /// reused by every later one, joined when the context is dropped. A round of few runs (at
    /// most what one ring keeps in flight; see [`INLINE_ENV`](crate::INLINE_ENV)) is read by
    /// the calling thread alone, which also calls `consume`.
    ///
    /// Chunks cover the ranges, plus gap bytes merged between them, never past the set's logical
    /// length; a range may be split across several chunks, and chunks arrive in completion
    /// order. With the bitmap scheduler every byte is delivered at most once per round; with the
    /// plug list a byte may be delivered again by a later batch. An empty range (`end <= start`)
    /// is ignored; a range past [`FileSet::len`] is an [`IoError::OutOfRange`].
    ///
    /// An error on any thread stops the round (reads in flight are completed and dropped) and is
    /// returned; a panic in `consume` stops the round and is resumed on the calling thread.
    /// Once the stop request is set ([`stop_when`](Self::stop_when)), a round starts no further
    /// read: the reads in flight are delivered and the round returns [`IoError::Stopped`], as
    /// does every later one before reading anything.
    pub fn read_round(
        &self,
        set: &FileSet,
        ranges: &mut dyn Iterator<Item = (u64, u64)>,
        consume: &(dyn Fn(Chunk<'_>) + Sync),
    ) -> Result<(), IoError> {
        if self.stopped() {
            return Err(IoError::Stopped);
        }
        let (sched, useful) = self.schedule(set, ranges)?;
        let k = set.files.len() as u64;
        {
            let mut s = self.stats.lock().unwrap_or_else(PoisonError::into_inner);
            s.rounds += 1;
            s.blocks_requested += sched.blocks_requested;
            s.blocks_after_dedup += sched.blocks_after_dedup;
            s.blocks_read += sched.blocks_read();
            s.merged_runs += sched.runs.len() as u64;
            s.requests += sched.runs.len() as u64 * k;
            s.useful_bytes += useful * k;
        }
        if sched.runs.is_empty() || k == 0 {
            return Ok(());
        }
        let b = self.current();
        if set.mapped != (b.kind() == BackendKind::Mmap) {
            return Err(IoError::Config(format!(
                "file set was opened for {} but the context reads with {:?}",
                if set.mapped { "mmap" } else { "pread/uring" },
                b.kind()
            )));
        }
        let counters = Counters {
            stop: self.stop.get().cloned(),
            ..Counters::default()
        };
        let started = Instant::now();
        let result = b.read_runs(set, &sched.runs, consume, &counters);
        let bytes_read = counters.bytes_read.load(Ordering::Relaxed);
        let mut s = self.stats.lock().unwrap_or_else(PoisonError::into_inner);
        s.bytes_read += bytes_read;
        s.io_wait_seconds += counters.wait_nanos.load(Ordering::Relaxed) as f64 * 1e-9;
        let busy = counters.busy_nanos.load(Ordering::Relaxed) as f64 * 1e-9;
        s.io_busy_seconds += busy;
        s.round_log.push(RoundRecord {
            bytes_read,
            requests: sched.runs.len() as u64 * k,
            useful_bytes: useful * k,
            seconds: started.elapsed().as_secs_f64(),
            io_busy_seconds: busy,
        });
        drop(s);
        result?;
        match counters.stopped() {
            true => Err(IoError::Stopped),
            false => Ok(()),
        }
    }

    /// Makes every round poll `flag` (a run's stop request) between its reads: once it is set,
    /// rounds end early with [`IoError::Stopped`] (see [`read_round`](Self::read_round)). A
    /// context takes one flag, the first given.
    pub fn stop_when(&self, flag: Arc<AtomicBool>) {
        let _ = self.stop.set(flag);
    }

    /// Whether the stop request is set.
    fn stopped(&self) -> bool {
        self.stop.get().is_some_and(|s| s.load(Ordering::Relaxed))
    }

    /// Bytes read so far (as [`IoStats::bytes_read`], without copying the round log).
    pub fn bytes_read(&self) -> u64 {
        self.stats.lock().unwrap_or_else(PoisonError::into_inner).bytes_read
    }

    /// Counters so far.
    pub fn stats(&self) -> IoStats {
        self.stats.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }
}
