//! Open files: one file read with O_DIRECT where its file system allows it (probed at open),
//! else buffered, with the blocking read every reader uses ([`OpenFile::read_full`]) and the
//! rules for resuming a short read; and [`FileSet`], the files a context reads together.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::blocks::PageBuf;
use crate::error::IoError;
use crate::fallback::simulated;
use crate::faults;
use crate::mapped::GuardedMmap;
use crate::pool::BUF_ALIGN;
use crate::regular::open_regular;
use crate::scheduler::BitmapScheduler;

/// An open file and how it was opened.
pub(crate) struct OpenFile {
    pub(crate) path: PathBuf,
    pub(crate) file: File,
    /// Opened with O_DIRECT.
    pub(crate) direct: bool,
    /// O_DIRECT offset alignment (1 when buffered).
    pub(crate) align: u64,
}

impl OpenFile {
    /// Opens `path`, which must be a regular file, for buffered reads.
    pub(crate) fn buffered(path: &Path) -> Result<OpenFile, IoError> {
        let file = open_regular(path, 0).map_err(|source| IoError::Os {
            path: path.to_path_buf(),
            source,
        })?;
        Ok(OpenFile {
            path: path.to_path_buf(),
            file,
            direct: false,
            align: 1,
        })
    }

    /// Opens `path`, which must be a regular file, with O_DIRECT when its file system allows
    /// reads of `block_size`-aligned blocks, else buffered; returns the file with the reason it is read buffered, if it is.
    pub(crate) fn open(path: &Path, block_size: u32) -> Result<(OpenFile, Option<String>), IoError> {
        match open_direct(path, block_size)? {
            Ok((file, align)) => Ok((
                OpenFile {
                    path: path.to_path_buf(),
                    file,
                    direct: true,
                    align,
                },
                None,
            )),
            Err(why) => Ok((OpenFile::buffered(path)?, Some(why))),
        }
    }

    /// The error `source`, naming this file.
    pub(crate) fn os_error(&self, source: std::io::Error) -> IoError {
        IoError::Os {
            path: self.path.clone(),
            source,
        }
    }

    /// The error `source` of a read at byte `at`, naming this file and the byte.
    pub(crate) fn read_error(&self, source: std::io::Error, at: u64) -> IoError {
        self.os_error(faults::at_byte(source, at))
    }

    /// The error for a file that ends before byte `at`.
    pub(crate) fn eof_error(&self, at: u64) -> IoError {
        self.os_error(std::io::Error::new(
            std::io::ErrorKind::UnexpectedEof,
            format!("file ends before byte {at} (truncated since open?)"),
        ))
    }

    /// The file's size now.
    pub(crate) fn size(&self) -> Result<u64, IoError> {
        Ok(self.file.metadata().map_err(|e| self.os_error(e))?.len())
    }

    /// After a read left a buffer filled to `got` bytes (`got` short of what was wanted), the
    /// position to continue from: O_DIRECT needs it aligned, so an unaligned tail is read again.
    /// `None` when the read made no usable progress past `before`.
    pub(crate) fn resume_at(&self, before: usize, got: usize) -> Option<usize> {
        let next = if self.direct {
            got & !(self.align as usize - 1)
        } else {
            got
        };
        (next > before).then_some(next)
    }

