//! Compressed adjacency layouts (`compressed-<codec>/` inside a graph directory): the graph's
//! lists again, each encoded alone by a [`Codec`], with an index of byte offsets — fewer bytes
//! per edge for every engine that reads lists. The specification is `docs/FORMAT.md`, section
//! "Compressed adjacency".
//!
//! A layout holds `out.cidx` (u64[V+1]: the list of `v` is `out.cadj[cidx[v] .. cidx[v+1]]`),
//! `out.cadj` (the encoded lists, one after another), `in.cidx` + `in.cadj` for a directed graph,
//! and `compressed.json` ([`CompressedMeta`]). Weights are not repeated: the graph's `out.wgt`
//! stays the weights of the decoded lists, in order. This module holds the names and the
//! metadata; the builder and reader are in `compressed_layout`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::codec::Codec;
use crate::data_file::{check_file_list, FileEntry};
use crate::layout_meta::{check_built_from, check_format, LayoutMeta};
use crate::layout_record::{CompressedRecord, LayoutKind, LayoutRecord};
use crate::manifest::Manifest;
use crate::read::Direction;

/// Metadata file of a compressed layout.
pub const COMPRESSED_META: &str = "compressed.json";
/// Byte offsets of the out-lists, u64[V+1].
pub const OUT_CIDX: &str = "out.cidx";
/// The encoded out-lists.
pub const OUT_CADJ: &str = "out.cadj";
/// Byte offsets of the in-lists (directed graphs), u64[V+1].
pub const IN_CIDX: &str = "in.cidx";
/// The encoded in-lists (directed graphs).
pub const IN_CADJ: &str = "in.cadj";
/// Value of `compressed.json`'s `format` field.
pub const COMPRESSED_FORMAT: &str = "diskgraph-compressed";
/// Compressed layout version this crate reads and writes.
pub const COMPRESSED_VERSION: u32 = 1;

/// The directory name of the compressed layout of `codec` (`compressed-vbyte`, …).
pub fn compressed_layout_name(codec: Codec) -> String {
    format!("compressed-{codec}")
}

/// The (index, lists) file names of direction `d` (`in.*` only for directed graphs).
pub fn compressed_files_of(d: Direction, directed: bool) -> (&'static str, &'static str) {
    match (d, directed) {
        (Direction::In, true) => (IN_CIDX, IN_CADJ),
        _ => (OUT_CIDX, OUT_CADJ),
    }
}

/// `compressed.json`: what a compressed layout holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CompressedMeta {
    /// Always [`COMPRESSED_FORMAT`].
    pub format: String,
    /// Always [`COMPRESSED_VERSION`].
    pub version: u32,
    /// How each list is encoded.
    pub codec: Codec,
    /// V of the graph.
    pub num_vertices: u64,
    /// Arcs stored per direction (the graph's `num_arcs`).
    pub num_arcs: u64,
    /// Whether the graph is directed (then `in.*` are present).
    pub directed: bool,
    /// The longest list (either direction): a decoder refuses a list claiming more, so a
    /// damaged list cannot make a reader allocate more than the largest real list.
    pub max_degree: u64,
    /// xxh3 of the graph's `out.adj`: ties the layout to its graph. When the layout holds the
    /// graph's lists (`holds_lists`), the xxh3 of the out-lists in plain form (the `out.adj`
    /// they decode to), which the graph's other layouts tie to.
    pub graph_out_adj: String,
    /// Whether this layout holds the graph's lists (a compressed-only graph, without
    /// `out.adj`): it is part of the graph, written with it, never replaced or removed.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub holds_lists: bool,
    /// Seconds the encoding took.
    pub encode_seconds: f64,
    /// The data files, by name.
    pub files: BTreeMap<String, FileEntry>,
    /// The tool and version that wrote it.
    pub tool: String,
}

impl CompressedMeta {
    /// The files the layout must hold.
    pub fn required_files(&self) -> Vec<&'static str> {
        let mut files = vec![OUT_CIDX, OUT_CADJ];
        if self.directed {
            files.extend([IN_CIDX, IN_CADJ]);
        }
        files
    }

    /// Bytes of encoded lists (both directions of a directed graph), without the indexes.
    pub fn list_bytes(&self) -> u64 {
        [OUT_CADJ, IN_CADJ]
            .iter()
            .filter_map(|f| self.files.get(*f))
            .map(|f| f.len)
            .sum()
    }
}

impl LayoutMeta for CompressedMeta {
    const KIND: LayoutKind = LayoutKind::Compressed;
    const FILE: &'static str = COMPRESSED_META;

    fn files(&self) -> &BTreeMap<String, FileEntry> {
        &self.files
    }

    fn check(&self, graph: &Manifest, name: &str) -> Result<(), String> {
        check_format((&self.format, self.version), (COMPRESSED_FORMAT, COMPRESSED_VERSION))?;
        if compressed_layout_name(self.codec) != name {
            return Err(format!(
                "metadata describes layout {}, not {name}",
                compressed_layout_name(self.codec)
            ));
        }
        let ours = (self.num_vertices, self.num_arcs, self.directed);
        if self.holds_lists {
            let theirs = (graph.num_vertices, graph.num_arcs, graph.directed);
            if ours != theirs {
                return Err(format!(
                    "(vertices, arcs, directed) {ours:?} disagree with the graph's {theirs:?}"
                ));
            }
            if graph.has_plain_lists() {
                return Err("holds the lists of a graph that stores them plain".into());
            }
        } else {
            check_built_from(graph, &self.graph_out_adj, ours, graph.directed, "directed")?;
        }
        if self.max_degree > self.num_arcs {
            return Err(format!(
                "max_degree {} exceeds num_arcs {}",
                self.max_degree, self.num_arcs
            ));
        }
        let index_len = self.num_vertices.saturating_add(1).saturating_mul(8);
        check_file_list(&self.files, &self.required_files(), |f| {
            matches!(f, OUT_CIDX | IN_CIDX).then_some(index_len)
        })
    }

    fn record(&self, name: &str) -> LayoutRecord {
        LayoutRecord::Compressed(CompressedRecord {
            name: name.to_string(),
            codec: self.codec,
            num_arcs: self.num_arcs,
            bytes_on_disk: self.bytes_on_disk(),
            lists: self.holds_lists.then(|| self.graph_out_adj.clone()),
            generation: 0,
        })
    }
}
