//! Block schedulers: they turn the byte ranges of one round into runs of blocks to read.
//!
//! * [`BitmapScheduler`] (Graphene): every request sets one bit per block it touches; draining
//!   walks the bitmap in disk order, which sorts and deduplicates for free, and merges
//!   neighbouring blocks into runs, absorbing gaps of up to `max_gap` blocks and cutting runs at
//!   `max_request` bytes. Every block is read at most once per round.
//! * [`PluglistScheduler`] (Linux's plug list, the comparison baseline): requests are taken in
//!   arrival order in batches of [`PLUG_BATCH`]; within a batch they are sorted, overlapping and
//!   duplicate requests are united, and neighbours are merged with the same gap and size rules.
//!   Nothing is deduplicated across batches, so a block may be read more than once per round.
//!
//! Both obey the same run rules, implemented once in `RunBuilder`: the first and the last block
//! of every run are requested blocks, a run never holds more than `max_request` bytes, and no gap
//! of unrequested blocks inside a run is longer than `max_gap`.

/// Requests per plug-list batch (Linux 4.4's plug list holds 16).
pub const PLUG_BATCH: usize = 16;

/// A run of consecutive blocks to read with one request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Run {
    /// First block of the run.
    pub first_block: u64,
    /// Number of blocks.
    pub num_blocks: u64,
}

impl Run {
    /// Byte range `[start, end)` of the run for a block size.
    pub fn byte_range(&self, block_size: u32) -> (u64, u64) {
        let bs = u64::from(block_size);
        (self.first_block * bs, (self.first_block + self.num_blocks) * bs)
    }

    /// One past the last block.
    pub fn end_block(&self) -> u64 {
        self.first_block + self.num_blocks
    }
}

/// The outcome of one round of scheduling.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Schedule {
    /// Runs to read, in issue order (disk order for the bitmap, batch by batch for the plug list).
    pub runs: Vec<Run>,
    /// Blocks named by the requests, counted once per request (with repeats).
    pub blocks_requested: u64,
    /// Requested blocks left after deduplication: distinct blocks for the bitmap, the sum over
    /// batches of the distinct blocks of each batch for the plug list. Gap blocks are not counted.
    pub blocks_after_dedup: u64,
}

impl Schedule {
    /// Blocks the runs read, gap blocks included.
    pub fn blocks_read(&self) -> u64 {
        self.runs.iter().map(|r| r.num_blocks).sum()
    }
}

/// Merges increasing, disjoint intervals of requested blocks into runs.
struct RunBuilder {
    max_gap: u64,
    max_run: u64,
    current: Option<Run>,
    runs: Vec<Run>,
}

impl RunBuilder {
    fn new(max_gap: u64, max_run: u64) -> Self {
        debug_assert!(max_run >= 1);
        RunBuilder {
            max_gap,
            max_run,
            current: None,
            runs: Vec::new(),
        }
    }

    /// Adds the requested blocks `[start, end)`; `start` must not precede the end of the
    /// previously added interval.
    fn push(&mut self, mut start: u64, end: u64) {
        if start >= end {
            return;
        }
        if let Some(r) = &mut self.current {
            let r_end = r.end_block();
            debug_assert!(start >= r_end, "intervals must be increasing and disjoint");
            // The block `start` may join when the gap before it is small enough and the run,
            // extended to include it, still fits.
            if start - r_end <= self.max_gap && start + 1 - r.first_block <= self.max_run {
                let new_end = end.min(r.first_block + self.max_run);
                r.num_blocks = new_end - r.first_block;
                start = new_end;
                if start == end {
                    return;
                }
            }
            self.runs.push(*r);
            self.current = None;
        }
        while start < end {
            let n = (end - start).min(self.max_run);
            let run = Run {
                first_block: start,
                num_blocks: n,
            };
            start += n;
            if start < end {
                self.runs.push(run);
            } else {
                self.current = Some(run);
            }
        }
    }

    fn finish(&mut self) -> Vec<Run> {
        self.runs.extend(self.current.take());
        std::mem::take(&mut self.runs)
    }
}

/// Blocks per run for a request limit (at least one block).
fn max_run_blocks(block_size: u32, max_request_bytes: u32) -> u64 {
    u64::from((max_request_bytes / block_size).max(1))
}

/// Blocks `[first, last]` touched by bytes `[start, end)`, `end > start`.
fn block_span(block_size: u64, start: u64, end: u64) -> (u64, u64) {
    (start / block_size, (end - 1) / block_size)
}

/// One bit per block of the file(s) being read.
///
/// Only the words touched since the last drain are scanned and cleared, so a scheduler can be
/// kept for a whole file and reused round after round at a cost proportional to the round.
pub struct BitmapScheduler {
    block_size: u64,
    max_gap: u64,
    max_run_blocks: u64,
    num_blocks: u64,
    bits: Vec<u64>,
    /// Words `[lo, hi)` may hold set bits.
    lo: usize,
    hi: usize,
    blocks_requested: u64,
}

