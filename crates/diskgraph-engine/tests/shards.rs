//! The shard engine's semantics, independent of any algorithm: every vertex writes its ID and
//! the iteration on its out-edges and checks what its in-edges show — the last write of each
//! source, this iteration's for a smaller source, the previous one's otherwise — under every
//! schedule (parallel, deterministic), with and without Greedy Shard Caching, at the smallest
//! budget and a large one, over several shard counts; each vertex sees exactly its lists. GSC
//! never does more I/O; the graph directory is never written; damage is an error.

mod common;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

use common::fixture;
use common::shards::{accumulate, graphs, lists, options, sharded, Accumulate, Stamps};
use diskgraph_engine::shards::{Program, ProgramNeeds, ShardGraph, Update};
use diskgraph_engine::{Engine, EngineError};
use diskgraph_format::GraphDir;
use diskgraph_testkit::harness::{store, Case};
use diskgraph_testkit::{gen, Keep};

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
