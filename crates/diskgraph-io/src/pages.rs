//! Page reads for a cache that reads ahead (the sync engine, after PrefEdge): a file read in
//! whole 4 KiB pages into page frames the caller owns — blocking ([`PagedFile::read`]) or
//! asynchronously through io_uring ([`PageReads`]) — and `madvise(MADV_WILLNEED)` hints on a
//! mapped file ([`PagedFile::will_need`]), the paper's own scheme.
//!
//! A frame belongs to one owner at a time: the caller's cache, or a read in flight, which takes
//! the frames by value and gives them back in its [`Completed`] record. Nothing else can touch
//! them meanwhile, so no frame is ever read while the kernel writes it.

use std::collections::VecDeque;
use std::os::fd::AsRawFd;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use io_uring::{opcode, types};

use crate::config::BackendKind;
use crate::error::IoError;
use crate::faults;
use crate::file::OpenFile;
use crate::mapped::GuardedMmap;
use crate::ring::Ring;

/// Bytes of a page.
pub const PAGE_BYTES: usize = 4096;

/// One page of memory, aligned as O_DIRECT needs.
#[repr(C, align(4096))]
pub struct PageFrame(pub [u8; PAGE_BYTES]);

/// Zeroed frames cut from one allocation of exactly `count` pages: allocated one by one, 4 KiB
/// aligned blocks cost the allocator up to twice their size, which a cache held to a budget
/// cannot afford.
pub fn page_frames(count: usize) -> Vec<Frame> {
    let arena = Arc::new(Arena::new(count));
    (0..count)
        .map(|index| Frame {
            arena: Arc::clone(&arena),
            index,
        })
        .collect()
}

/// The allocation behind [`page_frames`].
struct Arena {
    base: std::ptr::NonNull<PageFrame>,
    count: usize,
}

// SAFETY: the arena is plain memory; who may touch which frame is decided by the `Frame`
// handles, each the only one for its index.
unsafe impl Send for Arena {}
// SAFETY: as above.
unsafe impl Sync for Arena {}

impl Arena {
    fn layout(count: usize) -> std::alloc::Layout {
        std::alloc::Layout::array::<PageFrame>(count.max(1)).expect("a frame count that fits in memory")
    }

    fn new(count: usize) -> Arena {
        let layout = Arena::layout(count);
        // SAFETY: the layout has a non-zero size.
        let p = unsafe { std::alloc::alloc_zeroed(layout) };
        let base = std::ptr::NonNull::new(p.cast()).unwrap_or_else(|| std::alloc::handle_alloc_error(layout));
        Arena { base, count }
    }
}

impl Drop for Arena {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with this layout; no frame outlives the arena (each holds
        // an `Arc` of it).
        unsafe { std::alloc::dealloc(self.base.as_ptr().cast(), Arena::layout(self.count)) };
    }
}

/// One page frame of an arena ([`page_frames`]): the only handle to its page, so borrowing it
/// is borrowing the page.
pub struct Frame {
    arena: Arc<Arena>,
    index: usize,
}

impl std::ops::Deref for Frame {
    type Target = PageFrame;

    fn deref(&self) -> &PageFrame {
        // SAFETY: `index < count` by construction, and this handle is the only one for it.
        unsafe { &*self.arena.base.as_ptr().add(self.index) }
    }
}

impl std::ops::DerefMut for Frame {
    fn deref_mut(&mut self) -> &mut PageFrame {
        // SAFETY: as for `deref`, borrowed mutably through the only handle.
        unsafe { &mut *self.arena.base.as_ptr().add(self.index) }
    }
}

/// How a [`PagedFile`] is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PageAccess {
    /// Into frames, with O_DIRECT where the file system allows it.
    Direct,
    /// Through a mapping of the file: the kernel's page cache does the reading.
    Mapped,
}

/// A file read in pages (see the module doc).
pub struct PagedFile {
    file: OpenFile,
    /// Logical length in bytes.
    len: u64,
    map: Option<GuardedMmap>,
}

