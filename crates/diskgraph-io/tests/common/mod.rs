//! Shared helpers: files of random bytes, random ranges, and a checked round.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use diskgraph_io::{BackendKind, Chunk, IoConfig, IoContext, IoStats, SchedulerKind, PLUG_BATCH};

/// xorshift64*: deterministic, dependency-free.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// Writes `len` random bytes to `dir/name` and returns them.
pub fn random_file(dir: &Path, name: &str, len: usize, seed: u64) -> (PathBuf, Vec<u8>) {
    let mut rng = Rng(seed | 1);
    let data: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
    let path = dir.join(name);
    std::fs::write(&path, &data).unwrap();
    (path, data)
}

/// A mix of short ranges, long ranges (past one request), duplicates, ranges at the end of
/// the file and empty ranges.
pub fn random_ranges(len: u64, n: usize, seed: u64) -> Vec<(u64, u64)> {
    let mut rng = Rng(seed | 1);
    let mut out: Vec<(u64, u64)> = Vec::with_capacity(n);
    for i in 0..n {
        let r = match rng.below(10) {
            0 if !out.is_empty() => out[rng.below(out.len() as u64) as usize],
            1 => {
                let l = 1 + rng.below(3000).min(len);
                (len - l, len)
            }
            2 => {
                let a = rng.below(len);
                (a, (a + 1 + rng.below(40_000)).min(len))
            }
            3 => {
                let a = rng.below(len);
                (a, a)
            }
            _ => {
                let a = rng.below(len);
                (a, (a + 1 + rng.below(700)).min(len))
            }
        };
        out.push(if i % 97 == 5 { (r.1, r.0) } else { r });
    }
    out
}

pub fn available_backends() -> Vec<BackendKind> {
    let mut v = vec![BackendKind::Pread, BackendKind::Mmap];
    let probe = IoContext::new(IoConfig {
        buffer_bytes: 1 << 20,
        ..IoConfig::default()
    })
    .unwrap();
    if probe.backend() == BackendKind::Uring {
        v.insert(0, BackendKind::Uring);
    } else {
        eprintln!(
            "SKIPPING the uring backend: {}",
            probe.fallback_reason().unwrap_or("not chosen")
        );
    }
    v
}

/// What one round should have done, from the ranges alone.
pub struct Expected {
    pub blocks_requested: u64,
    pub blocks_after_dedup: u64,
    pub useful: u64,
}

pub fn expected(ranges: &[(u64, u64)], block_size: u64, scheduler: SchedulerKind, files: u64) -> Expected {
    let spans: Vec<(u64, u64)> = ranges
        .iter()
        .filter(|(a, b)| b > a)
        .map(|&(a, b)| (a / block_size, (b - 1) / block_size))
        .collect();
    let distinct = |group: &[(u64, u64)]| {
        let mut blocks: Vec<u64> = group.iter().flat_map(|&(f, l)| f..=l).collect();
        blocks.sort_unstable();
        blocks.dedup();
        blocks.len() as u64
    };
    let blocks_after_dedup = match scheduler {
        SchedulerKind::Bitmap => distinct(&spans),
        SchedulerKind::Pluglist => spans.chunks(PLUG_BATCH).map(distinct).sum(),
    };
    Expected {
        blocks_requested: spans.iter().map(|(f, l)| l - f + 1).sum(),
        blocks_after_dedup,
        useful: ranges.iter().filter(|(a, b)| b > a).map(|(a, b)| b - a).sum::<u64>() * files,
    }
}

