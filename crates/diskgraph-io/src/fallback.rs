//! What the fallback paths share: the simulation hook that makes the kernel and file-system
//! probes fail on purpose ([`SIMULATE_ENV`]), and the once-per-process log of each fallback.

use std::sync::atomic::{AtomicBool, Ordering};

/// Environment variable naming failures to simulate, comma-separated: `no-uring` (io_uring
/// setup fails), `no-direct` (O_DIRECT opens fail with EINVAL), `no-hugetlb` (no explicit
/// hugepages). A testing hook for the fallback paths; read when a context is created or a file
/// opened.
pub const SIMULATE_ENV: &str = "DISKGRAPH_IO_SIMULATE";

/// Whether [`SIMULATE_ENV`] names the failure `what`.
pub(crate) fn simulated(what: &str) -> bool {
    std::env::var(SIMULATE_ENV).is_ok_and(|v| v.split(',').any(|w| w.trim() == what))
}

/// Prints `msg` to stderr the first time `flag` is seen unset.
pub(crate) fn log_once(flag: &AtomicBool, msg: &str) {
    if !flag.swap(true, Ordering::Relaxed) {
        eprintln!("diskgraph-io: {msg}");
    }
}
