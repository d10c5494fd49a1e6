//! The engine tests' graphs and settings: testkit edge lists written as graph directories by the
//! importer (the harness's [`Fixture`]), more grid layouts of them, the I/O configurations,
//! opening the engines, and the lists a round delivers beside the lists the testkit stores.
#![allow(dead_code)]

pub mod shards;

use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
use std::sync::Mutex;

use diskgraph_engine::selective::{
    BackendKind, EdgeFn, EdgeMapOptions, IoConfig, IoContext, SchedulerKind, SelectiveGraph, SelectiveOptions,
    VertexSubset,
};
use diskgraph_engine::stream::{StreamGraph, StreamOptions, VertexStateKind};
use diskgraph_engine::sync::{AheadQueue, Reads, SyncGraph};
use diskgraph_engine::{Engine, EngineError, RunStats};
use diskgraph_format::{layout_name, Codec, Direction, GraphDir};
use diskgraph_prep::{NoProgress, PartitionOptions, SortOrder};
use diskgraph_testkit::harness::{Case, Fixture};
use diskgraph_testkit::{gen, EdgeList, Keep, TestGraph};

/// `el` imported keeping what `keep` says, with dense IDs (internal IDs are the edge list's).
pub fn fixture(name: &str, el: EdgeList, keep: Keep) -> Fixture {
    Fixture::new(&Case::new(name, el, keep))
}

/// A weighted directed multigraph of 300 vertices with self-loops and duplicate edges kept.
pub fn weighted_multigraph() -> Fixture {
    let el = gen::add_duplicates(gen::add_self_loops(gen::gnm(300, 1500, true, 1), 61, 1), 300, 1);
    let el = gen::with_weights(el, gen::Weights::Integer(4), 1);
    fixture("weighted directed multigraph with self-loops", el, Keep::all())
}

/// Publishes the `sort` layout with `p` ranges of `f`'s graph (a small budget, so partitioning
/// streams), unless the fixture has it already, and returns the reopened graph and the layout's
/// name.
pub fn partitioned(f: &Fixture, p: u32, sort: SortOrder) -> (GraphDir, String) {
    partitioned_coded(f, p, sort, None)
}

/// [`partitioned`], the blocks compressed with `compress` (if any).
pub fn partitioned_coded(f: &Fixture, p: u32, sort: SortOrder, compress: Option<Codec>) -> (GraphDir, String) {
    let name = layout_name(&sort.grid_sort(), p, compress);
    if f.layouts.iter().any(|(made, _)| *made == name) {
        return (reopened(f), name);
    }
    let opts = PartitionOptions {
        grid: Some(p),
        memory: 1 << 20,
        force: false,
        compress,
    };
    let summary = diskgraph_prep::partition(f.path(), sort, &opts, &mut NoProgress)
        .unwrap_or_else(|e| panic!("partition {} P={p} {sort:?}: {e:#}", f.name));
    (reopened(f), summary.name)
}

/// `f`'s graph opened again (after a layout was added).
pub fn reopened(f: &Fixture) -> GraphDir {
    GraphDir::open(f.path()).unwrap_or_else(|e| panic!("open {}: {e}", f.name))
}

