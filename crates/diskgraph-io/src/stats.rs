use serde::Serialize;

/// I/O counters of an [`IoContext`](crate::IoContext), cumulative over its rounds.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct IoStats {
    /// Bytes read from files.
    pub bytes_read: u64,
    /// Read requests issued (one per run per file).
    pub requests: u64,
    /// Blocks named by the callers' ranges, counted once per range.
    pub blocks_requested: u64,
    /// Distinct blocks after deduplication.
    pub blocks_after_dedup: u64,
    /// Runs emitted by the scheduler.
    pub merged_runs: u64,
    /// Bytes the callers asked for (sum of range lengths).
    pub useful_bytes: u64,
    /// Seconds compute workers waited for data.
    pub io_wait_seconds: f64,
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
