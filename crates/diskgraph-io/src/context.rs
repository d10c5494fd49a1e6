use std::fs::{File, OpenOptions};
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError, RwLock};
use std::time::Instant;

use crate::backend::{self, Backend, Counters, Pipeline};
use crate::pool::{BufferKind, BufferPool, BUF_ALIGN};
use crate::scheduler::{BitmapScheduler, PluglistScheduler, Schedule};
use crate::{uring, BackendKind, IoConfig, IoStats, RoundRecord, SchedulerKind};

/// An I/O fault, naming the file.
#[derive(Debug, thiserror::Error)]
pub enum IoError {
    /// An operating-system error on a file.
    #[error("{}: {source}", path.display())]
    Os {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// A setting the backend cannot honour.
    #[error("{0}")]
    Config(String),
    /// A requested byte range reaches past the logical length of the file set.
    #[error("byte range {start}..{end} reaches past the end of the files ({len} bytes)")]
    OutOfRange {
        /// First byte of the range.
        start: u64,
        /// One past the last byte.
        end: u64,
        /// Logical length of the file set.
        len: u64,
    },
}

/// Environment variable naming failures to simulate, comma-separated: `no-uring` (io_uring
/// setup fails), `no-direct` (O_DIRECT opens fail with EINVAL), `no-hugetlb` (no explicit
/// hugepages). A testing hook for the fallback paths; read when a context is created or a file
/// opened.
pub const SIMULATE_ENV: &str = "DISKGRAPH_IO_SIMULATE";

pub(crate) fn simulated(what: &str) -> bool {
    std::env::var(SIMULATE_ENV).is_ok_and(|v| v.split(',').any(|w| w.trim() == what))
}

/// One file of a [`FileSet`].
pub(crate) struct SetFile {
    pub(crate) path: PathBuf,
    pub(crate) file: File,
    /// Opened with O_DIRECT.
    pub(crate) direct: bool,
    /// O_DIRECT offset alignment (1 when buffered).
    pub(crate) align: u64,
    /// Mapping of the file (mmap backend; `None` for an empty file or other backends).
    pub(crate) map: Option<memmap2::Mmap>,
}

impl SetFile {
    pub(crate) fn os_error(&self, source: std::io::Error) -> IoError {
        IoError::Os {
            path: self.path.clone(),
            source,
        }
    }
}

/// Files read together with identical runs (e.g. `out.adj` and `out.wgt`).
///
/// The set has one *logical length*, [`len`](Self::len): ranges must lie below it and chunks
/// never reach past it. [`IoContext::open`] takes it from the first file's size;
/// [`IoContext::open_with_len`] takes it from the caller (e.g. the manifest's logical length of
/// a file padded to 4096 bytes). Reads themselves cover whole blocks and may go past the logical
/// length up to the end of the last block (O_DIRECT needs it), which is harmless: graph files are
/// padded, and a read past the physical end of a file simply returns fewer bytes.
pub struct FileSet {
    pub(crate) files: Vec<SetFile>,
    pub(crate) len: u64,
    pub(crate) mapped: bool,
    bitmap: Mutex<Option<BitmapScheduler>>,
}

impl FileSet {
    /// Logical length in bytes (all files are read over the same byte ranges).
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the files are empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Number of files in the set.
    pub fn num_files(&self) -> usize {
        self.files.len()
    }

    /// Whether every file was opened with O_DIRECT (false for buffered fallbacks and mmap).
    pub fn direct(&self) -> bool {
        !self.files.is_empty() && self.files.iter().all(|f| f.direct)
    }
}

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
    buffer_kind: BufferKind,
    registered: AtomicBool,
    backend_fallback: OnceLock<String>,
    direct_fallback: OnceLock<String>,
}

static LOGGED_BACKEND: AtomicBool = AtomicBool::new(false);
static LOGGED_DIRECT: AtomicBool = AtomicBool::new(false);
static LOGGED_UNREGISTERED: AtomicBool = AtomicBool::new(false);

/// Prints `msg` to stderr the first time `flag` is seen unset.
pub(crate) fn log_once(flag: &AtomicBool, msg: &str) {
    if !flag.swap(true, Ordering::Relaxed) {
        eprintln!("diskgraph-io: {msg}");
    }
}

