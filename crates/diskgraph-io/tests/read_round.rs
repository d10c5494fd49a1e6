//! `read_round` against plain in-memory slicing, for every backend × scheduler × block size ×
//! I/O threads × compute threads; logical lengths; errors and panics without hangs.

mod common;

use std::panic::AssertUnwindSafe;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use common::{available_backends, checked_round, random_file, random_ranges};
use diskgraph_io::{BackendKind, BufferKind, Chunk, IoConfig, IoContext, IoError, SchedulerKind};

fn config(backend: BackendKind, scheduler: SchedulerKind, block_size: u32, io: usize, compute: usize) -> IoConfig {
    IoConfig {
        backend: Some(backend),
        block_size,
        scheduler,
        io_threads: io,
        compute_threads: compute,
        queue_depth: 16,
        buffer_bytes: 512 << 10,
        max_gap_blocks: 16,
        max_request_bytes: 16 << 10,
        ..IoConfig::default()
    }
}

const _: () = {
    const fn send_sync<T: Send + Sync>() {}
    send_sync::<IoContext>();
    send_sync::<diskgraph_io::FileSet>();
};

#[test]
fn every_backend_and_scheduler_matches_memory() {
    let dir = tempfile::tempdir().unwrap();
    // Not a multiple of any block size: the last block is partial.
    let len = (1 << 20) + 1234;
    let (p0, d0) = random_file(dir.path(), "out.adj", len, 1);
    let (p1, d1) = random_file(dir.path(), "out.wgt", len, 2);
    let paths: [&Path; 2] = [&p0, &p1];
    let contents: [&[u8]; 2] = [&d0, &d1];
    let mut combos = 0;
    for backend in available_backends() {
        for scheduler in [SchedulerKind::Bitmap, SchedulerKind::Pluglist] {
            for block_size in [512, 4096] {
                for io in [1, 2] {
                    for compute in [1, 3] {
                        let ctx = IoContext::new(config(backend, scheduler, block_size, io, compute)).unwrap();
                        assert_eq!(ctx.backend(), backend, "{:?}", ctx.fallback_reason());
                        let set = ctx.open(&paths).unwrap();
                        assert_eq!(set.len(), len as u64);
                        let seed = combos as u64 * 7 + 3;
                        // Two rounds: the bitmap is reused and the stats accumulate.
                        let a = checked_round(&ctx, &set, &contents, &random_ranges(len as u64, 400, seed));
                        let b = checked_round(&ctx, &set, &contents, &random_ranges(len as u64, 50, seed + 1));
                        assert_eq!(ctx.stats().rounds, 2);
                        assert_eq!(ctx.stats().bytes_read, a.bytes_read + b.bytes_read);
                        if scheduler == SchedulerKind::Bitmap {
                            assert!(
                                a.blocks_after_dedup < a.blocks_requested,
                                "duplicates were deduplicated"
                            );
                        }
                        combos += 1;
                    }
                }
            }
        }
    }
    eprintln!("{combos} combinations checked");
}

#[test]
fn one_and_many_files() {
    let dir = tempfile::tempdir().unwrap();
    let len = 300_000;
    let files: Vec<_> = (0..6)
        .map(|i| random_file(dir.path(), &format!("f{i}"), len, 10 + i))
        .collect();
    for backend in available_backends() {
        for k in [1, 5] {
            let ctx = IoContext::new(IoConfig {
                buffer_bytes: 1 << 20,
                ..config(backend, SchedulerKind::Bitmap, 512, 2, 2)
            })
            .unwrap();
            let paths: Vec<&Path> = files[..k].iter().map(|(p, _)| p.as_path()).collect();
            let contents: Vec<&[u8]> = files[..k].iter().map(|(_, d)| d.as_slice()).collect();
            let set = ctx.open(&paths).unwrap();
            assert_eq!(set.num_files(), k);
            checked_round(&ctx, &set, &contents, &random_ranges(len as u64, 200, 99));
        }
    }
}

