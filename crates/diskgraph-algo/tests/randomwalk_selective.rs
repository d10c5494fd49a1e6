//! randomwalk on the selective engine: the memory engine's visits bit for bit, through the
//! registry, on a hub, duplicates and self-loops, dangling vertices, damping 0 and 1, length 0,
//! 1 and 3 threads, lists read whole (compressed) and in many pieces (plain lists, small reads,
//! the smallest budget); and `auto` runs it on the selective engine below the CSR of a graph
//! that has no shards layout.

use diskgraph_algo::randomwalk::{DAMPING, LENGTH, SOURCES, WALKS};
use diskgraph_algo::registry::{self, RunOutput, RunRequest};
use diskgraph_algo::Values;
use diskgraph_engine::engine_options::{ADJACENCY, BLOCK_SIZE, ENGINE, MAX_REQUEST, MEMORY, THREADS};
use diskgraph_engine::options::Value;
use diskgraph_engine::selective::SelectiveGraph;
use diskgraph_engine::Sources;
use diskgraph_engine::{OpenEngine, OpenRequest};
use diskgraph_format::GraphDir;
use diskgraph_testkit::gen;
use diskgraph_testkit::harness::{store, Case, Fixture};
use diskgraph_testkit::Keep;

/// Runs `req` on `graph`, or panics naming `ctx`.
fn run(graph: &GraphDir, req: &RunRequest, ctx: &str) -> RunOutput {
    registry::run(graph, req).unwrap_or_else(|e| panic!("{ctx}: {e}"))
}

/// A randomwalk request of `walks` walks of `length` steps from `sources` at `damping`.
fn walks(sources: &Sources, walks: u64, length: u64, damping: f64) -> RunRequest {
    RunRequest::new("randomwalk")
        .with(&SOURCES, Value::Sources(sources.clone()))
        .with(&WALKS, Value::Count(walks))
        .with(&LENGTH, Value::Count(length))
        .with(&DAMPING, Value::Float(damping))
}

/// The smallest budget the selective engine takes for `req` on `graph` (its least and the
/// run's state), which is more than the engine's alone.
fn smallest_budget(graph: &GraphDir, req: &RunRequest, threads: usize) -> u64 {
    let opts = SelectiveGraph::options(graph, &OpenRequest::new("randomwalk", &req.params, threads).unwrap()).unwrap();
    let least = registry::minimum_memory(graph, req).unwrap();
    assert!(least > SelectiveGraph::minimum_budget(graph, &opts));
    least
}

