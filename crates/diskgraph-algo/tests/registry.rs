//! What the registry does around the algorithms, as the command line and Python meet it:
//! `auto` picks the engine by budget and says why; a loaded index or static cache serves runs
//! as reading them does; sources are resolved by original ID and bad ones refused; the errors
//! a user meets (no layout, an engine without the algorithm, another engine's option, a budget
//! too small, a damaged graph) say what to do; BFS parents come back as original IDs.

use std::path::Path;

use diskgraph_algo::registry::{self, RunOutput, RunRequest, ALGORITHMS};
use diskgraph_algo::{bc, bfs, msbfs, options, randomwalk, spmv, wcc, AlgoError, RowIds, Values};
use diskgraph_engine::engine_options::{ADJACENCY, BASC, ENGINE, LAYOUT, MAX_REQUEST, MEMORY, VERIFY};
use diskgraph_engine::options::Value;
use diskgraph_engine::{EngineError, EngineKind, Source, Sources};
use diskgraph_format::{FormatError, GraphDir};
use diskgraph_prep::parse::{open_input, ParseOptions};
use diskgraph_prep::{import, ImportOptions, NoProgress, PartitionOptions, SortOrder};
use diskgraph_testkit::harness::{Case, Fixture, Naming};
use diskgraph_testkit::{gen, oracle, EdgeList, Keep};

/// The real graphs shipped with the repository.
const REAL: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/real");

/// `el` imported keeping what `keep` says, its vertices named by `naming`.
fn fixture(name: &str, el: EdgeList, keep: Keep, naming: Naming) -> Fixture {
    Fixture::new(&Case::new(name, el, keep).named(naming))
}

/// A request of `algorithm` on `engine` within `memory` bytes.
fn request(algorithm: &str, engine: &'static str, memory: u64) -> RunRequest {
    RunRequest::new(algorithm)
        .with(&ENGINE, Value::Choice(engine))
        .with(&MEMORY, Value::Size(memory))
}

/// The error of a run that must fail.
fn refusal(graph: &GraphDir, req: &RunRequest) -> AlgoError {
    match registry::run(graph, req) {
        Ok(_) => panic!("{} ran: {req:?}", req.algorithm),
        Err(e) => e,
    }
}

#[test]
fn auto_picks_the_engine_by_budget_and_says_why() {
    let el = gen::with_weights(
        gen::relabel(gen::rmat(12, 32 << 10, true, 71), 71),
        gen::Weights::Integer(3),
        71,
    );
    let f = fixture("rmat with sparse IDs", el, Keep::all(), Naming::Sparse);
    // Below the CSR, bfs and scc read lists selectively and mis streams.
    for (alg, below_the_csr) in [("bfs", "selective"), ("mis", "stream"), ("scc", "selective")] {
        // 320 KiB cannot hold the CSR (164 KiB of out-lists) with the run's state; reads of
        // 2 KiB and the state fit in it.
        let small = request(alg, "auto", 320 << 10).with(&MAX_REQUEST, Value::Size(2048));
        let out = registry::run(&f.graph, &small).unwrap_or_else(|e| panic!("{alg}: {e}"));
        assert_eq!(out.stats.engine, below_the_csr, "{alg}");
        assert!(
            out.summary.contains(&format!("engine auto: {below_the_csr}")),
            "{}",
            out.summary
        );
        let out = registry::run(&f.graph, &request(alg, "auto", 1 << 30)).unwrap();
        assert_eq!(out.stats.engine, "memory", "{alg}");
        assert!(out.summary.contains("engine auto: memory"), "{}", out.summary);
    }
}

