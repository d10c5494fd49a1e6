//! The prefetcher thread (PrefEdge §3.3, Algorithm 1): over and over, read ahead of each
//! registered iterator and issue reads for the pages of the lists it will need that are neither
//! loaded nor loading, keeping up to `--ift` random and `--ift-seq` sequential reads in flight.
//!
//! Quotas follow §3.5: iterators are served innermost first, and iterators of one level share
//! what is left equally; a vertex's adjacency and weights are two files at one level, so each
//! gets a read per vertex in turn. A random read is one list's run of absent pages (cut at
//! [`RUN_PAGES`]); a sequential read is a run of [`RUN_PAGES`] pages from the iterator's
//! position on. Under `--io mmap` a read is `madvise(MADV_WILLNEED)` on the run, and the kernel
//! reports no completion: each pass issues at most the quotas, skipping runs advised recently.

use std::ops::Range;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use std::time::{Duration, Instant};

use diskgraph_io::{PageReads, PAGE_BYTES};

use super::ahead::Registered;
use super::cache::Claim;
use super::{Lists, Locator, Shared, Side, SUMMARY_STRIDE};

/// How many times `--ift` vertices a random iterator's read-ahead may scan (see
/// `Prefetcher::ahead_random`).
const SCAN_FACTOR: usize = 8;

/// Pages of one read at most (128 KiB).
const RUN_PAGES: u64 = 32;

/// Slots of the table of runs advised recently (mmap).
const ADVISED_SLOTS: usize = 1 << 14;

/// How long the prefetcher parks when it found nothing to do.
const IDLE: Duration = Duration::from_millis(2);

/// Whether a read serves a random or a sequential iterator.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Random,
    Sequential,
}

/// A read in flight: which file, the `(page, slot)` of each frame, its kind.
struct InFlight {
    file: usize,
    slots: Vec<(u64, u32)>,
    kind: Kind,
}

/// The prefetcher's state.
struct Prefetcher<'s> {
    shared: &'s Shared,
    reads: Option<PageReads>,
    /// Tag → read in flight.
    flights: Vec<Option<InFlight>>,
    /// Tags free for the next read.
    free_tags: Vec<usize>,
    in_flight: [usize; 2],
    /// Runs advised recently, by `(file, first page)` hash (mmap).
    advised: Vec<u64>,
}

/// Runs the prefetcher until `shared.stop`.
pub(super) fn run(shared: &Arc<Shared>, uring: bool) {
    let mapped = shared.cache.is_none();
    let capacity = shared.ift + shared.ift_seq + RUN_PAGES as usize;
    let mut p = Prefetcher {
        shared,
        reads: (!mapped).then(|| PageReads::new(capacity, uring).0),
        flights: Vec::new(),
        free_tags: Vec::new(),
        in_flight: [0, 0],
        advised: if mapped {
            vec![u64::MAX; ADVISED_SLOTS]
        } else {
            Vec::new()
        },
    };
    while !shared.stop.load(Relaxed) {
        p.complete(false);
        let issued = p.pass();
        let waiting = p.reads.as_ref().is_some_and(|r| r.in_flight() > 0);
        if waiting {
            p.complete(true);
        } else if issued == 0 || mapped {
            shared.sleeping.store(true, Relaxed);
            std::thread::park_timeout(if mapped && issued > 0 { IDLE / 20 } else { IDLE });
            shared.sleeping.store(false, Relaxed);
        }
    }
    // Reads in flight finish before their frames go back (PageReads waits on drop too).
    while p.reads.as_ref().is_some_and(|r| r.in_flight() > 0) {
        p.complete(true);
    }
}

