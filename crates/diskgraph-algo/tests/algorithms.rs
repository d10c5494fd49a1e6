//! The algorithms' promises beyond the answers the harness compares with the oracles: long
//! paths and far-apart buckets neither overflow nor crawl; empty graphs give empty results;
//! directed graphs opened without in-edges give the same traversals (BFS one iteration per
//! level) and the algorithms that pull refuse them; sources out of range, bad settings and
//! inputs, negative and NaN weights are refused (NaN weights and directed graphs by mst); SSSP
//! with any Δ; PageRank's iteration counts; the component helpers; unnormalized betweenness and
//! the textbook path; the diameter bound exact on trees; random walks the same on any number of
//! threads; triangles counted in chunks within the selective engine's smallest budget.

use diskgraph_algo::{
    bc, betweenness, bfs, diameter, kcore, msbfs, mst, pagerank, scc, spmv, sssp, sssp_with_delta, triangles, wcc,
    AlgoError, BcOptions, PageRank, RandomWalk, Semiring,
};
use diskgraph_engine::selective::{SelectiveGraph, SelectiveOptions};
use diskgraph_engine::stream::{StreamGraph, StreamOptions};
use diskgraph_engine::{EngineError, MemoryGraph};
use diskgraph_testkit::gen::{self, Weights};
use diskgraph_testkit::harness::{corpus, Case, Fixture};
use diskgraph_testkit::{oracle, EdgeList, Keep, TestGraph};

/// `el` imported keeping what `keep` says, with dense IDs.
fn fixture(name: &str, el: EdgeList, keep: Keep) -> Fixture {
    Fixture::new(&Case::new(name, el, keep))
}

/// Opens `f` on the selective engine with weights and list assembly; `need_in` opens the
/// in-edges of a directed graph.
fn open_selective(f: &Fixture, need_in: bool) -> SelectiveGraph {
    let opts = SelectiveOptions {
        memory: 8 << 20,
        need_in,
        need_weights: true,
        assemble_lists: true,
        ..SelectiveOptions::default()
    };
    SelectiveGraph::open(&f.graph, &opts).unwrap_or_else(|e| panic!("open {}: {e}", f.name))
}

/// The directed graphs of the harness's seeded and nasty corpora stored in their own order
/// (internal IDs are test vertices): sparse and dense, hubs, DAGs, grids, a long path,
/// self-loops and duplicates, weights of every kind.
fn directed_cases() -> Vec<Case> {
    let cases = corpus::seeded().into_iter().chain(corpus::nasty());
    cases.filter(|c| c.edges.directed && !c.reordered).collect()
}

#[test]
fn long_paths_do_not_overflow_or_crawl() {
    const N: usize = 100_000;
    for directed in [true, false] {
        for relabelled in [false, true] {
            let mut el = gen::path(N, directed);
            if relabelled {
                el = gen::relabel(el, 3);
            }
            let el = gen::with_weights(el, Weights::Integer(2), 4);
            let g = el.build(Keep::default());
            for m in [g.memory_graph(true), g.memory_graph(false)] {
                let first = el.edges[0].0;
                let b = bfs(&m, first, true).unwrap();
                assert_eq!(b.levels, oracle::bfs_levels(&g, first));
                assert_eq!(b.iterations, N);
                assert_eq!(sssp(&m, first).unwrap().dist, oracle::dijkstra(&g, first));
                let mid = el.edges[N / 2].0;
                assert_eq!(bfs(&m, mid, false).unwrap().levels, oracle::bfs_levels(&g, mid));
                assert_eq!(scc(&m).unwrap().labels, oracle::scc(&g));
                assert_eq!(wcc(&m).unwrap().labels, oracle::wcc(&g));
                assert_eq!(kcore(&m).unwrap().core, oracle::core_number(&g));
            }
        }
    }
    // A long cycle: one big component found by Tarjan when in-edges are missing.
    let mut el = gen::path(N, true);
    el.edges.push((N as u32 - 1, 0));
    let g = gen::relabel(el, 8).build(Keep::default());
    assert_eq!(scc(&g.memory_graph(false)).unwrap().labels, vec![0; N]);
    assert_eq!(scc(&g.memory_graph(true)).unwrap().labels, vec![0; N]);
}