/// The counters and settings `g` records.
pub fn stats(g: &impl Engine) -> RunStats {
    let mut stats = RunStats::default();
    g.record(&mut stats);
    stats
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

/// One I/O configuration under test.
#[derive(Clone, Debug)]
pub struct Config {
    /// E.g. `pread/bitmap/512`.
    pub name: String,
    /// The settings.
    pub io: IoConfig,
}

/// Every backend × both schedulers × blocks of 512 and 4096 bytes, minus the backends this
/// machine cannot run (each skip is printed, with the reason). A backend that opens but falls
/// back to another is kept and named `wanted (fell back to used)`.
pub fn io_configs() -> Vec<Config> {
    let mut out = Vec::new();
    for backend in [BackendKind::Uring, BackendKind::Pread, BackendKind::Mmap] {
        for scheduler in [SchedulerKind::Bitmap, SchedulerKind::Pluglist] {
            for block in [512, 4096] {
                let io = io(backend, scheduler, block);
                let name = format!("{backend:?}/{scheduler:?}/{block}").to_lowercase();
                let probe = IoConfig {
                    buffer_bytes: 1 << 20,
                    ..io.clone()
                };
                match IoContext::new(probe) {
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

/// pread, bitmap scheduler, blocks of 512 bytes: the configuration every machine runs.
pub fn pread() -> IoConfig {
    io(BackendKind::Pread, SchedulerKind::Bitmap, 512)
}

/// Opens `g` on the selective engine with weights, list assembly and three partitions;
/// `need_in` opens the in-edges of a directed graph.
pub fn open_selective(g: &GraphDir, io: &IoConfig, memory: u64, need_in: bool) -> SelectiveGraph {
    let opts = SelectiveOptions {
        io: io.clone(),
        memory,
        need_in,
        need_weights: true,
        assemble_lists: true,
        partitions: Some(3),
        ..SelectiveOptions::default()
    };
    SelectiveGraph::open(g, &opts).unwrap_or_else(|e| panic!("open {}: {e}", g.path().display()))
}

/// Opens `layout` of `g` on the stream engine, reading its weights.
pub fn open_stream(g: &GraphDir, layout: &str, mrt: u32, state: VertexStateKind, memory: u64) -> StreamGraph {
    let opts = StreamOptions {
        memory,
        mrt,
        vertex_state: state,
        weights: true,
        ..StreamOptions::default()
    };
    StreamGraph::open(g, layout, &opts).unwrap_or_else(|e| panic!("open {layout} of {}: {e}", g.path().display()))
}

/// Each vertex's list: (neighbour, weight) pairs, weights 1 where none are read.
pub type Lists = Vec<Vec<(u32, f32)>>;

/// The lists of direction `d` of the vertices in `active` as the testkit stores them (empty for
/// the others), with their weights when `weights`.
pub fn stored_lists(t: &TestGraph, d: Direction, active: &VertexSubset, weights: bool) -> Lists {
    let m = t.memory_graph(true);
    let csr = m.csr(d);
    (0..t.num_vertices as u32)
        .map(|v| match active.contains(v) {
            false => Vec::new(),
            true => {
                let w = csr.edge_weights(v).filter(|_| weights);
                let weight = |k: usize| w.map_or(1.0, |w| w[k]);
                csr.neighbours(v)
                    .iter()
                    .enumerate()
                    .map(|(k, &u)| (u, weight(k)))
                    .collect()
            }
        })
        .collect()
}

/// The lists of direction `d` of the vertices in `active` as one round of `g` delivers them:
/// each piece put in its place, with its weights when `weights`.
///
/// # Panics
/// If a piece's degree is not its list's, or a piece delivers a place another already did.
pub fn lists_read(
    g: &SelectiveGraph,
    d: Direction,
    active: &VertexSubset,
    weights: bool,
) -> Result<Lists, EngineError> {
    const UNDELIVERED: (u32, f32) = (u32::MAX, f32::NAN);
    let lists: Vec<Mutex<Vec<(u32, f32)>>> = (0..g.num_vertices()).map(|_| Mutex::new(Vec::new())).collect();
    g.for_each_piece(d, active, weights, |v, piece| {
        let mut list = lists[v as usize].lock().unwrap();
        if list.is_empty() {
            list.resize(piece.degree as usize, UNDELIVERED);
        }
        assert_eq!(
            list.len() as u64,
            piece.degree,
            "vertex {v}: pieces of lists of two lengths"
        );
        for (k, &u) in piece.targets.iter().enumerate() {
            let place = &mut list[piece.start as usize + k];
            assert_eq!(
                place.0,
                UNDELIVERED.0,
                "vertex {v}: edge {} delivered twice",
                piece.start as usize + k
            );
            *place = (u, piece.weight(k));
        }
    })?;
    Ok(lists.into_iter().map(|l| l.into_inner().unwrap()).collect())
}

/// Claims unvisited heads for the next level.
struct Claim<'a> {
    level: &'a [AtomicU32],
    next: u32,
}

impl EdgeFn for Claim<'_> {
    fn cond(&self, d: u32) -> bool {
        self.level[d as usize].load(Relaxed) == u32::MAX
    }

    fn update(&self, _s: u32, d: u32, _w: f32) -> bool {
        let level = &self.level[d as usize];
        level.compare_exchange(u32::MAX, self.next, Relaxed, Relaxed).is_ok()
    }
}

/// Hop levels from `source` by one edge_map per level, pulling head first where the engine
/// chooses to pull (as a traversal reads); -1 unreached.
pub fn levels_by_edge_map(g: &SelectiveGraph, source: u32) -> Vec<i64> {
    let n = g.num_vertices();
    let level: Vec<AtomicU32> = (0..n as u32)
        .map(|v| AtomicU32::new(if v == source { 0 } else { u32::MAX }))
        .collect();
    let mut frontier = VertexSubset::single(n, source);
    let mut depth = 0;
    while !frontier.is_empty() {
        depth += 1;
        let claim = Claim {
            level: &level,
            next: depth,
        };
        frontier = g
            .edge_map(&frontier, &claim, &EdgeMapOptions::along(Direction::Out).head_first())
            .unwrap();
    }
    level
        .into_iter()
        .map(|l| match l.into_inner() {
            u32::MAX => -1,
            l => i64::from(l),
        })
        .collect()
}

/// BFS levels through an [`AheadQueue`].
pub fn sync_bfs(g: &SyncGraph, source: u32) -> Vec<i64> {
    let n = g.num_vertices();
    let mut level = vec![-1i64; n];
    let mut q = AheadQueue::new(g, n, Reads::out(1));
    let mut r = g.reader();
    level[source as usize] = 0;
    q.push(source);
    while let Some(v) = q.pop() {
        for &x in r.neighbours(Direction::Out, v).unwrap() {
            if level[x as usize] < 0 {
                level[x as usize] = level[v as usize] + 1;
                q.push(x);
            }
        }
    }
    level
}
