//! Data files as the format stores them: little-endian arrays padded with zero bytes to a
//! multiple of [`PAGE`], recorded by their logical length. Size checks, checksums and reads of
//! element ranges shared by every reader of the crate.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use diskgraph_io::faults::read_exact_at;
use diskgraph_io::IoError;
use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::Xxh3;

use crate::cancel::Cancel;
use crate::error::FormatError;
use crate::input::{file_len, open_file};

/// Every data file is padded with zero bytes to a multiple of this many bytes.
pub const PAGE: u64 = 4096;

/// Read buffer of [`hash_file`].
const HASH_CHUNK: usize = 4 << 20;

/// One data file as a manifest or a layout's metadata records it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileEntry {
    /// Logical length in bytes (before padding).
    pub len: u64,
    /// xxh3-64 of the logical bytes, 16 lowercase hex digits.
    pub xxh3: String,
}

impl FileEntry {
    /// Checks the file at `path` against the entry: its checksum, and zero padding. Polls
    /// `cancel` once per read of [`HASH_CHUNK`] bytes.
    pub(crate) fn check_content(&self, path: &Path, cancel: &Cancel) -> Result<(), FormatError> {
        let actual = hash_file(path, self.len, cancel)?;
        if actual != self.xxh3 {
            return Err(FormatError::Checksum {
                path: path.to_path_buf(),
                expected: self.xxh3.clone(),
                actual,
            });
        }
        Ok(())
    }
}

/// Checks a list of data files: exactly the `required` ones, each of the length
/// `expected_len` gives it (any length where it gives none) and with a checksum of 16 hex
/// digits.
pub(crate) fn check_file_list(
    files: &BTreeMap<String, FileEntry>,
    required: &[&str],
    expected_len: impl Fn(&str) -> Option<u64>,
) -> Result<(), String> {
    for &name in required {
        let entry = files.get(name).ok_or_else(|| format!("file {name} is not listed"))?;
        if let Some(want) = expected_len(name).filter(|&want| want != entry.len) {
            return Err(format!("{name} has length {}, counts imply {want}", entry.len));
        }
        if entry.xxh3.len() != 16 || !entry.xxh3.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(format!("{name} has a malformed checksum {:?}", entry.xxh3));
        }
    }
    match files.keys().find(|k| !required.contains(&k.as_str())) {
        Some(extra) => Err(format!("unexpected file {extra} listed")),
        None => Ok(()),
    }
}

/// `len` rounded up to a multiple of [`PAGE`] (saturating: a length no file can have stays one).
pub fn padded_len(len: u64) -> u64 {
    len.div_ceil(PAGE).saturating_mul(PAGE)
}

/// Checks that `path` has the padded size of logical length `len`.
pub(crate) fn check_size(path: &Path, len: u64) -> Result<(), FormatError> {
    let actual = file_len(path)?;
    let expected = padded_len(len);
    if actual != expected {
        return Err(FormatError::FileSize {
            path: path.to_path_buf(),
            expected,
            actual,
            logical: len,
        });
    }
    Ok(())
}

/// Checks that `path`, through any symlinks, resolves to a place inside the directory whose
/// canonical path is `root`.
pub(crate) fn check_inside(root: &Path, path: &Path) -> Result<(), FormatError> {
    let target = std::fs::canonicalize(path).map_err(|e| FormatError::io(path, e))?;
    if target.starts_with(root) {
        return Ok(());
    }
    Err(FormatError::OutsideGraph {
        path: path.to_path_buf(),
        target,
    })
}

/// Bytes a stoppable load ([`read_range_stoppable`]) reads between two polls of its stop flag:
/// a few hundredths of a second at a device's or the page cache's sequential rate.
pub const LOAD_PIECE_BYTES: usize = 64 << 20;

/// Reads elements `range` of a file of `T`s (under the I/O layer's fault plan; an error names
/// the file and the byte).
pub fn read_range<T: bytemuck::Pod>(path: &Path, range: Range<u64>) -> Result<Vec<T>, FormatError> {
    read_range_stoppable(path, range, &AtomicBool::new(false))
}

/// [`read_range`] in pieces of [`LOAD_PIECE_BYTES`], polling `stop` (a run's stop request)
/// before each: once it is set, the read ends with [`IoError::Stopped`] (as
/// [`FormatError::Read`]).
pub fn read_range_stoppable<T: bytemuck::Pod>(
    path: &Path,
    range: Range<u64>,
    stop: &AtomicBool,
) -> Result<Vec<T>, FormatError> {
    let size = std::mem::size_of::<T>() as u64;
    let mut values = vec![T::zeroed(); (range.end - range.start) as usize];
    let f = open_file(path)?;
    let mut at = range.start * size;
    for piece in bytemuck::cast_slice_mut::<T, u8>(&mut values).chunks_mut(LOAD_PIECE_BYTES) {
        if stop.load(Ordering::Relaxed) {
            return Err(FormatError::Read(IoError::Stopped));
        }
        read_exact_at(&f, path, piece, at).map_err(|e| FormatError::io(path, e))?;
        at += piece.len() as u64;
    }
    Ok(values)
}

/// xxh3 of the first `len` bytes of `path` as 16 lowercase hex digits, checking that the padding
/// after them is zero; [`Interrupted`](crate::Interrupted) once `cancel` is set (polled before
/// each read).
pub(crate) fn hash_file(path: &Path, len: u64, cancel: &Cancel) -> Result<String, FormatError> {
    let f = open_file(path)?;
    let mut hasher = Xxh3::new();
    let mut buf = vec![0u8; HASH_CHUNK];
    let mut pos = 0u64;
    let total = padded_len(len);
    while pos < total {
        cancel.check()?;
        let want = ((total - pos) as usize).min(HASH_CHUNK);
        read_exact_at(&f, path, &mut buf[..want], pos).map_err(|e| FormatError::io(path, e))?;
        let logical = (len.saturating_sub(pos) as usize).min(want);
        hasher.update(&buf[..logical]);
        if let Some(i) = buf[logical..want].iter().position(|&b| b != 0) {
            return Err(FormatError::Padding {
                path: path.to_path_buf(),
                offset: pos + (logical + i) as u64,
            });
        }
        pos += want as u64;
    }
    Ok(format!("{:016x}", hasher.digest()))
}

/// Reads an offset index of `count` (at least one) entries and checks it: 0 first, never
/// decreasing, `last` last.
pub(crate) fn read_offsets(path: &Path, count: usize, last: u64) -> Result<Vec<u64>, FormatError> {
    read_offsets_stoppable(path, count, last, &AtomicBool::new(false))
}

/// [`read_offsets`], the read polling `stop` as [`read_range_stoppable`] does.
pub(crate) fn read_offsets_stoppable(
    path: &Path,
    count: usize,
    last: u64,
    stop: &AtomicBool,
) -> Result<Vec<u64>, FormatError> {
    let index: Vec<u64> = read_range_stoppable(path, 0..count as u64, stop)?;
    let bad = |entry: usize, reason: String| FormatError::Index {
        path: path.to_path_buf(),
        entry: entry as u64,
        reason,
    };
    if index[0] != 0 {
        return Err(bad(0, format!("first offset is {}, expected 0", index[0])));
    }
    if let Some(i) = index.windows(2).position(|w| w[1] < w[0]) {
        return Err(bad(
            i + 1,
            format!("offset {} is below the previous {}", index[i + 1], index[i]),
        ));
    }
    if index[count - 1] != last {
        return Err(bad(
            count - 1,
            format!("last offset {} != num_arcs {last}", index[count - 1]),
        ));
    }
    Ok(index)
}
