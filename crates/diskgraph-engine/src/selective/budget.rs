//! How the selective engine carves its budget: the claim bitmap, the static cache's share, the
//! list assembly buffer, the I/O buffers, the stitch of compressed lists, the page cache, and
//! what is left for retained lists —
//! and the smallest budget that holds them, for the error that refuses a smaller one.

use diskgraph_io::IoConfig;

use super::claims::Claims;
use super::EngineError;

/// Fewest pages a page cache may have.
pub(super) const MIN_PAGES: u64 = 16;

/// Bytes a page cache spends on each page besides its data (map entry, tick, flags,
/// utilisation).
pub(super) const PAGE_BOOKKEEPING_BYTES: u64 = 128;

/// What an open asks of the budget.
#[derive(Clone, Debug)]
pub(super) struct Demand {
    /// Bytes of the adjacency file (the claim bitmap has a bit per block of it).
    pub adjacency_bytes: u64,
    /// The I/O settings.
    pub io: IoConfig,
    /// Whether weights are read beside the lists (two files per read).
    pub weighted: bool,
    /// The static cache's share of the budget, when there is one.
    pub static_fraction: Option<f64>,
    /// Whether half of what the claims and the static cache leave assembles whole lists.
    pub assemble_lists: bool,
    /// The page size of the page cache, when there is one.
    pub page_size: Option<u32>,
    /// Whether what the buffers leave holds retained lists (off with a page cache).
    pub retain_lists: bool,
    /// Whether the lists are compressed: what the least buffers leave first holds the lists cut
    /// by reads until they are whole (see `compressed`).
    pub compressed: bool,
}

/// Maximal reads' worth of bytes the stitch of compressed lists gets (when the budget leaves
/// them after the least buffers).
const STITCH_READS: u64 = 4;

/// The budget, carved.
#[derive(Clone, Copy, Debug)]
pub(super) struct Carve {
    /// The static cache's share.
    pub static_share: u64,
    /// The list assembly buffer.
    pub assembly_bytes: u64,
    /// The I/O buffers.
    pub buffer_bytes: u64,
    /// The page cache (data and bookkeeping), 0 without one.
    pub page_cache_bytes: u64,
    /// The share of compressed lists cut by reads, 0 for plain lists.
    pub stitch_bytes: u64,
    /// What retained lists may take, 0 when retention is off.
    pub retain_capacity: u64,
}

