//! [`ListScan`]: one direction of a graph's CSR read front to back in batches of whole lists,
//! by a thread of its own that reads the next batch while the caller works on this one.

use std::fs::File;
use std::ops::Range;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::mpsc::{sync_channel, Receiver};
use std::sync::Arc;
use std::thread::JoinHandle;

use diskgraph_io::faults::read_exact_at;

use crate::error::FormatError;
use crate::read::{Direction, GraphDir};

/// Consecutive vertices' whole lists (and weights), as [`ListScan`] hands them out.
#[derive(Debug, Default)]
pub struct ListBatch {
    first: u32,
    /// `offsets[i]..offsets[i + 1]` indexes the list of vertex `first + i` in `targets`.
    offsets: Vec<u64>,
    targets: Vec<u32>,
    weights: Option<Vec<f32>>,
}

impl ListBatch {
    /// The vertices whose lists the batch holds.
    pub fn vertices(&self) -> Range<u32> {
        self.first..self.first + self.len() as u32
    }

    /// Number of vertices.
    pub fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// Whether the batch holds no vertex.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Number of arcs.
    pub fn num_arcs(&self) -> usize {
        self.targets.len()
    }

    /// The list of the batch's `i`-th vertex.
    pub fn list(&self, i: usize) -> &[u32] {
        &self.targets[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }

    /// The weights of the batch's `i`-th vertex's list, when the scan reads weights.
    pub fn weights(&self, i: usize) -> Option<&[f32]> {
        let range = self.offsets[i] as usize..self.offsets[i + 1] as usize;
        self.weights.as_ref().map(|w| &w[range])
    }

    /// Every `(vertex, list, weights)` of the batch, in vertex order.
    pub fn iter(&self) -> impl Iterator<Item = (u32, &[u32], Option<&[f32]>)> + '_ {
        (0..self.len()).map(move |i| (self.first + i as u32, self.list(i), self.weights(i)))
    }
}

/// Reads one direction of a graph's CSR front to back, a batch of whole lists at a time, in
/// bounded memory: a batch holds the lists of consecutive vertices up to `buffer_bytes` of
/// neighbour IDs (one longer list alone) and as many of weights, and their offsets up to
/// `buffer_bytes` too; at most three batches exist at once (the caller's, one waiting, one
/// being read), beside an index buffer of at most `buffer_bytes`. Offsets are checked to ascend within the arc count
/// and every neighbour ID to be a vertex, so a damaged file is an error, never a read out of
/// bounds.
pub struct ListScan {
    batches: Option<Receiver<Result<ListBatch, FormatError>>>,
    reader: Option<JoinHandle<()>>,
    bytes: Arc<AtomicU64>,
}

impl ListScan {
    /// A scan of direction `dir` of `graph` (`In` is the transpose, `out.*` for undirected
    /// graphs), with the weights if `weights` and the graph has them.
    pub fn open(graph: &GraphDir, dir: Direction, weights: bool, buffer_bytes: usize) -> Result<ListScan, FormatError> {
        let (idx, adj, wgt) = graph.files_of(dir);
        let m = graph.manifest();
        let open = |name: &str| -> Result<(File, PathBuf), FormatError> {
            let path = graph.file_path(name);
            let file = File::open(&path).map_err(|e| FormatError::io(&path, e))?;
            Ok((file, path))
        };
        let mut reader = Reader {
            idx: open(idx)?,
            adj: open(adj)?,
            wgt: match weights && m.weighted {
                true => Some(open(wgt)?),
                false => None,
            },
            num_vertices: m.num_vertices,
            num_arcs: m.num_arcs,
            arcs_per_batch: (buffer_bytes / 4).max(1) as u64,
            vertices_per_batch: (buffer_bytes / 8).max(1),
            index_entries: (buffer_bytes / 8).clamp(2, INDEX_ENTRIES),
            next: 0,
            index: Vec::new(),
            index_start: 0,
            bytes: Arc::new(AtomicU64::new(0)),
        };
        let bytes = reader.bytes.clone();
        let (send, batches) = sync_channel(1);
        let thread = std::thread::Builder::new()
            .name("list-scan".into())
            .spawn(move || loop {
                let batch = reader.next_batch().transpose();
                let last = !matches!(batch, Some(Ok(_)));
                // A closed channel: the scan was dropped before its end.
                if let Some(batch) = batch {
                    if send.send(batch).is_err() {
                        return;
                    }
                }
                if last {
                    return;
                }
            })
            .map_err(|e| FormatError::io(graph.file_path(adj), e))?;
        Ok(ListScan {
            batches: Some(batches),
            reader: Some(thread),
            bytes,
        })
    }

