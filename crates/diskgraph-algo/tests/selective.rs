//! Every algorithm on the selective engine against the memory engine and the testkit's oracles,
//! on real graph directories written by the importer from seeded testkit graphs (hubs, long
//! paths, isolated vertices, self-loops and duplicates kept, directed and undirected, weighted),
//! × every I/O backend this machine runs × both schedulers × blocks of 512 and 4096 bytes. Reads
//! are at most four blocks, so lists routinely arrive in pieces, and the budget is small, so
//! k-core assembles its lists in several batches.
//!
//! Small graphs get the full matrix; bigger ones (a 20 000-vertex star whose hub list spans
//! dozens of reads, a 1 500-vertex path that needs thousands of rounds) a few configurations.

mod support;

use diskgraph_algo::registry::{self, RunError, RunRequest, Sources, Values};
use diskgraph_algo::selective::{self, SelectiveError};
use diskgraph_algo::{bfs, msbfs, spmv, AlgoError, PageRank};
use diskgraph_engine::selective::{
    BackendKind, EdgeFn, EdgeMapOptions, EngineError, FrontierBuilder, Mode, SchedulerKind, SelectiveGraph,
    VertexSubset,
};
use diskgraph_engine::MemoryGraph;
use diskgraph_format::{Direction, FormatError};
use diskgraph_testkit::gen::{self, Weights};
use diskgraph_testkit::{oracle, EdgeList, Keep, TestGraph};
use support::{
    configs, few_configs, open, open_with, store, store_with_ids, with_loops_and_duplicates, Config, Stored,
};

/// The budget of most runs: small enough that k-core's assembly (half of it) takes several
/// batches on the bigger graphs.
const MEMORY: u64 = 256 << 10;

/// Small nasty graphs: the full matrix runs on each.
fn small_graphs() -> Vec<Stored> {
    vec![
        store(
            "weighted directed multigraph with loops",
            &gen::with_weights(
                with_loops_and_duplicates(gen::gnm(300, 1500, true, 1), 300, 1),
                Weights::Integer(4),
                1,
            ),
            Keep::all(),
        ),
        store(
            "weighted undirected gnm",
            &gen::with_weights(gen::gnm(400, 1600, false, 2), Weights::Uniform(0.0, 1.0), 2),
            Keep::default(),
        ),
        store(
            "undirected multigraph with loops, zero weights",
            &gen::with_weights(
                with_loops_and_duplicates(gen::gnm(200, 500, false, 3), 200, 3),
                Weights::Zero,
                3,
            ),
            Keep::all(),
        ),
        store(
            "rmat scale 10 directed, relabelled",
            &gen::relabel(gen::rmat(10, 8 << 10, true, 4), 4),
            Keep::default(),
        ),
        store(
            "disconnected + path + isolated, undirected",
            &gen::relabel(
                gen::add_isolated(gen::union(gen::gnm(300, 600, false, 5), gen::path(300, false)), 150),
                5,
            ),
            Keep::default(),
        ),
        store("grid 20x30 directed", &gen::grid(20, 30, true), Keep::default()),
        store(
            "cycle chain (directed, strongly connected parts)",
            &gen::relabel(gen::cycle_chain(30, 10, 2, 20, 6), 6),
            Keep::all(),
        ),
        store(
            "dag with negative weights",
            &gen::with_weights(gen::dag(300, 900, 7), Weights::WithNegative, 7),
            Keep::default(),
        ),
        store(
            "star 3000 undirected with noise",
            &gen::star(3000, 300, false, 8),
            Keep::all(),
        ),
        store(
            "single vertex with self-loops",
            &EdgeList::new(1, true, vec![(0, 0), (0, 0)]),
            Keep::all(),
        ),
        store(
            "two isolated vertices",
            &EdgeList::new(2, false, vec![]),
            Keep::default(),
        ),
    ]
}

/// Sources to try: first, last, middle and the vertex of largest out-degree.
fn sources(t: &TestGraph) -> Vec<u32> {
    let n = t.num_vertices as u32;
    let mut deg = vec![0usize; n as usize];
    for &(s, _) in &t.arcs {
        deg[s as usize] += 1;
    }
    let hub = (0..n).max_by_key(|&v| (deg[v as usize], std::cmp::Reverse(v))).unwrap();
    let mut s = vec![0, n - 1, n / 2, hub];
    s.sort_unstable();
    s.dedup();
    s
}

