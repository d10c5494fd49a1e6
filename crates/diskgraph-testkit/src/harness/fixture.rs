//! Test graphs as real graph directories: an [`EdgeList`] imported through the importer under
//! one of several [`Naming`]s (dense IDs, sparse ones, IDs of 2⁶³ and more, or a reordered copy),
//! with the derived layouts the engines read: grid layouts for the stream engine, shards layouts
//! for the shard engine and a BAsC selection for the selective engine's static cache.

use std::path::{Path, PathBuf};

use diskgraph_format::{
    compress, compressed_layout_name, plan_shards, Codec, GraphDir, GridSort, ListEncoding, ShardPlan, ShardRequest,
};
use diskgraph_prep::parse::{open_input, ParseOptions};
use diskgraph_prep::reorder::Method as Ordering;
use diskgraph_prep::select::{select_graph, SelectMethod, SelectOptions};
use diskgraph_prep::{
    import, partition, partition_shards, reorder, ImportOptions, InputFormat, InputInfo, NoProgress, PartitionOptions,
    RawEdge, ReorderOptions, ShardOptions, SortOrder,
};

use crate::{EdgeList, Keep, TestGraph, VecSource};

/// How the vertices of a generated test graph are named in the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Naming {
    /// `0..n`: internal IDs are the original ones, and no `ids.u64` is stored.
    Dense,
    /// Sparse IDs `3 + 7919 v`.
    Sparse,
    /// IDs from 2⁶³ up, which no signed 64-bit integer holds.
    Huge,
    /// `0..n`, then the graph relabelled at random (`diskgraph reorder --method random`): its
    /// internal order is not its ID order.
    Reordered,
}

impl Naming {
    /// The original ID of test vertex `v` (increasing in `v`).
    fn id(self, v: u32) -> u64 {
        match self {
            Naming::Dense | Naming::Reordered => u64::from(v),
            Naming::Sparse => 3 + 7919 * u64::from(v),
            Naming::Huge => (1 << 63) + 1_000_003 * u64::from(v),
        }
    }
}

/// A test graph: its edges over test vertices `0..n`, what the import keeps, the original ID of
/// each test vertex (ascending), and whether the stored graph is relabelled.
#[derive(Clone, Debug)]
pub struct Case {
    /// A name for messages.
    pub name: String,
    /// The edges.
    pub edges: EdgeList,
    /// What the import keeps.
    pub keep: Keep,
    /// The original ID of each test vertex, ascending.
    pub ids: Vec<u64>,
    /// Whether the stored graph is relabelled at random after the import.
    pub reordered: bool,
    /// How the import stores the lists (plain, or compressed-only).
    pub lists: ListEncoding,
}

impl Case {
    /// A case of `edges` keeping `keep`, with dense IDs.
    pub fn new(name: impl Into<String>, edges: EdgeList, keep: Keep) -> Case {
        let ids = (0..edges.num_vertices as u64).collect();
        Case {
            name: name.into(),
            edges,
            keep,
            ids,
            reordered: false,
            lists: ListEncoding::Plain,
        }
    }

    /// The same case imported compressed-only with `codec` (no plain lists: every reader
    /// decodes them).
    ///
    /// # Panics
    /// On a reordered case: reordering writes plain lists.
    pub fn compressed_only(mut self, codec: Codec) -> Case {
        assert!(!self.reordered, "a reordered case is stored plain");
        self.name = format!("{} [compressed-only {codec}]", self.name);
        self.lists = ListEncoding::Compressed(codec);
        self
    }

    /// The same case named otherwise.
    pub fn named(mut self, naming: Naming) -> Case {
        self.name = format!("{} [{naming:?} IDs]", self.name);
        self.ids = (0..self.edges.num_vertices as u32).map(|v| naming.id(v)).collect();
        self.reordered = naming == Naming::Reordered;
        self
    }

    /// A real input file (any format the importer reads, detected), as the command line
    /// imports it: self-loops dropped, duplicates merged, undirected if `undirected`.
    ///
    /// # Panics
    /// If the file cannot be read.
    pub fn from_file(path: &Path, undirected: bool) -> Case {
        let (mut src, _) =
            open_input(path, &ParseOptions::default()).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let info = src.info().clone();
        let mut raw = Vec::new();
        let mut batch = Vec::new();
        let mut extra = Vec::new();
        while src
            .next_batch(&mut batch)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        {
            raw.append(&mut batch);
            extra.extend(src.extra_vertices());
        }
        extra.extend(src.extra_vertices());
        let mut ids: Vec<u64> = raw.iter().flat_map(|e| [e.src, e.dst]).chain(extra).collect();
        if let Some(declared) = &info.declared_vertices {
            ids.extend(declared.clone());
        }
        ids.sort_unstable();
        ids.dedup();
        let vertex = |id: u64| ids.binary_search(&id).expect("an endpoint") as u32;
        let edges = EdgeList {
            num_vertices: ids.len(),
            directed: info.directed.unwrap_or(true) && !undirected,
            edges: raw.iter().map(|e| (vertex(e.src), vertex(e.dst))).collect(),
            weights: info
                .weighted
                .then(|| raw.iter().map(|e| e.weight.expect("a weighted input")).collect()),
        };
        let name = path
            .file_name()
            .map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into());
        Case {
            name,
            edges,
            keep: Keep::default(),
            ids,
            reordered: false,
            lists: ListEncoding::Plain,
        }
    }
}