/// Reads `ranges` and checks every delivered byte against `contents`, every requested byte
/// delivered, and (bitmap) no byte delivered twice. Returns the stats difference of the round.
pub fn checked_round(
    ctx: &IoContext,
    set: &diskgraph_io::FileSet,
    contents: &[&[u8]],
    ranges: &[(u64, u64)],
) -> IoStats {
    let len = set.len() as usize;
    let before = ctx.stats();
    let hits: Vec<std::sync::atomic::AtomicU32> = (0..len).map(|_| Default::default()).collect();
    let chunks = Mutex::new(Vec::new());
    let bad = Mutex::new(Vec::new());
    ctx.read_round(set, &mut ranges.iter().copied(), &|c: Chunk<'_>| {
        assert_eq!(c.data.len(), contents.len());
        let (a, b) = (c.offset as usize, c.end() as usize);
        for (i, d) in c.data.iter().enumerate() {
            if b > len || d[..] != contents[i][a..b] {
                bad.lock().unwrap().push((i, a, b));
            }
        }
        for h in &hits[a..b.min(len)] {
            h.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        chunks.lock().unwrap().push((a, b));
    })
    .unwrap();
    let bad = bad.into_inner().unwrap();
    assert!(
        bad.is_empty(),
        "wrong bytes in chunks (file, start, end): {:?}",
        &bad[..bad.len().min(5)]
    );
    for &(a, b) in ranges {
        for (i, h) in hits.iter().enumerate().take(b as usize).skip(a as usize) {
            assert!(
                h.load(std::sync::atomic::Ordering::Relaxed) > 0,
                "byte {i} of range {a}..{b} not delivered"
            );
        }
    }
    let after = ctx.stats();
    let chunks = chunks.into_inner().unwrap();
    let bs = u64::from(ctx.config().block_size);
    let k = contents.len() as u64;
    if ctx.config().scheduler == SchedulerKind::Bitmap {
        assert!(
            hits.iter().all(|h| h.load(std::sync::atomic::Ordering::Relaxed) <= 1),
            "bitmap delivered a byte twice"
        );
    }
    let chunk_bytes: u64 = chunks.iter().map(|(a, b)| (b - a) as u64).sum();
    let chunk_blocks: u64 = chunks.iter().map(|(a, b)| ((b - a) as u64).div_ceil(bs)).sum();
    let diff = IoStats {
        bytes_read: after.bytes_read - before.bytes_read,
        requests: after.requests - before.requests,
        blocks_requested: after.blocks_requested - before.blocks_requested,
        blocks_after_dedup: after.blocks_after_dedup - before.blocks_after_dedup,
        blocks_read: after.blocks_read - before.blocks_read,
        merged_runs: after.merged_runs - before.merged_runs,
        useful_bytes: after.useful_bytes - before.useful_bytes,
        io_wait_seconds: after.io_wait_seconds - before.io_wait_seconds,
        io_busy_seconds: after.io_busy_seconds - before.io_busy_seconds,
        rounds: after.rounds - before.rounds,
        round_log: after.round_log[before.round_log.len()..].to_vec(),
    };
    let e = expected(ranges, bs, ctx.config().scheduler, k);
    assert_eq!(diff.rounds, 1);
    if diff.merged_runs > 0 && ctx.backend() != BackendKind::Mmap {
        assert!(diff.io_busy_seconds > 0.0, "reads take time");
    }
    if let [round] = &diff.round_log[..] {
        assert_eq!(
            (round.bytes_read, round.requests, round.useful_bytes),
            (diff.bytes_read, diff.requests, diff.useful_bytes),
            "the round's record"
        );
    } else {
        assert!(
            diff.merged_runs == 0 && diff.round_log.is_empty(),
            "one record per round that read"
        );
    }
    assert_eq!(diff.merged_runs, chunks.len() as u64);
    assert_eq!(diff.requests, chunks.len() as u64 * k);
    assert_eq!(
        diff.bytes_read,
        chunk_bytes * k,
        "bytes read (files end at their logical length)"
    );
    assert_eq!(diff.blocks_read, chunk_blocks);
    assert_eq!(diff.blocks_requested, e.blocks_requested);
    assert_eq!(diff.blocks_after_dedup, e.blocks_after_dedup);
    assert_eq!(diff.useful_bytes, e.useful);
    assert!(diff.blocks_after_dedup <= diff.blocks_read && diff.blocks_after_dedup <= diff.blocks_requested);
    assert!(diff.io_wait_seconds >= 0.0);
    diff
}
