//! External merge sort of fixed-size records under a memory budget.
//!
//! Records accumulate in one buffer of at most `memory` bytes; a full buffer is sorted in
//! parallel (rayon), optionally deduplicated, and spilled as a run file. `finish` merges the
//! runs with a k-way heap merge, each run read through its own buffer, so peak memory stays near
//! the budget whatever the input size. With no spill the records never leave memory.

use std::cmp::Reverse;
use std::collections::binary_heap::PeekMut;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use bytemuck::Pod;
use rayon::slice::ParallelSliceMut;

/// Smallest read buffer per run during the merge.
const MIN_RUN_BUFFER: usize = 64 << 10;
/// Largest read buffer per run during the merge.
const MAX_RUN_BUFFER: usize = 4 << 20;

/// Sorts records of type `T` (ordered by their `Ord`) with bounded memory.
pub struct ExternalSorter<T> {
    buf: Vec<T>,
    capacity: usize,
    memory: usize,
    dir: PathBuf,
    name: String,
    runs: Vec<PathBuf>,
    dedup: Option<fn(&T, &T) -> bool>,
    bytes_written: u64,
}

impl<T: Pod + Ord + Send> ExternalSorter<T> {
    /// A sorter whose buffer holds `memory` bytes and whose runs go to `dir/name.runN`.
    /// With `dedup`, records equal under it are collapsed to the first (smallest) one when a
    /// buffer is spilled; the merged output may still hold such neighbours from different runs.
    pub fn new(dir: &Path, name: &str, memory: usize, dedup: Option<fn(&T, &T) -> bool>) -> Self {
        let capacity = (memory / std::mem::size_of::<T>()).max(1024);
        ExternalSorter {
            buf: Vec::new(),
            capacity,
            memory,
            dir: dir.to_path_buf(),
            name: name.to_string(),
            runs: Vec::new(),
            dedup,
            bytes_written: 0,
        }
    }

    /// Adds one record, spilling a run when the buffer is full.
    pub fn push(&mut self, record: T) -> std::io::Result<()> {
        if self.buf.len() == self.capacity {
            self.spill()?;
        }
        if self.buf.capacity() == 0 {
            self.buf.reserve_exact(self.capacity);
        }
        self.buf.push(record);
        Ok(())
    }

    /// Bytes written to run files so far.
    pub fn bytes_written(&self) -> u64 {
        self.bytes_written
    }

    fn sort_buffer(&mut self) {
        self.buf.par_sort_unstable();
        if let Some(same) = self.dedup {
            self.buf.dedup_by(|b, a| same(a, b));
        }
    }

    fn spill(&mut self) -> std::io::Result<()> {
        self.sort_buffer();
        let path = self.dir.join(format!("{}.run{}", self.name, self.runs.len()));
        let mut w = BufWriter::with_capacity(1 << 20, File::create(&path)?);
        w.write_all(bytemuck::cast_slice(&self.buf))?;
        w.into_inner().map_err(|e| e.into_error())?.sync_data()?;
        self.bytes_written += (self.buf.len() * std::mem::size_of::<T>()) as u64;
        self.runs.push(path);
        self.buf.clear();
        Ok(())
    }

    /// Ends input and returns the records in ascending order.
    pub fn finish(mut self) -> std::io::Result<Sorted<T>> {
        if self.runs.is_empty() {
            self.sort_buffer();
            return Ok(Sorted {
                source: Source::Memory(std::mem::take(&mut self.buf).into_iter()),
                bytes_written: 0,
            });
        }
        if !self.buf.is_empty() {
            self.spill()?;
        }
        self.buf = Vec::new();
        let per_run = (self.memory / self.runs.len()).clamp(MIN_RUN_BUFFER, MAX_RUN_BUFFER);
        let mut readers = Vec::with_capacity(self.runs.len());
        for path in &self.runs {
            readers.push(RunReader::open(path, per_run)?);
        }
        let mut heap = BinaryHeap::with_capacity(readers.len());
        for (i, r) in readers.iter_mut().enumerate() {
            if let Some(x) = r.next()? {
                heap.push(Reverse((x, i)));
            }
        }
        Ok(Sorted {
            source: Source::Merge { readers, heap },
            bytes_written: self.bytes_written,
        })
    }
}

