//! The fallback paths, forced with the simulation hook (its own test binary, so the variable
//! affects no other test): io_uring unavailable, O_DIRECT refused, no hugepages.

mod common;

use common::{checked_round, random_file, random_ranges};
use diskgraph_io::{BackendKind, BufferKind, IoConfig, IoContext, SchedulerKind, SIMULATE_ENV};

#[test]
fn simulated_failures_fall_back_and_say_why() {
    // The only test of this binary: nothing else reads the environment concurrently.
    std::env::set_var(SIMULATE_ENV, "no-uring,no-direct,no-hugetlb");
    let dir = tempfile::tempdir().unwrap();
    let len = 300_000;
    let (p, d) = random_file(dir.path(), "out.adj", len, 1);
    let ranges = random_ranges(len as u64, 200, 2);
    let small = |backend| IoConfig {
        backend,
        buffer_bytes: 1 << 20,
        io_threads: 2,
        ..IoConfig::default()
    };

    // Default and explicit uring: pread, with the reason.
    for backend in [None, Some(BackendKind::Uring)] {
        let ctx = IoContext::new(small(backend)).unwrap();
        assert_eq!(ctx.backend(), BackendKind::Pread);
        let why = ctx.fallback_reason().expect("a reason");
        assert!(why.contains("io_uring unavailable"), "{why}");
        assert_ne!(ctx.buffer_kind(), BufferKind::Hugetlb);
        assert!(!ctx.registered_buffers());
        let set = ctx.open(&[&p]).unwrap();
        assert!(!set.direct(), "O_DIRECT refused: buffered");
        for scheduler in [SchedulerKind::Bitmap, SchedulerKind::Pluglist] {
            let ctx = IoContext::new(IoConfig {
                scheduler,
                ..small(backend)
            })
            .unwrap();
            let set = ctx.open(&[&p]).unwrap();
            checked_round(&ctx, &set, &[&d], &ranges);
        }
    }

    // pread asked for: no backend fallback, but buffered reads are recorded.
    let ctx = IoContext::new(small(Some(BackendKind::Pread))).unwrap();
    assert!(ctx.fallback_reason().is_none());
    let set = ctx.open(&[&p]).unwrap();
    assert!(!set.direct());
    let why = ctx.fallback_reason().expect("buffered fallback recorded");
    assert!(why.contains("O_DIRECT") && why.contains("buffered pread"), "{why}");
    checked_round(&ctx, &set, &[&d], &ranges);

    std::env::remove_var(SIMULATE_ENV);
    // Without the simulation, O_DIRECT on the same file system is back (where supported).
    let ctx = IoContext::new(small(Some(BackendKind::Pread))).unwrap();
    let set = ctx.open(&[&p]).unwrap();
    eprintln!("direct I/O on {}: {}", dir.path().display(), set.direct());
    checked_round(&ctx, &set, &[&d], &ranges);
}
