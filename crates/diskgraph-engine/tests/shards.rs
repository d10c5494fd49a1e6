//! The shard engine's semantics, independent of any algorithm: every vertex writes its ID and
//! the iteration on its out-edges and checks what its in-edges show — the last write of each
//! source, this iteration's for a smaller source, the previous one's otherwise — under every
//! schedule (parallel, deterministic), with and without Greedy Shard Caching, at the smallest
//! budget and a large one, over several shard counts; each vertex sees exactly its lists. GSC
//! never does more I/O; the graph directory is never written; damage is an error.

mod common;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;

use common::{fixture, reopened, stats};
use diskgraph_engine::shards::{Program, ProgramNeeds, ShardGraph, ShardOptions, Update};
use diskgraph_engine::{Engine, EngineError};
use diskgraph_format::GraphDir;
use diskgraph_prep::NoProgress;
use diskgraph_testkit::harness::{store, Case, Fixture};
use diskgraph_testkit::{gen, EdgeList, Keep, TestGraph};

/// Writes `v + i + 1` on every out-edge in iteration `i` and checks every edge it sees.
struct Stamps<'t> {
    test: &'t TestGraph,
    checked: AtomicU64,
    wrong: Mutex<Vec<String>>,
}

impl<'t> Stamps<'t> {
    fn new(test: &'t TestGraph) -> Self {
        Stamps {
            test,
            checked: AtomicU64::new(0),
            wrong: Mutex::new(Vec::new()),
        }
    }

    /// Asserts nothing was wrong and `checked` edges were checked.
    fn assert_clean(self, what: &str, checked: u64) {
        let wrong = self.wrong.into_inner().unwrap();
        assert!(wrong.is_empty(), "{what}: {wrong:#?}");
        assert_eq!(self.checked.into_inner(), checked, "{what}");
    }

    fn complain(&self, what: String) {
        let mut w = self.wrong.lock().unwrap();
        if w.len() < 5 {
            w.push(what);
        }
    }