/// The sorted output of an [`ExternalSorter`].
pub struct Sorted<T> {
    source: Source<T>,
    bytes_written: u64,
}

enum Source<T> {
    Memory(std::vec::IntoIter<T>),
    Merge {
        readers: Vec<RunReader<T>>,
        heap: BinaryHeap<Reverse<(T, usize)>>,
    },
}

impl<T: Pod + Ord> Sorted<T> {
    /// The next record in order, or `None` at the end.
    #[allow(clippy::should_implement_trait)] // fallible; an Iterator of Results reads worse at call sites
    pub fn next(&mut self) -> std::io::Result<Option<T>> {
        match &mut self.source {
            Source::Memory(it) => Ok(it.next()),
            Source::Merge { readers, heap } => {
                // Replace the top in place (one sift-down) rather than pop and push (two).
                let Some(mut top) = heap.peek_mut() else {
                    return Ok(None);
                };
                let Reverse((x, i)) = *top;
                match readers[i].next()? {
                    Some(y) => *top = Reverse((y, i)),
                    None => drop(PeekMut::pop(top)),
                }
                Ok(Some(x))
            }
        }
    }

    /// Bytes the sorter wrote to run files.
    pub fn bytes_written(&self) -> u64 {
        self.bytes_written
    }
}

/// Reads one run file back in large chunks; deletes it when done.
struct RunReader<T> {
    path: PathBuf,
    file: Option<File>,
    buf: Vec<T>,
    pos: usize,
}

impl<T: Pod> RunReader<T> {
    fn open(path: &Path, bytes: usize) -> std::io::Result<Self> {
        let records = (bytes / std::mem::size_of::<T>()).max(1);
        Ok(RunReader {
            path: path.to_path_buf(),
            file: Some(File::open(path)?),
            buf: Vec::with_capacity(records),
            pos: 0,
        })
    }

    fn next(&mut self) -> std::io::Result<Option<T>> {
        if self.pos == self.buf.len() && !self.refill()? {
            return Ok(None);
        }
        self.pos += 1;
        Ok(Some(self.buf[self.pos - 1]))
    }

    fn refill(&mut self) -> std::io::Result<bool> {
        let Some(file) = &mut self.file else { return Ok(false) };
        let cap = self.buf.capacity();
        self.buf.resize(cap, T::zeroed());
        let bytes: &mut [u8] = bytemuck::cast_slice_mut(&mut self.buf);
        let mut filled = 0;
        while filled < bytes.len() {
            match file.read(&mut bytes[filled..])? {
                0 => break,
                n => filled += n,
            }
        }
        let size = std::mem::size_of::<T>();
        if filled % size != 0 {
            return Err(std::io::Error::other(format!(
                "{}: run file ends mid-record",
                self.path.display()
            )));
        }
        self.buf.truncate(filled / size);
        self.pos = 0;
        if filled == 0 {
            self.file = None;
            let _ = std::fs::remove_file(&self.path);
            return Ok(false);
        }
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_across_many_runs_and_in_memory() {
        let dir = tempfile::tempdir().unwrap();
        for memory in [8 << 10, 1 << 30] {
            let mut s = ExternalSorter::<u64>::new(dir.path(), "t", memory, None);
            let mut want = Vec::new();
            let mut x = 12345u64;
            for _ in 0..100_000 {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                want.push(x >> 40);
                s.push(x >> 40).unwrap();
            }
            want.sort_unstable();
            let mut out = s.finish().unwrap();
            let mut got = Vec::new();
            while let Some(v) = out.next().unwrap() {
                got.push(v);
            }
            assert_eq!(got, want);
        }
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            0,
            "run files are removed once read"
        );
    }

    #[test]
    fn dedup_at_spill_keeps_first() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = ExternalSorter::<u64>::new(dir.path(), "d", 8 << 10, Some(|a, b| a == b));
        for i in 0..50_000u64 {
            s.push(i % 100).unwrap();
        }
        let mut out = s.finish().unwrap();
        let mut got = Vec::new();
        while let Some(v) = out.next().unwrap() {
            got.push(v);
        }
        assert!(got.windows(2).all(|w| w[0] <= w[1]));
        got.dedup();
        assert_eq!(got, (0..100).collect::<Vec<_>>());
    }
}
