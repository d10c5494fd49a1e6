//! `manifest.json` ([`Manifest`]): what a graph directory holds, its checks, and the names of the
//! graph's data files.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::atomic::{sync_dir, temporary_name, write_synced};
use crate::data_file::{check_file_list, FileEntry};
use crate::error::FormatError;
use crate::layout_record::{CompressedRecord, LayoutRecord};
use crate::layout_versions::has_version_suffix;

/// Name of the manifest file.
pub const MANIFEST: &str = "manifest.json";
/// Out-edge offsets, `u64[V+1]`.
pub const OUT_IDX: &str = "out.idx";
/// Out-neighbour IDs, `u32[E]`, each list ascending.
pub const OUT_ADJ: &str = "out.adj";
/// Out-edge weights, `f32[E]` (weighted graphs only).
pub const OUT_WGT: &str = "out.wgt";
/// In-edge offsets, `u64[V+1]` (directed graphs only).
pub const IN_IDX: &str = "in.idx";
/// In-neighbour IDs, `u32[E]` (directed graphs only).
pub const IN_ADJ: &str = "in.adj";
/// In-edge weights, `f32[E]` (directed weighted graphs only).
pub const IN_WGT: &str = "in.wgt";
/// Original u64 ID of every internal vertex (present when IDs were remapped): strictly ascending
/// under the [`ORIGINAL_ORDERING`], distinct but in any order under another ordering.
pub const IDS: &str = "ids.u64";
/// Byte offsets of the vertex names, `u64[V+1]` (graphs with names only; see
/// [`VertexNames`](crate::VertexNames)).
pub const NAMES_IDX: &str = "names.idx";
/// The vertex names' UTF-8 bytes, one after another in original-ID order (graphs with names
/// only).
pub const NAMES_BIN: &str = "names.bin";
/// Largest number of vertices a graph may have: internal IDs are u32.
pub const MAX_VERTICES: u64 = u32::MAX as u64 + 1;

/// Value of the manifest's `format` field.
pub const FORMAT_NAME: &str = "diskgraph";
/// The format version this crate reads and writes.
pub const FORMAT_VERSION: u32 = 1;
/// The `ordering` of an imported graph: internal IDs ascend with original IDs, so `ids.u64` is
/// strictly ascending. Any other ordering (a `diskgraph reorder` method) only promises distinct
/// original IDs.
pub const ORIGINAL_ORDERING: &str = "original";
/// Longest `ordering` name.
const MAX_ORDERING_NAME: usize = 64;

/// Checks an `ordering` name: 1 to 64 characters of `a-z 0-9 _ -`, starting with a letter.
pub fn check_ordering_name(name: &str) -> Result<(), String> {
    let ok_char = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-';
    let starts_with_letter = name.starts_with(|c: char| c.is_ascii_lowercase());
    if name.len() > MAX_ORDERING_NAME || !starts_with_letter || !name.chars().all(ok_char) {
        return Err(format!(
            "ordering {name:?} is not 1 to {MAX_ORDERING_NAME} characters of a-z 0-9 _ - starting with a letter"
        ));
    }
    Ok(())
}

/// Checks a derived layout's name: non-empty, at most 240 bytes, no `/` or NUL, not starting
/// with `.` (temporary names start with a dot) and not ending in `.v` and digits (the names of
/// a layout's later generations, `grid-4.v3`).
pub fn check_layout_name(name: &str) -> Result<(), String> {
    let bad = name.is_empty() || name.len() > 240 || name.starts_with('.') || name.contains(['/', '\0']);
    if bad || has_version_suffix(name) {
        return Err(format!(
            "{name:?} is not a valid layout name (1 to 240 bytes, no '/', not starting with '.', not ending in .v and digits)"
        ));
    }
    Ok(())
}

