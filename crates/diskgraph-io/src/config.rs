//! Settings: which backend and scheduler, block and request sizes, threads and buffers
//! ([`IoConfig`]), with their checks and defaults.

use serde::Serialize;

use crate::error::IoError;

/// Which file backend reads the blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BackendKind {
    /// io_uring with O_DIRECT and registered buffers (the default when the kernel allows it).
    Uring,
    /// pread(2) with O_DIRECT: portable fallback, and the queue-depth-1 baseline.
    Pread,
    /// Memory-mapped files through the kernel page cache (baseline).
    Mmap,
}

impl BackendKind {
    /// The backend's name (`--io NAME`).
    pub fn name(self) -> &'static str {
        match self {
            BackendKind::Uring => "uring",
            BackendKind::Pread => "pread",
            BackendKind::Mmap => "mmap",
        }
    }
}

impl std::str::FromStr for BackendKind {
    type Err = String;

    /// Parses `uring`, `pread` or `mmap` (case-insensitive).
    fn from_str(s: &str) -> Result<Self, String> {
        let lower = s.to_ascii_lowercase();
        [BackendKind::Uring, BackendKind::Pread, BackendKind::Mmap]
            .into_iter()
            .find(|b| b.name() == lower)
            .ok_or_else(|| format!("unknown I/O backend {s:?} (use uring, pread or mmap)"))
    }
}

/// How block requests of a round are turned into reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SchedulerKind {
    /// A bitmap over all blocks of the round: global dedup, sort and merge (Graphene).
    Bitmap,
    /// Batches of 16 requests in arrival order, sorted and merged only within a batch (Linux's
    /// plug list); the comparison baseline.
    Pluglist,
}

impl std::str::FromStr for SchedulerKind {
    type Err = String;

    /// Parses `bitmap` or `pluglist` (case-insensitive).
    fn from_str(s: &str) -> Result<Self, String> {
        match s.to_ascii_lowercase().as_str() {
            "bitmap" => Ok(SchedulerKind::Bitmap),
            "pluglist" => Ok(SchedulerKind::Pluglist),
            _ => Err(format!("unknown I/O scheduler {s:?} (use bitmap or pluglist)")),
        }
    }
}

/// Settings of an [`IoContext`](crate::IoContext).
#[derive(Clone, Debug, Serialize)]
pub struct IoConfig {
    /// Requested backend; `None` probes the kernel and picks the best available.
    pub backend: Option<BackendKind>,
    /// Block size in bytes: 512, 1024, 2048, 4096, … 65536.
    pub block_size: u32,
    /// Largest gap, in blocks, absorbed when merging runs.
    pub max_gap_blocks: u32,
    /// Largest read in bytes; longer runs are cut.
    pub max_request_bytes: u32,
    /// Scheduler policy.
    pub scheduler: SchedulerKind,
    /// Reads in flight per I/O thread (uring; pread has one read in flight per thread).
    pub queue_depth: u32,
    /// Dedicated I/O threads (uring and pread; the runs of a round are dealt out among them).
    pub io_threads: usize,
    /// Worker threads calling `consume` (the thread calling `read_round` is one of them).
    pub compute_threads: usize,
    /// Bytes of I/O buffers (from the memory budget): the pool of `max_request_bytes` buffers
    /// that bounds the data in flight. Not allocated by the mmap backend.
    pub buffer_bytes: u64,
    /// Access-pattern hint given to the kernel for mapped files (mmap backend only).
    pub mmap_advice: MmapAdvice,
}

/// `madvise(2)` hint for the mmap backend (PrefEdge-style hints).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum MmapAdvice {
    /// `MADV_NORMAL`: the kernel's default read-ahead.
    Normal,
    /// `MADV_RANDOM`: no read-ahead, so a fault loads only the page it needs (the default).
    #[default]
    Random,
    /// `MADV_SEQUENTIAL`: aggressive read-ahead.
    Sequential,
    /// `MADV_WILLNEED`: start reading the whole file into the page cache at open.
    WillNeed,
}

