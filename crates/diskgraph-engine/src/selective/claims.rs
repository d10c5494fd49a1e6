//! The claim bitmap: exactly-once delivery within a round.
//!
//! It has one bit per block of an adjacency file (and of a weight file, which has the same
//! length); a read claims its blocks with `fetch_or` and delivers only the blocks it claimed
//! first. A bitmap scheduler never reads a block twice in a round, so claims always succeed
//! there; a pluglist scheduler may, and then the second copy is dropped. Reads must start on a
//! block boundary (they do: runs are made of blocks) and end on one or at the end of the data.
//! The bitmap covers the largest file a graph's rounds read; each round tells the length of the
//! file it reads (a compressed `in.cadj` is not as long as `out.cadj`).

use std::ops::Range;
use std::path::Path;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};

use diskgraph_io::{Chunk, IoError};
use rayon::prelude::*;

use super::frontier;

/// One bit per block of an adjacency file, claimed by the reads of a round.
pub(crate) struct Claims {
    block: u64,
    blocks: u64,
    words: Vec<AtomicU64>,
    /// Words touched this round: `lo..hi`.
    lo: AtomicUsize,
    hi: AtomicUsize,
}

impl Claims {
    /// Bytes of the bitmap for a file of `file_bytes` logical bytes.
    pub(crate) fn bytes_for(file_bytes: u64, block: u64) -> u64 {
        file_bytes.div_ceil(block).div_ceil(64) * 8
    }

    /// The bitmap of files of at most `file_bytes` logical bytes read in blocks of `block`
    /// bytes, nothing claimed.
    pub(crate) fn new(file_bytes: u64, block: u64) -> Self {
        let blocks = file_bytes.div_ceil(block);
        Claims {
            block,
            blocks,
            words: frontier::atomic_zeros(blocks.div_ceil(64) as usize),
            lo: AtomicUsize::new(usize::MAX),
            hi: AtomicUsize::new(0),
        }
    }

    /// Bytes of the bitmap.
    pub(crate) fn bytes(&self) -> u64 {
        self.words.len() as u64 * 8
    }

    /// Bytes per block.
    pub(crate) fn block(&self) -> u64 {
        self.block
    }

    /// Claims blocks `first..end` and calls `f(b0, b1)` for every maximal run `b0..b1` of
    /// blocks that no read claimed before in this round.
    fn claim(&self, first: u64, end: u64, mut f: impl FnMut(u64, u64)) {
        let end = end.min(self.blocks);
        if first >= end {
            return;
        }
        let (w0, w1) = ((first / 64) as usize, ((end - 1) / 64) as usize);
        self.lo.fetch_min(w0, Relaxed);
        self.hi.fetch_max(w1 + 1, Relaxed);
        let mut run: Option<(u64, u64)> = None;
        for w in w0..=w1 {
            let base = w as u64 * 64;
            let from = first.max(base) - base;
            let to = end.min(base + 64) - base;
            let mask = if to - from == 64 {
                u64::MAX
            } else {
                ((1u64 << (to - from)) - 1) << from
            };
            let mut new = mask & !self.words[w].fetch_or(mask, Relaxed);
            while new != 0 {
                let s = u64::from(new.trailing_zeros());
                let len = u64::from((new >> s).trailing_ones());
                let (a, b) = (base + s, base + s + len);
                run = match run {
                    Some((ra, rb)) if rb == a => Some((ra, b)),
                    Some((ra, rb)) => {
                        f(ra, rb);
                        Some((a, b))
                    }
                    None => Some((a, b)),
                };
                new = if s + len >= 64 {
                    0
                } else {
                    new & !(((1u64 << len) - 1) << s)
                };
            }
        }
        if let Some((a, b)) = run {
            f(a, b);
        }
    }

    /// Claims the blocks of `chunk` (a read of `path`, whose data is `data_end` bytes long) and
    /// calls `f(lo, span)` for every run of `unit`-byte words `lo..` it claimed first (edges of a
    /// plain list or weight file: `unit` 4; bytes of compressed lists: 1), `span` being the
    /// run's bytes within the chunk (data bytes only: never the padding after the data).
    ///
    /// Errors: a chunk not aligned to blocks ([`IoError::Config`]).
    pub(crate) fn claim_words(
        &self,
        chunk: &Chunk<'_>,
        path: &Path,
        data_end: u64,
        unit: u64,
        mut f: impl FnMut(u64, Range<usize>),
    ) -> Result<(), IoError> {
        let block = self.block;
        let (c0, c1) = (chunk.offset, chunk.offset + chunk.data[0].len() as u64);
        if !c0.is_multiple_of(block) || (!c1.is_multiple_of(block) && c1 < data_end) {
            return Err(IoError::Config(format!(
                "read of bytes {c0}..{c1} of {} is not aligned to {block}-byte blocks",
                path.display()
            )));
        }
        self.claim(c0 / block, c1.div_ceil(block), |b0, b1| {
            let lo = (b0 * block).max(c0) / unit;
            let hi = (b1 * block).min(c1).min(data_end) / unit;
            if lo < hi {
                f(lo, (lo * unit - c0) as usize..(hi * unit - c0) as usize);
            }
        });
        Ok(())
    }

    /// Clears the claims of the round (only the words it touched).
    pub(crate) fn reset(&self) {
        let (lo, hi) = (self.lo.swap(usize::MAX, Relaxed), self.hi.swap(0, Relaxed));
        if lo < hi {
            self.words[lo..hi]
                .par_iter()
                .with_min_len(4096)
                .for_each(|w| w.store(0, Relaxed));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claims_deliver_each_block_once() {
        let c = Claims::new(512 * 200, 512);
        let mut got = Vec::new();
        c.claim(10, 70, |a, b| got.push((a, b)));
        c.claim(0, 20, |a, b| got.push((a, b)));
        c.claim(60, 200, |a, b| got.push((a, b)));
        c.claim(60, 300, |a, b| got.push((a, b)));
        assert_eq!(got, vec![(10, 70), (0, 10), (70, 200)]);
        c.reset();
        got.clear();
        c.claim(63, 65, |a, b| got.push((a, b)));
        c.claim(0, 128, |a, b| got.push((a, b)));
        assert_eq!(got, vec![(63, 65), (0, 63), (65, 128)]);
    }

    #[test]
    fn words_are_clipped_to_the_data_of_the_file_read() {
        let c = Claims::new(4096, 512);
        let path = Path::new("out.cadj");
        let data = vec![0u8; 1024];
        let mut got = Vec::new();
        let chunk = Chunk {
            offset: 512,
            data: &[&data[..700]],
        };
        c.claim_words(&chunk, path, 1212, 1, |lo, span| got.push((lo, span)))
            .unwrap();
        assert_eq!(got, vec![(512, 0..700)]);
        got.clear();
        c.claim_words(&chunk, path, 1212, 1, |lo, span| got.push((lo, span)))
            .unwrap();
        assert!(got.is_empty(), "claimed blocks are delivered once");
        let odd = Chunk {
            offset: 100,
            data: &[&data[..512]],
        };
        let err = c.claim_words(&odd, path, 1212, 1, |_, _| ()).unwrap_err();
        assert!(err.to_string().contains("out.cadj"), "{err}");
    }
}
