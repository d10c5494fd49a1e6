//! Every algorithm against the testkit's sequential oracles, on hundreds of seeded graphs
//! (random, skewed, hubs, long paths, DAGs, cycle chains, multigraphs, self-loops, isolated
//! vertices, disconnected parts, empty and single-vertex graphs, several weight kinds), with and
//! without in-edges loaded, and on thread pools of several sizes.

use diskgraph_algo::{bfs, kcore, scc, sssp, sssp_with_delta, wcc, AlgoError, PageRank};
use diskgraph_engine::MemoryGraph;
use diskgraph_testkit::gen::{self, Weights};
use diskgraph_testkit::{oracle, EdgeList, Keep, TestGraph};
use proptest::prelude::*;

/// A named stored graph.
struct Case {
    name: String,
    graph: TestGraph,
}

fn case(name: impl Into<String>, el: EdgeList, keep: Keep) -> Case {
    Case {
        name: name.into(),
        graph: el.build(keep),
    }
}

/// The seeded corpus: a few hundred graphs.
fn corpus() -> Vec<Case> {
    let mut cases = Vec::new();
    let keeps = [
        Keep::default(),
        Keep {
            self_loops: true,
            duplicates: false,
        },
        Keep {
            self_loops: false,
            duplicates: true,
        },
        Keep::all(),
    ];
    for seed in 0..48u64 {
        let directed = seed % 2 == 0;
        let keep = keeps[(seed / 2 % 4) as usize];
        let n = [1, 2, 3, 5, 8, 20, 64, 200, 1000, 3000][(seed % 10) as usize];
        // Density from a tree-like sprinkle to dense.
        let m = [n / 2, n, 2 * n, 8 * n, (n * n / 4 + 1).min(40 * n)][(seed % 5) as usize];
        cases.push(case(
            format!("gnm n={n} m={m} d={directed} {keep:?} s{seed}"),
            gen::gnm(n, m, directed, seed),
            keep,
        ));
        let el = gen::add_duplicates(
            gen::add_self_loops(gen::gnm(n, 3 * n, directed, seed), n / 3 + 1, seed),
            n,
            seed,
        );
        cases.push(case(
            format!("gnm+loops+dups n={n} d={directed} {keep:?} s{seed}"),
            el,
            keep,
        ));
        let kind = [
            Weights::Uniform(0.0, 1.0),
            Weights::Integer(4),
            Weights::Zero,
            Weights::Mixed,
            Weights::Integer(0),
            Weights::Uniform(1e-3, 1e3),
        ][(seed % 6) as usize];
        let el = gen::with_weights(gen::gnm(n, 4 * n, directed, seed + 7), kind, seed);
        cases.push(case(
            format!("weighted {kind:?} n={n} d={directed} {keep:?} s{seed}"),
            el,
            keep,
        ));
        let scale = 4 + (seed % 8) as u32;
        let el = gen::relabel(gen::rmat(scale, 6 << scale, directed, seed), seed);
        cases.push(case(
            format!("rmat scale={scale} d={directed} {keep:?} s{seed}"),
            el,
            keep,
        ));
        let parts = gen::union(gen::gnm(n, 2 * n, directed, seed), gen::path(n, directed));
        let el = gen::relabel(gen::add_isolated(parts, n / 2 + 1), seed);
        cases.push(case(
            format!("disconnected+isolated n={n} d={directed} s{seed}"),
            el,
            keep,
        ));
    }
    for seed in 0..16u64 {
        let n = [10, 100, 1000, 20_000][(seed % 4) as usize];
        let directed = seed % 2 == 0;
        cases.push(case(
            format!("star n={n} d={directed}"),
            gen::star(n, n / 10, directed, seed),
            Keep::default(),
        ));
        let el = gen::with_weights(gen::star(n, n, directed, seed), Weights::Integer(3), seed);
        cases.push(case(format!("weighted star n={n} d={directed}"), el, Keep::all()));
        cases.push(case(format!("dag n={n}"), gen::dag(n, 3 * n, seed), Keep::default()));
        let el = gen::cycle_chain(n / 10 + 1, 10, seed as usize % 4, n / 5, seed);
        cases.push(case(format!("cycle chain n={n}"), gen::relabel(el, seed), Keep::all()));
        let (r, c) = [(1, 50), (7, 7), (30, 40), (100, 150)][(seed % 4) as usize];
        cases.push(case(
            format!("grid {r}x{c} d={directed}"),
            gen::grid(r, c, directed),
            Keep::default(),
        ));
    }
    // Bigger ones: parallel paths, bottom-up steps, hub splitting.
    for directed in [false, true] {
        let el = gen::gnm(30_000, 300_000, directed, 99);
        cases.push(case(format!("big gnm d={directed}"), el, Keep::default()));
        let el = gen::with_weights(gen::gnm(20_000, 200_000, directed, 98), Weights::Uniform(0.0, 1.0), 3);
        cases.push(case(format!("big weighted gnm d={directed}"), el, Keep::all()));
        cases.push(case(
            format!("big star d={directed}"),
            gen::star(60_000, 5_000, directed, 5),
            Keep::default(),
        ));
    }
    // Tiny ones.
    cases.push(case("empty directed", EdgeList::new(0, true, vec![]), Keep::default()));
    cases.push(case(
        "empty undirected",
        EdgeList::new(0, false, vec![]),
        Keep::default(),
    ));
    for directed in [false, true] {
        cases.push(case(
            format!("single d={directed}"),
            EdgeList::new(1, directed, vec![]),
            Keep::default(),
        ));
        let el = EdgeList::new(1, directed, vec![(0, 0), (0, 0)]);
        cases.push(case(format!("single self-loop d={directed}"), el, Keep::all()));
        let el = gen::with_weights(
            EdgeList::new(2, directed, vec![(0, 1), (1, 0), (0, 1)]),
            Weights::Mixed,
            1,
        );
        cases.push(case(format!("pair multigraph d={directed}"), el, Keep::all()));
    }
    cases
}