#[test]
fn selective_visits_equal_the_memory_engines() {
    // A hub (half the spokes point out of it: a list of about 10,000 arcs), with duplicates,
    // self-loops and the spokes that only point in: dangling vertices the walks reach.
    let hub = gen::add_self_loops(gen::add_duplicates(gen::star(20_000, 4000, true, 11), 800, 12), 60, 13);
    // Skewed undirected degrees, duplicates and self-loops kept.
    let rmat = gen::add_self_loops(gen::add_duplicates(gen::rmat(10, 6000, false, 21), 500, 22), 40, 23);
    // A path: its last vertex dangles, and restarts are most of the walks.
    let path = gen::add_duplicates(gen::path(300, true), 30, 31);
    // The graphs, their source slots, and the fewest reads a round takes in blocks of 512
    // bytes and reads of 4 KiB.
    let cases = [
        ("hub", hub, Sources::Ids(vec![0, 7, 0, 19_999]), 10),
        ("rmat", rmat, Sources::Sample(16), 5),
        ("path", path, Sources::Ids(vec![0, 150, 299]), 1),
    ];
    for (name, el, sources, reads_a_round) in cases {
        let f = Fixture::new(&Case::new(name, el, Keep::all()));
        for (count, length, damping) in [(5000, 20, 0.85), (3001, 12, 1.0), (2000, 9, 0.0), (777, 0, 0.85)] {
            let req = walks(&sources, count, length, damping);
            let ctx = format!("{name}: {count} walks, length {length}, damping {damping}");
            let memory = run(
                &f.graph,
                &req.clone()
                    .with(&ENGINE, Value::Choice("memory"))
                    .with(&THREADS, Value::Count(1)),
                &ctx,
            );
            let Values::Unsigned(visits) = &memory.values else {
                panic!("{ctx}: visits as {:?}", memory.values)
            };
            assert_eq!(visits.iter().sum::<u64>(), count * (length + 1), "{ctx}");
            for threads in [1, 3] {
                let selective = req
                    .clone()
                    .with(&ENGINE, Value::Choice("selective"))
                    .with(&THREADS, Value::Count(threads));
                // Compressed lists, each delivered whole, in a roomy budget.
                let whole = selective.clone().with(&MEMORY, Value::Size(64 << 20));
                // Plain lists in blocks of 512 bytes and reads of at most 4 KiB (the hub's list
                // in ten pieces and more), within the smallest budget those settings take.
                let cut = selective
                    .with(&ADJACENCY, Value::Choice("plain"))
                    .with(&BLOCK_SIZE, Value::Size(512))
                    .with(&MAX_REQUEST, Value::Size(4096));
                let least = smallest_budget(&f.graph, &cut, threads as usize);
                let cut = cut.with(&MEMORY, Value::Size(least));
                for (how, req) in [("whole lists", whole), ("smallest budget", cut)] {
                    let ctx = format!("{ctx}, {threads} threads, {how}");
                    let out = run(&f.graph, &req, &ctx);
                    assert_eq!(out.stats.engine, "selective", "{ctx}");
                    assert_eq!(out.values, memory.values, "{ctx}");
                    assert_eq!(out.stats.edges_processed, memory.stats.edges_processed, "{ctx}: moves");
                    assert_eq!(out.stats.settings["sources"], memory.stats.settings["sources"], "{ctx}");
                    assert!(
                        out.stats.peak_engine_memory <= out.stats.settings["memory"].as_u64().unwrap(),
                        "{ctx}"
                    );
                    if how == "smallest budget" && length > 0 && damping > 0.0 {
                        assert_eq!(out.stats.settings["adjacency"], "plain", "{ctx}");
                        // A round a step, each of many reads but on the path.
                        assert_eq!(out.stats.settings["rounds"], length, "{ctx}");
                        let reads = out.stats.io_requests;
                        assert!(reads >= length * reads_a_round, "{ctx}: {reads} reads");
                    }
                    if damping == 0.0 || length == 0 {
                        assert_eq!(
                            out.stats.bytes_read, 0,
                            "{ctx}: no walk follows an arc, no list is read"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn auto_walks_on_the_selective_engine_below_the_csr_without_shards() {
    let el = gen::add_duplicates(gen::rmat(12, 32 << 10, true, 41), 1000, 42);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g");
    // Imported only: no shards layout, no grid layout, no compressed lists.
    store(&Case::new("rmat", el, Keep::all()), &path);
    let graph = GraphDir::open(&path).unwrap();
    assert!(graph.manifest().layouts.is_empty(), "{:?}", graph.manifest().layouts);
    let req = walks(&Sources::Sample(32), 4000, 15, 0.85);
    // The selective engine's least with reads of 2 KiB (its buffers and the run's state) cannot
    // hold the CSR (about 164 KiB of out-lists) with the state.
    let small = req.clone().with(&MAX_REQUEST, Value::Size(2048));
    let least = registry::minimum_memory(&graph, &small.clone().with(&ENGINE, Value::Choice("selective"))).unwrap();
    let small = small
        .with(&ENGINE, Value::Choice("auto"))
        .with(&MEMORY, Value::Size(least));
    let out = run(&graph, &small, "auto below the CSR");
    assert_eq!(out.stats.engine, "selective");
    assert!(
        out.summary.contains("CSR and state randomwalk needs exceeds the "),
        "{}",
        out.summary
    );
    // The shards engine cannot run it here: no layout.
    let shards = req.clone().with(&ENGINE, Value::Choice("shards"));
    assert!(registry::run(&graph, &shards).is_err());
    let memory = run(&graph, &req.with(&ENGINE, Value::Choice("memory")), "memory");
    assert_eq!(out.values, memory.values);
}
