//! diskgraph's I/O layer. It knows files, bytes and blocks — never vertices.
//!
//! A caller (an engine) hands [`IoContext::read_round`] every byte range it needs in one round
//! of an algorithm. The scheduler marks the blocks those ranges touch in a bitmap (one bit per
//! block), which deduplicates and sorts them, and emits merged runs in disk order (gaps of up
//! to `max_gap` blocks absorbed, runs cut at `max_request` bytes). The backend reads the runs
//! into buffers from the pool, and `consume` is called with each completed buffer — on worker
//! threads, as soon as it arrives. Several files may be read with identical runs (an adjacency
//! file and its weight file have entries of the same width), so one [`Chunk`] carries the same
//! byte range of each.
//!
//! # Backends
//!
//! Chosen once per context by probing the kernel (see [`IoContext`]), reported by
//! [`IoContext::backend`], with the reason for any fallback in [`IoContext::fallback_reason`]:
//!
//! * `uring`: io_uring with O_DIRECT descriptors, one ring per I/O thread, the thread's share of
//!   the buffer pool registered with its ring (fixed-buffer reads), `queue_depth` reads in flight
//!   per thread. The default.
//! * `pread`: O_DIRECT `pread(2)`, one read at a time per I/O thread: the depth-1 baseline and
//!   the fallback. Files whose file system refuses O_DIRECT are read buffered.
//! * `mmap`: the files are mapped (`madvise(MADV_RANDOM)` by default, see [`MmapAdvice`]) and
//!   chunks are slices of the maps: no copy, the page cache does the I/O on page faults inside
//!   `consume`. A page that cannot be read (SIGBUS) fails the round with an error naming the
//!   file (see "Mapped pages that cannot be read" below).
//!
//! # Buffers and threads
//!
//! The pool ([`BufferKind`]: explicit hugepages, else transparent hugepages, else normal pages)
//! holds `buffer_bytes / max_request_bytes` buffers split among the I/O threads, which bounds the
//! data in flight. I/O threads push completed buffers into one queue that all `compute_threads`
//! workers pull from (work sharing, which gives the balance Graphene gets from work stealing); a
//! buffer goes back to its I/O thread when `consume` returns.
//!
//! Like Graphene's, the threads are long-lived: a context spawns its I/O threads and its workers
//! (all but the thread calling `read_round`, which is a worker too) on the first round that needs
//! them, parks them on condition variables between rounds, and joins them when it is dropped. A
//! round small enough to be in flight at once (uring: one ring's worth of runs; pread with one
//! I/O thread: up to 16 runs) is read inline by the calling thread, which wakes nobody; see
//! [`INLINE_ENV`].
//!
//! # Measuring
//!
//! [`measure_device`] reads a file with O_DIRECT through io_uring at a given request size and
//! queue depth; `cargo run --release -p diskgraph-io --example measure_device` prints this
//! machine's sequential and random rates, and `--example round_bench FILE` runs one
//! frontier-like round with every backend × scheduler × block size, and `--example small_rounds
//! FILE` times many rounds of a few ranges each (the per-round overhead of a high-diameter
//! traversal).
//!
//! # Streaming
//!
//! [`SequentialReader`] serves streaming engines: a loader thread reads a list of requests
//! (byte ranges of one or more files) strictly in order, with large O_DIRECT reads (io_uring, else
//! pread), into a ring of buffers, and hands each to the caller in order while the next ones
//! load; it reports each read's bytes, requests and I/O time ([`SequentialStats`]).
//!
//! # Pages
//!
//! [`PagedFile`] and [`PageReads`] serve a cache that reads ahead of a single-threaded
//! algorithm (the sync engine): whole 4 KiB pages into frames the caller owns, blocking or
//! kept in flight through io_uring, and `madvise(MADV_WILLNEED)` on a mapped file.
//!
//! # Blocks written back
//!
//! [`BlockFile`] and [`PageBuf`] serve an engine that keeps blocks of a file in memory, modifies
//! them and writes them back (the shard engine's edge values): page-aligned O_DIRECT reads and
//! writes of whole buffers, counted.
//!
//! # Testing the fallbacks
//!
//! [`SIMULATE_ENV`] (`DISKGRAPH_IO_SIMULATE=no-uring,no-direct,no-hugetlb`) makes the probes
//! fail, so the fallback paths can be exercised on a machine where everything works.
//!
//! # Injected faults
//!
//! [`faults`] plans EIO, short reads, EINTR and EAGAIN at chosen byte ranges of chosen files
//! (from a test, or `DISKGRAPH_IO_FAULTS`), consulted by every read of every backend, so their
//! error and retry paths can be exercised on a healthy disk.
//!
//! # Mapped pages that cannot be read
//!
//! A read error under a mapping is a SIGBUS, which would kill the process. Every mapping of a
//! file this crate makes ([`MappedScratch`], the mmap backend's, mapped [`PagedFile`]s) is
//! registered with a SIGBUS handler (`sigbus::MapGuard`) that puts a zero page in place of the one
//! that faulted and records the fault; the round, page read or scratch check then fails with
//! [`IoError::MappedFault`], naming the file and the byte.
//!
//! # Layout
//!
//! Each module imports only modules listed before it:
//!
//! 1. `error` (IoError), `size` ([`parse_size`], [`human_bytes`]), `regular` (files that must be
//!    regular files: [`open_regular`], [`read_metadata`]), `fallback` (simulation hook, fallback
//!    log), `faults` (injected faults), `config`, `stats`, `scheduler`, `crew` (long-lived
//!    helper threads), `huge_alloc`, `pool` (aligned buffers), `sigbus` (faults of mapped files
//!    caught), `mapped` (the mappings it covers);
//! 2. `file`: an open file (O_DIRECT probe, buffered fallback, the pread loop) and [`FileSet`];
//! 3. `backend`: the `Backend` trait and what a round hands it ([`Chunk`], counters);
//! 4. `ring` (one io_uring read: queue, reap, settle) and `pipeline` (I/O threads, workers,
//!    slots);
//! 5. the backends `pread`, `uring` and `mmap`; `measure` ([`measure_device`]); `stream`
//!    ([`SequentialReader`], reading through `file` and `ring`);
//! 6. `context` ([`IoContext`]), which picks a backend and runs rounds; `pages` ([`PagedFile`],
//!    [`PageReads`]): page reads into caller-owned frames for a cache that reads ahead;
//!    `blocks` ([`BlockFile`], [`PageBuf`]): blocks read and written back.