/// Checks the `format` and `version` fields before the rest of the manifest is read, so that a
/// manifest of another format or version is refused as that, whatever its other fields.
fn check_format_version(json: &Value) -> Result<(), String> {
    let format = &json["format"];
    if format.as_str() != Some(FORMAT_NAME) {
        return Err(format!("format is {format}, expected {FORMAT_NAME:?}"));
    }
    let version = &json["version"];
    if version.as_u64() != Some(u64::from(FORMAT_VERSION)) {
        return Err(format!(
            "version {version} is not supported (this build reads version {FORMAT_VERSION})"
        ));
    }
    Ok(())
}

/// A `layouts` entry as stored: a record or, in manifests written before layout records, a
/// bare name.
enum StoredLayout {
    Record(LayoutRecord),
    Name(String),
}

impl StoredLayout {
    fn name(&self) -> &str {
        match self {
            StoredLayout::Record(record) => record.name(),
            StoredLayout::Name(name) => name,
        }
    }
}

/// `manifest.json`: what a graph directory holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// Always [`FORMAT_NAME`].
    pub format: String,
    /// Always [`FORMAT_VERSION`] for this reader.
    pub version: u32,
    /// Number of vertices V.
    pub num_vertices: u64,
    /// Number of edges: arcs for a directed graph, each undirected edge once otherwise.
    pub num_edges: u64,
    /// Number of entries in `out.adj` (= `in.adj` for directed graphs).
    pub num_arcs: u64,
    /// Number of self-loop entries in `out.adj` (zero unless imported with `--keep-self-loops`).
    pub num_self_loops: u64,
    /// Directed (`out.*` and `in.*`) or undirected (both directions in `out.*`).
    pub directed: bool,
    /// Whether `*.wgt` files are present.
    pub weighted: bool,
    /// Whether duplicate edges were kept (multigraph).
    pub multi_edges: bool,
    /// The ordering that produced the internal IDs: [`ORIGINAL_ORDERING`] after import, the
    /// method's name after `diskgraph reorder` (see [`Manifest::ids_ascending`]).
    pub ordering: String,
    /// Whether `ids.u64` maps internal IDs to original IDs (otherwise internal = original).
    pub ids_remapped: bool,
    /// Every data file, by name.
    pub files: BTreeMap<String, FileEntry>,
    /// Derived layouts present (subdirectories), each with its kind and summary; publishers
    /// keep them sorted by name.
    #[serde(default)]
    pub layouts: Vec<LayoutRecord>,
    /// The tool and version that wrote the directory.
    pub tool: String,
    /// Free-form provenance (input file, input format, generator parameters).
    #[serde(default)]
    pub source: BTreeMap<String, String>,
}

/// The `tool` every file this build writes records: `diskgraph` and the workspace's version.
pub const TOOL: &str = concat!("diskgraph ", env!("CARGO_PKG_VERSION"));

impl Manifest {
    /// Bytes of the graph's data files on disk (each padded to a page).
    pub fn bytes_on_disk(&self) -> u64 {
        self.files.values().map(|f| crate::padded_len(f.len)).sum()
    }

