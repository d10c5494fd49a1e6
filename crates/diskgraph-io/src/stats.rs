//! I/O statistics of a context: cumulative counters ([`IoStats`]) and one record per round
//! ([`RoundRecord`]).

use serde::{Deserialize, Serialize};

/// I/O counters of an [`IoContext`](crate::IoContext), cumulative over its rounds.
///
/// Blocks are counted once per block of the round's scheduling (not once per file of the set);
/// bytes and requests are counted per file.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct IoStats {
    /// Bytes read from files: what the kernel returned for every read (uring, pread), or the
    /// bytes of the chunks handed out (mmap, where the page cache does the reading).
    pub bytes_read: u64,
    /// Read requests issued (one per run per file).
    pub requests: u64,
    /// Blocks named by the callers' ranges, counted once per range (with repeats).
    pub blocks_requested: u64,
    /// Requested blocks left after deduplication (gap blocks not included): the distinct blocks
    /// of the round for the bitmap scheduler, the sum of each batch's distinct blocks for the
    /// plug list.
    pub blocks_after_dedup: u64,
    /// Blocks covered by the runs: the deduplicated blocks plus the gap blocks merged into runs
    /// (plus, for the plug list, blocks read again by a later batch).
    pub blocks_read: u64,
    /// Runs emitted by the scheduler.
    pub merged_runs: u64,
    /// Bytes the callers asked for (sum of range lengths, per file).
    pub useful_bytes: u64,
    /// Seconds compute workers waited for data, summed over the workers (thread-seconds).
    pub io_wait_seconds: f64,
    /// Seconds the I/O threads had reads in flight (uring) or were inside read calls (pread),
    /// summed over the I/O threads (0 for mmap). Bytes over this is the rate the device
    /// delivered while the engine was reading.
    pub io_busy_seconds: f64,
    /// Calls of `read_round`.
    pub rounds: u64,
    /// One record per round that read something, in order.
    pub round_log: Vec<RoundRecord>,
}

/// What one round of reads did: enough to tell the rate a phase of an algorithm achieved and
/// the access size it achieved it with.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RoundRecord {
    /// Bytes read (per file, as [`IoStats::bytes_read`]).
    pub bytes_read: u64,
    /// Read requests issued.
    pub requests: u64,
    /// Bytes the callers asked for.
    pub useful_bytes: u64,
    /// Wall time from the first read issued to the last chunk consumed, in seconds.
    pub seconds: f64,
    /// Seconds the I/O threads had reads in flight, summed over them (see
    /// [`IoStats::io_busy_seconds`]).
    #[serde(default)]
    pub io_busy_seconds: f64,
}

impl RoundRecord {
    /// Bytes per second over the round (0 for an instant round).
    pub fn bytes_per_second(&self) -> f64 {
        if self.seconds > 0.0 {
            self.bytes_read as f64 / self.seconds
        } else {
            0.0
        }
    }

    /// Mean bytes per request (0 without requests).
    pub fn mean_request_bytes(&self) -> f64 {
        if self.requests > 0 {
            self.bytes_read as f64 / self.requests as f64
        } else {
            0.0
        }
    }
}

impl IoStats {
    /// Useful bytes / bytes read (1.0 when nothing was read).
    pub fn utility(&self) -> f64 {
        if self.bytes_read == 0 {
            1.0
        } else {
            self.useful_bytes as f64 / self.bytes_read as f64
        }
    }
}
