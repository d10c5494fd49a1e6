//! [`ListWriter`]: streams one direction of a graph's lists as it is written — plain
//! (`*.adj`), compressed (a `compressed-<codec>/` layout that holds the lists), or both — with
//! its offsets (`*.idx`) and weights (`*.wgt`), which stay plain in every form.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use rayon::prelude::*;
use xxhash_rust::xxh3::Xxh3;

use crate::codec::Codec;
use crate::compressed_layout::ranges_by;
use crate::compressed_meta::{compressed_layout_name, IN_CADJ, IN_CIDX, OUT_CADJ, OUT_CIDX};
use crate::data_file::FileEntry;
use crate::error::FormatError;
use crate::write::DataFileWriter;

/// Arcs [`ListWriter::push`] gathers before it writes them as one batch.
const PUSH_BATCH_ARCS: usize = 1 << 20;
/// List ends written to the index at once.
const ENDS_PIECE: usize = 1 << 16;
/// Arcs of a batch encoded per parallel task, at least.
const TASK_ARCS: u64 = 1 << 14;
/// Arcs of a batch encoded per parallel task, at most (a list longer than it is one task).
const MAX_TASK_ARCS: u64 = 1 << 20;

/// Bytes an arc encodes to, at most, with any codec (a gap and its share of the list's
/// header), for [`ListWriter::buffer_bytes`].
const MAX_ENCODED_BYTES_PER_ARC: u64 = 6;

/// How a graph's lists are stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ListEncoding {
    /// Plain `*.adj` (u32 per arc) only.
    Plain,
    /// Only compressed, in the layout `compressed-<codec>/`, which then holds the graph's lists
    /// (a compressed-only graph: no `*.adj`).
    Compressed(Codec),
    /// Plain `*.adj` and the derived compressed layout `compressed-<codec>/` beside it.
    Both(Codec),
}

impl ListEncoding {
    /// The codec of the compressed lists written, if any.
    pub fn codec(self) -> Option<Codec> {
        match self {
            ListEncoding::Plain => None,
            ListEncoding::Compressed(c) | ListEncoding::Both(c) => Some(c),
        }
    }

    /// Whether plain `*.adj` files are written.
    pub fn plain(self) -> bool {
        !matches!(self, ListEncoding::Compressed(_))
    }
}

/// One direction's compressed lists, finished: handed to the graph's builder, which writes
/// the layout's `compressed.json` when it publishes the graph.
#[derive(Debug)]
pub(crate) struct EncodedLists {
    pub(crate) codec: Codec,
    /// Whether the graph has no plain lists (the layout holds them).
    pub(crate) holds_lists: bool,
    pub(crate) files: Vec<(String, FileEntry)>,
    pub(crate) max_degree: u64,
    pub(crate) seconds: f64,
    /// Whether these are the out-lists.
    pub(crate) out: bool,
    /// xxh3 of the lists in plain form (the `*.adj` they decode to).
    pub(crate) plain_xxh3: String,
}

/// The compressed lists being written by a [`ListWriter`].
struct Encoder {
    codec: Codec,
    holds_lists: bool,
    index: DataFileWriter,
    lists: DataFileWriter,
    max_degree: u64,
    seconds: f64,
    out: bool,
    /// Hashes the lists in plain form.
    plain: Xxh3,
}

/// The lists [`ListWriter::push`] has gathered: those of vertices `first ..` (closed, ends in
/// `offsets`), then the open list of the next vertex (`targets[offsets.last()..]`).
struct Pending {
    first: u64,
    offsets: Vec<u64>,
    targets: Vec<u32>,
    weights: Vec<f32>,
}

impl Pending {
    fn at(first: u64) -> Pending {
        Pending {
            first,
            offsets: vec![0],
            targets: Vec::new(),
            weights: Vec::new(),
        }
    }

    /// The vertex whose list is open.
    fn open_vertex(&self) -> u64 {
        self.first + (self.offsets.len() - 1) as u64
    }

    /// Whether no arc and no closed list is gathered.
    fn is_empty(&self) -> bool {
        self.offsets.len() == 1 && self.targets.is_empty()
    }
}

