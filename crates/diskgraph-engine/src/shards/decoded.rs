//! The arcs of a compressed layout's windows, decoded for one interval ([`DecodedArcs`]) and
//! addressed by arc number as the plain columns are, so the rest of the engine reads sources and
//! targets the same way from either.

use std::ops::Range;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

use diskgraph_format::{DECODED_PAGE_ARCS, DECODED_TABLE_ENTRY_BYTES};

/// Arcs per page (a page holds their sources, then their targets: 8 KiB). Small, so that the
/// part of a page outside the windows decoded costs little even in a small budget; the page
/// table costs 16 bytes per page of the whole layout. The budget counts pages of this size
/// ([`diskgraph_format::ShardBudget`]).
const PAGE_ARCS: u64 = DECODED_PAGE_ARCS;
const _: () = assert!(
    std::mem::size_of::<Option<Box<[AtomicU32]>>>() as u64 == DECODED_TABLE_ENTRY_BYTES,
    "the budget's page table entry is this table's"
);
/// log2 of [`PAGE_ARCS`].
const PAGE_SHIFT: u32 = PAGE_ARCS.trailing_zeros();

/// Decoded sources and targets of the arcs an interval reads, in pages of [`PAGE_ARCS`] arcs
/// allocated for the ranges it decodes (windows of many shards decode side by side: a page at a
/// window's edge may be shared with the next window, hence atomic words). Pages are kept for the
/// next interval once cleared.
pub(super) struct DecodedArcs {
    pages: Vec<Option<Box<[AtomicU32]>>>,
    /// Pages in use, by number.
    used: Vec<usize>,
    /// Pages cleared, ready for reuse.
    spare: Vec<Box<[AtomicU32]>>,
}

impl DecodedArcs {
    /// No pages yet, for a layout of `arcs` arcs.
    pub(super) fn new(arcs: u64) -> DecodedArcs {
        DecodedArcs {
            pages: (0..arcs.div_ceil(PAGE_ARCS)).map(|_| None).collect(),
            used: Vec::new(),
            spare: Vec::new(),
        }
    }

    /// Makes sure every arc of `range` has a page.
    pub(super) fn reserve(&mut self, range: &Range<u64>) {
        if range.is_empty() {
            return;
        }
        for page in (range.start >> PAGE_SHIFT) as usize..=((range.end - 1) >> PAGE_SHIFT) as usize {
            if self.pages[page].is_none() {
                let fresh = self
                    .spare
                    .pop()
                    .unwrap_or_else(|| (0..2 * PAGE_ARCS).map(|_| AtomicU32::new(0)).collect());
                self.pages[page] = Some(fresh);
                self.used.push(page);
            }
        }
    }

    /// Puts arc `e`'s source and target (its page reserved).
    #[inline]
    pub(super) fn set(&self, e: u64, src: u32, dst: u32) {
        let (page, i) = self.slot(e);
        page[i].store(src, Relaxed);
        page[PAGE_ARCS as usize + i].store(dst, Relaxed);
    }

    /// Arc `e`'s source.
    #[inline]
    pub(super) fn source(&self, e: u64) -> u32 {
        let (page, i) = self.slot(e);
        page[i].load(Relaxed)
    }

    /// Arc `e`'s target.
    #[inline]
    pub(super) fn target(&self, e: u64) -> u32 {
        let (page, i) = self.slot(e);
        page[PAGE_ARCS as usize + i].load(Relaxed)
    }

    #[inline]
    fn slot(&self, e: u64) -> (&[AtomicU32], usize) {
        let page = self.pages[(e >> PAGE_SHIFT) as usize]
            .as_deref()
            .expect("the page of an arc of the interval is decoded");
        (page, (e & (PAGE_ARCS - 1)) as usize)
    }

    /// Releases every page for reuse (their words are overwritten before they are read again).
    pub(super) fn clear(&mut self) {
        for page in self.used.drain(..) {
            if let Some(p) = self.pages[page].take() {
                self.spare.push(p);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_decode_side_by_side_and_pages_are_reused() {
        let mut d = DecodedArcs::new(3 * PAGE_ARCS + 7);
        let (a, b) = (10..PAGE_ARCS + 5, PAGE_ARCS + 5..3 * PAGE_ARCS + 7);
        d.reserve(&a);
        d.reserve(&b);
        d.reserve(&(0..0));
        assert_eq!(d.used.len(), 4);
        for e in a.start..b.end {
            d.set(e, e as u32, !(e as u32));
        }
        assert!((a.start..b.end).all(|e| d.source(e) == e as u32 && d.target(e) == !(e as u32)));
        d.clear();
        assert!(d.used.is_empty());
        d.reserve(&(0..1));
        assert_eq!((d.used.len(), d.spare.len()), (1, 3));
    }
}
