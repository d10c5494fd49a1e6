//! The aligned I/O buffer pool: one anonymous mapping cut into equal, 4096-aligned buffers.
//!
//! The mapping is backed by explicit hugepages (`MAP_HUGETLB`, Graphene's choice: pre-reserved
//! 2 MiB pages, no TLB misses, never swapped) when the system has enough reserved, else by
//! transparent hugepages (`madvise(MADV_HUGEPAGE)` on a 2 MiB-aligned region), else by normal
//! pages. It is touched once at creation so that the first round does not pay the page faults.
//!
//! The pool hands out raw pointers. Who may touch which buffer is decided by the pipeline
//! (`pipeline.rs`): a buffer belongs to exactly one of an I/O thread, the kernel, the completed
//! queue or a compute worker at any time.

use serde::Serialize;

use crate::fallback::simulated;

/// Hugepage size used for alignment and `MAP_HUGETLB` (x86-64 and aarch64 default).
const HUGE: usize = 2 << 20;

/// Alignment of every buffer: safe for O_DIRECT on any device (logical blocks ≤ 4096).
pub(crate) const BUF_ALIGN: usize = 4096;

/// What memory backs the I/O buffer pool.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BufferKind {
    /// Explicit hugepages (`MAP_HUGETLB`) from the pool reserved in `/proc/sys/vm/nr_hugepages`.
    Hugetlb,
    /// Transparent hugepages requested with `madvise(MADV_HUGEPAGE)` (the kernel may still back
    /// parts with normal pages).
    Transparent,
    /// Normal 4 KiB pages.
    Normal,
    /// No pool: the backend (mmap) hands out slices of the page cache.
    Unallocated,
}

/// Equal buffers in one mapping.
pub(crate) struct BufferPool {
    base: *mut u8,
    map_len: usize,
    buf_size: usize,
    count: usize,
    kind: BufferKind,
}

// SAFETY: the pool owns its mapping; it only hands out raw pointers, and the pipeline guarantees
// that each buffer has a single owner (thread or kernel) at a time.
unsafe impl Send for BufferPool {}
// SAFETY: as above; shared access only computes addresses.
unsafe impl Sync for BufferPool {}

/// `mmap` an anonymous private region, `None` on failure.
fn map_anon(len: usize, extra_flags: libc::c_int) -> Option<*mut u8> {
    // SAFETY: an anonymous mapping with no address hint touches no existing memory.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | extra_flags,
            -1,
            0,
        )
    };
    (p != libc::MAP_FAILED).then_some(p.cast())
}

fn thp_enabled() -> bool {
    match std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled") {
        Ok(s) => !s.contains("[never]"),
        Err(_) => false,
    }
}

impl BufferPool {
    /// `count` buffers of `buf_size` bytes (a multiple of [`BUF_ALIGN`]).
    pub(crate) fn new(buf_size: usize, count: usize) -> std::io::Result<Self> {
        assert!(buf_size > 0 && buf_size.is_multiple_of(BUF_ALIGN) && count > 0);
        let total = buf_size
            .checked_mul(count)
            .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::InvalidInput, "buffer pool size overflows"))?;
        let map_len = total.div_ceil(HUGE) * HUGE;
        let simulate_no_huge = simulated("no-hugetlb");
        if !simulate_no_huge {
            if let Some(base) = map_anon(map_len, libc::MAP_HUGETLB) {
                let pool = BufferPool {
                    base,
                    map_len,
                    buf_size,
                    count,
                    kind: BufferKind::Hugetlb,
                };
                pool.populate();
                return Ok(pool);
            }
        }
        // Over-map by one hugepage so that a 2 MiB-aligned region of map_len fits, then trim.
        let raw_len = map_len + HUGE;
        let raw = map_anon(raw_len, 0).ok_or_else(std::io::Error::last_os_error)?;
        let head = (HUGE - (raw as usize) % HUGE) % HUGE;
        let tail = raw_len - head - map_len;
        // SAFETY: both trimmed pieces lie inside the mapping just created and are not used.
        unsafe {
            if head > 0 {
                libc::munmap(raw.cast(), head);
            }
            if tail > 0 {
                libc::munmap(raw.add(head + map_len).cast(), tail);
            }
        }
        // SAFETY: head < HUGE ≤ raw_len, inside the mapping.
        let base = unsafe { raw.add(head) };
        let mut kind = BufferKind::Normal;
        if thp_enabled() {
            // SAFETY: advice on our own mapping; it changes no contents.
            if unsafe { libc::madvise(base.cast(), map_len, libc::MADV_HUGEPAGE) } == 0 {
                kind = BufferKind::Transparent;
            }
        }
        let pool = BufferPool {
            base,
            map_len,
            buf_size,
            count,
            kind,
        };
        pool.populate();
        Ok(pool)
    }

    /// Faults every page in now rather than during the first reads.
    fn populate(&self) {
        // SAFETY: the advice only pre-faults our own mapping.
        let ok = unsafe { libc::madvise(self.base.cast(), self.map_len, libc::MADV_POPULATE_WRITE) } == 0;
        if !ok {
            // Kernels before 5.14: touch one byte per page.
            for off in (0..self.map_len).step_by(4096) {
                // SAFETY: `off` is inside the mapping, which nobody else uses yet.
                unsafe { self.base.add(off).write_volatile(0) };
            }
        }
    }

    pub(crate) fn kind(&self) -> BufferKind {
        self.kind
    }

    pub(crate) fn count(&self) -> usize {
        self.count
    }

    /// Address of buffer `i`.
    ///
    /// # Panics
    /// If `i` is not below [`count`](Self::count).
    pub(crate) fn ptr(&self, i: usize) -> *mut u8 {
        assert!(i < self.count, "buffer {i} out of {}", self.count);
        // SAFETY: i * buf_size + buf_size ≤ count * buf_size ≤ map_len.
        unsafe { self.base.add(i * self.buf_size) }
    }

    /// `iovec`s covering buffers `[first, first + n)`, each at most 1 GiB (the kernel's limit for
    /// a registered buffer) and made of whole buffers; returns them with the number of buffers
    /// per `iovec`.
    pub(crate) fn iovecs(&self, first: usize, n: usize) -> (Vec<libc::iovec>, usize) {
        let per = ((1usize << 30) / self.buf_size).max(1);
        let mut v = Vec::new();
        let mut i = first;
        while i < first + n {
            let m = per.min(first + n - i);
            v.push(libc::iovec {
                iov_base: self.ptr(i).cast(),
                iov_len: m * self.buf_size,
            });
            i += m;
        }
        (v, per)
    }
}

impl Drop for BufferPool {
    fn drop(&mut self) {
        // SAFETY: the mapping was created by `new` with this length; no buffer is in flight when
        // the pool is dropped (the context outlives every round, and rounds drain the kernel).
        unsafe { libc::munmap(self.base.cast(), self.map_len) };
    }
}