    /// The first way the graph `now` describes differs from the one `self` does, as `now`
    /// against `self` (`num_vertices is 49, was 40`); `None` for the same graph. Compared: the
    /// counts, the kind, the ordering and every data file's length and checksum; not the
    /// layouts, the provenance or the tool, which publishing a layout or importing the same
    /// graph again may change.
    pub fn graph_difference(&self, now: &Manifest) -> Option<String> {
        let counts = [
            ("num_vertices", self.num_vertices, now.num_vertices),
            ("num_edges", self.num_edges, now.num_edges),
            ("num_arcs", self.num_arcs, now.num_arcs),
            ("num_self_loops", self.num_self_loops, now.num_self_loops),
        ];
        let flags = [
            ("directed", self.directed, now.directed),
            ("weighted", self.weighted, now.weighted),
            ("multi_edges", self.multi_edges, now.multi_edges),
            ("ids_remapped", self.ids_remapped, now.ids_remapped),
        ];
        let count = counts.iter().find(|(_, was, is)| was != is);
        let flag = flags.iter().find(|(_, was, is)| was != is);
        if let Some((name, was, is)) = count {
            return Some(format!("{name} is {is}, was {was}"));
        }
        if let Some((name, was, is)) = flag {
            return Some(format!("{name} is {is}, was {was}"));
        }
        if self.ordering != now.ordering {
            return Some(format!("ordering is {}, was {}", now.ordering, self.ordering));
        }
        let names: std::collections::BTreeSet<&String> = self.files.keys().chain(now.files.keys()).collect();
        names
            .into_iter()
            .find_map(|name| match (self.files.get(name), now.files.get(name)) {
                (Some(_), None) => Some(format!("{name} is no longer listed")),
                (None, Some(_)) => Some(format!("{name} is listed, and was not")),
                (Some(was), Some(is)) if was != is => Some(format!(
                    "{name} has xxh3 {} ({} bytes), had {} ({} bytes)",
                    is.xxh3, is.len, was.xxh3, was.len
                )),
                _ => None,
            })
    }

    /// Reads and sanity-checks the manifest at `path`. A `layouts` entry that is a bare name
    /// (a manifest written before layout records) becomes `record_of(name)`, asked only once
    /// every entry's name has passed its checks.
    pub(crate) fn read(
        path: &Path,
        mut record_of: impl FnMut(&str) -> Result<LayoutRecord, FormatError>,
    ) -> Result<Manifest, FormatError> {
        let bytes = crate::input::read_metadata(path)?;
        let bad = |reason: String| FormatError::Manifest {
            path: path.to_path_buf(),
            reason,
        };
        let mut json: Value = serde_json::from_slice(&bytes).map_err(|e| bad(e.to_string()))?;
        check_format_version(&json).map_err(bad)?;
        let stored = match json.as_object_mut().and_then(|o| o.remove("layouts")) {
            None => Vec::new(),
            Some(Value::Array(entries)) => entries,
            Some(other) => return Err(bad(format!("layouts is {other}, not a list"))),
        };
        let mut m: Manifest = serde_json::from_value(json).map_err(|e| bad(e.to_string()))?;
        m.check().map_err(bad)?;
        let entries = stored
            .into_iter()
            .enumerate()
            .map(|(i, entry)| match entry {
                Value::String(name) => Ok(StoredLayout::Name(name)),
                record => serde_json::from_value(record)
                    .map(StoredLayout::Record)
                    .map_err(|e| format!("layouts entry {i}: {e}")),
            })
            .collect::<Result<Vec<_>, _>>()
            .map_err(bad)?;
        let names: Vec<&str> = entries.iter().map(StoredLayout::name).collect();
        m.check_layout_names(&names).map_err(bad)?;
        m.layouts = entries
            .into_iter()
            .map(|entry| match entry {
                StoredLayout::Record(record) => Ok(record),
                StoredLayout::Name(name) => record_of(&name),
            })
            .collect::<Result<_, _>>()?;
        m.check_lists().map_err(bad)?;
        Ok(m)
    }

    /// Whether internal IDs ascend with original IDs (`ids.u64`, when present, is strictly
    /// ascending, so an original ID can be found by binary search). True exactly for the
    /// [`ORIGINAL_ORDERING`]; a reordered graph's `ids.u64` is any permutation of distinct IDs.
    pub fn ids_ascending(&self) -> bool {
        self.ordering == ORIGINAL_ORDERING
    }

    /// Whether the graph stores its lists plain (`out.adj`, and `in.adj` when directed); a
    /// compressed-only graph stores them only in the compressed layout
    /// [`lists_layout`](Self::lists_layout) names.
    pub fn has_plain_lists(&self) -> bool {
        self.files.contains_key(OUT_ADJ)
    }

