//! The shard engine's block cache, with Greedy Shard Caching (GSC; Li and Zheng, "GSC: Greedy
//! Shard Caching Algorithm for Improved I/O Efficiency in GraphChi").
//!
//! Blocks of fixed size, named by a [`BlockKey`] (a column and a block number), are read
//! through a [`BlockStore`] and held in memory while an interval computes over them (*pinned*:
//! some [`Arc`] of the block is held outside the cache). Whoever changes a block marks it
//! modified ([`Block::mark_modified`]). When an interval is done ([`BlockCache::after_interval`]):
//!
//! - **without GSC** (GraphChi): every modified block is written back and every block dropped;
//! - **with GSC**: if the free space exceeds the reserve (twice the average shard), everything
//!   stays cached; else unmodified blocks are dropped first, the most recently cached first,
//!   then modified blocks are written back and dropped in the order they were cached (FIFO),
//!   until the reserve is free. The paper leaves the order among unmodified blocks open; newest
//!   first suits a run's cyclic sweeps, where the oldest block is the next one needed (with
//!   oldest first, a cache smaller than a sweep would never hit).
//!
//! Reads check the cache first. GSC thus only delays write-backs and avoids reads: it never does
//! more I/O than without it. [`BlockCache::flush`] writes back whatever is still modified at the
//! end of a run, so no update is lost. The cache never holds more than its capacity: loading a
//! block when it is full drops or writes back unpinned blocks in the same order, and a working
//! set of pinned blocks larger than the capacity is an error for the caller to prevent.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};

use diskgraph_io::PageBuf;

/// A block's name: which column (file) and which block of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BlockKey {
    /// The column, numbered by the caller.
    pub column: u8,
    /// The block number within the column.
    pub index: u64,
}

/// A cached block: its bytes and whether they were modified since read or written back.
pub struct Block {
    buf: PageBuf,
    modified: AtomicBool,
}

impl Block {
    /// Its bytes (see [`PageBuf::as_atomic_u32`] for changing them while shared).
    pub fn buf(&self) -> &PageBuf {
        &self.buf
    }

    /// Records that its bytes changed: it must be written back before it is dropped.
    pub fn mark_modified(&self) {
        if !self.modified.load(Relaxed) {
            self.modified.store(true, Relaxed);
        }
    }

    /// Whether its bytes changed since read or written back.
    pub fn modified(&self) -> bool {
        self.modified.load(Relaxed)
    }
}

/// Where blocks come from and go back to.
pub trait BlockStore: Sync {
    /// Why a transfer failed.
    type Error: Send;

    /// Fills `buf` with block `key`.
    fn read(&self, key: BlockKey, buf: &mut PageBuf) -> Result<(), Self::Error>;

    /// Writes block `key` back from `buf`.
    fn write(&self, key: BlockKey, buf: &PageBuf) -> Result<(), Self::Error>;
}

/// What the cache did, for the run's stats.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BlockCacheStats {
    /// Blocks asked for that were cached.
    pub hits: u64,
    /// Blocks asked for that had to be read.
    pub misses: u64,
    /// Blocks written back.
    pub write_backs: u64,
    /// Blocks dropped unmodified.
    pub dropped_clean: u64,
    /// Most bytes held at once.
    pub peak_bytes: u64,
}

struct Inner {
    blocks: HashMap<BlockKey, Arc<Block>>,
    /// Keys in the order they were cached (stale entries of dropped blocks are skipped).
    order: VecDeque<(BlockKey, u64)>,
    /// Each cached key's position stamp in `order`.
    stamp: HashMap<BlockKey, u64>,
    next_stamp: u64,
    used: u64,
    stats: BlockCacheStats,
}

/// A cache of fixed-size blocks with GraphChi's write-back and, optionally, GSC (see the module
/// doc).
pub struct BlockCache {
    block_bytes: usize,
    capacity: u64,
    gsc: bool,
    reserve: u64,
    io_threads: usize,
    inner: Mutex<Inner>,
}

impl BlockCache {
    /// A cache of blocks of `block_bytes` (whole pages) holding at most `capacity` bytes;
    /// `gsc` keeps blocks across intervals while `reserve` bytes stay free; transfers run on up
    /// to `io_threads` threads at once.
    pub fn new(block_bytes: usize, capacity: u64, gsc: bool, reserve: u64, io_threads: usize) -> BlockCache {
        BlockCache {
            block_bytes,
            capacity,
            gsc,
            reserve,
            io_threads: io_threads.max(1),
            inner: Mutex::new(Inner {
                blocks: HashMap::new(),
                order: VecDeque::new(),
                stamp: HashMap::new(),
                next_stamp: 0,
                used: 0,
                stats: BlockCacheStats::default(),
            }),
        }
    }

