//! Versioned layout directories: where each generation of a derived layout lives
//! ([`version_dir_name`]), the reader's pin that keeps a generation on disk while it is read
//! ([`LayoutPin`]), and the stale generations a writer clears ([`stale_layout_versions`]).
//!
//! A layout's first generation is the directory of its name (`grid-4/`); a replacement is
//! written as the next one (`grid-4.v1/`, `grid-4.v2/`, …), published by the manifest's record
//! naming it (`generation`), and the generation it replaced is removed after, unless a reader
//! still pins it. See `docs/FORMAT.md`, "Layout generations".

use std::fs::File;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::basc_meta::BASC_META;
use crate::compressed_meta::COMPRESSED_META;
use crate::error::FormatError;
use crate::grid_meta::GRID_META;
use crate::layout_record::LayoutRecord;
use crate::manifest::check_layout_name;
use crate::shard_meta::SHARD_META;

/// The metadata files of every kind of layout: a directory holding one is a layout generation.
const META_FILES: [&str; 4] = [GRID_META, BASC_META, SHARD_META, COMPRESSED_META];

/// The directory of generation `generation` of layout `name`: `name` for generation 0,
/// `name.vG` after.
pub fn version_dir_name(name: &str, generation: u64) -> String {
    match generation {
        0 => name.to_string(),
        g => format!("{name}.v{g}"),
    }
}

/// The layout name and generation a directory name `dir` stands for (`grid-4.v3` is generation
/// 3 of `grid-4`, `grid-4` generation 0), if it can be a layout's directory at all.
pub fn parse_version_dir(dir: &str) -> Option<(&str, u64)> {
    let parsed = match dir.rsplit_once(".v") {
        Some((name, digits))
            if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) && !digits.starts_with('0') =>
        {
            (name, digits.parse().ok()?)
        }
        _ => (dir, 0),
    };
    check_layout_name(parsed.0).ok().map(|_| parsed)
}