/// Panics unless blocks are a power of two and a request holds at least one block.
fn check_geometry(block_size: u32, max_request_bytes: u32) {
    assert!(block_size.is_power_of_two(), "block size must be a power of two");
    assert!(
        max_request_bytes >= block_size,
        "max request must hold at least one block"
    );
}

impl BitmapScheduler {
    /// A scheduler for files of `file_len` bytes.
    ///
    /// # Panics
    /// If `block_size` is not a power of two, or `max_request_bytes` is below one block.
    pub fn new(file_len: u64, block_size: u32, max_gap_blocks: u32, max_request_bytes: u32) -> Self {
        check_geometry(block_size, max_request_bytes);
        let blocks = file_len.div_ceil(u64::from(block_size));
        BitmapScheduler {
            block_size: u64::from(block_size),
            max_gap: u64::from(max_gap_blocks),
            max_run_blocks: max_run_blocks(block_size, max_request_bytes),
            num_blocks: blocks,
            bits: vec![0; blocks.div_ceil(64) as usize],
            lo: usize::MAX,
            hi: 0,
            blocks_requested: 0,
        }
    }

    /// Whether this scheduler was built with these settings (for reuse).
    pub(crate) fn matches(&self, file_len: u64, block_size: u32, max_gap_blocks: u32, max_request_bytes: u32) -> bool {
        self.block_size == u64::from(block_size)
            && self.num_blocks == file_len.div_ceil(u64::from(block_size))
            && self.max_gap == u64::from(max_gap_blocks)
            && self.max_run_blocks == max_run_blocks(block_size, max_request_bytes)
    }

    /// Marks the blocks covering bytes `[start, end)`; an empty range marks nothing.
    ///
    /// # Panics
    /// If the range reaches past the file length given to [`new`](Self::new).
    pub fn add(&mut self, start: u64, end: u64) {
        if end <= start {
            return;
        }
        let (first, last) = block_span(self.block_size, start, end);
        assert!(
            last < self.num_blocks,
            "range {start}..{end} reaches past the end of the file"
        );
        self.blocks_requested += last - first + 1;
        let (w0, w1) = ((first / 64) as usize, (last / 64) as usize);
        self.lo = self.lo.min(w0);
        self.hi = self.hi.max(w1 + 1);
        // Bits [first % 64, 64) of w0 ... bits [0, last % 64] of w1.
        let head = !0u64 << (first % 64);
        let tail = !0u64 >> (63 - last % 64);
        if w0 == w1 {
            self.bits[w0] |= head & tail;
        } else {
            self.bits[w0] |= head;
            self.bits[w0 + 1..w1].fill(!0);
            self.bits[w1] |= tail;
        }
    }

    /// Blocks named by `add` calls since the last drain (with repeats).
    pub fn blocks_requested(&self) -> u64 {
        self.blocks_requested
    }

    /// Emits the merged runs in disk order and clears the bitmap.
    pub fn drain(&mut self) -> Vec<Run> {
        self.finish().runs
    }

    /// Emits the merged runs in disk order with the round's counts, and clears the bitmap.
    pub fn finish(&mut self) -> Schedule {
        let mut builder = RunBuilder::new(self.max_gap, self.max_run_blocks);
        let mut distinct = 0;
        if self.lo < self.hi {
            for w in self.lo..self.hi {
                let mut word = std::mem::take(&mut self.bits[w]);
                distinct += u64::from(word.count_ones());
                while word != 0 {
                    let tz = word.trailing_zeros();
                    let ones = (word >> tz).trailing_ones();
                    let start = w as u64 * 64 + u64::from(tz);
                    builder.push(start, start + u64::from(ones));
                    if tz + ones == 64 {
                        word = 0;
                    } else {
                        word &= !0u64 << (tz + ones);
                    }
                }
            }
        }
        self.lo = usize::MAX;
        self.hi = 0;
        let blocks_requested = std::mem::take(&mut self.blocks_requested);
        Schedule {
            runs: builder.finish(),
            blocks_requested,
            blocks_after_dedup: distinct,
        }
    }

    /// Forgets every request since the last drain.
    pub fn clear(&mut self) {
        if self.lo < self.hi {
            self.bits[self.lo..self.hi].fill(0);
        }
        self.lo = usize::MAX;
        self.hi = 0;
        self.blocks_requested = 0;
    }
}

/// The plug-list baseline: batches of [`PLUG_BATCH`] requests in arrival order, each sorted,
/// united and merged on its own; no deduplication across batches.
pub struct PluglistScheduler {
    block_size: u64,
    max_gap: u64,
    max_run_blocks: u64,
    num_blocks: u64,
    /// Block intervals `[first, end)` of the open batch.
    batch: Vec<(u64, u64)>,
    /// Runs of each closed batch.
    batches: Vec<Vec<Run>>,
    blocks_requested: u64,
    blocks_after_dedup: u64,
}

