//! Helpers of the selective-engine tests: real graph directories from testkit edge lists (through
//! the importer), the I/O configurations to test, and opening a graph on the selective engine.
#![allow(dead_code)]

use std::path::Path;

use diskgraph_engine::selective::{BackendKind, IoConfig, IoContext, SchedulerKind, SelectiveGraph, SelectiveOptions};
use diskgraph_format::GraphDir;
use diskgraph_prep::{import, EdgeSource, ImportOptions, InputError, InputFormat, InputInfo, NoProgress, RawEdge};
use diskgraph_testkit::{EdgeList, Keep, TestGraph};

/// The real datasets shipped in `testdata/real`.
pub const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/real");

/// An in-memory edge source handing out fixed-size batches.
struct VecSource {
    info: InputInfo,
    edges: Vec<RawEdge>,
    pos: usize,
}

impl EdgeSource for VecSource {
    fn info(&self) -> &InputInfo {
        &self.info
    }
    fn next_batch(&mut self, out: &mut Vec<RawEdge>) -> Result<bool, InputError> {
        out.clear();
        let end = (self.pos + 1000).min(self.edges.len());
        out.extend_from_slice(&self.edges[self.pos..end]);
        self.pos = end;
        Ok(!out.is_empty())
    }
    fn progress(&self) -> (u64, Option<u64>) {
        (self.pos as u64, Some(self.edges.len() as u64))
    }
}

/// A graph written as a real graph directory, with the testkit's model of it.
pub struct Stored {
    _dir: tempfile::TempDir,
    /// The opened directory.
    pub graph: GraphDir,
    /// The stored arcs as the testkit builds them (the oracles read these).
    pub test: TestGraph,
    /// A name for messages.
    pub name: String,
}

/// Imports `el` (vertices `0..n`, so internal IDs are the edge list's) keeping what `keep`
/// says, and checks the importer stored what the testkit expects.
pub fn store(name: &str, el: &EdgeList, keep: Keep) -> Stored {
    store_with_ids(name, el, keep, u64::from)
}

/// [`store`] with vertex `v` named `id(v)` in the input (an increasing map keeps internal IDs
/// equal to `v`; the graph then has `ids.u64`).
pub fn store_with_ids(name: &str, el: &EdgeList, keep: Keep, id: impl Fn(u32) -> u64) -> Stored {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g");
    let n = el.num_vertices as u32;
    let identity = (0..n).all(|v| id(v) == u64::from(v));
    let mut src = VecSource {
        info: InputInfo {
            format: InputFormat::Generated,
            directed: Some(el.directed),
            weighted: el.weights.is_some(),
            declared_vertices: identity.then(|| 0..u64::from(n)),
            description: name.to_string(),
        },
        edges: el
            .edges
            .iter()
            .enumerate()
            .map(|(i, &(s, d))| RawEdge {
                src: id(s),
                dst: id(d),
                weight: el.weights.as_ref().map(|w| w[i]),
            })
            .collect(),
        pos: 0,
    };
    let opts = ImportOptions {
        undirected: !el.directed,
        keep_self_loops: keep.self_loops,
        keep_duplicates: keep.duplicates,
        memory: 64 << 20,
        force: false,
    };
    import(&mut src, &path, &opts, &mut NoProgress).unwrap_or_else(|e| panic!("import {name}: {e:#}"));
    let graph = GraphDir::open(&path).unwrap();
    let test = el.build(keep);
    if identity {
        let stored = diskgraph_engine::MemoryGraph::load(&graph, true, true).unwrap();
        let model = test.memory_graph(true);
        assert_eq!(stored.out(), model.out(), "{name}: importer and testkit disagree");
        assert_eq!(stored.inn(), model.inn(), "{name}: importer and testkit disagree (in)");
    }
    Stored {
        _dir: dir,
        graph,
        test,
        name: name.to_string(),
    }
}

/// One I/O configuration under test.
#[derive(Clone, Debug)]
pub struct Config {
    /// E.g. `pread/bitmap/512`.
    pub name: String,
    /// The settings.
    pub io: IoConfig,
}

/// I/O settings: `backend`, `scheduler`, `block` bytes; reads of at most four blocks (so lists
/// span reads often), gaps of up to 2 blocks merged, two compute workers.
pub fn io(backend: BackendKind, scheduler: SchedulerKind, block: u32) -> IoConfig {
    IoConfig {
        backend: Some(backend),
        scheduler,
        block_size: block,
        max_request_bytes: 4 * block,
        max_gap_blocks: 2,
        queue_depth: 8,
        io_threads: 1,
        compute_threads: 2,
        ..IoConfig::default()
    }
}

