//! The columns an interval computes over — the layout's sources and targets and the run's edge
//! values — as tables of the blocks loaded for it ([`Columns`]), and the files behind the
//! blocks ([`ColumnFiles`], the block cache's store).
//!
//! The three columns hold one 4-byte word per arc in the layout's order, so block `k` of each
//! covers the same arcs, `[k·W, (k+1)·W)` with `W = block_bytes / 4`. A compressed layout has
//! no source and target columns: its packed windows are read in blocks of the same size
//! ([`PACKED`]) and decoded into [`DecodedArcs`], which answer by arc number as the columns do.

use std::ops::Range;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering::Relaxed};
use std::sync::Arc;

use diskgraph_cache::{Block, BlockKey, BlockStore};
use diskgraph_io::{BlockFile, IoError, PageBuf};

use super::decoded::DecodedArcs;

/// The layout's source column.
pub(super) const SRC: u8 = 0;
/// The layout's target column.
pub(super) const DST: u8 = 1;
/// The run's edge values (a scratch file).
pub(super) const VALUES: u8 = 2;
/// A compressed layout's packed windows (bytes, not words).
pub(super) const PACKED: u8 = 3;

/// Where the layout's arcs are read from.
enum ArcFiles {
    /// The source and target columns.
    Plain { src: BlockFile, dst: BlockFile },
    /// The packed windows of a compressed layout.
    Packed(BlockFile),
}

/// The files of the columns.
pub(super) struct ColumnFiles {
    arcs: ArcFiles,
    values: BlockFile,
    block_bytes: u64,
    /// Value blocks written at least once: the others read as zeros without I/O.
    written: Vec<AtomicBool>,
}

impl ColumnFiles {
    /// Opens the layout's columns — `arcs` as `[src, dst]`, or a compressed layout's packed
    /// windows as `[packed]` — and creates the value column in `scratch`, for `arcs` arcs in
    /// blocks of `block_bytes`.
    pub(super) fn open(files: &[&Path], scratch: &Path, arcs: u64, block_bytes: u64) -> Result<ColumnFiles, IoError> {
        let blocks = (4 * arcs).div_ceil(block_bytes);
        Ok(ColumnFiles {
            arcs: match files {
                [packed] => ArcFiles::Packed(BlockFile::open_read(packed)?),
                [src, dst] => ArcFiles::Plain {
                    src: BlockFile::open_read(src)?,
                    dst: BlockFile::open_read(dst)?,
                },
                _ => unreachable!("two columns or one packed file"),
            },
            values: BlockFile::create(&scratch.join("values.u32"), blocks * block_bytes)?,
            block_bytes,
            written: (0..blocks).map(|_| AtomicBool::new(false)).collect(),
        })
    }

    /// Bytes read from the layout's files and the value column.
    pub(super) fn bytes_read(&self) -> u64 {
        let arcs = match &self.arcs {
            ArcFiles::Plain { src, dst } => src.bytes_read() + dst.bytes_read(),
            ArcFiles::Packed(packed) => packed.bytes_read(),
        };
        arcs + self.values.bytes_read()
    }

    /// Bytes of values written back.
    pub(super) fn bytes_written(&self) -> u64 {
        self.values.bytes_written()
    }

    /// Whether the files bypass the page cache.
    pub(super) fn direct(&self) -> bool {
        let arcs = match &self.arcs {
            ArcFiles::Plain { src, dst } => src.direct() && dst.direct(),
            ArcFiles::Packed(packed) => packed.direct(),
        };
        arcs && self.values.direct()
    }
}

impl BlockStore for ColumnFiles {
    type Error = IoError;

    fn read(&self, key: BlockKey, buf: &mut PageBuf) -> Result<(), IoError> {
        let at = key.index * self.block_bytes;
        match (key.column, &self.arcs) {
            (SRC, ArcFiles::Plain { src, .. }) => src.read(buf, at),
            (DST, ArcFiles::Plain { dst, .. }) => dst.read(buf, at),
            (PACKED, ArcFiles::Packed(packed)) => packed.read(buf, at),
            (VALUES, _) if self.written[key.index as usize].load(Relaxed) => self.values.read(buf, at),
            (VALUES, _) => Ok(()),
            _ => unreachable!("block {key:?} of a column the layout does not have"),
        }
    }

    fn write(&self, key: BlockKey, buf: &PageBuf) -> Result<(), IoError> {
        assert_eq!(key.column, VALUES, "only edge values are written back");
        self.values.write(buf, key.index * self.block_bytes)?;
        self.written[key.index as usize].store(true, Relaxed);
        Ok(())
    }
}