impl Prefetcher<'_> {
    /// Puts completed reads into the cache, waiting for one when `wait`.
    fn complete(&mut self, wait: bool) {
        let Some(reads) = &mut self.reads else { return };
        let busy = Instant::now();
        let done = reads.reap(wait);
        if wait {
            let nanos = busy.elapsed().as_nanos() as u64;
            self.shared.prefetch_busy_nanos.fetch_add(nanos, Relaxed);
        }
        let cache = self.shared.cache.as_ref().expect("reads go into the cache");
        for c in done {
            let f = self.flights[c.tag as usize].take().expect("a read has its flight");
            self.free_tags.push(c.tag as usize);
            self.in_flight[f.kind as usize] -= 1;
            let ok = c.result.is_ok();
            if ok {
                let bytes = self.shared.files[f.file]
                    .len()
                    .min((c.first + c.frames.len() as u64) * PAGE_BYTES as u64)
                    - c.first * PAGE_BYTES as u64;
                self.shared.prefetch_bytes.fetch_add(bytes, Relaxed);
            }
            let claims = f
                .slots
                .into_iter()
                .zip(c.frames)
                .map(|((page, slot), frame)| Claim { page, slot, frame })
                .collect();
            cache.fill(f.file, claims, ok);
        }
    }

    /// One pass over the iterators; returns the reads issued.
    fn pass(&mut self) -> usize {
        let iterators: Vec<Arc<Registered>> = self
            .shared
            .iterators
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone();
        let mut issued = 0;
        for kind in [Kind::Random, Kind::Sequential] {
            let target = match kind {
                Kind::Random => self.shared.ift,
                Kind::Sequential => self.shared.ift_seq,
            };
            let mut quota = target.saturating_sub(self.in_flight[kind as usize]);
            let of_kind: Vec<&Arc<Registered>> = iterators
                .iter()
                .filter(|i| (i.cursor.sequential_from().is_some()) == (kind == Kind::Sequential))
                .collect();
            // Levels, innermost first (the list is sorted so); equal shares within a level.
            let mut at = 0;
            while at < of_kind.len() && quota > 0 {
                let level = of_kind[at].reads.level;
                let peers: Vec<&Arc<Registered>> = of_kind[at..]
                    .iter()
                    .take_while(|i| i.reads.level == level)
                    .copied()
                    .collect();
                at += peers.len();
                let share = quota.div_ceil(peers.len());
                for it in peers {
                    let n = match kind {
                        Kind::Random => self.ahead_random(it, share.min(quota)),
                        Kind::Sequential => self.ahead_sequential(it, share.min(quota)),
                    };
                    quota -= n.min(quota);
                    issued += n;
                }
            }
        }
        issued
    }

    /// Reads for the lists of the next vertices of a queue or heap iterator; returns the reads.
    ///
    /// PrefEdge reads ahead `--ift` vertices; where lists are much shorter than a page (a road
    /// network's), those fit on a page or two and the prefetcher barely gets ahead. So the scan
    /// goes on for up to [`SCAN_FACTOR`] × `--ift` vertices until the quota is issued, skipping a
    /// page range just looked at (consecutive small lists share pages).
    fn ahead_random(&mut self, it: &Registered, quota: usize) -> usize {
        let mut issued = 0;
        let limit = SCAN_FACTOR * self.shared.ift.max(quota);
        let mut last: Option<(usize, Range<u64>)> = None;
        let shared = self.shared;
        it.cursor.ahead(limit, |v| {
            for &d in &it.reads.directions {
                let Some(side) = shared.side(d) else { continue };
                for (file, pages) in pages_of(side, v, it.reads.weights) {
                    if last
                        .as_ref()
                        .is_some_and(|(f, r)| *f == file && r.start <= pages.start && pages.end <= r.end)
                    {
                        continue;
                    }
                    last = Some((file, pages.clone()));
                    issued += self.issue(file, pages, Kind::Random, quota - issued.min(quota));
                    if issued >= quota {
                        return false;
                    }
                }
            }
            true
        });
        issued
    }

    /// Reads ahead of a sequential iterator: runs of pages from its position on, as far as
    /// `quota` runs reach.
    fn ahead_sequential(&mut self, it: &Registered, quota: usize) -> usize {
        let Some((from, end)) = it.cursor.sequential_from() else {
            return 0;
        };
        if from >= end {
            return 0;
        }
        let mut issued = 0;
        let window = RUN_PAGES * quota as u64;
        for &d in &it.reads.directions {
            let Some(side) = self.shared.side(d) else { continue };
            // The entries of vertices `from..end` by a locator (under a summary, the anchors'
            // entries around them).
            let span = |locator: &Locator| match locator {
                Locator::Offsets(o) => (o[from as usize], o[end as usize]),
                Locator::Summary { anchors, .. } => (
                    anchors[from as usize / SUMMARY_STRIDE],
                    anchors[(end as usize).div_ceil(SUMMARY_STRIDE).min(anchors.len() - 1)],
                ),
            };
            let index_of = |locator: &Locator| match locator {
                Locator::Summary { idx, .. } => Some((*idx, 8 * u64::from(from), 8 * (u64::from(end) + 1))),
                Locator::Offsets(_) => None,
            };
            let (lo, hi) = span(&side.arcs);
            let mut files: Vec<(usize, u64, u64)> = Vec::with_capacity(5);
            match &side.lists {
                Lists::Plain { adj } => files.push((*adj, 4 * lo, 4 * hi)),
                Lists::Compressed { cadj, locator } => {
                    let (a, b) = span(locator);
                    files.push((*cadj, a, b));
                    files.extend(index_of(locator));
                }
            }
            if it.reads.weights {
                files.extend(side.wgt.map(|w| (w, 4 * lo, 4 * hi)));
            }
            if side.needs_arcs(it.reads.weights) {
                files.extend(index_of(&side.arcs));
            }
            for (file, start, stop) in files {
                let pages = byte_pages(start, stop);
                let pages = pages.start..pages.end.min(pages.start + window);
                issued += self.issue(file, pages, Kind::Sequential, quota.saturating_sub(issued).max(1));
                if issued >= quota {
                    return issued;
                }
            }
        }
        issued
    }

    /// Issues reads for the absent pages of `pages` in `file`, in runs of up to [`RUN_PAGES`],
    /// at most `quota` of them; returns the reads issued.
    fn issue(&mut self, file: usize, pages: Range<u64>, kind: Kind, quota: usize) -> usize {
        let Some(cache) = &self.shared.cache else {
            return self.advise(file, pages, quota);
        };
        let mut issued = 0;
        let mut first = pages.start;
        while first < pages.end && issued < quota {
            let chunk = first..pages.end.min(first + RUN_PAGES);
            first = chunk.end;
            let claims = cache.claim_ahead(file, chunk);
            if claims.is_empty() {
                continue;
            }
            // Contiguous runs of the claimed pages.
            let mut run: Vec<Claim> = Vec::new();
            for c in claims {
                if run.last().is_some_and(|l| l.page + 1 != c.page) {
                    self.submit(file, std::mem::take(&mut run), kind);
                    issued += 1;
                }
                run.push(c);
            }
            self.submit(file, run, kind);
            issued += 1;
        }
        issued
    }

    /// Starts reading the claimed `run` (consecutive pages).
    fn submit(&mut self, file: usize, run: Vec<Claim>, kind: Kind) {
        while self.reads.as_ref().is_some_and(|r| r.in_flight() >= r.capacity()) {
            self.complete(true);
        }
        let reads = self.reads.as_mut().expect("the cache is read through PageReads");
        let tag = self.free_tags.pop().unwrap_or_else(|| {
            self.flights.push(None);
            self.flights.len() - 1
        });
        let first = run[0].page;
        let slots = run.iter().map(|c| (c.page, c.slot)).collect();
        let frames = run.into_iter().map(|c| c.frame).collect();
        reads.submit(&self.shared.files[file], first, frames, tag as u64);
        self.shared.prefetch_requests.fetch_add(1, Relaxed);
        self.flights[tag] = Some(InFlight { file, slots, kind });
        self.in_flight[kind as usize] += 1;
    }

    /// `madvise(MADV_WILLNEED)` on the runs of `pages` not advised recently; returns the runs.
    fn advise(&mut self, file: usize, pages: Range<u64>, quota: usize) -> usize {
        let mut issued = 0;
        let mut first = pages.start;
        while first < pages.end && issued < quota {
            let count = (pages.end - first).min(RUN_PAGES);
            let key = (file as u64) << 48 | first;
            let slot = (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 50) as usize % ADVISED_SLOTS;
            if self.advised[slot] != key {
                self.advised[slot] = key;
                // A failed hint only loses the prefetch; the algorithm's own access reads.
                let _ = self.shared.files[file].will_need(first, count);
                self.shared.prefetch_requests.fetch_add(1, Relaxed);
                issued += 1;
            }
            first += count;
        }
        issued
    }
}

