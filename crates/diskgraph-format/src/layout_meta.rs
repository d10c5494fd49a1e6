//! [`LayoutMeta`]: what every kind of derived layout's metadata file (`grid.json`, `basc.json`)
//! offers the code shared by all kinds — the publisher, the manifest's layout records and the
//! checks made when a layout is opened.

use std::collections::BTreeMap;
use std::path::Path;

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::data_file::{padded_len, FileEntry};
use crate::error::FormatError;
use crate::layout_record::{LayoutKind, LayoutRecord};
use crate::manifest::Manifest;

/// The metadata file of one kind of derived layout.
pub trait LayoutMeta: Serialize + DeserializeOwned {
    /// The kind of layout it describes.
    const KIND: LayoutKind;
    /// Its file name inside the layout's directory.
    const FILE: &'static str;

    /// The layout's data files, by name.
    fn files(&self) -> &BTreeMap<String, FileEntry>;

    /// Checks the metadata against itself, the graph's manifest and the layout's directory
    /// name; the error says what is wrong.
    fn check(&self, graph: &Manifest, name: &str) -> Result<(), String>;

    /// The manifest's record of layout `name` as this metadata describes it.
    fn record(&self, name: &str) -> LayoutRecord;

    /// Bytes of the layout's data files on disk (each padded to a page).
    fn bytes_on_disk(&self) -> u64 {
        self.files().values().map(|f| padded_len(f.len)).sum()
    }

    /// Parses the metadata file at `path` (no consistency checks).
    fn read(path: &Path) -> Result<Self, FormatError> {
        let bytes = crate::input::read_metadata(path)?;
        serde_json::from_slice(&bytes).map_err(|e| FormatError::Manifest {
            path: path.to_path_buf(),
            reason: e.to_string(),
        })
    }
}

/// Checks a layout's metadata `format` and `version` against the ones this crate writes.
pub(crate) fn check_format(found: (&str, u32), want: (&str, u32)) -> Result<(), String> {
    if found != want {
        return Err(format!(
            "format {:?} version {} is not {:?} version {}",
            found.0, found.1, want.0, want.1
        ));
    }
    Ok(())
}

/// Checks that a layout was built from `graph`: the vertex and arc counts it records and its
/// `flag` (`directed` or `weighted`, named by `flag_name`) agree with the graph's `theirs_flag`,
/// and `graph_out_adj` is the graph's lists checksum ([`Manifest::lists_tie`]: the xxh3 of its
/// `out.adj`, or of the compressed lists of a compressed-only graph).
pub(crate) fn check_built_from(
    graph: &Manifest,
    graph_out_adj: &str,
    ours: (u64, u64, bool),
    theirs_flag: bool,
    flag_name: &str,
) -> Result<(), String> {
    let theirs = (graph.num_vertices, graph.num_arcs, theirs_flag);
    if ours != theirs {
        return Err(format!(
            "(vertices, arcs, {flag_name}) {ours:?} disagree with the graph's {theirs:?}"
        ));
    }
    let adj = graph.lists_tie();
    if adj != Some(graph_out_adj) {
        return Err(format!(
            "built from a graph whose out.adj has xxh3 {graph_out_adj}, this graph's is {}",
            adj.unwrap_or("missing")
        ));
    }
    Ok(())
}
