//! The shard engine tests' programs and layouts: [`Stamps`] checks every edge an update sees,
//! [`Accumulate`] is order-sensitive, and the graphs, layouts and options they run on.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;

use diskgraph_engine::shards::{Program, ProgramNeeds, ShardGraph, ShardOptions, Update};
use diskgraph_engine::Engine;
use diskgraph_format::{Codec, GraphDir};
use diskgraph_prep::NoProgress;
use diskgraph_testkit::harness::Fixture;
use diskgraph_testkit::{gen, EdgeList, Keep, TestGraph};

use super::{reopened, stats};

/// Writes `v + i + 1` on every out-edge in iteration `i` and checks every edge it sees.
pub struct Stamps<'t> {
    pub test: &'t TestGraph,
    pub checked: AtomicU64,
    pub wrong: Mutex<Vec<String>>,
}

impl<'t> Stamps<'t> {
    pub fn new(test: &'t TestGraph) -> Self {
        Stamps {
            test,
            checked: AtomicU64::new(0),
            wrong: Mutex::new(Vec::new()),
        }
    }

    /// Asserts nothing was wrong and `checked` edges were checked.
    pub fn assert_clean(self, what: &str, checked: u64) {
        let wrong = self.wrong.into_inner().unwrap();
        assert!(wrong.is_empty(), "{what}: {wrong:#?}");
        assert_eq!(self.checked.into_inner(), checked, "{what}");
    }

    pub fn complain(&self, what: String) {
        let mut w = self.wrong.lock().unwrap();
        if w.len() < 5 {
            w.push(what);
        }
    }

    /// What an edge from `s` shows `v` in iteration `i` before `v` writes.
    pub fn want(s: u32, v: u32, i: u32) -> u32 {
        match (s < v, i) {
            (true, _) => s + i + 1,
            (false, 0) => 0,
            (false, _) => s + i,
        }
    }
}

impl Program for Stamps<'_> {
    type Value = u32;

    fn needs(&self) -> ProgramNeeds {
        ProgramNeeds {
            in_sources: true,
            out_targets: true,
            edge_values: true,
            out_edges: true,
        }
    }

    fn update(&self, u: Update<'_, u32>) {
        let (v, i) = (u.vertex, u.iteration);
        let sources: Vec<u32> = (0..u.in_edges.len()).map(|k| u.in_edges.source(k)).collect();
        let targets: Vec<u32> = u.out_edges.targets().collect();
        let (want_in, want_out) = lists(self.test, v);
        if sources != want_in || targets != want_out {
            self.complain(format!(
                "vertex {v}: in {sources:?} out {targets:?}, stored in {want_in:?} out {want_out:?}"
            ));
        }
        for (k, &s) in sources.iter().enumerate() {
            let got = u.in_edges.get(k);
            if got != Stamps::want(s, v, i) {
                self.complain(format!(
                    "iteration {i}: vertex {v} sees {got} on its in-edge from {s}, wants {}",
                    Stamps::want(s, v, i)
                ));
            }
        }
        for k in 0..u.out_edges.len() {
            let got = u.out_edges.get(k);
            let want = if i == 0 { 0 } else { v + i };
            if got != want {
                self.complain(format!(
                    "iteration {i}: vertex {v} sees {got} on its out-edge {k}, wants {want}"
                ));
            }
        }
        self.checked.fetch_add((sources.len() + targets.len()) as u64, Relaxed);
        u.out_edges.fill(v + i + 1);
        *u.value += 1;
    }

    fn after_iteration(&mut self, _iteration: u32, _values: &mut [u32]) -> bool {
        true
    }
}

/// `v`'s stored in-list (sources ascending) and out-list (targets ascending).
pub fn lists(t: &TestGraph, v: u32) -> (Vec<u32>, Vec<u32>) {
    let mut inn: Vec<u32> = t.arcs.iter().filter(|a| a.1 == v).map(|a| a.0).collect();
    let mut out: Vec<u32> = t.arcs.iter().filter(|a| a.0 == v).map(|a| a.1).collect();
    inn.sort_unstable();
    out.sort_unstable();
    (inn, out)
}

pub fn graphs() -> Vec<(&'static str, EdgeList, Keep)> {
    vec![
        (
            "directed multigraph with self-loops, a hub and isolated vertices",
            gen::add_isolated(
                gen::add_duplicates(
                    gen::add_self_loops(
                        gen::union(gen::gnm(400, 2400, true, 5), gen::star(400, 3, true, 5)),
                        40,
                        5,
                    ),
                    200,
                    5,
                ),
                7,
            ),
            Keep::all(),
        ),
        ("undirected gnm", gen::gnm(300, 1500, false, 8), Keep::default()),
        ("undirected path", gen::path(500, false), Keep::default()),
    ]
}

/// Publishes a shards layout of `n` shards with `block` bytes per block.
pub fn sharded(f: &Fixture, n: u32, block: u64) -> (GraphDir, String) {
    sharded_coded(f, n, block, None)
}

/// [`sharded`], the windows compressed with `compress` (if any).
pub fn sharded_coded(f: &Fixture, n: u32, block: u64, compress: Option<Codec>) -> (GraphDir, String) {
    let opts = diskgraph_prep::ShardOptions {
        shards: Some(n),
        memory: 1 << 20,
        block_bytes: Some(block),
        force: true,
        compress,
    };
    let s = diskgraph_prep::partition_shards(f.path(), &opts, &mut NoProgress)
        .unwrap_or_else(|e| panic!("partition {} into {n} shards: {e:#}", f.name));
    (reopened(f), s.name)
}

pub fn options(layout: &str, memory: u64, gsc: bool, deterministic: bool) -> ShardOptions {
    ShardOptions {
        layout: Some(layout.to_string()),
        memory,
        gsc,
        deterministic,
        scratch: None,
        index: None,
        cancel: None,
    }
}

/// Sums the in-edges' values into the vertex and writes its own value + 1 on its out-edges:
/// order-sensitive, so any difference between schedules shows.
pub struct Accumulate;

impl Program for Accumulate {
    type Value = u32;

    fn update(&self, u: Update<'_, u32>) {
        let sum = u.in_edges.values().fold(*u.value, u32::wrapping_add);
        *u.value = sum % 1_000_003;
        u.out_edges.fill(*u.value + 1);
    }

    fn after_iteration(&mut self, _iteration: u32, _values: &mut [u32]) -> bool {
        true
    }
}

/// Runs [`Accumulate`] for 5 iterations; returns the values and the bytes read and written.
pub fn accumulate(g: &GraphDir, opts: &ShardOptions) -> (Vec<u32>, u64, u64) {
    let e = ShardGraph::open(g, opts).unwrap();
    let mut values = vec![1u32; e.num_vertices()];
    e.run(&mut Accumulate, &mut values, 5).unwrap();
    let s = stats(&e);
    (values, s.bytes_read, s.bytes_written)
}