impl Demand {
    /// Carves `budget`, or says what does not fit.
    pub fn carve(&self, budget: u64) -> Result<Carve, &'static str> {
        let claims_bytes = Claims::bytes_for(self.adjacency_bytes, u64::from(self.io.block_size.max(1)));
        let files_per_read = if self.weighted { 2 } else { 1 };
        let min_buffers = self.min_buffers();
        let static_share = self.static_fraction.map_or(0, |f| (f * budget as f64) as u64);
        let left = budget
            .checked_sub(claims_bytes + static_share)
            .ok_or("the block claim bitmap and the static cache")?;
        let assembly_bytes = if self.assemble_lists { left / 2 } else { 0 };
        let share = left - assembly_bytes;
        if share < min_buffers {
            return Err("the I/O buffers (two maximal reads of each file), the claim bitmap and the list assembly");
        }
        let c = &self.io;
        // Compressed lists cut by reads get a few maximal reads before the buffers grow past
        // their least, out of what the least page cache leaves (the minimum budget is the same).
        let least_rest = min_buffers + self.page_size.map_or(0, least_page_cache_bytes);
        let stitch_bytes = match self.compressed {
            true => share
                .saturating_sub(least_rest)
                .min(STITCH_READS * u64::from(c.max_request_bytes)),
            false => 0,
        };
        let share = share - stitch_bytes;
        // More buffers than reads in flight plus a queue per worker buy nothing: the budget is a
        // cap, not a target.
        let useful = 4
            * (u64::from(c.queue_depth) * c.io_threads as u64 + c.compute_threads as u64)
            * u64::from(c.max_request_bytes)
            * files_per_read;
        let mut buffer_bytes = share.min(useful.max(min_buffers).max(1 << 20));
        let mut page_cache_bytes = 0;
        if let Some(page_size) = self.page_size {
            // The page cache is the point of such a run: buffers get at most an eighth of the
            // budget, whatever the static cache takes (runs at one budget read with the same
            // buffers however the caches split it), and leave the page cache its least pages.
            let least = least_page_cache_bytes(page_size);
            let cap = (budget / 8).min(share.saturating_sub(least));
            buffer_bytes = buffer_bytes.min(cap.max(min_buffers));
            page_cache_bytes = share - buffer_bytes;
            if page_cache_bytes / (u64::from(page_size) + PAGE_BOOKKEEPING_BYTES) < MIN_PAGES {
                return Err("a page cache of at least 16 pages besides the buffers and the static cache");
            }
        }
        let retain_capacity = if self.retain_lists && self.page_size.is_none() {
            share - buffer_bytes
        } else {
            0
        };
        Ok(Carve {
            static_share,
            assembly_bytes,
            buffer_bytes,
            page_cache_bytes,
            stitch_bytes,
            retain_capacity,
        })
    }

    /// The least I/O buffers: two maximal reads of each file read together, in the pool's
    /// buffers (a read shorter than a page still takes a page), and at least what the I/O
    /// context needs to open ([`IoConfig::min_buffer_bytes`]: a read of every file per I/O
    /// thread).
    fn min_buffers(&self) -> u64 {
        let files = if self.weighted { 2 } else { 1 };
        (2 * files * self.io.buffer_size()).max(self.io.min_buffer_bytes(files as usize))
    }

    /// The smallest budget [`carve`](Self::carve) accepts (one it accepts, should a larger
    /// budget ever be refused where a smaller one is not).
    pub fn minimum(&self) -> u64 {
        let mut hi = 1u64 << 20;
        while self.carve(hi).is_err() {
            if hi > u64::MAX / 2 {
                return u64::MAX;
            }
            hi *= 2;
        }
        let mut lo = 0;
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if self.carve(mid).is_ok() {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        hi
    }

    /// [`carve`](Self::carve), refusing a budget too small with the minimum it needs.
    pub fn check(&self, budget: u64) -> Result<Carve, EngineError> {
        self.carve(budget)
            .map_err(|what| EngineError::budget(budget, what, self.minimum()))
    }
}

/// Bytes of the smallest page cache of pages of `page_size` bytes.
fn least_page_cache_bytes(page_size: u32) -> u64 {
    MIN_PAGES * (u64::from(page_size) + PAGE_BOOKKEEPING_BYTES)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn demand(static_fraction: Option<f64>, assemble_lists: bool, page_size: Option<u32>) -> Demand {
        Demand {
            adjacency_bytes: 40 << 20,
            io: IoConfig::default(),
            weighted: true,
            static_fraction,
            assemble_lists,
            page_size,
            retain_lists: true,
            compressed: page_size.is_some(),
        }
    }

    #[test]
    fn the_minimum_is_the_smallest_budget_carved() {
        for d in [
            demand(None, false, None),
            demand(Some(0.5), false, None),
            demand(None, true, None),
            demand(Some(0.9), true, Some(4096)),
            demand(None, false, Some(65536)),
        ] {
            let min = d.minimum();
            assert!(d.carve(min).is_ok(), "{d:?}");
            assert!(d.carve(min - 1).is_err(), "{d:?}");
            let e = d.check(min - 1).unwrap_err().to_string();
            assert!(
                e.ends_with(&format!("give it at least {}", crate::human_minimum(min))),
                "{e}"
            );
        }
    }

    #[test]
    fn a_carve_fits_in_its_budget() {
        let d = demand(Some(0.25), true, Some(8192));
        for budget in [d.minimum(), 64 << 20, 1 << 30] {
            let c = d.carve(budget).unwrap();
            let claims = Claims::bytes_for(d.adjacency_bytes, u64::from(d.io.block_size));
            let used =
                claims + c.static_share + c.assembly_bytes + c.buffer_bytes + c.page_cache_bytes + c.stitch_bytes;
            assert!(used <= budget, "{c:?} in {budget}");
        }
    }
}
