//! [`ArcStream`]: a sequential reader of one direction of a graph's CSR in bounded memory, from
//! which layouts are built and verified and orderings computed.

use std::fs::File;
use std::path::{Path, PathBuf};

use diskgraph_io::faults::read_exact_at;

use crate::compressed_layout::CompressedLayout;
use crate::error::FormatError;
use crate::read::{Direction, GraphDir};

/// Reads one direction of a graph's CSR front to back through fixed-size buffers, so a graph of
/// any size streams in bounded memory: `next_vertex` moves to the next source and gives its
/// degree, `next_arc` the next neighbour (and weight) of that source. Arcs not asked for are
/// skipped without being read. Offsets and neighbour IDs are checked as they are read. A
/// compressed-only graph's lists are decoded one by one as the stream reaches them (each
/// checked against the degree `*.idx` gives it).
pub struct ArcStream {
    idx: Chunked<u64>,
    adj: Targets,
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
        let adj = match graph.lists_layout()? {
            None => Targets::Plain(Chunked::open(&graph.file_path(adj), arcs, buffer_bytes)?),
            Some(layout) => {
                let (cidx, cadj) = layout.files_of(dir);
                Targets::Compressed(Box::new(Decoded {
                    index: Chunked::open(&cidx, n + 1, buffer_bytes)?,
                    lists: Chunked::open(&cadj, layout.lists_len(dir), buffer_bytes)?,
                    layout,
                    dir,
                    list: Vec::new(),
                    start: 0,
                }))
            }
        };
        Ok(ArcStream {
            adj,
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
        if let Targets::Compressed(c) = &mut self.adj {
            c.decode(v, self.next, end - self.next)?;
        }
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
        let d = match &mut self.adj {
            Targets::Plain(adj) => adj.get(i)?,
            Targets::Compressed(c) => c.list[(i - c.start) as usize],
        };
        if u64::from(d) >= self.num_vertices {
            return Err(FormatError::NeighbourOutOfRange {
                path: self.adj.path(),
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
/// Where an [`ArcStream`] takes neighbour IDs from.
enum Targets {
    /// The plain lists, `*.adj`.
    Plain(Chunked<u32>),
    /// The compressed lists of a compressed-only graph.
    Compressed(Box<Decoded>),
}

impl Targets {
    /// The file the IDs come from, for errors.
    fn path(&self) -> PathBuf {
        match self {
            Targets::Plain(adj) => adj.path.clone(),
            Targets::Compressed(c) => c.lists.path.clone(),
        }
    }
}

/// The current list of a compressed-only graph, decoded.
struct Decoded {
    layout: CompressedLayout,
    dir: Direction,
    index: Chunked<u64>,
    lists: Chunked<u8>,
    /// The list of the current vertex.
    list: Vec<u32>,
    /// The arc index of `list[0]`.
    start: u64,
}

impl Decoded {
    /// Decodes the list of `v`, whose arcs start at `start` and number `degree` by `*.idx`.
    fn decode(&mut self, v: u64, start: u64, degree: u64) -> Result<(), FormatError> {
        let (a, b) = (self.index.get(v)?, self.index.get(v + 1)?);
        if b < a || b > self.lists.len {
            return Err(FormatError::Index {
                path: self.index.path.clone(),
                entry: v + 1,
                reason: format!("offset {b} is below the previous {a} or past {}", self.lists.len),
            });
        }
        let bytes = self.lists.slice(a, b)?;
        self.layout
            .decode_expecting(self.dir, v as u32, a, bytes, degree, &mut self.list)?;
        self.start = start;
        Ok(())
    }
}

/// A file of `T`s read through one reused buffer: entries in order cost one read a buffer.
pub(crate) struct Chunked<T> {
    path: PathBuf,
    file: File,
    len: u64,
    cap: usize,
    start: u64,
    buf: Vec<T>,
}

impl<T: bytemuck::Pod> Chunked<T> {
    /// The `len` entries of `path`, read `buffer_bytes` at a time.
    pub(crate) fn open(path: &Path, len: u64, buffer_bytes: usize) -> Result<Chunked<T>, FormatError> {
        Ok(Chunked {
            path: path.to_path_buf(),
            file: crate::input::open_file(path)?,
            len,
            cap: (buffer_bytes / std::mem::size_of::<T>()).max(1),
            start: 0,
            buf: Vec::new(),
        })
    }

    /// Entry `i` (a read when it is not in the buffer).
    #[inline]
    pub(crate) fn get(&mut self, i: u64) -> Result<T, FormatError> {
        let off = i.wrapping_sub(self.start);
        if off < self.buf.len() as u64 {
            return Ok(self.buf[off as usize]);
        }
        self.fill(i)?;
        Ok(self.buf[0])
    }

    /// Entries `a..b`, read as one piece (the buffer grows to hold a range longer than it).
    fn slice(&mut self, a: u64, b: u64) -> Result<&[T], FormatError> {
        let end = self.start + self.buf.len() as u64;
        if a == b {
            return Ok(&[]);
        }
        if a < self.start || b > end {
            self.cap = self.cap.max((b - a) as usize);
            self.fill(a)?;
        }
        Ok(&self.buf[(a - self.start) as usize..(b - self.start) as usize])
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
