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
        let bytes = std::fs::read(path).map_err(|e| FormatError::io(path, e))?;
        serde_json::from_slice(&bytes).map_err(|e| FormatError::Manifest {
            path: path.to_path_buf(),
            reason: e.to_string(),
        })
    }
}