/// A deterministic `x` for spmv, with negative, zero and fractional entries.
fn x_of(n: usize) -> Vec<f64> {
    (0..n).map(|v| ((v * 7919) % 13) as f64 * 0.75 - 4.5).collect()
}

/// `y = Aᵀx` from the arc list (the arcs in CSR order, summed in arc order).
fn spmv_oracle(t: &TestGraph, x: &[f64]) -> Vec<f64> {
    let mut y = vec![0.0; t.num_vertices];
    for (i, &(s, d)) in t.arcs.iter().enumerate() {
        y[d as usize] += t.weight(i) as f64 * x[s as usize];
    }
    y
}

fn assert_close(got: &[f64], want: &[f64], rel: f64, ctx: &str) {
    assert_eq!(got.len(), want.len(), "{ctx}");
    for (v, (a, b)) in got.iter().zip(want).enumerate() {
        if a == b {
            continue;
        }
        let tol = rel * a.abs().max(b.abs()).max(1e-300);
        assert!((a - b).abs() <= tol, "{ctx}: vertex {v}: {a} vs {b}");
    }
}

/// What every configuration must reproduce on one graph: the oracles' and the memory engine's
/// answers, computed once.
struct Expected {
    sources: Vec<u32>,
    levels: Vec<Vec<i64>>,
    memory_iterations: Vec<usize>,
    dist: Vec<Option<Vec<f64>>>,
    bad_weight: Option<(u32, u32, f32)>,
    wcc: Vec<u32>,
    core: Vec<u32>,
    pagerank_fixed: Vec<f64>,
    pagerank_tight: Vec<f64>,
    pagerank_iterations: usize,
    msbfs_sources: Vec<u32>,
    msbfs: diskgraph_algo::MultiBfs,
    x: Vec<f64>,
    spmv: Vec<f64>,
}

const TOL: f64 = 1e-12;

fn expected(s: &Stored) -> Expected {
    let t = &s.test;
    let n = t.num_vertices;
    let m = MemoryGraph::load(&s.graph, true, true).unwrap();
    let sources = sources(t);
    let bad_weight = oracle::first_bad_weight(t);
    let msbfs_sources: Vec<u32> = (0..n as u32).step_by((n / 50).max(1)).take(64).collect();
    let x = x_of(n);
    let mem_spmv = spmv(&m, &x).unwrap();
    assert_close(
        &mem_spmv.y,
        &spmv_oracle(t, &x),
        1e-9,
        &format!("spmv oracle, {}", s.name),
    );
    let msbfs = msbfs(&m, &msbfs_sources, true).unwrap();
    let matrix = msbfs.distances.as_ref().unwrap();
    for (i, &s0) in msbfs_sources.iter().enumerate().step_by(7) {
        let want: Vec<u32> = oracle::bfs_levels(t, s0)
            .iter()
            .map(|&l| if l < 0 { u32::MAX } else { l as u32 })
            .collect();
        assert_eq!(&matrix[i * n..(i + 1) * n], &want[..], "msbfs source {s0}, {}", s.name);
    }
    Expected {
        levels: sources.iter().map(|&src| oracle::bfs_levels(t, src)).collect(),
        memory_iterations: sources
            .iter()
            .map(|&src| bfs(&m, src, false).unwrap().iterations)
            .collect(),
        dist: sources
            .iter()
            .map(|&src| bad_weight.is_none().then(|| oracle::dijkstra(t, src)))
            .collect(),
        sources,
        bad_weight,
        wcc: oracle::wcc(t),
        core: oracle::core_number(t),
        pagerank_fixed: PageRank::new().fixed_iterations(Some(20)).run(&m).unwrap().ranks,
        pagerank_tight: oracle::pagerank(t, 0.85, 1e-15, 3000, None).0,
        pagerank_iterations: PageRank::new()
            .tolerance(TOL)
            .max_iterations(1000)
            .run(&m)
            .unwrap()
            .iterations,
        msbfs_sources,
        msbfs,
        x,
        spmv: mem_spmv.y,
    }
}