/// Streams one direction of a graph's lists in vertex order: `{prefix}.idx`, and
/// `{prefix}.adj` and/or the compressed lists, and `{prefix}.wgt` when weighted. Made by
/// [`GraphBuilder::lists`](crate::GraphBuilder::lists); lists come as batches
/// ([`push_lists`](Self::push_lists)) or arc by arc ([`push`](Self::push)), in any mix (a
/// list is held whole until it is written: a codec encodes it at once).
pub struct ListWriter {
    idx: DataFileWriter,
    adj: Option<DataFileWriter>,
    wgt: Option<DataFileWriter>,
    encoder: Option<Encoder>,
    /// Where the finished compressed lists go: the builder's, read when it publishes.
    encoded: Arc<Mutex<Vec<EncodedLists>>>,
    pending: Pending,
    /// The first vertex whose list is not written yet.
    next_vertex: u64,
    count: u64,
    num_vertices: u64,
}

impl ListWriter {
    /// Bytes a writer holds besides the batches handed to it, at most, with `encoding` on a
    /// pool of `threads`: a group of encoding tasks' output (four tasks a thread, each of at
    /// most [`MAX_TASK_ARCS`] arcs) and the files' write buffers (up to four files, two
    /// buffers' worth each). An import budgets it beside its placement buffer.
    pub fn buffer_bytes(encoding: ListEncoding, threads: usize) -> u64 {
        let files = 8 * crate::write::WRITE_BUFFER as u64;
        let encoded = match encoding.codec() {
            Some(_) => 4 * threads as u64 * MAX_TASK_ARCS * MAX_ENCODED_BYTES_PER_ARC,
            None => 0,
        };
        files + encoded
    }

    /// Creates the files of direction `prefix` (`out` or `in`) in the graph directory `dir`
    /// (errors name them in `published`).
    pub(crate) fn create(
        (dir, published): (&Path, &Path),
        prefix: &str,
        num_vertices: u64,
        weighted: bool,
        encoding: ListEncoding,
        encoded: Arc<Mutex<Vec<EncodedLists>>>,
    ) -> Result<ListWriter, FormatError> {
        let file = |name: &str| DataFileWriter::create(dir, published, name);
        let encoder = match encoding.codec() {
            None => None,
            Some(codec) => {
                let layout = compressed_layout_name(codec);
                let (ldir, lpub): (PathBuf, PathBuf) = (dir.join(&layout), published.join(&layout));
                match std::fs::create_dir(&ldir) {
                    Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => return Err(FormatError::io(&lpub, e)),
                    _ => {}
                }
                let (cidx, cadj) = match prefix {
                    "in" => (IN_CIDX, IN_CADJ),
                    _ => (OUT_CIDX, OUT_CADJ),
                };
                let mut index = DataFileWriter::create(&ldir, &lpub, cidx)?;
                index.write_u64s(&[0])?;
                Some(Encoder {
                    codec,
                    holds_lists: !encoding.plain(),
                    index,
                    lists: DataFileWriter::create(&ldir, &lpub, cadj)?,
                    max_degree: 0,
                    seconds: 0.0,
                    out: prefix != "in",
                    plain: Xxh3::new(),
                })
            }
        };
        let mut idx = file(&format!("{prefix}.idx"))?;
        idx.write_u64s(&[0])?;
        Ok(ListWriter {
            idx,
            adj: encoding.plain().then(|| file(&format!("{prefix}.adj"))).transpose()?,
            wgt: weighted.then(|| file(&format!("{prefix}.wgt"))).transpose()?,
            encoder,
            encoded,
            pending: Pending::at(0),
            next_vertex: 0,
            count: 0,
            num_vertices,
        })
    }