#[test]
fn logical_length_clamps_chunks() {
    let dir = tempfile::tempdir().unwrap();
    let (p, d) = random_file(dir.path(), "padded", 8192, 5);
    for backend in available_backends() {
        let ctx = IoContext::new(config(backend, SchedulerKind::Bitmap, 4096, 1, 2)).unwrap();
        let set = ctx.open_with_len(&[&p], 5000).unwrap();
        assert_eq!(set.len(), 5000);
        let max_end = AtomicUsize::new(0);
        ctx.read_round(&set, &mut [(4000, 5000), (0, 10)].into_iter(), &|c: Chunk<'_>| {
            assert_eq!(c.data[0], &d[c.offset as usize..c.end() as usize]);
            max_end.fetch_max(c.end() as usize, Ordering::Relaxed);
        })
        .unwrap();
        assert_eq!(max_end.load(Ordering::Relaxed), 5000);
        let err = ctx
            .read_round(&set, &mut [(4000, 5001)].into_iter(), &|_| {})
            .unwrap_err();
        assert!(
            matches!(
                err,
                IoError::OutOfRange {
                    start: 4000,
                    end: 5001,
                    len: 5000
                }
            ),
            "{err}"
        );
        // The failed round left nothing behind in the bitmap.
        let n = AtomicUsize::new(0);
        ctx.read_round(&set, &mut [(0, 1)].into_iter(), &|c: Chunk<'_>| {
            assert_eq!(c.offset, 0);
            n.fetch_add(1, Ordering::Relaxed);
        })
        .unwrap();
        assert_eq!(n.load(Ordering::Relaxed), 1);
        assert!(matches!(ctx.open_with_len(&[&p], 9000), Err(IoError::Config(_))));
    }
}

/// Runs `f` on a thread and fails if it does not finish within the limit.
fn within<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(20))
        .unwrap_or_else(|_| panic!("{what}: hung"))
}

#[test]
fn truncated_file_is_an_error_not_a_hang() {
    for backend in available_backends() {
        for (io, compute) in [(1, 1), (2, 3)] {
            let err = within("truncated read", move || {
                let dir = tempfile::tempdir().unwrap();
                let (p, _) = random_file(dir.path(), "t", 1 << 20, 3);
                let (q, _) = random_file(dir.path(), "u", 1 << 20, 4);
                let ctx = IoContext::new(config(backend, SchedulerKind::Bitmap, 512, io, compute)).unwrap();
                let set = ctx.open(&[&p, &q]).unwrap();
                std::fs::OpenOptions::new()
                    .write(true)
                    .open(&q)
                    .unwrap()
                    .set_len(100_000)
                    .unwrap();
                let ranges: Vec<(u64, u64)> = (0..200u64).map(|i| (i * 5000, i * 5000 + 3000)).collect();
                let r = ctx.read_round(&set, &mut ranges.into_iter(), &|_| {});
                // The context stays usable for what is still there.
                let ok = ctx.read_round(&set, &mut [(0, 50_000)].into_iter(), &|_| {});
                (r, ok.is_ok())
            });
            let (r, ok_after) = err;
            match r {
                Err(IoError::Os { path, source }) => {
                    assert!(path.ends_with("u"), "{backend:?}: {}", path.display());
                    assert_eq!(
                        source.kind(),
                        std::io::ErrorKind::UnexpectedEof,
                        "{backend:?}: {source}"
                    );
                }
                other => panic!("{backend:?}: expected an EOF error, got {other:?}"),
            }
            assert!(ok_after, "{backend:?}: the context still reads the untruncated part");
        }
    }
}

#[test]
fn panic_in_consume_propagates_without_hang() {
    for backend in available_backends() {
        for compute in [1, 3] {
            within("panicking consume", move || {
                let dir = tempfile::tempdir().unwrap();
                let (p, d) = random_file(dir.path(), "f", 1 << 20, 8);
                let ctx = IoContext::new(config(backend, SchedulerKind::Bitmap, 512, 2, compute)).unwrap();
                let set = ctx.open(&[&p]).unwrap();
                let ranges: Vec<(u64, u64)> = (0..500u64).map(|i| (i * 2000, i * 2000 + 100)).collect();
                let seen = AtomicUsize::new(0);
                let r = std::panic::catch_unwind(AssertUnwindSafe(|| {
                    ctx.read_round(&set, &mut ranges.clone().into_iter(), &|_| {
                        if seen.fetch_add(1, Ordering::Relaxed) == 3 {
                            panic!("consume failed");
                        }
                    })
                }));
                assert!(r.is_err(), "{backend:?}: the panic reaches the caller");
                // Every buffer came back: a full round still works.
                common::checked_round(&ctx, &set, &[&d], &ranges);
            });
        }
    }
}

