//! `diskgraph graph500`: the three kernels end to end, every search validated; a wrong answer
//! fails validation; the reference format; the refusals.

use diskgraph_algo::registry::RunOutput;
use diskgraph_algo::{AlgoError, Values};
use diskgraph_cli::graph500::{run, Options};

mod common;
use common::{diskgraph, fails, ok, s};

/// The benchmark at a small scale into `dir/g`.
fn options(dir: &std::path::Path) -> Options {
    Options {
        scale: Some(10),
        graph: Some(dir.join("g")),
        roots: 8,
        memory: 512 << 10,
        engines: vec!["selective".into(), "memory".into()],
        ..Options::default()
    }
}

#[test]
fn every_search_is_timed_and_validated() {
    let dir = tempfile::tempdir().unwrap();
    let reports = run(&options(dir.path()), &mut |_| {}).unwrap();
    assert_eq!(reports.len(), 2);
    for r in &reports {
        assert_eq!((r.scale, r.nbfs, r.roots.len()), (10, 8, 8));
        assert_eq!(r.edgefactor, 16.0, "the generator's input edges per vertex");
        assert!(r.construction_time.is_some_and(|t| t > 0.0));
        for k in [&r.bfs, r.sssp.as_ref().expect("kernel 3 runs by default")] {
            assert_eq!(k.validated, 8);
            assert!(k.time.min > 0.0 && k.time.min <= k.time.median && k.time.median <= k.time.max);
            // Input edges: at most all 16 × 1024, the giant component's most of them.
            assert!(
                k.nedge.max <= 16.0 * 1024.0 && k.nedge.min > 8.0 * 1024.0,
                "{:?}",
                k.nedge
            );
            assert!(k.teps.min <= k.harmonic_mean_teps && k.harmonic_mean_teps <= k.teps.max);
        }
    }
    assert_eq!(reports[1].bfs.engine, "memory");
    assert_eq!(reports[0].bfs.engine, "selective");
    assert_eq!(
        reports[0].roots, reports[1].roots,
        "both engines search from the same keys"
    );
    assert_eq!(reports[0].bfs.nedge, reports[1].bfs.nedge);
}

#[test]
fn input_edges_are_counted_once_however_many_times_the_import_reads_them() {
    // At 256 KiB (the searches' least is 220 KiB) the import regenerates the weighted graph
    // several times; the input degrees behind each search's edge count (and so its TEPS) must
    // be those of one generation.
    let mut seen = Vec::new();
    for memory in [256 << 10, 64 << 20] {
        let dir = tempfile::tempdir().unwrap();
        let opts = Options {
            memory,
            engines: vec!["memory".into()],
            ..options(dir.path())
        };
        let reports = run(&opts, &mut |_| {}).unwrap();
        seen.push((
            reports[0].roots.clone(),
            reports[0].bfs.nedge.clone(),
            reports[0].sssp.as_ref().map(|k| k.nedge.clone()),
        ));
    }
    assert_eq!(seen[0], seen[1]);
    assert!(seen[0].1.max <= 16.0 * 1024.0, "{:?}", seen[0].1);
}

/// The first vertex a search reached other than its root, made its own parent (a BFS answer),
/// or put at half its distance (an SSSP answer).
fn one_wrong_value(out: &mut RunOutput) {
    match &mut out.values {
        Values::Signed(parents) => {
            let v = (0..parents.len())
                .find(|&v| parents[v] >= 0 && parents[v] != out.vertex_ids.get(v) as i64)
                .expect("a reached vertex besides the root");
            parents[v] = out.vertex_ids.get(v) as i64;
        }
        Values::Float(dist) => {
            let v = dist
                .iter()
                .position(|&d| d > 0.0 && d.is_finite())
                .expect("a reached vertex");
            dist[v] /= 2.0;
        }
        other => panic!("bfs parents or sssp distances, got {other:?}"),
    }
}

#[test]
fn a_wrong_parent_fails_validation() {
    let dir = tempfile::tempdir().unwrap();
    let opts = Options {
        tamper: Some(one_wrong_value),
        engines: vec!["selective".into()],
        ..options(dir.path())
    };
    let e = run(&opts, &mut |_| {}).unwrap_err();
    let text = format!("{e:#}");
    assert!(
        text.contains("fails validation") && text.contains("form a cycle"),
        "{text}"
    );
    assert!(
        e.chain()
            .any(|c| matches!(c.downcast_ref::<AlgoError>(), Some(AlgoError::WrongAnswer { .. }))),
        "{text}"
    );
}