    /// What an edge from `s` shows `v` in iteration `i` before `v` writes.
    fn want(s: u32, v: u32, i: u32) -> u32 {
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
fn lists(t: &TestGraph, v: u32) -> (Vec<u32>, Vec<u32>) {
    let mut inn: Vec<u32> = t.arcs.iter().filter(|a| a.1 == v).map(|a| a.0).collect();
    let mut out: Vec<u32> = t.arcs.iter().filter(|a| a.0 == v).map(|a| a.1).collect();
    inn.sort_unstable();
    out.sort_unstable();
    (inn, out)
}

fn graphs() -> Vec<(&'static str, EdgeList, Keep)> {
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
fn sharded(f: &Fixture, n: u32, block: u64) -> (GraphDir, String) {
    let opts = diskgraph_prep::ShardOptions {
        shards: Some(n),
        memory: 1 << 20,
        block_bytes: block,
        force: true,
        compress: None,
    };
    let s = diskgraph_prep::partition_shards(f.path(), &opts, &mut NoProgress)
        .unwrap_or_else(|e| panic!("partition {} into {n} shards: {e:#}", f.name));
    (reopened(f), s.name)
}

fn options(layout: &str, memory: u64, gsc: bool, deterministic: bool) -> ShardOptions {
    ShardOptions {
        layout: Some(layout.to_string()),
        memory,
        gsc,
        deterministic,
        scratch: None,
        index: None,
    }
}

#[test]
fn updates_see_the_last_write_of_each_neighbour_under_every_schedule() {
    for (name, el, keep) in graphs() {
        let f = fixture(name, el, keep);
        for n in [1, 3, 7] {
            let (g, layout) = sharded(&f, n, 4096);
            let least = ShardGraph::minimum_budget(&g, &options(&layout, 0, true, false)).unwrap();
            for memory in [least, 64 << 20] {
                for gsc in [false, true] {
                    for deterministic in [false, true] {
                        let opts = options(&layout, memory, gsc, deterministic);
                        let e = ShardGraph::open(&g, &opts).unwrap_or_else(|e| panic!("{name} {opts:?}: {e}"));
                        let mut p = Stamps::new(&f.test);
                        let mut values = vec![0u32; e.num_vertices()];
                        assert_eq!(e.run(&mut p, &mut values, 4).unwrap(), 4);
                        p.assert_clean(&format!("{name} {opts:?}"), 4 * 2 * f.test.arcs.len() as u64);
                        assert!(
                            values.iter().all(|&k| k == 4),
                            "{name}: every vertex updated once per iteration"
                        );
                    }
                }
            }
        }
    }
}

/// Reads no out-edges: each vertex checks, in a shared array, the stamp every in-neighbour
/// last wrote (as [`Stamps`] does on edges), then stamps `v + i + 1` there. Only the engine's
/// conflict detection from the memory shard alone keeps the parallel schedule in ID order.
struct SharedStamps<'t> {
    stamps: Vec<AtomicU32>,
    check: Stamps<'t>,
}

impl Program for SharedStamps<'_> {
    type Value = u32;

    fn needs(&self) -> ProgramNeeds {
        ProgramNeeds::IN_SOURCES
    }

    fn update(&self, u: Update<'_, u32>) {
        let (v, i) = (u.vertex, u.iteration);
        let sources: Vec<u32> = (0..u.in_edges.len()).map(|k| u.in_edges.source(k)).collect();
        let complain = |what| self.check.complain(what);
        if sources != lists(self.check.test, v).0 || !u.out_edges.is_empty() {
            complain(format!("vertex {v}: in {sources:?}, {} out-edges", u.out_edges.len()));
        }
        for &s in &sources {
            let got = self.stamps[s as usize].load(Relaxed);
            if got != Stamps::want(s, v, i) {
                complain(format!(
                    "iteration {i}: vertex {v} sees {got} from {s}, wants {}",
                    Stamps::want(s, v, i)
                ));
            }
        }
        self.check.checked.fetch_add(sources.len() as u64, Relaxed);
        self.stamps[v as usize].store(v + i + 1, Relaxed);
        *u.value += 1;
    }

    fn after_iteration(&mut self, _iteration: u32, _values: &mut [u32]) -> bool {
        true
    }
}

#[test]
fn updates_without_out_edges_see_the_last_state_of_each_in_neighbour() {
    for (name, el, keep) in graphs() {
        let f = fixture(name, el, keep);
        for n in [1, 3, 7] {
            let (g, layout) = sharded(&f, n, 4096);
            for deterministic in [false, true] {
                let opts = options(&layout, 64 << 20, true, deterministic);
                let e = ShardGraph::open(&g, &opts).unwrap();
                let mut p = SharedStamps {
                    stamps: (0..e.num_vertices()).map(|_| AtomicU32::new(0)).collect(),
                    check: Stamps::new(&f.test),
                };
                let mut values = vec![0u32; e.num_vertices()];
                assert_eq!(e.run(&mut p, &mut values, 4).unwrap(), 4);
                p.check
                    .assert_clean(&format!("{name} {opts:?}"), 4 * f.test.arcs.len() as u64);
                assert!(values.iter().all(|&k| k == 4), "{name}: one update per iteration");
            }
        }
    }
}

/// Sums the in-edges' values into the vertex and writes its own value + 1 on its out-edges:
/// order-sensitive, so any difference between schedules shows.
struct Accumulate;

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
fn accumulate(g: &GraphDir, opts: &ShardOptions) -> (Vec<u32>, u64, u64) {
    let e = ShardGraph::open(g, opts).unwrap();
    let mut values = vec![1u32; e.num_vertices()];
    e.run(&mut Accumulate, &mut values, 5).unwrap();
    let s = stats(&e);
    (values, s.bytes_read, s.bytes_written)
}

#[test]
fn gsc_gives_the_same_answers_with_never_more_io() {
    let f = fixture("directed gnm", gen::gnm(2000, 30000, true, 2), Keep::default());
    let (g, layout) = sharded(&f, 6, 4096);
    let least = ShardGraph::minimum_budget(&g, &options(&layout, 0, true, false)).unwrap();
    let mut answers = BTreeMap::new();
    for memory in [least, 2 * least, 8 * least, 1 << 30] {
        let (a, read_off, written_off) = accumulate(&g, &options(&layout, memory, false, false));
        let (b, read_on, written_on) = accumulate(&g, &options(&layout, memory, true, false));
        let (c, _, _) = accumulate(&g, &options(&layout, memory, true, true));
        assert!(a == b && b == c, "memory {memory}: answers differ");
        answers.insert(memory, a);
        assert!(
            read_on + written_on <= read_off + written_off,
            "memory {memory}: GSC {read_on}+{written_on} bytes, GraphChi {read_off}+{written_off}"
        );
        if memory == 1 << 30 {
            assert!(
                2 * (read_on + written_on) < read_off + written_off,
                "with every block cached GSC must save most I/O"
            );
        }
    }
    assert_eq!(answers.values().collect::<std::collections::BTreeSet<_>>().len(), 1);
}

#[test]
fn a_budget_below_the_largest_interval_is_refused_with_the_minimum() {
    let f = fixture("directed gnm", gen::gnm(500, 4000, true, 4), Keep::default());
    let (g, layout) = sharded(&f, 2, 4096);
    let least = ShardGraph::minimum_budget(&g, &options(&layout, 0, true, false)).unwrap();
    match ShardGraph::open(&g, &options(&layout, least - 1, true, false)) {
        Err(EngineError::BudgetTooSmall { minimum, .. }) => assert_eq!(minimum, least),
        other => panic!("expected BudgetTooSmall, got {:?}", other.map(|_| ())),
    }
}

#[test]
fn a_graph_without_shards_names_the_command_that_makes_them() {
    let f = fixture("undirected path", gen::path(50, false), Keep::default());
    let err = ShardGraph::open(&f.graph, &options("shards-99", 1 << 20, true, false))
        .map(|_| ())
        .unwrap_err()
        .to_string();
    assert!(err.contains("shards-99"), "{err}");
    let dir = tempfile::tempdir().unwrap();
    let bare = dir.path().join("bare");
    store(
        &Case::new("undirected path", gen::path(50, false), Keep::default()),
        &bare,
    );
    let mut opts = options("", 1 << 20, true, false);
    opts.layout = None;
    let err = ShardGraph::open(&GraphDir::open(&bare).unwrap(), &opts)
        .map(|_| ())
        .unwrap_err()
        .to_string();
    assert!(err.contains("diskgraph partition") && err.contains("--shards"), "{err}");
}

/// Every file of the graph directory, with its bytes.
fn contents(dir: &std::path::Path) -> BTreeMap<std::path::PathBuf, Vec<u8>> {
    let mut all = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                all.insert(p.clone(), std::fs::read(&p).unwrap());
            }
        }
    }
    all
}

