//! The manifest's record of a derived layout ([`LayoutRecord`]): its name, its kind and what a
//! reader needs to choose it without opening it (a grid's sort and shape, a selection's method,
//! a shard layout's shard count and block size, counts and bytes). The layout's own metadata
//! file (`grid.json`, `basc.json`, `shards.json`) stays the authority: readers check the record
//! against it when they open the layout.

use serde::{Deserialize, Serialize};

use crate::codec::Codec;
use crate::grid_sort::GridSort;
use crate::layout_versions::version_dir_name;

/// Whether a generation is 0 (the field is then left out of the manifest).
fn is_zero(generation: &u64) -> bool {
    *generation == 0
}

/// The kinds of derived layout a graph can list, named in the manifest as lowercase strings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LayoutKind {
    /// A grid layout (`grid-P…/`, `grid.json`), for the stream engine.
    Grid,
    /// A BAsC selection (`basc-<name>/`, `basc.json`), for the selective engine's static cache.
    Basc,
    /// A shard layout (`shards-N/`, `shards.json`): GraphChi's shards, for the shards engine.
    Shards,
    /// A compressed adjacency (`compressed-<codec>/`, `compressed.json`): the lists encoded, for
    /// every engine that reads lists.
    Compressed,
}

impl LayoutKind {
    /// The command that makes layouts of this kind.
    pub fn made_by(self) -> &'static str {
        match self {
            LayoutKind::Grid => "diskgraph partition",
            LayoutKind::Basc => "diskgraph select",
            LayoutKind::Shards => "diskgraph partition --shards",
            LayoutKind::Compressed => "diskgraph compress",
        }
    }
}

impl std::fmt::Display for LayoutKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            LayoutKind::Grid => "grid",
            LayoutKind::Basc => "basc",
            LayoutKind::Shards => "shards",
            LayoutKind::Compressed => "compressed",
        })
    }
}

/// The manifest's record of a grid layout (see `grid.json` for the layout's full metadata).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GridRecord {
    /// The layout's directory name (`grid-P`, `grid-P-source`, …).
    pub name: String,
    /// Order of the edges inside each block.
    pub sort: GridSort,
    /// Number of row (source) ranges P.
    pub rows: u32,
    /// Number of column (destination) ranges: P, or 1 for a source-sorted layout.
    pub cols: u32,
    /// Arcs the layout stores (the graph's `num_arcs`).
    pub num_arcs: u64,
    /// Whether the layout stores weights.
    pub weighted: bool,
    /// The codec of a compressed layout's blocks (`"compressed": "vbyte"`); absent when plain.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compressed: Option<Codec>,
    /// Bytes of the layout's data files on disk (each padded to 4096; `grid.json` not counted).
    pub bytes_on_disk: u64,
    /// The layout's generation: which directory holds it (`name` for 0, `name.vG` after; see
    /// [`version_dir_name`](crate::version_dir_name)). Absent when 0.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub generation: u64,
}

/// The manifest's record of a BAsC selection (see `basc.json` for its full metadata).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BascRecord {
    /// The selection's directory name (`basc-<name>`).
    pub name: String,
    /// Selection method (`gvs`, `highd`, `lowd`, `random`).
    pub method: String,
    /// Number of selected vertices, each with its out-list.
    pub num_selected: u64,
    /// Arcs in the selected vertices' out-lists.
    pub num_arcs: u64,
    /// Bytes of the selection's data files on disk (each padded to 4096; `basc.json` not
    /// counted).
    pub bytes_on_disk: u64,
    /// The layout's generation: which directory holds it (`name` for 0, `name.vG` after; see
    /// [`version_dir_name`](crate::version_dir_name)). Absent when 0.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub generation: u64,
}

/// The manifest's record of a shard layout (see `shards.json` for its full metadata).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShardRecord {
    /// The layout's directory name (`shards-N`, `shards-N-<codec>` when compressed).
    pub name: String,
    /// Number of shards N (= number of vertex intervals).
    pub num_shards: u32,
    /// Edge-value block size of the shards engine (its scratch column's and its cache's unit).
    pub block_bytes: u64,
    /// Arcs the layout stores (the graph's `num_arcs`).
    pub num_arcs: u64,
    /// The codec of a compressed layout's windows (`"compressed": "vbyte"`); absent when plain.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compressed: Option<Codec>,
    /// Bytes of the layout's data files on disk (each padded to 4096; `shards.json` not
    /// counted).
    pub bytes_on_disk: u64,
    /// The layout's generation: which directory holds it (`name` for 0, `name.vG` after; see
    /// [`version_dir_name`](crate::version_dir_name)). Absent when 0.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub generation: u64,
}