/// Sources to try: a few fixed ones and the vertex of largest out-degree.
fn sources(g: &TestGraph) -> Vec<u32> {
    let n = g.num_vertices as u32;
    if n == 0 {
        return vec![];
    }
    let mut deg = vec![0usize; n as usize];
    for &(s, _) in &g.arcs {
        deg[s as usize] += 1;
    }
    let hub = (0..n).max_by_key(|&v| deg[v as usize]).unwrap();
    let mut s = vec![0, n - 1, n / 2, (n as u64 * 7 / 11) as u32, hub];
    s.sort_unstable();
    s.dedup();
    s
}

/// Checks every algorithm on `c` against the oracles.
fn check(c: &Case) {
    let g = &c.graph;
    let name = &c.name;
    let with_in = g.memory_graph(true);
    let variants: Vec<(&str, MemoryGraph)> = if g.directed {
        vec![("in", with_in), ("no-in", g.memory_graph(false))]
    } else {
        vec![("undirected", with_in)]
    };
    let wcc_expected = oracle::wcc(g);
    let scc_expected = oracle::scc(g);
    let core_expected = oracle::core_number(g);
    let (pr_fixed, _, _) = oracle::pagerank(g, 0.85, 0.0, 0, Some(25));
    let (pr_conv, pr_iters, pr_converged) = oracle::pagerank(g, 0.85, 1e-10, 500, None);
    let (pr_tight, pr_tight_iters, _) = oracle::pagerank(g, 0.85, 1e-13, 500, None);
    let bad_weight = oracle::first_bad_weight(g);
    for (variant, m) in &variants {
        let ctx = format!("{name} [{variant}]");
        assert_eq!(m.num_vertices(), g.num_vertices, "{ctx}");
        for s in sources(g) {
            let expected = oracle::bfs_levels(g, s);
            let b = bfs(m, s, true).unwrap();
            assert_eq!(b.levels, expected, "bfs levels, {ctx}, source {s}");
            oracle::check_bfs_tree(g, s, &b.levels, b.parents.as_ref().unwrap())
                .unwrap_or_else(|e| panic!("bfs tree, {ctx}, source {s}: {e}"));
            assert_eq!(
                b.iterations as i64,
                expected.iter().max().unwrap() + 1,
                "bfs iterations, {ctx}"
            );
            let b2 = bfs(m, s, false).unwrap();
            assert!(b2.parents.is_none());
            assert_eq!(b2.levels, expected, "{ctx}");

            match bad_weight {
                Some((src, dst, weight)) => {
                    let err = sssp(m, s).unwrap_err();
                    assert!(
                        matches!(err, AlgoError::NegativeWeight { src: a, dst: b, weight: w }
                            if a == src && b == dst && w.to_bits() == weight.to_bits()),
                        "{ctx}: {err}"
                    );
                }
                None => {
                    let expected = oracle::dijkstra(g, s);
                    let got = sssp(m, s).unwrap();
                    assert_eq!(got.dist, expected, "sssp, {ctx}, source {s}");
                    for delta in [1e-3, 0.37, 1e12] {
                        let got = sssp_with_delta(m, s, delta).unwrap();
                        assert_eq!(got.dist, expected, "sssp delta {delta}, {ctx}, source {s}");
                    }
                }
            }
        }
        assert!(matches!(
            bfs(m, g.num_vertices as u32, false),
            Err(AlgoError::InvalidSource { .. })
        ));
        assert!(matches!(sssp(m, u32::MAX), Err(AlgoError::InvalidSource { .. })));

        let w = wcc(m);
        assert_eq!(w.labels, wcc_expected, "wcc, {ctx}");
        let mut distinct = wcc_expected.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(w.count(), distinct.len(), "{ctx}");
        let sizes = w.sizes();
        assert_eq!(sizes.iter().map(|s| s.1).sum::<u64>(), g.num_vertices as u64);
        assert_eq!(sizes.iter().map(|s| s.0).collect::<Vec<_>>(), distinct);
        let biggest = sizes.iter().map(|s| s.1).max();
        assert_eq!(w.largest().map(|l| l.1), biggest);

        assert_eq!(scc(m).labels, scc_expected, "scc, {ctx}");

        let k = kcore(m);
        assert_eq!(k.core, core_expected, "kcore, {ctx}");
        assert_eq!(k.max_core, core_expected.iter().copied().max().unwrap_or(0));

        if *variant == "no-in" {
            let err = PageRank::new().run(m).unwrap_err();
            assert_eq!(err, AlgoError::MissingInEdges("pagerank"));
            continue;
        }
        let r = PageRank::new().fixed_iterations(Some(25)).run(m).unwrap();
        assert_eq!(r.iterations, if g.num_vertices == 0 { 0 } else { 25 });
        assert_close(&r.ranks, &pr_fixed, 1e-12, &format!("pagerank fixed, {ctx}"));
        let r = PageRank::new().tolerance(1e-10).max_iterations(500).run(m).unwrap();
        assert_eq!(
            (r.iterations, r.converged),
            (pr_iters, pr_converged),
            "pagerank iterations, {ctx}"
        );
        assert_close(&r.ranks, &pr_conv, 1e-12, &format!("pagerank, {ctx}"));
        // Near the rounding floor the two may stop one iteration apart.
        let r = PageRank::new().tolerance(1e-13).max_iterations(500).run(m).unwrap();
        assert!(
            r.converged && r.iterations.abs_diff(pr_tight_iters) <= 1,
            "pagerank 1e-13, {ctx}"
        );
        let eps = if r.iterations == pr_tight_iters { 1e-12 } else { 1e-10 };
        assert_close(&r.ranks, &pr_tight, eps, &format!("pagerank 1e-13, {ctx}"));
    }
}

