//! Whole-block reads and writes for an engine that keeps blocks of a file in memory and writes
//! modified ones back (the shard engine, after GraphChi): [`PageBuf`], a zeroed buffer of whole
//! 4 KiB pages aligned as O_DIRECT needs, and [`BlockFile`], a file read — and, when opened for
//! writing, written — in page-aligned ranges with O_DIRECT where the file system allows it.
//!
//! Reads and writes are blocking `pread(2)` / `pwrite(2)` calls that resume after short
//! transfers and EINTR; callers that want several in flight issue them from several threads
//! (every method takes `&self`).

use std::fs::{File, OpenOptions};
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};

use crate::error::IoError;
use crate::fallback::simulated;
use crate::faults;
use crate::pages::PAGE_BYTES;
use crate::regular::open_regular;

/// A zeroed buffer of whole pages, aligned to a page: an anonymous mapping of its own, so that
/// a dropped buffer goes back to the kernel at once. (From the heap, glibc's adaptive mmap
/// threshold soon serves megabyte blocks from its arenas, and a cache that keeps dropping and
/// loading them fragments the heap: a shard triangles run budgeted 873 MiB held 1.35 GiB.)
///
/// The mapping is held raw (`MmapRaw`): its pointer carries write permission from `&self`, which
/// the atomic view needs (a pointer taken from a shared `&[u8]` of it does not).
pub struct PageBuf {
    map: memmap2::MmapRaw,
}

impl PageBuf {
    /// A zeroed buffer of `bytes` rounded up to whole pages (at least one).
    ///
    /// Panics, as an allocation failure does, if the kernel refuses the mapping.
    pub fn zeroed(bytes: usize) -> PageBuf {
        let len = bytes.div_ceil(PAGE_BYTES).max(1) * PAGE_BYTES;
        let map = memmap2::MmapMut::map_anon(len).unwrap_or_else(|e| panic!("cannot map a {len}-byte buffer: {e}"));
        PageBuf { map: map.into() }
    }

    /// Its size in bytes (whole pages).
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Whether it holds no bytes (never: a buffer has at least one page).
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Its bytes, mutably. (There is no shared plain view: shared, the bytes are only seen as
    /// atomic words, [`as_atomic_u32`](Self::as_atomic_u32), which holders may store through.)
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        // SAFETY: the mapping's own pointer and length, initialised (zeroed) and alive as long
        // as `self`; `&mut self` excludes every other view for the borrow's life.
        unsafe { std::slice::from_raw_parts_mut(self.map.as_mut_ptr(), self.map.len()) }
    }

    /// Its bytes as `u32` words that threads holding it shared may load and store.
    pub fn as_atomic_u32(&self) -> &[AtomicU32] {
        // SAFETY: `AtomicU32` has the size of `u32` and an alignment (4) the page-aligned
        // mapping meets; the bytes are initialised (zeroed). The pointer is the mapping's own,
        // not derived from a reference. While this shared borrow lives no `&mut` to the bytes
        // can exist, and every other shared view of them is atomic too (no `&[u8]` is ever
        // handed out from `&self`), so no plain reference sees them change.
        unsafe { std::slice::from_raw_parts(self.map.as_mut_ptr().cast(), self.len() / 4) }
    }
}

/// A file read, and written when opened so, in page-aligned ranges (see the module doc).
pub struct BlockFile {
    path: PathBuf,
    file: File,
    direct: bool,
    read_bytes: AtomicU64,
    written_bytes: AtomicU64,
}

impl BlockFile {
    /// Opens `path`, which must be a regular file, to read, with O_DIRECT where its file
    /// system allows it.
    pub fn open_read(path: &Path) -> Result<BlockFile, IoError> {
        BlockFile::open(path, |flags| open_regular(path, flags))
    }

    /// Creates (or truncates) `path` to read and write, `len` bytes long and sparse (reading
    /// unwritten bytes gives zeros), with O_DIRECT where its file system allows it.
    pub fn create(path: &Path, len: u64) -> Result<BlockFile, IoError> {
        let f = BlockFile::open(path, |flags| {
            OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(true)
                .custom_flags(flags)
                .open(path)
        })?;
        f.file.set_len(len).map_err(|e| f.os_error(e))?;
        Ok(f)
    }

