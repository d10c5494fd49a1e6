//! `diskgraph device FILE`: the device's own read rate for an access size, queue depth and
//! pattern, measured with O_DIRECT reads through io_uring — the baseline every I/O figure of
//! the benchmarks is compared with.

use std::path::PathBuf;

use anyhow::Result;

use diskgraph_engine::parse_size;

/// Bytes per read unless `--access` says otherwise (also the run report's measurement).
pub const ACCESS: usize = 4096;
/// Reads in flight unless `--depth` says otherwise (also the run report's measurement).
pub const DEPTH: u32 = 64;

/// Arguments of `diskgraph device`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// A large file on the device (a graph's `out.adj`, say).
    file: PathBuf,
    /// Bytes per read (a multiple of 512).
    #[arg(long, default_value_t = ACCESS as u64, value_parser = parse_size)]
    access: u64,
    /// Reads in flight.
    #[arg(long, default_value_t = DEPTH)]
    depth: u32,
    /// Random offsets instead of sequential.
    #[arg(long)]
    random: bool,
    /// Bytes to read in total (at most the file's size for sequential reads).
    #[arg(long, default_value = "1GiB", value_parser = parse_size)]
    bytes: u64,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(a: Args) -> Result<()> {
    let rate = diskgraph_io::measure_device(&a.file, a.bytes, a.access as usize, a.depth, a.random)?;
    if a.json {
        println!("{}", serde_json::to_string(&rate)?);
    } else {
        println!(
            "{}: {} {} B reads at depth {}: {:.1} MB/s, {:.0} IOPS ({} reads in {:.2} s)",
            a.file.display(),
            if a.random { "random" } else { "sequential" },
            a.access,
            a.depth,
            rate.bytes_per_second / 1e6,
            rate.iops,
            rate.requests,
            rate.seconds
        );
    }
    Ok(())
}
