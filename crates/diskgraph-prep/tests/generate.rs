//! Tests of the graph generators: determinism, exact counts, ranges and each model's shape.

use std::collections::{HashMap, HashSet};

use diskgraph_prep::generate::{generator, GeneratorSpec, LabelScramble, DEFAULT_EDGE_FACTOR};
use diskgraph_prep::{InputFormat, RawEdge};

/// Drains `spec`'s source, checking the batch and progress contracts on the way.
fn collect(spec: &GeneratorSpec) -> Vec<RawEdge> {
    let mut source = generator(spec).unwrap();
    let total = source.progress().1.expect("generators know their edge count");
    assert_eq!(source.progress().0, 0);
    let mut all = Vec::new();
    let mut batch = Vec::new();
    while source.next_batch(&mut batch).unwrap() {
        assert!(!batch.is_empty(), "a batch reported as filled is empty");
        all.extend_from_slice(&batch);
        assert_eq!(source.progress(), (all.len() as u64, Some(total)));
    }
    assert!(batch.is_empty());
    assert!(
        !source.next_batch(&mut batch).unwrap(),
        "exhausted source produced more"
    );
    assert_eq!(
        all.len() as u64,
        total,
        "{spec:?}: stream length differs from the announced total"
    );
    all
}

/// Runs `f` on a rayon pool of `threads` threads.
fn with_threads<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(f)
}

fn kronecker(scale: u32, seed: u64) -> GeneratorSpec {
    GeneratorSpec::Kronecker {
        scale,
        edge_factor: DEFAULT_EDGE_FACTOR,
        seed,
        weighted: false,
    }
}

/// One small spec of every model with the given seed; several span more than one chunk.
fn all_specs(seed: u64) -> Vec<GeneratorSpec> {
    vec![
        GeneratorSpec::Kronecker {
            scale: 15,
            edge_factor: 16,
            seed,
            weighted: true,
        },
        GeneratorSpec::ErdosRenyi {
            vertices: 1000,
            edges: 600_000,
            seed,
            directed: true,
            weighted: true,
        },
        GeneratorSpec::WattsStrogatz {
            vertices: 100_000,
            k: 6,
            beta: 0.3,
            seed,
            weighted: true,
        },
        GeneratorSpec::BarabasiAlbert {
            vertices: 100_000,
            m: 3,
            seed,
            weighted: true,
        },
        GeneratorSpec::Grid {
            rows: 300,
            cols: 1000,
            seed,
        },
    ]
}

fn degrees(edges: &[RawEdge], n: u64) -> Vec<u64> {
    let mut degree = vec![0u64; n as usize];
    for e in edges {
        degree[e.src as usize] += 1;
        degree[e.dst as usize] += 1;
    }
    degree
}

#[test]
fn same_seed_same_stream_whatever_the_thread_count() {
    for spec in all_specs(7) {
        let one = with_threads(1, || collect(&spec));
        let three = with_threads(3, || collect(&spec));
        assert!(one == three, "{spec:?}: stream depends on the thread count");
        assert!(one == collect(&spec), "{spec:?}: stream differs between runs");
    }
}

#[test]
fn different_seed_different_stream() {
    for (a, b) in all_specs(1).iter().zip(all_specs(2).iter()) {
        let (a, b) = (collect(a), collect(b));
        assert_eq!(a.len(), b.len());
        assert!(a != b, "seed does not change the stream");
    }
}

#[test]
fn weights_do_not_change_the_structure() {
    for spec in all_specs(3) {
        let unweighted = match spec.clone() {
            GeneratorSpec::Kronecker {
                scale,
                edge_factor,
                seed,
                ..
            } => GeneratorSpec::Kronecker {
                scale,
                edge_factor,
                seed,
                weighted: false,
            },
            GeneratorSpec::ErdosRenyi {
                vertices,
                edges,
                seed,
                directed,
                ..
            } => GeneratorSpec::ErdosRenyi {
                vertices,
                edges,
                seed,
                directed,
                weighted: false,
            },
            GeneratorSpec::WattsStrogatz {
                vertices,
                k,
                beta,
                seed,
                ..
            } => GeneratorSpec::WattsStrogatz {
                vertices,
                k,
                beta,
                seed,
                weighted: false,
            },
            GeneratorSpec::BarabasiAlbert { vertices, m, seed, .. } => GeneratorSpec::BarabasiAlbert {
                vertices,
                m,
                seed,
                weighted: false,
            },
            GeneratorSpec::Grid { .. } => continue,
        };
        let (weighted, plain) = (collect(&spec), collect(&unweighted));
        assert!(
            weighted
                .iter()
                .all(|e| matches!(e.weight, Some(w) if w > 0.0 && w <= 1.0)),
            "{spec:?}"
        );
        assert!(plain.iter().all(|e| e.weight.is_none()));
        assert!(
            weighted
                .iter()
                .zip(&plain)
                .all(|(a, b)| (a.src, a.dst) == (b.src, b.dst)),
            "{spec:?}"
        );
        let mean = weighted.iter().map(|e| e.weight.unwrap() as f64).sum::<f64>() / weighted.len() as f64;
        assert!((mean - 0.5).abs() < 0.01, "{spec:?}: mean weight {mean}");
    }
}