    /// Opens `path` by `open`, given the extra open flags: `O_DIRECT`, or none when the file
    /// system refuses it.
    fn open(path: &Path, open: impl Fn(libc::c_int) -> std::io::Result<File>) -> Result<BlockFile, IoError> {
        let os = |source| IoError::Os {
            path: path.to_path_buf(),
            source,
        };
        let (file, direct) = match simulated("no-direct") {
            true => (open(0).map_err(os)?, false),
            false => match open(libc::O_DIRECT) {
                Ok(f) => (f, true),
                Err(e) if e.raw_os_error() == Some(libc::EINVAL) => (open(0).map_err(os)?, false),
                Err(e) => return Err(os(e)),
            },
        };
        Ok(BlockFile {
            path: path.to_path_buf(),
            file,
            direct,
            read_bytes: AtomicU64::new(0),
            written_bytes: AtomicU64::new(0),
        })
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether transfers bypass the page cache (O_DIRECT).
    pub fn direct(&self) -> bool {
        self.direct
    }

    /// Bytes read so far.
    pub fn bytes_read(&self) -> u64 {
        self.read_bytes.load(Relaxed)
    }

    /// Bytes written so far.
    pub fn bytes_written(&self) -> u64 {
        self.written_bytes.load(Relaxed)
    }

    fn os_error(&self, source: std::io::Error) -> IoError {
        IoError::Os {
            path: self.path.clone(),
            source,
        }
    }

    /// Reads `buf.len()` bytes from byte `offset` (a multiple of the page size) into `buf`;
    /// bytes past the end of the file read as zeros.
    ///
    /// # Panics
    /// If `offset` is not page aligned.
    pub fn read(&self, buf: &mut PageBuf, offset: u64) -> Result<(), IoError> {
        assert!(offset.is_multiple_of(PAGE_BYTES as u64), "unaligned read");
        let bytes = buf.bytes_mut();
        let mut done = 0;
        while done < bytes.len() {
            let at = offset + done as u64;
            let left = bytes.len() - done;
            match faults::read_call(&self.path, at, left, || self.file.read_at(&mut bytes[done..], at)) {
                Ok(0) => {
                    bytes[done..].fill(0);
                    break;
                }
                Ok(n) => {
                    // O_DIRECT continues from a page boundary: an unaligned tail is read again,
                    // unless the file ends inside it (a read short of a page is the end only
                    // when the file's size says so).
                    let next = if self.direct {
                        (done + n) & !(PAGE_BYTES - 1)
                    } else {
                        done + n
                    };
                    if next <= done {
                        let size = self.file.metadata().map_err(|e| self.os_error(e))?.len();
                        if size <= at + n as u64 {
                            bytes[done + n..].fill(0);
                            break;
                        }
                    }
                    done = next.max(done);
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(self.os_error(faults::at_byte(e, at))),
            }
        }
        self.read_bytes.fetch_add(bytes.len() as u64, Relaxed);
        Ok(())
    }

    /// Writes all of `buf` at byte `offset` (a multiple of the page size).
    ///
    /// # Panics
    /// If `offset` is not page aligned.
    pub fn write(&self, buf: &PageBuf, offset: u64) -> Result<(), IoError> {
        assert!(offset.is_multiple_of(PAGE_BYTES as u64), "unaligned write");
        let (base, len) = (buf.map.as_ptr(), buf.len());
        let mut done = 0;
        while done < len {
            let at = offset + done as u64;
            let at_os = libc::off_t::try_from(at).map_err(|_| {
                self.os_error(std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    format!("byte {at} is beyond the largest file offset"),
                ))
            })?;
            // SAFETY: `base + done .. base + len` lies inside the buffer's mapping, which `buf`
            // keeps alive for the call, and the kernel only reads it. No `&[u8]` is made of the
            // bytes, which holders of the buffer may store to through `as_atomic_u32`: a store
            // racing with this write (callers write back blocks nobody changes meanwhile) could
            // only tear the bytes that reach the file.
            let n = unsafe { libc::pwrite(self.file.as_raw_fd(), base.add(done).cast(), len - done, at_os) };
            match n {
                0 => {
                    return Err(self.os_error(std::io::Error::new(
                        std::io::ErrorKind::WriteZero,
                        format!("wrote nothing at byte {at}"),
                    )))
                }
                n if n > 0 => done += n as usize,
                _ => match std::io::Error::last_os_error() {
                    e if e.kind() == std::io::ErrorKind::Interrupted => {}
                    e => return Err(self.os_error(e)),
                },
            }
        }
        self.written_bytes.fetch_add(len as u64, Relaxed);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_round_trip_and_unwritten_bytes_are_zero() {
        let dir = tempfile::tempdir().unwrap();
        let f = BlockFile::create(&dir.path().join("v"), 5 * PAGE_BYTES as u64).unwrap();
        let mut b = PageBuf::zeroed(2 * PAGE_BYTES);
        for (i, x) in b.bytes_mut().iter_mut().enumerate() {
            *x = (i % 251) as u8;
        }
        f.write(&b, PAGE_BYTES as u64).unwrap();
        let mut back = PageBuf::zeroed(4 * PAGE_BYTES);
        f.read(&mut back, 0).unwrap();
        assert!(back.bytes_mut()[..PAGE_BYTES].iter().all(|&x| x == 0));
        assert_eq!(&back.bytes_mut()[PAGE_BYTES..3 * PAGE_BYTES], b.bytes_mut());
        assert!(back.bytes_mut()[3 * PAGE_BYTES..].iter().all(|&x| x == 0));
        // Past the end of the file: zeros.
        let mut tail = PageBuf::zeroed(3 * PAGE_BYTES);
        tail.bytes_mut().fill(7);
        f.read(&mut tail, 4 * PAGE_BYTES as u64).unwrap();
        assert!(tail.bytes_mut().iter().all(|&x| x == 0));
        assert_eq!(f.bytes_written(), 2 * PAGE_BYTES as u64);
        assert_eq!(f.bytes_read(), 7 * PAGE_BYTES as u64);
    }

    #[test]
    fn atomic_words_see_the_bytes() {
        let mut b = PageBuf::zeroed(10);
        assert_eq!(b.len(), PAGE_BYTES);
        b.bytes_mut()[4..8].copy_from_slice(&7u32.to_le_bytes());
        assert_eq!(b.as_atomic_u32()[1].load(Relaxed), 7);
        b.as_atomic_u32()[2].store(9, Relaxed);
        assert_eq!(b.bytes_mut()[8..12], 9u32.to_le_bytes());
    }
}