    /// The blocks of `keys` (distinct), cached or read through `store`, in the order of
    /// `keys`. Blocks not cached are read in parallel; room is made by dropping unpinned blocks
    /// (unmodified first, then modified ones written back, oldest first).
    ///
    /// Errors: a transfer failed; or the blocks pinned (held outside the cache) and asked for
    /// exceed the capacity (`Err(None)` — the caller sized its working set wrong).
    pub fn load<S: BlockStore>(&self, keys: &[BlockKey], store: &S) -> Result<Vec<Arc<Block>>, Option<S::Error>> {
        let mut out: Vec<Option<Arc<Block>>> = vec![None; keys.len()];
        let mut missing = Vec::new();
        {
            let mut inner = self.inner.lock().expect("cache lock");
            for (i, (slot, key)) in out.iter_mut().zip(keys).enumerate() {
                match inner.blocks.get(key) {
                    Some(b) => {
                        *slot = Some(Arc::clone(b));
                        inner.stats.hits += 1;
                    }
                    None => missing.push((i, *key)),
                }
            }
            inner.stats.misses += missing.len() as u64;
        }
        let need = (missing.len() * self.block_bytes) as u64;
        // Pin what is already here (held in `out`) before making room.
        self.make_room(need, store)?;
        let mut bufs: Vec<(usize, BlockKey, PageBuf)> = missing
            .iter()
            .map(|&(i, k)| (i, k, PageBuf::zeroed(self.block_bytes)))
            .collect();
        self.parallel(&mut bufs, |(_, k, b)| store.read(*k, b)).map_err(Some)?;
        let mut inner = self.inner.lock().expect("cache lock");
        for (i, key, buf) in bufs {
            let block = Arc::new(Block {
                buf,
                modified: AtomicBool::new(false),
            });
            let stamp = inner.next_stamp;
            inner.next_stamp += 1;
            inner.order.push_back((key, stamp));
            inner.stamp.insert(key, stamp);
            inner.used += self.block_bytes as u64;
            inner.blocks.insert(key, Arc::clone(&block));
            out[i] = Some(block);
        }
        inner.stats.peak_bytes = inner.stats.peak_bytes.max(inner.used);
        Ok(out.into_iter().map(|b| b.expect("every key served")).collect())
    }

    /// After an interval (its blocks no longer held by the caller): without GSC writes every
    /// modified block back and drops all; with GSC keeps everything while the reserve is free,
    /// else frees it as the module doc says.
    pub fn after_interval<S: BlockStore>(&self, store: &S) -> Result<(), S::Error> {
        let target = match self.gsc {
            true => self.capacity.saturating_sub(self.reserve),
            false => 0,
        };
        self.shrink_to(target, store)
    }

    /// Writes back every modified block, keeping it cached.
    pub fn flush<S: BlockStore>(&self, store: &S) -> Result<(), S::Error> {
        let mut dirty: Vec<(BlockKey, Arc<Block>)> = {
            let inner = self.inner.lock().expect("cache lock");
            inner
                .blocks
                .iter()
                .filter(|(_, b)| b.modified())
                .map(|(k, b)| (*k, Arc::clone(b)))
                .collect()
        };
        dirty.sort_by_key(|(k, _)| *k);
        self.parallel(&mut dirty, |(k, b)| {
            b.modified.store(false, Relaxed);
            store.write(*k, &b.buf)
        })?;
        let mut inner = self.inner.lock().expect("cache lock");
        inner.stats.write_backs += dirty.len() as u64;
        Ok(())
    }

    /// What the cache did so far.
    pub fn stats(&self) -> BlockCacheStats {
        self.inner.lock().expect("cache lock").stats
    }

    /// Bytes held now.
    pub fn used(&self) -> u64 {
        self.inner.lock().expect("cache lock").used
    }

    /// Makes room for `need` more bytes within the capacity.
    fn make_room<S: BlockStore>(&self, need: u64, store: &S) -> Result<(), Option<S::Error>> {
        let target = self.capacity.checked_sub(need).ok_or(None)?;
        self.shrink_to(target, store).map_err(Some)?;
        match self.used() <= target {
            true => Ok(()),
            false => Err(None),
        }
    }

