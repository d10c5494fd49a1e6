//! `measure_device`: a quick check that it runs, and (ignored) this machine's figures:
//! `cargo test --release -p diskgraph-io --test device -- --ignored --nocapture`.

mod common;

use diskgraph_io::{measure_device, BackendKind, IoConfig, IoContext, IoError};

fn uring_available() -> bool {
    let ctx = IoContext::new(IoConfig {
        buffer_bytes: 1 << 20,
        ..IoConfig::default()
    })
    .unwrap();
    if ctx.backend() != BackendKind::Uring {
        eprintln!(
            "SKIPPING device measurement: {}",
            ctx.fallback_reason().unwrap_or("no io_uring")
        );
        return false;
    }
    true
}

#[test]
fn measures_a_small_file() {
    if !uring_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (p, _) = common::random_file(dir.path(), "dev", 4 << 20, 1);
    // Sequential reads stop at the end of the file; random ones read what was asked.
    for (bytes, read, access, depth, random) in [
        (8 << 20, 4 << 20, 1 << 20, 4, false),
        (1 << 20, 1 << 20, 4096, 8, true),
        (64 << 10, 64 << 10, 512, 1, true),
    ] {
        let r = measure_device(&p, bytes, access, depth, random).unwrap();
        assert_eq!(r.requests, read / access as u64);
        assert_eq!(r.bytes, read);
        assert!(r.bytes_per_second > 0.0 && r.iops > 0.0);
    }
    assert!(matches!(
        measure_device(&p, 1 << 20, 1000, 1, false),
        Err(IoError::Config(_))
    ));
    assert!(matches!(
        measure_device(&p, 1 << 20, 4096, 0, false),
        Err(IoError::Config(_))
    ));
    assert!(matches!(
        measure_device(&dir.path().join("none"), 1 << 20, 4096, 1, false),
        Err(IoError::Os { .. })
    ));
}

#[test]
#[ignore = "writes 1 GiB and reads for about 20 s; run by hand to measure the device"]
fn this_machine() {
    if !uring_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("device.bin");
    {
        use std::io::Write;
        let mut f = std::fs::File::create(&path).unwrap();
        let mut rng = common::Rng(42);
        let block: Vec<u8> = (0..1 << 20).map(|_| rng.next() as u8).collect();
        for _ in 0..1024 {
            f.write_all(&block).unwrap();
        }
        f.sync_all().unwrap();
    }
    for (what, bytes, access, depth, random) in [
        ("sequential 1 MiB", 1u64 << 30, 1usize << 20, 1u32, false),
        ("sequential 1 MiB", 1 << 30, 1 << 20, 64, false),
        ("random 4 KiB", 200 << 20, 4096, 1, true),
        ("random 4 KiB", 1 << 30, 4096, 64, true),
    ] {
        let r = measure_device(&path, bytes, access, depth, random).unwrap();
        println!(
            "{what:<18} QD{depth:<3} {:>8.1} MB/s {:>9.0} IOPS",
            r.bytes_per_second / 1e6,
            r.iops
        );
    }
}
