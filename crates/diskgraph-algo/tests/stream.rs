//! Every algorithm on the stream engine against the testkit's oracles and the memory engine, on
//! real graph directories (written by the importer from seeded nasty testkit graphs: self-loops,
//! duplicates, isolated vertices, a hub, a long path, disconnected parts, directed and
//! undirected, weighted) with grid layouts of P ∈ {1, 4, 16} written by `diskgraph partition`,
//! × MRT ∈ {1, 5} × vertex state in memory and mapped. Budgets alternate between one that cuts
//! blocks into many small loads and one that holds big blocks whole (so passes run on several
//! threads); the runs happen on a 4-thread pool.

mod support;

use diskgraph_algo::registry::{self, RunError, RunRequest, Values};
use diskgraph_algo::stream::{self as st, StreamAlgoError};
use diskgraph_algo::{mis, spmv, AlgoError, MisMethod, PageRank};
use diskgraph_engine::stream::{
    Frontier, Order, Pass, StreamError, StreamGraph, StreamOptions, Threads, Update, VertexStateKind,
};
use diskgraph_engine::MemoryGraph;
use diskgraph_format::FormatError;
use diskgraph_prep::SortOrder;
use diskgraph_testkit::gen::{self, Weights};
use diskgraph_testkit::{oracle, EdgeList, Keep, TestGraph};
use support::{open_stream, partitioned, store, store_with_ids, with_loops_and_duplicates, Stored};

/// A budget that cuts blocks into loads of a few thousand edges.
const SMALL: u64 = 256 << 10;
/// A budget that holds these graphs' blocks whole.
const LARGE: u64 = 16 << 20;

