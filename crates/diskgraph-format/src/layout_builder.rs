//! The derived-layout directory builder ([`LayoutBuilder`]): a layout of any kind (a grid, a
//! BAsC selection) is written into a temporary directory inside the graph, renamed to the
//! directory of its next generation (`grid-4`, then `grid-4.v1`, …) and published by an atomic
//! rewrite of `manifest.json` naming it, under a lock on the graph directory so that concurrent
//! publishers keep each other's entries.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::atomic::{lock_dir, remove_path, remove_stale_temporaries, sync_dir, temporary_name, write_synced};
use crate::data_file::FileEntry;
use crate::error::FormatError;
use crate::layout_meta::LayoutMeta;
use crate::layout_record::LayoutRecord;
use crate::layout_versions::{next_generation, remove_stale_versions, version_dir_name};
use crate::manifest::{check_layout_name, MANIFEST};
use crate::positioned::PositionedFile;
use crate::read::{read_manifest, GraphDir};
use crate::write::DataFileWriter;

/// Builds a derived layout of any kind (a grid, a BAsC selection) in a temporary directory
/// inside the graph (`.NAME.tmp-<pid>-<nanos>`) and publishes it: a rename to its generation's
/// directory, then an atomic rewrite of `manifest.json` recording it.
/// Dropping a builder that was not published removes the temporary directory.
pub struct LayoutBuilder {
    graph_path: PathBuf,
    name: String,
    tmp_path: PathBuf,
    force: bool,
    published: bool,
}

impl LayoutBuilder {
    /// Starts building layout `name` inside `graph`. Fails if the graph already lists it and
    /// `force` is false. Removes temporary directories left by earlier runs that died, and
    /// stale generations of layouts ([`stale_layout_versions`](crate::stale_layout_versions)).
    pub fn create(graph: &GraphDir, name: &str, force: bool) -> Result<LayoutBuilder, FormatError> {
        let graph_path = graph.path().to_path_buf();
        check_layout_name(name).map_err(|reason| FormatError::Manifest {
            path: graph.file_path(MANIFEST),
            reason,
        })?;
        if graph.manifest().lists_layout().is_some_and(|r| r.name == name) {
            return Err(FormatError::Manifest {
                path: graph.file_path(MANIFEST),
                reason: format!(
                    "layout {name} holds the graph's lists (the graph is compressed-only): it cannot be replaced"
                ),
            });
        }
        if !force && graph.layout(name).is_some() {
            return Err(FormatError::Exists {
                path: graph_path.join(name),
            });
        }
        {
            let _lock = lock_dir(&graph_path)?;
            remove_stale_temporaries(&graph_path);
            if let Ok(manifest) = read_manifest(&graph_path) {
                remove_stale_versions(&graph_path, &manifest.layouts);
            }
        }
        let tmp_path = graph_path.join(temporary_name(name, "tmp"));
        // Named as the layout will be: the temporary name means nothing to the user.
        std::fs::create_dir(&tmp_path).map_err(|e| FormatError::io(graph_path.join(name), e))?;
        Ok(LayoutBuilder {
            graph_path,
            name: name.to_string(),
            tmp_path,
            force,
            published: false,
        })
    }

    /// The temporary directory being filled (scratch files may go here; they are removed on
    /// publish).
    pub fn dir(&self) -> &Path {
        &self.tmp_path
    }

    /// The layout's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Creates a data file written front to back, of a length not known in advance (errors
    /// name it where the layout will be).
    pub fn sequential(&self, name: &str) -> Result<DataFileWriter, FormatError> {
        DataFileWriter::create(&self.tmp_path, &self.graph_path.join(&self.name), name)
    }

    /// Creates a data file of logical length `len`, written at arbitrary offsets (or front to
    /// back, which saves the checksum pass).
    pub fn positioned(&self, name: &str, len: u64) -> Result<PositionedFile, FormatError> {
        PositionedFile::create(&self.tmp_path, name, len)
    }

    /// Creates a data file written front to back (checksummed as it goes, padded on finish);
    /// errors name it where the published layout will have it.
    pub fn file(&self, name: &str) -> Result<DataFileWriter, FormatError> {
        DataFileWriter::create(&self.tmp_path, &self.graph_path.join(&self.name), name)
    }

    /// Writes the metadata file `meta` describes ([`LayoutMeta::FILE`]), removes files it does
    /// not list, renames the directory into place as the layout's next generation and records
    /// it in the graph's manifest ([`LayoutMeta::record`]), replacing an existing layout only
    /// with `force`; returns the generation's directory. Under a lock on the graph directory, so
    /// concurrent publishers do not lose each other's manifest entries; the metadata is checked
    /// against the manifest read under that lock.
    ///
    /// A replacement never touches the generation it replaces until the manifest names the new
    /// one: readers find the old generation or the new one, whole, at every moment. The old one
    /// is removed after, unless a reader still pins it ([`LayoutPin`](crate::LayoutPin)); then
    /// the next writer removes it. A crash leaves the manifest naming whole generations only,
    /// and at worst an unnamed generation behind, which the next writer removes.
    pub fn publish<M: LayoutMeta>(mut self, meta: &M) -> Result<PathBuf, FormatError> {
        let mut json = serde_json::to_vec_pretty(meta).expect("layout metadata serialises");
        json.push(b'\n');
        let _lock = lock_dir(&self.graph_path)?;
        let mut manifest = read_manifest(&self.graph_path)?;
        meta.check(&manifest, &self.name)
            .map_err(|reason| FormatError::Manifest {
                path: self.tmp_path.join(M::FILE),
                reason,
            })?;
        let current = manifest.layouts.iter().find(|l| l.name() == self.name);
        if current.is_some() && !self.force {
            return Err(FormatError::Exists {
                path: self.graph_path.join(&self.name),
            });
        }
        let generation = next_generation(&self.graph_path, &self.name, current.map(LayoutRecord::generation));
        self.write_meta(M::FILE, &json, meta.files())?;
        let dir = self.graph_path.join(version_dir_name(&self.name, generation));
        std::fs::rename(&self.tmp_path, &dir).map_err(|e| FormatError::io(&dir, e))?;
        self.published = true;
        sync_dir(&self.graph_path);
        manifest.layouts.retain(|l| l.name() != self.name);
        manifest
            .layouts
            .push(meta.record(&self.name).with_generation(generation));
        manifest.layouts.sort_by(|a, b| a.name().cmp(b.name()));
        if let Err(e) = manifest.write_atomic(&self.graph_path) {
            let _ = remove_path(&dir);
            return Err(e);
        }
        remove_stale_versions(&self.graph_path, &manifest.layouts);
        Ok(dir)
    }

    /// Removes entries other than `files` from the temporary directory and writes the metadata
    /// file `meta_name`, synced.
    fn write_meta(&self, meta_name: &str, json: &[u8], files: &BTreeMap<String, FileEntry>) -> Result<(), FormatError> {
        let io = |p: &Path, e| FormatError::io(p, e);
        let entries = std::fs::read_dir(&self.tmp_path).map_err(|e| io(&self.tmp_path, e))?;
        for entry in entries {
            let entry = entry.map_err(|e| io(&self.tmp_path, e))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if !files.contains_key(&name) {
                remove_path(&entry.path()).map_err(|e| io(&entry.path(), e))?;
            }
        }
        write_synced(&self.tmp_path.join(meta_name), json)?;
        sync_dir(&self.tmp_path);
        Ok(())
    }
}

impl Drop for LayoutBuilder {
    fn drop(&mut self) {
        if !self.published {
            let _ = std::fs::remove_dir_all(&self.tmp_path);
        }
    }
}
