//! BAsC selections (`basc-<name>/` inside a graph directory): the vertices whose out-lists a
//! selective run may load into its static cache (Kim et al., ATC '19), chosen once by
//! `diskgraph select` and reused. The specification is `docs/FORMAT.md`, section "BAsC
//! selection".
//!
//! A selection holds `vertices.u32` (the selected internal vertex IDs, strictly ascending),
//! `lists.u32` (their out-lists, one after another: the static cache's edges as a run loads
//! them, in one sequential read rather than one read per scattered list of `out.adj`) and
//! `basc.json` ([`BascMeta`]: how it was chosen, what it costs, the files' lengths and xxh3, and
//! the graph it belongs to). [`BascSelection::open`] checks the metadata against the graph, the
//! files' sizes and every ID (O(selected)); a run loading the lists checks that they are the
//! selected vertices' degrees long and every target a vertex; [`verify_basc`] also checks the
//! files' checksums and padding.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::data_file::{padded_len, FileEntry};
use crate::error::FormatError;
use crate::layout_builder::LayoutBuilder;
use crate::manifest::{Manifest, MANIFEST, OUT_ADJ};
use crate::read::{Csr, GraphDir};

/// Bytes a static cache spends on a list besides its edges: its start, 4 bytes from the start
/// of its group of 64 lists, and one byte for the group's full 8-byte start (the membership
/// bits and prefix counts are counted per 64 vertices).
pub const STATIC_LIST_OVERHEAD_BYTES: u64 = 5;

/// Bytes a static cache of `lists` lists holding `edges` edges takes on a graph of `n`
/// vertices: a membership bit per vertex plus a 32-bit prefix count per 64-vertex word (12
/// bytes per 64 vertices), the end of the start index (12), [`STATIC_LIST_OVERHEAD_BYTES`] per
/// list and 4 per edge. `diskgraph select` sizes selections by it and a run loading one into a
/// share of its budget checks the share against it, so a selection of S bytes loads into S.
pub fn static_cache_bytes(n: usize, lists: u64, edges: u64) -> u64 {
    n.div_ceil(64) as u64 * 12 + 12 + lists * STATIC_LIST_OVERHEAD_BYTES + edges * 4
}

/// Metadata file of a selection.
pub const BASC_META: &str = "basc.json";
/// Selected vertices, u32 strictly ascending.
pub const BASC_VERTICES: &str = "vertices.u32";
/// The selected vertices' out-lists, u32, one after another in the order of the vertices.
pub const BASC_LISTS: &str = "lists.u32";
/// Value of `basc.json`'s `format` field.
pub const BASC_FORMAT: &str = "diskgraph-basc";
/// Selection format version this crate reads and writes (2: with `lists.u32`).
pub const BASC_VERSION: u32 = 2;

/// Lists gathered into one write of `lists.u32`.
const LISTS_PER_WRITE: usize = 1 << 16;

/// The directory name of selection `name` (`basc-<name>`).
pub fn basc_layout_name(name: &str) -> String {
    format!("basc-{name}")
}

/// `basc.json`: how a selection was made and what it holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BascMeta {
    /// Always [`BASC_FORMAT`].
    pub format: String,
    /// Always [`BASC_VERSION`].
    pub version: u32,
    /// Selection method (`gvs`, `highd`, `lowd`, `random`).
    pub method: String,
    /// GVS rounds (K), for `gvs`.
    pub rounds: Option<usize>,
    /// Page size GVS modelled, for `gvs`.
    pub page_bytes: Option<u64>,
    /// Seed, for `random`.
    pub seed: Option<u64>,
    /// Budget of the selection in bytes of edge lists.
    pub budget_bytes: u64,
    /// Number of selected vertices.
    pub count: u64,
    /// Out-edges of the selected vertices.
    pub edges: u64,
    /// Seconds the selection took.
    pub select_seconds: f64,
    /// V of the graph.
    pub num_vertices: u64,
    /// xxh3 of the graph's `out.adj`: ties the selection to its graph.
    pub graph_out_adj: String,
    /// The data files, by name.
    pub files: BTreeMap<String, FileEntry>,
    /// The tool and version that wrote it.
    pub tool: String,
}

