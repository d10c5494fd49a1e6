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
//! STATUS: API skeleton with a synchronous pread reference implementation; the io_uring and
//! mmap backends, the pluglist scheduler, the buffer pool and dedicated I/O threads are being
//! written behind this same API.

mod config;
mod context;
mod scheduler;
mod stats;

pub use config::{BackendKind, IoConfig, SchedulerKind};
pub use context::{Chunk, FileSet, IoContext, IoError};
pub use scheduler::{BitmapScheduler, Run};
pub use stats::IoStats;
