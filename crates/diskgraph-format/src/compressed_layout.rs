//! The compressed adjacency layout: [`compress`] builds one from a graph's CSR,
//! [`CompressedLayout`] opens it and decodes lists (one, or every list into a [`Csr`]), and
//! [`verify_compressed`] checks it in full against the graph.

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use diskgraph_io::IoError;
use rayon::prelude::*;

use crate::cancel::Cancel;
use crate::codec::{Bounds, Codec};
use crate::compressed_meta::{
    compressed_files_of, compressed_layout_name, CompressedMeta, COMPRESSED_FORMAT, COMPRESSED_VERSION,
};
use crate::data_file::{read_offsets_stoppable, read_range, read_range_stoppable};
use crate::error::FormatError;
use crate::layout_builder::LayoutBuilder;
use crate::layout_record::CompressedRecord;
use crate::layout_versions::LayoutPin;
use crate::read::{Csr, Direction, GraphDir};
use crate::verify::VerifyReport;
use crate::write::DataFileWriter;

/// Arcs read from the plain CSR per step of [`compress`] and [`verify_compressed`].
const CHUNK_ARCS: u64 = 4 << 20;
/// Encoded bytes decoded per parallel task of [`CompressedLayout::load_csr`].
const TASK_BYTES: u64 = 256 << 10;

/// The directions a graph stores: `Out`, and `In` when it is directed.
fn directions(directed: bool) -> Vec<Direction> {
    match directed {
        true => vec![Direction::Out, Direction::In],
        false => vec![Direction::Out],
    }
}

/// Cuts `0..offsets.len()-1` into consecutive vertex ranges of about `size` units of `offsets`
/// each (a vertex larger than `size` gets a range of its own).
pub(crate) fn ranges_by(offsets: &[u64], size: u64) -> Vec<Range<usize>> {
    let n = offsets.len() - 1;
    let mut ranges = Vec::new();
    let mut start = 0;
    while start < n {
        let limit = offsets[start].saturating_add(size);
        let end = (offsets.partition_point(|&o| o <= limit) - 1).clamp(start + 1, n);
        ranges.push(start..end);
        start = end;
    }
    ranges
}

/// Lists decoded one after another, and the end of each in them.
type DecodedLists = (Vec<u32>, Vec<u64>);

/// What [`compress`] made.
#[derive(Clone, Debug, PartialEq)]
pub struct CompressReport {
    /// The published layout's directory.
    pub path: PathBuf,
    /// The codec.
    pub codec: Codec,
    /// Arcs encoded (both directions of a directed graph).
    pub arcs: u64,
    /// Bytes of the plain lists those arcs take (`out.adj`, `in.adj`).
    pub plain_bytes: u64,
    /// Bytes of the encoded lists (`out.cadj`, `in.cadj`), without the byte-offset indexes.
    pub list_bytes: u64,
    /// Seconds the encoding took.
    pub seconds: f64,
}

impl CompressReport {
    /// Encoded bytes per arc.
    pub fn bytes_per_arc(&self) -> f64 {
        self.list_bytes as f64 / self.arcs.max(1) as f64
    }
}

/// Encodes every list of `graph` with `codec` into the layout `compressed-<codec>` and publishes
/// it (replacing an existing one only with `force`). Streams the CSR in chunks of
/// [`CHUNK_ARCS`] arcs, encoding each chunk's lists in parallel: memory is the O(V) offsets of
/// one direction plus a few chunks.
pub fn compress(graph: &GraphDir, codec: Codec, force: bool) -> Result<CompressReport, FormatError> {
    compress_cancellable(graph, codec, force, &Cancel::new())
}

