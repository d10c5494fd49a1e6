//! Prints this machine's raw device rates through io_uring + O_DIRECT: sequential 1 MiB reads
//! and random 4 KiB / 512 B reads, at queue depths 1 and 64.
//!
//! `cargo run --release -p diskgraph-io --example measure_device [FILE [SIZE_MIB]]`
//!
//! Without FILE, a scratch file of SIZE_MIB (default 2048) MiB is written to the system temp
//! directory and removed afterwards. Reads bypass the page cache (O_DIRECT), but not a cache
//! below the guest (a VM's host), so use a file larger than that cache for cold figures.

use std::io::Write;
use std::path::PathBuf;

use diskgraph_io::{measure_device, DeviceRate};

fn show(what: &str, r: &DeviceRate) {
    println!(
        "{what:<28} QD{:<3} {:>9.1} MB/s {:>10.0} IOPS  ({} reads in {:.2} s)",
        r.depth,
        r.bytes_per_second / 1e6,
        r.iops,
        r.requests,
        r.seconds
    );
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let size_mib: u64 = args.get(1).map(|s| s.parse()).transpose()?.unwrap_or(2048);
    let (path, scratch) = match args.first() {
        Some(p) => (PathBuf::from(p), false),
        None => {
            let path = std::env::temp_dir().join(format!("diskgraph-measure-{}", std::process::id()));
            eprintln!("writing {size_mib} MiB to {} ...", path.display());
            let mut f = std::fs::File::create(&path)?;
            let mut block = vec![0u8; 1 << 20];
            let mut x = 0x1234_5678_9abc_def1u64;
            for _ in 0..size_mib {
                for b in block.chunks_mut(8) {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    b.copy_from_slice(&x.to_le_bytes());
                }
                f.write_all(&block)?;
            }
            f.sync_all()?;
            (path, true)
        }
    };
    let len = std::fs::metadata(&path)?.len();
    let result = (|| -> Result<(), diskgraph_io::IoError> {
        for depth in [1, 64] {
            show(
                "sequential 1 MiB",
                &measure_device(&path, len.min(4 << 30), 1 << 20, depth, false)?,
            );
        }
        show("random 4 KiB", &measure_device(&path, 400 << 20, 4096, 1, true)?);
        show("random 4 KiB", &measure_device(&path, 2 << 30, 4096, 64, true)?);
        show("random 512 B", &measure_device(&path, 50 << 20, 512, 1, true)?);
        show("random 512 B", &measure_device(&path, 300 << 20, 512, 64, true)?);
        Ok(())
    })();
    if scratch {
        std::fs::remove_file(&path)?;
    }
    result?;
    Ok(())
}
