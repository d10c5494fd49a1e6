//! The sync engine: every list read through its cache equals the stored list under every
//! backend, prefetch setting and index mode, with budgets down to the minimum; the prefetcher
//! loads ahead of a BFS queue; damage is an error.

mod common;

use common::{fixture, sync_bfs};
use diskgraph_engine::selective::BackendKind;
use diskgraph_engine::sync::{AheadHeap, Reads, Sequential, SyncGraph, SyncOptions};
use diskgraph_engine::{Engine, EngineError, RunStats};
use diskgraph_format::{Direction, FormatError};
use diskgraph_testkit::{gen, EdgeList, Keep};

/// Options: `ift`, `ift_seq`, the summary, the backend, a budget.
fn options(ift: usize, ift_seq: usize, summary: bool, io: Option<BackendKind>, memory: u64) -> SyncOptions {
    SyncOptions {
        memory,
        ift,
        ift_seq,
        index_summary: summary,
        io,
        need_in: true,
        need_weights: true,
        index: None,
        adjacency: diskgraph_engine::AdjacencyChoice::Plain,
        cancel: None,
    }
}

/// Every combination the engine takes, with a small budget.
fn every_setting(memory: u64) -> Vec<SyncOptions> {
    let mut all = Vec::new();
    for io in [None, Some(BackendKind::Pread), Some(BackendKind::Mmap)] {
        for summary in [false, true] {
            for (ift, seq) in [(0, 0), (4, 1), (64, 8)] {
                all.push(options(ift, seq, summary, io, memory));
            }
        }
    }
    all
}

fn stats(g: &SyncGraph) -> RunStats {
    let mut s = RunStats::default();
    g.record(&mut s);
    s
}

fn graphs() -> Vec<(&'static str, EdgeList)> {
    vec![
        (
            "weighted directed gnm with a hub",
            gen::with_weights(
                gen::union(gen::gnm(3000, 20000, true, 3), gen::star(3000, 10, true, 3)),
                gen::Weights::Integer(9),
                3,
            ),
        ),
        ("undirected path", gen::path(3000, false)),
    ]
}

#[test]
fn every_list_read_is_the_stored_list() {
    for (name, el) in graphs() {
        let f = fixture(name, el, Keep::default());
        let t = &f.test;
        let out = t.out_lists();
        let mut inn = vec![Vec::new(); t.num_vertices];
        for (i, &(s, d)) in t.arcs.iter().enumerate() {
            inn[d as usize].push((s, t.weight(i)));
        }
        for opts in every_setting(96 << 10) {
            let g = SyncGraph::open(&f.graph, &opts).unwrap_or_else(|e| panic!("{name} {opts:?}: {e}"));
            let mut r = g.reader();
            // Scattered: hits, misses and evictions.
            for v in (0..t.num_vertices as u32).map(|i| (i * 7919) % t.num_vertices as u32) {
                for (d, lists) in [(Direction::Out, &out), (Direction::In, &inn)] {
                    let want = &lists[v as usize];
                    let lists_of = if t.directed { want } else { &out[v as usize] };
                    let got: Vec<(u32, f32)> = match t.weights {
                        Some(_) => {
                            let (ids, ws) = r.edges(d, v).unwrap();
                            ids.iter().copied().zip(ws.iter().copied()).collect()
                        }
                        None => r.neighbours(d, v).unwrap().iter().map(|&x| (x, 1.0)).collect(),
                    };
                    let mut sorted = lists_of.clone();
                    sorted.sort_by(|a, b| a.partial_cmp(b).unwrap());
                    let mut got_sorted = got.clone();
                    got_sorted.sort_by(|a, b| a.partial_cmp(b).unwrap());
                    assert_eq!(got_sorted, sorted, "{name} {opts:?} vertex {v} {d:?}");
                    assert_eq!(r.degree(d, v).unwrap(), sorted.len() as u64);
                }
            }
            let s = stats(&g);
            if opts.io != Some(BackendKind::Mmap) {
                assert!(s.peak_engine_memory <= opts.memory, "{name} {opts:?}");
                assert!(s.bytes_read > 0, "{name} {opts:?}");
            }
        }
    }
}

