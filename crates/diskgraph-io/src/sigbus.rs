//! Faults of memory-mapped files turned into errors instead of a dead process.
//!
//! A page of a mapped file that cannot be read — the device reports an I/O error, the file was
//! cut short while mapped, a written page of a sparse file finds the disk full — reaches the
//! process as SIGBUS at the instruction touching it, whose default action kills the process.
//! A mapping registered as a [`MapGuard`] is covered by a SIGBUS handler installed on the first
//! registration: on a fault inside it, the handler maps a zero page over the faulting page
//! (`mmap(MAP_FIXED | MAP_ANONYMOUS)`, a plain system call), records the fault in the guard and
//! returns, so the instruction runs again and reads zeros. The code that read through the
//! mapping asks the guard afterwards ([`MapGuard::fault`]) and turns a recorded fault into an
//! error naming the file and the byte; what it computed from the zeros is thrown away with the
//! error. Nothing jumps out of the handler (no `siglongjmp` over Rust frames): the faulting code
//! runs on with well-defined memory.
//!
//! A SIGBUS outside every registered mapping (or one sent by `kill`) goes to the handler that was
//! installed before — Rust's stack-overflow handler, Python's `faulthandler` — or, when there was
//! none, to the default action, as if this handler did not exist.
//!
//! The handler touches only atomics and makes one system call: registrations live in slots of
//! chunks that are never freed, found without a lock; a chunk of more slots is appended when all
//! are taken.

use std::ffi::c_void;
use std::ptr::null_mut;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicPtr, AtomicU64, AtomicU8, AtomicUsize, Ordering};
use std::sync::OnceLock;

/// Slots per chunk of registrations.
const SLOTS: usize = 64;

/// A slot's states.
const FREE: u8 = 0;
const CLAIMED: u8 = 1;
const LIVE: u8 = 2;

/// No fault recorded yet (in [`Slot::offset`]).
const NO_FAULT: u64 = u64::MAX;

/// One registered mapping, as the handler sees it.
struct Slot {
    state: AtomicU8,
    /// Bumped before and after the range changes (odd while it changes), so the handler never
    /// matches a range read half old, half new.
    seq: AtomicU64,
    start: AtomicUsize,
    len: AtomicUsize,
    writable: AtomicBool,
    /// Byte offset in the mapping of the first fault, or [`NO_FAULT`].
    offset: AtomicU64,
    /// `si_code` of the first fault.
    code: AtomicI32,
}

impl Slot {
    const fn new() -> Slot {
        Slot {
            state: AtomicU8::new(FREE),
            seq: AtomicU64::new(0),
            start: AtomicUsize::new(0),
            len: AtomicUsize::new(0),
            writable: AtomicBool::new(false),
            offset: AtomicU64::new(NO_FAULT),
            code: AtomicI32::new(0),
        }
    }

    /// Sets the range, bracketed by the sequence counter.
    fn set_range(&self, start: usize, len: usize, writable: bool) {
        self.seq.fetch_add(1, Ordering::AcqRel);
        self.start.store(start, Ordering::Release);
        self.len.store(len, Ordering::Release);
        self.writable.store(writable, Ordering::Release);
        self.offset.store(NO_FAULT, Ordering::Release);
        self.seq.fetch_add(1, Ordering::AcqRel);
    }

    /// The range `(start, len, writable)` if the slot is live and was read consistently.
    fn live_range(&self) -> Option<(usize, usize, bool)> {
        let before = self.seq.load(Ordering::Acquire);
        if before % 2 == 1 || self.state.load(Ordering::Acquire) != LIVE {
            return None;
        }
        let range = (
            self.start.load(Ordering::Acquire),
            self.len.load(Ordering::Acquire),
            self.writable.load(Ordering::Acquire),
        );
        (self.seq.load(Ordering::Acquire) == before).then_some(range)
    }
}

/// A chunk of slots; chunks form a list that only grows.
struct Chunk {
    slots: [Slot; SLOTS],
    next: AtomicPtr<Chunk>,
}

static FIRST: Chunk = Chunk {
    slots: [const { Slot::new() }; SLOTS],
    next: AtomicPtr::new(null_mut()),
};