fn graphs() -> Vec<Stored> {
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
            "disconnected + long path + isolated, undirected",
            &gen::relabel(
                gen::add_isolated(gen::union(gen::gnm(300, 600, false, 5), gen::path(300, false)), 150),
                5,
            ),
            Keep::default(),
        ),
        store(
            "rmat scale 11 directed, relabelled (hub)",
            &gen::relabel(gen::rmat(11, 16 << 10, true, 4), 4),
            Keep::default(),
        ),
        store(
            "weighted grid 20x30 directed",
            &gen::with_weights(gen::grid(20, 30, true), Weights::Integer(9), 6),
            Keep::default(),
        ),
        store(
            "star 3000 undirected with noise, loops and duplicates",
            &gen::star(3000, 300, false, 8),
            Keep::all(),
        ),
        store(
            "dag with negative weights",
            &gen::with_weights(gen::dag(300, 900, 7), Weights::WithNegative, 7),
            Keep::default(),
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

/// Sources: first, last and the vertex of largest out-degree.
fn sources(t: &TestGraph) -> Vec<u32> {
    let n = t.num_vertices as u32;
    let mut deg = vec![0usize; n as usize];
    for &(s, _) in &t.arcs {
        deg[s as usize] += 1;
    }
    let hub = (0..n).max_by_key(|&v| (deg[v as usize], std::cmp::Reverse(v))).unwrap();
    let mut s = vec![0, n - 1, hub];
    s.sort_unstable();
    s.dedup();
    s
}

/// Undirected neighbour lists of `n` vertices joined by `arcs` (self-loops dropped).
fn neighbours(n: usize, arcs: &[(u32, u32)]) -> Vec<Vec<u32>> {
    let mut adj = vec![Vec::new(); n];
    for &(a, b) in arcs {
        if a != b {
            adj[a as usize].push(b);
            adj[b as usize].push(a);
        }
    }
    adj
}

/// The greedy independent set by ascending ID, straight from the definition.
fn greedy_oracle(t: &TestGraph) -> Vec<bool> {
    let adj = neighbours(t.num_vertices, &t.arcs);
    let mut in_set = vec![false; t.num_vertices];
    for v in 0..t.num_vertices {
        in_set[v] = !adj[v].iter().any(|&u| (u as usize) < v && in_set[u as usize]);
    }
    in_set
}

/// Checks that `in_set` is independent and maximal in `t`'s undirected view.
fn check_mis(t: &TestGraph, in_set: &[bool], ctx: &str) {
    check_mis_arcs(&neighbours(t.num_vertices, &t.arcs), in_set, ctx)
}

/// Checks that `in_set` is independent and maximal given undirected neighbour lists.
fn check_mis_arcs(adj: &[Vec<u32>], in_set: &[bool], ctx: &str) {
    for (v, list) in adj.iter().enumerate() {
        if in_set[v] {
            assert!(
                list.iter().all(|&u| !in_set[u as usize]),
                "{ctx}: {v} and a neighbour are both in the set"
            );
        } else {
            assert!(
                list.iter().any(|&u| in_set[u as usize]),
                "{ctx}: {v} could join the set (not maximal)"
            );
        }
    }
}

fn x_of(n: usize) -> Vec<f64> {
    (0..n).map(|v| ((v * 7919) % 13) as f64 * 0.75 - 4.5).collect()
}

/// `Σ |w · x[src]|` over each vertex's in-arcs: the scale of its spmv sum's rounding.
fn spmv_scale(t: &TestGraph, x: &[f64]) -> Vec<f64> {
    let mut s = vec![0.0; t.num_vertices];
    for (i, &(a, b)) in t.arcs.iter().enumerate() {
        s[b as usize] += (t.weight(i) as f64 * x[a as usize]).abs();
    }
    s
}

fn assert_close(got: &[f64], want: &[f64], scale: impl Fn(usize) -> f64, ctx: &str) {
    assert_eq!(got.len(), want.len(), "{ctx}");
    for (v, (a, b)) in got.iter().zip(want).enumerate() {
        if a == b {
            continue;
        }
        let tol = 1e-12 * scale(v).max(a.abs()).max(b.abs()) + 1e-300;
        assert!((a - b).abs() <= tol, "{ctx}: vertex {v}: {a} vs {b}");
    }
}

/// The answers every configuration must reproduce.
struct Expected {
    sources: Vec<u32>,
    levels: Vec<Vec<i64>>,
    dist: Vec<Option<Vec<f64>>>,
    bad_weight: Option<(u32, u32, f32)>,
    wcc: Vec<u32>,
    greedy: Vec<bool>,
    pagerank_fixed: Vec<f64>,
    pagerank_tight: Vec<f64>,
    x: Vec<f64>,
    spmv: Vec<f64>,
    spmv_scale: Vec<f64>,
}

fn expected(s: &Stored) -> Expected {
    let t = &s.test;
    let m = MemoryGraph::load(&s.graph, true, true).unwrap();
    let sources = sources(t);
    let bad_weight = oracle::first_bad_weight(t);
    let greedy = greedy_oracle(t);
    assert_eq!(
        mis(&m, MisMethod::Greedy).in_set,
        greedy,
        "memory greedy mis, {}",
        s.name
    );
    check_mis(
        t,
        &mis(&m, MisMethod::Luby { seed: 3 }).in_set,
        &format!("memory luby, {}", s.name),
    );
    let x = x_of(t.num_vertices);
    Expected {
        levels: sources.iter().map(|&src| oracle::bfs_levels(t, src)).collect(),
        dist: sources
            .iter()
            .map(|&src| bad_weight.is_none().then(|| oracle::dijkstra(t, src)))
            .collect(),
        sources,
        bad_weight,
        wcc: oracle::wcc(t),
        greedy,
        pagerank_fixed: PageRank::new().fixed_iterations(Some(20)).run(&m).unwrap().ranks,
        pagerank_tight: oracle::pagerank(t, 0.85, 1e-15, 3000, None).0,
        spmv: spmv(&m, &x).unwrap().y,
        spmv_scale: spmv_scale(t, &x),
        x,
    }
}

/// Every algorithm on one opened layout.
fn check_all(s: &Stored, e: &Expected, g: &StreamGraph, ctx: &str) {
    let t = &s.test;
    let n = t.num_vertices;
    for (i, &src) in e.sources.iter().enumerate() {
        let b = st::bfs(g, src, i == 0).unwrap();
        assert_eq!(b.levels, e.levels[i], "bfs, {ctx}, source {src}");
        if let Some(p) = &b.parents {
            oracle::check_bfs_tree(t, src, &b.levels, p).unwrap_or_else(|err| panic!("bfs tree, {ctx}: {err}"));
        }
        match (&e.dist[i], e.bad_weight) {
            (Some(want), _) => assert_eq!(&st::sssp(g, src).unwrap().dist, want, "sssp, {ctx}, source {src}"),
            (None, Some((a, b, w))) => match st::sssp(g, src) {
                Err(StreamAlgoError::Algo(AlgoError::NegativeWeight { src, dst, weight })) => {
                    assert_eq!((src, dst, weight.to_bits()), (a, b, w.to_bits()), "{ctx}")
                }
                other => panic!("{ctx}: sssp should refuse the weight {w} of {a}->{b}: {other:?}"),
            },
            (None, None) => unreachable!(),
        }
    }
    assert_eq!(st::wcc_union_find(g).unwrap().labels, e.wcc, "wcc union-find, {ctx}");
    assert_eq!(
        st::wcc_label_propagation(g).unwrap().labels,
        e.wcc,
        "wcc label propagation, {ctx}"
    );
    assert_eq!(st::mis_greedy(g).unwrap().in_set, e.greedy, "greedy mis, {ctx}");
    check_mis(t, &st::mis_luby(g, 7).unwrap().in_set, &format!("luby mis, {ctx}"));

    let got = st::pagerank(g, &PageRank::new().fixed_iterations(Some(20))).unwrap();
    assert_eq!(got.iterations, 20, "{ctx}");
    assert_close(
        &got.ranks,
        &e.pagerank_fixed,
        |_| 0.0,
        &format!("pagerank fixed, {ctx}"),
    );
    let tol = 1e-12;
    let got = st::pagerank(g, &PageRank::new().tolerance(tol).max_iterations(1000)).unwrap();
    assert!(got.converged, "{ctx}");
    let l1: f64 = got
        .ranks
        .iter()
        .zip(&e.pagerank_tight)
        .map(|(a, b)| (a - b).abs())
        .sum();
    assert!(l1 <= 12.0 * n as f64 * tol, "pagerank to {tol}, {ctx}: L1 {l1}");

    let got = st::spmv(g, &e.x).unwrap();
    assert_close(&got.y, &e.spmv, |v| e.spmv_scale[v], &format!("spmv, {ctx}"));

    let mut stats = diskgraph_engine::RunStats::default();
    g.record(&mut stats);
    if t.num_arcs() > 0 {
        assert!(stats.bytes_read > 0 && stats.io_requests > 0, "{ctx}: {stats:?}");
    }
    assert!(stats.peak_engine_memory <= g.options().memory, "{ctx}: over budget");
    assert_eq!(stats.settings["mrt"], g.options().mrt);
}

/// The matrix: P × (MRT, vertex state), each with the budget alternating, on a 4-thread pool.
#[test]
fn every_algorithm_mrt_state_and_p() {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(4).build().unwrap();
    pool.install(|| {
        for s in graphs() {
            let e = expected(&s);
            for p in [1, 4, 16] {
                let (g, grid) = partitioned(&s, p, SortOrder::Grid);
                for (k, (mrt, state)) in [
                    (1, VertexStateKind::Memory),
                    (5, VertexStateKind::Memory),
                    (1, VertexStateKind::Mmap),
                    (5, VertexStateKind::Mmap),
                ]
                .into_iter()
                .enumerate()
                {
                    let memory = if (k + p as usize).is_multiple_of(2) {
                        SMALL
                    } else {
                        LARGE
                    };
                    let ctx = format!("{} [{grid}, mrt {mrt}, {state}, {} KiB]", s.name, memory >> 10);
                    check_all(&s, &e, &open_stream(&g, &grid, mrt, state, memory), &ctx);
                }
            }
        }
    });
}

/// `source` layouts (the one greedy MIS prefers) and `destination` ones (sources in many runs
/// per block, so reentry's pending marks see a source several times).
#[test]
fn source_and_destination_layouts() {
    for s in graphs().into_iter().take(6) {
        let e = expected(&s);
        let (_, src) = partitioned(&s, 4, SortOrder::Source);
        let (g, dst) = partitioned(&s, 4, SortOrder::Destination);
        for mrt in [1, 5] {
            let ctx = format!("{} [{src}, mrt {mrt}]", s.name);
            check_all(
                &s,
                &e,
                &open_stream(&g, &src, mrt, VertexStateKind::Memory, SMALL),
                &ctx,
            );
            let d = open_stream(&g, &dst, mrt, VertexStateKind::Memory, SMALL);
            let ctx = format!("{} [{dst}, mrt {mrt}]", s.name);
            assert_eq!(st::wcc_label_propagation(&d).unwrap().labels, e.wcc, "{ctx}");
            for (i, &source) in e.sources.iter().enumerate() {
                assert_eq!(st::bfs(&d, source, false).unwrap().levels, e.levels[i], "{ctx}");
            }
            assert!(matches!(
                st::mis_greedy(&d),
                Err(StreamAlgoError::Algo(AlgoError::InvalidSetting(m))) if m.contains("--sort source")
            ));
        }
    }
}

/// Reentry cuts iterations: a path in ID order is one block; with MRT 1 each iteration moves one
/// hop, with reentry a loaded block carries the search along the path.
#[test]
fn reentry_reduces_iterations() {
    let s = store(
        "weighted path 400",
        &gen::with_weights(gen::path(400, true), Weights::Integer(3), 9),
        Keep::default(),
    );
    let (g, grid) = partitioned(&s, 1, SortOrder::Grid);
    let want = oracle::dijkstra(&s.test, 0);
    let run = |mrt| {
        let sg = open_stream(&g, &grid, mrt, VertexStateKind::Memory, LARGE);
        let r = st::sssp(&sg, 0).unwrap();
        assert_eq!(r.dist, want, "mrt {mrt}");
        let mut stats = diskgraph_engine::RunStats::default();
        sg.record(&mut stats);
        (r.iterations, stats.settings["reentry_passes"].as_u64().unwrap())
    };
    let (one, no_reentry) = run(1);
    let (five, reentries) = run(5);
    assert_eq!(no_reentry, 0);
    assert!(reentries > 0);
    assert!(one >= 400 && five * 5 <= one, "iterations: mrt 1 {one}, mrt 5 {five}");
}

/// Blocks without an active source are not read, and runs of inactive sources inside loaded
/// blocks are skipped.
#[test]
fn inactive_blocks_and_runs_are_skipped() {
    // Two separate halves: a BFS inside the first never needs the second's blocks.
    let el = gen::union(gen::gnm(500, 2000, false, 21), gen::gnm(500, 2000, false, 22));
    let s = store("two halves", &el, Keep::default());
    let (g, grid) = partitioned(&s, 8, SortOrder::Grid);
    let sg = open_stream(&g, &grid, 1, VertexStateKind::Memory, LARGE);
    let b = st::bfs(&sg, 0, false).unwrap();
    assert_eq!(b.levels, oracle::bfs_levels(&s.test, 0));
    let mut stats = diskgraph_engine::RunStats::default();
    sg.record(&mut stats);
    let skipped = stats.settings["blocks_skipped"].as_u64().unwrap();
    assert!(skipped >= 16 * b.iterations as u64, "{skipped} blocks skipped");
    assert!(stats.settings["edges_skipped"].as_u64().unwrap() > 0);
    assert!(stats.bytes_read < b.iterations as u64 * s.test.num_arcs() as u64 * 8);
}

/// Gathering on a destination-sorted layout and adding by column on a grid-sorted one sum each
/// destination in the same (ascending-source) order: pagerank and spmv come out bit for bit
/// equal, on 4 threads, and equal to the memory engine up to rounding; a grid-sorted layout
/// cannot be gathered.
#[test]
fn gathered_sums_equal_by_column_sums() {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(4).build().unwrap();
    pool.install(|| {
        for s in graphs().into_iter().take(6) {
            let e = expected(&s);
            let (_, grid) = partitioned(&s, 16, SortOrder::Grid);
            let (g, dst) = partitioned(&s, 16, SortOrder::Destination);
            let by_column = open_stream(&g, &grid, 1, VertexStateKind::Memory, LARGE);
            let gathered = open_stream(&g, &dst, 1, VertexStateKind::Memory, LARGE);
            assert!(by_column.column_parallel() && gathered.column_parallel(), "{}", s.name);
            let pr = PageRank::new().fixed_iterations(Some(20));
            let (a, b) = (
                st::pagerank(&by_column, &pr).unwrap(),
                st::pagerank(&gathered, &pr).unwrap(),
            );
            assert_eq!(a.ranks, b.ranks, "pagerank, {}", s.name);
            assert_close(&b.ranks, &e.pagerank_fixed, |_| 1.0, &format!("pagerank, {}", s.name));
            let (a, b) = (st::spmv(&by_column, &e.x).unwrap(), st::spmv(&gathered, &e.x).unwrap());
            assert_eq!(a.y, b.y, "spmv, {}", s.name);
            assert_close(&b.y, &e.spmv, |v| e.spmv_scale[v], &format!("spmv, {}", s.name));
            let refused = by_column.gather(false, |_, _, _| {});
            assert!(matches!(refused, Err(StreamError::Setting(m)) if m.contains("--sort destination")));
        }
    });
}

/// `Threads::ByColumn` never hands two threads edges of one destination at the same time, and
/// each destination sees its edges in file order (ascending source in a `grid` layout): a plain
/// read-modify-write count per destination loses nothing, on 4 threads, with a budget that holds
/// a request of many blocks and one that cuts the stream into many small requests.
#[test]
fn by_column_never_shares_a_destination() {
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
    let s = store(
        "rmat hub",
        &gen::relabel(gen::rmat(11, 16 << 10, true, 12), 12),
        Keep::all(),
    );
    let n = s.test.num_vertices as usize;
    let mut indegree = vec![0u64; n];
    for &(_, d) in &s.test.arcs {
        indegree[d as usize] += 1;
    }
    let pool = rayon::ThreadPoolBuilder::new().num_threads(4).build().unwrap();
    pool.install(|| {
        let grid16 = partitioned(&s, 16, SortOrder::Grid);
        let grid1 = partitioned(&s, 1, SortOrder::Grid);
        for (p, memory) in [(16, LARGE), (16, SMALL), (1, LARGE)] {
            let (g, grid) = if p == 16 { &grid16 } else { &grid1 };
            let sg = open_stream(g, grid, 1, VertexStateKind::Memory, memory);
            assert_eq!(sg.column_parallel(), p == 16, "{grid} {memory}");
            let busy: Vec<AtomicBool> = (0..n).map(|_| AtomicBool::new(false)).collect();
            let count: Vec<AtomicU64> = (0..n).map(|_| AtomicU64::new(0)).collect();
            let last: Vec<AtomicU64> = (0..n).map(|_| AtomicU64::new(0)).collect();
            let pass = Pass {
                threads: Threads::ByColumn,
                ..Pass::all()
            };
            let r = sg
                .stream(&pass, |e, _| {
                    let d = e.dst as usize;
                    assert!(!busy[d].swap(true, Relaxed), "two threads on destination {d}");
                    let c = count[d].load(Relaxed);
                    for _ in 0..20 {
                        std::hint::spin_loop();
                    }
                    count[d].store(c + 1, Relaxed);
                    assert!(
                        u64::from(e.src) + 1 >= last[d].load(Relaxed),
                        "destination {d} out of order"
                    );
                    last[d].store(u64::from(e.src) + 1, Relaxed);
                    busy[d].store(false, Relaxed);
                    Update::NONE
                })
                .unwrap();
            assert_eq!(r.edges_processed as usize, s.test.num_arcs());
            let got: Vec<u64> = count.iter().map(|c| c.load(Relaxed)).collect();
            assert_eq!(got, indegree, "{grid} {memory}");
        }
    });
}

/// The engine's programming model directly: both orders visit every edge once, in block order;
/// `Update::SRC` activates sources; `vmap` visits every vertex.
#[test]
fn orders_updates_and_vmap() {
    let s = store("gnm", &gen::gnm(200, 900, true, 31), Keep::default());
    let (g, grid) = partitioned(&s, 4, SortOrder::Grid);
    let sg = open_stream(&g, &grid, 1, VertexStateKind::Memory, SMALL);
    let shape = *sg.layout().shape();
    for order in [Order::RowMajor, Order::ColumnMajor] {
        let seen = std::sync::Mutex::new(Vec::new());
        let next = Frontier::new(200);
        let pass = Pass {
            order,
            next: Some(&next),
            threads: Threads::One,
            ..Pass::all()
        };
        let r = sg
            .stream(&pass, |e, _| {
                seen.lock().unwrap().push((shape.block_of(e.src, e.dst), e.src, e.dst));
                if e.src % 2 == 0 {
                    Update::SRC
                } else {
                    Update::NONE
                }
            })
            .unwrap();
        let seen = seen.into_inner().unwrap();
        assert_eq!(r.edges_processed as usize, s.test.num_arcs());
        let key = |b: usize| {
            let (i, j) = shape.block_position(b);
            if order == Order::RowMajor {
                (i, j)
            } else {
                (j, i)
            }
        };
        assert!(seen.windows(2).all(|w| key(w[0].0) <= key(w[1].0)), "{order:?}");
        let mut arcs: Vec<(u32, u32)> = seen.iter().map(|&(_, a, b)| (a, b)).collect();
        arcs.sort_unstable();
        assert_eq!(arcs, s.test.arcs);
        let sources: Vec<u32> = next.to_vec();
        assert!(sources.iter().all(|v| v % 2 == 0) && !sources.is_empty());
    }
    let count = std::sync::atomic::AtomicU64::new(0);
    sg.vmap(|_| {
        count.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    });
    assert_eq!(count.into_inner(), 200);
}

/// An edge outside its block is an error naming `edges.bin`, never an out-of-bounds access.
#[test]
fn corrupt_layout_is_an_error() {
    let s = store("gnm", &gen::gnm(500, 3000, false, 41), Keep::default());
    let (g, grid) = partitioned(&s, 4, SortOrder::Grid);
    let edges = g.path().join(&grid).join("edges.bin");
    let clean = std::fs::read(&edges).unwrap();
    for bad in [7_000_000u32, 499] {
        let mut bytes = clean.clone();
        // Edge 10 is in block (0, 0): a destination of 499 is in range for the graph but not the
        // block; 7 000 000 is in range for nothing.
        bytes[10 * 8 + 4..10 * 8 + 8].copy_from_slice(&bad.to_le_bytes());
        std::fs::write(&edges, &bytes).unwrap();
        for memory in [SMALL, LARGE] {
            let sg = open_stream(&g, &grid, 5, VertexStateKind::Memory, memory);
            for r in [
                st::wcc_union_find(&sg).map(|_| ()),
                st::bfs(&sg, 0, false).map(|_| ()),
                st::pagerank(&sg, &PageRank::new()).map(|_| ()),
            ] {
                match r {
                    Err(StreamAlgoError::Engine(StreamError::Format(FormatError::Content { path, reason }))) => {
                        assert!(path.ends_with("edges.bin") && reason.contains("edge 10 "), "{reason}")
                    }
                    other => panic!("{bad}: {other:?}"),
                }
            }
        }
    }
}

#[test]
fn budget_too_small_and_bad_settings_are_refused() {
    let s = store("gnm", &gen::gnm(100, 300, true, 51), Keep::default());
    let (g, grid) = partitioned(&s, 2, SortOrder::Grid);
    let open = |memory, mrt| {
        let opts = StreamOptions {
            memory,
            mrt,
            ..Default::default()
        };
        StreamGraph::open(&g, &grid, &opts)
    };
    assert!(matches!(open(16 << 10, 5), Err(StreamError::BudgetTooSmall { .. })));
    assert!(matches!(open(SMALL, 0), Err(StreamError::Setting(_))));
    assert!(matches!(
        StreamGraph::open(&g, "grid-9", &StreamOptions::default()),
        Err(StreamError::Format(_))
    ));
    let sg = open(SMALL, 5).unwrap();
    assert!(matches!(
        st::bfs(&sg, 100, false),
        Err(StreamAlgoError::Algo(AlgoError::InvalidSource { .. }))
    ));
    assert!(matches!(
        st::spmv(&sg, &[1.0]),
        Err(StreamAlgoError::Algo(AlgoError::InvalidSetting(_)))
    ));
}

/// pread instead of io_uring, and a weighted layout opened without its weights.
#[test]
fn pread_backend_and_unweighted_opening() {
    let s = store(
        "weighted rmat",
        &gen::with_weights(gen::rmat(9, 4 << 9, true, 61), Weights::Integer(5), 61),
        Keep::default(),
    );
    let (g, grid) = partitioned(&s, 4, SortOrder::Grid);
    let opts = StreamOptions {
        memory: SMALL,
        backend: Some(diskgraph_engine::selective::BackendKind::Pread),
        weights: true,
        ..Default::default()
    };
    let sg = StreamGraph::open(&g, &grid, &opts).unwrap();
    assert_eq!(st::sssp(&sg, 0).unwrap().dist, oracle::dijkstra(&s.test, 0));
    let mut stats = diskgraph_engine::RunStats::default();
    sg.record(&mut stats);
    assert_eq!(stats.settings["io_backend"], "pread");
    let plain = StreamGraph::open(&g, &grid, &StreamOptions { weights: false, ..opts }).unwrap();
    assert_eq!(
        st::bfs(&plain, 0, false).unwrap().levels,
        oracle::bfs_levels(&s.test, 0)
    );
    assert!(matches!(
        st::sssp(&plain, 0),
        Err(StreamAlgoError::Algo(AlgoError::InvalidSetting(_)))
    ));
}

/// The registry: stream against memory in original IDs (sparse IDs), methods, layouts, `auto`
/// for mis, and the errors a user meets.
#[test]
fn registry_stream_engine() {
    let el = gen::with_weights(
        gen::relabel(gen::rmat(12, 32 << 10, true, 71), 71),
        Weights::Integer(3),
        71,
    );
    let s = store_with_ids("rmat with sparse IDs", &el, Keep::all(), |v| {
        1_000_000 + 7 * u64::from(v)
    });
    let req = |alg: &str, engine: &str| {
        let mut r = RunRequest::new(alg);
        r.engine = engine.into();
        r.memory = SMALL;
        r.threads = Some(2);
        r.source = registry::Source::MaxDegree;
        r.tolerance = 1e-13;
        r
    };
    // No layout yet: a clear error naming the command that makes one.
    let err = registry::run(&s.graph, &req("bfs", "stream")).unwrap_err();
    assert!(
        matches!(&err, RunError::Setting(m) if m.contains("diskgraph partition")),
        "{err}"
    );
    let err = registry::run(&s.graph, &req("mis", "stream")).unwrap_err();
    assert!(err.to_string().contains("--sort source"), "{err}");
    partitioned(&s, 4, SortOrder::Grid);
    let (g, _) = partitioned(&s, 2, SortOrder::Source);

    for alg in ["bfs", "sssp", "wcc", "pagerank", "spmv", "mis"] {
        let mem = registry::run(&g, &req(alg, "memory")).unwrap();
        for (mrt, state) in [(1, VertexStateKind::Memory), (5, VertexStateKind::Mmap)] {
            let mut r = req(alg, "stream");
            r.mrt = mrt;
            r.vertex_state = state;
            let out = registry::run(&g, &r).unwrap();
            assert_eq!(out.stats.engine, "stream");
            assert_eq!(out.vertex_ids, mem.vertex_ids);
            let want_layout = if alg == "mis" { "grid-2-source" } else { "grid-4" };
            assert_eq!(out.stats.settings["layout"], want_layout, "{alg}");
            assert_eq!(out.stats.settings["vertex_state"], state.to_string());
            match (&out.values, &mem.values) {
                (Values::Float(a), Values::Float(b)) => assert_close(a, b, |_| 1e3, alg),
                (a, b) => assert_eq!(a, b, "{alg}"),
            }
        }
    }
    // Methods.
    let mut r = req("wcc", "stream");
    r.method = Some("label-propagation".into());
    let lp = registry::run(&g, &r).unwrap();
    assert_eq!(lp.values, registry::run(&g, &req("wcc", "memory")).unwrap().values);
    assert!(lp.stats.iterations > 1);
    r.method = Some("bogus".into());
    assert!(matches!(registry::run(&g, &r), Err(RunError::Setting(m)) if m.contains("union-find")));
    let mut r = req("wcc", "memory");
    r.method = Some("union-find".into());
    assert!(matches!(registry::run(&g, &r), Err(RunError::Setting(m)) if m.contains("--engine stream")));
    let mut r = req("mis", "memory");
    r.method = Some("luby".into());
    let Values::Signed(luby) = registry::run(&g, &r).unwrap().values else {
        panic!()
    };
    // The stored graph's own arcs (its isolated vertices were not declared, so internal IDs are
    // not the testkit's).
    let m = MemoryGraph::load(&g, false, false).unwrap();
    let arcs: Vec<(u32, u32)> = (0..m.num_vertices() as u32)
        .flat_map(|u| m.out().neighbours(u).iter().map(move |&v| (u, v)))
        .collect();
    let in_set: Vec<bool> = luby.iter().map(|&b| b == 1).collect();
    check_mis_arcs(&neighbours(m.num_vertices(), &arcs), &in_set, "registry luby");
    let mut r = req("bfs", "stream");
    r.method = Some("x".into());
    assert!(registry::run(&g, &r).is_err());
    // Layouts: named, missing, unsuitable.
    let mut r = req("bfs", "stream");
    r.layout = Some("grid-2-source".into());
    assert_eq!(registry::run(&g, &r).unwrap().stats.settings["layout"], "grid-2-source");
    r.layout = Some("grid-7".into());
    let err = registry::run(&g, &r).unwrap_err().to_string();
    assert!(
        err.contains("no layout grid-7") && err.contains("grid-2-source, grid-4"),
        "{err}"
    );
    // auto: mis goes to the stream engine when its CSR exceeds the budget, memory otherwise.
    let mut r = req("mis", "auto");
    r.memory = 128 << 10;
    let out = registry::run(&g, &r).unwrap();
    assert_eq!(out.stats.engine, "stream");
    assert!(out.summary.contains("engine auto: stream"), "{}", out.summary);
    let mut r = req("mis", "auto");
    r.memory = 1 << 30;
    assert_eq!(registry::run(&g, &r).unwrap().stats.engine, "memory");
    // Engines without the algorithm, and bad settings.
    for (alg, engine) in [
        ("kcore", "stream"),
        ("scc", "stream"),
        ("msbfs", "stream"),
        ("mis", "selective"),
    ] {
        assert!(
            matches!(registry::run(&g, &req(alg, engine)), Err(RunError::Setting(_))),
            "{alg}"
        );
    }
    let mut r = req("bfs", "stream");
    r.mrt = 0;
    assert!(matches!(registry::run(&g, &r), Err(RunError::Setting(_))));
    r.mrt = 1;
    r.memory = 4096;
    assert!(matches!(registry::run(&g, &r), Err(RunError::Setting(m)) if m.contains("budget")));
}

/// BFS parents on the stream engine through the registry: a valid BFS tree in original IDs.
#[test]
fn parents_through_the_registry() {
    let s = store("grid", &gen::grid(10, 12, false), Keep::default());
    let (g, _) = partitioned(&s, 4, SortOrder::Grid);
    let mut r = RunRequest::new("bfs");
    r.engine = "stream".into();
    r.parents = true;
    let out = registry::run(&g, &r).unwrap();
    let Values::Signed(parents) = out.values else { panic!() };
    let levels = oracle::bfs_levels(&s.test, 0);
    oracle::check_bfs_tree(&s.test, 0, &levels, &parents).unwrap();
}