#![deny(unsafe_op_in_unsafe_fn)]
#![warn(clippy::undocumented_unsafe_blocks)]

mod backend;
mod blocks;
mod config;
mod context;
mod crew;
mod error;
mod fallback;
pub mod faults;
mod file;
mod huge_alloc;
mod mapped;
mod measure;
mod mmap;
mod pages;
mod pipeline;
mod pool;
mod pread;
mod regular;
mod ring;
mod scheduler;
mod sigbus;
mod size;
pub mod spelling;
mod stats;
mod stream;
mod uring;

pub use backend::Chunk;
pub use blocks::{BlockFile, PageBuf};
pub use config::{
    BackendKind, IoConfig, MmapAdvice, SchedulerKind, DEFAULT_BLOCK_SIZE, DEFAULT_IO_THREADS, DEFAULT_MAX_GAP_BLOCKS,
    DEFAULT_MAX_REQUEST_BYTES, DEFAULT_QUEUE_DEPTH, MAX_IO_THREADS,
};
pub use context::IoContext;
pub use error::IoError;
pub use fallback::SIMULATE_ENV;
pub use file::FileSet;
pub use huge_alloc::{return_large_blocks, HugePageAlloc, MIN_ADVISED, MMAP_THRESHOLD};
pub use mapped::MappedScratch;
pub use measure::{measure_device, DeviceRate};
pub use pages::{page_frames, Completed, Frame, PageAccess, PageFrame, PageReads, PagedFile, PAGE_BYTES};
pub use pipeline::INLINE_ENV;
pub use pool::BufferKind;
pub use regular::{check_regular, open_regular, read_metadata, MAX_METADATA_BYTES};
pub use scheduler::{BitmapScheduler, PluglistScheduler, Run, Schedule, PLUG_BATCH};
pub use size::{human_bytes, human_minimum, parse_size, size_out_of_range, DEFAULT_MEMORY};
pub use stats::{IoStats, RoundRecord};
pub use stream::{ReadRequest, SequentialConfig, SequentialReader, SequentialStats, STREAM_READ_BYTES};