#[test]
fn auto_never_exceeds_the_budget_and_names_the_smallest_that_works() {
    let el = gen::relabel(gen::rmat(12, 32 << 10, true, 72), 72);
    let f = fixture("rmat", el, Keep::all(), Naming::Dense);
    // scc below its CSR (both directions, 320 KiB) runs on the selective engine and says so.
    let out = registry::run(&f.graph, &request("scc", "auto", 448 << 10)).unwrap();
    assert_eq!(out.stats.engine, "selective");
    assert!(
        out.summary.contains("; the selective engine needs at least"),
        "{}",
        out.summary
    );
    let by_memory = registry::run(&f.graph, &request("scc", "memory", 1 << 30)).unwrap();
    assert_eq!(out.values, by_memory.values);
    // Below every engine's smallest budget: an error naming each, and the budget that works.
    let e = refusal(&f.graph, &request("scc", "auto", 4 << 10)).to_string();
    assert!(
        e.starts_with("scc cannot run within --memory 4KiB: the memory engine at least ")
            && e.contains(" (its CSR and the run's state), the selective engine at least "),
        "{e}"
    );
    let least = e.rsplit("give --memory ").next().unwrap().trim_end_matches(" or more");
    assert!(e.contains("the sync engine at least "), "{e}");
    let least = diskgraph_engine::parse_size(least).unwrap();
    // The least is the sync engine's (a few pages of cache): auto takes it there.
    let out = registry::run(&f.graph, &request("scc", "auto", least)).unwrap();
    assert_eq!(out.stats.engine, "sync");
    assert_eq!(out.values, by_memory.values);
    // mis: memory or stream, each with its figure.
    let e = refusal(&f.graph, &request("mis", "auto", 1 << 10)).to_string();
    assert!(
        e.contains("the memory engine at least") && e.contains("the stream engine at least"),
        "{e}"
    );
}

/// The main command cannot rot: on a graph straight from the importer (no grid, no shards, no
/// selection), `auto` runs every algorithm at the smallest budget its refusal names, and the
/// answer passes its verifier.
#[test]
fn auto_runs_every_algorithm_without_layouts_at_the_budget_it_names() {
    let el = gen::with_weights(
        gen::relabel(gen::rmat(10, 8 << 10, false, 73), 73),
        gen::Weights::Uniform(0.0, 1.0),
        73,
    );
    let case = Case::new("undirected weighted rmat", el, Keep::default()).named(Naming::Sparse);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g");
    diskgraph_testkit::harness::store(&case, &path);
    let g = GraphDir::open(&path).unwrap();
    assert!(g.layouts().is_empty(), "a graph straight from the importer");
    for alg in ALGORITHMS {
        let e = refusal(&g, &request(alg.name, "auto", 1)).to_string();
        let least = e
            .rsplit("give --memory ")
            .next()
            .and_then(|t| t.strip_suffix(" or more"))
            .unwrap_or_else(|| panic!("{}: no budget named: {e}", alg.name));
        let least = diskgraph_engine::parse_size(least).unwrap();
        let req = request(alg.name, "auto", least).with(&VERIFY, Value::Flag(true));
        let out = registry::run(&g, &req).unwrap_or_else(|e| panic!("{} at {least} bytes: {e}", alg.name));
        assert!(out.stats.verified.is_some(), "{}", alg.name);
        assert!(out.stats.peak_engine_memory <= least, "{}: {:?}", alg.name, out.stats);
    }
}

/// Each `got[v]` within `1e-12` of `want[v]`, relative above 1 (infinities equal).
fn assert_close(got: &Values, want: &Values, ctx: &str) {
    match (got, want) {
        (Values::Float(a), Values::Float(b)) => {
            for (x, y) in a.iter().zip(b) {
                assert!(x == y || (x - y).abs() <= 1e-12 * y.abs().max(1.0), "{ctx}: {x} vs {y}");
            }
        }
        (a, b) => assert_eq!(a, b, "{ctx}"),
    }
}