/// Whether a directory name ends like a generation's (`.v` and digits), which a layout's own
/// name must not.
pub(crate) fn has_version_suffix(name: &str) -> bool {
    name.rsplit_once(".v")
        .is_some_and(|(_, digits)| !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
}

/// A reader's hold on one layout generation: a shared lock on its directory, kept while any
/// clone of the opened layout lives. A writer removes a replaced generation only when it can
/// lock it exclusively, so a pinned generation stays whole on disk until its last reader is done.
#[derive(Clone, Debug)]
pub struct LayoutPin {
    _dir: Arc<File>,
}

/// Why a generation could not be pinned.
pub(crate) enum PinFailure {
    /// The directory is gone, or is no longer the one the path names (a writer removed it).
    Gone(std::io::Error),
    /// Any other error, naming the directory.
    Failed(FormatError),
}

impl LayoutPin {
    /// Pins the generation at `dir`: opens it, takes a shared lock (waiting for a writer that is
    /// removing it) and checks that `dir` still names the directory locked.
    pub(crate) fn shared(dir: &Path) -> Result<LayoutPin, PinFailure> {
        let failed = |e: std::io::Error| match e.kind() {
            std::io::ErrorKind::NotFound => PinFailure::Gone(e),
            _ => PinFailure::Failed(FormatError::io(dir, e)),
        };
        let file = File::open(dir).map_err(failed)?;
        file.lock_shared().map_err(failed)?;
        let locked = file.metadata().map_err(failed)?;
        let named = std::fs::metadata(dir).map_err(failed)?;
        if (locked.dev(), locked.ino()) != (named.dev(), named.ino()) {
            let removed = std::io::Error::new(std::io::ErrorKind::NotFound, "removed while being opened");
            return Err(PinFailure::Gone(removed));
        }
        Ok(LayoutPin { _dir: Arc::new(file) })
    }
}

/// The generation directories in `graph` that no record of `layouts` names and no reader pins
/// (a directory of layout-generation name holding a layout's metadata file), each with its
/// exclusive lock, taken to tell whether a reader pins it.
fn unlisted_versions(graph: &Path, layouts: &[LayoutRecord]) -> Vec<(String, File)> {
    let Ok(entries) = std::fs::read_dir(graph) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for entry in entries.flatten() {
        let dir_name = entry.file_name().to_string_lossy().into_owned();
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        if !is_dir || parse_version_dir(&dir_name).is_none() || layouts.iter().any(|l| l.dir_name() == dir_name) {
            continue;
        }
        let path = entry.path();
        if !META_FILES.iter().any(|m| path.join(m).is_file()) {
            continue;
        }
        if let Some(lock) = File::open(&path).ok().filter(|f| f.try_lock().is_ok()) {
            found.push((dir_name, lock));
        }
    }
    found.sort_by(|a, b| a.0.cmp(&b.0));
    found
}

/// The stale layout generations of the graph directory `graph` whose manifest lists `layouts`:
/// generation directories no record names and no reader pins — left by a writer that died
/// between writing a generation and publishing it, or before removing the one it replaced.
/// Sorted by name.
pub fn stale_layout_versions(graph: &Path, layouts: &[LayoutRecord]) -> Vec<String> {
    unlisted_versions(graph, layouts)
        .into_iter()
        .map(|(name, _)| name)
        .collect()
}

/// Removes the stale layout generations of `graph` (see [`stale_layout_versions`]), each while
/// holding its exclusive lock: its data files first and its metadata file last, so a removal cut
/// short still leaves a directory recognised as a stale generation. Best effort: a generation
/// that cannot be removed now is left for the next writer. Called under the graph's lock.
pub(crate) fn remove_stale_versions(graph: &Path, layouts: &[LayoutRecord]) {
    for (name, lock) in unlisted_versions(graph, layouts) {
        let _lock = lock;
        let _ = remove_generation(&graph.join(name));
    }
}

/// Removes the generation directory `dir`: every entry but the metadata files, then those,
/// then the directory.
fn remove_generation(dir: &Path) -> std::io::Result<()> {
    let entries: Vec<PathBuf> = std::fs::read_dir(dir)?.flatten().map(|e| e.path()).collect();
    let is_meta = |p: &PathBuf| p.file_name().is_some_and(|n| META_FILES.iter().any(|m| n == *m));
    let (meta, data): (Vec<PathBuf>, Vec<PathBuf>) = entries.into_iter().partition(is_meta);
    for path in data.iter().chain(&meta) {
        crate::atomic::remove_path(path)?;
    }
    std::fs::remove_dir(dir)
}

/// The generation a new publication of layout `name` gets: 0 when nothing of that name exists,
/// else one past the highest generation its record (`current`) or any directory of `graph`
/// has, so a generation a reader still pins is never reused.
pub(crate) fn next_generation(graph: &Path, name: &str, current: Option<u64>) -> u64 {
    let on_disk = std::fs::read_dir(graph)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let dir_name = e.file_name().to_string_lossy().into_owned();
            parse_version_dir(&dir_name)
                .filter(|(of, _)| *of == name)
                .map(|(_, g)| g)
        })
        .max();
    match current.max(on_disk) {
        None => 0,
        Some(g) => g + 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generation_names_round_trip() {
        assert_eq!(version_dir_name("grid-4", 0), "grid-4");
        assert_eq!(version_dir_name("grid-4", 3), "grid-4.v3");
        assert_eq!(parse_version_dir("grid-4.v3"), Some(("grid-4", 3)));
        assert_eq!(parse_version_dir("grid-4"), Some(("grid-4", 0)));
        assert_eq!(parse_version_dir("basc-a.v"), Some(("basc-a.v", 0)));
        assert_eq!(parse_version_dir("grid-4.v03"), None);
        assert_eq!(parse_version_dir("grid-4.v0"), None);
        assert_eq!(parse_version_dir(".grid-4.tmp-1-2"), None);
        assert!(has_version_suffix("grid-4.v03"));
        assert!(!has_version_suffix("basc-a.v"));
    }

    #[test]
    fn the_next_generation_passes_every_one_on_disk() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(next_generation(dir.path(), "grid-4", None), 0);
        std::fs::create_dir(dir.path().join("grid-4")).unwrap();
        assert_eq!(next_generation(dir.path(), "grid-4", None), 1);
        std::fs::create_dir(dir.path().join("grid-4.v5")).unwrap();
        std::fs::create_dir(dir.path().join("grid-8.v9")).unwrap();
        assert_eq!(next_generation(dir.path(), "grid-4", Some(2)), 6);
        assert_eq!(next_generation(dir.path(), "grid-4", Some(7)), 8);
    }

    #[test]
    fn a_pinned_generation_is_not_stale_and_is_not_removed() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["grid-4.v1", "grid-4.v2", "notes"] {
            std::fs::create_dir(dir.path().join(name)).unwrap();
            std::fs::write(dir.path().join(name).join(GRID_META), b"{}").unwrap();
            std::fs::write(dir.path().join(name).join("edges.bin"), b"").unwrap();
        }
        std::fs::create_dir(dir.path().join("grid-4.v3")).unwrap();
        let pin = LayoutPin::shared(&dir.path().join("grid-4.v2")).ok().unwrap();
        assert_eq!(stale_layout_versions(dir.path(), &[]), ["grid-4.v1", "notes"]);
        remove_stale_versions(dir.path(), &[]);
        assert!(!dir.path().join("grid-4.v1").exists());
        assert!(dir.path().join("grid-4.v2/edges.bin").exists(), "pinned");
        assert!(dir.path().join("grid-4.v3").exists(), "no metadata: not a generation");
        drop(pin);
        assert_eq!(stale_layout_versions(dir.path(), &[]), ["grid-4.v2"]);
    }

    #[test]
    fn a_removed_generation_cannot_be_pinned() {
        let dir = tempfile::tempdir().unwrap();
        let gen = dir.path().join("grid-4.v1");
        assert!(matches!(LayoutPin::shared(&gen), Err(PinFailure::Gone(_))));
        std::fs::create_dir(&gen).unwrap();
        assert!(LayoutPin::shared(&gen).is_ok());
    }
}