/// Every algorithm on `s` with configuration `cfg`.
fn check(s: &Stored, e: &Expected, cfg: &Config, memory: u64) {
    let t = &s.test;
    let n = t.num_vertices;
    let ctx = format!("{} [{}]", s.name, cfg.name);
    let g = open(s, &cfg.io, memory);
    for (i, &src) in e.sources.iter().enumerate() {
        let b = selective::bfs(&g, src, true).unwrap();
        assert_eq!(b.levels, e.levels[i], "bfs, {ctx}, source {src}");
        oracle::check_bfs_tree(t, src, &b.levels, b.parents.as_ref().unwrap())
            .unwrap_or_else(|err| panic!("bfs tree, {ctx}, source {src}: {err}"));
        assert_eq!(b.iterations, e.memory_iterations[i], "{ctx}");
        match (&e.dist[i], e.bad_weight) {
            (None, Some((a, b, w))) => match selective::sssp(&g, src) {
                Err(SelectiveError::Algo(AlgoError::NegativeWeight { src, dst, weight })) => {
                    assert_eq!((src, dst, weight.to_bits()), (a, b, w.to_bits()), "{ctx}")
                }
                other => panic!("{ctx}: sssp should refuse the weight {w} of {a}->{b}: {other:?}"),
            },
            (Some(want), _) => {
                assert_eq!(
                    &selective::sssp(&g, src).unwrap().dist,
                    want,
                    "sssp, {ctx}, source {src}"
                );
                let got = selective::sssp_with_delta(&g, src, 1e12).unwrap();
                assert_eq!(&got.dist, want, "sssp as Bellman-Ford, {ctx}, source {src}");
            }
            (None, None) => unreachable!(),
        }
    }
    assert_eq!(selective::wcc(&g).unwrap().labels, e.wcc, "wcc, {ctx}");
    let k = selective::kcore(&g).unwrap();
    assert_eq!(k.core, e.core, "kcore, {ctx}");

    // PageRank: fixed iterations are the power iteration (identical up to the last bits of
    // lists split across reads); to a tolerance, within the tolerance's error bound of the fixed
    // point.
    let got = selective::pagerank(&g, &PageRank::new().fixed_iterations(Some(20))).unwrap();
    assert_eq!(got.iterations, 20);
    assert_close(&got.ranks, &e.pagerank_fixed, 1e-12, &format!("pagerank fixed, {ctx}"));
    let got = selective::pagerank(&g, &PageRank::new().tolerance(TOL).max_iterations(1000)).unwrap();
    assert!(got.converged, "{ctx}");
    let l1: f64 = got
        .ranks
        .iter()
        .zip(&e.pagerank_tight)
        .map(|(a, b)| (a - b).abs())
        .sum();
    assert!(
        l1 <= 12.0 * n as f64 * TOL,
        "pagerank to {TOL}, {ctx}: L1 {l1} from the fixed point"
    );
    assert!(
        got.iterations.abs_diff(e.pagerank_iterations) <= 5,
        "{ctx}: {} vs {}",
        got.iterations,
        e.pagerank_iterations
    );

    // Multi-source BFS: identical to the memory engine (checked against the oracle once).
    assert_eq!(
        selective::msbfs(&g, &e.msbfs_sources, true).unwrap(),
        e.msbfs,
        "msbfs, {ctx}"
    );

    // SpMV: as the memory engine, up to the last bits of split lists.
    let got = selective::spmv(&g, &e.x).unwrap();
    assert_close(&got.y, &e.spmv, 1e-13, &format!("spmv, {ctx}"));

    // The I/O counters made it to the stats.
    let mut stats = diskgraph_engine::RunStats::default();
    g.record(&mut stats);
    if t.num_arcs() > 0 {
        assert!(
            stats.bytes_read > 0 && stats.io_requests > 0 && stats.blocks_after_dedup > 0,
            "{ctx}: {stats:?}"
        );
        assert!(stats.blocks_requested >= stats.blocks_after_dedup, "{ctx}");
    }
    // Within the budget, unless one vertex's lists alone exceed k-core's assembly share.
    let mut lists = vec![0u64; n];
    for &(a, b) in &t.arcs {
        lists[a as usize] += 4;
        if t.directed {
            lists[b as usize] += 4;
        }
    }
    let largest = lists.iter().copied().max().unwrap_or(0);
    let share = stats.settings["assembly_bytes"].as_u64().unwrap();
    let allowed = if largest > share {
        memory - share + largest
    } else {
        memory
    };
    assert!(
        stats.peak_engine_memory <= allowed,
        "{ctx}: {} > {allowed}",
        stats.peak_engine_memory
    );
    assert!(stats.settings.contains_key("io_backend") && stats.settings.contains_key("scheduler"));
}