#[test]
fn empty_inputs() {
    let dir = tempfile::tempdir().unwrap();
    let (p, _) = random_file(dir.path(), "f", 10_000, 8);
    let (e, _) = random_file(dir.path(), "empty", 0, 9);
    for backend in available_backends() {
        let ctx = IoContext::new(config(backend, SchedulerKind::Bitmap, 512, 1, 1)).unwrap();
        let set = ctx.open(&[&p]).unwrap();
        let called = AtomicUsize::new(0);
        let count = |_: Chunk<'_>| {
            called.fetch_add(1, Ordering::Relaxed);
        };
        ctx.read_round(&set, &mut std::iter::empty(), &count).unwrap();
        ctx.read_round(&set, &mut [(5, 5), (9, 2)].into_iter(), &count).unwrap();
        let empty = ctx.open(&[&e]).unwrap();
        assert!(empty.is_empty());
        ctx.read_round(&empty, &mut [(0, 0)].into_iter(), &count).unwrap();
        assert!(matches!(
            ctx.read_round(&empty, &mut [(0, 1)].into_iter(), &count),
            Err(IoError::OutOfRange { .. })
        ));
        let none = ctx.open(&[]).unwrap();
        ctx.read_round(&none, &mut std::iter::empty(), &count).unwrap();
        assert_eq!(called.load(Ordering::Relaxed), 0);
        assert_eq!(ctx.stats().bytes_read, 0);
        assert_eq!(ctx.stats().utility(), 1.0);
    }
}

#[test]
fn missing_file_names_the_path() {
    let ctx = IoContext::new(config(BackendKind::Pread, SchedulerKind::Bitmap, 512, 1, 1)).unwrap();
    match ctx.open(&[Path::new("/nonexistent/out.adj")]) {
        Err(IoError::Os { path, .. }) => assert_eq!(path, Path::new("/nonexistent/out.adj")),
        other => panic!("{:?}", other.err()),
    }
}

#[test]
fn settings_are_checked() {
    let bad = |c: IoConfig| matches!(IoContext::new(c), Err(IoError::Config(_)));
    let c = || IoConfig {
        max_request_bytes: 16 << 10,
        ..IoConfig::default()
    };
    assert!(bad(IoConfig {
        block_size: 1000,
        ..c()
    }));
    assert!(bad(IoConfig { block_size: 256, ..c() }));
    assert!(bad(IoConfig {
        max_request_bytes: 256,
        ..c()
    }));
    assert!(bad(IoConfig { io_threads: 0, ..c() }));
    assert!(bad(IoConfig {
        compute_threads: 0,
        ..c()
    }));
    assert!(bad(IoConfig {
        buffer_bytes: 4096,
        io_threads: 2,
        ..c()
    }));
    // Too few buffers for the files of a set is a round error, not a hang; the minimum works.
    let dir = tempfile::tempdir().unwrap();
    let (p, d) = random_file(dir.path(), "f", 100_000, 1);
    for backend in available_backends().into_iter().filter(|b| *b != BackendKind::Mmap) {
        let c = IoConfig {
            backend: Some(backend),
            io_threads: 2,
            ..c()
        };
        assert_eq!(c.buffer_size(), 16 << 10);
        assert_eq!(c.min_buffer_bytes(3), 2 * 3 * (16 << 10));
        let ctx = IoContext::new(IoConfig {
            buffer_bytes: c.min_buffer_bytes(3) - 1,
            ..c.clone()
        })
        .unwrap();
        let set = ctx.open(&[&p, &p, &p]).unwrap();
        assert!(matches!(
            ctx.read_round(&set, &mut [(0, 10)].into_iter(), &|_| {}),
            Err(IoError::Config(_))
        ));
        let ctx = IoContext::new(IoConfig {
            buffer_bytes: c.min_buffer_bytes(3),
            ..c
        })
        .unwrap();
        let set = ctx.open(&[&p, &p, &p]).unwrap();
        checked_round(&ctx, &set, &[&d, &d, &d], &random_ranges(100_000, 100, 1));
    }
}

#[test]
fn buffers_and_backend_are_reported() {
    for backend in available_backends() {
        let ctx = IoContext::new(config(backend, SchedulerKind::Bitmap, 512, 2, 1)).unwrap();
        let kind = ctx.buffer_kind();
        eprintln!("{backend:?}: buffers {kind:?}, registered {}", ctx.registered_buffers());
        match backend {
            BackendKind::Mmap => assert_eq!(kind, BufferKind::Unallocated),
            _ => assert_ne!(kind, BufferKind::Unallocated),
        }
        assert_eq!(
            ctx.registered_buffers(),
            backend == BackendKind::Uring && ctx.registered_buffers()
        );
        assert!(ctx.fallback_reason().is_none(), "{:?}", ctx.fallback_reason());
    }
    let json = serde_json::to_string(&BufferKind::Transparent).unwrap();
    assert_eq!(json, "\"transparent\"");
}