#[test]
fn info_declares_the_vertices_and_the_direction() {
    let cases: [(GeneratorSpec, u64, bool, bool, &str); 6] = [
        (
            kronecker(12, 1),
            4096,
            false,
            false,
            "kronecker scale=12 edge_factor=16 seed=1",
        ),
        (
            GeneratorSpec::ErdosRenyi {
                vertices: 50,
                edges: 10,
                seed: 1,
                directed: true,
                weighted: true,
            },
            50,
            true,
            true,
            "erdos_renyi n=50 m=10",
        ),
        (
            GeneratorSpec::ErdosRenyi {
                vertices: 50,
                edges: 10,
                seed: 1,
                directed: false,
                weighted: false,
            },
            50,
            false,
            false,
            "undirected",
        ),
        (
            GeneratorSpec::WattsStrogatz {
                vertices: 40,
                k: 4,
                beta: 0.5,
                seed: 1,
                weighted: false,
            },
            40,
            false,
            false,
            "watts_strogatz n=40 k=4 beta=0.5",
        ),
        (
            GeneratorSpec::BarabasiAlbert {
                vertices: 40,
                m: 2,
                seed: 1,
                weighted: false,
            },
            40,
            false,
            false,
            "barabasi_albert n=40 m=2",
        ),
        (
            GeneratorSpec::Grid {
                rows: 3,
                cols: 5,
                seed: 1,
            },
            15,
            false,
            true,
            "grid rows=3 cols=5",
        ),
    ];
    for (spec, n, directed, weighted, description) in cases {
        let source = generator(&spec).unwrap();
        let info = source.info();
        assert_eq!(info.format, InputFormat::Generated);
        assert_eq!(info.directed, Some(directed), "{spec:?}");
        assert_eq!(info.weighted, weighted, "{spec:?}");
        assert_eq!(info.declared_vertices, Some(0..n), "{spec:?}");
        assert!(
            info.description.contains(description),
            "{:?} lacks {description:?}",
            info.description
        );
    }
    let info = generator(&kronecker(20, 1)).unwrap().info().description.clone();
    assert!(
        info.contains("Graph500 A=0.57 B=0.19 C=0.19 D=0.05, scrambled labels"),
        "{info}"
    );
}

#[test]
fn edge_counts_are_exact_and_ids_in_range() {
    let cases = [
        (kronecker(16, 5), 16 << 16, 1 << 16),
        (
            GeneratorSpec::Kronecker {
                scale: 1,
                edge_factor: 3,
                seed: 5,
                weighted: false,
            },
            6,
            2,
        ),
        (
            GeneratorSpec::ErdosRenyi {
                vertices: 7,
                edges: 300_001,
                seed: 5,
                directed: false,
                weighted: false,
            },
            300_001,
            7,
        ),
        (
            GeneratorSpec::ErdosRenyi {
                vertices: 7,
                edges: 0,
                seed: 5,
                directed: false,
                weighted: false,
            },
            0,
            7,
        ),
        (
            GeneratorSpec::WattsStrogatz {
                vertices: 100_001,
                k: 8,
                beta: 0.2,
                seed: 5,
                weighted: false,
            },
            400_004,
            100_001,
        ),
        (
            GeneratorSpec::WattsStrogatz {
                vertices: 5,
                k: 4,
                beta: 1.0,
                seed: 5,
                weighted: false,
            },
            10,
            5,
        ),
        (
            GeneratorSpec::BarabasiAlbert {
                vertices: 50_000,
                m: 7,
                seed: 5,
                weighted: false,
            },
            49_993 * 7,
            50_000,
        ),
        (
            GeneratorSpec::BarabasiAlbert {
                vertices: 2,
                m: 1,
                seed: 5,
                weighted: false,
            },
            1,
            2,
        ),
        (
            GeneratorSpec::Grid {
                rows: 401,
                cols: 999,
                seed: 5,
            },
            2 * 401 * 999 - 401 - 999,
            401 * 999,
        ),
        (
            GeneratorSpec::Grid {
                rows: 1,
                cols: 1,
                seed: 5,
            },
            0,
            1,
        ),
        (
            GeneratorSpec::Grid {
                rows: 1,
                cols: 131_073,
                seed: 5,
            },
            131_072,
            131_073,
        ),
    ];
    for (spec, m, n) in cases {
        let edges = collect(&spec);
        assert_eq!(edges.len() as u64, m, "{spec:?}");
        assert!(
            edges.iter().all(|e| e.src < n && e.dst < n),
            "{spec:?}: ID out of range"
        );
    }
}