/// The manifest's record of a compressed adjacency (see `compressed.json` for its metadata).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CompressedRecord {
    /// The layout's directory name (`compressed-<codec>`).
    pub name: String,
    /// How each list is encoded.
    pub codec: Codec,
    /// Arcs stored per direction (the graph's `num_arcs`).
    pub num_arcs: u64,
    /// Bytes of the layout's data files on disk (each padded to 4096; `compressed.json` not
    /// counted).
    pub bytes_on_disk: u64,
    /// When this layout holds the graph's lists (a compressed-only graph, which has no
    /// `out.adj`): the xxh3 of the out-lists in plain form, the `out.adj` they decode to. The
    /// layout is then part of the graph, not a derived layout, and the other layouts tie to
    /// this checksum as they tie to `out.adj`'s. Absent for a derived layout.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lists: Option<String>,
    /// The layout's generation: which directory holds it (`name` for 0, `name.vG` after; see
    /// [`version_dir_name`](crate::version_dir_name)). Absent when 0.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub generation: u64,
}

/// One entry of the manifest's `layouts`: a derived layout's name, kind and summary. Stored as
/// a JSON object whose `kind` field (`"grid"`, `"basc"` or `"shards"`, see [`LayoutKind`])
/// says which fields follow.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum LayoutRecord {
    /// A grid layout.
    Grid(GridRecord),
    /// A BAsC selection.
    Basc(BascRecord),
    /// A shard layout.
    Shards(ShardRecord),
    /// A compressed adjacency.
    Compressed(CompressedRecord),
}

impl LayoutRecord {
    /// The layout's directory name.
    pub fn name(&self) -> &str {
        match self {
            LayoutRecord::Grid(r) => &r.name,
            LayoutRecord::Basc(r) => &r.name,
            LayoutRecord::Shards(r) => &r.name,
            LayoutRecord::Compressed(r) => &r.name,
        }
    }

    /// The layout's kind.
    pub fn kind(&self) -> LayoutKind {
        match self {
            LayoutRecord::Grid(_) => LayoutKind::Grid,
            LayoutRecord::Basc(_) => LayoutKind::Basc,
            LayoutRecord::Shards(_) => LayoutKind::Shards,
            LayoutRecord::Compressed(_) => LayoutKind::Compressed,
        }
    }

    /// Arcs the layout stores.
    pub fn num_arcs(&self) -> u64 {
        match self {
            LayoutRecord::Grid(r) => r.num_arcs,
            LayoutRecord::Basc(r) => r.num_arcs,
            LayoutRecord::Shards(r) => r.num_arcs,
            LayoutRecord::Compressed(r) => r.num_arcs,
        }
    }

    /// Bytes of the layout's data files on disk.
    pub fn bytes_on_disk(&self) -> u64 {
        match self {
            LayoutRecord::Grid(r) => r.bytes_on_disk,
            LayoutRecord::Basc(r) => r.bytes_on_disk,
            LayoutRecord::Shards(r) => r.bytes_on_disk,
            LayoutRecord::Compressed(r) => r.bytes_on_disk,
        }
    }

    /// The layout's generation (0 for the directory of its name).
    pub fn generation(&self) -> u64 {
        match self {
            LayoutRecord::Grid(r) => r.generation,
            LayoutRecord::Basc(r) => r.generation,
            LayoutRecord::Shards(r) => r.generation,
            LayoutRecord::Compressed(r) => r.generation,
        }
    }

    /// This record with its generation set to `generation`.
    pub fn with_generation(mut self, generation: u64) -> LayoutRecord {
        match &mut self {
            LayoutRecord::Grid(r) => r.generation = generation,
            LayoutRecord::Basc(r) => r.generation = generation,
            LayoutRecord::Shards(r) => r.generation = generation,
            LayoutRecord::Compressed(r) => r.generation = generation,
        }
        self
    }

    /// The name of the directory holding the layout (`grid-4`, or `grid-4.v3` for generation 3).
    pub fn dir_name(&self) -> String {
        version_dir_name(self.name(), self.generation())
    }

    /// The grid record, if this is a grid layout.
    pub fn grid(&self) -> Option<&GridRecord> {
        match self {
            LayoutRecord::Grid(r) => Some(r),
            _ => None,
        }
    }

    /// The selection record, if this is a BAsC selection.
    pub fn basc(&self) -> Option<&BascRecord> {
        match self {
            LayoutRecord::Basc(r) => Some(r),
            _ => None,
        }
    }

    /// The shard record, if this is a shard layout.
    pub fn shards(&self) -> Option<&ShardRecord> {
        match self {
            LayoutRecord::Shards(r) => Some(r),
            _ => None,
        }
    }

    /// The compressed-adjacency record, if this is one.
    pub fn compressed(&self) -> Option<&CompressedRecord> {
        match self {
            LayoutRecord::Compressed(r) => Some(r),
            _ => None,
        }
    }

