//! A global allocator that asks for transparent hugepages on large allocations.
//!
//! Vertex arrays and CSR offsets are read at random (`contrib[u]`, `level[v]`, …): with 4 KiB
//! pages a 100 MiB array spans 25,600 pages, far more than the TLB holds, so nearly every access
//! also walks the page table — twice over in a virtual machine. Where the kernel's transparent
//! hugepages are in `madvise` mode, nothing gets 2 MiB pages unless it asks; this allocator asks
//! (`madvise(MADV_HUGEPAGE)` on the 2 MiB-aligned interior) for every allocation of at least
//! [`MIN_ADVISED`] bytes, right after the system allocator hands it out and before it is
//! touched. Smaller allocations, and the advice's failure, change nothing. The binaries install
//! it with `#[global_allocator]`.

use std::alloc::{GlobalAlloc, Layout, System};

/// Transparent hugepage size on x86-64.
const HUGE_PAGE: usize = 2 << 20;
/// Allocations at least this large are advised.
pub const MIN_ADVISED: usize = 8 * HUGE_PAGE;

/// The system allocator plus hugepage advice for large blocks (see the module docs).
pub struct HugePageAlloc;

/// Advises the whole 2 MiB pages inside `[ptr, ptr + len)`.
fn advise(ptr: *mut u8, len: usize) {
    if ptr.is_null() || len < MIN_ADVISED {
        return;
    }
    let start = (ptr as usize).next_multiple_of(HUGE_PAGE);
    let end = (ptr as usize + len) / HUGE_PAGE * HUGE_PAGE;
    if end > start {
        // SAFETY: advice on memory this allocation owns; it changes no contents.
        unsafe { libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE) };
    }
}

// SAFETY: every call is forwarded to `System`, which upholds the contract; the advice only
// changes how the kernel backs pages of the returned blocks.
unsafe impl GlobalAlloc for HugePageAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's guarantees.
        let p = unsafe { System.alloc(layout) };
        advise(p, layout.size());
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's guarantees.
        let p = unsafe { System.alloc_zeroed(layout) };
        advise(p, layout.size());
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded with the caller's guarantees.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        advise(p, new_size);
        p
    }
}

/// Allocations at least this large get a mapping of their own once [`return_large_blocks`] ran.
pub const MMAP_THRESHOLD: usize = 1 << 20;

/// Has glibc's malloc serve every allocation of at least [`MMAP_THRESHOLD`] bytes with a mapping
/// of its own, unmapped when freed. By default glibc raises that threshold each time such a
/// block is freed (up to 32 MiB), after which a process's many-megabyte vertex arrays come from
/// its heaps, whose freed memory it keeps: a long-lived process running one graph run after
/// another (Python) grows its RSS by hundreds of MiB it never uses again (`bench/soak.py`). Returns
/// whether the allocator took the setting (false on a C library other than glibc).
pub fn return_large_blocks() -> bool {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: mallopt only sets a tunable of the allocator; M_MMAP_THRESHOLD takes any value
        // up to 32 MiB on 64-bit glibc, and 1 MiB is one.
        unsafe { libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD as libc::c_int) == 1 }
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Set in the child process of [`large_blocks_are_returned_when_freed`].
    const RSS_CHILD: &str = "DISKGRAPH_TEST_RSS_CHILD";

    #[test]
    fn large_blocks_are_returned_when_freed() {
        // Measured in a process of its own: the other tests allocate alongside.
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "huge_alloc::tests::rss_child",
                "--nocapture",
                "--test-threads",
                "1",
            ])
            .env(RSS_CHILD, "1")
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success() && text.contains("1 passed"), "{text}");
    }

    #[test]
    fn rss_child() {
        if std::env::var_os(RSS_CHILD).is_none() {
            return;
        }
        assert!(return_large_blocks());
        let rss = || -> u64 {
            let status = std::fs::read_to_string("/proc/self/status").unwrap();
            let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
            line.split_whitespace().nth(1).unwrap().parse().unwrap()
        };
        // Blocks of a few MiB freed after every round, small ones kept between them (so a heap
        // could not shrink past them): a heap that served the blocks would keep their ~44 MiB.
        let before = rss();
        let mut kept = Vec::new();
        for round in 0..10 {
            let mut blocks = Vec::new();
            for i in 0..8 {
                blocks.push(vec![round as u8 | 1; (2 + i) << 20]);
                kept.push(vec![0u8; 64]);
            }
            assert!(blocks.iter().all(|b| b[b.len() - 1] != 0));
        }
        assert!(
            rss() < before + 16 * 1024,
            "RSS grew from {before} KiB to {} KiB",
            rss()
        );
    }

    #[test]
    fn large_and_small_blocks_work_as_the_system_allocator() {
        // Under Miri only small blocks: it has no madvise, and would take minutes over 16 MiB.
        let sizes: &[usize] = match cfg!(miri) {
            true => &[16, 4096],
            false => &[16, 4096, MIN_ADVISED - 1, MIN_ADVISED, MIN_ADVISED + 12345],
        };
        for &size in sizes {
            let layout = Layout::from_size_align(size, 64).unwrap();
            // SAFETY: non-zero size; freed with the same layout.
            unsafe {
                let p = HugePageAlloc.alloc_zeroed(layout);
                assert!(!p.is_null());
                assert!(std::slice::from_raw_parts(p, size).iter().all(|&b| b == 0));
                p.write_bytes(7, size);
                let q = HugePageAlloc.realloc(p, layout, size * 2);
                assert!(std::slice::from_raw_parts(q, size).iter().all(|&b| b == 7));
                HugePageAlloc.dealloc(q, Layout::from_size_align(size * 2, 64).unwrap());
            }
        }
    }
}