/// Every backend the I/O crate offers × both schedulers × blocks of 512 and 4096 bytes, minus
/// the backends this machine cannot run (each skip is printed, with the reason). A backend that
/// opens but falls back to another is kept and named `wanted->used`.
pub fn configs() -> Vec<Config> {
    let mut out = Vec::new();
    for backend in [BackendKind::Uring, BackendKind::Pread, BackendKind::Mmap] {
        for scheduler in [SchedulerKind::Bitmap, SchedulerKind::Pluglist] {
            for block in [512, 4096] {
                let io = io(backend, scheduler, block);
                let name = format!("{backend:?}/{scheduler:?}/{block}").to_lowercase();
                match IoContext::new(IoConfig {
                    buffer_bytes: 1 << 20,
                    ..io.clone()
                }) {
                    Ok(ctx) if ctx.backend() != backend => out.push(Config {
                        name: format!("{name} (fell back to {:?})", ctx.backend()).to_lowercase(),
                        io,
                    }),
                    Ok(_) => out.push(Config { name, io }),
                    Err(e) => eprintln!("SKIPPED {name}: this machine cannot run it: {e}"),
                }
            }
        }
    }
    assert!(
        out.iter().any(|c| c.io.backend == Some(BackendKind::Pread)),
        "the pread backend must always work"
    );
    out
}

/// Three of [`configs`]: pread/bitmap/512, uring/pluglist/4096 and mmap/bitmap/4096 (those this
/// machine runs).
pub fn few_configs() -> Vec<Config> {
    let picks: Vec<Config> = configs()
        .into_iter()
        .filter(|c| {
            matches!(
                (c.io.backend.unwrap(), c.io.scheduler, c.io.block_size),
                (BackendKind::Pread, SchedulerKind::Bitmap, 512)
                    | (BackendKind::Uring, SchedulerKind::Pluglist, 4096)
                    | (BackendKind::Mmap, SchedulerKind::Bitmap, 4096)
            )
        })
        .collect();
    assert!(!picks.is_empty());
    picks
}

/// Opens `s` on the selective engine with everything (in-edges, weights, list assembly).
pub fn open(s: &Stored, io: &IoConfig, memory: u64) -> SelectiveGraph {
    open_with(&s.graph, io, memory, true)
}

/// Opens `g` on the selective engine; `need_in` opens the in-edges of a directed graph.
pub fn open_with(g: &GraphDir, io: &IoConfig, memory: u64, need_in: bool) -> SelectiveGraph {
    let opts = SelectiveOptions {
        io: io.clone(),
        memory,
        need_in,
        need_weights: true,
        assemble_lists: true,
        partitions: Some(3),
        retain_lists: true,
        basc: None,
        page_cache: None,
        index: None,
    };
    SelectiveGraph::open(g, &opts).unwrap_or_else(|e| panic!("open {}: {e}", g.path().display()))
}

/// Imports one of the shared real datasets into a temporary directory.
pub fn import_real(file: &str) -> (tempfile::TempDir, GraphDir) {
    use diskgraph_prep::parse::{open_input, ParseOptions};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g");
    let (mut src, _) = open_input(&Path::new(DATA).join(file), &ParseOptions::default()).unwrap();
    let opts = ImportOptions {
        memory: 64 << 20,
        ..ImportOptions::default()
    };
    import(src.as_mut(), &path, &opts, &mut NoProgress).unwrap();
    let g = GraphDir::open(&path).unwrap();
    (dir, g)
}

/// Publishes the `sort` layout with `p` ranges in `s`'s graph (a small budget, so partitioning
/// streams) and returns the reopened graph and the layout's name.
pub fn partitioned(s: &Stored, p: u32, sort: diskgraph_prep::SortOrder) -> (GraphDir, String) {
    let opts = diskgraph_prep::PartitionOptions {
        grid: Some(p),
        memory: 1 << 20,
        force: false,
    };
    let summary = diskgraph_prep::partition(s.graph.path(), sort, &opts, &mut NoProgress)
        .unwrap_or_else(|e| panic!("partition {} P={p} {sort:?}: {e:#}", s.name));
    (GraphDir::open(s.graph.path()).unwrap(), summary.name)
}

/// Opens `layout` of `g` on the stream engine (weights read when the layout has them).
pub fn open_stream(
    g: &GraphDir,
    layout: &str,
    mrt: u32,
    state: diskgraph_engine::stream::VertexStateKind,
    memory: u64,
) -> diskgraph_engine::stream::StreamGraph {
    let opts = diskgraph_engine::stream::StreamOptions {
        memory,
        mrt,
        vertex_state: state,
        weights: true,
        ..Default::default()
    };
    diskgraph_engine::stream::StreamGraph::open(g, layout, &opts)
        .unwrap_or_else(|e| panic!("open {layout} of {}: {e}", g.path().display()))
}

/// `el` with `n / 5 + 1` self-loops and `n` duplicate edges added (seeded): the nasty multigraph
/// cases of the engine matrices.
pub fn with_loops_and_duplicates(el: EdgeList, n: usize, seed: u64) -> EdgeList {
    use diskgraph_testkit::gen;
    gen::add_duplicates(gen::add_self_loops(el, n / 5 + 1, seed), n, seed)
}