    /// The first field in which this record (the manifest's) differs from `found` (the one the
    /// layout's metadata file gives), with both values as JSON text; `None` when they agree.
    /// The generation is not compared: only the manifest knows it.
    pub(crate) fn first_difference(&self, found: &LayoutRecord) -> Option<(String, String, String)> {
        let found = &found.clone().with_generation(self.generation());
        if self.kind() != found.kind() {
            return Some(("kind".into(), self.kind().to_string(), found.kind().to_string()));
        }
        let fields = |r: &LayoutRecord| match serde_json::to_value(r) {
            Ok(serde_json::Value::Object(map)) => map,
            _ => unreachable!("a layout record serialises to a JSON object"),
        };
        let (ours, theirs) = (fields(self), fields(found));
        ours.iter()
            .find(|(k, v)| theirs.get(*k) != Some(v))
            .map(|(k, v)| (k.clone(), v.to_string(), theirs[k].to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid() -> LayoutRecord {
        LayoutRecord::Grid(GridRecord {
            name: "grid-4-source".into(),
            sort: GridSort::Source,
            rows: 4,
            cols: 1,
            num_arcs: 9932,
            weighted: true,
            compressed: None,
            bytes_on_disk: 122_880,
            generation: 0,
        })
    }

    fn basc() -> LayoutRecord {
        LayoutRecord::Basc(BascRecord {
            name: "basc-gvs".into(),
            method: "gvs".into(),
            num_selected: 230,
            num_arcs: 1544,
            bytes_on_disk: 8192,
            generation: 0,
        })
    }

    fn shards() -> LayoutRecord {
        LayoutRecord::Shards(ShardRecord {
            name: "shards-3".into(),
            num_shards: 3,
            block_bytes: 1 << 20,
            num_arcs: 9932,
            compressed: None,
            bytes_on_disk: 86_016,
            generation: 0,
        })
    }

    #[test]
    fn records_are_flat_objects_tagged_by_kind() {
        let json = serde_json::to_value(grid()).unwrap();
        assert_eq!(
            json,
            serde_json::json!({
                "kind": "grid", "name": "grid-4-source", "sort": "source", "rows": 4, "cols": 1,
                "num_arcs": 9932, "weighted": true, "bytes_on_disk": 122880
            })
        );
        let json = serde_json::to_value(basc()).unwrap();
        assert_eq!(json["kind"], "basc");
        assert_eq!(json["num_selected"], 230);
        let key = serde_json::json!({
            "kind": "grid", "name": "grid-2-deg", "sort": "key:deg", "rows": 2, "cols": 2,
            "num_arcs": 0, "weighted": false, "bytes_on_disk": 8192
        });
        let r: LayoutRecord = serde_json::from_value(key).unwrap();
        assert_eq!(r.grid().unwrap().sort, GridSort::Key("deg".into()));
        let json = serde_json::to_value(shards()).unwrap();
        assert_eq!(
            json,
            serde_json::json!({
                "kind": "shards", "name": "shards-3", "num_shards": 3, "block_bytes": 1048576,
                "num_arcs": 9932, "bytes_on_disk": 86016
            })
        );
        let back: LayoutRecord = serde_json::from_value(json).unwrap();
        assert_eq!(back, shards());
        assert_eq!(back.shards().map(|r| r.num_shards), Some(3));
        assert_eq!((back.grid(), back.basc()), (None, None));
        assert_eq!(back.kind().to_string(), "shards");
        assert_eq!(back.kind().made_by(), "diskgraph partition --shards");
    }

    #[test]
    fn malformed_records_are_refused() {
        let mut extra = serde_json::to_value(grid()).unwrap();
        extra["pages"] = 3.into();
        let mut missing = serde_json::to_value(basc()).unwrap();
        missing.as_object_mut().unwrap().remove("method");
        let mut kind = serde_json::to_value(basc()).unwrap();
        kind["kind"] = "vshards".into();
        let mut sort = serde_json::to_value(grid()).unwrap();
        sort["sort"] = "sideways".into();
        for (bad, says) in [
            (extra, "pages"),
            (missing, "method"),
            (kind, "vshards"),
            (sort, "sideways"),
        ] {
            let err = serde_json::from_value::<LayoutRecord>(bad).unwrap_err().to_string();
            assert!(err.contains(says), "{says}: {err}");
        }
    }

    #[test]
    fn the_first_difference_names_the_field() {
        assert_eq!(grid().first_difference(&grid()), None);
        let mut other = grid();
        if let LayoutRecord::Grid(g) = &mut other {
            g.rows = 8;
        }
        assert_eq!(
            grid().first_difference(&other),
            Some(("rows".into(), "4".into(), "8".into()))
        );
        assert_eq!(
            grid().first_difference(&basc()),
            Some(("kind".into(), "grid".into(), "basc".into()))
        );
        assert_eq!(basc().kind().made_by(), "diskgraph select");
        let mut other = shards();
        if let LayoutRecord::Shards(r) = &mut other {
            r.block_bytes = 4096;
        }
        assert_eq!(
            shards().first_difference(&other),
            Some(("block_bytes".into(), "1048576".into(), "4096".into()))
        );
    }
}
