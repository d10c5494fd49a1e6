//! The page cache: see the crate doc.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Mutex, PoisonError};

use serde::Serialize;

/// Bytes of one utilisation unit.
const UNIT: usize = 64;

/// Which page to evict.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Replacement {
    /// Second chance: a hand sweeps the slots, clearing reference bits, and evicts the first
    /// page not referenced since its last pass (the default).
    #[default]
    Clock,
    /// Least recently used.
    Lru,
}

impl std::str::FromStr for Replacement {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s.to_ascii_lowercase().as_str() {
            "clock" => Ok(Replacement::Clock),
            "lru" => Ok(Replacement::Lru),
            _ => Err(format!("unknown replacement policy {s:?}: expected clock or lru")),
        }
    }
}

/// Counters of a [`PageCache`].
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct PageCacheStats {
    /// Pages found.
    pub hits: u64,
    /// Pages not found (then read and inserted by the caller).
    pub misses: u64,
    /// Pages evicted.
    pub evictions: u64,
    /// Mean share of 64-byte units touched per page, over evicted and resident pages (`None`
    /// when not tracking or no page was ever cached).
    pub utilization: Option<f64>,
}

impl PageCacheStats {
    /// hits / (hits + misses), 0 without lookups.
    pub fn hit_ratio(&self) -> f64 {
        let total = self.hits + self.misses;
        if total == 0 {
            0.0
        } else {
            self.hits as f64 / total as f64
        }
    }
}

/// A cache of fixed-size pages (see the crate doc).
pub struct PageCache {
    page_size: usize,
    slots: usize,
    policy: Replacement,
    track: bool,
    inner: Mutex<Inner>,
}

struct Inner {
    data: Vec<u8>,
    /// Page → slot.
    map: HashMap<u64, usize>,
    /// Slot → page (`None`: free).
    owner: Vec<Option<u64>>,
    /// Bytes valid in each slot (the last page of a file may be short).
    len: Vec<usize>,
    /// CLOCK reference bits.
    referenced: Vec<bool>,
    hand: usize,
    /// LRU: use tick of each slot, and the slots by tick (oldest first).
    tick: Vec<u64>,
    by_tick: BTreeMap<u64, usize>,
    now: u64,
    /// Slots never filled.
    free: Vec<usize>,
    /// Touched units per slot (when tracking), `units` bits each.
    touched: Vec<u64>,
    stats: PageCacheStats,
    /// Utilisation summed over evicted pages.
    evicted_utilization: f64,
}

impl PageCache {
    /// A cache of `capacity` bytes in pages of `page_size` bytes (a multiple of 64); `track`
    /// turns utilisation tracking on. Holds `capacity / page_size` pages (possibly none).
    pub fn new(capacity: u64, page_size: usize, policy: Replacement, track: bool) -> Self {
        assert!(
            page_size >= UNIT && page_size.is_multiple_of(UNIT),
            "page size {page_size}"
        );
        let slots = (capacity / page_size as u64) as usize;
        let words = Self::words(page_size);
        PageCache {
            page_size,
            slots,
            policy,
            track,
            inner: Mutex::new(Inner {
                data: vec![0; slots * page_size],
                map: HashMap::with_capacity(slots),
                owner: vec![None; slots],
                len: vec![0; slots],
                referenced: vec![false; slots],
                hand: 0,
                tick: vec![0; slots],
                by_tick: BTreeMap::new(),
                now: 0,
                free: (0..slots).rev().collect(),
                touched: if track { vec![0; slots * words] } else { Vec::new() },
                stats: PageCacheStats::default(),
                evicted_utilization: 0.0,
            }),
        }
    }

    fn words(page_size: usize) -> usize {
        (page_size / UNIT).div_ceil(64)
    }

    /// Bytes of one page.
    pub fn page_size(&self) -> usize {
        self.page_size
    }

    /// Whether the cache tracks page utilisation ([`mark`](Self::mark) does nothing otherwise).
    pub fn tracks_utilization(&self) -> bool {
        self.track
    }

    /// Pages the cache holds at most.
    pub fn slots(&self) -> usize {
        self.slots
    }

