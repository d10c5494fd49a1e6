//! Adjacency lists of single vertices for orderings that visit them in no fixed order: the offset
//! index in memory (O(V)), the neighbour IDs either loaded whole, when the budget holds them, or
//! read from disk on demand through one reusable buffer.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::PathBuf;

use anyhow::{Context, Result};
use diskgraph_format::{CompressedLayout, Direction, FormatError, GraphDir};

/// Reads the adjacency list of any vertex of one direction, range-checking every neighbour.
pub(super) struct ListReader {
    offsets: Vec<u64>,
    neighbours: Neighbours,
}

/// Where a [`ListReader`]'s neighbour IDs come from.
enum Neighbours {
    /// Every neighbour, read sequentially and range-checked once at open.
    Loaded(Vec<u32>),
    /// One positioned read per list (per buffer's worth of a long list): a syscall each, but
    /// no more memory than the buffer.
    OnDisk {
        path: PathBuf,
        file: File,
        num_vertices: u64,
        buf: Vec<u32>,
    },
    /// A compressed-only graph's lists: one positioned read and one decode per list, through
    /// the byte offsets of the lists (8 bytes per vertex, beside the arc offsets).
    Compressed(Box<CompressedLists>),
}

/// The compressed lists a [`ListReader`] decodes, and its buffers.
struct CompressedLists {
    layout: CompressedLayout,
    dir: Direction,
    index: Vec<u64>,
    file: File,
    bytes: Vec<u8>,
    list: Vec<u32>,
}

impl ListReader {
    /// Bytes of one direction's neighbour IDs of `g` when loaded (4 per arc).
    pub(super) fn loaded_bytes(g: &GraphDir) -> u64 {
        g.manifest().num_arcs.saturating_mul(4)
    }

    /// A reader of direction `dir` of `g` holding every neighbour in memory
    /// ([`ListReader::loaded_bytes`]).
    pub(super) fn loaded(g: &GraphDir, dir: Direction) -> Result<ListReader> {
        let csr = g.load_csr(dir, false)?;
        Ok(ListReader {
            offsets: csr.offsets,
            neighbours: Neighbours::Loaded(csr.targets),
        })
    }

    /// A reader of direction `dir` of `g` reading lists from disk at most `buffer_bytes` at a
    /// time.
    pub(super) fn on_disk(g: &GraphDir, dir: Direction, buffer_bytes: usize) -> Result<ListReader> {
        if let Some(layout) = g.lists_layout()? {
            let path = layout.files_of(dir).1;
            let lists = CompressedLists {
                index: layout.load_offsets(dir)?,
                file: diskgraph_format::open_file(&path)?,
                layout,
                dir,
                bytes: Vec::new(),
                list: Vec::new(),
            };
            return Ok(ListReader {
                offsets: g.load_offsets(dir)?,
                neighbours: Neighbours::Compressed(Box::new(lists)),
            });
        }
        let (_, adj, _) = g.files_of(dir);
        let path = g.file_path(adj);
        let file = diskgraph_format::open_file(&path)?;
        Ok(ListReader {
            offsets: g.load_offsets(dir)?,
            neighbours: Neighbours::OnDisk {
                path,
                file,
                num_vertices: g.num_vertices(),
                buf: vec![0; (buffer_bytes / 4).max(1)],
            },
        })
    }

    /// Calls `f` on each neighbour of `v`, in list order.
    pub(super) fn for_each(&mut self, v: u32, mut f: impl FnMut(u32)) -> Result<()> {
        let (mut at, end) = (self.offsets[v as usize], self.offsets[v as usize + 1]);
        let (path, file, num_vertices, buf) = match &mut self.neighbours {
            Neighbours::Loaded(targets) => {
                targets[at as usize..end as usize].iter().for_each(|&u| f(u));
                return Ok(());
            }
            Neighbours::Compressed(c) => {
                let (a, b) = (c.index[v as usize], c.index[v as usize + 1]);
                let path = c.layout.files_of(c.dir).1;
                c.bytes.resize((b - a) as usize, 0);
                c.file
                    .read_exact_at(&mut c.bytes, a)
                    .with_context(|| format!("cannot read {}", path.display()))?;
                c.layout
                    .decode_expecting(c.dir, v, a, &c.bytes, end - at, &mut c.list)?;
                c.list.iter().for_each(|&u| f(u));
                return Ok(());
            }
            Neighbours::OnDisk {
                path,
                file,
                num_vertices,
                buf,
            } => (path, file, *num_vertices, buf),
        };
        while at < end {
            let len = ((end - at) as usize).min(buf.len());
            let chunk = &mut buf[..len];
            file.read_exact_at(bytemuck::cast_slice_mut(chunk), at * 4)
                .with_context(|| format!("cannot read {}", path.display()))?;
            if let Some(i) = chunk.iter().position(|&u| u64::from(u) >= num_vertices) {
                return Err(FormatError::NeighbourOutOfRange {
                    path: path.clone(),
                    index: at + i as u64,
                    value: chunk[i],
                    num_vertices,
                }
                .into());
            }
            chunk.iter().for_each(|&u| f(u));
            at += len as u64;
        }
        Ok(())
    }
}
