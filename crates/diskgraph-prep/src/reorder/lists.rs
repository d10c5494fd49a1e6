//! Adjacency lists of single vertices, read on demand by positioned reads: the offset index in
//! memory (O(V)), the neighbour IDs from disk through one reusable buffer.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::PathBuf;

use anyhow::{Context, Result};
use diskgraph_format::{Direction, FormatError, GraphDir};

/// Reads the adjacency list of any vertex of one direction, range-checking every neighbour.
pub(super) struct ListReader {
    path: PathBuf,
    file: File,
    offsets: Vec<u64>,
    num_vertices: u64,
    buf: Vec<u32>,
}

impl ListReader {
    /// A reader of direction `dir` of `g` whose reads are at most `buffer_bytes` long.
    pub(super) fn open(g: &GraphDir, dir: Direction, buffer_bytes: usize) -> Result<ListReader> {
        let (_, adj, _) = g.files_of(dir);
        let path = g.file_path(adj);
        let file = File::open(&path).with_context(|| format!("cannot open {}", path.display()))?;
        Ok(ListReader {
            offsets: g.load_offsets(dir)?,
            path,
            file,
            num_vertices: g.num_vertices(),
            buf: vec![0; (buffer_bytes / 4).max(1)],
        })
    }

    /// Calls `f` on each neighbour of `v`, in list order.
    pub(super) fn for_each(&mut self, v: u32, mut f: impl FnMut(u32)) -> Result<()> {
        let (mut at, end) = (self.offsets[v as usize], self.offsets[v as usize + 1]);
        while at < end {
            let len = ((end - at) as usize).min(self.buf.len());
            let chunk = &mut self.buf[..len];
            self.file
                .read_exact_at(bytemuck::cast_slice_mut(chunk), at * 4)
                .with_context(|| format!("cannot read {}", self.path.display()))?;
            if let Some(i) = chunk.iter().position(|&u| u64::from(u) >= self.num_vertices) {
                return Err(FormatError::NeighbourOutOfRange {
                    path: self.path.clone(),
                    index: at + i as u64,
                    value: chunk[i],
                    num_vertices: self.num_vertices,
                }
                .into());
            }
            chunk.iter().for_each(|&u| f(u));
            at += len as u64;
        }
        Ok(())
    }
}