    /// The record of the compressed layout that holds the graph's lists (a compressed-only
    /// graph), if any.
    pub fn lists_layout(&self) -> Option<&CompressedRecord> {
        self.layouts
            .iter()
            .filter_map(LayoutRecord::compressed)
            .find(|r| r.lists.is_some())
    }

    /// The checksum that ties a derived layout to the graph's lists: the xxh3 of `out.adj`, or
    /// for a compressed-only graph of the `out.adj` its compressed lists decode to (so the two
    /// forms of one graph have the same).
    pub fn lists_tie(&self) -> Option<&str> {
        match self.files.get(OUT_ADJ) {
            Some(f) => Some(&f.xxh3),
            None => self.lists_layout().and_then(|r| r.lists.as_deref()),
        }
    }

    /// The files this manifest must list, given its flags (`*.adj` only when it lists
    /// `out.adj`: a compressed-only graph's lists are in a layout).
    pub fn required_files(&self) -> Vec<&'static str> {
        let plain = self.has_plain_lists();
        let mut f = vec![OUT_IDX];
        if plain {
            f.push(OUT_ADJ);
        }
        if self.weighted {
            f.push(OUT_WGT);
        }
        if self.directed {
            f.push(IN_IDX);
            if plain {
                f.push(IN_ADJ);
            }
            if self.weighted {
                f.push(IN_WGT);
            }
        }
        if self.ids_remapped {
            f.push(IDS);
        }
        if self.has_names() {
            f.extend([NAMES_IDX, NAMES_BIN]);
        }
        f
    }

    /// Whether the graph names its vertices (`names.idx` and `names.bin`; a manifest listing
    /// only one of them is refused on open).
    pub fn has_names(&self) -> bool {
        self.files.contains_key(NAMES_IDX) || self.files.contains_key(NAMES_BIN)
    }

    /// Expected logical length of a data file, from the counts (`None` for `names.bin`, whose
    /// length only `names.idx` knows, and for names that are not data files).
    pub fn expected_len(&self, name: &str) -> Option<u64> {
        match name {
            OUT_IDX | IN_IDX | NAMES_IDX => Some(self.num_vertices.saturating_add(1).saturating_mul(8)),
            OUT_ADJ | IN_ADJ | OUT_WGT | IN_WGT => Some(self.num_arcs.saturating_mul(4)),
            IDS => Some(self.num_vertices.saturating_mul(8)),
            _ => None,
        }
    }

    /// Checks the counts and the file list (`format` and `version` are checked before).
    fn check(&self) -> Result<(), String> {
        if self.num_vertices > MAX_VERTICES {
            return Err(format!("num_vertices {} exceeds the u32 ID space", self.num_vertices));
        }
        check_ordering_name(&self.ordering)?;
        if self.num_self_loops > self.num_arcs {
            return Err("num_self_loops exceeds num_arcs".into());
        }
        let expected_edges = if self.directed {
            self.num_arcs
        } else {
            (self.num_arcs - self.num_self_loops) / 2 + self.num_self_loops
        };
        if self.num_edges != expected_edges {
            return Err(format!(
                "num_edges {} disagrees with num_arcs {} and num_self_loops {}",
                self.num_edges, self.num_arcs, self.num_self_loops
            ));
        }
        check_file_list(&self.files, &self.required_files(), |f| self.expected_len(f))
    }

    /// The lists are in exactly one place: `out.adj` (and no layout claims them), or one
    /// compressed layout that holds them.
    fn check_lists(&self) -> Result<(), String> {
        let holders = self
            .layouts
            .iter()
            .filter_map(LayoutRecord::compressed)
            .filter(|r| r.lists.is_some());
        match (self.has_plain_lists(), holders.count()) {
            (true, 0) | (false, 1) => Ok(()),
            (true, _) => Err(format!(
                "{OUT_ADJ} is listed and a compressed layout also holds the lists"
            )),
            (false, 0) => Err(format!(
                "file {OUT_ADJ} is not listed and no compressed layout holds the lists"
            )),
            (false, n) => Err(format!("{n} compressed layouts hold the lists; one may")),
        }
    }

    /// Layout names are plain directory names, listed once, and never a data file's name.
    fn check_layout_names(&self, names: &[&str]) -> Result<(), String> {
        for (i, &name) in names.iter().enumerate() {
            check_layout_name(name)?;
            if names[..i].contains(&name) {
                return Err(format!("layout {name} is listed twice"));
            }
            if name == MANIFEST || self.files.contains_key(name) {
                return Err(format!("layout {name} has the name of a file"));
            }
        }
        Ok(())
    }

    /// Replaces `dir/manifest.json` with this manifest atomically: a temporary file in `dir` is
    /// written and synced, then renamed over the old one, then the directory is synced.
    pub(crate) fn write_atomic(&self, dir: &Path) -> Result<(), FormatError> {
        let tmp = dir.join(temporary_name(MANIFEST, "tmp"));
        let mut json = serde_json::to_vec_pretty(self).expect("manifest serialises");
        json.push(b'\n');
        write_synced(&tmp, &json)?;
        let path = dir.join(MANIFEST);
        if let Err(e) = std::fs::rename(&tmp, &path) {
            let _ = std::fs::remove_file(&tmp);
            return Err(FormatError::io(&path, e));
        }
        sync_dir(dir);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::codec::Codec;
    use crate::grid_sort::GridSort;
    use crate::layout_record::{BascRecord, GridRecord, ShardRecord};
    use crate::shard_meta::shard_layout_name;

    #[test]
    fn temporary_names_are_never_layout_names() {
        assert!(check_layout_name(&temporary_name("grid-4", "tmp")).is_err());
        assert!(check_layout_name(&temporary_name("grid-4", "old")).is_err());
        assert!(check_layout_name("grid-4").is_ok());
        assert!(
            check_layout_name("grid-4.v3").is_err(),
            "a later generation's directory"
        );
        assert!(check_layout_name("basc-a.v").is_ok());
    }

    /// A valid manifest of an undirected graph of 3 vertices and 2 arcs, with `layouts`.
    fn manifest(layouts: Vec<LayoutRecord>) -> Manifest {
        let file = |len| FileEntry {
            len,
            xxh3: "0123456789abcdef".into(),
        };
        Manifest {
            format: FORMAT_NAME.into(),
            version: FORMAT_VERSION,
            num_vertices: 3,
            num_edges: 1,
            num_arcs: 2,
            num_self_loops: 0,
            directed: false,
            weighted: false,
            multi_edges: false,
            ordering: ORIGINAL_ORDERING.into(),
            ids_remapped: false,
            files: BTreeMap::from([(OUT_IDX.into(), file(32)), (OUT_ADJ.into(), file(8))]),
            layouts,
            tool: "test".into(),
            source: BTreeMap::new(),
        }
    }

    fn record() -> impl Strategy<Value = LayoutRecord> {
        let sort = prop_oneof![
            Just(GridSort::Grid),
            Just(GridSort::Source),
            Just(GridSort::Destination),
            "k[a-z0-9_]{0,8}".prop_map(GridSort::Key),
        ];
        let grid = (sort, 1u32..=4096, any::<u64>(), any::<bool>(), any::<u64>()).prop_map(
            |(sort, rows, num_arcs, weighted, bytes_on_disk)| {
                LayoutRecord::Grid(GridRecord {
                    name: sort.layout_name(rows),
                    cols: sort.cols_for(rows),
                    sort,
                    rows,
                    num_arcs,
                    weighted,
                    compressed: None,
                    bytes_on_disk,
                    generation: 0,
                })
            },
        );
        let basc = ("[a-z0-9_]{1,8}", "[a-z]{1,6}", any::<u64>(), any::<u64>(), any::<u64>()).prop_map(
            |(name, method, num_selected, num_arcs, bytes_on_disk)| {
                LayoutRecord::Basc(BascRecord {
                    name: format!("basc-{name}"),
                    method,
                    num_selected,
                    num_arcs,
                    bytes_on_disk,
                    generation: 0,
                })
            },
        );
        let shards = (1u32..=4096, 1u64..=16384, any::<u64>(), any::<u64>(), any::<bool>()).prop_map(
            |(num_shards, pages, num_arcs, bytes_on_disk, packed)| {
                let compressed = packed.then_some(Codec::Vbyte);
                LayoutRecord::Shards(ShardRecord {
                    name: shard_layout_name(num_shards, compressed),
                    num_shards,
                    block_bytes: pages * 4096,
                    num_arcs,
                    compressed,
                    bytes_on_disk,
                    generation: 0,
                })
            },
        );
        prop_oneof![grid, basc, shards]
    }

    proptest! {
        /// A manifest with layout records is written and read back unchanged, never asking for
        /// a record from a layout's metadata.
        #[test]
        fn manifests_with_layout_records_round_trip(records in prop::collection::vec(record(), 0..8)) {
            let mut layouts: Vec<LayoutRecord> = records;
            layouts.sort_by(|a, b| a.name().cmp(b.name()));
            layouts.dedup_by(|a, b| a.name() == b.name());
            let m = manifest(layouts);
            let dir = tempfile::tempdir().unwrap();
            m.write_atomic(dir.path()).unwrap();
            let read = Manifest::read(&dir.path().join(MANIFEST), |name| panic!("asked for {name}")).unwrap();
            prop_assert_eq!(read, m);
        }
    }

    /// Writes `m` with its `layouts` replaced by `layouts` into a new directory.
    fn stored(m: &Manifest, layouts: serde_json::Value) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let mut json = serde_json::to_value(m).unwrap();
        json["layouts"] = layouts;
        std::fs::write(dir.path().join(MANIFEST), json.to_string()).unwrap();
        dir
    }

    #[test]
    fn bare_names_get_records_once_every_name_is_checked() {
        let grid = LayoutRecord::Grid(GridRecord {
            name: "grid-2".into(),
            sort: GridSort::Grid,
            rows: 2,
            cols: 2,
            num_arcs: 2,
            weighted: false,
            compressed: None,
            bytes_on_disk: 12288,
            generation: 0,
        });
        let m = manifest(vec![]);
        let record = serde_json::to_value(&grid).unwrap();
        let dir = stored(&m, serde_json::json!(["basc-a", record]));
        let mut asked = Vec::new();
        let basc = |name: &str| {
            LayoutRecord::Basc(BascRecord {
                name: name.into(),
                method: "lowd".into(),
                num_selected: 1,
                num_arcs: 1,
                bytes_on_disk: 8192,
                generation: 0,
            })
        };
        let read = Manifest::read(&dir.path().join(MANIFEST), |name| {
            asked.push(name.to_string());
            Ok(basc(name))
        })
        .unwrap();
        assert_eq!(asked, ["basc-a"]);
        assert_eq!(read.layouts, [basc("basc-a"), grid.clone()]);

        for bad in [
            serde_json::json!(["basc-a", "../x"]),
            serde_json::json!(["grid-2", record]),
            serde_json::json!(["out.adj"]),
            serde_json::json!([{ "kind": "shards", "name": "shards-4" }]),
            serde_json::json!([{ "kind": "grid", "name": "grid-2" }]),
            serde_json::json!("grid-2"),
        ] {
            let dir = stored(&m, bad.clone());
            let err = Manifest::read(&dir.path().join(MANIFEST), |name| panic!("{bad}: asked for {name}"));
            assert!(matches!(err, Err(FormatError::Manifest { .. })), "{bad}: {err:?}");
        }
    }
}