/// [`compress`], stopped with [`FormatError::Interrupted`] once `cancel` is set: it is polled
/// before each chunk of [`CHUNK_ARCS`] arcs and before the layout is published, and the
/// unpublished layout is removed.
pub fn compress_cancellable(
    graph: &GraphDir,
    codec: Codec,
    force: bool,
    cancel: &Cancel,
) -> Result<CompressReport, FormatError> {
    let start = Instant::now();
    let name = compressed_layout_name(codec);
    let builder = LayoutBuilder::create(graph, &name, force)?;
    let m = graph.manifest();
    let mut files = std::collections::BTreeMap::new();
    let mut list_bytes = 0;
    let mut max_degree = 0;
    for d in directions(m.directed) {
        let (cidx, cadj) = compressed_files_of(d, m.directed);
        let mut index = builder.file(cidx)?;
        let mut lists = builder.file(cadj)?;
        max_degree = max_degree.max(encode_direction(graph, d, codec, &mut index, &mut lists, cancel)?);
        list_bytes += lists.len();
        for writer in [index, lists] {
            let (file, entry) = writer.finish()?;
            files.insert(file, entry);
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    let meta = CompressedMeta {
        format: COMPRESSED_FORMAT.into(),
        version: COMPRESSED_VERSION,
        codec,
        num_vertices: m.num_vertices,
        num_arcs: m.num_arcs,
        directed: m.directed,
        max_degree,
        graph_out_adj: m.lists_tie().unwrap_or_default().to_string(),
        holds_lists: false,
        encode_seconds: seconds,
        files,
        tool: crate::TOOL.to_string(),
    };
    cancel.check()?;
    let path = builder.publish(&meta)?;
    let arcs = m.num_arcs * directions(m.directed).len() as u64;
    Ok(CompressReport {
        path,
        codec,
        arcs,
        plain_bytes: arcs * 4,
        list_bytes,
        seconds,
    })
}

/// Encodes the lists of direction `d` into `lists`, their byte offsets into `index`; returns
/// the longest list's length. Polls `cancel` before each chunk.
fn encode_direction(
    graph: &GraphDir,
    d: Direction,
    codec: Codec,
    index: &mut DataFileWriter,
    lists: &mut DataFileWriter,
    cancel: &Cancel,
) -> Result<u64, FormatError> {
    let offsets = graph.load_offsets(d)?;
    let max_degree = offsets.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0);
    let lists_layout = graph.lists_layout()?;
    let tasks = rayon::current_num_threads() * 4;
    index.write_u64s(&[0])?;
    let mut end = 0u64;
    for chunk in ranges_by(&offsets, CHUNK_ARCS) {
        cancel.check()?;
        let base = offsets[chunk.start];
        let targets = read_lists(graph, lists_layout.as_ref(), d, &offsets, chunk.clone())?;
        let part = ((offsets[chunk.end] - base) / tasks as u64).max(1 << 12);
        let pieces: Vec<(Vec<u8>, Vec<u64>)> = ranges_by(&offsets[chunk.start..=chunk.end], part)
            .into_par_iter()
            .map(|r| {
                let (mut bytes, mut ends) = (Vec::new(), Vec::with_capacity(r.len()));
                for v in chunk.start + r.start..chunk.start + r.end {
                    let list = &targets[(offsets[v] - base) as usize..(offsets[v + 1] - base) as usize];
                    codec.encode(v as u32, list, &mut bytes);
                    ends.push(bytes.len() as u64);
                }
                (bytes, ends)
            })
            .collect();
        for (bytes, ends) in pieces {
            let at = end;
            index.write_u64s(&ends.iter().map(|e| at + e).collect::<Vec<_>>())?;
            lists.write_bytes(&bytes)?;
            end += bytes.len() as u64;
        }
    }
    Ok(max_degree)
}

/// The lists of `vertices` in direction `d`, one after another (`offsets` is the graph's
/// `*.idx`): read from `*.adj`, or decoded from `lists_layout` for a compressed-only graph (each
/// list checked against its degree); every ID checked to be below V.
pub(crate) fn read_lists(
    graph: &GraphDir,
    lists_layout: Option<&CompressedLayout>,
    d: Direction,
    offsets: &[u64],
    vertices: Range<usize>,
) -> Result<Vec<u32>, FormatError> {
    let first = vertices.start;
    read_lists_from(graph, lists_layout, d, first, &offsets[first..=vertices.end])
}

/// [`read_lists`] of the vertices `first ..`, whose arcs `offsets` (absolute, one more entry
/// than vertices) delimit.
pub(crate) fn read_lists_from(
    graph: &GraphDir,
    lists_layout: Option<&CompressedLayout>,
    d: Direction,
    first: usize,
    offsets: &[u64],
) -> Result<Vec<u32>, FormatError> {
    let vertices = first..first + offsets.len() - 1;
    let offsets = |v: usize| offsets[v - first];
    let base = offsets(vertices.start);
    let (path, targets) = match lists_layout {
        None => {
            let adj = graph.file_path(graph.files_of(d).1);
            let targets: Vec<u32> = read_range(&adj, base..offsets(vertices.end))?;
            (adj, targets)
        }
        Some(layout) => {
            let (cidx, cadj) = layout.files_of(d);
            let index: Vec<u64> = read_range(&cidx, vertices.start as u64..vertices.end as u64 + 1)?;
            let bad = |entry: usize| FormatError::Index {
                path: cidx.clone(),
                entry: (vertices.start + entry) as u64,
                reason: format!("offset {} is below the previous one or past the lists", index[entry]),
            };
            if let Some(i) = index.windows(2).position(|w| w[1] < w[0]) {
                return Err(bad(i + 1));
            }
            let (cbase, cend) = (index[0], index[index.len() - 1]);
            if cend > layout.lists_len(d) {
                return Err(bad(index.len() - 1));
            }
            let bytes: Vec<u8> = read_range(&cadj, cbase..cend)?;
            let mut targets = Vec::with_capacity((offsets(vertices.end) - base) as usize);
            let mut list = Vec::new();
            for (k, v) in vertices.clone().enumerate() {
                let (a, b) = (index[k], index[k + 1]);
                let degree = offsets(v + 1) - offsets(v);
                let piece = &bytes[(a - cbase) as usize..(b - cbase) as usize];
                layout.decode_expecting(d, v as u32, a, piece, degree, &mut list)?;
                targets.extend_from_slice(&list);
            }
            (cadj, targets)
        }
    };
    let n = graph.num_vertices();
    if let Some(i) = targets.iter().position(|&t| u64::from(t) >= n) {
        return Err(FormatError::NeighbourOutOfRange {
            path,
            index: base + i as u64,
            value: targets[i],
            num_vertices: n,
        });
    }
    Ok(targets)
}

/// An opened compressed layout: the manifest's record agrees with `compressed.json`, the metadata
/// with the graph, and every file has the size the metadata gives it.
#[derive(Clone, Debug)]
pub struct CompressedLayout {
    path: PathBuf,
    name: String,
    meta: CompressedMeta,
    /// Keeps the generation read on disk while this (or a clone) lives.
    _pin: LayoutPin,
}

impl CompressedLayout {
    /// Opens and checks the compressed layout `name` of `graph` (O(1): the indexes are read by
    /// [`load_offsets`](Self::load_offsets)).
    pub fn open(graph: &GraphDir, name: &str) -> Result<CompressedLayout, FormatError> {
        let (path, meta, pin) = graph.layout_meta::<CompressedMeta>(name)?;
        for (file, entry) in &meta.files {
            graph.check_file(&path.join(file), entry.len)?;
        }
        Ok(CompressedLayout {
            path,
            name: name.to_string(),
            meta,
            _pin: pin,
        })
    }

    /// The record of the compressed layout a run uses when none is named: the first of
    /// [`Codec::ALL`] (fastest to decode first) the graph has.
    pub fn preferred(graph: &GraphDir) -> Option<&CompressedRecord> {
        let mut records: Vec<&CompressedRecord> = graph.layouts().iter().filter_map(|l| l.compressed()).collect();
        records.sort_by_key(|r| Codec::ALL.iter().position(|&c| c == r.codec));
        records.into_iter().next()
    }

    /// The layout's directory name (`compressed-<codec>`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The directory of the layout's generation that was opened.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The parsed `compressed.json`.
    pub fn meta(&self) -> &CompressedMeta {
        &self.meta
    }

    /// The codec of every list.
    pub fn codec(&self) -> Codec {
        self.meta.codec
    }

    /// Paths of the byte-offset index and the encoded lists of direction `d` (`In` is `out.*` for
    /// an undirected graph).
    pub fn files_of(&self, d: Direction) -> (PathBuf, PathBuf) {
        let (index, lists) = compressed_files_of(d, self.meta.directed);
        (self.path.join(index), self.path.join(lists))
    }

    /// Length in bytes of the encoded lists of direction `d`.
    pub fn lists_len(&self, d: Direction) -> u64 {
        let (_, lists) = compressed_files_of(d, self.meta.directed);
        self.meta.files.get(lists).map_or(0, |f| f.len)
    }

    /// What a list of this graph may decode to: IDs below V, at most the longest list's
    /// length of them.
    pub fn bounds(&self) -> Bounds {
        Bounds {
            num_vertices: self.meta.num_vertices,
            max_len: self.meta.max_degree,
        }
    }

    /// Reads and checks the byte-offset index of direction `d`: V + 1 entries, 0 first, never
    /// decreasing, the length of the lists file last.
    pub fn load_offsets(&self, d: Direction) -> Result<Vec<u64>, FormatError> {
        self.load_offsets_stoppable(d, &AtomicBool::new(false))
    }

    /// [`load_offsets`](Self::load_offsets), reading in pieces and polling `stop` (a run's stop
    /// request) before each, as [`read_range_stoppable`] does.
    pub fn load_offsets_stoppable(&self, d: Direction, stop: &AtomicBool) -> Result<Vec<u64>, FormatError> {
        let (index, _) = self.files_of(d);
        read_offsets_stoppable(&index, self.meta.num_vertices as usize + 1, self.lists_len(d), stop)
    }

    /// Decodes the list of vertex `v` in direction `d` from `bytes`, which hold its bytes
    /// `start..start + bytes.len()` of the lists file; a damaged list is an error naming the file,
    /// the vertex and the bytes.
    pub fn decode(
        &self,
        d: Direction,
        v: u32,
        start: u64,
        bytes: &[u8],
        out: &mut Vec<u32>,
    ) -> Result<(), FormatError> {
        self.codec()
            .decode(v, bytes, self.bounds(), out)
            .map_err(|reason| FormatError::CompressedList {
                path: self.files_of(d).1,
                vertex: v,
                start,
                end: start + bytes.len() as u64,
                reason,
            })
    }

    /// [`decode`](Self::decode), then checks that the list holds `degree` IDs: what the plain
    /// index gives it, for readers that keep both indexes (degrees from one, lists from the other).
    pub fn decode_expecting(
        &self,
        d: Direction,
        v: u32,
        start: u64,
        bytes: &[u8],
        degree: u64,
        out: &mut Vec<u32>,
    ) -> Result<(), FormatError> {
        self.decode(d, v, start, bytes, out)?;
        if out.len() as u64 != degree {
            return Err(FormatError::Content {
                path: self.files_of(d).1,
                reason: format!(
                    "the list of vertex {v} (bytes {start}..{}) decodes to {} IDs, the offsets index gives it {degree}",
                    start + bytes.len() as u64,
                    out.len()
                ),
            });
        }
        Ok(())
    }

    /// Loads direction `d` into memory by decoding every list (in parallel), with the graph's
    /// weights if `with_weights` and it has them: the same [`Csr`] as
    /// [`GraphDir::load_csr`]. The decoded lists must hold the graph's arc count.
    pub fn load_csr(&self, graph: &GraphDir, d: Direction, with_weights: bool) -> Result<Csr, FormatError> {
        self.load_csr_stoppable(graph, d, with_weights, &AtomicBool::new(false))
    }

    /// [`load_csr`](Self::load_csr), polling `stop` (a run's stop request) between the pieces of
    /// its reads (as [`read_range_stoppable`] does) and between its groups of decoding tasks:
    /// once it is set, the load ends with [`IoError::Stopped`] (as [`FormatError::Read`]).
    pub fn load_csr_stoppable(
        &self,
        graph: &GraphDir,
        d: Direction,
        with_weights: bool,
        stop: &AtomicBool,
    ) -> Result<Csr, FormatError> {
        let index = self.load_offsets_stoppable(d, stop)?;
        let lists_path = self.files_of(d).1;
        let bytes: Vec<u8> = read_range_stoppable(&lists_path, 0..self.lists_len(d), stop)?;
        let arcs = self.meta.num_arcs;
        let mut offsets = Vec::with_capacity(index.len());
        offsets.push(0u64);
        let mut targets: Vec<u32> = Vec::with_capacity(arcs as usize);
        let group = rayon::current_num_threads() * 16;
        for tasks in ranges_by(&index, TASK_BYTES).chunks(group) {
            if stop.load(Ordering::Relaxed) {
                return Err(FormatError::Read(IoError::Stopped));
            }
            // Each task decodes its vertices' lists one after another, with each list's end.
            let decoded: Vec<Result<DecodedLists, FormatError>> = tasks
                .par_iter()
                .map(|r| {
                    let (mut all, mut ends, mut list) = (Vec::new(), Vec::with_capacity(r.len()), Vec::new());
                    for v in r.clone() {
                        let (a, b) = (index[v], index[v + 1]);
                        self.decode(d, v as u32, a, &bytes[a as usize..b as usize], &mut list)?;
                        all.extend_from_slice(&list);
                        ends.push(all.len() as u64);
                    }
                    Ok((all, ends))
                })
                .collect();
            for part in decoded {
                let (lists, ends) = part?;
                let base = targets.len() as u64;
                offsets.extend(ends.iter().map(|e| base + e));
                targets.extend_from_slice(&lists);
                if targets.len() as u64 > arcs {
                    return Err(self.arc_count_error(d, targets.len() as u64));
                }
            }
        }
        if targets.len() as u64 != arcs {
            return Err(self.arc_count_error(d, targets.len() as u64));
        }
        Ok(Csr {
            offsets,
            targets,
            weights: graph.load_weights_stoppable(d, with_weights, stop)?,
        })
    }

    /// The error for lists that decode to `found` arcs instead of the graph's.
    fn arc_count_error(&self, d: Direction, found: u64) -> FormatError {
        FormatError::Content {
            path: self.files_of(d).1,
            reason: format!(
                "the lists decode to {found} arcs or more, the graph has {}",
                self.meta.num_arcs
            ),
        }
    }
}

/// Full check of the compressed layout `name` of `graph` (O(E), in chunks): everything
/// [`CompressedLayout::open`] checks, each file's checksum and zero padding, each byte-offset
/// index valid, and every list decoding to exactly the graph's list.
pub fn verify_compressed(graph: &GraphDir, name: &str) -> Result<VerifyReport, FormatError> {
    verify_compressed_cancellable(graph, name, &Cancel::new())
}

/// [`verify_compressed`], polling `cancel` as [`verify_cancellable`](crate::verify_cancellable)
/// does (and before each chunk of [`CHUNK_ARCS`] arcs).
pub(crate) fn verify_compressed_cancellable(
    graph: &GraphDir,
    name: &str,
    cancel: &Cancel,
) -> Result<VerifyReport, FormatError> {
    let layout = CompressedLayout::open(graph, name)?;
    let mut report = VerifyReport::default();
    for (file, entry) in &layout.meta.files {
        entry.check_content(&layout.path.join(file), cancel)?;
        report.files_checked += 1;
        report.bytes_checked += entry.len;
    }
    // The lists of a compressed-only graph are these: `verify` decodes and checks them with
    // the graph's (through `ArcStream`); here only their index is checked.
    if layout.meta.holds_lists {
        for d in directions(layout.meta.directed) {
            layout.load_offsets(d)?;
        }
        return Ok(report);
    }
    let lists_layout = graph.lists_layout()?;
    for d in directions(layout.meta.directed) {
        let index = layout.load_offsets(d)?;
        let plain = graph.load_offsets(d)?;
        let (_, lists_path) = layout.files_of(d);
        let adj = match &lists_layout {
            Some(l) => l.files_of(d).1,
            None => graph.file_path(graph.files_of(d).1),
        };
        let mut list = Vec::new();
        for chunk in ranges_by(&plain, CHUNK_ARCS) {
            cancel.check()?;
            let base = plain[chunk.start];
            let want = read_lists(graph, lists_layout.as_ref(), d, &plain, chunk.clone())?;
            let cbase = index[chunk.start];
            let bytes: Vec<u8> = read_range(&lists_path, cbase..index[chunk.end])?;
            for v in chunk {
                let (a, b) = (index[v], index[v + 1]);
                layout.decode(
                    d,
                    v as u32,
                    a,
                    &bytes[(a - cbase) as usize..(b - cbase) as usize],
                    &mut list,
                )?;
                let expected = &want[(plain[v] - base) as usize..(plain[v + 1] - base) as usize];
                if list != expected {
                    let at = list
                        .iter()
                        .zip(expected)
                        .position(|(x, y)| x != y)
                        .unwrap_or(list.len().min(expected.len()));
                    return Err(FormatError::Content {
                        path: lists_path,
                        reason: format!(
                            "the list of vertex {v} differs from {} at position {at} ({} IDs decoded, {} stored)",
                            adj.display(),
                            list.len(),
                            expected.len()
                        ),
                    });
                }
                report.arcs_checked += list.len() as u64;
            }
        }
    }
    Ok(report)
}