#[test]
fn small_graphs_every_configuration() {
    let graphs = small_graphs();
    let expected: Vec<Expected> = graphs.iter().map(expected).collect();
    for cfg in &configs() {
        for (s, e) in graphs.iter().zip(&expected) {
            check(s, e, cfg, MEMORY);
        }
    }
}

#[test]
fn bigger_graphs_some_configurations() {
    let graphs = [
        store(
            "star 20000 directed (hub spans many reads)",
            &gen::with_weights(gen::star(20_000, 2_000, true, 11), Weights::Uniform(1e-3, 1e3), 11),
            Keep::default(),
        ),
        store(
            "path 1500 directed, relabelled, weighted",
            &gen::with_weights(gen::relabel(gen::path(1500, true), 12), Weights::Integer(2), 12),
            Keep::default(),
        ),
        store(
            "rmat scale 13 undirected with duplicates",
            &gen::rmat(13, 12 << 13, false, 13),
            Keep::all(),
        ),
    ];
    let expected: Vec<Expected> = graphs.iter().map(expected).collect();
    for cfg in &few_configs() {
        for (s, e) in graphs.iter().zip(&expected) {
            check(s, e, cfg, MEMORY);
        }
    }
}

#[test]
fn directed_graph_without_in_edges_pushes_only() {
    let s = store(
        "rmat directed",
        &gen::with_weights(gen::rmat(9, 4 << 9, true, 21), Weights::Integer(5), 21),
        Keep::default(),
    );
    let cfg = &configs()[0];
    let g = open_with(&s.graph, &cfg.io, MEMORY, false);
    let t = &s.test;
    for src in sources(t) {
        assert_eq!(
            selective::bfs(&g, src, false).unwrap().levels,
            oracle::bfs_levels(t, src)
        );
        assert_eq!(selective::sssp(&g, src).unwrap().dist, oracle::dijkstra(t, src));
    }
    let m = MemoryGraph::load(&s.graph, false, false).unwrap();
    assert_eq!(
        selective::msbfs(&g, &[0, 5, 9], true).unwrap(),
        msbfs(&m, &[0, 5, 9], true).unwrap()
    );
    assert!(matches!(
        selective::pagerank(&g, &PageRank::new()),
        Err(SelectiveError::Algo(AlgoError::MissingInEdges("pagerank")))
    ));
    assert!(matches!(
        selective::wcc(&g),
        Err(SelectiveError::Engine(EngineError::MissingInEdges))
    ));
    assert!(matches!(
        selective::spmv(&g, &x_of(t.num_vertices)),
        Err(SelectiveError::Algo(AlgoError::MissingInEdges("spmv")))
    ));
}

#[test]
fn edge_map_push_and_pull_agree() {
    // A two-hop expansion from a big frontier, forced push and forced pull, along both
    // directions: the same next frontier either way.
    struct Touch;
    impl EdgeFn for Touch {
        fn update(&self, _s: u32, _d: u32, _w: f32) -> bool {
            true
        }
    }
    let s = store("rmat", &gen::rmat(11, 8 << 11, true, 31), Keep::all());
    let t = &s.test;
    let n = t.num_vertices;
    let g = open(&s, &configs()[0].io, MEMORY);
    for frontier in [
        VertexSubset::from_vertices(n, vec![1, 7, 300]),
        VertexSubset::from_fn(n, |v| v % 3 == 0),
    ] {
        for along in [Direction::Out, Direction::In] {
            let mut want = vec![false; n];
            for &(a, b) in &t.arcs {
                let (s0, d0) = if along == Direction::Out { (a, b) } else { (b, a) };
                if frontier.contains(s0) {
                    want[d0 as usize] = true;
                }
            }
            let want: Vec<u32> = (0..n as u32).filter(|&v| want[v as usize]).collect();
            for mode in [Mode::Push, Mode::Pull, Mode::Auto] {
                let opts = EdgeMapOptions::along(along).mode(mode);
                let out = FrontierBuilder::new(n);
                let used = g.edge_map_into(&frontier, &Touch, &opts, &out).unwrap();
                assert!(mode == Mode::Auto || used == mode);
                let mut out = out;
                assert_eq!(out.take().to_vec(), want, "{along:?} {mode:?}");
            }
        }
    }
}