    /// The next batch, or `None` after the last vertex.
    pub fn next_batch(&mut self) -> Result<Option<ListBatch>, FormatError> {
        match self.batches.as_ref().map(Receiver::recv) {
            Some(Ok(batch)) => batch.map(Some),
            _ => {
                self.batches = None;
                Ok(None)
            }
        }
    }

    /// Bytes read from the files so far.
    pub fn bytes_read(&self) -> u64 {
        self.bytes.load(Relaxed)
    }
}

impl Drop for ListScan {
    fn drop(&mut self) {
        // Closing the channel ends the reader at its next batch.
        self.batches = None;
        if let Some(reader) = self.reader.take() {
            let _ = reader.join();
        }
    }
}

/// The most offsets read from the index at once.
const INDEX_ENTRIES: usize = 1 << 16;

/// The reading side of a [`ListScan`].
struct Reader {
    idx: (File, PathBuf),
    adj: (File, PathBuf),
    wgt: Option<(File, PathBuf)>,
    num_vertices: u64,
    num_arcs: u64,
    arcs_per_batch: u64,
    vertices_per_batch: usize,
    /// Offsets read from the index at once.
    index_entries: usize,
    /// The first vertex of the next batch.
    next: u64,
    /// Index entries `index_start..index_start + index.len()`.
    index: Vec<u64>,
    index_start: u64,
    bytes: Arc<AtomicU64>,
}

impl Reader {
    /// Index entry `i` (`i <= num_vertices`; asked for in ascending order), checked to ascend
    /// within the arc count.
    fn offset(&mut self, i: u64) -> Result<u64, FormatError> {
        let end = self.index_start + self.index.len() as u64;
        if !(self.index_start..end).contains(&i) {
            let len = (self.num_vertices + 1 - i).min(self.index_entries as u64) as usize;
            let mut entries = vec![0u64; len];
            self.read(Which::Index, bytemuck::cast_slice_mut(&mut entries), i * 8)?;
            let mut previous = if i == end {
                self.index.last().copied().unwrap_or(0)
            } else {
                0
            };
            for (k, &entry) in entries.iter().enumerate() {
                if entry < previous || entry > self.num_arcs {
                    return Err(FormatError::Index {
                        path: self.idx.1.clone(),
                        entry: i + k as u64,
                        reason: format!(
                            "offset {entry} is below the previous {previous} or past the {} arcs",
                            self.num_arcs
                        ),
                    });
                }
                previous = entry;
            }
            self.index = entries;
            self.index_start = i;
        }
        Ok(self.index[(i - self.index_start) as usize])
    }

    /// The next batch of lists, `None` after the last vertex.
    fn next_batch(&mut self) -> Result<Option<ListBatch>, FormatError> {
        if self.next >= self.num_vertices {
            return Ok(None);
        }
        let first = self.next;
        let start = self.offset(first)?;
        let mut offsets = vec![0u64];
        let mut end = start;
        while self.next < self.num_vertices {
            let next_end = self.offset(self.next + 1)?;
            let full = next_end - start > self.arcs_per_batch || offsets.len() > self.vertices_per_batch;
            if full && offsets.len() > 1 {
                break;
            }
            end = next_end;
            offsets.push(end - start);
            self.next += 1;
        }
        let mut targets = vec![0u32; (end - start) as usize];
        self.read(Which::Lists, bytemuck::cast_slice_mut(&mut targets), start * 4)?;
        if let Some(k) = targets.iter().position(|&t| u64::from(t) >= self.num_vertices) {
            return Err(FormatError::NeighbourOutOfRange {
                path: self.adj.1.clone(),
                index: start + k as u64,
                value: targets[k],
                num_vertices: self.num_vertices,
            });
        }
        let weights = match self.wgt.is_some() {
            true => {
                let mut w = vec![0f32; targets.len()];
                self.read(Which::Weights, bytemuck::cast_slice_mut(&mut w), start * 4)?;
                Some(w)
            }
            false => None,
        };
        Ok(Some(ListBatch {
            first: first as u32,
            offsets,
            targets,
            weights,
        }))
    }

    /// Reads `buf` from file `which` at byte `at`, counting the bytes.
    fn read(&self, which: Which, buf: &mut [u8], at: u64) -> Result<(), FormatError> {
        let (file, path) = match which {
            Which::Index => &self.idx,
            Which::Lists => &self.adj,
            Which::Weights => self.wgt.as_ref().expect("weights are read"),
        };
        read_exact_at(file, path, buf, at).map_err(|e| FormatError::io(path, e))?;
        self.bytes.fetch_add(buf.len() as u64, Relaxed);
        Ok(())
    }
}

/// A file of the scan.
#[derive(Clone, Copy)]
enum Which {
    Index,
    Lists,
    Weights,
}
