//! The crate's memory mappings of files, each covered by a [`MapGuard`] so that a page that
//! cannot be accessed is an error naming the file and the byte rather than a SIGBUS that kills
//! the process: [`GuardedMmap`], a read-only mapping of a data file (the mmap backend, mapped
//! page reads), and [`MappedScratch`], a writable mapping of an unnamed scratch file with its
//! space reserved up front (the stream engine's vertex state).

use std::fs::File;
use std::path::{Path, PathBuf};

use crate::error::IoError;
use crate::sigbus::MapGuard;

/// The error of a fault recorded by `guard` in the mapping of `path`, if there was one.
fn fault_error(guard: &MapGuard, path: &Path) -> Result<(), IoError> {
    match guard.fault() {
        None => Ok(()),
        Some(f) => Err(IoError::MappedFault {
            path: path.to_path_buf(),
            offset: f.offset,
            cause: f.cause,
        }),
    }
}

/// A read-only mapping of a whole file, covered by a [`MapGuard`]: a page that cannot be read
/// reads as zeros and is recorded, and [`check`](Self::check) turns it into an error. Dereferences
/// to the mapping.
pub(crate) struct GuardedMmap {
    /// Declared first: dropped, so unregistered, before the mapping goes.
    guard: MapGuard,
    map: memmap2::Mmap,
    path: PathBuf,
}

impl GuardedMmap {
    /// Maps `file` (at `path`, which errors name) read-only.
    pub(crate) fn map(file: &File, path: &Path) -> Result<GuardedMmap, IoError> {
        // SAFETY: the mapping is read-only and graph files are immutable once published. A page
        // that cannot be read (a device error, the file cut short behind our back) faults; the
        // guard turns that fault into zeros and an error instead of a dead process.
        let map = unsafe { memmap2::Mmap::map(file) }.map_err(|source| IoError::Os {
            path: path.to_path_buf(),
            source,
        })?;
        // SAFETY: the mapping lives in `map`, dropped after the guard; readers of it ask
        // `check` before trusting what they read.
        let guard = unsafe { MapGuard::new(map.as_ptr(), map.len(), false) };
        Ok(GuardedMmap {
            guard,
            map,
            path: path.to_path_buf(),
        })
    }

    /// An error naming the file and the byte if any page of the mapping could not be read since
    /// it was mapped (what was read meanwhile was zeros there, and must be discarded).
    pub(crate) fn check(&self) -> Result<(), IoError> {
        fault_error(&self.guard, &self.path)
    }
}

impl std::ops::Deref for GuardedMmap {
    type Target = memmap2::Mmap;

    fn deref(&self) -> &memmap2::Mmap {
        &self.map
    }
}

/// A writable mapping of an unnamed scratch file of a fixed length, its disk space reserved
/// when it is created (so a full disk is an error then, not a fault on a later write) and
/// covered by a [`MapGuard`] ([`check`](Self::check)). Nothing is left on disk after it, even
/// after a crash.
pub struct MappedScratch {
    /// Declared first: dropped, so unregistered, before the mapping goes.
    guard: MapGuard,
    map: memmap2::MmapRaw,
    /// Where the file is (errors name the directory: the file has no name).
    dir: PathBuf,
}

impl MappedScratch {
    /// Creates a zero-filled scratch file of `len` bytes (more than 0) in `dir`, reserves its
    /// space and maps it read-write. Errors are the operating system's (the caller names `dir`).
    pub fn create(dir: &Path, len: u64) -> std::io::Result<MappedScratch> {
        let file = tempfile::tempfile_in(dir)?;
        file.set_len(len)?;
        match rustix::fs::fallocate(&file, rustix::fs::FallocateFlags::empty(), 0, len) {
            Ok(()) => {}
            // A file system without fallocate allocates on write, as before.
            Err(e) if e == rustix::io::Errno::OPNOTSUPP => {}
            Err(e) => return Err(e.into()),
        }
        // The file is unnamed and private to this process: nothing else maps or truncates it
        // while the mapping lives.
        let map = memmap2::MmapOptions::new().map_raw(&file)?;
        // SAFETY: the mapping lives in `map`, dropped after the guard; its owner asks `check`
        // before trusting what it read.
        let guard = unsafe { MapGuard::new(map.as_ptr(), map.len(), true) };
        Ok(MappedScratch {
            guard,
            map,
            dir: dir.to_path_buf(),
        })
    }

    /// The first byte of the mapping (page-aligned, writable, `len` bytes).
    pub fn as_mut_ptr(&self) -> *mut u8 {
        self.map.as_mut_ptr()
    }

    /// Bytes mapped.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Whether nothing is mapped (never: the length is more than 0).
    pub fn is_empty(&self) -> bool {
        self.map.len() == 0
    }

    /// An error naming the scratch directory and the byte if any page could not be read or
    /// written since the file was mapped (its contents are zeros there, and what was computed
    /// from them must be discarded).
    pub fn check(&self) -> Result<(), IoError> {
        fault_error(&self.guard, &self.dir.join("(unnamed vertex-state scratch file)"))
    }
}
