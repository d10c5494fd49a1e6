//! The sequential reader's fallbacks, forced with the simulation hook (its own test binary, so
//! the variable affects no other test): io_uring unavailable and O_DIRECT refused.

mod common;

use common::random_file;
use diskgraph_io::{BackendKind, IoError, ReadRequest, SequentialConfig, SequentialReader, SIMULATE_ENV};

#[test]
fn simulated_failures_fall_back_to_buffered_pread() {
    // The only test of this binary: nothing else reads the environment concurrently.
    std::env::set_var(SIMULATE_ENV, "no-uring,no-direct");
    let dir = tempfile::tempdir().unwrap();
    let (path, data) = random_file(dir.path(), "edges.bin", 100_000, 3);
    let reader = SequentialReader::open(&[(&path, 30_000)], &SequentialConfig::default()).unwrap();
    assert_eq!(reader.backend(), BackendKind::Pread);
    assert!(!reader.direct());
    let why = reader.fallback_reason().expect("a reason");
    assert!(why.contains("io_uring unavailable"), "{why}");
    let reqs: Vec<ReadRequest> = [0..30_000u64, 30_000..60_000, 60_000..90_000, 90_000..100_000]
        .into_iter()
        .map(ReadRequest::from)
        .collect();
    let mut got = Vec::new();
    reader
        .read(&reqs, |_, d| -> Result<(), IoError> {
            got.extend_from_slice(d[0]);
            Ok(())
        })
        .unwrap();
    assert_eq!(got, data);
}