#[test]
fn the_command_prints_the_reference_format() {
    let dir = tempfile::tempdir().unwrap();
    let g = dir.path().join("g");
    let json = dir.path().join("g500.json");
    let out = ok(&[
        "graph500",
        s(&g),
        "--scale",
        "10",
        "--roots",
        "4",
        "--memory",
        "512KiB",
        "--engine",
        "selective,memory",
        "--json",
        s(&json),
    ]);
    for key in [
        "SCALE: 10",
        "edgefactor: 16",
        "NBFS: 4",
        "construction_time: ",
        "bfs_min_TEPS: ",
        "bfs_firstquartile_TEPS: ",
        "bfs_median_TEPS: ",
        "bfs_thirdquartile_TEPS: ",
        "bfs_max_TEPS: ",
        "bfs_harmonic_mean_TEPS: ",
        "bfs_harmonic_stddev_TEPS: ",
        "bfs_validated: 4",
        "sssp_harmonic_mean_TEPS: ",
        "sssp_validated: 4",
        "bfs_harmonic_mean_TEPS selective / memory: ",
    ] {
        assert!(out.contains(key), "{key:?} missing from {out}");
    }
    let reports: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(reports.as_array().unwrap().len(), 2);
    // The graph is kept, and searched again as an existing graph (no kernel 1).
    let again = ok(&["graph500", s(&g), "--roots", "2", "--memory", "512KiB", "--bfs-only"]);
    assert!(
        again.contains("construction_time: nan") && again.contains("bfs_validated: 2"),
        "{again}"
    );
    assert!(!again.contains("sssp_"), "--bfs-only runs no kernel 3: {again}");
    // Generating over it needs --force.
    let e = fails(&["graph500", s(&g), "--scale", "10", "--roots", "2"]);
    assert!(e.contains("exists"), "{e}");
}

#[test]
fn refusals_say_why() {
    let dir = tempfile::tempdir().unwrap();
    let e = fails(&["graph500", "--roots", "2"]);
    assert!(e.contains("give --scale S"), "{e}");
    let d = dir.path().join("d");
    ok(&[
        "generate",
        "erdos-renyi",
        "--vertices",
        "50",
        "--edges",
        "200",
        "--directed",
        "-o",
        s(&d),
    ]);
    let e = fails(&["graph500", s(&d), "--roots", "2"]);
    assert!(e.contains("is directed") && e.contains("--undirected"), "{e}");
    let e = fails(&["graph500", s(&d), "--roots", "0"]);
    assert!(e.contains("--roots"), "{e}");
    // A bad engine is refused before kernel 1 builds anything.
    let e = fails(&[
        "graph500",
        s(&dir.path().join("never")),
        "--scale",
        "10",
        "--engine",
        "warp",
    ]);
    assert!(e.contains("warp"), "{e}");
    assert!(!dir.path().join("never").exists());
    let out = diskgraph(&["graph500", "--scale", "0"]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn a_given_graph_s_searches_count_their_component_s_stored_edges() {
    // Under sparse 64-bit IDs, compressed only: a path of 3 edges, a triangle with a pendant
    // (4 edges), and a vertex whose one edge is a self-loop (never a key).
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("edges.txt");
    std::fs::write(
        &input,
        "1000000000000 2000000000000\n2000000000000 3000000000000\n3000000000000 4000000000000\n\
         7 8\n8 9\n9 7\n9 10\n55 55\n",
    )
    .unwrap();
    let g = dir.path().join("g");
    ok(&["import", s(&input), "-o", s(&g), "--undirected", "--compress", "vbyte"]);
    let opts = Options {
        graph: Some(g),
        roots: 8,
        memory: 512 << 10,
        engines: vec!["selective".into()],
        sssp: false,
        ..Options::default()
    };
    let reports = run(&opts, &mut |_| {}).unwrap();
    let mut roots = reports[0].roots.clone();
    roots.sort_unstable();
    assert_eq!(
        roots,
        [
            7,
            8,
            9,
            10,
            1_000_000_000_000,
            2_000_000_000_000,
            3_000_000_000_000,
            4_000_000_000_000
        ],
        "every vertex with an edge is a key, named by its original ID"
    );
    let bfs = &reports[0].bfs;
    assert_eq!((bfs.validated, bfs.nedge.min, bfs.nedge.max), (8, 3.0, 4.0));
}