fn assert_close(got: &[f64], expected: &[f64], eps: f64, ctx: &str) {
    assert_eq!(got.len(), expected.len(), "{ctx}");
    for (v, (a, b)) in got.iter().zip(expected).enumerate() {
        assert!((a - b).abs() <= eps, "{ctx}: vertex {v}: {a} vs {b}");
    }
}

#[test]
fn corpus_on_four_threads() {
    let cases = corpus();
    assert!(cases.len() > 250, "{} cases", cases.len());
    let pool = rayon::ThreadPoolBuilder::new().num_threads(4).build().unwrap();
    pool.install(|| cases.iter().for_each(check));
}

#[test]
fn corpus_sample_on_one_thread() {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    pool.install(|| corpus().iter().step_by(7).for_each(check));
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
                assert_eq!(scc(&m).labels, oracle::scc(&g));
                assert_eq!(wcc(&m).labels, oracle::wcc(&g));
                assert_eq!(kcore(&m).core, oracle::core_number(&g));
            }
        }
    }
    // A long cycle: one big component found by Tarjan when in-edges are missing.
    let mut el = gen::path(N, true);
    el.edges.push((N as u32 - 1, 0));
    let g = gen::relabel(el, 8).build(Keep::default());
    assert_eq!(scc(&g.memory_graph(false)).labels, vec![0; N]);
    assert_eq!(scc(&g.memory_graph(true)).labels, vec![0; N]);
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
        assert_eq!(
            bfs(&m, 0, true),
            Err(AlgoError::InvalidSource {
                vertex: 0,
                num_vertices: 0
            })
        );
        assert!(wcc(&m).labels.is_empty() && scc(&m).labels.is_empty());
        assert_eq!(wcc(&m).count(), 0);
        assert_eq!(wcc(&m).largest(), None);
        let r = PageRank::new().run(&m).unwrap();
        assert!(r.ranks.is_empty() && r.converged);
        assert!(kcore(&m).core.is_empty());
    }
}

#[test]
fn in_edges_are_detected() {
    let el = gen::gnm(10, 30, true, 4);
    assert!(diskgraph_algo::in_edges(&el.memory_graph(Keep::default(), false)).is_none());
    let m = el.memory_graph(Keep::default(), true);
    assert!(std::ptr::eq(diskgraph_algo::in_edges(&m).unwrap(), m.inn()));
    let u = EdgeList::new(10, false, el.edges.clone()).memory_graph(Keep::default(), false);
    assert!(std::ptr::eq(diskgraph_algo::in_edges(&u).unwrap(), u.out()));
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
            assert_eq!((s, d), (src, dst));
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

/// An arbitrary small edge list with its storage options.
fn arb_graph() -> impl Strategy<Value = (EdgeList, Keep)> {
    (1usize..40)
        .prop_flat_map(|n| {
            (
                Just(n),
                proptest::collection::vec((0..n as u32, 0..n as u32, 0u8..5), 0..120),
                any::<bool>(),
                any::<bool>(),
                any::<(bool, bool)>(),
            )
        })
        .prop_map(|(n, edges, directed, weighted, (self_loops, duplicates))| {
            let el = EdgeList {
                num_vertices: n,
                directed,
                edges: edges.iter().map(|e| (e.0, e.1)).collect(),
                weights: weighted.then(|| edges.iter().map(|e| e.2 as f32 * 0.5).collect()),
            };
            (el, Keep { self_loops, duplicates })
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    #[test]
    fn arbitrary_small_graphs_match_the_oracles((el, keep) in arb_graph()) {
        check(&case("proptest", el, keep));
    }
}