#[test]
fn corrupt_neighbour_is_an_error_not_a_panic() {
    let s = store("gnm", &gen::gnm(500, 3000, false, 41), Keep::default());
    let adj = s.graph.file_path("out.adj");
    let mut bytes = std::fs::read(&adj).unwrap();
    let at = 1234 * 4;
    bytes[at..at + 4].copy_from_slice(&7_000_000u32.to_le_bytes());
    std::fs::write(&adj, &bytes).unwrap();
    for cfg in configs() {
        let g = open(&s, &cfg.io, MEMORY);
        let all = VertexSubset::all(500);
        let err = g.for_each_piece(Direction::Out, &all, false, |_, _| {}).unwrap_err();
        match err {
            EngineError::Format(FormatError::NeighbourOutOfRange { index, value, .. }) => {
                assert_eq!((index, value), (1234, 7_000_000), "{}", cfg.name)
            }
            other => panic!("{}: {other}", cfg.name),
        }
        assert!(
            selective::wcc(&g).is_err() && selective::kcore(&g).is_err() && selective::spmv(&g, &x_of(500)).is_err()
        );
    }
    // Through the registry: a graph format error naming the file.
    let mut req = RunRequest::new("pagerank");
    req.engine = "selective".into();
    req.memory = MEMORY;
    let err = registry::run(&s.graph, &req).unwrap_err();
    assert!(matches!(err, RunError::Format(_)), "{err}");
    assert!(
        err.to_string().contains("out.adj") && err.to_string().contains("7000000"),
        "{err}"
    );
}

#[test]
fn budget_too_small_is_refused() {
    let s = store("gnm", &gen::gnm(100, 300, true, 51), Keep::default());
    let opts = diskgraph_engine::selective::SelectiveOptions {
        memory: 4096,
        ..Default::default()
    };
    assert!(matches!(
        SelectiveGraph::open(&s.graph, &opts),
        Err(EngineError::BudgetTooSmall { .. })
    ));
    let mut req = RunRequest::new("bfs");
    req.engine = "selective".into();
    req.memory = 4096;
    let err = registry::run(&s.graph, &req).unwrap_err();
    assert!(matches!(&err, RunError::Setting(m) if m.contains("budget")), "{err}");
}

