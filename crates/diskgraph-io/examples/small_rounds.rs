//! Per-round overhead: many rounds of a few ranges each (what a high-diameter traversal does),
//! with every backend.
//!
//! `cargo run --release -p diskgraph-io --example small_rounds FILE [ROUNDS [RANGES_PER_ROUND]]`
//!
//! Each round reads `RANGES_PER_ROUND` ranges of 64 bytes spread evenly over the file (one read
//! each); the figure is wall time per round. Put FILE on tmpfs (`/dev/shm`) to see the overhead
//! of the layer alone rather than the device's latency.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use diskgraph_io::{BackendKind, Chunk, IoConfig, IoContext};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = std::path::PathBuf::from(
        args.first()
            .ok_or("usage: small_rounds FILE [ROUNDS [RANGES_PER_ROUND]]")?,
    );
    let rounds: usize = args.get(1).map(|s| s.parse()).transpose()?.unwrap_or(5000);
    let per: u64 = args.get(2).map(|s| s.parse()).transpose()?.unwrap_or(1);
    let len = std::fs::metadata(&path)?.len();
    let stride = (len / per.max(1)).max(64) & !4095;
    if stride == 0 {
        return Err("file too small".into());
    }
    println!("{rounds} rounds of {per} ranges over {len} bytes");
    println!("{:<7} {:>9} {:>12} {:>10}", "backend", "seconds", "µs/round", "wait s");
    for backend in [BackendKind::Uring, BackendKind::Pread, BackendKind::Mmap] {
        let ctx = IoContext::new(IoConfig {
            backend: Some(backend),
            ..IoConfig::default()
        })?;
        if ctx.backend() != backend {
            println!("{backend:?}: unavailable ({})", ctx.fallback_reason().unwrap_or("?"));
            continue;
        }
        let set = ctx.open(&[&path])?;
        let sum = AtomicU64::new(0);
        let consume = |c: Chunk<'_>| {
            sum.fetch_add(u64::from(c.data[0][0]), Ordering::Relaxed);
        };
        let t = Instant::now();
        for r in 0..rounds as u64 {
            let shift = (r * 4096) % stride;
            let mut ranges = (0..per).map(|i| {
                let a = (i * stride + shift).min(len - 64);
                (a, a + 64)
            });
            ctx.read_round(&set, &mut ranges, &consume)?;
        }
        let secs = t.elapsed().as_secs_f64();
        println!(
            "{:<7} {:>9.3} {:>12.1} {:>10.3}",
            format!("{backend:?}").to_lowercase(),
            secs,
            secs * 1e6 / rounds as f64,
            ctx.stats().io_wait_seconds
        );
    }
    Ok(())
}
