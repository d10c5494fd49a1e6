//! Betweenness centrality and the diameter bound on both engines against the testkit's plain
//! oracles (Brandes with predecessor lists; BFS eccentricities), on seeded nasty graphs, and
//! NetworkX's scaling on hand-computed cases.

mod support;

use diskgraph_algo::{betweenness, diameter, selective, BcOptions};
use diskgraph_testkit::gen::{self};
use diskgraph_testkit::{oracle, EdgeList, Keep};
use support::{few_configs, open, store, Stored};

const MEMORY: u64 = 8 << 20;

fn graphs() -> Vec<Stored> {
    vec![
        store("gnm undirected", &gen::gnm(120, 300, false, 1), Keep::default()),
        store(
            "gnm directed with loops and duplicates",
            &gen::add_duplicates(gen::add_self_loops(gen::gnm(100, 400, true, 2), 10, 2), 30, 2),
            Keep::all(),
        ),
        store(
            "gnm undirected with loops and duplicates",
            &gen::add_duplicates(gen::add_self_loops(gen::gnm(90, 300, false, 8), 10, 3), 30, 3),
            Keep::all(),
        ),
        store("star with noise", &gen::star(200, 40, false, 3), Keep::default()),
        store(
            "path + isolated, relabelled",
            &gen::relabel(gen::add_isolated(gen::path(60, false), 15), 4),
            Keep::default(),
        ),
        store("rmat scale 7 directed", &gen::rmat(7, 600, true, 5), Keep::default()),
        store(
            "disconnected",
            &gen::union(gen::gnm(50, 120, false, 6), gen::gnm(40, 60, false, 7)),
            Keep::default(),
        ),
    ]
}

fn assert_close(got: &[f64], want: &[f64], ctx: &str) {
    assert_eq!(got.len(), want.len(), "{ctx}");
    for (v, (a, b)) in got.iter().zip(want).enumerate() {
        let tol = 1e-9 * b.abs().max(1.0);
        assert!(
            (a - b).abs() <= tol || (a.is_nan() && b.is_nan()),
            "{ctx}: vertex {v}: {a} vs {b}"
        );
    }
}

/// The oracle's dependencies with NetworkX's scaling, written out case by case.
fn scaled(raw: Vec<f64>, directed: bool, opts: &BcOptions) -> Vec<f64> {
    let n = raw.len() as f64;
    if n < 3.0 {
        return raw;
    }
    let k = opts.sources.len() as f64;
    let half = if directed { 1.0 } else { 0.5 };
    raw.into_iter()
        .enumerate()
        .map(|(v, x)| {
            let is_source = opts.sources.contains(&(v as u32));
            let f = match (opts.sampled, opts.normalized, is_source) {
                (false, true, _) => 1.0 / ((n - 1.0) * (n - 2.0)),
                (false, false, _) => half,
                (true, true, true) => 1.0 / ((k - 1.0) * (n - 2.0)),
                (true, true, false) => 1.0 / (k * (n - 2.0)),
                (true, false, true) => (n - 1.0) * half / (k - 1.0),
                (true, false, false) => (n - 1.0) * half / k,
            };
            x * f
        })
        .collect()
}

#[test]
fn betweenness_matches_brandes_with_predecessor_lists() {
    for s in graphs() {
        let t = &s.test;
        let n = t.num_vertices as u32;
        let all: Vec<u32> = (0..n).collect();
        let sample: Vec<u32> = (0..n).step_by(7).collect();
        let mem = t.memory_graph(true);
        for (sources, sampled) in [(all.clone(), false), (sample.clone(), true)] {
            for normalized in [true, false] {
                let opts = BcOptions {
                    sources: sources.clone(),
                    sampled,
                    normalized,
                };
                let want = scaled(oracle::betweenness_raw(t, &sources), t.directed, &opts);
                let ctx = format!("{} sampled={sampled} normalized={normalized}", s.name);
                let in_memory = betweenness(&mem, &opts).unwrap();
                assert_close(&in_memory.values, &want, &format!("memory, {ctx}"));
                for cfg in &few_configs() {
                    let g = open(&s, &cfg.io, MEMORY);
                    let got = selective::betweenness(&g, &opts).unwrap();
                    assert_close(&got.values, &want, &format!("selective [{}], {ctx}", cfg.name));
                    // Sources without out-edges skip the batches but still count their level.
                    assert_eq!(got.iterations, in_memory.iterations, "levels, {ctx}");
                }
            }
        }
    }
}

#[test]
fn betweenness_of_a_path_is_the_textbook_value() {
    // Undirected path 0-1-2-3: vertex 1 lies on (0,2), (0,3) → 2 unordered pairs; normalized by
    // (n-1)(n-2)/2 = 3 pairs: 2/3 (NetworkX: 0.6667).
    let el = EdgeList {
        num_vertices: 4,
        directed: false,
        edges: vec![(0, 1), (1, 2), (2, 3)],
        weights: None,
    };
    let s = store("path 4", &el, Keep::default());
    let opts = BcOptions {
        sources: vec![0, 1, 2, 3],
        sampled: false,
        normalized: true,
    };
    let got = betweenness(&s.test.memory_graph(true), &opts).unwrap().values;
    assert_close(&got, &[0.0, 2.0 / 3.0, 2.0 / 3.0, 0.0], "path");
    assert!(betweenness(
        &s.test.memory_graph(true),
        &BcOptions {
            sources: vec![9],
            ..opts
        }
    )
    .is_err());
}

#[test]
fn diameter_bound_is_a_real_eccentricity_and_exact_on_trees() {
    let tree = store("random tree", &random_tree(300, 8), Keep::default());
    let mut all = graphs();
    all.push(tree);
    for s in &all {
        let t = &s.test;
        let mem = t.memory_graph(true);
        let d = diameter(&mem, 0, 4, None).unwrap();
        assert_eq!(d.bound, oracle::eccentricity(t, d.from), "{}", s.name);
        assert_eq!(d.levels, oracle::bfs_levels(t, d.from), "{}", s.name);
        assert_eq!(d.levels[d.to as usize], d.bound as i64, "{}", s.name);
        for cfg in &few_configs() {
            let g = open(s, &cfg.io, MEMORY);
            assert_eq!(
                selective::diameter(&g, 0, 4, None).unwrap(),
                d,
                "{} [{}]",
                s.name,
                cfg.name
            );
        }
    }
    // On the tree, the true diameter: the largest eccentricity of all.
    let t = &all.last().unwrap().test;
    let exact = (0..t.num_vertices as u32)
        .map(|v| oracle::eccentricity(t, v))
        .max()
        .unwrap();
    assert_eq!(diameter(&t.memory_graph(true), 17, 2, None).unwrap().bound, exact);
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
    EdgeList {
        num_vertices: n as usize,
        directed: false,
        edges,
        weights: None,
    }
}
