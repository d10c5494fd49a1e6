//! The BAsC selection reader ([`BascSelection`]), its publisher ([`publish_basc`]) and its full
//! check ([`verify_basc`]).

use std::collections::BTreeMap;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

use crate::arc_stream::ArcStream;
use crate::basc_meta::{basc_layout_name, BascMeta, BASC_FORMAT, BASC_LISTS, BASC_VERSION, BASC_VERTICES};
use crate::cancel::{Cancel, CancelPoints};
use crate::data_file::padded_len;
use crate::error::FormatError;
use crate::input::{file_len, open_file};
use crate::layout_builder::LayoutBuilder;
use crate::layout_versions::LayoutPin;
use crate::read::{Csr, Direction, GraphDir};

/// Lists gathered into one write of `lists.u32`.
const LISTS_PER_WRITE: usize = 1 << 16;

/// An opened selection.
#[derive(Clone, Debug)]
pub struct BascSelection {
    name: String,
    /// The directory of the generation opened.
    dir: PathBuf,
    meta: BascMeta,
    vertices: Vec<u32>,
    /// Keeps the generation read on disk while this (or a clone) lives.
    _pin: LayoutPin,
}

impl BascSelection {
    /// Opens the selection whose directory is `layout` (`basc-<name>`), listed in the graph's
    /// manifest as a BAsC selection: checks the metadata against the graph and the manifest's
    /// record, the files' sizes, and that the IDs are strictly ascending vertices of the graph.
    pub fn open(graph: &GraphDir, layout: &str) -> Result<BascSelection, FormatError> {
        let (dir, meta, pin) = graph.layout_meta::<BascMeta>(layout)?;
        let path = dir.join(BASC_VERTICES);
        let lists = dir.join(BASC_LISTS);
        graph.check_inside(&path)?;
        graph.check_inside(&lists)?;
        let content = |reason: String| FormatError::Content {
            path: path.clone(),
            reason,
        };
        // The metadata's check has made sure the byte counts do not overflow.
        let (count_bytes, edges_bytes) = (meta.count * 4, meta.edges * 4);
        let size = file_len(&path)?;
        if size != padded_len(count_bytes) {
            return Err(content(format!("{size} bytes, expected {}", padded_len(count_bytes))));
        }
        let mut data = Vec::with_capacity(size as usize);
        open_file(&path)?
            .take(size)
            .read_to_end(&mut data)
            .map_err(|e| FormatError::io(&path, e))?;
        let data = data
            .get(..count_bytes as usize)
            .ok_or_else(|| content(format!("{} bytes, expected {}", data.len(), padded_len(count_bytes))))?;
        let vertices: Vec<u32> = data
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
            .collect();
        if let Some(i) = vertices.windows(2).position(|w| w[1] <= w[0]) {
            return Err(content(format!("vertices not strictly ascending at entry {}", i + 1)));
        }
        if let Some(&v) = vertices.last().filter(|&&v| u64::from(v) >= meta.num_vertices) {
            return Err(content(format!("vertex {v} out of range (V = {})", meta.num_vertices)));
        }
        let lists_len = file_len(&lists)?;
        if lists_len != padded_len(edges_bytes) {
            return Err(FormatError::Content {
                reason: format!("{lists_len} bytes, expected {}", padded_len(edges_bytes)),
                path: lists,
            });
        }
        Ok(BascSelection {
            name: layout.to_string(),
            dir,
            meta,
            vertices,
            _pin: pin,
        })
    }

    /// The directory name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The metadata.
    pub fn meta(&self) -> &BascMeta {
        &self.meta
    }

    /// The selected vertices, ascending.
    pub fn vertices(&self) -> &[u32] {
        &self.vertices
    }

    /// The directory of the selection's generation that was opened (`basc-<name>`, or
    /// `basc-<name>.vG`).
    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// The selection's `lists.u32`.
    pub fn lists_path(&self) -> PathBuf {
        self.dir.join(BASC_LISTS)
    }
}

/// What a new selection records besides its vertices.
#[derive(Clone, Debug, PartialEq)]
pub struct BascInfo {
    /// Method name.
    pub method: String,
    /// GVS rounds.
    pub rounds: Option<usize>,
    /// GVS page size.
    pub page_bytes: Option<u64>,
    /// Random seed.
    pub seed: Option<u64>,
    /// Budget in bytes.
    pub budget_bytes: u64,
    /// Seconds the selection took.
    pub select_seconds: f64,
}