/// The registry: `auto` picks by budget and says so; both engines give the same values in
/// original IDs (the graph's IDs are remapped), for every algorithm.
#[test]
fn registry_engines_agree_in_original_ids() {
    let el = gen::with_weights(
        gen::relabel(gen::rmat(10, 8 << 10, true, 61), 61),
        Weights::Integer(3),
        61,
    );
    let s = store_with_ids("rmat with sparse IDs", &el, Keep::all(), |v| {
        1_000_000 + 7 * u64::from(v)
    });
    let base = |alg: &str, engine: &str| {
        let mut r = RunRequest::new(alg);
        r.engine = engine.into();
        r.memory = 16 << 10;
        r.threads = Some(2);
        r.io = support::io(BackendKind::Pread, SchedulerKind::Bitmap, 512);
        r.source = registry::Source::MaxDegree;
        r.sources = Sources::Sample(20);
        r.tolerance = 1e-13;
        r
    };
    for (alg, _) in registry::ALGORITHMS {
        let mem = registry::run(&s.graph, &base(alg, "memory")).unwrap();
        assert_eq!(mem.stats.engine, "memory");
        if matches!(*alg, "scc" | "mis") {
            // No selective variant (mis runs on the memory and stream engines).
            assert!(registry::run(&s.graph, &base(alg, "selective")).is_err());
            continue;
        }
        let auto = registry::run(&s.graph, &base(alg, "auto")).unwrap();
        assert_eq!(auto.stats.engine, "selective", "{alg}: the CSR exceeds 16 KiB");
        assert!(auto.summary.contains("engine auto: selective"), "{}", auto.summary);
        let mut big = base(alg, "auto");
        big.memory = 1 << 30;
        let picked = registry::run(&s.graph, &big).unwrap();
        assert_eq!(picked.stats.engine, "memory");
        assert!(picked.summary.contains("engine auto: memory"), "{}", picked.summary);
        let sel = registry::run(&s.graph, &base(alg, "selective")).unwrap();
        assert_eq!(sel.vertex_ids, mem.vertex_ids);
        assert_eq!(sel.stats.engine, "selective");
        assert!(sel.stats.bytes_read > 0 && sel.stats.io_requests > 0, "{alg}");
        assert_eq!(sel.stats.settings["io_backend"], "pread");
        match (&sel.values, &mem.values) {
            (Values::Float(a), Values::Float(b)) if *alg == "pagerank" => {
                let l1: f64 = a.iter().zip(b).map(|(x, y)| (x - y).abs()).sum();
                assert!(l1 < 1e-9, "pagerank L1 {l1}");
            }
            (Values::Float(a), Values::Float(b)) => assert_close(a, b, 1e-13, alg),
            (a, b) => assert_eq!(a, b, "{alg}"),
        }
    }
    // msbfs sources by ID, and a bad one; spmv's x length is checked.
    let mut r = base("msbfs", "selective");
    r.sources = "1000000,1000007,".parse().unwrap();
    let out = registry::run(&s.graph, &r).unwrap();
    assert_eq!(out.stats.settings["sources"], serde_json::json!([1_000_000, 1_000_007]));
    r.sources = Sources::Ids(vec![5]);
    assert!(matches!(registry::run(&s.graph, &r), Err(RunError::NoSuchVertex(5))));
    let mut r = base("spmv", "selective");
    r.x = Some(vec![1.0; 3]);
    assert!(matches!(registry::run(&s.graph, &r), Err(RunError::Setting(_))));
}

/// A loaded index serves runs as reading it does: the same values and IDs for every algorithm
/// on both engines (a directed graph with sparse IDs and stored in-edges), and the runs say so;
/// another graph's index is refused.
#[test]
fn a_loaded_index_gives_the_same_runs() {
    let el = gen::relabel(gen::rmat(9, 4 << 10, true, 73), 73);
    let s = store_with_ids("rmat with sparse IDs", &el, Keep::all(), |v| 500 + 3 * u64::from(v));
    let index = registry::load_index(&s.graph).unwrap();
    let n = s.graph.num_vertices();
    assert_eq!(index.bytes(), 8 * (n + 2 * (n + 1)), "IDs and both directions' offsets");
    for engine in ["memory", "selective"] {
        for (alg, _) in registry::ALGORITHMS {
            let mut r = RunRequest::new(alg);
            r.engine = engine.into();
            r.memory = if engine == "memory" { 1 << 30 } else { 16 << 10 };
            r.threads = Some(2);
            r.io = support::io(BackendKind::Pread, SchedulerKind::Bitmap, 512);
            r.source = registry::Source::MaxDegree;
            r.sources = Sources::Sample(20);
            r.samples = Some(9);
            let read = match registry::run(&s.graph, &r) {
                Ok(read) => read,
                Err(e) => {
                    assert!(
                        engine == "selective" && matches!(*alg, "scc" | "mis"),
                        "{alg} on {engine}: {e}"
                    );
                    continue;
                }
            };
            r.index = Some(index.clone());
            let loaded = registry::run(&s.graph, &r).unwrap();
            assert_eq!(loaded.vertex_ids, read.vertex_ids, "{alg} on {engine}");
            match (&loaded.values, &read.values) {
                (Values::Float(a), Values::Float(b)) => assert_close(a, b, 1e-12, alg),
                (a, b) => assert_eq!(a, b, "{alg} on {engine}"),
            }
            assert_eq!(loaded.stats.settings["index_preloaded"], true);
            assert!(!read.stats.settings.contains_key("index_preloaded"));
        }
    }
    // Selective runs use the loaded index (the memory engine loads its CSR, offsets included,
    // and takes only the IDs): with the index files gone, only the runs given it start.
    for file in ["ids.u64", "out.idx", "in.idx"] {
        std::fs::remove_file(s.graph.file_path(file)).unwrap();
    }
    for alg in ["bc", "pagerank"] {
        let mut r = RunRequest::new(alg);
        r.engine = "selective".into();
        r.memory = 16 << 10;
        r.io = support::io(BackendKind::Pread, SchedulerKind::Bitmap, 512);
        assert!(registry::run(&s.graph, &r).is_err(), "{alg}: the files are gone");
        r.index = Some(index.clone());
        registry::run(&s.graph, &r).unwrap_or_else(|e| panic!("{alg}: {e}"));
    }
    let other = store("gnm", &gen::gnm(512, 3000, true, 74), Keep::all());
    let mut r = RunRequest::new("bfs");
    r.index = Some(registry::load_index(&other.graph).unwrap());
    let err = registry::run(&s.graph, &r).unwrap_err();
    assert!(err.to_string().contains("the loaded index is not that of"), "{err}");
}

