use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::{BackendKind, BitmapScheduler, IoConfig, IoStats};

/// An I/O fault, naming the file.
#[derive(Debug, thiserror::Error)]
pub enum IoError {
    /// An operating-system error on a file.
    #[error("{}: {source}", path.display())]
    Os {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// A setting the backend cannot honour.
    #[error("{0}")]
    Config(String),
}

/// Files read together with identical runs (e.g. `out.adj` and `out.wgt`).
pub struct FileSet {
    files: Vec<(PathBuf, File)>,
    len: u64,
}

impl FileSet {
    /// Length in bytes of the first file (all files are read over the same byte ranges).
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the files are empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// One completed read: the same byte range of every file of the set.
pub struct Chunk<'a> {
    /// Byte offset of `data[i][0]` in file `i`.
    pub offset: u64,
    /// The bytes, one slice per file of the set, all of the same length.
    pub data: &'a [&'a [u8]],
}

/// Reads rounds of byte ranges through the scheduler and a backend.
pub struct IoContext {
    config: IoConfig,
    stats: Mutex<IoStats>,
}

impl IoContext {
    /// Opens a context with `config`.
    pub fn new(config: IoConfig) -> Result<Self, IoError> {
        if !config.block_size.is_power_of_two() || !(512..=65536).contains(&config.block_size) {
            return Err(IoError::Config(format!("block size {} is not a power of two in 512..=65536", config.block_size)));
        }
        if config.max_request_bytes < config.block_size {
            return Err(IoError::Config("max request must hold at least one block".into()));
        }
        Ok(IoContext { config, stats: Mutex::new(IoStats::default()) })
    }

    /// The backend in use.
    pub fn backend(&self) -> BackendKind {
        BackendKind::Pread
    }

    /// The settings.
    pub fn config(&self) -> &IoConfig {
        &self.config
    }

    /// Opens files to be read together; their lengths are their logical lengths in bytes.
    pub fn open(&self, paths: &[&Path]) -> Result<FileSet, IoError> {
        let mut files = Vec::new();
        for p in paths {
            let f = File::open(p).map_err(|source| IoError::Os { path: p.to_path_buf(), source })?;
            files.push((p.to_path_buf(), f));
        }
        let len = match files.first() {
            Some((p, f)) => f.metadata().map_err(|source| IoError::Os { path: p.clone(), source })?.len(),
            None => 0,
        };
        Ok(FileSet { files, len })
    }

    /// Reads every byte range of one round and calls `consume` with each completed chunk.
    /// Chunks cover the ranges (and possibly gap bytes between them); a range may be split
    /// across several chunks.
    pub fn read_round(
        &self,
        set: &FileSet,
        ranges: &mut dyn Iterator<Item = (u64, u64)>,
        consume: &(dyn Fn(Chunk<'_>) + Sync),
    ) -> Result<(), IoError> {
        let c = &self.config;
        let mut sched = BitmapScheduler::new(set.len, c.block_size, c.max_gap_blocks, c.max_request_bytes);
        let mut useful = 0;
        for (a, b) in ranges {
            useful += b.saturating_sub(a);
            sched.add(a, b.min(set.len));
        }
        let requested = sched.blocks_requested();
        let runs = sched.drain();
        let mut bufs: Vec<Vec<u8>> = vec![Vec::new(); set.files.len()];
        let mut bytes = 0;
        for run in &runs {
            let (start, end) = run.byte_range(c.block_size);
            let end = end.min(set.len);
            for ((path, f), buf) in set.files.iter().zip(&mut bufs) {
                buf.resize((end - start) as usize, 0);
                f.read_exact_at(buf, start).map_err(|source| IoError::Os { path: path.clone(), source })?;
                bytes += end - start;
            }
            let slices: Vec<&[u8]> = bufs.iter().map(|b| b.as_slice()).collect();
            consume(Chunk { offset: start, data: &slices });
        }
        let mut s = self.stats.lock().expect("stats lock");
        s.bytes_read += bytes;
        s.requests += runs.len() as u64 * set.files.len() as u64;
        s.blocks_requested += requested;
        s.blocks_after_dedup += runs.iter().map(|r| r.num_blocks).sum::<u64>();
        s.merged_runs += runs.len() as u64;
        s.useful_bytes += useful * set.files.len() as u64;
        Ok(())
    }

    /// Counters so far.
    pub fn stats(&self) -> IoStats {
        self.stats.lock().expect("stats lock").clone()
    }
}