/// Publishes `vertices` (strictly ascending) and their lists in `out` (the graph's out-lists) as
/// selection `basc-<name>` of `graph`, atomically (replacing an existing one only with
/// `force`); returns its path.
pub fn publish_basc(
    graph: &GraphDir,
    name: &str,
    info: &BascInfo,
    vertices: &[u32],
    out: &Csr,
    force: bool,
) -> Result<PathBuf, FormatError> {
    let layout = basc_layout_name(name);
    let m = graph.manifest();
    let refuse = |reason: String| FormatError::Content {
        path: graph.path().join(&layout),
        reason,
    };
    if let Some(i) = vertices.windows(2).position(|w| w[1] <= w[0]) {
        return Err(refuse(format!(
            "selected vertices not strictly ascending at entry {}",
            i + 1
        )));
    }
    if out.num_vertices() as u64 != m.num_vertices {
        return Err(refuse(format!(
            "lists of {} vertices for a graph of {}",
            out.num_vertices(),
            m.num_vertices
        )));
    }
    if let Some(&v) = vertices.last().filter(|&&v| v as usize >= out.num_vertices()) {
        return Err(refuse(format!(
            "selected vertex {v} out of range (V = {})",
            m.num_vertices
        )));
    }
    let builder = LayoutBuilder::create(graph, &layout, force)?;
    let bytes: Vec<u8> = vertices.iter().flat_map(|v| v.to_le_bytes()).collect();
    let mut file = builder.positioned(BASC_VERTICES, bytes.len() as u64)?;
    file.write_at(0, &bytes)?;
    let mut files = BTreeMap::from([file.finish()?]);
    let edges: u64 = vertices.iter().map(|&v| out.degree(v) as u64).sum();
    let mut file = builder.positioned(BASC_LISTS, edges * 4)?;
    let mut at = 0;
    for group in vertices.chunks(LISTS_PER_WRITE) {
        let bytes: Vec<u8> = group
            .iter()
            .flat_map(|&v| out.neighbours(v))
            .flat_map(|t| t.to_le_bytes())
            .collect();
        file.write_at(at, &bytes)?;
        at += bytes.len() as u64;
    }
    files.extend([file.finish()?]);
    let meta = BascMeta {
        format: BASC_FORMAT.into(),
        version: BASC_VERSION,
        method: info.method.clone(),
        rounds: info.rounds,
        page_bytes: info.page_bytes,
        seed: info.seed,
        budget_bytes: info.budget_bytes,
        count: vertices.len() as u64,
        select_seconds: info.select_seconds,
        num_vertices: m.num_vertices,
        graph_out_adj: m.lists_tie().unwrap_or_default().to_string(),
        edges,
        files,
        tool: crate::TOOL.to_string(),
    };
    builder.publish(&meta)
}

/// Full check of a selection: [`BascSelection::open`] plus the checksums and zero padding of
/// its files. Returns the bytes checked.
pub fn verify_basc(graph: &GraphDir, layout: &str) -> Result<u64, FormatError> {
    verify_basc_cancellable(graph, layout, &Cancel::new())
}

/// [`verify_basc`], polling `cancel` as [`verify_cancellable`](crate::verify_cancellable) does.
pub(crate) fn verify_basc_cancellable(graph: &GraphDir, layout: &str, cancel: &Cancel) -> Result<u64, FormatError> {
    let s = BascSelection::open(graph, layout)?;
    let mut checked = 0;
    for (name, entry) in &s.meta.files {
        entry.check_content(&s.dir.join(name), cancel)?;
        checked += padded_len(entry.len);
    }
    check_lists(graph, &s, cancel)?;
    Ok(checked)
}

/// Read buffer of [`check_lists`].
const LISTS_BUFFER: usize = 1 << 20;

/// `lists.u32` holds exactly the graph's out-lists of the selected vertices, in their order
/// (streamed through fixed buffers).
fn check_lists(graph: &GraphDir, s: &BascSelection, cancel: &Cancel) -> Result<(), FormatError> {
    let path = s.lists_path();
    let file = open_file(&path)?;
    let mut lists = BufReader::with_capacity(LISTS_BUFFER, file);
    let mut arcs = ArcStream::open(graph, Direction::Out, false, LISTS_BUFFER)?;
    let mut selected = s.vertices().iter().peekable();
    let mut entry = 0u64;
    let differ = |entry: u64, reason: String| FormatError::Content {
        path: path.clone(),
        reason: format!("entry {entry}: {reason}"),
    };
    let mut points = CancelPoints::new(cancel);
    while let Some((v, _)) = arcs.next_vertex()? {
        points.at(arcs.position() + u64::from(v))?;
        if selected.next_if_eq(&&v).is_none() {
            continue;
        }
        while let Some((d, _)) = arcs.next_arc()? {
            if entry == s.meta.edges {
                return Err(differ(
                    entry,
                    format!("past the end, the out-list of vertex {v} goes on"),
                ));
            }
            let mut word = [0u8; 4];
            lists.read_exact(&mut word).map_err(|e| FormatError::io(&path, e))?;
            let got = u32::from_le_bytes(word);
            if got != d {
                return Err(differ(
                    entry,
                    format!("vertex {got}, where the out-list of vertex {v} has {d}"),
                ));
            }
            entry += 1;
        }
    }
    if entry != s.meta.edges {
        return Err(differ(
            entry,
            format!(
                "the selected out-lists end here, the file holds {} entries",
                s.meta.edges
            ),
        ));
    }
    Ok(())
}
