//! The columns an interval computes over — the layout's sources and targets and the run's edge
//! values — as tables of the blocks loaded for it ([`Columns`]), and the files behind the
//! blocks ([`ColumnFiles`], the block cache's store).
//!
//! All three columns hold one 4-byte word per arc in the layout's order, so block `k` of each
//! covers the same arcs, `[k·W, (k+1)·W)` with `W = block_bytes / 4`.

use std::ops::Range;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering::Relaxed};
use std::sync::Arc;

use diskgraph_cache::{Block, BlockKey, BlockStore};
use diskgraph_io::{BlockFile, IoError, PageBuf};

/// The layout's source column.
pub(super) const SRC: u8 = 0;
/// The layout's target column.
pub(super) const DST: u8 = 1;
/// The run's edge values (a scratch file).
pub(super) const VALUES: u8 = 2;

/// The files of the three columns.
pub(super) struct ColumnFiles {
    src: BlockFile,
    dst: BlockFile,
    values: BlockFile,
    block_bytes: u64,
    /// Value blocks written at least once: the others read as zeros without I/O.
    written: Vec<AtomicBool>,
}

impl ColumnFiles {
    /// Opens the layout's columns and creates the value column in `scratch`, for `arcs` arcs
    /// in blocks of `block_bytes`.
    pub(super) fn open(
        src: &Path,
        dst: &Path,
        scratch: &Path,
        arcs: u64,
        block_bytes: u64,
    ) -> Result<ColumnFiles, IoError> {
        let blocks = (4 * arcs).div_ceil(block_bytes);
        Ok(ColumnFiles {
            src: BlockFile::open_read(src)?,
            dst: BlockFile::open_read(dst)?,
            values: BlockFile::create(&scratch.join("values.u32"), blocks * block_bytes)?,
            block_bytes,
            written: (0..blocks).map(|_| AtomicBool::new(false)).collect(),
        })
    }

    /// Bytes read from the layout's columns and the value column.
    pub(super) fn bytes_read(&self) -> u64 {
        self.src.bytes_read() + self.dst.bytes_read() + self.values.bytes_read()
    }

    /// Bytes of values written back.
    pub(super) fn bytes_written(&self) -> u64 {
        self.values.bytes_written()
    }

    /// Whether the files bypass the page cache.
    pub(super) fn direct(&self) -> bool {
        self.src.direct() && self.dst.direct() && self.values.direct()
    }
}

impl BlockStore for ColumnFiles {
    type Error = IoError;

    fn read(&self, key: BlockKey, buf: &mut PageBuf) -> Result<(), IoError> {
        let at = key.index * self.block_bytes;
        match key.column {
            SRC => self.src.read(buf, at),
            DST => self.dst.read(buf, at),
            _ if self.written[key.index as usize].load(Relaxed) => self.values.read(buf, at),
            _ => Ok(()),
        }
    }

    fn write(&self, key: BlockKey, buf: &PageBuf) -> Result<(), IoError> {
        assert_eq!(key.column, VALUES, "only edge values are written back");
        self.values.write(buf, key.index * self.block_bytes)?;
        self.written[key.index as usize].store(true, Relaxed);
        Ok(())
    }
}

/// The blocks loaded for one interval, per column, indexed by block number.
pub(crate) struct Columns {
    tables: [Vec<Option<Arc<Block>>>; 3],
    shift: u32,
    mask: u64,
}

impl Columns {
    /// Empty tables for columns of `blocks` blocks of `1 << shift` words.
    pub(super) fn new(blocks: u64, shift: u32) -> Columns {
        let table = || vec![None; blocks as usize];
        Columns {
            tables: [table(), table(), table()],
            shift,
            mask: (1 << shift) - 1,
        }
    }

    /// The keys of the blocks of `column` covering arcs `range`.
    pub(super) fn keys(&self, column: u8, range: &Range<u64>) -> impl Iterator<Item = BlockKey> {
        let blocks = match range.is_empty() {
            true => 0..0,
            false => (range.start >> self.shift)..((range.end - 1) >> self.shift) + 1,
        };
        blocks.map(move |index| BlockKey { column, index })
    }

    /// Puts loaded blocks into their tables.
    pub(super) fn insert(&mut self, keys: &[BlockKey], blocks: Vec<Arc<Block>>) {
        for (k, b) in keys.iter().zip(blocks) {
            self.tables[k.column as usize][k.index as usize] = Some(b);
        }
    }

    /// Drops every block (unpinning it in the cache).
    pub(super) fn clear(&mut self) {
        for t in &mut self.tables {
            t.iter_mut().for_each(|b| *b = None);
        }
    }

    fn word(&self, column: u8, e: u64) -> (&Block, &AtomicU32) {
        let block = self.tables[column as usize][(e >> self.shift) as usize]
            .as_deref()
            .expect("the block of an arc of the interval is loaded");
        (block, &block.buf().as_atomic_u32()[(e & self.mask) as usize])
    }

    /// Arc `e`'s source.
    pub(super) fn source(&self, e: u64) -> u32 {
        self.word(SRC, e).1.load(Relaxed)
    }

    /// Arc `e`'s target.
    pub(super) fn target(&self, e: u64) -> u32 {
        self.word(DST, e).1.load(Relaxed)
    }

    /// Arc `e`'s value.
    pub(super) fn value(&self, e: u64) -> &AtomicU32 {
        self.word(VALUES, e).1
    }

    /// Sets arc `e`'s value, marking its block modified when it changes.
    pub(super) fn set_value(&self, e: u64, x: u32) {
        let (block, w) = self.word(VALUES, e);
        if w.load(Relaxed) != x {
            w.store(x, Relaxed);
            block.mark_modified();
        }
    }
}