/// A loaded index serves runs as reading it does: the same values and IDs for every algorithm
/// on every engine (a directed graph with sparse IDs and stored in-edges; an undirected copy
/// for the algorithms that refuse a directed one), and the runs say so; another graph's index
/// is refused.
#[test]
fn a_loaded_index_gives_the_same_runs() {
    let el = gen::relabel(gen::rmat(9, 4 << 10, true, 73), 73);
    let f = fixture("rmat with sparse IDs", el, Keep::all(), Naming::Sparse);
    let index = registry::load_index(&f.graph).unwrap();
    let n = f.graph.num_vertices() as usize;
    assert_eq!(
        index.bytes(),
        8 * (n + 2 * (n + 1)) as u64,
        "IDs and both directions' offsets"
    );
    let el = gen::relabel(gen::rmat(9, 4 << 10, false, 73), 73);
    let u = fixture("undirected rmat with sparse IDs", el, Keep::all(), Naming::Sparse);
    let u_index = registry::load_index(&u.graph).unwrap();
    for alg in ALGORITHMS {
        for engine in alg.engines() {
            let mut req = request(alg.name, engine.name(), 2 << 20);
            if let Some(spec) = alg.source_option() {
                req = req.with(spec, Value::Source(Source::MaxDegree));
            }
            if let Some(spec) = alg.sources_option() {
                req = req.with(spec, Value::Sources(Sources::Sample(20)));
            }
            if alg.name == "bc" {
                req = req.with(&bc::SAMPLES, Value::Count(9));
            }
            let ctx = format!("{} on {engine}", alg.name);
            let (g, index) = match registry::run(&f.graph, &req) {
                Err(AlgoError::NeedsUndirected(_)) => (&u, &u_index),
                _ => (&f, &index),
            };
            let read = registry::run(&g.graph, &req).unwrap_or_else(|e| panic!("{ctx}: {e}"));
            req.index = Some(index.clone());
            let loaded = registry::run(&g.graph, &req).unwrap_or_else(|e| panic!("{ctx}: {e}"));
            assert_eq!(loaded.vertex_ids, read.vertex_ids, "{ctx}");
            assert_close(&loaded.values, &read.values, &ctx);
            assert_eq!(loaded.stats.settings["index_preloaded"], true);
            assert!(!read.stats.settings.contains_key("index_preloaded"));
        }
    }
    // Selective runs use the loaded index (the memory engine loads its CSR, offsets included,
    // and takes only the IDs): with the index files gone, only the runs given it start.
    for file in ["ids.u64", "out.idx", "in.idx"] {
        std::fs::remove_file(f.graph.file_path(file)).unwrap();
    }
    for alg in ["bc", "pagerank"] {
        let mut req = request(alg, "selective", 2 << 20);
        assert!(registry::run(&f.graph, &req).is_err(), "{alg}: the files are gone");
        req.index = Some(index.clone());
        registry::run(&f.graph, &req).unwrap_or_else(|e| panic!("{alg}: {e}"));
    }
    let other = fixture("gnm", gen::gnm(512, 3000, true, 74), Keep::all(), Naming::Dense);
    let req = RunRequest {
        index: Some(registry::load_index(&other.graph).unwrap()),
        ..RunRequest::new("bfs")
    };
    let err = refusal(&f.graph, &req).to_string();
    assert!(err.contains("the loaded index is not that of"), "{err}");
}

/// Imports the edge list `text` to `path` as `diskgraph import --force` does, and publishes a
/// grid layout and two shards, so that every engine runs on it.
fn import_with_layouts(dir: &Path, path: &Path, text: &str) {
    let el = dir.join("edges.el");
    std::fs::write(&el, text).unwrap();
    let (mut src, _) = open_input(&el, &ParseOptions::default()).unwrap();
    let opts = ImportOptions {
        memory: 64 << 20,
        force: true,
        ..ImportOptions::default()
    };
    import(src.as_mut(), path, &opts, &mut NoProgress).unwrap();
    let grid = PartitionOptions {
        grid: Some(2),
        memory: 1 << 20,
        force: true,
        compress: None,
    };
    diskgraph_prep::partition(path, SortOrder::Grid, &grid, &mut NoProgress).unwrap();
    let shards = diskgraph_prep::ShardOptions {
        shards: Some(2),
        memory: 64 << 10,
        block_bytes: Some(4096),
        force: true,
        compress: None,
    };
    diskgraph_prep::partition_shards(path, &shards, &mut NoProgress).unwrap();
}