/// The blocks loaded for one interval, per column, indexed by block number; for a compressed
/// layout, the arcs decoded from its packed blocks.
pub(crate) struct Columns {
    tables: [Vec<Option<Arc<Block>>>; 4],
    shift: u32,
    mask: u64,
    /// A compressed layout's decoded arcs (the source and target tables stay empty).
    pub(super) decoded: Option<DecodedArcs>,
}

impl Columns {
    /// Empty tables for columns of `blocks` blocks of `1 << shift` words; with `packed`, a
    /// compressed layout's: `packed` blocks of packed windows and decoded arcs instead of
    /// source and target blocks.
    pub(super) fn new(blocks: u64, shift: u32, packed: Option<u64>) -> Columns {
        let table = |n: u64| vec![None; n as usize];
        let arcs = blocks << shift;
        Columns {
            tables: [table(blocks), table(blocks), table(blocks), table(packed.unwrap_or(0))],
            shift,
            mask: (1 << shift) - 1,
            decoded: packed.map(|_| DecodedArcs::new(arcs)),
        }
    }

    /// Bytes `range` of the packed windows, copied from the loaded blocks into `scratch` (a
    /// block is only ever seen as atomic words).
    pub(super) fn packed_bytes<'a>(&self, range: &Range<u64>, scratch: &'a mut Vec<u8>) -> &'a [u8] {
        scratch.clear();
        if range.is_empty() {
            return scratch;
        }
        let words_per_block = 1u64 << self.shift;
        let (first, end) = (range.start / 4, range.end.div_ceil(4));
        let mut w = first;
        while w < end {
            let (k, i) = (w / words_per_block, w % words_per_block);
            let n = (words_per_block - i).min(end - w);
            let block = self.tables[PACKED as usize][k as usize]
                .as_deref()
                .expect("the packed block of a window of the interval is loaded");
            let words = &block.buf().as_atomic_u32()[i as usize..(i + n) as usize];
            scratch.extend(words.iter().flat_map(|x| x.load(Relaxed).to_le_bytes()));
            w += n;
        }
        let head = (range.start - 4 * first) as usize;
        &scratch[head..head + (range.end - range.start) as usize]
    }

    /// The keys of the blocks of `column` covering arcs `range`.
    pub(super) fn keys(&self, column: u8, range: &Range<u64>) -> impl Iterator<Item = BlockKey> {
        let blocks = match range.is_empty() {
            true => 0..0,
            false => (range.start >> self.shift)..((range.end - 1) >> self.shift) + 1,
        };
        blocks.map(move |index| BlockKey { column, index })
    }

    /// The keys of the packed blocks covering bytes `range` of a compressed layout's windows.
    pub(super) fn packed_keys(&self, range: &Range<u64>) -> impl Iterator<Item = BlockKey> {
        let shift = self.shift + 2;
        let blocks = match range.is_empty() {
            true => 0..0,
            false => (range.start >> shift)..((range.end - 1) >> shift) + 1,
        };
        blocks.map(|index| BlockKey { column: PACKED, index })
    }

    /// Puts loaded blocks into their tables.
    pub(super) fn insert(&mut self, keys: &[BlockKey], blocks: Vec<Arc<Block>>) {
        for (k, b) in keys.iter().zip(blocks) {
            self.tables[k.column as usize][k.index as usize] = Some(b);
        }
    }

    /// Drops every block (unpinning it in the cache) and every decoded arc.
    pub(super) fn clear(&mut self) {
        for t in &mut self.tables {
            t.iter_mut().for_each(|b| *b = None);
        }
        if let Some(d) = &mut self.decoded {
            d.clear();
        }
    }

    fn word(&self, column: u8, e: u64) -> (&Block, &AtomicU32) {
        let block = self.tables[column as usize][(e >> self.shift) as usize]
            .as_deref()
            .expect("the block of an arc of the interval is loaded");
        (block, &block.buf().as_atomic_u32()[(e & self.mask) as usize])
    }

    /// Arc `e`'s source.
    #[inline]
    pub(super) fn source(&self, e: u64) -> u32 {
        match &self.decoded {
            Some(d) => d.source(e),
            None => self.word(SRC, e).1.load(Relaxed),
        }
    }

    /// Arc `e`'s target.
    #[inline]
    pub(super) fn target(&self, e: u64) -> u32 {
        match &self.decoded {
            Some(d) => d.target(e),
            None => self.word(DST, e).1.load(Relaxed),
        }
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