/// The pages holding bytes `start..stop`.
fn byte_pages(start: u64, stop: u64) -> Range<u64> {
    if start >= stop {
        return start / PAGE_BYTES as u64..start / PAGE_BYTES as u64;
    }
    start / PAGE_BYTES as u64..stop.div_ceil(PAGE_BYTES as u64)
}

/// Pages `.1` of file `.0` (a position in `Shared::files`).
type FilePages = (usize, Range<u64>);

/// The entries of `v` by `locator`: exactly from the offsets in memory, or under a summary the
/// interpolated range (PrefEdge §5, Figure 11); and the index page to read under a summary.
fn estimate(locator: &Locator, v: u32) -> ((u64, u64), Option<FilePages>) {
    match locator {
        Locator::Offsets(o) => ((o[v as usize], o[v as usize + 1]), None),
        Locator::Summary { anchors, idx } => {
            let (a, b) = Side::anchors(anchors, v);
            let k = (v as usize % SUMMARY_STRIDE) as u64;
            let per = (b - a) / SUMMARY_STRIDE as u64;
            // The list's estimated start, and a window of three average lists around it.
            let start = a + (b - a) * k / SUMMARY_STRIDE as u64;
            let range = (start.saturating_sub(per).max(a), (start + 2 * per + 1).min(b));
            (range, Some((*idx, byte_pages(8 * u64::from(v), 8 * u64::from(v) + 16))))
        }
    }
}

/// The pages to read ahead for `v`'s list on `side`: its index pages under a summary, its
/// adjacency (plain or compressed) and its weights when `weights`.
fn pages_of(side: &Side, v: u32, weights: bool) -> Vec<FilePages> {
    let mut out = Vec::with_capacity(5);
    let ((lo, hi), arcs_index) = estimate(&side.arcs, v);
    if side.needs_arcs(weights) {
        out.extend(arcs_index);
    }
    match &side.lists {
        Lists::Plain { adj } => out.push((*adj, byte_pages(4 * lo, 4 * hi))),
        Lists::Compressed { cadj, locator } => {
            let ((a, b), index) = estimate(locator, v);
            out.extend(index);
            out.push((*cadj, byte_pages(a, b)));
        }
    }
    if weights {
        out.extend(side.wgt.map(|w| (w, byte_pages(4 * lo, 4 * hi))));
    }
    out
}