/// A [`Case`] written as a graph directory, with its layouts.
pub struct Fixture {
    _dir: tempfile::TempDir,
    /// The case's name.
    pub name: String,
    /// The graph directory, opened.
    pub graph: GraphDir,
    /// The graph as stored, in test-vertex IDs (what the oracles read).
    pub test: TestGraph,
    /// The original ID of each test vertex, ascending.
    pub ids: Vec<u64>,
    /// Whether the stored graph is relabelled, so that its internal order is not its ID order.
    pub reordered: bool,
    /// The grid layouts made (name, sort).
    pub layouts: Vec<(String, GridSort)>,
    /// The BAsC selection made (`gvs`), when the graph has arcs.
    pub selection: Option<String>,
    /// The shards layouts made, fewest shards first.
    pub shard_layouts: Vec<String>,
    /// The codecs of the compressed layouts made (every codec: runs read the first by default).
    pub codecs: Vec<Codec>,
}

impl Fixture {
    /// Writes `case` as a graph directory with grid layouts of each sort, shard layouts (plain
    /// and compressed), a GVS selection and a compressed layout of every codec.
    ///
    /// # Panics
    /// If the importer, the reordering, the partitioning or the selection fails.
    pub fn new(case: &Case) -> Fixture {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let imported = dir.path().join("imported");
        store(case, &imported);
        let path = match case.reordered {
            true => {
                let out = dir.path().join("reordered");
                let opts = ReorderOptions {
                    method: Ordering::Random,
                    window: None,
                    page_bytes: None,
                    seed: Some(7),
                    memory: 64 << 20,
                    force: false,
                    checkpoint: None,
                };
                reorder(&imported, &out, &opts, &mut NoProgress)
                    .unwrap_or_else(|e| panic!("reorder {}: {e:#}", case.name));
                out
            }
            false => imported,
        };
        // Few ranges (blocks larger than a load) and many (16 columns: passes run column by
        // column, and destination-sorted ones gather each destination's sum); compressed blocks
        // of each order, none of the same shape as a plain layout (so the defaults stay plain).
        let vbyte = Some(Codec::Vbyte);
        let layouts = [
            (2, SortOrder::Grid, None),
            (3, SortOrder::Source, None),
            (2, SortOrder::Destination, None),
            (16, SortOrder::Grid, None),
            (16, SortOrder::Destination, None),
            (16, SortOrder::Grid, vbyte),
            (4, SortOrder::Source, vbyte),
            (16, SortOrder::Destination, vbyte),
        ]
        .into_iter()
        .map(|(p, sort, packed)| {
            let opts = PartitionOptions {
                grid: Some(p),
                memory: 1 << 20,
                force: false,
                compress: packed,
            };
            let s = partition(&path, sort, &opts, &mut NoProgress)
                .unwrap_or_else(|e| panic!("partition {} P={p} {sort:?}: {e:#}", case.name));
            (s.name, sort.grid_sort())
        })
        .collect();
        // One shard (the whole graph an interval), three, eight, and the count `--shards auto`
        // plans for a tight budget (twice the least a layout needs: the count that needs
        // least); small blocks, so that intervals span many. Compressed windows of three shards
        // and of the planned count (each codec once).
        let tight = |compressed: bool| {
            let graph = GraphDir::open(&path).unwrap_or_else(|e| panic!("open {}: {e}", case.name));
            let request = ShardRequest {
                memory: 0,
                shards: None,
                block_bytes: Some(4096),
                compressed,
            };
            match plan_shards(&graph, &request, 1 << 16) {
                Ok(ShardPlan::TooSmall { least }) => 2 * least.minimum,
                other => panic!("plan shards of {}: {other:?}", case.name),
            }
        };
        let zeta = Some(Codec::Zeta);
        let mut shard_layouts: Vec<(u32, String)> = [
            (Some(1), None),
            (Some(3), None),
            (Some(8), None),
            (None, None),
            (Some(3), vbyte),
            (None, zeta),
        ]
        .into_iter()
        .map(|(shards, compress)| {
            let opts = ShardOptions {
                shards,
                memory: match shards {
                    Some(_) => 1 << 20,
                    None => tight(compress.is_some()),
                },
                block_bytes: Some(4096),
                force: true,
                compress,
            };
            let s = partition_shards(&path, &opts, &mut NoProgress)
                .unwrap_or_else(|e| panic!("partition {} into {shards:?} shards: {e:#}", case.name));
            (s.num_shards, s.name)
        })
        .collect();
        shard_layouts.sort();
        shard_layouts.dedup();
        let test = case.edges.build(case.keep);
        let selection = (!test.arcs.is_empty()).then(|| {
            let opts = SelectOptions {
                method: SelectMethod::Gvs { rounds: 3 },
                // A quarter of the out-lists' bytes.
                budget_bytes: (test.arcs.len() as u64).max(64),
                page_bytes: 4096,
                name: Some("gvs".into()),
                force: false,
            };
            select_graph(&path, &opts, &mut diskgraph_prep::NoProgress)
                .unwrap_or_else(|e| panic!("select {}: {e:#}", case.name));
            "gvs".to_string()
        });
        // Every codec: runs read the first by default (`--adjacency auto`), the others and the
        // plain lists when the harness varies `--adjacency`.
        // A compressed-only graph holds the lists of its codec already: the others only.
        let codecs = Codec::ALL.to_vec();
        for &codec in &codecs {
            let graph = GraphDir::open(&path).unwrap_or_else(|e| panic!("open {}: {e}", case.name));
            if graph.layout(&compressed_layout_name(codec)).is_none() {
                compress(&graph, codec, false).unwrap_or_else(|e| panic!("compress {} with {codec}: {e}", case.name));
            }
        }
        let graph = GraphDir::open(&path).unwrap_or_else(|e| panic!("open {}: {e}", case.name));
        Fixture {
            _dir: dir,
            name: case.name.clone(),
            graph,
            test,
            ids: case.ids.clone(),
            reordered: case.reordered,
            layouts,
            selection,
            shard_layouts: shard_layouts.into_iter().map(|(_, name)| name).collect(),
            codecs,
        }
    }