#[test]
fn scramble_is_a_permutation() {
    for scale in 1..=16 {
        for seed in [0, 1, 0xDEAD_BEEF] {
            let scramble = LabelScramble::new(scale, seed);
            let n = 1u64 << scale;
            let mut seen = vec![false; n as usize];
            for x in 0..n {
                let y = scramble.apply(x);
                assert!(
                    y < n && !seen[y as usize],
                    "scale {scale} seed {seed}: {x} -> {y} collides or escapes"
                );
                seen[y as usize] = true;
            }
            if scale >= 8 {
                let fixed = (0..n).filter(|&x| scramble.apply(x) == x).count();
                assert!(fixed < 16, "scale {scale}: {fixed} fixed points");
            }
        }
    }
    // Different seeds give different permutations.
    let (a, b) = (LabelScramble::new(20, 1), LabelScramble::new(20, 2));
    assert!((0..1000).filter(|&x| a.apply(x) == b.apply(x)).count() < 5);
}

#[test]
fn kronecker_degrees_are_skewed() {
    let n = 1u64 << 16;
    let edges = collect(&kronecker(16, 11));
    let degree = degrees(&edges, n);
    let mean = 2.0 * edges.len() as f64 / n as f64;
    let max = *degree.iter().max().unwrap() as f64;
    let isolated = degree.iter().filter(|&&d| d == 0).count();
    assert!(max > 50.0 * mean, "max degree {max} vs mean {mean}");
    // Graph500 graphs have many isolated vertices (about a quarter at this scale).
    assert!(isolated > n as usize / 10, "{isolated} isolated vertices");
    // The scramble moves the hub away from vertex 0 (where unscrambled R-MAT puts it).
    let hub = degree.iter().enumerate().max_by_key(|&(_, d)| d).unwrap().0;
    let unscrambled = (0..n)
        .find(|&x| LabelScramble::new(16, 11).apply(x) == hub as u64)
        .unwrap();
    assert_eq!(unscrambled, 0, "the hub is the image of vertex 0");
    assert_ne!(hub, 0);
}

#[test]
fn erdos_renyi_is_uniform() {
    let n = 100;
    let edges = collect(&GeneratorSpec::ErdosRenyi {
        vertices: n,
        edges: 1_000_000,
        seed: 9,
        directed: true,
        weighted: false,
    });
    let mut out = vec![0u64; n as usize];
    for e in &edges {
        out[e.src as usize] += 1;
    }
    // Expected 10000 each, standard deviation about 100.
    assert!(out.iter().all(|&d| (9_400..=10_600).contains(&d)), "{out:?}");
    let loops = edges.iter().filter(|e| e.src == e.dst).count();
    assert!((9_000..=11_000).contains(&loops), "{loops} self-loops");
}

#[test]
fn watts_strogatz_rewires_a_beta_fraction() {
    let (n, k) = (10_000u64, 10u64);
    let half = k / 2;
    let ring = |u: u64, v: u64| (v + n - u) % n;
    let lattice = collect(&GeneratorSpec::WattsStrogatz {
        vertices: n,
        k,
        beta: 0.0,
        seed: 4,
        weighted: false,
    });
    let expected: Vec<(u64, u64)> = (0..n).flat_map(|u| (1..=half).map(move |j| (u, (u + j) % n))).collect();
    assert_eq!(lattice.iter().map(|e| (e.src, e.dst)).collect::<Vec<_>>(), expected);

    for beta in [0.3, 1.0] {
        let edges = collect(&GeneratorSpec::WattsStrogatz {
            vertices: n,
            k,
            beta,
            seed: 4,
            weighted: false,
        });
        let mut per_source = vec![0u64; n as usize];
        let mut rewired = 0;
        for e in &edges {
            per_source[e.src as usize] += 1;
            let offset = ring(e.src, e.dst);
            assert_ne!(offset, 0, "self-loop");
            if offset > half {
                rewired += 1;
                assert!(offset < n - half, "rewired onto a lattice neighbour");
            }
        }
        assert!(per_source.iter().all(|&c| c == half));
        let fraction = rewired as f64 / edges.len() as f64;
        assert!(
            (fraction - beta).abs() < 0.01,
            "beta {beta}: rewired fraction {fraction}"
        );
    }
    // k = n - 1: nothing can be rewired.
    let full = collect(&GeneratorSpec::WattsStrogatz {
        vertices: 7,
        k: 6,
        beta: 1.0,
        seed: 4,
        weighted: false,
    });
    let expected: Vec<(u64, u64)> = (0..7).flat_map(|u| (1..=3).map(move |j| (u, (u + j) % 7))).collect();
    assert_eq!(full.iter().map(|e| (e.src, e.dst)).collect::<Vec<_>>(), expected);
}