impl IoContext {
    /// Opens a context with `config`: checks the settings, probes the kernel, allocates the
    /// buffer pool (not for mmap) and sets up one io_uring per I/O thread (uring).
    pub fn new(config: IoConfig) -> Result<Self, IoError> {
        let c = &config;
        c.validate()?;
        let mut ctx = IoContext {
            config: config.clone(),
            stats: Mutex::new(IoStats::default()),
            backend: RwLock::new(Arc::new(backend::MmapBackend::new(
                config.compute_threads,
                config.block_size,
            ))),
            buffer_kind: BufferKind::Unallocated,
            registered: AtomicBool::new(false),
            backend_fallback: OnceLock::new(),
            direct_fallback: OnceLock::new(),
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
            Some(BackendKind::Pread) => Arc::new(backend::PreadBackend::new(pipe)),
            _ => match uring::UringBackend::new(pipe.clone(), c.queue_depth) {
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
                    Arc::new(backend::PreadBackend::new(pipe))
                }
            },
        };
        ctx.backend = RwLock::new(b);
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
            let os = |source| IoError::Os {
                path: p.to_path_buf(),
                source,
            };
            let (file, direct, align) = if kind == BackendKind::Mmap {
                (File::open(p).map_err(os)?, false, 1)
            } else {
                match open_direct(p, self.config.block_size)? {
                    Ok((f, align)) => (f, true, align),
                    Err(why) => {
                        let msg = match kind {
                            BackendKind::Uring => format!("{why}; using buffered pread instead of io_uring"),
                            _ => format!("{why}; using buffered pread"),
                        };
                        if kind == BackendKind::Uring {
                            let pipe = self.current().pipeline().expect("uring has a pipeline");
                            *self.backend.write().unwrap_or_else(PoisonError::into_inner) =
                                Arc::new(backend::PreadBackend::new(pipe));
                            self.record_backend_fallback(msg.clone());
                        }
                        log_once(&LOGGED_DIRECT, &msg);
                        let _ = self.direct_fallback.set(msg);
                        (File::open(p).map_err(os)?, false, 1)
                    }
                }
            };
            sizes.push(file.metadata().map_err(os)?.len());
            files.push(SetFile {
                path: p.to_path_buf(),
                file,
                direct,
                align,
                map: None,
            });
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
        if kind == BackendKind::Mmap {
            for (f, &size) in files.iter_mut().zip(&sizes) {
                if size == 0 {
                    continue;
                }
                // SAFETY: the mapping is read-only. Graph files are immutable once published; a
                // file truncated behind our back is detected before each round (`MmapBackend`),
                // though a truncation racing with a round can still fault.
                let map = unsafe { memmap2::Mmap::map(&f.file) }.map_err(|e| f.os_error(e))?;
                let advice = match self.config.mmap_advice {
                    crate::MmapAdvice::Normal => memmap2::Advice::Normal,
                    crate::MmapAdvice::Random => memmap2::Advice::Random,
                    crate::MmapAdvice::Sequential => memmap2::Advice::Sequential,
                    crate::MmapAdvice::WillNeed => memmap2::Advice::WillNeed,
                };
                map.advise(advice).map_err(|e| f.os_error(e))?;
                f.map = Some(map);
            }
        }
        Ok(FileSet {
            files,
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
    pub fn read_round(
        &self,
        set: &FileSet,
        ranges: &mut dyn Iterator<Item = (u64, u64)>,
        consume: &(dyn Fn(Chunk<'_>) + Sync),
    ) -> Result<(), IoError> {
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
        let counters = Counters::default();
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
        result
    }

    /// Counters so far.
    pub fn stats(&self) -> IoStats {
        self.stats.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }
}

/// O_DIRECT alignment `(memory, offset)` of an open file from `statx(STATX_DIOALIGN)`:
/// `Some((0, 0))` when the file system says direct I/O is unsupported, `None` when it does not
/// report (kernels before 6.1, some file systems).
fn dio_align(file: &File) -> Option<(u32, u32)> {
    // SAFETY: statx is plain data; all-zero is a valid value.
    let mut stx: libc::statx = unsafe { std::mem::zeroed() };
    // SAFETY: the fd is open, the empty path with AT_EMPTY_PATH names it, and `stx` is writable.
    let rc = unsafe {
        libc::statx(
            file.as_raw_fd(),
            c"".as_ptr(),
            libc::AT_EMPTY_PATH,
            libc::STATX_DIOALIGN,
            &mut stx,
        )
    };
    (rc == 0 && stx.stx_mask & libc::STATX_DIOALIGN != 0).then_some((stx.stx_dio_mem_align, stx.stx_dio_offset_align))
}

/// Opens `path` with O_DIRECT and checks that reads of `block_size`-aligned blocks into
/// 4096-aligned buffers work. `Ok(Err(reason))` when the file must be read buffered.
pub(crate) fn open_direct(path: &Path, block_size: u32) -> Result<Result<(File, u64), String>, IoError> {
    let os = |source| IoError::Os {
        path: path.to_path_buf(),
        source,
    };
    if simulated("no-direct") {
        return Ok(Err(format!(
            "O_DIRECT open of {} failed: EINVAL (simulated)",
            path.display()
        )));
    }
    let file = match OpenOptions::new().read(true).custom_flags(libc::O_DIRECT).open(path) {
        Ok(f) => f,
        Err(e) if e.raw_os_error() == Some(libc::EINVAL) => {
            return Ok(Err(format!(
                "the file system of {} does not support O_DIRECT (EINVAL)",
                path.display()
            )));
        }
        Err(e) => return Err(os(e)),
    };
    let mut align = 512u64;
    if let Some((mem, off)) = dio_align(&file) {
        if mem == 0 || off == 0 {
            return Ok(Err(format!(
                "the file system of {} does not support O_DIRECT",
                path.display()
            )));
        }
        if !block_size.is_multiple_of(off) || !(BUF_ALIGN as u32).is_multiple_of(mem) {
            return Ok(Err(format!(
                "O_DIRECT on {} needs {off}-byte offsets and {mem}-byte buffers; block size is {block_size}",
                path.display()
            )));
        }
        align = u64::from(off);
    }
    // A probe read of the first block: some file systems accept the flag and refuse the read.
    let len = file.metadata().map_err(os)?.len();
    if len > 0 {
        let layout = std::alloc::Layout::from_size_align(block_size as usize, BUF_ALIGN).expect("valid layout");
        // SAFETY: the layout has a non-zero size.
        let p = unsafe { std::alloc::alloc(layout) };
        if p.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        // SAFETY: `p` points to `block_size` bytes we own; freed right after.
        let r = file.read_at(unsafe { std::slice::from_raw_parts_mut(p, block_size as usize) }, 0);
        // SAFETY: allocated above with the same layout.
        unsafe { std::alloc::dealloc(p, layout) };
        match r {
            Ok(_) => {}
            Err(e) if e.raw_os_error() == Some(libc::EINVAL) => {
                return Ok(Err(format!("O_DIRECT reads of {} fail with EINVAL", path.display())));
            }
            Err(e) => return Err(os(e)),
        }
    }
    Ok(Ok((file, align)))
}
