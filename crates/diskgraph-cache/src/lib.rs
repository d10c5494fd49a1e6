//! Caches drawing on a run's memory budget: the shard engine's block cache with Greedy Shard
//! Caching ([`BlockCache`], see its module), and the page cache the selective engine consults
//! before I/O: fixed-size pages of an adjacency file, CLOCK or LRU replacement, a hit
//! ratio, and optional page-utilisation tracking as BAsC (Kim et al., ATC '19) measures it —
//! the share of a page's 64-byte units touched while it was resident, averaged over the pages
//! evicted and those still resident at the end.
//!
//! The cache knows pages and bytes, nothing of vertices: callers ask for page `p`, insert the
//! bytes of page `p` after reading them, and mark the byte ranges they used. All methods take
//! `&self` (one mutex inside); [`PageCache::get_into`] copies a hit out so the caller computes
//! without holding the lock.

#![forbid(unsafe_code)]

mod block_cache;
mod page_cache;

pub use block_cache::{Block, BlockCache, BlockCacheStats, BlockKey, BlockStore};
pub use page_cache::{PageCache, PageCacheStats, Replacement};