/// Every slot, chunk by chunk.
fn all_slots() -> impl Iterator<Item = &'static Slot> {
    let mut chunk: Option<&'static Chunk> = Some(&FIRST);
    std::iter::from_fn(move || {
        let c = chunk?;
        // SAFETY: `next` is null or a chunk leaked by `claim`, never freed.
        chunk = unsafe { c.next.load(Ordering::Acquire).as_ref() };
        Some(c.slots.iter())
    })
    .flatten()
}

/// Takes a free slot, appending a chunk when none is left.
fn claim() -> &'static Slot {
    loop {
        if let Some(slot) = all_slots().find(|s| {
            s.state
                .compare_exchange(FREE, CLAIMED, Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
        }) {
            return slot;
        }
        let fresh: &'static Chunk = Box::leak(Box::new(Chunk {
            slots: [const { Slot::new() }; SLOTS],
            next: AtomicPtr::new(null_mut()),
        }));
        let mut tail: &'static Chunk = &FIRST;
        loop {
            match tail.next.compare_exchange(
                null_mut(),
                std::ptr::from_ref(fresh).cast_mut(),
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => break,
                // SAFETY: a non-null `next` is a leaked chunk.
                Err(next) => tail = unsafe { &*next },
            }
        }
    }
}

/// The handler that was installed before ours.
struct Previous(libc::sigaction);

// SAFETY: a plain C struct, written once before any reader sees it.
unsafe impl Sync for Previous {}
// SAFETY: as above.
unsafe impl Send for Previous {}

static PREVIOUS: OnceLock<Previous> = OnceLock::new();

/// Bytes of a page (replaced one at a time).
static PAGE: AtomicUsize = AtomicUsize::new(4096);

/// Installs the handler once per process, keeping the one before it for faults not ours.
fn install() {
    PREVIOUS.get_or_init(|| {
        // SAFETY: sysconf has no preconditions.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        if page > 0 {
            PAGE.store(page as usize, Ordering::Relaxed);
        }
        // SAFETY: zeroed is a valid `sigaction` (no handler, empty mask), filled in below.
        let mut ours: libc::sigaction = unsafe { std::mem::zeroed() };
        ours.sa_sigaction = on_sigbus as *const () as libc::sighandler_t;
        ours.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
        // SAFETY: as above.
        let mut old: libc::sigaction = unsafe { std::mem::zeroed() };
        // SAFETY: both pointers are valid; the mask is initialised by sigemptyset.
        unsafe {
            libc::sigemptyset(&mut ours.sa_mask);
            libc::sigaction(libc::SIGBUS, &ours, &mut old);
        }
        Previous(old)
    });
}

/// The SIGBUS handler (see the module doc). Async-signal-safe: atomics and `mmap` only.
extern "C" fn on_sigbus(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut c_void) {
    // SAFETY: the kernel passes a valid siginfo to an SA_SIGINFO handler.
    let (code, addr) = unsafe { ((*info).si_code, (*info).si_addr() as usize) };
    if matches!(code, libc::BUS_ADRERR | libc::BUS_OBJERR | libc::BUS_MCEERR_AR) && repair(addr, code) {
        return;
    }
    forward(sig, info, ctx, code);
}

/// Maps a zero page over the faulting page if `addr` lies in a registered mapping, recording
/// the fault in its slot; whether it did.
fn repair(addr: usize, code: libc::c_int) -> bool {
    for slot in all_slots() {
        let Some((start, len, writable)) = slot.live_range() else {
            continue;
        };
        if addr < start || addr - start >= len {
            continue;
        }
        let page = addr & !(PAGE.load(Ordering::Relaxed) - 1);
        let prot = match writable {
            true => libc::PROT_READ | libc::PROT_WRITE,
            false => libc::PROT_READ,
        };
        let flags = libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED;
        // SAFETY: the page lies inside a mapping its owner keeps alive while registered (the
        // fault happened in it); replacing it with a zero page changes no other memory.
        let mapped = unsafe { libc::syscall(libc::SYS_mmap, page, PAGE.load(Ordering::Relaxed), prot, flags, -1, 0) };
        if mapped as usize != page {
            return false;
        }
        let offset = (addr - start) as u64;
        if slot
            .offset
            .compare_exchange(NO_FAULT, offset, Ordering::AcqRel, Ordering::Relaxed)
            .is_ok()
        {
            slot.code.store(code, Ordering::Release);
        }
        return true;
    }
    false
}

