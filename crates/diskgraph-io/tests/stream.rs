//! The sequential reader: requests delivered in order with exactly the bytes asked for, by both
//! backends, inline and pipelined, with errors (bad requests, a failing consumer, a panicking
//! one) stopping the loader cleanly and leaving the reader usable.

mod common;

use std::ops::Range;

use common::{random_file, Rng};
use diskgraph_io::{BackendKind, IoError, ReadRequest, SequentialConfig, SequentialReader};

fn config(backend: Option<BackendKind>) -> SequentialConfig {
    SequentialConfig {
        backend,
        slots: 3,
        queue_depth: 4,
        read_bytes: 8192,
    }
}

/// Requests over two files of different record widths (8 and 4 bytes, as edges and weights):
/// consecutive, skipping ahead, repeating, empty, up to the capacity, ending at the end.
fn requests(len: u64, cap: u64, n: usize, seed: u64) -> Vec<ReadRequest> {
    let mut rng = Rng(seed | 1);
    let records = len / 8;
    let mut at = 0u64;
    (0..n)
        .map(|i| {
            let count = match i % 5 {
                0 => cap / 8,
                1 => 0,
                _ => rng.below(cap / 8 + 1),
            }
            .min(records - at.min(records));
            let r = at..at + count;
            at = match rng.below(4) {
                0 => rng.below(records),
                _ => (r.end + rng.below(3)).min(records),
            };
            ReadRequest {
                ranges: vec![8 * r.start..8 * r.end, 4 * r.start..4 * r.end],
            }
        })
        .collect()
}

fn backends() -> Vec<Option<BackendKind>> {
    vec![None, Some(BackendKind::Pread)]
}

#[test]
fn delivers_every_request_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let len = 1 << 20;
    let (edges, e) = random_file(dir.path(), "edges.bin", len, 1);
    let (weights, w) = random_file(dir.path(), "weights.f32", len / 2, 2);
    let cap = 40_000;
    for backend in backends() {
        let reader = SequentialReader::open(&[(&edges, cap), (&weights, cap / 2)], &config(backend)).unwrap();
        assert!(reader.buffer_bytes() >= 3 * (cap + cap / 2));
        for (n, seed) in [(1, 3), (2, 4), (60, 5)] {
            let reqs = requests(len as u64, cap, n, seed);
            let mut next = 0;
            let stats = reader
                .read(&reqs, |i, data| -> Result<(), IoError> {
                    assert_eq!(i, next, "in order");
                    next += 1;
                    let slice = |r: &Range<u64>, d: &[u8]| d[r.start as usize..r.end as usize].to_vec();
                    assert_eq!(data[0], &slice(&reqs[i].ranges[0], &e)[..], "{backend:?} request {i}");
                    assert_eq!(data[1], &slice(&reqs[i].ranges[1], &w)[..], "{backend:?} request {i}");
                    Ok(())
                })
                .unwrap();
            assert_eq!(next, n);
            let useful: u64 = reqs.iter().flat_map(|r| &r.ranges).map(|r| r.end - r.start).sum();
            assert_eq!(stats.useful_bytes, useful);
            assert!(stats.bytes_read >= useful && stats.delivered == n as u64);
            assert!(useful == 0 || (stats.requests > 0 && stats.io_seconds > 0.0));
        }
        assert!(reader.totals().delivered == 63);
    }
}

#[test]
fn errors_stop_the_loader_and_the_reader_stays_usable() {
    let dir = tempfile::tempdir().unwrap();
    let len = 1 << 19;
    let (path, data) = random_file(dir.path(), "edges.bin", len, 7);
    let cap = 16_384;
    for backend in backends() {
        let reader = SequentialReader::open(&[(&path, cap)], &config(backend)).unwrap();
        let whole: Vec<ReadRequest> = (0..len as u64 / cap)
            .map(|k| ReadRequest::from(k * cap..(k + 1) * cap))
            .collect();
        // A consumer error stops the reads and comes back.
        let mut seen = 0;
        let r = reader.read(&whole, |i, _| {
            seen += 1;
            if i == 5 {
                Err(IoError::Config("stop".into()))
            } else {
                Ok(())
            }
        });
        assert!(matches!(r, Err(IoError::Config(m)) if m == "stop"));
        assert_eq!(seen, 6);
        // A panic too.
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            reader.read(&whole, |i, _| -> Result<(), IoError> {
                assert!(i < 3, "boom");
                Ok(())
            })
        }));
        assert!(caught.is_err());
        // Bad requests are refused before anything is read.
        let long = [ReadRequest::from(0..cap + 8), ReadRequest::from(0..8)];
        assert!(matches!(
            reader.read(&long, |_, _| Ok::<(), IoError>(())),
            Err(IoError::Config(_))
        ));
        let past = [ReadRequest::from(len as u64 - 8..len as u64 + 8)];
        assert!(matches!(
            reader.read(&past, |_, _| Ok::<(), IoError>(())),
            Err(IoError::OutOfRange { .. })
        ));
        let two = [ReadRequest {
            ranges: vec![0..8, 0..8],
        }];
        assert!(matches!(
            reader.read(&two, |_, _| Ok::<(), IoError>(())),
            Err(IoError::Config(_))
        ));
        // Still reads everything.
        let mut got = Vec::new();
        reader
            .read(&whole, |_, d| -> Result<(), IoError> {
                got.extend_from_slice(d[0]);
                Ok(())
            })
            .unwrap();
        assert_eq!(got, data);
    }
}

#[test]
fn bad_settings_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (path, _) = random_file(dir.path(), "f", 4096, 1);
    let open = |c: SequentialConfig| SequentialReader::open(&[(&path, 4096)], &c);
    assert!(open(SequentialConfig {
        backend: Some(BackendKind::Mmap),
        ..config(None)
    })
    .is_err());
    assert!(open(SequentialConfig {
        slots: 1,
        ..config(None)
    })
    .is_err());
    assert!(open(SequentialConfig {
        read_bytes: 1000,
        ..config(None)
    })
    .is_err());
    assert!(SequentialReader::open(&[], &config(None)).is_err());
    assert!(SequentialReader::open(&[(&dir.path().join("missing"), 8)], &config(None)).is_err());
}