#[test]
fn sparse_far_buckets_do_not_go_quadratic() {
    // Spokes with weights spread over 30 orders of magnitude, Δ = 1: nearly every spoke sits in
    // its own window of buckets.
    let n = 100_000u32;
    let el = EdgeList {
        num_vertices: n as usize,
        directed: true,
        edges: (1..n).map(|v| (0, v)).collect(),
        weights: Some(
            (1..n)
                .map(|v| 10f32.powf((v as f32 * 0.618_034).fract() * 30.0))
                .collect(),
        ),
    };
    let g = el.build(Keep::default());
    let m = g.memory_graph(false);
    let expected = oracle::dijkstra(&g, 0);
    assert_eq!(sssp_with_delta(&m, 0, 1.0).unwrap().dist, expected);
    assert_eq!(sssp(&m, 0).unwrap().dist, expected);
}

#[test]
fn empty_graph_results_are_empty() {
    for directed in [false, true] {
        let m = EdgeList::new(0, directed, vec![])
            .build(Keep::default())
            .memory_graph(true);
        assert!(matches!(
            bfs(&m, 0, true),
            Err(AlgoError::Engine(EngineError::InvalidVertex {
                vertex: 0,
                num_vertices: 0
            }))
        ));
        assert!(wcc(&m).unwrap().labels.is_empty() && scc(&m).unwrap().labels.is_empty());
        assert_eq!(wcc(&m).unwrap().count(), 0);
        assert_eq!(wcc(&m).unwrap().largest(), None);
        let r = PageRank::new().run(&m).unwrap();
        assert!(r.ranks.is_empty() && r.converged);
        assert!(kcore(&m).unwrap().core.is_empty());
        assert_eq!(triangles(&m).unwrap().total, 0);
        if !directed {
            let f = mst(&m).unwrap();
            assert!(f.parent.is_empty() && (f.edges, f.trees, f.total_weight) == (0, 0, 0.0));
        }
    }
}

/// Opened without in-edges, a directed graph offers none to pull over; traversals push and,
/// like components and cores, give the oracles' answers, BFS one iteration per level as with
/// in-edges, on both engines.
#[test]
fn directed_graphs_without_in_edges_give_the_same_answers() {
    for case in directed_cases() {
        let f = Fixture::new(&case);
        let (name, t) = (&f.name, &f.test);
        let (with_in, without) = (t.memory_graph(true), t.memory_graph(false));
        assert!(without.in_edges().is_none(), "{name}");
        assert!(std::ptr::eq(with_in.in_edges().unwrap(), with_in.inn()));
        assert_eq!(scc(&without).unwrap().labels, oracle::scc(t), "{name}");
        assert_eq!(wcc(&without).unwrap().labels, oracle::wcc(t), "{name}");
        assert_eq!(kcore(&without).unwrap().core, oracle::core_number(t), "{name}");
        let (sel_with_in, sel_without) = (open_selective(&f, true), open_selective(&f, false));
        let n = t.num_vertices as u32;
        for s in [0, n / 2, n - 1] {
            let levels = oracle::bfs_levels(t, s);
            let depth = *levels.iter().max().unwrap() as usize;
            let b = bfs(&without, s, true).unwrap();
            assert_eq!(b.levels, levels, "{name}, source {s}");
            oracle::check_bfs_tree(t, s, &b.levels, b.parents.as_ref().unwrap())
                .unwrap_or_else(|e| panic!("{name}, source {s}: {e}"));
            for b in [
                b,
                bfs(&with_in, s, false).unwrap(),
                bfs::selective::bfs(&sel_with_in, s).unwrap(),
                bfs::selective::bfs(&sel_without, s).unwrap(),
            ] {
                assert_eq!((&b.levels, b.iterations), (&levels, depth + 1), "{name}, source {s}");
            }
            if oracle::first_bad_weight(t).is_none() {
                let dist = oracle::dijkstra(t, s);
                assert_eq!(sssp(&without, s).unwrap().dist, dist, "{name}, source {s}");
                let got = sssp::selective::sssp(&sel_without, s).unwrap().dist;
                assert_eq!(got, dist, "{name}, source {s}");
            }
        }
        let sources: Vec<u32> = (0..n).step_by(7).take(64).collect();
        let want = msbfs(&with_in, &sources, true).unwrap();
        let got = msbfs::selective::msbfs(&sel_without, &sources, true).unwrap();
        assert_eq!(got, want, "{name}");
    }
}