/// Hands a SIGBUS that is not ours to the handler installed before, or to the default action.
fn forward(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut c_void, code: libc::c_int) {
    let Some(Previous(prev)) = PREVIOUS.get() else { return };
    match prev.sa_sigaction {
        libc::SIG_IGN if code <= libc::SI_USER => {}
        libc::SIG_DFL | libc::SIG_IGN => {
            // The default action: a fault recurs when the instruction runs again, a sent
            // signal is sent again (blocked until this handler returns).
            // SAFETY: zeroed is SIG_DFL with an empty mask; sigaction and raise are
            // async-signal-safe.
            unsafe {
                let mut dfl: libc::sigaction = std::mem::zeroed();
                dfl.sa_sigaction = libc::SIG_DFL;
                libc::sigaction(libc::SIGBUS, &dfl, null_mut());
                if code <= libc::SI_USER {
                    libc::raise(libc::SIGBUS);
                }
            }
        }
        handler if prev.sa_flags & libc::SA_SIGINFO != 0 => {
            // SAFETY: an SA_SIGINFO handler has this signature.
            let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut c_void) =
                unsafe { std::mem::transmute(handler) };
            f(sig, info, ctx);
        }
        handler => {
            // SAFETY: a plain handler has this signature.
            let f: extern "C" fn(libc::c_int) = unsafe { std::mem::transmute(handler) };
            f(sig);
        }
    }
}

/// A fault recorded in a guarded mapping.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct MappedFault {
    /// Byte offset in the mapping of the first faulting access.
    pub(crate) offset: u64,
    /// What the kernel said went wrong.
    pub(crate) cause: &'static str,
}

/// A mapping covered by the SIGBUS handler while the guard lives (see the module doc).
#[derive(Debug)]
pub(crate) struct MapGuard {
    slot: &'static Slot,
}

impl std::fmt::Debug for Slot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Slot")
            .field("start", &self.start.load(Ordering::Relaxed))
            .field("len", &self.len.load(Ordering::Relaxed))
            .finish()
    }
}

impl MapGuard {
    /// Covers the mapping of `len` bytes at `start` (`writable` if it is mapped for writing).
    ///
    /// # Safety
    /// `start..start + len` must be one mapping made by `mmap`, which stays mapped until the
    /// guard is dropped, and whose owner accepts a faulting page being replaced by zeros (it
    /// asks [`fault`](Self::fault) before trusting what it read).
    pub(crate) unsafe fn new(start: *const u8, len: usize, writable: bool) -> MapGuard {
        install();
        let slot = claim();
        slot.set_range(start as usize, len, writable);
        slot.state.store(LIVE, Ordering::Release);
        MapGuard { slot }
    }

    /// The first fault taken in the mapping since it was covered, if any.
    pub(crate) fn fault(&self) -> Option<MappedFault> {
        let offset = self.slot.offset.load(Ordering::Acquire);
        (offset != NO_FAULT).then(|| MappedFault {
            offset,
            cause: match self.slot.code.load(Ordering::Acquire) {
                libc::BUS_ADRERR => "the page lies past the end of the file: it was cut short while mapped",
                libc::BUS_MCEERR_AR => "the memory holding the page is damaged",
                _ => "the page could not be read or written: a device error, or no space left for it",
            },
        })
    }
}

impl Drop for MapGuard {
    fn drop(&mut self) {
        self.slot.state.store(CLAIMED, Ordering::Release);
        self.slot.set_range(0, 0, false);
        self.slot.state.store(FREE, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_reused_and_chunks_appended_when_all_are_taken() {
        let map = memmap2::MmapMut::map_anon(4096).unwrap();
        let guards: Vec<MapGuard> = (0..SLOTS + 3)
            // SAFETY: the anonymous map outlives the guards.
            .map(|_| unsafe { MapGuard::new(map.as_ptr(), map.len(), true) })
            .collect();
        let taken = guards
            .iter()
            .map(|g| std::ptr::from_ref(g.slot))
            .collect::<std::collections::HashSet<_>>();
        assert_eq!(taken.len(), SLOTS + 3, "every guard has a slot of its own");
        assert!(guards.iter().all(|g| g.fault().is_none()));
        drop(guards);
        // SAFETY: as above.
        let again = unsafe { MapGuard::new(map.as_ptr(), map.len(), true) };
        assert_eq!(again.fault(), None);
    }
}
