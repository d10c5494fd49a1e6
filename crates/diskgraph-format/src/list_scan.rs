//! [`ListScan`]: one direction of a graph's CSR read front to back in batches of whole lists,
//! by a thread of its own that reads the next batch while the caller works on this one.

use std::fs::File;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::Arc;
use std::thread::JoinHandle;

use diskgraph_io::faults::read_exact_at;
use diskgraph_io::{IoError, ReadRequest, SequentialConfig, SequentialReader};

use crate::compressed_layout::{read_lists_from, CompressedLayout};
use crate::data_file::read_range;
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
/// `buffer_bytes` too. The lists (and weights) come through the I/O layer's
/// [`SequentialReader`] — O_DIRECT reads, several in flight, into [`READ_SLOTS`] buffers of
/// `buffer_bytes` per file — so a pass neither waits on one read at a time nor fills the page
/// cache (which a memory limit charges); the offsets are read buffered, `buffer_bytes` at most
/// at once. At most three batches exist at once (the caller's, one waiting, one being filled).
/// Offsets are checked to ascend within the arc count and every neighbour ID to be a vertex,
/// so a damaged file is an error, never a read out of bounds.
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
        let idx_path = graph.file_path(idx);
        let idx_file = crate::input::open_file(&idx_path)?;
        let arcs_per_read = (buffer_bytes / 4).max(1024) as u64;
        // A compressed-only graph has no `*.adj`: its lists are decoded (`Lists::Compressed`).
        let mut files = vec![graph.file_path(adj)];
        if weights && m.weighted {
            files.push(graph.file_path(wgt));
        }
        let lists = match graph.lists_layout()? {
            Some(layout) => Lists::Compressed {
                graph: graph.clone(),
                layout,
                dir,
                weights: (files.len() == 2).then(|| files[1].clone()),
            },
            None => {
                let capacity = arcs_per_read * 4;
                let opened: Vec<(&Path, u64)> = files.iter().map(|f| (f.as_path(), capacity)).collect();
                let config = SequentialConfig {
                    slots: READ_SLOTS,
                    ..SequentialConfig::default()
                };
                Lists::Plain(SequentialReader::open(&opened, &config)?)
            }
        };
        let mut reader = Reader {
            idx: (idx_file, idx_path),
            adj: graph.file_path(adj),
            lists,
            weighted: files.len() == 2,
            num_vertices: m.num_vertices,
            num_arcs: m.num_arcs,
            arcs_per_batch: (buffer_bytes / 4).max(1) as u64,
            arcs_per_read,
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
            .spawn(move || {
                // A closed channel means the scan was dropped before its end: stop quietly.
                if let Err(Stop::Failed(e)) = reader.run(&send) {
                    let _ = send.send(Err(e));
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

/// Read buffers of the lists: one being filled, one read ahead, one being copied out.
pub const READ_SLOTS: usize = 3;

/// Batches planned from the index before their lists are read (one [`SequentialReader::read`]).
const BATCHES_PER_READ: usize = 16;

/// Why the reading side stopped before the end.
enum Stop {
    /// The caller dropped the scan.
    Closed,
    /// A read failed or a file is damaged.
    Failed(FormatError),
}

impl From<IoError> for Stop {
    fn from(e: IoError) -> Self {
        Stop::Failed(e.into())
    }
}

impl From<FormatError> for Stop {
    fn from(e: FormatError) -> Self {
        Stop::Failed(e)
    }
}

/// A batch whose vertices the index has placed, its lists not yet read.
struct Planned {
    first: u64,
    offsets: Vec<u64>,
    arcs: Range<u64>,
}

/// Where a [`Reader`] takes lists from.
enum Lists {
    /// `*.adj` (and `*.wgt`), read ahead.
    Plain(SequentialReader),
    /// The compressed lists of a compressed-only graph, decoded, and the weights file.
    Compressed {
        graph: GraphDir,
        layout: CompressedLayout,
        dir: Direction,
        weights: Option<PathBuf>,
    },
}

/// The reading side of a [`ListScan`].
struct Reader {
    idx: (File, PathBuf),
    /// The lists' file, for errors.
    adj: PathBuf,
    /// The lists (and weights) file, read sequentially, or the compressed lists.
    lists: Lists,
    /// Whether `lists` reads weights as its second file.
    weighted: bool,
    num_vertices: u64,
    num_arcs: u64,
    arcs_per_batch: u64,
    /// The most arcs one read request asks for (a read buffer's capacity).
    arcs_per_read: u64,
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
    /// Sends every batch, in order, until the last vertex.
    fn run(&mut self, send: &SyncSender<Result<ListBatch, FormatError>>) -> Result<(), Stop> {
        if let Lists::Compressed { .. } = &self.lists {
            return self.run_compressed(send);
        }
        loop {
            let mut plans = Vec::with_capacity(BATCHES_PER_READ);
            while plans.len() < BATCHES_PER_READ {
                match self.plan()? {
                    Some(p) => plans.push(p),
                    None => break,
                }
            }
            if plans.is_empty() {
                return Ok(());
            }
            // Each batch's arcs in requests of at most a buffer each (a long list takes several).
            let mut requests = Vec::new();
            let mut last_request = Vec::with_capacity(plans.len());
            for p in &plans {
                let mut at = p.arcs.start;
                loop {
                    let end = (at + self.arcs_per_read).min(p.arcs.end);
                    let bytes = at * 4..end * 4;
                    let ranges = match self.weighted {
                        true => vec![bytes.clone(), bytes],
                        false => vec![bytes],
                    };
                    requests.push(ReadRequest { ranges });
                    at = end;
                    if at >= p.arcs.end {
                        break;
                    }
                }
                last_request.push(requests.len() - 1);
            }
            let mut plans = plans.into_iter();
            // The batch being filled, with its first arc.
            let mut filling: Option<(u64, ListBatch)> = None;
            let mut batch_index = 0;
            let this = &*self;
            let Lists::Plain(lists) = &this.lists else {
                unreachable!("compressed lists are read by run_compressed")
            };
            lists.read(&requests, |i, data| {
                let (_, batch) = filling.get_or_insert_with(|| {
                    let p = plans.next().expect("a request belongs to a planned batch");
                    let n = (p.arcs.end - p.arcs.start) as usize;
                    let batch = ListBatch {
                        first: p.first as u32,
                        offsets: p.offsets,
                        targets: Vec::with_capacity(n),
                        weights: this.weighted.then(|| Vec::with_capacity(n)),
                    };
                    (p.arcs.start, batch)
                });
                batch.targets.extend_from_slice(bytemuck::cast_slice(data[0]));
                if let Some(w) = batch.weights.as_mut() {
                    w.extend_from_slice(bytemuck::cast_slice(data[1]));
                }
                this.bytes.fetch_add(data.iter().map(|d| d.len() as u64).sum(), Relaxed);
                if i < last_request[batch_index] {
                    return Ok(());
                }
                batch_index += 1;
                let (start, batch) = filling.take().expect("a batch is being filled");
                this.check_targets(&batch, start)?;
                send.send(Ok(batch)).map_err(|_| Stop::Closed)
            })?;
        }
    }

    /// Index entry `i` (`i <= num_vertices`; asked for in ascending order), checked to ascend
    /// within the arc count.
    /// [`run`](Self::run) for a compressed-only graph: each planned batch's lists decoded
    /// (and their weights read) in the reader's thread.
    fn run_compressed(&mut self, send: &SyncSender<Result<ListBatch, FormatError>>) -> Result<(), Stop> {
        while let Some(p) = self.plan()? {
            let Lists::Compressed {
                graph,
                layout,
                dir,
                weights,
            } = &self.lists
            else {
                unreachable!("run_compressed reads compressed lists")
            };
            let absolute: Vec<u64> = p.offsets.iter().map(|o| p.arcs.start + o).collect();
            let targets = read_lists_from(graph, Some(layout), *dir, p.first as usize, &absolute)?;
            let weights = match weights {
                Some(path) => Some(read_range::<f32>(path.as_path(), p.arcs.clone())?),
                None => None,
            };
            let bytes = targets.len() as u64 * 4 + weights.as_ref().map_or(0, |w| w.len() as u64 * 4);
            self.bytes.fetch_add(bytes, Relaxed);
            let batch = ListBatch {
                first: p.first as u32,
                offsets: p.offsets,
                targets,
                weights,
            };
            send.send(Ok(batch)).map_err(|_| Stop::Closed)?;
        }
        Ok(())
    }

    fn offset(&mut self, i: u64) -> Result<u64, FormatError> {
        let end = self.index_start + self.index.len() as u64;
        if !(self.index_start..end).contains(&i) {
            let len = (self.num_vertices + 1 - i).min(self.index_entries as u64) as usize;
            let mut entries = vec![0u64; len];
            let (file, path) = &self.idx;
            read_exact_at(file, path, bytemuck::cast_slice_mut(&mut entries), i * 8)
                .map_err(|e| FormatError::io(path, e))?;
            self.bytes.fetch_add(len as u64 * 8, Relaxed);
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

    /// The vertices of the next batch and the range of their arcs, from the index; `None`
    /// after the last vertex.
    fn plan(&mut self) -> Result<Option<Planned>, FormatError> {
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
        Ok(Some(Planned {
            first,
            offsets,
            arcs: start..end,
        }))
    }

    /// Every neighbour ID of `batch`, whose first arc is arc `start` of the file, is a vertex.
    fn check_targets(&self, batch: &ListBatch, start: u64) -> Result<(), FormatError> {
        match batch.targets.iter().position(|&t| u64::from(t) >= self.num_vertices) {
            Some(k) => Err(FormatError::NeighbourOutOfRange {
                path: self.adj.clone(),
                index: start + k as u64,
                value: batch.targets[k],
                num_vertices: self.num_vertices,
            }),
            None => Ok(()),
        }
    }
}