#[test]
fn pulling_algorithms_refuse_a_graph_without_in_edges() {
    let f = fixture(
        "weighted rmat",
        gen::with_weights(gen::rmat(9, 4 << 9, true, 21), Weights::Integer(5), 21),
        Keep::default(),
    );
    let m = f.test.memory_graph(false);
    let x = vec![1.0; f.test.num_vertices];
    assert!(matches!(
        PageRank::new().run(&m),
        Err(AlgoError::MissingInEdges("pagerank"))
    ));
    assert!(matches!(
        spmv(&m, &x, true, Semiring::PlusTimes),
        Err(AlgoError::MissingInEdges("spmv"))
    ));
    let g = open_selective(&f, false);
    assert!(matches!(
        pagerank::selective::pagerank(&g, &PageRank::new()),
        Err(AlgoError::MissingInEdges("pagerank"))
    ));
    assert!(matches!(
        spmv::selective::spmv(&g, &x, true, Semiring::PlusTimes),
        Err(AlgoError::MissingInEdges("spmv"))
    ));
    assert!(matches!(
        wcc::selective::wcc(&g),
        Err(AlgoError::Engine(EngineError::MissingInEdges))
    ));
}

#[test]
fn sources_out_of_range_and_bad_inputs_are_refused() {
    let el = gen::with_weights(gen::grid(10, 10, true), Weights::Integer(3), 51);
    let f = fixture("weighted grid", el, Keep::default());
    let out_of_range = |r: Result<(), AlgoError>| {
        matches!(
            r,
            Err(AlgoError::Engine(EngineError::InvalidVertex {
                vertex: 100,
                num_vertices: 100
            }))
        )
    };
    let m = MemoryGraph::load(&f.graph, true, true).unwrap();
    assert!(out_of_range(bfs(&m, 100, false).map(drop)));
    assert!(out_of_range(sssp(&m, 100).map(drop)));
    assert!(out_of_range(diameter(&m, 100, 2, None).map(drop)));
    let g = open_selective(&f, true);
    assert!(out_of_range(bfs::selective::bfs(&g, 100).map(drop)));
    assert!(out_of_range(sssp::selective::sssp(&g, 100).map(drop)));
    let open_stream = |weights| {
        let opts = StreamOptions {
            memory: 1 << 20,
            weights,
            ..StreamOptions::default()
        };
        StreamGraph::open(&f.graph, "grid-2", &opts).unwrap()
    };
    let st = open_stream(true);
    assert!(out_of_range(bfs::stream::bfs(&st, 100, false).map(drop)));
    assert!(out_of_range(sssp::stream::sssp(&st, 100).map(drop)));
    let short = [1.0];
    assert!(matches!(
        spmv(&m, &short, true, Semiring::PlusTimes),
        Err(AlgoError::InvalidSetting(_))
    ));
    assert!(matches!(
        spmv::selective::spmv(&g, &short, true, Semiring::PlusTimes),
        Err(AlgoError::InvalidSetting(_))
    ));
    assert!(matches!(
        spmv::stream::spmv(&st, &short, true, Semiring::PlusTimes),
        Err(AlgoError::InvalidSetting(_))
    ));
    // Shortest paths on a weighted layout opened without its weights.
    let unweighted = open_stream(false);
    assert!(matches!(
        sssp::stream::sssp(&unweighted, 0),
        Err(AlgoError::InvalidSetting(_))
    ));
}