impl PagedFile {
    /// Opens `path`, whose data is its first `len` bytes, for `access`.
    ///
    /// Errors: the file cannot be opened or mapped, or is shorter than `len`.
    pub fn open(path: &Path, len: u64, access: PageAccess) -> Result<PagedFile, IoError> {
        let file = match access {
            PageAccess::Direct => OpenFile::open(path, PAGE_BYTES as u32)?.0,
            PageAccess::Mapped => OpenFile::buffered(path)?,
        };
        if file.size()? < len {
            return Err(file.eof_error(len));
        }
        let map = match access {
            PageAccess::Mapped if len > 0 => {
                // A page that cannot be read (a device error, the file cut short under the map)
                // reads as zeros and fails `check_mapped`.
                let map = GuardedMmap::map(&file.file, &file.path)?;
                map.advise(memmap2::Advice::Random).map_err(|e| file.os_error(e))?;
                Some(map)
            }
            _ => None,
        };
        Ok(PagedFile { file, len, map })
    }

    /// Logical length in bytes.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the file holds no data.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Number of pages holding the data.
    pub fn pages(&self) -> u64 {
        self.len.div_ceil(PAGE_BYTES as u64)
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.file.path
    }

    /// The mapped data (the first [`len`](Self::len) bytes), when opened [`PageAccess::Mapped`].
    /// A page that cannot be read reads as zeros: ask [`check_mapped`](Self::check_mapped)
    /// before trusting what was read.
    pub fn mapped(&self) -> Option<&[u8]> {
        self.map.as_ref().map(|m| &m[..self.len as usize])
    }

    /// An error naming the file and the byte if a page of the mapping could not be read since
    /// the file was opened ([`IoError::MappedFault`]); `Ok` for a file not mapped.
    pub fn check_mapped(&self) -> Result<(), IoError> {
        self.map.as_ref().map_or(Ok(()), GuardedMmap::check)
    }

    /// Whether reads bypass the page cache (O_DIRECT).
    pub fn direct(&self) -> bool {
        self.file.direct
    }

    /// Asks the kernel to start reading pages `first..first + count` of a mapped file
    /// (`madvise(MADV_WILLNEED)`); does nothing for a file not mapped.
    pub fn will_need(&self, first: u64, count: u64) -> Result<(), IoError> {
        let Some(map) = &self.map else { return Ok(()) };
        let start = (first * PAGE_BYTES as u64).min(map.len() as u64) as usize;
        let end = ((first + count) * PAGE_BYTES as u64).min(map.len() as u64) as usize;
        if start < end {
            map.advise_range(memmap2::Advice::WillNeed, start, end - start)
                .map_err(|e| self.file.os_error(e))?;
        }
        Ok(())
    }

    /// Reads pages `first..first + frames.len()` into `frames`, blocking; pages past the end of
    /// the data read as zeros past it.
    ///
    /// # Panics
    /// If a page lies wholly past the end of the data.
    pub fn read(&self, first: u64, frames: &mut [Frame]) -> Result<(), IoError> {
        assert!(
            first + frames.len() as u64 <= self.pages(),
            "pages past the end of the file"
        );
        let want = self.wanted(first, frames.len());
        let iov = iovecs(frames);
        let at = first * PAGE_BYTES as u64;
        let got = loop {
            let r = faults::read_call(&self.file.path, at, want, || {
                // SAFETY: the iovecs cover frames we hold mutably for the whole call.
                let r = unsafe {
                    libc::preadv(
                        self.file.file.as_raw_fd(),
                        iov.as_ptr(),
                        iov.len().min(1024) as libc::c_int,
                        at as libc::off_t,
                    )
                };
                usize::try_from(r).map_err(|_| std::io::Error::last_os_error())
            });
            match r {
                Ok(n) => break n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(self.file.read_error(e, at)),
            }
        };
        // Short (more than 1024 pages, a signal, an odd file system): the rest page by page.
        let from = got / PAGE_BYTES;
        for (page, frame) in frames.iter_mut().enumerate().skip(from) {
            let offset = (first + page as u64) * PAGE_BYTES as u64;
            let have = if page == from { got % PAGE_BYTES } else { 0 };
            let page_want = (want - page * PAGE_BYTES).min(PAGE_BYTES);
            if have < page_want {
                self.file.read_full(&mut frame.0, offset, page_want, |_| {})?;
            }
        }
        Ok(())
    }

