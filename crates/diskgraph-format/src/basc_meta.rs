//! BAsC selections (`basc-<name>/` inside a graph directory): the vertices whose out-lists a
//! selective run may load into its static cache (Kim et al., ATC '19), chosen once by
//! `diskgraph select` and reused. The specification is `docs/FORMAT.md`, section "BAsC
//! selection".
//!
//! A selection holds `vertices.u32` (the selected internal vertex IDs, strictly ascending),
//! `lists.u32` (their out-lists, one after another: the static cache's edges as a run loads
//! them, in one sequential read rather than one read per scattered list of `out.adj`) and
//! `basc.json` ([`BascMeta`]: how it was chosen, what it costs, the files' lengths and xxh3, and
//! the graph it belongs to). [`BascSelection::open`](crate::BascSelection::open) checks the
//! metadata against the graph, the files' sizes and every ID (O(selected)); a run loading the
//! lists checks that they are the selected vertices' degrees long and every target a vertex;
//! [`verify_basc`](crate::verify_basc) also checks the files' checksums and padding.
//!
//! This module holds the file names, `basc.json` and the size of a static cache
//! ([`static_cache_bytes`]); the reader and the publisher are in `basc_selection`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::data_file::FileEntry;
use crate::layout_meta::LayoutMeta;
use crate::layout_record::{BascRecord, LayoutKind, LayoutRecord};
use crate::manifest::Manifest;

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

impl LayoutMeta for BascMeta {
    const KIND: LayoutKind = LayoutKind::Basc;
    const FILE: &'static str = BASC_META;

    fn files(&self) -> &BTreeMap<String, FileEntry> {
        &self.files
    }

    /// Checks the metadata against the graph's manifest (the directory name is free: any
    /// `basc-<name>`).
    fn check(&self, graph: &Manifest, _name: &str) -> Result<(), String> {
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
        let out_adj = graph.lists_tie().unwrap_or_default();
        if self.graph_out_adj != out_adj {
            return Err("made for another graph (out.adj checksum differs)".into());
        }
        if self.count > self.num_vertices {
            return Err(format!(
                "count {} exceeds the graph's {} vertices",
                self.count, self.num_vertices
            ));
        }
        let Some(edges_bytes) = self.edges.checked_mul(4) else {
            return Err(format!("edges {} is more than any file holds", self.edges));
        };
        let len = |name: &str| self.files.get(name).map(|f| f.len);
        if self.files.len() == 2 && len(BASC_VERTICES) == Some(self.count * 4) && len(BASC_LISTS) == Some(edges_bytes) {
            Ok(())
        } else {
            Err(format!(
                "files must be exactly {BASC_VERTICES} of {} bytes and {BASC_LISTS} of {edges_bytes} bytes",
                self.count * 4,
            ))
        }
    }

    fn record(&self, name: &str) -> LayoutRecord {
        LayoutRecord::Basc(BascRecord {
            name: name.to_string(),
            method: self.method.clone(),
            num_selected: self.count,
            num_arcs: self.edges,
            bytes_on_disk: self.bytes_on_disk(),
            generation: 0,
        })
    }
}