#[test]
fn settings_are_checked() {
    let m = gen::gnm(10, 20, true, 1).build(Keep::default()).memory_graph(true);
    assert!(matches!(
        PageRank::new().alpha(1.5).run(&m),
        Err(AlgoError::InvalidSetting(_))
    ));
    assert!(matches!(
        PageRank::new().tolerance(f64::NAN).run(&m),
        Err(AlgoError::InvalidSetting(_))
    ));
    assert!(matches!(sssp_with_delta(&m, 0, 0.0), Err(AlgoError::InvalidSetting(_))));
    let walks = RandomWalk {
        walks: 10,
        length: 3,
        damping: 0.85,
        seed: 1,
    };
    for damping in [1.5, -0.1, f64::NAN] {
        let bad = RandomWalk { damping, ..walks };
        assert!(
            matches!(bad.run(&m, &[0]), Err(AlgoError::InvalidSetting(_))),
            "{damping}"
        );
    }
    assert!(matches!(walks.run(&m, &[]), Err(AlgoError::InvalidSetting(_))));
    assert!(matches!(
        walks.run(&m, &[3, 10]),
        Err(AlgoError::Engine(EngineError::InvalidVertex {
            vertex: 10,
            num_vertices: 10
        }))
    ));
    let r = PageRank::new().tolerance(0.0).max_iterations(3).run(&m).unwrap();
    assert_eq!((r.iterations, r.converged), (3, false));
    assert_eq!(r.edges_processed, 3 * m.out().num_arcs() as u64);
}

#[test]
fn negative_and_nan_weights_are_refused() {
    let mut el = gen::with_weights(gen::gnm(50, 200, true, 2), Weights::Uniform(0.0, 1.0), 2);
    el.weights.as_mut().unwrap()[17] = f32::NAN;
    let g = el.build(Keep::default());
    let (src, dst, w) = oracle::first_bad_weight(&g).unwrap();
    match sssp(&g.memory_graph(false), 0) {
        Err(AlgoError::NegativeWeight { src: s, dst: d, weight }) => {
            assert_eq!((s, d), (u64::from(src), u64::from(dst)));
            assert!(weight.is_nan() && w.is_nan());
        }
        other => panic!("{other:?}"),
    }
    // -0.0 is not negative.
    let el = EdgeList {
        num_vertices: 3,
        directed: true,
        edges: vec![(0, 1), (1, 2)],
        weights: Some(vec![-0.0, 2.5]),
    };
    assert_eq!(
        sssp(&el.build(Keep::default()).memory_graph(false), 0).unwrap().dist,
        vec![0.0, 0.0, 2.5]
    );
}

/// The minimum spanning forest refuses directed graphs and NaN weights (naming the edge by
/// original IDs) but ignores a self-loop's; `-0.0` weighs as `0.0`, so that ties go by ID (1–2
/// at `-0.0` loses to 0–1 and 0–2 at `0.0`), and the total of zeros is `+0.0`.
#[test]
fn mst_refuses_directed_graphs_and_nan_weights() {
    let directed = gen::gnm(20, 40, true, 1).build(Keep::default()).memory_graph(false);
    assert!(matches!(mst(&directed), Err(AlgoError::NeedsUndirected("mst"))));
    let mut el = gen::with_weights(gen::gnm(50, 200, false, 2), Weights::Uniform(0.0, 1.0), 2);
    el.weights.as_mut().unwrap()[17] = f32::NAN;
    let g = el.build(Keep::default());
    let (src, dst) = oracle::first_nan_weight(&g).unwrap();
    match mst(&g.memory_graph(false)) {
        Err(AlgoError::NanWeight {
            algorithm,
            src: s,
            dst: d,
        }) => {
            assert_eq!((algorithm, s, d), ("mst", u64::from(src), u64::from(dst)));
        }
        other => panic!("{other:?}"),
    }
    let el = EdgeList {
        num_vertices: 3,
        directed: false,
        edges: vec![(1, 1), (1, 2), (2, 0), (1, 0)],
        weights: Some(vec![f32::NAN, -0.0, 0.0, 0.0]),
    };
    let f = mst(&el.build(Keep::all()).memory_graph(false)).unwrap();
    assert_eq!(f.parent, vec![0, 0, 0]);
    assert_eq!((f.edges, f.trees, f.total_weight.to_bits()), (2, 1, 0f64.to_bits()));
}