/// A file in /dev/shm (tmpfs). Kernels before 6.6 refuse O_DIRECT on tmpfs and the context
/// falls back (uring → pread, pread → buffered); newer ones accept it. Either way the bytes are
/// right and the choice is reported.
#[test]
fn tmpfs_files_read_correctly() {
    let Ok(dir) = tempfile::tempdir_in("/dev/shm") else {
        eprintln!("SKIPPING tmpfs test: /dev/shm not available");
        return;
    };
    let len = 200_000;
    let (p, d) = random_file(dir.path(), "out.adj", len, 21);
    for backend in available_backends() {
        let ctx = IoContext::new(config(backend, SchedulerKind::Bitmap, 512, 1, 2)).unwrap();
        let set = ctx.open(&[&p]).unwrap();
        if backend != BackendKind::Mmap {
            match ctx.fallback_reason() {
                Some(why) => {
                    eprintln!("tmpfs, {backend:?}: fell back: {why}");
                    assert!(!set.direct());
                    assert_eq!(ctx.backend(), BackendKind::Pread);
                }
                None => {
                    eprintln!("tmpfs, {backend:?}: this kernel supports O_DIRECT on tmpfs; no fallback needed");
                    assert!(set.direct());
                    assert_eq!(ctx.backend(), backend);
                }
            }
        }
        checked_round(&ctx, &set, &[&d], &random_ranges(len as u64, 100, 4));
    }
}

#[test]
fn tiny_pools_deep_queues_and_shared_sets() {
    let dir = tempfile::tempdir().unwrap();
    let len = 400_000;
    let (p0, d0) = random_file(dir.path(), "a", len, 31);
    let (p1, d1) = random_file(dir.path(), "b", len, 32);
    let ranges = random_ranges(len as u64, 300, 33);
    for backend in available_backends().into_iter().filter(|b| *b != BackendKind::Mmap) {
        // (buffer bytes, queue depth, I/O threads): one slot per thread up to deep queues.
        for (buffer_bytes, queue_depth, io_threads) in [(32 << 10, 1, 1), (64 << 10, 2, 2), (4 << 20, 256, 2)] {
            let c = IoConfig {
                buffer_bytes,
                queue_depth,
                io_threads,
                compute_threads: 2,
                ..config(backend, SchedulerKind::Bitmap, 512, 1, 1)
            };
            let ctx = IoContext::new(c.clone()).unwrap();
            let set = ctx.open(&[&p0, &p1]).unwrap();
            checked_round(&ctx, &set, &[&d0, &d1], &ranges);
            // The same set read through another context with other settings.
            let other = IoContext::new(IoConfig {
                block_size: 4096,
                scheduler: SchedulerKind::Pluglist,
                ..c
            })
            .unwrap();
            checked_round(&other, &set, &[&d0, &d1], &ranges);
        }
    }
}

#[test]
fn concurrent_rounds_on_one_context() {
    let dir = tempfile::tempdir().unwrap();
    let len = 300_000;
    let (p, d) = random_file(dir.path(), "a", len, 41);
    for backend in available_backends() {
        let ctx = IoContext::new(config(backend, SchedulerKind::Bitmap, 512, 2, 2)).unwrap();
        let set = ctx.open(&[&p]).unwrap();
        std::thread::scope(|s| {
            for t in 0..3 {
                let (ctx, set, d) = (&ctx, &set, &d);
                s.spawn(move || {
                    for r in 0..5 {
                        let ranges = random_ranges(len as u64, 100, t * 100 + r);
                        let bad = AtomicUsize::new(0);
                        ctx.read_round(set, &mut ranges.into_iter(), &|c: Chunk<'_>| {
                            if c.data[0] != &d[c.offset as usize..c.end() as usize] {
                                bad.fetch_add(1, Ordering::Relaxed);
                            }
                        })
                        .unwrap();
                        assert_eq!(bad.load(Ordering::Relaxed), 0);
                    }
                });
            }
        });
        assert_eq!(ctx.stats().rounds, 15);
    }
}