    /// Drops unpinned blocks until at most `target` bytes are held: unmodified ones first
    /// (oldest first), then modified ones written back oldest first.
    fn shrink_to<S: BlockStore>(&self, target: u64, store: &S) -> Result<(), S::Error> {
        let mut inner = self.inner.lock().expect("cache lock");
        if inner.used <= target {
            return Ok(());
        }
        // Live entries of `order`, oldest first, that nobody outside holds.
        let candidates: Vec<(BlockKey, Arc<Block>)> = inner
            .order
            .iter()
            .filter(|(k, s)| inner.stamp.get(k) == Some(s))
            .filter_map(|(k, _)| inner.blocks.get(k).map(|b| (*k, Arc::clone(b))))
            .filter(|(_, b)| Arc::strong_count(b) == 2)
            .collect();
        let mut over = inner.used - target;
        let mut chosen = Vec::new();
        // Unmodified blocks newest first: runs sweep the same blocks in the same order every
        // iteration, and dropping the oldest would drop each block just before its next use.
        let clean = candidates.iter().rev().filter(|(_, b)| !b.modified());
        let modified = candidates.iter().filter(|(_, b)| b.modified());
        for (k, b) in clean.chain(modified) {
            if over == 0 {
                break;
            }
            chosen.push((*k, Arc::clone(b)));
            over = over.saturating_sub(self.block_bytes as u64);
        }
        drop(candidates);
        let mut dirty: Vec<(BlockKey, Arc<Block>)> = chosen.iter().filter(|(_, b)| b.modified()).cloned().collect();
        let clean = chosen.len() - dirty.len();
        for (k, _) in &chosen {
            inner.blocks.remove(k);
            inner.stamp.remove(k);
            inner.used -= self.block_bytes as u64;
        }
        inner.stats.dropped_clean += clean as u64;
        inner.stats.write_backs += dirty.len() as u64;
        let stamps = &inner.stamp;
        let live: VecDeque<(BlockKey, u64)> = inner
            .order
            .iter()
            .filter(|(k, s)| stamps.get(k) == Some(s))
            .copied()
            .collect();
        inner.order = live;
        drop(inner);
        drop(chosen);
        dirty.sort_by_key(|(k, _)| *k);
        self.parallel(&mut dirty, |(k, b)| store.write(*k, &b.buf))
    }