/// A tiny Δ behaves like Dijkstra, a huge one like Bellman-Ford: the distances are the same, on
/// both engines.
#[test]
fn sssp_with_any_delta_gives_the_shortest_distances() {
    for case in directed_cases() {
        let t = case.edges.build(case.keep);
        if oracle::first_bad_weight(&t).is_some() {
            continue;
        }
        let name = &case.name;
        let m = t.memory_graph(false);
        let g = open_selective(&Fixture::new(&case), false);
        for s in [0, t.num_vertices as u32 / 3] {
            let want = oracle::dijkstra(&t, s);
            for delta in [1e-3, 0.37, 1e12] {
                assert_eq!(sssp_with_delta(&m, s, delta).unwrap().dist, want, "{name}, Δ {delta}");
                let got = sssp::selective::sssp_with_delta(&g, s, delta).unwrap();
                assert_eq!(got.dist, want, "{name} on the selective engine, Δ {delta}");
            }
        }
    }
}

/// With a tolerance, PageRank stops at the power iteration's step; with fixed iterations it
/// runs exactly that many.
#[test]
fn pagerank_iterates_as_the_power_iteration() {
    for case in directed_cases() {
        let (name, t) = (&case.name, case.edges.build(case.keep));
        let m = t.memory_graph(true);
        let r = PageRank::new().fixed_iterations(Some(25)).run(&m).unwrap();
        assert_eq!((r.iterations, r.converged), (25, true), "{name}");
        let (_, iterations, converged) = oracle::pagerank(&t, 0.85, 1e-10, 500, None);
        let r = PageRank::new().tolerance(1e-10).max_iterations(500).run(&m).unwrap();
        assert_eq!((r.iterations, r.converged), (iterations, converged), "{name}");
    }
}

#[test]
fn components_count_sizes_and_largest() {
    let graphs = [
        gen::gnm(300, 200, false, 1),
        gen::add_isolated(gen::union(gen::gnm(80, 160, false, 5), gen::path(80, false)), 40),
        gen::relabel(gen::cycle_chain(12, 9, 2, 15, 3), 3),
    ];
    for el in graphs {
        let t = el.build(Keep::default());
        let c = wcc(&t.memory_graph(true)).unwrap();
        let mut distinct = oracle::wcc(&t);
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(c.count(), distinct.len());
        let sizes = c.sizes();
        assert_eq!(sizes.iter().map(|s| s.1).sum::<u64>(), t.num_vertices as u64);
        assert_eq!(sizes.iter().map(|s| s.0).collect::<Vec<_>>(), distinct);
        let biggest = sizes.iter().map(|s| s.1).max();
        assert_eq!(c.largest().map(|l| l.1), biggest);
    }
}

/// Each `got[v]` within `1e-9` of `want[v]` (relative above 1).
fn assert_close(got: &[f64], want: &[f64], ctx: &str) {
    assert_eq!(got.len(), want.len(), "{ctx}");
    for (v, (a, b)) in got.iter().zip(want).enumerate() {
        assert!(
            (a - b).abs() <= 1e-9 * b.abs().max(1.0),
            "{ctx}: vertex {v}: {a} vs {b}"
        );
    }
}