impl PluglistScheduler {
    /// A scheduler for files of `file_len` bytes.
    ///
    /// # Panics
    /// If `block_size` is not a power of two, or `max_request_bytes` is below one block.
    pub fn new(file_len: u64, block_size: u32, max_gap_blocks: u32, max_request_bytes: u32) -> Self {
        check_geometry(block_size, max_request_bytes);
        PluglistScheduler {
            block_size: u64::from(block_size),
            max_gap: u64::from(max_gap_blocks),
            max_run_blocks: max_run_blocks(block_size, max_request_bytes),
            num_blocks: file_len.div_ceil(u64::from(block_size)),
            batch: Vec::with_capacity(PLUG_BATCH),
            batches: Vec::new(),
            blocks_requested: 0,
            blocks_after_dedup: 0,
        }
    }

    /// Queues the request for bytes `[start, end)`; an empty range is no request.
    ///
    /// # Panics
    /// If the range reaches past the file length given to [`new`](Self::new).
    pub fn add(&mut self, start: u64, end: u64) {
        if end <= start {
            return;
        }
        let (first, last) = block_span(self.block_size, start, end);
        assert!(
            last < self.num_blocks,
            "range {start}..{end} reaches past the end of the file"
        );
        self.blocks_requested += last - first + 1;
        self.batch.push((first, last + 1));
        if self.batch.len() == PLUG_BATCH {
            self.flush();
        }
    }

    /// Blocks named by `add` calls since the last drain (with repeats).
    pub fn blocks_requested(&self) -> u64 {
        self.blocks_requested
    }

    fn flush(&mut self) {
        if self.batch.is_empty() {
            return;
        }
        self.batch.sort_unstable();
        let mut builder = RunBuilder::new(self.max_gap, self.max_run_blocks);
        let mut open: Option<(u64, u64)> = None;
        for &(s, e) in &self.batch {
            open = match open {
                Some((os, oe)) if s <= oe => Some((os, oe.max(e))),
                Some((os, oe)) => {
                    self.blocks_after_dedup += oe - os;
                    builder.push(os, oe);
                    Some((s, e))
                }
                None => Some((s, e)),
            };
        }
        if let Some((os, oe)) = open {
            self.blocks_after_dedup += oe - os;
            builder.push(os, oe);
        }
        self.batches.push(builder.finish());
        self.batch.clear();
    }

    /// Emits the runs of every batch, batch after batch, and resets.
    pub fn drain_batches(&mut self) -> Vec<Vec<Run>> {
        self.flush();
        self.blocks_requested = 0;
        self.blocks_after_dedup = 0;
        std::mem::take(&mut self.batches)
    }

    /// Emits the runs in issue order and resets.
    pub fn drain(&mut self) -> Vec<Run> {
        self.finish().runs
    }

    /// Emits the runs in issue order with the round's counts, and resets.
    pub fn finish(&mut self) -> Schedule {
        self.flush();
        let (blocks_requested, blocks_after_dedup) = (self.blocks_requested, self.blocks_after_dedup);
        let runs = self.drain_batches().concat();
        Schedule {
            runs,
            blocks_requested,
            blocks_after_dedup,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bitmap_merges_gaps_and_cuts() {
        // 512-byte blocks, gap 1, at most 4 blocks per run.
        let mut s = BitmapScheduler::new(100 * 512, 512, 1, 4 * 512);
        s.add(0, 1); // block 0
        s.add(1024, 1025); // block 2 (gap 1 -> merged)
        s.add(5 * 512, 5 * 512 + 1); // block 5 (gap 2 -> new run)
        s.add(10 * 512, 20 * 512); // blocks 10..20 -> cut at 4
        s.add(0, 10); // duplicate of block 0
        let sched = s.finish();
        let runs: Vec<(u64, u64)> = sched.runs.iter().map(|r| (r.first_block, r.num_blocks)).collect();
        assert_eq!(runs, vec![(0, 3), (5, 1), (10, 4), (14, 4), (18, 2)]);
        assert_eq!(sched.blocks_requested, 1 + 1 + 1 + 10 + 1);
        assert_eq!(sched.blocks_after_dedup, 13);
        assert_eq!(sched.blocks_read(), 14);
        assert!(s.finish().runs.is_empty(), "drain clears the bitmap");
    }

    #[test]
    fn bitmap_word_boundaries() {
        let mut s = BitmapScheduler::new(1000 * 512, 512, 0, 1 << 20);
        s.add(63 * 512, 129 * 512); // blocks 63..=128 across three words
        let runs = s.drain();
        assert_eq!(
            runs,
            vec![Run {
                first_block: 63,
                num_blocks: 66
            }]
        );
        s.add(64 * 512, 128 * 512); // exactly one full word
        assert_eq!(
            s.drain(),
            vec![Run {
                first_block: 64,
                num_blocks: 64
            }]
        );
    }

    #[test]
    fn pluglist_batches_do_not_dedup_across() {
        let mut s = PluglistScheduler::new(1 << 20, 512, 0, 1 << 20);
        for _ in 0..2 * PLUG_BATCH {
            s.add(0, 512);
        }
        let sched = s.finish();
        assert_eq!(sched.runs.len(), 2);
        assert_eq!(sched.blocks_requested, 2 * PLUG_BATCH as u64);
        assert_eq!(sched.blocks_after_dedup, 2);
    }
}