    /// Bytes of data in `count` pages from page `first`.
    fn wanted(&self, first: u64, count: usize) -> usize {
        let start = first * PAGE_BYTES as u64;
        (self.len.min(start + (count * PAGE_BYTES) as u64) - start) as usize
    }
}

/// One iovec per frame.
fn iovecs(frames: &mut [Frame]) -> Vec<libc::iovec> {
    frames
        .iter_mut()
        .map(|f| libc::iovec {
            iov_base: f.0.as_mut_ptr().cast(),
            iov_len: PAGE_BYTES,
        })
        .collect()
}

/// A read handed back by [`PageReads::reap`]: its tag, first page and frames, and whether it
/// succeeded.
pub struct Completed {
    /// The tag it was submitted with.
    pub tag: u64,
    /// Its first page.
    pub first: u64,
    /// Its frames, filled when `result` is `Ok`.
    pub frames: Vec<Frame>,
    /// Its outcome.
    pub result: Result<(), IoError>,
}

/// A read in flight: what the kernel writes into stays here until its completion.
struct Pending {
    file: Arc<PagedFile>,
    first: u64,
    frames: Vec<Frame>,
    iov: Vec<libc::iovec>,
    tag: u64,
}

/// Page reads kept in flight through io_uring, or done at submission with `preadv` where
/// io_uring is unavailable or not wanted (see the module doc).
pub struct PageReads {
    ring: Option<Ring>,
    /// Slot `i` holds the read tagged `i` in the ring.
    slots: Vec<Option<Pending>>,
    free: Vec<usize>,
    /// Reads done at submission (the pread backend), awaiting `reap`.
    ready: VecDeque<Completed>,
    in_flight: usize,
    /// Bytes read so far.
    pub bytes_read: u64,
    /// Read requests so far.
    pub requests: u64,
    /// Seconds with reads in flight (uring) or inside read calls (pread).
    pub busy_seconds: f64,
    busy_since: Option<Instant>,
}

impl PageReads {
    /// Reads with up to `depth` in flight through io_uring when `uring` and the kernel allows
    /// it, else one at a time with `preadv`; returns the reason for a fallback.
    pub fn new(depth: usize, uring: bool) -> (PageReads, Option<String>) {
        let depth = depth.clamp(1, 4096);
        let (ring, why) = match uring {
            true => match Ring::new(depth as u32) {
                Ok((ring, _)) => (Some(ring), None),
                Err(why) => (None, Some(why)),
            },
            false => (None, None),
        };
        let slots = ring.as_ref().map_or(0, Ring::depth);
        let reads = PageReads {
            ring,
            slots: (0..slots).map(|_| None).collect(),
            free: (0..slots).rev().collect(),
            ready: VecDeque::new(),
            in_flight: 0,
            bytes_read: 0,
            requests: 0,
            busy_seconds: 0.0,
            busy_since: None,
        };
        (reads, why)
    }

    /// The backend reading.
    pub fn backend(&self) -> BackendKind {
        match self.ring {
            Some(_) => BackendKind::Uring,
            None => BackendKind::Pread,
        }
    }

    /// Reads that may be in flight at once.
    pub fn capacity(&self) -> usize {
        self.slots.len().max(1)
    }

    /// Reads submitted and not yet reaped.
    pub fn in_flight(&self) -> usize {
        self.in_flight + self.ready.len()
    }

