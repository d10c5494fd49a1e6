//! Device measurement: [`measure_device`] reads a file with O_DIRECT through io_uring at a given
//! request size and queue depth and reports the raw rate ([`DeviceRate`]), the figure the
//! backends' and the sequential reader's rates are set against.

use std::os::fd::AsRawFd;
use std::path::Path;
use std::time::Instant;

use io_uring::{opcode, types};
use serde::Serialize;

use crate::error::IoError;
use crate::pool::{BufferPool, BUF_ALIGN};
use crate::ring::probe_ring;

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