    /// The original ID of test vertex `v`.
    pub fn id(&self, v: u32) -> u64 {
        self.ids[v as usize]
    }

    /// The test vertex of original ID `id`, if it is one.
    pub fn vertex(&self, id: u64) -> Option<u32> {
        self.ids.binary_search(&id).ok().map(|v| v as u32)
    }

    /// The graph directory's path.
    pub fn path(&self) -> &Path {
        self.graph.path()
    }
}

/// Imports `case` to `path` (a graph directory without derived layouts), and checks the
/// importer stored what the testkit builds.
///
/// # Panics
/// If the import fails or stored something else.
pub fn store(case: &Case, path: &PathBuf) {
    let el = &case.edges;
    let name = |v: u32| case.ids[v as usize];
    let info = InputInfo {
        format: InputFormat::Generated,
        directed: Some(el.directed),
        weighted: el.weights.is_some(),
        declared_vertices: None,
        description: case.name.clone(),
    };
    let edges = el
        .edges
        .iter()
        .enumerate()
        .map(|(i, &(s, d))| RawEdge {
            src: name(s),
            dst: name(d),
            weight: el.weights.as_ref().map(|w| w[i]),
        })
        .collect();
    let mut src = VecSource::new(info, edges).with_vertices(case.ids.clone());
    let opts = ImportOptions {
        undirected: !el.directed,
        keep_self_loops: case.keep.self_loops,
        keep_duplicates: case.keep.duplicates,
        memory: 64 << 20,
        force: false,
        encoding: case.lists,
    };
    import(&mut src, path, &opts, &mut NoProgress).unwrap_or_else(|e| panic!("import {}: {e:#}", case.name));
    let stored = GraphDir::open(path).unwrap_or_else(|e| panic!("open {}: {e}", case.name));
    assert_eq!(
        stored.has_plain_lists(),
        case.lists.plain(),
        "{}: the lists are not stored as asked",
        case.name
    );
    let model = el.build(case.keep).memory_graph(true);
    let loaded = diskgraph_engine::MemoryGraph::load(&stored, true, true).expect("a stored graph loads");
    // Test vertex `v` is internal vertex `v`: the IDs ascend.
    assert_eq!(
        loaded.out(),
        model.out(),
        "{}: the importer and the testkit disagree",
        case.name
    );
    assert_eq!(
        loaded.inn(),
        model.inn(),
        "{}: the importer and the testkit disagree (in)",
        case.name
    );
}