/// A graph replaced on disk after it was opened (another process's `import --force` to the
/// same path, of a graph of the same size) is refused by every engine, with a loaded index or
/// without, with one error: never answered through the old index or the old counts. Layouts
/// published meanwhile, and the same graph imported again, are not a replacement.
#[test]
fn a_graph_replaced_after_it_was_opened_is_refused_by_every_engine() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g");
    let forward: String = (1..40).map(|v| format!("{} {v}\n", v - 1)).collect();
    import_with_layouts(dir.path(), &path, &forward);
    let opened = GraphDir::open(&path).unwrap();
    let index = registry::load_index(&opened).unwrap();
    // Publishing layouts again and importing the same edges again keep the graph.
    import_with_layouts(dir.path(), &path, &forward);
    let mut req = request("pagerank", "selective", 2 << 20);
    req.index = Some(index.clone());
    registry::run(&opened, &req).expect("the same graph");

    let backward: String = (1..40).map(|v| format!("{v} {}\n", v - 1)).collect();
    import_with_layouts(dir.path(), &path, &backward);
    let engines = ["memory", "selective", "stream", "sync", "shards"];
    for (alg, engine) in engines
        .iter()
        .map(|e| ("pagerank", *e))
        .chain(engines[..4].iter().map(|e| ("bfs", *e)))
    {
        for loaded in [false, true] {
            let mut req = request(alg, engine, 2 << 20);
            if alg == "bfs" {
                req = req.with(&options::SOURCE, Value::Source(Source::Id(0)));
            }
            req.index = loaded.then(|| index.clone());
            let err = refusal(&opened, &req);
            let want = format!(
                "{}: the graph was replaced since it was opened (in.adj has xxh3 ",
                path.display()
            );
            assert!(
                matches!(
                    err,
                    AlgoError::Engine(EngineError::Format(FormatError::Replaced { .. }))
                ),
                "{alg} on {engine}, index loaded {loaded}: {err}"
            );
            assert!(err.to_string().starts_with(&want), "{err}");
        }
    }
    // An engine opened with the index outside the registry checks too.
    let params = diskgraph_engine::options::Params::new();
    let opts = diskgraph_engine::sync::SyncOptions {
        index: Some(index),
        ..<diskgraph_engine::sync::SyncGraph as diskgraph_engine::OpenEngine>::options(
            &opened,
            &diskgraph_engine::OpenRequest::new("bfs", &params, 1).unwrap(),
        )
        .unwrap()
    };
    let err = diskgraph_engine::sync::SyncGraph::open(&opened, &opts)
        .err()
        .expect("refused");
    assert!(
        matches!(err, EngineError::Format(FormatError::Replaced { .. })),
        "{err}"
    );
    // Opened again, the new graph runs.
    let reopened = GraphDir::open(&path).unwrap();
    let req = RunRequest {
        index: Some(registry::load_index(&reopened).unwrap()),
        ..request("pagerank", "selective", 2 << 20)
    };
    registry::run(&reopened, &req).expect("the new graph");
}

/// A static cache loaded once serves later runs: the same values, and the runs say it was
/// preloaded; loading one needs a selection.
#[test]
fn a_loaded_static_cache_serves_later_runs() {
    let f = fixture(
        "rmat 10 directed",
        gen::rmat(10, 8 << 10, true, 5),
        Keep::default(),
        Naming::Dense,
    );
    let gvs = f.selection.clone().expect("the fixture's selection");
    for alg in ["bfs", "diameter", "bc"] {
        let mut req = request(alg, "selective", 16 << 20).with(&BASC, Value::Text(gvs.clone()));
        if alg == "bc" {
            req = req.with(&bc::SAMPLES, Value::Count(16));
        }
        let loaded = registry::load_static_cache(&f.graph, &req.params, None).unwrap();
        let fresh = registry::run(&f.graph, &req).unwrap();
        req.static_cache = Some(loaded);
        let reused = registry::run(&f.graph, &req).unwrap();
        assert_close(&reused.values, &fresh.values, alg);
        assert_eq!(fresh.stats.settings["basc_preloaded"], false);
        assert_eq!(reused.stats.settings["basc_preloaded"], true);
    }
    let params = request("bfs", "selective", 16 << 20).params;
    let err = registry::load_static_cache(&f.graph, &params, None)
        .unwrap_err()
        .to_string();
    assert!(err.contains("needs a selection"), "{err}");
}