#[test]
fn sources_parse() {
    assert_eq!("12".parse::<Sources>(), Ok(Sources::Sample(12)));
    assert_eq!("3,9".parse::<Sources>(), Ok(Sources::Ids(vec![3, 9])));
    assert_eq!("7,".parse::<Sources>(), Ok(Sources::Ids(vec![7])));
    assert!("a,b".parse::<Sources>().is_err() && "x".parse::<Sources>().is_err());
}

/// A graph whose BFS from vertex 0 pulls twice: a hub (0) with 1000 spokes, a leaf behind each
/// spoke, and 500 separate edges the BFS never reaches. The first pull reads the leaves' and the
/// separate edges' lists; the second finds the separate edges' lists retained.
fn spokes_and_pairs() -> EdgeList {
    let mut edges: Vec<(u32, u32)> = (1..=1000).map(|i| (0, i)).collect();
    edges.extend((1..=1000).map(|i| (i, 1000 + i)));
    edges.extend((0..500).map(|k| (2001 + 2 * k, 2002 + 2 * k)));
    EdgeList {
        num_vertices: 3001,
        directed: false,
        edges,
        weights: None,
    }
}

#[test]
fn retained_lists_serve_later_rounds_with_the_same_answers() {
    let memory = 64 << 20;
    let s = store("spokes and pairs", &spokes_and_pairs(), Keep::default());
    for cfg in &few_configs() {
        let g = open(&s, &cfg.io, memory);
        let b = selective::bfs(&g, 0, false).unwrap();
        assert_eq!(b.levels, oracle::bfs_levels(&s.test, 0), "{}", cfg.name);
        let mut stats = diskgraph_engine::RunStats::default();
        g.record(&mut stats);
        let served = stats.settings["retained_lists_served"].as_u64().unwrap();
        assert!(
            served >= 1000,
            "{}: {served} lists served from retained lists",
            cfg.name
        );
    }
    // Everything else, with a budget that leaves room for retention, on the nasty graphs.
    let mut graphs = small_graphs();
    graphs.push(s);
    let expected: Vec<Expected> = graphs.iter().map(expected).collect();
    for cfg in &few_configs() {
        for (s, e) in graphs.iter().zip(&expected) {
            check(s, e, cfg, memory);
        }
    }
}

#[test]
fn retention_off_reads_everything_again() {
    let s = store("spokes and pairs", &spokes_and_pairs(), Keep::default());
    let mut req = RunRequest::new("bfs");
    req.engine = "selective".into();
    req.source = registry::Source::Id(0);
    req.memory = 64 << 20;
    let on = registry::run(&s.graph, &req).unwrap();
    req.retain_lists = false;
    let off = registry::run(&s.graph, &req).unwrap();
    assert_eq!(on.values, off.values);
    assert_eq!(off.stats.settings["retained_lists_served"], 0);
    assert!(on.stats.settings["retained_lists_served"].as_u64().unwrap() > 0);
    assert!(
        off.stats.bytes_read > on.stats.bytes_read,
        "{} vs {}",
        off.stats.bytes_read,
        on.stats.bytes_read
    );
}
