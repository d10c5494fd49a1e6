//! Writing compressed blocks ([`BlockPacker`]): the runs of each block ([`BlockEncoder`]), one
//! block after another, and the byte offset where each ends — what `partition --compress` writes
//! for grid blocks and for shard windows.

use anyhow::Result;
use diskgraph_format::{BlockEncoder, BlockFrame, Codec, DataFileWriter, FileEntry, GridEdge, LayoutBuilder};

/// Bytes of packed runs gathered before they are written.
const PACK_FLUSH: usize = 1 << 20;

/// The packed file being written and its byte index (which starts at 0).
pub(crate) struct BlockPacker {
    codec: Codec,
    packed: DataFileWriter,
    offsets: Vec<u64>,
    out: Vec<u8>,
    block: Option<BlockEncoder>,
}

impl BlockPacker {
    /// Creates the packed file `name` in the layout being built, for blocks coded with `codec`.
    pub(crate) fn create(builder: &LayoutBuilder, name: &str, codec: Codec) -> Result<BlockPacker> {
        Ok(BlockPacker {
            codec,
            packed: builder.sequential(name)?,
            offsets: vec![0],
            out: Vec::with_capacity(2 * PACK_FLUSH),
            block: None,
        })
    }

    /// Starts the next block, of `frame`'s ranges.
    pub(crate) fn start(&mut self, frame: BlockFrame) {
        self.block = Some(BlockEncoder::new(self.codec, frame));
    }

    /// Adds the next edge of the block started last, in the block's order.
    #[inline]
    pub(crate) fn push(&mut self, e: GridEdge) -> Result<()> {
        self.block.as_mut().expect("a block was started").push(e, &mut self.out);
        if self.out.len() >= PACK_FLUSH {
            self.packed.write_bytes(&self.out)?;
            self.out.clear();
        }
        Ok(())
    }

    /// Ends the block started last and records where it ends.
    pub(crate) fn end(&mut self) -> Result<()> {
        self.block.take().expect("a block was started").finish(&mut self.out);
        self.packed.write_bytes(&self.out)?;
        self.out.clear();
        self.offsets.push(self.packed.len());
        Ok(())
    }

    /// The byte index so far: where each block ended, after a first 0.
    pub(crate) fn offsets(&self) -> &[u64] {
        &self.offsets
    }

    /// Finishes the packed file and writes the byte index as `index_name`; both files' entries.
    pub(crate) fn finish(self, builder: &LayoutBuilder, index_name: &str) -> Result<Vec<(String, FileEntry)>> {
        let mut idx = builder.sequential(index_name)?;
        idx.write_u64s(&self.offsets)?;
        Ok(vec![self.packed.finish()?, idx.finish()?])
    }
}
