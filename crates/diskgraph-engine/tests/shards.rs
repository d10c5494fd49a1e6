//! The shard engine's semantics, independent of any algorithm: every vertex writes its ID and
//! the iteration on its out-edges and checks what its in-edges show — the last write of each
//! source, this iteration's for a smaller source, the previous one's otherwise — under every
//! schedule (parallel, deterministic), with and without Greedy Shard Caching, at the smallest
//! budget and a large one, over several shard counts; each vertex sees exactly its lists. GSC
//! never does more I/O; the graph directory is never written; damage is an error. A layout
//! `partition --shards auto` makes for a budget runs at that budget, and a budget too small for
//! a layout is refused naming the layout or option that fits.

mod common;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

use common::fixture;
use common::shards::{accumulate, graphs, lists, options, sharded, Accumulate, Stamps};
use diskgraph_engine::shards::{Program, ProgramNeeds, ShardGraph, Update};
use diskgraph_engine::{human_bytes, human_minimum, Engine, EngineError};
use diskgraph_format::{plan_shards, Codec, GraphDir, ShardLayout, ShardPlan, ShardRequest};
use diskgraph_prep::{partition_shards, NoProgress};
use diskgraph_testkit::harness::{store, Case, Fixture};
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
    // The layout's own directory: a forced replacement lives in its next generation.
    let dir = ShardLayout::open(&g, &layout).unwrap().path().to_path_buf();
    let dst = dir.join(diskgraph_format::SHARD_DST);
    let mut bytes = std::fs::read(&dst).unwrap();
    // The first arc of shard 0 now points into the last interval.
    bytes[..4].copy_from_slice(&299u32.to_le_bytes());
    std::fs::write(&dst, bytes).unwrap();
    let e = ShardGraph::open(&g, &options(&layout, 1 << 20, true, false)).unwrap();
    let mut values = vec![1u32; e.num_vertices()];
    let err = e.run(&mut Accumulate, &mut values, 1).unwrap_err().to_string();
    assert!(err.contains("dst.u32") && err.contains("outside"), "{err}");
}

/// The least budget any layout of `g` (compressed or not) is planned to need.
fn least_budget(g: &GraphDir, compressed: bool) -> u64 {
    let request = ShardRequest {
        memory: 0,
        shards: None,
        block_bytes: None,
        compressed,
    };
    match plan_shards(g, &request, 1 << 16).unwrap() {
        ShardPlan::TooSmall { least } => least.minimum,
        fits => panic!("a layout fits no memory: {fits:?}"),
    }
}

/// `partition --shards auto --memory memory` (with `--compress` when given); its layout's name.
fn partition_auto(f: &Fixture, memory: u64, compress: Option<Codec>) -> Result<String, String> {
    let opts = diskgraph_prep::ShardOptions {
        shards: None,
        memory,
        block_bytes: None,
        force: true,
        compress,
    };
    partition_shards(f.path(), &opts, &mut NoProgress)
        .map(|s| s.name)
        .map_err(|e| format!("{e:#}"))
}

#[test]
fn a_layout_planned_for_a_budget_runs_at_it() {
    for (name, el) in [
        ("undirected rmat 12", gen::rmat(12, 30_000, false, 21)),
        ("directed rmat 12", gen::rmat(12, 30_000, true, 22)),
        ("directed star of 3000", gen::star(3000, 6000, true, 23)),
    ] {
        let f = fixture(name, el, Keep::default());
        for compress in [None, Some(Codec::Vbyte)] {
            let least = least_budget(&f.graph, compress.is_some());
            for memory in [least, least + least / 3, 3 * least, 64 << 20] {
                let ctx = format!("{name}, {compress:?}, M={memory}");
                let layout = partition_auto(&f, memory, compress).unwrap_or_else(|e| panic!("{ctx}: {e}"));
                let g = common::reopened(&f);
                let at = options(&layout, memory, true, false);
                let need = ShardGraph::minimum_budget(&g, &at).unwrap();
                assert!(need <= memory, "{ctx}: {layout} needs {need}");
                let (values, _, _) = accumulate(&g, &at);
                let (roomy, _, _) = accumulate(&g, &options(&layout, 1 << 30, true, false));
                assert!(values == roomy, "{ctx}: answers differ from a roomy run's");
            }
            // A byte less than the least is refused at partition time, naming the least.
            let err = partition_auto(&f, least - 1, compress).unwrap_err();
            assert!(
                err.contains(&format!("give --memory {} or more", human_minimum(least))),
                "{name}: {err}"
            );
        }
    }
}

#[test]
fn a_refusal_names_the_layout_or_option_that_fits() {
    let f = fixture("directed rmat 12", gen::rmat(12, 30_000, true, 24), Keep::default());
    let path = f.path().display().to_string();
    let refusal =
        |g: &GraphDir, layout: &str, memory: u64| match ShardGraph::open(g, &options(layout, memory, true, false)) {
            Err(e @ EngineError::BudgetTooSmall { .. }) => e.to_string(),
            Err(e) => panic!("{layout} at {memory}: {e}"),
            Ok(_) => panic!("{layout} opens at {memory}"),
        };
    // Four shards of 1 MiB blocks: the same shards in smaller blocks fit.
    let (g, layout) = sharded(&f, 4, 1 << 20);
    let with_small_blocks = ShardGraph::minimum_budget(&g, &options(&layout, 0, true, false)).unwrap() / 4;
    let msg = refusal(&g, &layout, with_small_blocks);
    let fix = format!("or rebuild it with smaller blocks: `diskgraph partition {path} --shards 4 --block-size ");
    let Some(at) = msg.find(&fix) else { panic!("{msg}") };
    let block = msg[at + fix.len()..].split(' ').next().unwrap();
    let block = diskgraph_engine::parse_size(block).unwrap();
    let (g, layout) = sharded(&f, 4, block);
    ShardGraph::open(&g, &options(&layout, with_small_blocks, true, false)).unwrap();
    // One shard in 4 KiB blocks: no smaller block, but more shards fit (a budget of no whole
    // tenth of a unit is named in bytes).
    let (g, layout) = sharded(&f, 1, 4096);
    let memory = least_budget(&g, false) | 1;
    let msg = refusal(&g, &layout, memory);
    let fix = format!("or partition for this budget: `diskgraph partition {path} --shards auto --memory {memory}");
    assert!(msg.contains(&fix), "{msg}");
    let planned = partition_auto(&f, memory, None).unwrap();
    assert!(msg.contains(&format!("({planned}, ")), "{msg}");
    let g = common::reopened(&f);
    ShardGraph::open(&g, &options(&planned, memory, true, false)).unwrap();
    // Below what any layout needs: the smallest budget one runs in.
    let least = least_budget(&g, false);
    let msg = refusal(&g, &layout, least / 2);
    assert!(
        msg.contains(&format!(
            "no shards layout of this graph runs within {}, the smallest budget one does is {}: `diskgraph partition {path} --shards auto --memory {}`",
            human_bytes(least / 2),
            human_minimum(least),
            human_minimum(least)
        )),
        "{msg}"
    );
}