#[test]
fn runs_never_write_the_graph_and_remove_their_scratch() {
    let f = fixture("directed gnm", gen::gnm(300, 3000, true, 6), Keep::default());
    let (g, layout) = sharded(&f, 3, 4096);
    let before = contents(f.path());
    let scratch = tempfile::tempdir().unwrap();
    let mut opts = options(&layout, 1 << 20, false, false);
    opts.scratch = Some(scratch.path().to_path_buf());
    {
        let e = ShardGraph::open(&g, &opts).unwrap();
        let mut values = vec![1u32; e.num_vertices()];
        e.run(&mut Accumulate, &mut values, 3).unwrap();
        assert_eq!(
            std::fs::read_dir(scratch.path()).unwrap().count(),
            1,
            "the run's scratch copy"
        );
    }
    assert_eq!(std::fs::read_dir(scratch.path()).unwrap().count(), 0, "scratch removed");
    assert!(before == contents(f.path()), "the graph directory changed");
}

#[test]
fn a_target_outside_its_interval_is_an_error_naming_the_file() {
    let f = fixture("directed gnm", gen::gnm(300, 3000, true, 7), Keep::default());
    let (g, layout) = sharded(&f, 3, 4096);
    let dst = g.path().join(&layout).join(diskgraph_format::SHARD_DST);
    let mut bytes = std::fs::read(&dst).unwrap();
    // The first arc of shard 0 now points into the last interval.
    bytes[..4].copy_from_slice(&299u32.to_le_bytes());
    std::fs::write(&dst, bytes).unwrap();
    let e = ShardGraph::open(&g, &options(&layout, 1 << 20, true, false)).unwrap();
    let mut values = vec![1u32; e.num_vertices()];
    let err = e.run(&mut Accumulate, &mut values, 1).unwrap_err().to_string();
    assert!(err.contains("dst.u32") && err.contains("outside"), "{err}");
}