    /// Starts reading pages `first..first + frames.len()` of `file` into `frames`, tagged
    /// `tag`. With the pread backend the read is done before this returns.
    ///
    /// # Panics
    /// If [`capacity`](Self::capacity) reads are in flight, or a page lies past the file's end.
    pub fn submit(&mut self, file: &Arc<PagedFile>, first: u64, mut frames: Vec<Frame>, tag: u64) {
        assert!(
            first + frames.len() as u64 <= file.pages(),
            "pages past the end of the file"
        );
        self.requests += 1;
        let Some(ring) = &mut self.ring else {
            let start = Instant::now();
            let result = file.read(first, &mut frames);
            self.busy_seconds += start.elapsed().as_secs_f64();
            if result.is_ok() {
                self.bytes_read += file.wanted(first, frames.len()) as u64;
            }
            self.ready.push_back(Completed {
                tag,
                first,
                frames,
                result,
            });
            return;
        };
        let slot = self.free.pop().expect("no more reads in flight than the capacity");
        let iov = iovecs(&mut frames);
        let pending = Pending {
            file: Arc::clone(file),
            first,
            frames,
            iov,
            tag,
        };
        // SAFETY: the frames and iovecs live in the slot until the completion is reaped, and
        // `Drop` reaps every read in flight before they go.
        unsafe { push(ring, &pending, slot as u64) };
        self.slots[slot] = Some(pending);
        if self.in_flight == 0 {
            self.busy_since = Some(Instant::now());
        }
        self.in_flight += 1;
    }

    /// Hands back the reads completed, waiting for at least one when `wait` and some are in
    /// flight.
    pub fn reap(&mut self, wait: bool) -> Vec<Completed> {
        let mut done: Vec<Completed> = self.ready.drain(..).collect();
        let Some(ring) = &mut self.ring else { return done };
        let mut cqes = Vec::new();
        loop {
            if self.in_flight == 0 || !(wait && done.is_empty()) {
                ring.reap(&mut cqes);
                if cqes.is_empty() {
                    break;
                }
            } else {
                // A failing `io_uring_enter` leaves the reads in flight: keep waiting for them,
                // their frames must not be handed back before the kernel is done.
                if ring.submit_and_wait().is_err() {
                    std::thread::yield_now();
                }
                ring.reap(&mut cqes);
            }
            for &(slot, res) in &cqes {
                let slot = slot as usize;
                let mut p = self.slots[slot].take().expect("a completion has its read");
                let want = p.file.wanted(p.first, p.frames.len());
                let at = p.first * PAGE_BYTES as u64;
                let res = faults::completion(&p.file.file.path, at, want, res);
                if res == -libc::EINTR || res == -libc::EAGAIN {
                    // SAFETY: as in `submit`; the read goes back into its slot.
                    unsafe { push(ring, &p, slot as u64) };
                    self.slots[slot] = Some(p);
                    continue;
                }
                let result = if res < 0 {
                    Err(p.file.file.read_error(std::io::Error::from_raw_os_error(-res), at))
                } else if (res as usize) < want {
                    // Short: the rest read blocking (rare: a file that shrank, an odd file system).
                    let from = res as usize / PAGE_BYTES;
                    let first = p.first + from as u64;
                    p.file.read(first, &mut p.frames[from..])
                } else {
                    Ok(())
                };
                if result.is_ok() {
                    self.bytes_read += want as u64;
                }
                self.free.push(slot);
                self.in_flight -= 1;
                if self.in_flight == 0 {
                    if let Some(since) = self.busy_since.take() {
                        self.busy_seconds += since.elapsed().as_secs_f64();
                    }
                }
                done.push(Completed {
                    tag: p.tag,
                    first: p.first,
                    frames: p.frames,
                    result,
                });
            }
            if !wait || !done.is_empty() {
                break;
            }
        }
        done
    }
}