    /// Runs `f` on every item, on up to `io_threads` threads; the first error wins.
    fn parallel<T: Send, E: Send>(&self, items: &mut [T], f: impl Fn(&mut T) -> Result<(), E> + Sync) -> Result<(), E> {
        if items.len() <= 1 || self.io_threads == 1 {
            return items.iter_mut().try_for_each(f);
        }
        let next = AtomicU64::new(0);
        let cells: Vec<Mutex<&mut T>> = items.iter_mut().map(Mutex::new).collect();
        let threads = self.io_threads.min(cells.len());
        std::thread::scope(|s| {
            let workers: Vec<_> = (0..threads)
                .map(|_| {
                    s.spawn(|| loop {
                        let i = next.fetch_add(1, Relaxed) as usize;
                        let Some(cell) = cells.get(i) else { return Ok(()) };
                        f(&mut cell.lock().expect("item lock"))?;
                    })
                })
                .collect();
            workers
                .into_iter()
                .map(|w| w.join().expect("an I/O thread panicked"))
                .collect::<Result<Vec<()>, E>>()
                .map(|_| ())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// A store in memory that counts transfers.
    #[derive(Default)]
    struct Store {
        data: Mutex<BTreeMap<BlockKey, u8>>,
        reads: AtomicU64,
        writes: AtomicU64,
    }

    impl BlockStore for Store {
        type Error = ();
        fn read(&self, key: BlockKey, buf: &mut PageBuf) -> Result<(), ()> {
            self.reads.fetch_add(1, Relaxed);
            let v = self.data.lock().unwrap().get(&key).copied().unwrap_or(0);
            buf.bytes_mut().fill(v);
            Ok(())
        }
        fn write(&self, key: BlockKey, buf: &PageBuf) -> Result<(), ()> {
            self.writes.fetch_add(1, Relaxed);
            let first = buf.as_atomic_u32()[0].load(Relaxed).to_le_bytes()[0];
            self.data.lock().unwrap().insert(key, first);
            Ok(())
        }
    }

    const B: usize = 4096;

    fn key(index: u64) -> BlockKey {
        BlockKey { column: 0, index }
    }

    /// Loads blocks `keys`, adds 1 to the odd ones' bytes (marking them modified), releases.
    fn interval(c: &BlockCache, s: &Store, keys: &[u64]) {
        let keys: Vec<BlockKey> = keys.iter().map(|&i| key(i)).collect();
        let blocks = c.load(&keys, s).map_err(|_| ()).unwrap();
        for (k, b) in keys.iter().zip(&blocks) {
            if k.index % 2 == 1 {
                let w = &b.buf().as_atomic_u32()[0];
                w.store(w.load(Relaxed) + 1, Relaxed);
                b.mark_modified();
            }
        }
        drop(blocks);
        c.after_interval(s).unwrap();
    }

    #[test]
    fn without_gsc_every_interval_writes_back_and_rereads() {
        let s = Store::default();
        let c = BlockCache::new(B, 8 * B as u64, false, 0, 2);
        for _ in 0..3 {
            interval(&c, &s, &[0, 1, 2, 3]);
        }
        assert_eq!(s.reads.load(Relaxed), 12);
        assert_eq!(s.writes.load(Relaxed), 6);
        assert_eq!(c.used(), 0);
        assert_eq!(s.data.lock().unwrap()[&key(1)], 3);
    }

    #[test]
    fn gsc_keeps_blocks_while_the_reserve_is_free_and_loses_no_update() {
        let s = Store::default();
        let c = BlockCache::new(B, 8 * B as u64, true, 2 * B as u64, 2);
        for _ in 0..3 {
            interval(&c, &s, &[0, 1, 2, 3]);
        }
        assert_eq!(s.reads.load(Relaxed), 4);
        assert_eq!(s.writes.load(Relaxed), 0);
        c.flush(&s).unwrap();
        assert_eq!(s.writes.load(Relaxed), 2);
        assert_eq!(s.data.lock().unwrap()[&key(1)], 3);
        assert_eq!(s.data.lock().unwrap()[&key(3)], 3);
    }

    #[test]
    fn gsc_drops_clean_blocks_first_then_writes_back_the_oldest() {
        let s = Store::default();
        // Room for 6 blocks, 2 kept free: at most 4 stay between intervals.
        let c = BlockCache::new(B, 6 * B as u64, true, 2 * B as u64, 1);
        interval(&c, &s, &[0, 1, 2, 3]);
        assert_eq!((c.used(), s.writes.load(Relaxed)), (4 * B as u64, 0));
        interval(&c, &s, &[5, 7]);
        // 6 held, 4 allowed: the clean 0 and 2 go, no write.
        assert_eq!((c.used(), s.writes.load(Relaxed)), (4 * B as u64, 0));
        interval(&c, &s, &[9, 11]);
        // 6 held, all modified: the oldest, 1 and 3, are written back.
        assert_eq!(s.writes.load(Relaxed), 2);
        assert_eq!(
            s.data.lock().unwrap().keys().copied().collect::<Vec<_>>(),
            vec![key(1), key(3)]
        );
        // Every GSC run does at most the I/O of the same run without it.
        let reads = s.reads.load(Relaxed);
        assert_eq!(reads, 8);
    }

    #[test]
    fn sweeps_over_more_blocks_than_fit_hit_on_those_kept() {
        let s = Store::default();
        // Room for 6 blocks, 2 kept free; three sweeps of 8 clean blocks, two an interval.
        let c = BlockCache::new(B, 6 * B as u64, true, 2 * B as u64, 1);
        for _ in 0..3 {
            for pair in [[0, 2], [4, 6], [8, 10], [12, 14]] {
                interval(&c, &s, &pair);
            }
        }
        // The first blocks of the sweep stay: every later sweep hits on them.
        let st = c.stats();
        assert!(st.hits >= 4, "{st:?}");
        assert_eq!(st.hits + st.misses, 24);
    }

    #[test]
    fn a_pinned_working_set_beyond_the_capacity_is_refused() {
        let s = Store::default();
        let c = BlockCache::new(B, 2 * B as u64, true, 0, 1);
        let held = c.load(&[key(0), key(1)], &s).map_err(|_| ()).unwrap();
        assert!(matches!(c.load(&[key(2)], &s), Err(None)));
        drop(held);
        assert!(c.load(&[key(2)], &s).is_ok());
    }
}