    /// Bytes the cache holds (its data and bookkeeping).
    pub fn bytes(&self) -> u64 {
        let per_slot =
            self.page_size + 8 + 8 + 1 + 8 + 24 + if self.track { Self::words(self.page_size) * 8 } else { 0 };
        (self.slots * per_slot) as u64
    }

    /// Copies page `page` into `buf` (at least a page long) if cached; returns its length, or
    /// `None` on a miss. Counts a hit or a miss.
    pub fn get_into(&self, page: u64, buf: &mut [u8]) -> Option<usize> {
        let mut g = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        let Some(&slot) = g.map.get(&page) else {
            g.stats.misses += 1;
            return None;
        };
        g.stats.hits += 1;
        g.use_slot(slot, self.policy);
        let len = g.len[slot];
        let at = slot * self.page_size;
        buf[..len].copy_from_slice(&g.data[at..at + len]);
        Some(len)
    }

    /// Whether page `page` is cached (no counting, no reference).
    pub fn contains(&self, page: u64) -> bool {
        self.inner
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .map
            .contains_key(&page)
    }

    /// Inserts page `page` with `bytes` (at most a page), evicting a page if full. Does nothing
    /// if the page is already there or the cache has no slots.
    pub fn insert(&self, page: u64, bytes: &[u8]) {
        self.insert_many([(page, bytes)]);
    }

    /// [`insert`](Self::insert) for many pages under one lock.
    pub fn insert_many<'a>(&self, pages: impl IntoIterator<Item = (u64, &'a [u8])>) {
        if self.slots == 0 {
            return;
        }
        let mut g = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        for (page, bytes) in pages {
            self.insert_locked(&mut g, page, bytes);
        }
    }

    fn insert_locked(&self, g: &mut Inner, page: u64, bytes: &[u8]) {
        assert!(bytes.len() <= self.page_size, "more than a page");
        if g.map.contains_key(&page) {
            return;
        }
        let slot = g.victim(self.policy, self.slots);
        if let Some(old) = g.owner[slot].take() {
            g.map.remove(&old);
            g.stats.evictions += 1;
            if self.track {
                let u = g.utilization(slot, self.page_size);
                g.evicted_utilization += u;
            }
        }
        let at = slot * self.page_size;
        g.data[at..at + bytes.len()].copy_from_slice(bytes);
        g.len[slot] = bytes.len();
        g.owner[slot] = Some(page);
        g.map.insert(page, slot);
        if self.track {
            let w = Self::words(self.page_size);
            g.touched[slot * w..(slot + 1) * w].iter_mut().for_each(|x| *x = 0);
        }
        g.use_slot(slot, self.policy);
    }

    /// Marks bytes `lo..hi` of page `page` as used (utilisation tracking; no effect otherwise or
    /// if the page is not cached).
    pub fn mark(&self, page: u64, lo: usize, hi: usize) {
        if !self.track || lo >= hi {
            return;
        }
        let mut g = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        let Some(&slot) = g.map.get(&page) else { return };
        let w = Self::words(self.page_size);
        let (first, last) = (lo / UNIT, (hi.min(self.page_size) - 1) / UNIT);
        for u in first..=last {
            g.touched[slot * w + u / 64] |= 1 << (u % 64);
        }
    }

    /// Hits over lookups so far (as [`PageCacheStats::hit_ratio`], without computing the
    /// utilisation).
    pub fn hit_ratio(&self) -> f64 {
        self.inner
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .stats
            .hit_ratio()
    }

    /// The counters, with utilisation over evicted and resident pages.
    pub fn stats(&self) -> PageCacheStats {
        let g = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        let mut s = g.stats.clone();
        if self.track {
            let resident: Vec<usize> = (0..self.slots).filter(|&i| g.owner[i].is_some()).collect();
            let pages = s.evictions as usize + resident.len();
            if pages > 0 {
                let sum: f64 = resident.iter().map(|&i| g.utilization(i, self.page_size)).sum();
                s.utilization = Some((g.evicted_utilization + sum) / pages as f64);
            }
        }
        s
    }
}