/// Queues `p`'s read in `ring`, tagged `user_data`.
///
/// # Safety
/// `p`'s frames and iovecs must stay where they are until its completion is reaped.
unsafe fn push(ring: &mut Ring, p: &Pending, user_data: u64) {
    let fd = types::Fd(p.file.file.file.as_raw_fd());
    let entry = opcode::Readv::new(fd, p.iov.as_ptr(), p.iov.len() as u32)
        .offset(p.first * PAGE_BYTES as u64)
        .build()
        .user_data(user_data);
    // SAFETY: the caller keeps the memory for the kernel until the completion is reaped.
    unsafe { ring.push_entry(&entry) };
}

impl Drop for PageReads {
    /// Waits for the reads in flight: the kernel must be done with their frames first.
    fn drop(&mut self) {
        while self.in_flight > 0 {
            self.reap(true);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file_of(pages: usize, tail: usize) -> (tempfile::TempDir, std::path::PathBuf, Vec<u8>) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let len = pages * PAGE_BYTES + tail;
        let data: Vec<u8> = (0..len as u32).map(|i| (i * 31 + i / 4096) as u8).collect();
        let mut padded = data.clone();
        padded.resize(len.div_ceil(PAGE_BYTES) * PAGE_BYTES, 0);
        std::fs::write(&path, &padded).unwrap();
        (dir, path, data)
    }

    fn frames(n: usize) -> Vec<Frame> {
        page_frames(n)
    }

    #[test]
    fn blocking_and_queued_reads_return_the_file() {
        let (_dir, path, data) = file_of(9, 100);
        let file = Arc::new(PagedFile::open(&path, data.len() as u64, PageAccess::Direct).unwrap());
        assert_eq!(file.pages(), 10);
        let mut f = frames(3);
        file.read(7, &mut f).unwrap();
        for (i, frame) in f.iter().enumerate() {
            let start = (7 + i) * PAGE_BYTES;
            let end = (start + PAGE_BYTES).min(data.len());
            assert_eq!(&frame.0[..end - start], &data[start..end]);
        }
        for uring in [true, false] {
            let (mut reads, _) = PageReads::new(4, uring);
            let mut got = Vec::new();
            for (tag, first) in [(1, 0u64), (2, 4), (3, 9)] {
                while reads.in_flight() >= reads.capacity() {
                    got.extend(reads.reap(true));
                }
                reads.submit(&file, first, frames(if first == 9 { 1 } else { 4 }), tag);
            }
            while reads.in_flight() > 0 {
                got.extend(reads.reap(true));
            }
            got.sort_by_key(|c| c.tag);
            assert_eq!(got.len(), 3);
            for c in got {
                c.result.unwrap();
                for (i, frame) in c.frames.iter().enumerate() {
                    let start = (c.first as usize + i) * PAGE_BYTES;
                    let end = (start + PAGE_BYTES).min(data.len());
                    assert_eq!(&frame.0[..end - start], &data[start..end], "uring {uring}");
                }
            }
            // Page 8 was not asked for.
            assert_eq!(reads.bytes_read, (data.len() - PAGE_BYTES) as u64);
        }
    }

    #[test]
    #[cfg_attr(miri, ignore = "Miri cannot map files")]
    fn a_mapped_file_is_its_data() {
        let (_dir, path, data) = file_of(2, 5);
        let file = PagedFile::open(&path, data.len() as u64, PageAccess::Mapped).unwrap();
        file.will_need(0, 3).unwrap();
        assert_eq!(file.mapped().unwrap(), &data[..]);
    }

    #[test]
    fn a_file_shorter_than_its_length_is_refused() {
        let (_dir, path, _) = file_of(1, 0);
        let e = PagedFile::open(&path, 3 * PAGE_BYTES as u64, PageAccess::Direct)
            .err()
            .unwrap();
        assert!(e.to_string().contains("file ends before byte 12288"), "{e}");
    }
}
