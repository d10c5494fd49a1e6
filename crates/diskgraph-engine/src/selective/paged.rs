//! Reads through the page cache (`diskgraph-cache`): a round's byte ranges become pages; cached
//! pages are delivered from memory (copied out, then computed on without the cache's lock), the
//! others are read — page-aligned, so every chunk holds whole pages — inserted (no more of a
//! round's than the cache holds), and delivered.
//! With utilisation tracking, the bytes each range asked for are marked in their pages after
//! the round. Only rounds without weights go through the cache (it holds `*.adj` pages).

use diskgraph_cache::{PageCache, Replacement};
use diskgraph_io::{Chunk, FileSet, IoContext, IoError};
use rayon::prelude::*;

/// Page cache settings of [`SelectiveOptions`](super::SelectiveOptions).
#[derive(Clone, Debug, PartialEq)]
pub struct PageCacheOptions {
    /// Bytes per page: a power of two, a multiple of the block size, at most the largest read.
    pub page_size: u32,
    /// Replacement policy.
    pub policy: Replacement,
    /// Track page utilisation (64-byte units touched while resident).
    pub track_utilization: bool,
}

/// Reads `ranges` of `set` through `cache`, calling `consume` for every page or chunk. `file`
/// tells the adjacency files apart in the cache's keys (0 for `out.adj`, 1 for `in.adj`).
/// Empty ranges (`end <= start`) are ignored.
pub(crate) fn read_through(
    io: &IoContext,
    cache: &PageCache,
    file: u64,
    set: &FileSet,
    ranges: Vec<(u64, u64)>,
    consume: &(dyn Fn(Chunk<'_>) + Sync),
) -> Result<(), IoError> {
    let ps = cache.page_size() as u64;
    let mut pages: Vec<u64> = ranges
        .par_iter()
        .with_min_len(RANGES_PER_TASK)
        .filter(|r| r.0 < r.1)
        .flat_map_iter(|&(a, b)| a / ps..b.div_ceil(ps))
        .collect();
    pages.par_sort_unstable();
    pages.dedup();
    // Hits are served now; misses come back.
    let misses: Vec<u64> = pages
        .par_chunks(256)
        .flat_map_iter(|chunk| {
            let mut buf = vec![0u8; ps as usize];
            let mut missed = Vec::new();
            for &p in chunk {
                match cache.get_into(key(file, p), &mut buf) {
                    Some(len) => consume(Chunk {
                        offset: p * ps,
                        data: &[&buf[..len]],
                    }),
                    None => missed.push(p),
                }
            }
            missed
        })
        .collect();
    let mut runs = merge_pages(&misses, ps, set.len());
    // A round reads each page once, so of more misses than the cache holds, the first ones
    // read would be evicted by the last ones before anything could ask for them again: only
    // the last `slots` pages are copied in (what inserting them all in file order leaves
    // under LRU, and about what it leaves under CLOCK). A chunk's pages (and the file's short
    // last page) go in under one lock.
    let admit_from = (misses.len().checked_sub(cache.slots()))
        .and_then(|i| misses.get(i))
        .map_or(0, |&p| p * ps);
    let insert = |chunk: Chunk<'_>| {
        let data = chunk.data[0];
        let first = chunk.offset.next_multiple_of(ps).max(admit_from);
        let pages = (first..chunk.end()).step_by(ps as usize).filter_map(|at| {
            let len = (chunk.end() - at).min(ps);
            let from = (at - chunk.offset) as usize;
            (len == ps || at + len == set.len()).then(|| (key(file, at / ps), &data[from..from + len as usize]))
        });
        cache.insert_many(pages);
        consume(chunk);
    };
    io.read_round(set, &mut runs, &insert)?;
    if cache.tracks_utilization() {
        for &(a, b) in &ranges {
            for p in a / ps..b.div_ceil(ps) {
                let (lo, hi) = (a.max(p * ps) - p * ps, b.min((p + 1) * ps) - p * ps);
                cache.mark(key(file, p), lo as usize, hi as usize);
            }
        }
    }
    Ok(())
}

/// Ranges per task when a round's ranges become pages.
const RANGES_PER_TASK: usize = 1 << 12;

/// The cache key of page `page` of adjacency file `file`.
fn key(file: u64, page: u64) -> u64 {
    file << 56 | page
}

/// Byte ranges of the given pages (ascending), consecutive pages merged, the last clipped to
/// the file's length.
fn merge_pages(pages: &[u64], ps: u64, len: u64) -> std::vec::IntoIter<(u64, u64)> {
    let mut runs: Vec<(u64, u64)> = Vec::new();
    for &p in pages {
        let (a, b) = (p * ps, ((p + 1) * ps).min(len));
        match runs.last_mut() {
            Some(last) if last.1 == a => last.1 = b,
            _ => runs.push((a, b)),
        }
    }
    runs.into_iter()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_merge_and_clip() {
        let runs: Vec<_> = merge_pages(&[0, 1, 3, 4], 100, 450).collect();
        assert_eq!(runs, vec![(0, 200), (300, 450)]);
    }
}