#[test]
fn sources_are_original_ids_and_bad_ones_are_refused() {
    let f = fixture(
        "gnm with sparse IDs",
        gen::gnm(200, 800, true, 3),
        Keep::default(),
        Naming::Sparse,
    );
    let ids = [f.id(7), f.id(0), f.id(7)];
    for engine in ["memory", "selective"] {
        let run = |req: RunRequest| registry::run(&f.graph, &req);
        let msbfs_from = |sources| request("msbfs", engine, 2 << 20).with(&msbfs::SOURCES, Value::Sources(sources));
        let out = run(msbfs_from(Sources::Ids(ids.to_vec()))).unwrap();
        assert_eq!(out.stats.settings["sources"], serde_json::json!(ids), "{engine}");
        let no_such =
            |r: Result<RunOutput, AlgoError>| matches!(r, Err(AlgoError::Engine(EngineError::NoSuchVertex(5))));
        assert!(no_such(run(msbfs_from(Sources::Ids(vec![5])))), "{engine}");
        let bfs_from = request("bfs", engine, 2 << 20).with(&options::SOURCE, Value::Source(Source::Id(5)));
        assert!(no_such(run(bfs_from)), "{engine}");
        for bad in [
            Sources::Ids(vec![]),
            Sources::Sample(0),
            Sources::Ids(vec![f.id(1); 65]),
        ] {
            assert!(
                matches!(run(msbfs_from(bad)), Err(AlgoError::InvalidSetting(_))),
                "{engine}"
            );
        }
        let x = request("spmv", engine, 2 << 20).with(&spmv::X, Value::Vector(vec![1.0; 3].into()));
        assert!(matches!(run(x), Err(AlgoError::InvalidSetting(_))), "{engine}");
    }
}

/// Imports a file of `testdata/real` as the command line does, without layouts.
fn import_real(file: &str) -> (tempfile::TempDir, GraphDir) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g");
    let (mut src, _) = open_input(&Path::new(REAL).join(file), &ParseOptions::default()).unwrap();
    let opts = ImportOptions {
        memory: 64 << 20,
        ..ImportOptions::default()
    };
    import(src.as_mut(), &path, &opts, &mut NoProgress).unwrap();
    let g = GraphDir::open(&path).unwrap();
    (dir, g)
}

/// Publishes the `sort` layout with `p` ranges of `g` and returns the graph opened again.
fn partitioned(g: &GraphDir, p: u32, sort: SortOrder) -> GraphDir {
    let opts = PartitionOptions {
        grid: Some(p),
        memory: 1 << 20,
        force: false,
        compress: None,
    };
    diskgraph_prep::partition(g.path(), sort, &opts, &mut NoProgress).unwrap();
    GraphDir::open(g.path()).unwrap()
}

#[test]
fn refusals_say_what_to_do() {
    let (_dir, g) = import_real("chesapeake.mtx");
    let refused = |g: &GraphDir, req: RunRequest| refusal(g, &req).to_string();
    // No layout yet: the command that makes one.
    let e = refused(&g, request("bfs", "stream", 1 << 20));
    assert!(e.contains("diskgraph partition"), "{e}");
    let e = refused(&g, request("mis", "stream", 1 << 20));
    assert!(e.contains("--sort source"), "{e}");
    partitioned(&g, 4, SortOrder::Grid);
    let g = partitioned(&g, 2, SortOrder::Source);
    // A layout the graph does not have: the ones it has.
    let e = refused(
        &g,
        request("bfs", "stream", 1 << 20).with(&LAYOUT, Value::Text("grid-7".into())),
    );
    assert!(
        e.contains("no layout grid-7") && e.contains("grid-2-source, grid-4"),
        "{e}"
    );
    // An engine without the algorithm: the engines with it.
    for (alg, engine) in [
        ("kcore", "stream"),
        ("scc", "stream"),
        ("msbfs", "stream"),
        ("mis", "selective"),
    ] {
        let e = refused(&g, request(alg, engine, 1 << 20));
        assert!(
            e.contains(&format!("{alg} has no {engine} variant; use --engine")),
            "{e}"
        );
    }
    // Another engine's option.
    let union_find = request("wcc", "memory", 1 << 20).with(&wcc::METHOD, Value::Choice("union-find"));
    let e = refused(&g, union_find);
    assert!(e.contains("applies to the stream engine"), "{e}");
    // A budget too small: the smallest that works.
    for engine in ["selective", "stream"] {
        let e = refused(&g, request("bfs", engine, 4096));
        assert!(
            e.contains("memory budget of 4096 bytes") && e.contains("give it at least"),
            "{e}"
        );
    }
}

