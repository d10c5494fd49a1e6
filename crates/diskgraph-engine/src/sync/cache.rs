//! The sync engine's page cache: a fixed number of 4 KiB frames (the budget), shared by the
//! algorithm's thread, which copies lists out of it and reads what is missing itself, and the
//! prefetcher, which fills frames ahead of it.
//!
//! A page is absent, loading (its frame is with a read in flight), prefetched (loaded, not yet
//! used) or used. Replacement is CLOCK over used pages. Prefetched pages stay until used: the
//! prefetcher never evicts one, and the algorithm's own reads evict one only when every frame
//! is prefetched or loading — when the budget forces it out (counted as wasted). The prefetcher
//! leaves a reserve of frames out of its reach so that the algorithm can always read.

use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Instant;

use diskgraph_io::{page_frames, Frame, PAGE_BYTES};

/// A page's slot: none.
const ABSENT: u32 = u32::MAX;

/// What a slot holds.
#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    Free,
    /// Its frame is with a read in flight.
    Loading,
    /// Loaded ahead, not used yet.
    Prefetched,
    Used,
}

struct Slot {
    /// `(file, page)` held, for a slot not free.
    key: (usize, u64),
    frame: Option<Frame>,
    state: State,
    referenced: bool,
}

/// Counters of the cache, in pages.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct CacheCounters {
    /// Pages found loaded when the algorithm asked for them.
    pub hits: u64,
    /// Of those, pages the prefetcher had loaded and nobody had used yet.
    pub prefetch_hits: u64,
    /// Pages found loading: the algorithm waited for the prefetcher's read.
    pub waits: u64,
    /// Pages the algorithm read itself (blocking).
    pub misses: u64,
    /// Blocking reads the algorithm made.
    pub demand_reads: u64,
    /// Bytes the algorithm's own reads fetched.
    pub demand_bytes: u64,
    /// Pages the prefetcher claimed to load.
    pub prefetched: u64,
    /// Prefetched pages evicted before use.
    pub wasted: u64,
    /// Pages evicted.
    pub evictions: u64,
    /// Seconds the algorithm spent blocked on reads and on loading pages.
    pub wait_seconds: f64,
}

struct Inner {
    /// Per file, page → slot ([`ABSENT`]).
    tables: Vec<Vec<u32>>,
    slots: Vec<Slot>,
    free: Vec<u32>,
    hand: usize,
    /// Slots prefetched or loading for the prefetcher.
    ahead: usize,
    /// Slots holding used pages.
    used: usize,
    counters: CacheCounters,
}

/// Bytes a frame costs: its page and its slot.
pub(crate) const FRAME_BYTES: u64 = (PAGE_BYTES + std::mem::size_of::<Slot>()) as u64;

/// Frames the prefetcher may not take (see the module doc).
fn reserve(frames: usize) -> usize {
    (frames / 8).clamp(1, 64)
}

/// The page cache (see the module doc).
pub(crate) struct PageCache {
    inner: Mutex<Inner>,
    loaded: Condvar,
    frames: usize,
}

/// A page the prefetcher claimed: fill its frame and hand both back with [`PageCache::fill`].
pub(crate) struct Claim {
    pub page: u64,
    pub slot: u32,
    pub frame: Frame,
}