impl BascMeta {
    /// Checks the metadata against the graph's manifest.
    fn check(&self, graph: &Manifest) -> Result<(), String> {
        if self.format != BASC_FORMAT || self.version != BASC_VERSION {
            return Err(format!(
                "format {} version {}, expected {BASC_FORMAT} {BASC_VERSION} (run `diskgraph select` again)",
                self.format, self.version
            ));
        }
        if self.num_vertices != graph.num_vertices {
            return Err(format!(
                "made for {} vertices, the graph has {}",
                self.num_vertices, graph.num_vertices
            ));
        }
        let out_adj = graph.files.get(OUT_ADJ).map(|f| f.xxh3.as_str()).unwrap_or_default();
        if self.graph_out_adj != out_adj {
            return Err("made for another graph (out.adj checksum differs)".into());
        }
        let len = |name: &str| self.files.get(name).map(|f| f.len);
        if self.files.len() == 2
            && len(BASC_VERTICES) == Some(self.count * 4)
            && len(BASC_LISTS) == Some(self.edges * 4)
        {
            Ok(())
        } else {
            Err(format!(
                "files must be exactly {BASC_VERTICES} of {} bytes and {BASC_LISTS} of {} bytes",
                self.count * 4,
                self.edges * 4
            ))
        }
    }
}

/// An opened selection.
#[derive(Clone, Debug)]
pub struct BascSelection {
    name: String,
    meta: BascMeta,
    vertices: Vec<u32>,
}

impl BascSelection {
    /// Opens the selection whose directory is `layout` (`basc-<name>`), listed in the graph's
    /// manifest: checks the metadata against the graph, the file's size, and that the IDs are
    /// strictly ascending vertices of the graph.
    pub fn open(graph: &GraphDir, layout: &str) -> Result<BascSelection, FormatError> {
        let dir = graph.path().join(layout);
        if !graph.layouts().iter().any(|l| l == layout) {
            return Err(FormatError::Manifest {
                path: graph.file_path(MANIFEST),
                reason: format!("no selection {layout} (run `diskgraph select`)"),
            });
        }
        let meta_path = dir.join(BASC_META);
        let bytes = std::fs::read(&meta_path).map_err(|e| FormatError::io(&meta_path, e))?;
        let meta: BascMeta = serde_json::from_slice(&bytes).map_err(|e| FormatError::Manifest {
            path: meta_path.clone(),
            reason: e.to_string(),
        })?;
        meta.check(graph.manifest()).map_err(|reason| FormatError::Manifest {
            path: meta_path,
            reason,
        })?;
        let path = dir.join(BASC_VERTICES);
        let content = |reason: String| FormatError::Content {
            path: path.clone(),
            reason,
        };
        let data = std::fs::read(&path).map_err(|e| FormatError::io(&path, e))?;
        if data.len() as u64 != padded_len(meta.count * 4) {
            return Err(content(format!(
                "{} bytes, expected {}",
                data.len(),
                padded_len(meta.count * 4)
            )));
        }
        let vertices: Vec<u32> = data[..meta.count as usize * 4]
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
            .collect();
        if let Some(i) = vertices.windows(2).position(|w| w[1] <= w[0]) {
            return Err(content(format!("vertices not strictly ascending at entry {}", i + 1)));
        }
        if let Some(&v) = vertices.last().filter(|&&v| u64::from(v) >= meta.num_vertices) {
            return Err(content(format!("vertex {v} out of range (V = {})", meta.num_vertices)));
        }
        let lists = dir.join(BASC_LISTS);
        let lists_len = std::fs::metadata(&lists).map_err(|e| FormatError::io(&lists, e))?.len();
        if lists_len != padded_len(meta.edges * 4) {
            return Err(FormatError::Content {
                reason: format!("{lists_len} bytes, expected {}", padded_len(meta.edges * 4)),
                path: lists,
            });
        }
        Ok(BascSelection {
            name: layout.to_string(),
            meta,
            vertices,
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

    /// The selection's `lists.u32` inside `graph` (which it was opened from).
    pub fn lists_path(&self, graph: &GraphDir) -> PathBuf {
        graph.path().join(&self.name).join(BASC_LISTS)
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
        graph_out_adj: m.files.get(OUT_ADJ).map(|f| f.xxh3.clone()).unwrap_or_default(),
        edges,
        files,
        tool: format!("diskgraph {}", env!("CARGO_PKG_VERSION")),
    };
    let mut json = serde_json::to_vec_pretty(&meta).expect("selection metadata serialises");
    json.push(b'\n');
    let meta_path = builder.dir().join(BASC_META);
    builder.publish_with(BASC_META, &json, &meta.files, |manifest| {
        meta.check(manifest).map_err(|reason| FormatError::Manifest {
            path: meta_path,
            reason,
        })
    })
}

/// Full check of a selection: [`BascSelection::open`] plus the checksums and zero padding of
/// its files. Returns the bytes checked.
pub fn verify_basc(graph: &GraphDir, layout: &str) -> Result<u64, FormatError> {
    let s = BascSelection::open(graph, layout)?;
    let mut checked = 0;
    for (name, entry) in &s.meta.files {
        entry.check_content(&graph.path().join(layout).join(name))?;
        checked += padded_len(entry.len);
    }
    Ok(checked)
}