/// Default largest merged gap, in blocks: 32 blocks of 512 B. Graphene's default is 16 blocks
/// and 16 KiB reads; on the SSD this was tuned on (docs/BENCHMARKS.md, "Device read rate by
/// access size"), a random 16 KiB read costs about a 64 KiB one's time while a request costs as
/// much as ~16 KiB of sequential transfer, so longer gaps and longer reads pay.
pub const DEFAULT_MAX_GAP_BLOCKS: u32 = 32;

/// Default largest read: 64 KiB (see [`DEFAULT_MAX_GAP_BLOCKS`]); 64 KiB random reads at queue
/// depth 64 reach ~90% of the device's sequential rate there.
pub const DEFAULT_MAX_REQUEST_BYTES: u32 = 64 << 10;

/// Default block size: 512 bytes, Graphene's.
pub const DEFAULT_BLOCK_SIZE: u32 = 512;

/// Default reads in flight per I/O thread.
pub const DEFAULT_QUEUE_DEPTH: u32 = 64;

/// Default number of dedicated I/O threads.
pub const DEFAULT_IO_THREADS: usize = 1;

/// The most dedicated I/O threads: each has a ring and a share of the buffers, and a few keep
/// any device busy.
pub const MAX_IO_THREADS: usize = 64;

impl IoConfig {
    /// Checks the settings: a power-of-two block size in 512..=65536, a max request holding at
    /// least one block, 1 to [`MAX_IO_THREADS`] I/O threads, at least one compute thread and
    /// read in flight.
    pub fn validate(&self) -> Result<(), IoError> {
        if !self.block_size.is_power_of_two() || !(512..=65536).contains(&self.block_size) {
            return Err(IoError::Config(format!(
                "block size {} is not a power of two in 512..=65536",
                self.block_size
            )));
        }
        if self.max_request_bytes < self.block_size {
            return Err(IoError::Config("max request must hold at least one block".into()));
        }
        if self.io_threads == 0 || self.compute_threads == 0 {
            return Err(IoError::Config(
                "io_threads and compute_threads must be at least 1".into(),
            ));
        }
        if self.io_threads > MAX_IO_THREADS {
            return Err(IoError::Config(format!(
                "io_threads must be at most {MAX_IO_THREADS}, got {}",
                self.io_threads
            )));
        }
        if self.queue_depth == 0 {
            return Err(IoError::Config("queue depth must be at least 1".into()));
        }
        Ok(())
    }

    /// Bytes of one pool buffer: the longest run (`max_request_bytes` rounded down to whole
    /// blocks), rounded up to 4096.
    pub fn buffer_size(&self) -> u64 {
        let run = u64::from((self.max_request_bytes / self.block_size.max(1)).max(1)) * u64::from(self.block_size);
        run.div_ceil(4096) * 4096
    }

    /// The smallest `buffer_bytes` that lets each I/O thread have one read of a set of `files`
    /// files in flight (pread/uring; a round over a larger set fails with a config error). More
    /// buffers keep more reads in flight and more chunks waiting for the workers.
    pub fn min_buffer_bytes(&self, files: usize) -> u64 {
        self.io_threads.max(1) as u64 * files.max(1) as u64 * self.buffer_size()
    }
}

impl Default for IoConfig {
    fn default() -> Self {
        IoConfig {
            backend: None,
            block_size: DEFAULT_BLOCK_SIZE,
            max_gap_blocks: DEFAULT_MAX_GAP_BLOCKS,
            max_request_bytes: DEFAULT_MAX_REQUEST_BYTES,
            scheduler: SchedulerKind::Bitmap,
            queue_depth: DEFAULT_QUEUE_DEPTH,
            io_threads: DEFAULT_IO_THREADS,
            compute_threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            buffer_bytes: 64 << 20,
            mmap_advice: MmapAdvice::Random,
        }
    }
}