#[test]
fn barabasi_albert_targets_are_distinct_and_degrees_skewed() {
    let (n, m) = (100_000u64, 4u64);
    let edges = collect(&GeneratorSpec::BarabasiAlbert {
        vertices: n,
        m,
        seed: 8,
        weighted: false,
    });
    let mut targets: HashMap<u64, HashSet<u64>> = HashMap::new();
    let mut last = 0;
    for e in &edges {
        assert!(
            e.src >= m && e.dst < e.src,
            "edge {e:?} must go from a new vertex to an older one"
        );
        assert!(e.src >= last, "new vertices arrive in order");
        last = e.src;
        assert!(
            targets.entry(e.src).or_default().insert(e.dst),
            "vertex {} picks {} twice",
            e.src,
            e.dst
        );
    }
    assert_eq!(targets.len() as u64, n - m);
    assert!(targets.values().all(|t| t.len() as u64 == m));
    assert_eq!(
        targets[&m],
        (0..m).collect::<HashSet<_>>(),
        "vertex m joins every initial vertex"
    );
    let degree = degrees(&edges, n);
    assert!(degree.iter().all(|&d| d >= m.min(1)));
    let max = *degree.iter().max().unwrap();
    assert!(max > 200, "max degree {max}: no preferential attachment");

    // Many targets per vertex (the marking path) still gives distinct targets.
    let (n, m) = (2_000u64, 40u64);
    let edges = collect(&GeneratorSpec::BarabasiAlbert {
        vertices: n,
        m,
        seed: 8,
        weighted: false,
    });
    let distinct: HashSet<(u64, u64)> = edges.iter().map(|e| (e.src, e.dst)).collect();
    assert_eq!(distinct.len(), edges.len());
    assert!(edges.iter().all(|e| e.dst < e.src));
}

#[test]
fn grid_is_a_weighted_lattice() {
    let (rows, cols) = (123u64, 457u64);
    let edges = collect(&GeneratorSpec::Grid { rows, cols, seed: 2 });
    let mut seen = HashSet::new();
    let mut histogram = [0u64; 101];
    for e in &edges {
        let w = e.weight.expect("grid edges are weighted");
        assert!(w.fract() == 0.0 && (1.0..=100.0).contains(&w), "weight {w}");
        histogram[w as usize] += 1;
        let right = e.dst == e.src + 1 && e.src % cols + 1 < cols;
        let down = e.dst == e.src + cols && e.src / cols + 1 < rows;
        assert!(right || down, "{e:?} joins no lattice neighbours");
        assert!(seen.insert((e.src, e.dst)), "{e:?} twice");
    }
    assert_eq!(edges.len() as u64, 2 * rows * cols - rows - cols);
    assert!(degrees(&edges, rows * cols).iter().all(|&d| (2..=4).contains(&d)));
    assert!(histogram[1] > 0 && histogram[100] > 0);
    let expected = edges.len() as f64 / 100.0;
    assert!(
        histogram[1..]
            .iter()
            .all(|&c| (c as f64 - expected).abs() < 0.2 * expected),
        "{histogram:?}"
    );
}

