//! The block bitmap scheduler: every block request of a round sets a bit; draining walks the
//! bitmap in disk order, which sorts and deduplicates for free, and merges neighbouring blocks
//! into runs (absorbing gaps of up to `max_gap` blocks, cutting runs at `max_request` bytes).

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
}

/// One bit per block of the file(s) being read.
pub struct BitmapScheduler {
    block_size: u64,
    max_gap: u64,
    max_run_blocks: u64,
    bits: Vec<u64>,
    blocks_requested: u64,
}

impl BitmapScheduler {
    /// A scheduler for files of `file_len` bytes.
    ///
    /// # Panics
    /// If `block_size` is not a power of two, or `max_request_bytes` is below one block.
    pub fn new(file_len: u64, block_size: u32, max_gap_blocks: u32, max_request_bytes: u32) -> Self {
        assert!(block_size.is_power_of_two(), "block size must be a power of two");
        assert!(max_request_bytes >= block_size, "max request must hold at least one block");
        let blocks = file_len.div_ceil(u64::from(block_size));
        BitmapScheduler {
            block_size: u64::from(block_size),
            max_gap: u64::from(max_gap_blocks),
            max_run_blocks: u64::from(max_request_bytes / block_size),
            bits: vec![0; blocks.div_ceil(64) as usize],
            blocks_requested: 0,
        }
    }

    /// Marks the blocks covering bytes `[start, end)`.
    pub fn add(&mut self, start: u64, end: u64) {
        if end <= start {
            return;
        }
        let (first, last) = (start / self.block_size, (end - 1) / self.block_size);
        self.blocks_requested += last - first + 1;
        for b in first..=last {
            self.bits[(b / 64) as usize] |= 1 << (b % 64);
        }
    }

    /// Blocks named by `add` calls since the last drain (with repeats).
    pub fn blocks_requested(&self) -> u64 {
        self.blocks_requested
    }

    /// Emits the merged runs in disk order and clears the bitmap.
    pub fn drain(&mut self) -> Vec<Run> {
        let mut runs = Vec::new();
        let mut current: Option<Run> = None;
        for w in 0..self.bits.len() {
            let mut word = std::mem::take(&mut self.bits[w]);
            while word != 0 {
                let b = w as u64 * 64 + u64::from(word.trailing_zeros());
                word &= word - 1;
                current = Some(match current {
                    Some(r) if b - (r.first_block + r.num_blocks) <= self.max_gap
                        && b + 1 - r.first_block <= self.max_run_blocks =>
                    {
                        Run { first_block: r.first_block, num_blocks: b + 1 - r.first_block }
                    }
                    Some(r) => {
                        runs.push(r);
                        Run { first_block: b, num_blocks: 1 }
                    }
                    None => Run { first_block: b, num_blocks: 1 },
                });
            }
        }
        runs.extend(current);
        self.blocks_requested = 0;
        runs
    }
}