#[test]
fn betweenness_of_a_path_is_the_textbook_value() {
    // Undirected path 0-1-2-3: vertex 1 lies on (0,2), (0,3) → 2 unordered pairs; normalized by
    // (n-1)(n-2)/2 = 3 pairs: 2/3 (NetworkX: 0.6667).
    let m = gen::path(4, false).memory_graph(Keep::default(), true);
    let opts = BcOptions {
        sources: vec![0, 1, 2, 3],
        sampled: false,
        normalized: true,
    };
    let got = betweenness(&m, &opts).unwrap().values;
    assert_close(&got, &[0.0, 2.0 / 3.0, 2.0 / 3.0, 0.0], "path");
    let opts = BcOptions {
        sources: vec![9],
        ..opts
    };
    assert!(betweenness(&m, &opts).is_err());
}

/// Unnormalized, NetworkX scales the dependencies by ½ on undirected graphs and, for `k` sampled
/// sources, by `(n - 1) / k` (`/ (k - 1)` at a source): both engines give that, and count the
/// same levels (a source without out-edges still counts its own).
#[test]
fn unnormalized_betweenness_is_scaled_as_networkx() {
    let graphs = [
        fixture("gnm undirected", gen::gnm(120, 300, false, 1), Keep::default()),
        fixture(
            "gnm directed with self-loops and duplicates",
            gen::add_duplicates(gen::add_self_loops(gen::gnm(100, 400, true, 2), 10, 2), 30, 2),
            Keep::all(),
        ),
        fixture(
            "path and isolated vertices, relabelled",
            gen::relabel(gen::add_isolated(gen::path(60, false), 15), 4),
            Keep::default(),
        ),
    ];
    for f in &graphs {
        let t = &f.test;
        let n = t.num_vertices;
        let half = if t.directed { 1.0 } else { 0.5 };
        let m = t.memory_graph(true);
        let g = open_selective(f, true);
        let all: Vec<u32> = (0..n as u32).collect();
        let sample: Vec<u32> = (0..n as u32).step_by(7).collect();
        for (sources, sampled) in [(all, false), (sample, true)] {
            let k = sources.len() as f64;
            let scale = |v: usize| match (sampled, sources.contains(&(v as u32))) {
                (false, _) => half,
                (true, true) => (n as f64 - 1.0) * half / (k - 1.0),
                (true, false) => (n as f64 - 1.0) * half / k,
            };
            let raw = oracle::betweenness_raw(t, &sources);
            let want: Vec<f64> = raw.iter().enumerate().map(|(v, x)| x * scale(v)).collect();
            let opts = BcOptions {
                sources,
                sampled,
                normalized: false,
            };
            let ctx = format!("{}, sampled {sampled}", f.name);
            let in_memory = betweenness(&m, &opts).unwrap();
            assert_close(&in_memory.values, &want, &ctx);
            let selective = bc::selective::betweenness(&g, &opts).unwrap();
            assert_close(&selective.values, &want, &ctx);
            assert_eq!(selective.iterations, in_memory.iterations, "levels, {ctx}");
        }
    }
}

/// A random tree: vertex `v > 0` hangs under a random earlier vertex.
fn random_tree(n: u32, seed: u64) -> EdgeList {
    let mut x = seed;
    let edges = (1..n)
        .map(|v| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((x >> 33) as u32 % v, v)
        })
        .collect();
    EdgeList::new(n as usize, false, edges)
}

#[test]
fn the_diameter_bound_is_exact_on_trees() {
    let f = fixture("random tree", random_tree(300, 8), Keep::default());
    let t: &TestGraph = &f.test;
    let exact = (0..t.num_vertices as u32)
        .map(|v| oracle::eccentricity(t, v))
        .max()
        .unwrap();
    let g = open_selective(&f, true);
    for start in [0, 17] {
        let d = diameter(&t.memory_graph(true), start, 2, None).unwrap();
        assert_eq!(d.bound, exact, "from {start}");
        assert_eq!(diameter::selective::diameter(&g, start, 2, None).unwrap(), d);
    }
}