#[test]
fn invalid_parameters_are_rejected() {
    let bad = [
        (
            GeneratorSpec::Kronecker {
                scale: 0,
                edge_factor: 16,
                seed: 0,
                weighted: false,
            },
            "scale must be 1..=32",
        ),
        (
            GeneratorSpec::Kronecker {
                scale: 33,
                edge_factor: 16,
                seed: 0,
                weighted: false,
            },
            "scale must be 1..=32",
        ),
        (
            GeneratorSpec::Kronecker {
                scale: 10,
                edge_factor: 0,
                seed: 0,
                weighted: false,
            },
            "edge_factor",
        ),
        (
            GeneratorSpec::ErdosRenyi {
                vertices: 0,
                edges: 1,
                seed: 0,
                directed: false,
                weighted: false,
            },
            "vertices",
        ),
        (
            GeneratorSpec::WattsStrogatz {
                vertices: 10,
                k: 3,
                beta: 0.1,
                seed: 0,
                weighted: false,
            },
            "k must be even",
        ),
        (
            GeneratorSpec::WattsStrogatz {
                vertices: 10,
                k: 10,
                beta: 0.1,
                seed: 0,
                weighted: false,
            },
            "< n",
        ),
        (
            GeneratorSpec::WattsStrogatz {
                vertices: 10,
                k: 0,
                beta: 0.1,
                seed: 0,
                weighted: false,
            },
            "k must be even",
        ),
        (
            GeneratorSpec::WattsStrogatz {
                vertices: 10,
                k: 4,
                beta: 1.5,
                seed: 0,
                weighted: false,
            },
            "beta must be in [0, 1]",
        ),
        (
            GeneratorSpec::WattsStrogatz {
                vertices: 10,
                k: 4,
                beta: f64::NAN,
                seed: 0,
                weighted: false,
            },
            "beta",
        ),
        (
            GeneratorSpec::WattsStrogatz {
                vertices: u64::MAX,
                k: 4,
                beta: 0.1,
                seed: 0,
                weighted: false,
            },
            "64 bits",
        ),
        (
            GeneratorSpec::BarabasiAlbert {
                vertices: 10,
                m: 0,
                seed: 0,
                weighted: false,
            },
            "1 <= m < n",
        ),
        (
            GeneratorSpec::BarabasiAlbert {
                vertices: 10,
                m: 10,
                seed: 0,
                weighted: false,
            },
            "1 <= m < n",
        ),
        (
            GeneratorSpec::BarabasiAlbert {
                vertices: 1 << 33,
                m: 2,
                seed: 0,
                weighted: false,
            },
            "n must be <=",
        ),
        (
            GeneratorSpec::Grid {
                rows: 0,
                cols: 5,
                seed: 0,
            },
            "rows and cols",
        ),
        (
            GeneratorSpec::Grid {
                rows: 1 << 32,
                cols: 1 << 32,
                seed: 0,
            },
            "too large",
        ),
    ];
    for (spec, message) in bad {
        match generator(&spec) {
            Ok(_) => panic!("{spec:?} accepted"),
            Err(e) => {
                assert!(e.contains(message), "{spec:?}: {e:?} lacks {message:?}");
                assert!(!e.contains('\n'));
            }
        }
    }
    // Large graphs are accepted without generating anything up front.
    let source = generator(&kronecker(32, 1)).unwrap();
    assert_eq!(source.progress(), (0, Some(16 << 32)));
}

/// Generation rates (`cargo test --release -p diskgraph-prep --test generate -- --ignored --nocapture`).
#[test]
#[ignore]
fn generation_rates() {
    let specs = [
        kronecker(22, 1),
        kronecker(24, 1),
        GeneratorSpec::Kronecker {
            scale: 22,
            edge_factor: 16,
            seed: 1,
            weighted: true,
        },
        GeneratorSpec::ErdosRenyi {
            vertices: 1 << 22,
            edges: 1 << 26,
            seed: 1,
            directed: true,
            weighted: false,
        },
        GeneratorSpec::WattsStrogatz {
            vertices: 1 << 23,
            k: 16,
            beta: 0.1,
            seed: 1,
            weighted: false,
        },
        GeneratorSpec::BarabasiAlbert {
            vertices: 1 << 23,
            m: 8,
            seed: 1,
            weighted: false,
        },
        GeneratorSpec::Grid {
            rows: 1 << 12,
            cols: 1 << 13,
            seed: 1,
        },
    ];
    for spec in specs {
        let start = std::time::Instant::now();
        let mut source = generator(&spec).unwrap();
        let (mut count, mut checksum, mut batch) = (0u64, 0u64, Vec::new());
        while source.next_batch(&mut batch).unwrap() {
            count += batch.len() as u64;
            checksum = checksum.wrapping_add(batch.iter().map(|e| e.src ^ e.dst).sum::<u64>());
        }
        let seconds = start.elapsed().as_secs_f64();
        assert_eq!(Some(count), source.progress().1);
        println!(
            "{}: {count} edges in {seconds:.2} s = {:.1} M edges/s on {} threads (checksum {checksum:x})",
            source.info().description,
            count as f64 / seconds / 1e6,
            rayon::current_num_threads()
        );
    }
}