    /// Appends the lists of vertices `first_vertex .. first_vertex + offsets.len() - 1`: the
    /// list of `first_vertex + i` is `targets[offsets[i] .. offsets[i + 1]]` (offsets relative
    /// to this batch, `offsets[0] == 0`), each non-descending (ascending unless the graph keeps
    /// duplicate edges), with `weights` parallel to `targets` on a weighted writer. Vertices
    /// continue where the previous batch ended. Lists are encoded in parallel.
    ///
    /// # Panics
    /// On a caller's bug: a batch that does not continue the last one, offsets that do not
    /// index `targets`, a target out of range, an unsorted list, weights missing or given to an
    /// unweighted writer, or a batch that overlaps the lists gathered by [`push`](Self::push).
    pub fn push_lists(
        &mut self,
        first_vertex: u32,
        offsets: &[u64],
        targets: &[u32],
        weights: Option<&[f32]>,
    ) -> Result<(), FormatError> {
        if !self.pending.is_empty() {
            // The lists gathered by `push` end where this batch starts.
            let (open, first) = (self.pending.open_vertex(), u64::from(first_vertex));
            let closed = self.pending.targets.len() as u64;
            let open_list_empty = self.pending.offsets.last() == Some(&closed);
            assert!(
                first > open || (first == open && open_list_empty),
                "ListWriter: a batch must continue the lists pushed before it"
            );
            self.pending.offsets.extend((open..first).map(|_| closed));
            self.flush_pending()?;
        }
        self.write_lists(u64::from(first_vertex), offsets, targets, weights)?;
        self.pending = Pending::at(self.next_vertex);
        Ok(())
    }

    /// Writes a batch (see [`push_lists`](Self::push_lists)).
    fn write_lists(
        &mut self,
        first: u64,
        offsets: &[u64],
        targets: &[u32],
        weights: Option<&[f32]>,
    ) -> Result<(), FormatError> {
        let lists = offsets.len().saturating_sub(1) as u64;
        assert_eq!(
            first, self.next_vertex,
            "ListWriter: a batch must continue the last one"
        );
        assert!(first + lists <= self.num_vertices, "ListWriter: vertex out of range");
        assert!(
            offsets.first() == Some(&0)
                && offsets.last() == Some(&(targets.len() as u64))
                && offsets.windows(2).all(|w| w[0] <= w[1]),
            "ListWriter: offsets do not index the batch's targets"
        );
        assert!(
            targets.iter().all(|&t| u64::from(t) < self.num_vertices),
            "ListWriter: target out of range"
        );
        assert_eq!(
            weights.map(<[f32]>::len),
            self.wgt.as_ref().map(|_| targets.len()),
            "ListWriter: weights must come exactly on a weighted writer, one per target"
        );
        let base = self.count;
        // In pieces: a copy of a large batch's offsets would be 8 bytes a vertex beside it.
        for piece in offsets[1..].chunks(ENDS_PIECE) {
            let ends: Vec<u64> = piece.iter().map(|o| base + o).collect();
            self.idx.write_u64s(&ends)?;
        }
        if let Some(adj) = &mut self.adj {
            adj.write_u32s(targets)?;
        }
        if let (Some(w), Some(weights)) = (&mut self.wgt, weights) {
            w.write_f32s(weights)?;
        }
        if let Some(e) = &mut self.encoder {
            let start = Instant::now();
            // Encoded a group of tasks at a time (a few per thread, each of at most
            // `MAX_TASK_ARCS`), so a large batch never holds more than a group's encoding.
            let tasks = rayon::current_num_threads() * 4;
            let part = (targets.len() as u64 / tasks as u64).clamp(TASK_ARCS, MAX_TASK_ARCS);
            let codec = e.codec;
            e.plain.update(bytemuck::cast_slice(targets));
            for group in ranges_by(offsets, part).chunks(tasks) {
                let pieces: Vec<(Vec<u8>, Vec<u64>, u64)> = group
                    .par_iter()
                    .map(|r| {
                        let (mut bytes, mut ends, mut longest) = (Vec::new(), Vec::with_capacity(r.len()), 0);
                        for i in r.clone() {
                            let list = &targets[offsets[i] as usize..offsets[i + 1] as usize];
                            codec.encode((first + i as u64) as u32, list, &mut bytes);
                            ends.push(bytes.len() as u64);
                            longest = longest.max(list.len() as u64);
                        }
                        (bytes, ends, longest)
                    })
                    .collect();
                for (bytes, ends, longest) in pieces {
                    let at = e.lists.len();
                    e.index.write_u64s(&ends.iter().map(|x| at + x).collect::<Vec<_>>())?;
                    e.lists.write_bytes(&bytes)?;
                    e.max_degree = e.max_degree.max(longest);
                }
            }
            e.seconds += start.elapsed().as_secs_f64();
        } else if targets.windows(2).any(|w| w[0] > w[1]) {
            // Checked per list below; a quick whole-batch pass first spares the common case.
            for w in offsets.windows(2) {
                let list = &targets[w[0] as usize..w[1] as usize];
                assert!(
                    list.windows(2).all(|p| p[0] <= p[1]),
                    "ListWriter: lists must be sorted"
                );
            }
        }
        self.count += targets.len() as u64;
        self.next_vertex = first + lists;
        Ok(())
    }