impl PageCache {
    /// A cache of `frames` frames over files of `pages[i]` pages.
    pub(crate) fn new(frames: usize, pages: &[u64]) -> PageCache {
        let slots = page_frames(frames)
            .into_iter()
            .map(|frame| Slot {
                key: (0, 0),
                frame: Some(frame),
                state: State::Free,
                referenced: false,
            })
            .collect();
        PageCache {
            inner: Mutex::new(Inner {
                tables: pages.iter().map(|&p| vec![ABSENT; p as usize]).collect(),
                slots,
                free: (0..frames as u32).rev().collect(),
                hand: 0,
                ahead: 0,
                used: 0,
                counters: CacheCounters::default(),
            }),
            loaded: Condvar::new(),
            frames,
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Number of frames.
    pub(crate) fn frames(&self) -> usize {
        self.frames
    }

    /// The counters so far.
    pub(crate) fn counters(&self) -> CacheCounters {
        self.lock().counters
    }

    /// Claims for the prefetcher the pages of `file` in `pages` that are absent, as far as
    /// frames allow without evicting a prefetched page or touching the reserve; in page order.
    pub(crate) fn claim_ahead(&self, file: usize, pages: std::ops::Range<u64>) -> Vec<Claim> {
        let mut g = self.lock();
        let mut claims = Vec::new();
        let limit = self.frames - reserve(self.frames);
        for page in pages {
            if g.tables[file][page as usize] != ABSENT {
                continue;
            }
            if g.ahead >= limit {
                break;
            }
            let Some(slot) = g.take_slot(false) else { break };
            g.ahead += 1;
            g.counters.prefetched += 1;
            claims.push(g.start_loading(slot, file, page));
        }
        claims
    }

    /// Gives back the prefetcher's claims, loaded when `ok` (else the pages are absent again,
    /// for the algorithm to read itself).
    pub(crate) fn fill(&self, file: usize, claims: Vec<Claim>, ok: bool) {
        let mut g = self.lock();
        for c in claims {
            let s = &mut g.slots[c.slot as usize];
            s.frame = Some(c.frame);
            if ok {
                s.state = State::Prefetched;
            } else {
                s.state = State::Free;
                g.tables[file][c.page as usize] = ABSENT;
                g.free.push(c.slot);
                g.ahead -= 1;
            }
        }
        drop(g);
        self.loaded.notify_all();
    }

    /// Appends bytes `range` of `file` to `out`, from the cache where loaded, waiting for pages
    /// loading, and reading the absent ones with `read(first_page, frames)` (blocking).
    pub(crate) fn copy_out<E>(
        &self,
        file: usize,
        range: std::ops::Range<u64>,
        out: &mut Vec<u8>,
        mut read: impl FnMut(u64, &mut [Frame]) -> Result<(), E>,
    ) -> Result<(), E> {
        if range.is_empty() {
            return Ok(());
        }
        let page_bytes = PAGE_BYTES as u64;
        let last = (range.end - 1) / page_bytes;
        let mut page = range.start / page_bytes;
        let piece = |page: u64| {
            let lo = range.start.max(page * page_bytes) - page * page_bytes;
            let hi = range.end.min((page + 1) * page_bytes) - page * page_bytes;
            lo as usize..hi as usize
        };
        let mut g = self.lock();
        while page <= last {
            let slot = g.tables[file][page as usize];
            if slot != ABSENT {
                let inner = &mut *g;
                let s = &mut inner.slots[slot as usize];
                match s.state {
                    State::Loading => {
                        inner.counters.waits += 1;
                        let t = Instant::now();
                        g = self.loaded.wait(g).unwrap_or_else(PoisonError::into_inner);
                        g.counters.wait_seconds += t.elapsed().as_secs_f64();
                        continue;
                    }
                    State::Prefetched => {
                        s.state = State::Used;
                        inner.ahead -= 1;
                        inner.used += 1;
                        inner.counters.prefetch_hits += 1;
                    }
                    State::Used => {}
                    State::Free => unreachable!("a mapped slot is not free"),
                }
                s.referenced = true;
                inner.counters.hits += 1;
                out.extend_from_slice(&s.frame.as_ref().expect("a loaded page has its frame").0[piece(page)]);
                page += 1;
                continue;
            }
            // Absent: claim the run of absent pages from here, read it, copy it, keep it.
            let mut claims: Vec<(u64, u32)> = Vec::new();
            let mut p = page;
            while p <= last && g.tables[file][p as usize] == ABSENT && claims.len() < 256 {
                match g.take_slot(true) {
                    Some(slot) => {
                        let c = g.start_loading(slot, file, p);
                        g.slots[slot as usize].frame = Some(c.frame);
                        claims.push((p, slot));
                    }
                    None if claims.is_empty() => {
                        // Every frame is loading: wait for one.
                        g = self.loaded.wait(g).unwrap_or_else(PoisonError::into_inner);
                        continue;
                    }
                    None => break,
                }
                p += 1;
            }
            if claims.is_empty() {
                // The page arrived while this thread waited for a frame.
                continue;
            }
            let mut frames: Vec<Frame> = claims
                .iter()
                .map(|&(_, slot)| g.slots[slot as usize].frame.take().expect("claimed with its frame"))
                .collect();
            g.counters.misses += claims.len() as u64;
            g.counters.demand_reads += 1;
            drop(g);
            let t = Instant::now();
            let result = read(page, &mut frames);
            let waited = t.elapsed().as_secs_f64();
            if result.is_ok() {
                for (f, &(p, _)) in frames.iter().zip(&claims) {
                    out.extend_from_slice(&f.0[piece(p)]);
                }
            }
            g = self.lock();
            g.counters.wait_seconds += waited;
            g.counters.demand_bytes += (claims.len() * PAGE_BYTES) as u64;
            for (frame, (p, slot)) in frames.into_iter().zip(claims) {
                let s = &mut g.slots[slot as usize];
                s.frame = Some(frame);
                if result.is_ok() {
                    s.state = State::Used;
                    s.referenced = true;
                    g.used += 1;
                } else {
                    s.state = State::Free;
                    g.tables[file][p as usize] = ABSENT;
                    g.free.push(slot);
                }
                page = p + 1;
            }
            drop(g);
            self.loaded.notify_all();
            result?;
            g = self.lock();
        }
        Ok(())
    }
}

impl Inner {
    /// A slot to load into: a free one, else a used page's (CLOCK); for the algorithm
    /// (`demand`), a prefetched page's when nothing else is left.
    fn take_slot(&mut self, demand: bool) -> Option<u32> {
        if let Some(s) = self.free.pop() {
            return Some(s);
        }
        let n = self.slots.len();
        if self.used > 0 {
            // Two sweeps find an unreferenced used page.
            for _ in 0..2 * n {
                let i = self.hand;
                self.hand = (self.hand + 1) % n;
                let s = &mut self.slots[i];
                if s.state != State::Used {
                    continue;
                }
                if s.referenced {
                    s.referenced = false;
                    continue;
                }
                self.used -= 1;
                return Some(self.evict(i));
            }
        }
        if !demand {
            return None;
        }
        for _ in 0..n {
            let i = self.hand;
            self.hand = (self.hand + 1) % n;
            if self.slots[i].state == State::Prefetched {
                self.ahead -= 1;
                self.counters.wasted += 1;
                return Some(self.evict(i));
            }
        }
        None
    }

    /// Empties slot `i` (a loaded page) and returns it.
    fn evict(&mut self, i: usize) -> u32 {
        let (file, page) = self.slots[i].key;
        self.tables[file][page as usize] = ABSENT;
        self.slots[i].state = State::Free;
        self.counters.evictions += 1;
        i as u32
    }

    /// Marks `slot` loading page `page` of `file` and takes its frame out.
    fn start_loading(&mut self, slot: u32, file: usize, page: u64) -> Claim {
        let s = &mut self.slots[slot as usize];
        s.key = (file, page);
        s.state = State::Loading;
        s.referenced = false;
        self.tables[file][page as usize] = slot;
        Claim {
            page,
            slot,
            frame: s.frame.take().expect("a slot not loading has its frame"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pages of a fake file whose byte `i` is `i % 251`.
    fn read_fake(first: u64, frames: &mut [Frame]) -> Result<(), String> {
        for (k, f) in frames.iter_mut().enumerate() {
            for (j, b) in f.0.iter_mut().enumerate() {
                *b = (((first + k as u64) * PAGE_BYTES as u64 + j as u64) % 251) as u8;
            }
        }
        Ok(())
    }

    fn expect(range: std::ops::Range<u64>) -> Vec<u8> {
        range.map(|i| (i % 251) as u8).collect()
    }

    #[test]
    fn copies_are_the_file_through_misses_hits_and_evictions() {
        let cache = PageCache::new(4, &[20]);
        for range in [0..10u64, 5000..17000, 4090..4100, 0..81920, 40000..40001, 100..100] {
            let mut out = Vec::new();
            cache.copy_out(0, range.clone(), &mut out, read_fake).unwrap();
            assert_eq!(out, expect(range));
        }
        let c = cache.counters();
        assert!(c.hits > 0 && c.misses > 0 && c.evictions > 0);
    }

    #[test]
    fn prefetched_pages_stay_until_used_and_the_reserve_stays_free() {
        let cache = PageCache::new(8, &[100]);
        // Seven frames may be taken ahead (one in reserve).
        let claims = cache.claim_ahead(0, 0..100);
        assert_eq!(claims.len(), 7);
        let mut claims = claims;
        for c in &mut claims {
            read_fake(c.page, std::slice::from_mut(&mut c.frame)).unwrap();
        }
        cache.fill(0, claims, true);
        assert!(
            cache.claim_ahead(0, 50..60).is_empty(),
            "no prefetched page is evicted for more"
        );
        let mut out = Vec::new();
        cache.copy_out(0, 0..3 * 4096, &mut out, read_fake).unwrap();
        assert_eq!(out, expect(0..3 * 4096));
        let c = cache.counters();
        assert_eq!((c.prefetch_hits, c.misses, c.wasted), (3, 0, 0));
        // The algorithm's own read of 9 pages evicts what it must, prefetched pages last.
        out.clear();
        cache.copy_out(0, 60 * 4096..69 * 4096, &mut out, read_fake).unwrap();
        assert_eq!(out, expect(60 * 4096..69 * 4096));
        assert!(cache.counters().wasted > 0);
    }

    #[test]
    fn a_failed_read_leaves_the_pages_absent() {
        let cache = PageCache::new(4, &[10]);
        let mut out = Vec::new();
        let e = cache.copy_out(0, 0..100, &mut out, |_, _| Err("boom".to_string()));
        assert_eq!(e, Err("boom".to_string()));
        cache.copy_out(0, 0..100, &mut out, read_fake).unwrap();
        assert_eq!(out, expect(0..100));
    }
}