/// Random walks decide from hashes of their own counters: the visits are the same on any number
/// of threads, change with the seed, and sum to walks × (length + 1); walks at damping 1 on a
/// directed cycle stay in step, every walk at the same place.
#[test]
fn random_walks_are_the_same_on_any_number_of_threads() {
    let g = gen::rmat(10, 8 << 10, true, 5).build(Keep::all());
    let m = g.memory_graph(false);
    let walks = RandomWalk {
        walks: 30_000,
        length: 25,
        damping: 0.85,
        seed: 3,
    };
    let sources = [0, 7, 0, 100];
    let on = |threads: usize, w: RandomWalk| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| w.run(&m, &sources)).unwrap()
    };
    let one = on(1, walks);
    assert_eq!(one.visits.iter().sum::<u64>(), 30_000 * 26);
    assert_eq!(one.sources, sources);
    for threads in [2, 3, 8] {
        assert_eq!(on(threads, walks), one, "{threads} threads");
    }
    let other = on(2, RandomWalk { seed: 4, ..walks });
    assert_ne!(other.visits, one.visits);
    assert_eq!(other.visits.iter().sum::<u64>(), 30_000 * 26);
    let cycle = gen::cycle_chain(1, 7, 0, 0, 1).build(Keep::default());
    assert_eq!(cycle.num_arcs(), 7, "{cycle:?}");
    let r = RandomWalk {
        damping: 1.0,
        walks: 5,
        length: 9,
        ..walks
    }
    .run(&cycle.memory_graph(false), &[0])
    .unwrap();
    assert_eq!(r.moves, 5 * 9);
    let cycle_next = |v: u32| cycle.arcs.iter().find(|a| a.0 == v).unwrap().1;
    let mut want = vec![0u64; 7];
    let mut v = 0;
    for _ in 0..=9 {
        want[v as usize] += 5;
        v = cycle_next(v);
    }
    assert_eq!(r.visits, want);
}

/// Triangles out of core at the selective engine's smallest budget: several chunks of oriented
/// lists (sized by a pass that counts them), within the budget, counted as in memory and as the
/// oracle; with room for every list, one chunk (sized by the degrees).
#[test]
fn triangles_in_chunks_within_the_budget() {
    for directed in [false, true] {
        let el = gen::add_duplicates(gen::add_self_loops(gen::rmat(12, 16 << 12, directed, 5), 60, 5), 600, 5);
        let f = fixture("rmat 12 with self-loops and duplicates", el, Keep::all());
        let want = oracle::triangles(&f.test);
        let total = want.iter().sum::<u64>() / 3;
        let m = triangles(&f.test.memory_graph(true)).unwrap();
        assert_eq!((&m.per_vertex, m.total), (&want, total), "memory, directed {directed}");
        let opts = SelectiveOptions {
            need_in: true,
            assemble_lists: true,
            ..SelectiveOptions::default()
        };
        let least = SelectiveGraph::minimum_budget(&f.graph, &opts);
        for (memory, chunked) in [(least, true), (64 << 20, false)] {
            let g = SelectiveGraph::open(&f.graph, &SelectiveOptions { memory, ..opts.clone() }).unwrap();
            let t = triangles::selective::triangles(&g).unwrap();
            let ctx = format!("selective at {memory} bytes, directed {directed}, {} chunks", t.chunks);
            assert_eq!((&t.per_vertex, t.total), (&want, total), "{ctx}");
            assert_eq!(t.chunks > 1, chunked, "{ctx}");
            assert!(t.oriented_bytes <= g.assembly_bytes() / 4 * 3, "{ctx}");
            assert!(g.peak_engine_memory() <= memory, "{ctx}: {}", g.peak_engine_memory());
        }
    }
}
