//! The context's long-lived threads: many small rounds are cheap, rounds reuse the same threads,
//! and dropping a context joins them.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use common::{available_backends, checked_round, random_file, random_ranges};
use diskgraph_io::{BackendKind, Chunk, IoConfig, IoContext};

/// The tests count the process's threads: one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

/// Threads of this process spawned by diskgraph-io (named `diskgraph-…`), by thread ID.
fn io_threads() -> BTreeSet<u32> {
    let mut out = BTreeSet::new();
    for e in std::fs::read_dir("/proc/self/task").unwrap().flatten() {
        let Ok(tid) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        // A thread may exit between the listing and this read.
        if let Ok(comm) = std::fs::read_to_string(e.path().join("comm")) {
            if comm.starts_with("diskgraph-") {
                out.insert(tid);
            }
        }
    }
    out
}

/// Waits (briefly) for the set of threads to satisfy `ok`, and returns it: a new thread names
/// itself once it runs, which may be after the round that spawned it (a worker woken too late
/// for a round skips it), and a joined thread's /proc entry goes as it is reaped.
fn io_threads_when(ok: impl Fn(&BTreeSet<u32>) -> bool) -> BTreeSet<u32> {
    let t = Instant::now();
    loop {
        let now = io_threads();
        if ok(&now) || t.elapsed() > Duration::from_secs(5) {
            return now;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// A directory on tmpfs when there is one (the tests time the layer, not a device), else a
/// temporary directory.
fn fast_dir() -> tempfile::TempDir {
    tempfile::tempdir_in("/dev/shm").unwrap_or_else(|_| tempfile::tempdir().unwrap())
}

fn file(dir: &Path, len: usize) -> (PathBuf, Vec<u8>) {
    random_file(dir, "f", len, 77)
}

#[test]
fn many_small_rounds_are_quick() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = fast_dir();
    let len = 1 << 20;
    let (p, d) = file(dir.path(), len);
    for backend in available_backends() {
        let ctx = IoContext::new(IoConfig {
            backend: Some(backend),
            io_threads: 1,
            compute_threads: 2,
            queue_depth: 16,
            buffer_bytes: 1 << 20,
            ..IoConfig::default()
        })
        .unwrap();
        let set = ctx.open(&[&p]).unwrap();
        let chunks = AtomicUsize::new(0);
        let bad = AtomicUsize::new(0);
        let consume = |c: Chunk<'_>| {
            chunks.fetch_add(1, Ordering::Relaxed);
            if c.data[0] != &d[c.offset as usize..c.end() as usize] {
                bad.fetch_add(1, Ordering::Relaxed);
            }
        };
        // One range per round (the inline path of uring and pread).
        let t = Instant::now();
        for r in 0..5000u64 {
            let a = (r * 4096 + 100) % (len as u64 - 64);
            ctx.read_round(&set, &mut std::iter::once((a, a + 64)), &consume)
                .unwrap();
        }
        let one = t.elapsed();
        assert_eq!(chunks.load(Ordering::Relaxed), 5000, "{backend:?}");
        // Forty ranges 16 KiB apart per round: more runs than one ring keeps in flight, so the
        // I/O thread and the worker thread take part.
        let t = Instant::now();
        for r in 0..1000u64 {
            let mut ranges = (0..40u64).map(|i| {
                let a = (i * 25_000 + r * 8) % (len as u64 - 64);
                (a, a + 64)
            });
            ctx.read_round(&set, &mut ranges, &consume).unwrap();
        }
        let forty = t.elapsed();
        assert_eq!(bad.load(Ordering::Relaxed), 0, "{backend:?}: wrong bytes");
        assert_eq!(ctx.stats().rounds, 6000);
        eprintln!("{backend:?}: 5000 rounds of 1 range in {one:?}, 1000 rounds of 40 ranges in {forty:?}");
        assert!(
            one < Duration::from_secs(5),
            "{backend:?}: 5000 one-range rounds took {one:?}"
        );
        assert!(
            forty < Duration::from_secs(5),
            "{backend:?}: 1000 forty-range rounds took {forty:?}"
        );
    }
}

#[test]
fn rounds_reuse_threads_and_drop_joins_them() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = fast_dir();
    let len = 1 << 20;
    let (p, d) = file(dir.path(), len);
    let backends = available_backends();
    let before = io_threads();
    for backend in backends {
        let ctx = IoContext::new(IoConfig {
            backend: Some(backend),
            io_threads: 2,
            compute_threads: 3,
            queue_depth: 16,
            buffer_bytes: 1 << 20,
            ..IoConfig::default()
        })
        .unwrap();
        let set = ctx.open(&[&p]).unwrap();
        // Spawned lazily: nothing yet.
        assert_eq!(io_threads(), before, "{backend:?}: threads before the first round");
        let ranges = random_ranges(len as u64, 400, 5);
        checked_round(&ctx, &set, &[&d], &ranges);
        let want = match backend {
            BackendKind::Mmap => 2,
            _ => 2 + 2,
        };
        let during = io_threads_when(|now| now.difference(&before).count() == want);
        let spawned = during.difference(&before).count();
        assert_eq!(spawned, want, "{backend:?}: I/O threads and workers besides the caller");
        // Later rounds, small and large, run on the same threads.
        for r in 0..50 {
            checked_round(&ctx, &set, &[&d], &random_ranges(len as u64, 1 + r % 3 * 200, r as u64));
        }
        assert_eq!(io_threads(), during, "{backend:?}: the same threads serve every round");
        // A panic in `consume` leaves the threads in place and usable.
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            ctx.read_round(&set, &mut ranges.iter().copied(), &|_| panic!("consume failed"))
        }));
        assert!(r.is_err());
        checked_round(&ctx, &set, &[&d], &ranges);
        assert_eq!(io_threads(), during, "{backend:?}: threads after a panic");
        drop(set);
        drop(ctx);
        assert_eq!(
            io_threads_when(|now| now == &before),
            before,
            "{backend:?}: threads left after drop"
        );
    }
}