#[test]
fn the_prefetcher_loads_ahead_of_a_queue_and_a_sequential_scan() {
    let f = fixture("gnm", gen::gnm(20000, 200_000, true, 5), Keep::default());
    let want = diskgraph_testkit::oracle::bfs_levels(&f.test, 0);
    // Under mmap a prefetch is a madvise issued when the prefetcher gets ahead of the scan, a
    // race per setting: counted over all mmap settings with prefetching on.
    let mut advised = 0;
    for opts in every_setting(256 << 10) {
        let g = SyncGraph::open(&f.graph, &opts).unwrap();
        assert_eq!(sync_bfs(&g, 0), want, "{opts:?}");
        let mut r = g.reader();
        let mut total = 0;
        for v in Sequential::new(&g, 0..20000, Reads::out(0)) {
            total += r.neighbours(Direction::Out, v).unwrap().len();
        }
        assert_eq!(total, f.test.arcs.len());
        let s = stats(&g);
        let prefetched = s.settings.get("pages_prefetched").and_then(|v| v.as_u64());
        match (opts.io, opts.ift) {
            (Some(BackendKind::Mmap), 0) => assert_eq!(s.io_requests, 0, "{opts:?}"),
            (Some(BackendKind::Mmap), _) => advised += s.io_requests,
            (_, 0) => assert_eq!(prefetched, Some(0), "{opts:?}"),
            _ => assert!(prefetched.unwrap() > 100, "{opts:?}: {s:?}"),
        }
    }
    assert!(advised > 0, "no madvise under any mmap setting with prefetching");
}

#[test]
fn the_heap_pops_in_key_order_whatever_the_pushes() {
    let f = fixture("path", gen::path(1000, true), Keep::default());
    let g = SyncGraph::open(&f.graph, &options(8, 0, false, None, 1 << 20)).unwrap();
    let mut h = AheadHeap::new(&g, 1000, f64::INFINITY, Reads::out(1));
    let mut keys = vec![f64::INFINITY; 1000];
    for i in 0..5000u64 {
        let v = (i * 7919 % 1000) as u32;
        let k = ((i * 104_729) % 977) as f64;
        if h.push_or_decrease(v, k) {
            keys[v as usize] = k;
        }
        assert!(keys[v as usize] <= k);
    }
    let mut last = f64::NEG_INFINITY;
    let mut popped = 0;
    while let Some((v, k)) = h.pop() {
        assert!(k >= last);
        assert_eq!(k, keys[v as usize]);
        last = k;
        popped += 1;
    }
    assert_eq!(popped, keys.iter().filter(|k| k.is_finite()).count());
}

#[test]
fn a_budget_too_small_is_refused_with_the_smallest_that_works() {
    let f = fixture("gnm", gen::gnm(100, 300, true, 1), Keep::default());
    let err = SyncGraph::open(&f.graph, &options(4, 1, false, None, 4096))
        .err()
        .unwrap();
    let EngineError::BudgetTooSmall { minimum, .. } = err else {
        panic!("{err}")
    };
    SyncGraph::open(&f.graph, &options(4, 1, false, None, minimum)).unwrap();
    assert!(SyncGraph::open(&f.graph, &options(4, 1, false, None, minimum - 1)).is_err());
}

#[test]
fn damage_is_an_error_not_a_panic() {
    let f = fixture("gnm", gen::gnm(500, 3000, true, 41), Keep::default());
    let adj = f.graph.file_path("out.adj");
    let mut bytes = std::fs::read(&adj).unwrap();
    bytes[1234 * 4..1235 * 4].copy_from_slice(&7_000_000u32.to_le_bytes());
    std::fs::write(&adj, &bytes).unwrap();
    let idx = f.graph.file_path("out.idx");
    let good = std::fs::read(&idx).unwrap();
    let mut bad = good.clone();
    // Vertex 70's offset past its summary's anchors.
    bad[70 * 8..71 * 8].copy_from_slice(&u64::MAX.to_le_bytes());
    for opts in every_setting(1 << 20) {
        std::fs::write(&idx, &bad).unwrap();
        let e = SyncGraph::open(&f.graph, &opts)
            .err()
            .expect("the index is checked at open");
        assert!(e.to_string().contains("out.idx"), "{e}");
        std::fs::write(&idx, &good).unwrap();
        let g = SyncGraph::open(&f.graph, &opts).unwrap();
        let mut r = g.reader();
        let e = (0..500).find_map(|v| r.neighbours(Direction::Out, v).err()).unwrap();
        assert!(
            matches!(
                e,
                EngineError::Format(FormatError::NeighbourOutOfRange {
                    index: 1234,
                    value: 7_000_000,
                    ..
                })
            ),
            "{opts:?}: {e}"
        );
        if opts.index_summary {
            // Changed under an open graph: the summary catches it.
            std::fs::write(&idx, &bad).unwrap();
            let g = SyncGraph::open(
                &f.graph,
                &SyncOptions {
                    index_summary: false,
                    ..opts.clone()
                },
            );
            assert!(g.is_err());
        }
    }
    // An index changed after opening with a summary.
    for io in [None, Some(BackendKind::Mmap)] {
        std::fs::write(&idx, &good).unwrap();
        let g = SyncGraph::open(&f.graph, &options(0, 0, true, io, 1 << 20)).unwrap();
        std::fs::write(&idx, &bad).unwrap();
        let e = g.reader().neighbours(Direction::Out, 70).unwrap_err();
        assert!(
            matches!(e, EngineError::Format(FormatError::Index { entry: 70, .. })),
            "{io:?}: {e}"
        );
    }
}