    /// Reads the file's bytes `[offset, offset + want)` into `buf` with `pread(2)`, asking for
    /// all of `buf` (whole aligned blocks, as O_DIRECT needs) and reading on after short reads
    /// and EINTR (each call under the [`faults`] plan). `on_call(n)` is called after each read
    /// call with the bytes it returned (0 when it failed).
    pub(crate) fn read_full(
        &self,
        buf: &mut [u8],
        offset: u64,
        want: usize,
        mut on_call: impl FnMut(usize),
    ) -> Result<(), IoError> {
        let mut done = 0;
        while done < want {
            let at = offset + done as u64;
            let r = faults::read_call(&self.path, at, buf.len() - done, || {
                self.file.read_at(&mut buf[done..], at)
            });
            on_call(*r.as_ref().unwrap_or(&0));
            match r {
                Ok(0) => return Err(self.eof_error(offset + want as u64)),
                Ok(n) => {
                    if done + n >= want {
                        break;
                    }
                    done = self
                        .resume_at(done, done + n)
                        .ok_or_else(|| self.eof_error(offset + want as u64))?;
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(self.read_error(e, at)),
            }
        }
        Ok(())
    }
}

/// Files read together with identical runs (e.g. `out.adj` and `out.wgt`).
///
/// The set has one *logical length*, [`len`](Self::len): ranges must lie below it and chunks
/// never reach past it. [`IoContext::open`](crate::IoContext::open) takes it from the first
/// file's size; [`IoContext::open_with_len`](crate::IoContext::open_with_len) takes it from the
/// caller (e.g. the manifest's logical length of a file padded to 4096 bytes). Reads themselves
/// cover whole blocks and may go past the logical length up to the end of the last block
/// (O_DIRECT needs it), which is harmless: graph files are padded, and a read past the physical
/// end of a file simply returns fewer bytes.
pub struct FileSet {
    pub(crate) files: Vec<OpenFile>,
    /// The mapping of each file (mmap backend only, else empty; `None` for an empty file).
    pub(crate) maps: Vec<Option<GuardedMmap>>,
    pub(crate) len: u64,
    pub(crate) mapped: bool,
    /// The bitmap scheduler kept for this set's rounds.
    pub(crate) bitmap: Mutex<Option<BitmapScheduler>>,
}

impl FileSet {
    /// Logical length in bytes (all files are read over the same byte ranges).
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the files are empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Number of files in the set.
    pub fn num_files(&self) -> usize {
        self.files.len()
    }

    /// Whether every file was opened with O_DIRECT (false for buffered fallbacks and mmap).
    pub fn direct(&self) -> bool {
        !self.files.is_empty() && self.files.iter().all(|f| f.direct)
    }
}

/// O_DIRECT alignment `(memory, offset)` of an open file from `statx(STATX_DIOALIGN)`:
/// `Some((0, 0))` when the file system says direct I/O is unsupported, `None` when it does not
/// report (kernels before 6.1, some file systems).
fn dio_align(file: &File) -> Option<(u32, u32)> {
    use rustix::fs::{statx, AtFlags, StatxFlags};
    let stx = statx(file, c"", AtFlags::EMPTY_PATH, StatxFlags::DIOALIGN).ok()?;
    (stx.stx_mask & StatxFlags::DIOALIGN.bits() != 0).then_some((stx.stx_dio_mem_align, stx.stx_dio_offset_align))
}

/// Opens `path` with O_DIRECT and checks that reads of `block_size`-aligned blocks into
/// 4096-aligned buffers work. `Ok(Err(reason))` when the file must be read buffered.
fn open_direct(path: &Path, block_size: u32) -> Result<Result<(File, u64), String>, IoError> {
    let os = |source| IoError::Os {
        path: path.to_path_buf(),
        source,
    };
    if simulated("no-direct") {
        return Ok(Err(format!(
            "O_DIRECT open of {} failed: EINVAL (simulated)",
            path.display()
        )));
    }
    let file = match open_regular(path, libc::O_DIRECT) {
        Ok(f) => f,
        Err(e) if e.raw_os_error() == Some(libc::EINVAL) => {
            return Ok(Err(format!(
                "the file system of {} does not support O_DIRECT (EINVAL)",
                path.display()
            )));
        }
        Err(e) => return Err(os(e)),
    };
    let mut align = 512u64;
    if let Some((mem, off)) = dio_align(&file) {
        if mem == 0 || off == 0 {
            return Ok(Err(format!(
                "the file system of {} does not support O_DIRECT",
                path.display()
            )));
        }
        if !block_size.is_multiple_of(off) || !(BUF_ALIGN as u32).is_multiple_of(mem) {
            return Ok(Err(format!(
                "O_DIRECT on {} needs {off}-byte offsets and {mem}-byte buffers; block size is {block_size}",
                path.display()
            )));
        }
        align = u64::from(off);
    }
    // A probe read of the first block: some file systems accept the flag and refuse the read.
    let len = file.metadata().map_err(os)?.len();
    if len > 0 {
        // A page-aligned buffer of whole pages, at least `block_size` bytes.
        let mut buf = PageBuf::zeroed(block_size as usize);
        match file.read_at(&mut buf.bytes_mut()[..block_size as usize], 0) {
            Ok(_) => {}
            Err(e) if e.raw_os_error() == Some(libc::EINVAL) => {
                return Ok(Err(format!("O_DIRECT reads of {} fail with EINVAL", path.display())));
            }
            Err(e) => return Err(os(e)),
        }
    }
    Ok(Ok((file, align)))
}