/// Rounds of a few runs are read inline by the calling thread (uring, pread): their errors and
/// panics behave like those of rounds read by the I/O threads.
#[test]
fn small_rounds_fail_and_panic_cleanly() {
    for backend in available_backends() {
        for (io, compute) in [(1, 1), (2, 3)] {
            within("small rounds", move || {
                let dir = tempfile::tempdir().unwrap();
                let (p, d) = random_file(dir.path(), "f", 1 << 20, 12);
                let (q, _) = random_file(dir.path(), "g", 1 << 20, 13);
                let ctx = IoContext::new(config(backend, SchedulerKind::Bitmap, 512, io, compute)).unwrap();
                let set = ctx.open(&[&p]).unwrap();
                // A panic in the second chunk of a three-run round reaches the caller ...
                let seen = AtomicUsize::new(0);
                let small = [(0u64, 100u64), (300_000, 300_100), (600_000, 600_100)];
                let r = std::panic::catch_unwind(AssertUnwindSafe(|| {
                    ctx.read_round(&set, &mut small.into_iter(), &|_| {
                        if seen.fetch_add(1, Ordering::Relaxed) == 1 {
                            panic!("consume failed");
                        }
                    })
                }));
                assert!(r.is_err(), "{backend:?}: the panic reaches the caller");
                // ... and leaves the context whole, for small and large rounds.
                for _ in 0..3 {
                    checked_round(&ctx, &set, &[&d], &small);
                    checked_round(&ctx, &set, &[&d], &random_ranges(1 << 20, 300, 14));
                }
                // A read past the end of a truncated file is an error, not a hang.
                let two = ctx.open(&[&p, &q]).unwrap();
                std::fs::OpenOptions::new()
                    .write(true)
                    .open(&q)
                    .unwrap()
                    .set_len(100_000)
                    .unwrap();
                match ctx.read_round(&two, &mut [(500_000u64, 500_100u64)].into_iter(), &|_| {}) {
                    Err(IoError::Os { path, source }) => {
                        assert!(path.ends_with("g"), "{backend:?}: {}", path.display());
                        assert_eq!(source.kind(), std::io::ErrorKind::UnexpectedEof, "{backend:?}");
                    }
                    other => panic!("{backend:?}: expected an EOF error, got {other:?}"),
                }
                ctx.read_round(&two, &mut [(0u64, 100u64)].into_iter(), &|_| {})
                    .unwrap();
                checked_round(&ctx, &set, &[&d], &small);
            });
        }
    }
}

/// A stop request set while a round is under way ends it early, on every backend, inline and on
/// the pipeline: no further read starts, the round returns [`IoError::Stopped`] having delivered
/// only part of its runs, and every later round is stopped before reading anything.
#[test]
fn a_stop_request_ends_rounds_early() {
    let dir = tempfile::tempdir().unwrap();
    let len = 4 << 20;
    let (p, _) = random_file(dir.path(), "lists", len, 21);
    // Ranges far apart: one run each, 256 of them.
    let ranges: Vec<(u64, u64)> = (0..256u64).map(|i| (i * 16384, i * 16384 + 100)).collect();
    for backend in available_backends() {
        for (io, compute) in [(1, 1), (2, 3)] {
            let ctx = IoContext::new(config(backend, SchedulerKind::Bitmap, 512, io, compute)).unwrap();
            let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
            ctx.stop_when(stop.clone());
            let set = ctx.open(&[&p]).unwrap();
            // Unset, the request changes nothing.
            let whole = AtomicUsize::new(0);
            ctx.read_round(&set, &mut ranges.iter().copied(), &|_| {
                whole.fetch_add(1, Ordering::Relaxed);
            })
            .unwrap();
            assert_eq!(whole.into_inner(), ranges.len(), "{backend:?}");
            let seen = AtomicUsize::new(0);
            let r = ctx.read_round(&set, &mut ranges.iter().copied(), &|_| {
                seen.fetch_add(1, Ordering::Relaxed);
                stop.store(true, Ordering::Relaxed);
            });
            assert!(matches!(r, Err(IoError::Stopped)), "{backend:?} io {io}: {r:?}");
            let seen = seen.into_inner();
            // The reads in flight when the request came are still delivered: a queue's worth.
            assert!(
                seen >= 1 && seen < ranges.len() / 2,
                "{backend:?} io {io}: {seen} chunks"
            );
            let later = ctx.read_round(&set, &mut ranges.iter().copied(), &|_| panic!("read after the stop"));
            assert!(matches!(later, Err(IoError::Stopped)), "{backend:?}: {later:?}");
        }
    }
}
