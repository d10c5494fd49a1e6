//! One selective-I/O round over a large file with every backend × scheduler × block size:
//! wall time, useful throughput, requests and utility.
//!
//! `cargo run --release -p diskgraph-io --example round_bench FILE [RANGES [SEED]]`
//!
//! The ranges imitate a frontier's adjacency lists: random offsets, lengths skewed towards a few
//! hundred bytes with a long tail, 10% repeats. The file's page cache is dropped before each
//! mmap run (`posix_fadvise(DONTNEED)`); uring and pread read with O_DIRECT.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use diskgraph_io::{BackendKind, Chunk, IoConfig, IoContext, SchedulerKind};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = std::path::PathBuf::from(args.first().ok_or("usage: round_bench FILE [RANGES [SEED]]")?);
    let n: usize = args.get(1).map(|s| s.parse()).transpose()?.unwrap_or(100_000);
    let mut x: u64 = args.get(2).map(|s| s.parse()).transpose()?.unwrap_or(7) | 1;
    let len = std::fs::metadata(&path)?.len();
    let mut rng = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut ranges: Vec<(u64, u64)> = Vec::with_capacity(n);
    for _ in 0..n {
        if !ranges.is_empty() && rng() % 10 == 0 {
            let r = ranges[(rng() % ranges.len() as u64) as usize];
            ranges.push(r);
            continue;
        }
        let a = rng() % len;
        let l = 4 * (1 + (rng() % 64) * (1 + (rng() % 64) / 60 * (rng() % 100)));
        ranges.push((a, (a + l).min(len)));
    }
    println!(
        "{} ranges over {:.1} GiB, {:.1} MB asked for",
        n,
        len as f64 / (1u64 << 30) as f64,
        ranges.iter().map(|(a, b)| b - a).sum::<u64>() as f64 / 1e6
    );
    println!(
        "{:<6} {:<9} {:>5} {:>8} {:>10} {:>9} {:>9} {:>8} {:>8}",
        "backend", "scheduler", "block", "seconds", "useful MB/s", "requests", "read MB", "utility", "wait s"
    );
    for backend in [BackendKind::Uring, BackendKind::Pread, BackendKind::Mmap] {
        for scheduler in [SchedulerKind::Bitmap, SchedulerKind::Pluglist] {
            for block_size in [512, 4096] {
                let ctx = IoContext::new(IoConfig {
                    backend: Some(backend),
                    scheduler,
                    block_size,
                    ..IoConfig::default()
                })?;
                if ctx.backend() != backend {
                    println!("{backend:?}: unavailable ({})", ctx.fallback_reason().unwrap_or("?"));
                    continue;
                }
                let set = ctx.open(&[&path])?;
                if backend == BackendKind::Mmap {
                    let f = std::fs::File::open(&path)?;
                    rustix::fs::fadvise(&f, 0, None, rustix::fs::Advice::DontNeed)?;
                }
                let sum = AtomicU64::new(0);
                let t = Instant::now();
                ctx.read_round(&set, &mut ranges.iter().copied(), &|c: Chunk<'_>| {
                    let s: u64 = c.data[0].iter().step_by(64).map(|&b| u64::from(b)).sum();
                    sum.fetch_add(s, Ordering::Relaxed);
                })?;
                let secs = t.elapsed().as_secs_f64();
                let s = ctx.stats();
                println!(
                    "{:<7} {:<9} {:>5} {:>8.3} {:>10.1} {:>9} {:>9.1} {:>8.3} {:>8.3}",
                    format!("{backend:?}").to_lowercase(),
                    format!("{scheduler:?}").to_lowercase(),
                    block_size,
                    secs,
                    s.useful_bytes as f64 / 1e6 / secs,
                    s.requests,
                    s.bytes_read as f64 / 1e6,
                    s.utility(),
                    s.io_wait_seconds
                );
            }
        }
    }
    Ok(())
}