impl Inner {
    /// Records a use of `slot`.
    fn use_slot(&mut self, slot: usize, policy: Replacement) {
        match policy {
            Replacement::Clock => self.referenced[slot] = true,
            Replacement::Lru => {
                self.by_tick.remove(&self.tick[slot]);
                self.now += 1;
                self.tick[slot] = self.now;
                self.by_tick.insert(self.now, slot);
            }
        }
    }

    /// The slot to fill: a free one, else the policy's victim.
    fn victim(&mut self, policy: Replacement, slots: usize) -> usize {
        if let Some(free) = self.free.pop() {
            return free;
        }
        match policy {
            Replacement::Clock => loop {
                let s = self.hand;
                self.hand = (self.hand + 1) % slots;
                if self.referenced[s] {
                    self.referenced[s] = false;
                } else {
                    return s;
                }
            },
            Replacement::Lru => *self.by_tick.values().next().expect("a full cache has used slots"),
        }
    }

    /// Share of `slot`'s units touched.
    fn utilization(&self, slot: usize, page_size: usize) -> f64 {
        let units = self.len[slot].div_ceil(UNIT).max(1);
        let w = PageCache::words(page_size);
        let touched: u32 = self.touched[slot * w..(slot + 1) * w]
            .iter()
            .map(|x| x.count_ones())
            .sum();
        f64::from(touched) / units as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(byte: u8) -> Vec<u8> {
        vec![byte; 256]
    }

    #[test]
    fn hits_misses_and_contents() {
        let c = PageCache::new(1024, 256, Replacement::Clock, false);
        let mut buf = vec![0; 256];
        assert_eq!(c.get_into(7, &mut buf), None);
        c.insert(7, &page(7));
        c.insert(9, &[9; 100]);
        assert_eq!(c.get_into(7, &mut buf), Some(256));
        assert!(buf.iter().all(|&b| b == 7));
        assert_eq!(c.get_into(9, &mut buf), Some(100));
        let s = c.stats();
        assert_eq!((s.hits, s.misses, s.evictions), (2, 1, 0));
        assert!((s.hit_ratio() - 2.0 / 3.0).abs() < 1e-12);
    }

    #[test]
    fn lru_evicts_the_least_recently_used() {
        let c = PageCache::new(2 * 256, 256, Replacement::Lru, false);
        let mut buf = vec![0; 256];
        c.insert(1, &page(1));
        c.insert(2, &page(2));
        c.get_into(1, &mut buf);
        c.insert(3, &page(3));
        assert!(c.contains(1) && c.contains(3) && !c.contains(2));
    }

    #[test]
    fn clock_gives_a_second_chance() {
        let c = PageCache::new(2 * 256, 256, Replacement::Clock, false);
        c.insert(1, &page(1));
        c.insert(2, &page(2));
        // Both referenced: the hand clears 1 and 2, then evicts 1.
        c.insert(3, &page(3));
        assert!(!c.contains(1) && c.contains(2) && c.contains(3));
        let mut buf = vec![0; 256];
        c.get_into(2, &mut buf);
        // 2 referenced again, 3 referenced since insert: the hand clears 2... evicts 3? It
        // starts after slot 0: slot 1 holds 2 (referenced → cleared), slot 0 holds 3
        // (referenced → cleared), slot 1 (2, now clear) is evicted.
        c.insert(4, &page(4));
        assert!(c.contains(3) && c.contains(4) && !c.contains(2));
        assert_eq!(c.stats().evictions, 2);
    }

    #[test]
    fn utilization_counts_touched_units_of_evicted_and_resident_pages() {
        let c = PageCache::new(256, 256, Replacement::Clock, true);
        c.insert(1, &page(1));
        c.mark(1, 0, 64); // one of four units
        c.insert(2, &page(2)); // evicts 1 at 1/4
        c.mark(2, 10, 200); // units 0..=3: all four
        let u = c.stats().utilization.unwrap();
        assert!((u - (0.25 + 1.0) / 2.0).abs() < 1e-12, "{u}");
        assert_eq!(
            PageCache::new(0, 256, Replacement::Clock, true).stats().utilization,
            None
        );
    }
}