    /// Appends one arc. Sources must be non-decreasing and every list sorted (see
    /// [`push_lists`](Self::push_lists)); arcs are gathered and written in batches.
    ///
    /// # Panics
    /// If `src` goes backwards or is out of range, or a weight is missing on a weighted writer.
    pub fn push(&mut self, src: u32, dst: u32, weight: Option<f32>) -> Result<(), FormatError> {
        let src = u64::from(src);
        assert!(
            src < self.num_vertices && u64::from(dst) < self.num_vertices,
            "edge out of range"
        );
        let open = self.pending.open_vertex();
        assert!(src >= open, "ListWriter::push: sources must be non-decreasing");
        if src > open {
            let closed = self.pending.targets.len() as u64;
            self.pending.offsets.extend((open..src).map(|_| closed));
            if self.pending.targets.len() >= PUSH_BATCH_ARCS {
                self.flush_pending()?;
            }
        }
        self.pending.targets.push(dst);
        if self.wgt.is_some() {
            let w = weight.expect("weighted ListWriter needs a weight on every edge");
            self.pending.weights.push(w);
        }
        Ok(())
    }

    /// Writes the closed lists [`push`](Self::push) gathered (all of them: the open one must be
    /// empty).
    fn flush_pending(&mut self) -> Result<(), FormatError> {
        let p = std::mem::replace(&mut self.pending, Pending::at(0));
        let weights = self.wgt.is_some().then_some(p.weights.as_slice());
        self.write_lists(p.first, &p.offsets, &p.targets, weights)?;
        self.pending = Pending::at(self.next_vertex);
        Ok(())
    }

    /// Number of arcs written or gathered so far.
    pub fn num_edges(&self) -> u64 {
        self.count + self.pending.targets.len() as u64
    }

    /// Writes the lists still gathered, empty lists for the vertices after the last one given,
    /// and finishes every file. Returns the manifest entries of the graph's own files
    /// (`*.idx`, `*.adj`, `*.wgt`); the compressed lists go to the builder, which writes their
    /// layout's metadata when it publishes the graph.
    pub fn finish(mut self) -> Result<Vec<(String, FileEntry)>, FormatError> {
        let open = self.pending.open_vertex();
        if open < self.num_vertices {
            let closed = self.pending.targets.len() as u64;
            self.pending.offsets.extend((open..self.num_vertices).map(|_| closed));
        } else {
            assert!(self.pending.is_empty(), "ListWriter: arcs past the last vertex");
        }
        if !self.pending.is_empty() {
            self.flush_pending()?;
        }
        let mut files = vec![self.idx.finish()?];
        if let Some(adj) = self.adj {
            files.push(adj.finish()?);
        }
        if let Some(w) = self.wgt {
            files.push(w.finish()?);
        }
        if let Some(e) = self.encoder {
            let encoded = EncodedLists {
                codec: e.codec,
                holds_lists: e.holds_lists,
                files: vec![e.index.finish()?, e.lists.finish()?],
                max_degree: e.max_degree,
                seconds: e.seconds,
                out: e.out,
                plain_xxh3: format!("{:016x}", e.plain.digest()),
            };
            self.encoded
                .lock()
                .expect("no writer panicked holding the lists")
                .push(encoded);
        }
        Ok(files)
    }
}