#[test]
fn a_damaged_graph_is_an_error_naming_the_file() {
    let f = fixture("gnm", gen::gnm(500, 3000, false, 41), Keep::default(), Naming::Dense);
    let adj = f.graph.file_path("out.adj");
    let mut bytes = std::fs::read(&adj).unwrap();
    bytes[1234 * 4..1235 * 4].copy_from_slice(&7_000_000u32.to_le_bytes());
    std::fs::write(&adj, &bytes).unwrap();
    // The fixture's compressed layouts are not damaged: the plain lists are read on purpose.
    for engine in [EngineKind::Memory, EngineKind::Selective] {
        let plain = request("pagerank", engine.name(), 2 << 20).with(&ADJACENCY, Value::Choice("plain"));
        let err = refusal(&f.graph, &plain);
        assert!(err.format_error().is_some(), "{engine}: {err:?}");
        let text = err.to_string();
        assert!(text.contains("out.adj") && text.contains("7000000"), "{engine}: {text}");
    }
}

/// BFS parents on the stream engine through the registry: a valid BFS tree in original IDs.
#[test]
fn parents_through_the_registry() {
    let f = fixture("grid", gen::grid(10, 12, false), Keep::default(), Naming::Sparse);
    let req = request("bfs", "stream", 2 << 20).with(&bfs::PARENTS, Value::Flag(true));
    let out = registry::run(&f.graph, &req).unwrap();
    let Values::Signed(parents) = out.values else {
        panic!("{:?}", out.values)
    };
    let parents: Vec<i64> = parents
        .iter()
        .map(|&p| if p < 0 { -1 } else { f.vertex(p as u64).unwrap() as i64 })
        .collect();
    let levels = oracle::bfs_levels(&f.test, 0);
    oracle::check_bfs_tree(&f.test, 0, &levels, &parents).unwrap();
}

#[test]
fn a_parent_tree_s_verifier_resolves_the_parents_only_when_the_ids_were_remapped() {
    // Plain lists on the selective engine: 12.125 bytes a vertex running; after it, the
    // verifier's 14.125, or 18.125 beside the 8 of the ID table when the parents are resolved.
    for (naming, per_vertex) in [(Naming::Dense, 14.125), (Naming::Sparse, 8.0 + 18.125)] {
        let f = fixture("rmat", gen::rmat(10, 1 << 13, false, 11), Keep::all(), naming);
        let req = request("bfs", "selective", 1 << 30)
            .with(&bfs::PARENTS, Value::Flag(true))
            .with(&VERIFY, Value::Flag(true));
        let least = registry::minimum_memory(&f.graph, &req).unwrap();
        let out = registry::run(&f.graph, &req.with(&MEMORY, Value::Size(least)))
            .unwrap_or_else(|e| panic!("{naming:?} at its least {least}: {e}"));
        assert_eq!(out.stats.memory_per_vertex, per_vertex, "{naming:?}");
    }
}

#[test]
fn rows_hold_ids_only_when_the_graph_remapped_them() {
    for (naming, identity) in [
        (Naming::Dense, true),
        (Naming::Sparse, false),
        (Naming::Reordered, false),
    ] {
        let f = fixture("rmat", gen::rmat(8, 1 << 10, false, 5), Keep::all(), naming);
        for engine in ["memory", "selective"] {
            let out = registry::run(&f.graph, &request("bfs", engine, 1 << 30)).unwrap();
            let ctx = format!("{naming:?} on {engine}");
            assert_eq!(matches!(out.vertex_ids, RowIds::Identity(_)), identity, "{ctx}");
            assert!(out.vertex_ids == f.ids, "{ctx}: the rows are the vertices by ID");
            registry::verify(&f.graph, &request("bfs", engine, 1 << 30), &out).unwrap();
        }
    }
}

