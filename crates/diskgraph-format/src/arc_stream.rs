//! [`ArcStream`]: a sequential reader of one direction of a graph's CSR in bounded memory, from
//! which layouts are built and verified and orderings computed.

use std::fs::File;
use std::path::{Path, PathBuf};

use diskgraph_io::faults::read_exact_at;

use crate::error::FormatError;
use crate::read::{Direction, GraphDir};

/// Reads one direction of a graph's CSR front to back through fixed-size buffers, so a graph of
/// any size streams in bounded memory: `next_vertex` moves to the next source and gives its
/// degree, `next_arc` the next neighbour (and weight) of that source. Arcs not asked for are
/// skipped without being read. Offsets and neighbour IDs are checked as they are read.
pub struct ArcStream {
    idx: Chunked<u64>,
    adj: Chunked<u32>,
    wgt: Option<Chunked<f32>>,
    num_vertices: u64,
    num_arcs: u64,
    vertex: u64,
    next: u64,
    end: u64,
}

impl ArcStream {
    /// A stream over direction `dir` of `graph` (`In` is the transpose, `out.*` for undirected
    /// graphs), with weights if `weights` and the graph has them, each of the (up to) three files
    /// read through a buffer of `buffer_bytes`.
    pub fn open(
        graph: &GraphDir,
        dir: Direction,
        weights: bool,
        buffer_bytes: usize,
    ) -> Result<ArcStream, FormatError> {
        let (idx, adj, wgt) = graph.files_of(dir);
        let m = graph.manifest();
        let (n, arcs) = (m.num_vertices, m.num_arcs);
        let mut idx = Chunked::open(&graph.file_path(idx), n + 1, buffer_bytes)?;
        let first = idx.get(0)?;
        Ok(ArcStream {
            adj: Chunked::open(&graph.file_path(adj), arcs, buffer_bytes)?,
            wgt: match weights && m.weighted {
                true => Some(Chunked::open(&graph.file_path(wgt), arcs, buffer_bytes)?),
                false => None,
            },
            idx,
            num_vertices: n,
            num_arcs: arcs,
            vertex: 0,
            next: first,
            end: first,
        })
    }

    /// Moves to the next vertex: `(v, degree)`, or `None` after the last vertex.
    pub fn next_vertex(&mut self) -> Result<Option<(u32, u64)>, FormatError> {
        if self.vertex >= self.num_vertices {
            return Ok(None);
        }
        let v = self.vertex;
        let end = self.idx.get(v + 1)?;
        if end < self.end || end > self.num_arcs {
            return Err(FormatError::Index {
                path: self.idx.path.clone(),
                entry: v + 1,
                reason: format!(
                    "offset {end} is below the previous {} or past {}",
                    self.end, self.num_arcs
                ),
            });
        }
        (self.next, self.end) = (self.end, end);
        self.vertex += 1;
        Ok(Some((v as u32, end - self.next)))
    }

    /// The next neighbour of the current vertex with its weight (1.0 when the stream has no
    /// weights), or `None` at the end of its list.
    #[inline]
    pub fn next_arc(&mut self) -> Result<Option<(u32, f32)>, FormatError> {
        if self.next >= self.end {
            return Ok(None);
        }
        let i = self.next;
        let d = self.adj.get(i)?;
        if u64::from(d) >= self.num_vertices {
            return Err(FormatError::NeighbourOutOfRange {
                path: self.adj.path.clone(),
                index: i,
                value: d,
                num_vertices: self.num_vertices,
            });
        }
        let w = match &mut self.wgt {
            Some(w) => w.get(i)?,
            None => 1.0,
        };
        self.next += 1;
        Ok(Some((d, w)))
    }

    /// The vertex whose list `next_arc` reads (the last one `next_vertex` returned).
    pub fn current_vertex(&self) -> Option<u32> {
        self.vertex.checked_sub(1).map(|v| v as u32)
    }

    /// Arcs passed so far (read or skipped).
    pub fn position(&self) -> u64 {
        self.next
    }
}

/// A read-only array file read through one buffer; any index may be asked for, sequential
/// access is what it is fast at.
struct Chunked<T> {
    path: PathBuf,
    file: File,
    len: u64,
    cap: usize,
    start: u64,
    buf: Vec<T>,
}

impl<T: bytemuck::Pod> Chunked<T> {
    fn open(path: &Path, len: u64, buffer_bytes: usize) -> Result<Chunked<T>, FormatError> {
        Ok(Chunked {
            path: path.to_path_buf(),
            file: crate::input::open_file(path)?,
            len,
            cap: (buffer_bytes / std::mem::size_of::<T>()).max(1),
            start: 0,
            buf: Vec::new(),
        })
    }

    #[inline]
    fn get(&mut self, i: u64) -> Result<T, FormatError> {
        let off = i.wrapping_sub(self.start);
        if off < self.buf.len() as u64 {
            return Ok(self.buf[off as usize]);
        }
        self.fill(i)?;
        Ok(self.buf[0])
    }

    fn fill(&mut self, i: u64) -> Result<(), FormatError> {
        if i >= self.len {
            return Err(FormatError::Content {
                path: self.path.clone(),
                reason: format!("entry {i} is past the end ({} entries)", self.len),
            });
        }
        let n = (self.len - i).min(self.cap as u64) as usize;
        self.buf.clear();
        self.buf.resize(n, T::zeroed());
        let size = std::mem::size_of::<T>() as u64;
        read_exact_at(
            &self.file,
            &self.path,
            bytemuck::cast_slice_mut(&mut self.buf),
            i * size,
        )
        .map_err(|e| FormatError::io(&self.path, e))?;
        self.start = i;
        Ok(())
    }
}