#[test]
fn wcc_counts_the_components_and_the_largest_alike_on_every_engine() {
    for naming in [Naming::Dense, Naming::Sparse, Naming::Reordered] {
        // Sparse: many components, isolated vertices among them.
        let f = fixture("rmat", gen::rmat(10, 600, false, 11), Keep::all(), naming);
        let mut seen = Vec::new();
        for engine in ["memory", "selective", "sync"] {
            let req = request("wcc", engine, 1 << 30).with(&VERIFY, Value::Flag(true));
            let out = registry::run(&f.graph, &req).unwrap();
            let Values::Unsigned(labels) = &out.values else {
                panic!("{:?}", out.values)
            };
            let mut sizes = std::collections::HashMap::new();
            labels.iter().for_each(|&l| *sizes.entry(l).or_insert(0u64) += 1);
            let setting = |name: &str| out.stats.settings[name].as_u64().unwrap();
            let ctx = format!("{naming:?} on {engine}");
            assert!(sizes.len() > 100, "{ctx}: {} components", sizes.len());
            assert_eq!(setting("components"), sizes.len() as u64, "{ctx}");
            assert_eq!(setting("largest"), *sizes.values().max().unwrap(), "{ctx}");
            seen.push(out.values);
        }
        assert!(
            seen.windows(2).all(|w| w[0] == w[1]),
            "{naming:?}: the engines' labels differ"
        );
    }
}

#[test]
fn a_run_below_its_stated_minimum_is_refused_before_reading_and_runs_at_it() {
    let el = gen::rmat(12, 32 << 10, false, 73);
    let f = fixture("rmat", el, Keep::all(), Naming::Dense);
    let n = f.graph.manifest().num_vertices;
    let verified = |alg| request(alg, "selective", 1 << 30).with(&VERIFY, Value::Flag(true));
    let mut requests: Vec<RunRequest> = [
        "bfs",
        "sp",
        "wcc",
        "pagerank",
        "kcore",
        "spmv",
        "randomwalk",
        "triangles",
        "msbfs",
        "sssp",
    ]
    .into_iter()
    .map(verified)
    .collect();
    // The options that change the arrays: a given x, held beside its copy; more walks than
    // vertices, whose lists then reach an entry a vertex.
    requests.push(verified("spmv").with(&spmv::X, Value::Vector(vec![1.0; n as usize].into())));
    requests.push(verified("randomwalk").with(&randomwalk::WALKS, Value::Count(4 * n)));
    for req in requests {
        let alg = req.algorithm.clone();
        let least = registry::minimum_memory(&f.graph, &req).unwrap();
        // The run's state (bytes a vertex × vertices) is part of the least.
        let at = registry::run(&f.graph, &req.clone().with(&MEMORY, Value::Size(least)))
            .unwrap_or_else(|e| panic!("{alg} at its least {least}: {e}"));
        assert_eq!(at.stats.minimum_memory, least, "{alg}");
        let n = n as f64;
        assert!(
            at.stats.memory_per_vertex >= diskgraph_algo::footprint::RESULT_BYTES,
            "{alg}: {}",
            at.stats.memory_per_vertex
        );
        assert!(
            at.stats.settings["engine_memory"].as_u64().unwrap() as f64
                <= least as f64 - at.stats.memory_per_vertex * n + 1.0,
            "{alg}"
        );
        assert!(
            at.stats.peak_engine_memory <= at.stats.settings["engine_memory"].as_u64().unwrap(),
            "{alg}"
        );
        let below = req.clone().with(&MEMORY, Value::Size(least - 1));
        let e = refusal(&f.graph, &below).to_string();
        assert!(
            e.contains("too small for this run")
                && e.ends_with(&format!("give it at least {}", diskgraph_engine::human_minimum(least))),
            "{alg}: {e}"
        );
    }
    // Refused before reading: with the lists gone, the refusal is still the budget's.
    std::fs::remove_file(f.graph.path().join("out.adj")).unwrap();
    let req = request("bfs", "selective", 1 << 30);
    let least = registry::minimum_memory(&f.graph, &req).unwrap();
    let e = refusal(&f.graph, &req.with(&MEMORY, Value::Size(least / 2))).to_string();
    assert!(e.contains("too small for this run"), "{e}");
}
