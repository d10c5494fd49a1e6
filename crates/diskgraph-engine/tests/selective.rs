//! The selective engine's guarantees, through its own primitives, on graph directories written
//! by the importer: with every I/O configuration a round delivers each active list once, in
//! pieces that put together are the stored list, and whole lists are assembled within the
//! budget; edge_map's push and pull find the same frontier, and a directed graph opened
//! without in-edges only pushes; a damaged neighbour ID is an error, never a panic; a budget
//! too small is refused with the smallest one, which works; a traversal's later rounds are
//! served from retained lists, and without retention read again.

mod common;

use std::sync::Mutex;

use common::{
    fixture, io_configs, levels_by_edge_map, lists_read, open_selective, pread, stats, stored_lists,
    weighted_multigraph,
};
use diskgraph_engine::selective::{
    EdgeFn, EdgeMapOptions, FrontierBuilder, Mode, PageCacheOptions, Replacement, SelectiveGraph, SelectiveOptions,
    VertexSubset,
};
use diskgraph_engine::{human_minimum, AdjacencyChoice, EngineError};
use diskgraph_format::{Direction, FormatError};
use diskgraph_io::{BackendKind, IoConfig};
use diskgraph_testkit::gen::{self, Weights};
use diskgraph_testkit::{oracle, EdgeList, Keep};

/// A budget that leaves the I/O buffers a few hundred KiB and assembles whole lists in batches.
const SMALL: u64 = 256 << 10;
/// A budget with room for retained lists.
const LARGE: u64 = 64 << 20;

#[test]
fn every_io_configuration_delivers_each_list_once() {
    let graphs = [
        weighted_multigraph(),
        fixture(
            "weighted directed star of 20000 (its hub spans many reads)",
            gen::with_weights(gen::star(20_000, 2_000, true, 11), Weights::Uniform(1e-3, 1e3), 11),
            Keep::default(),
        ),
        fixture(
            "rmat scale 12 undirected with duplicates",
            gen::rmat(12, 12 << 12, false, 13),
            Keep::all(),
        ),
    ];
    let configs = io_configs();
    for f in &graphs {
        let t = &f.test;
        let n = t.num_vertices;
        let every = VertexSubset::all(n);
        let some = VertexSubset::from_fn(n, |v| v % 3 == 1);
        let targets = |d: Direction| -> Vec<Vec<u32>> {
            let lists = stored_lists(t, d, &every, false);
            lists
                .into_iter()
                .map(|l| l.into_iter().map(|e| e.0).collect())
                .collect()
        };
        let out_lists = targets(Direction::Out);
        let in_lists = match t.directed {
            true => targets(Direction::In),
            false => vec![Vec::new(); n],
        };
        for cfg in &configs {
            let ctx = format!("{} [{}]", f.name, cfg.name);
            let g = open_selective(&f.graph, &cfg.io, SMALL, true);
            for d in [Direction::Out, Direction::In] {
                for (active, weights) in [(&every, true), (&some, false)] {
                    let got = lists_read(&g, d, active, weights).unwrap();
                    assert_eq!(
                        got,
                        stored_lists(t, d, active, weights),
                        "{ctx}, {d:?}, weights {weights}"
                    );
                }
            }
            let assembled = Mutex::new(Vec::new());
            g.for_each_list(&some, true, |v, out, inn| {
                assembled.lock().unwrap().push((v, out.to_vec(), inn.to_vec()))
            })
            .unwrap();
            let mut assembled = assembled.into_inner().unwrap();
            assembled.sort_by_key(|a| a.0);
            assert_eq!(assembled.len(), some.len(), "{ctx}");
            for (v, out, inn) in assembled {
                let v = v as usize;
                assert_eq!((&out, &inn), (&out_lists[v], &in_lists[v]), "{ctx}, vertex {v}");
            }
            let s = stats(&g);
            assert!(
                s.bytes_read > 0 && s.io_requests > 0 && s.blocks_after_dedup > 0,
                "{ctx}: {s:?}"
            );
            assert!(s.blocks_requested >= s.blocks_after_dedup, "{ctx}");
            assert!(s.settings.contains_key("io_backend") && s.settings.contains_key("scheduler"));
            // Within the budget, unless one vertex's lists alone exceed the assembly share.
            let largest = (0..n)
                .map(|v| 4 * (out_lists[v].len() + in_lists[v].len()) as u64)
                .max()
                .unwrap_or(0);
            let share = s.settings["assembly_bytes"].as_u64().unwrap();
            let allowed = SMALL + largest.saturating_sub(share);
            assert!(
                s.peak_engine_memory <= allowed,
                "{ctx}: {} > {allowed}",
                s.peak_engine_memory
            );
        }
    }
}

/// Activates every head it is given.
struct Touch;

impl EdgeFn for Touch {
    fn update(&self, _s: u32, _d: u32, _w: f32) -> bool {
        true
    }
}

/// The heads of the edges leaving `frontier` along `along`, by the testkit's arcs.
fn heads(t: &diskgraph_testkit::TestGraph, frontier: &VertexSubset, along: Direction) -> Vec<u32> {
    let mut hit = vec![false; t.num_vertices];
    for &(a, b) in &t.arcs {
        let (tail, head) = if along == Direction::Out { (a, b) } else { (b, a) };
        if frontier.contains(tail) {
            hit[head as usize] = true;
        }
    }
    (0..t.num_vertices as u32).filter(|&v| hit[v as usize]).collect()
}

#[test]
fn edge_map_push_and_pull_agree() {
    let f = fixture("rmat", gen::rmat(11, 8 << 11, true, 31), Keep::all());
    let t = &f.test;
    let n = t.num_vertices;
    let g = open_selective(&f.graph, &pread(), SMALL, true);
    for frontier in [
        VertexSubset::from_vertices(n, vec![1, 7, 300]),
        VertexSubset::from_fn(n, |v| v % 3 == 0),
    ] {
        for along in [Direction::Out, Direction::In] {
            let want = heads(t, &frontier, along);
            for mode in [Mode::Push, Mode::Pull, Mode::Auto] {
                let opts = EdgeMapOptions::along(along).mode(mode);
                let mut out = FrontierBuilder::new(n);
                let used = g.edge_map_into(&frontier, &Touch, &opts, &out).unwrap();
                assert!(mode == Mode::Auto || used == mode);
                assert_eq!(out.take().to_vec(), want, "{along:?} {mode:?}");
            }
        }
    }
}

#[test]
fn a_directed_graph_without_in_edges_pushes_only() {
    let f = fixture("rmat directed", gen::rmat(9, 4 << 9, true, 21), Keep::default());
    let t = &f.test;
    let n = t.num_vertices;
    let g = open_selective(&f.graph, &pread(), SMALL, false);
    // A frontier of every vertex would pull, had the in-edges been opened.
    let every = VertexSubset::all(n);
    let opts = EdgeMapOptions::along(Direction::Out);
    let mut out = FrontierBuilder::new(n);
    assert_eq!(g.edge_map_into(&every, &Touch, &opts, &out).unwrap(), Mode::Push);
    assert_eq!(out.take().to_vec(), heads(t, &every, Direction::Out));
    let missing = |r: Result<VertexSubset, EngineError>| matches!(r, Err(EngineError::MissingInEdges));
    assert!(missing(g.edge_map(&every, &Touch, &opts.clone().mode(Mode::Pull))));
    assert!(missing(g.edge_map(
        &every,
        &Touch,
        &EdgeMapOptions::along(Direction::In)
    )));
    assert!(matches!(
        g.for_each_piece(Direction::In, &every, false, |_, _| {}),
        Err(EngineError::MissingInEdges)
    ));
}

#[test]
fn a_corrupt_neighbour_is_an_error_not_a_panic() {
    let f = fixture("gnm", gen::gnm(500, 3000, false, 41), Keep::default());
    let adj = f.graph.file_path("out.adj");
    let mut bytes = std::fs::read(&adj).unwrap();
    bytes[1234 * 4..1235 * 4].copy_from_slice(&7_000_000u32.to_le_bytes());
    std::fs::write(&adj, &bytes).unwrap();
    let every = VertexSubset::all(500);
    for cfg in io_configs() {
        // The plain lists: the compressed layout's are checked in `selective_compressed`.
        let opts = SelectiveOptions {
            io: cfg.io.clone(),
            memory: SMALL,
            adjacency: AdjacencyChoice::Plain,
            ..SelectiveOptions::default()
        };
        let g = SelectiveGraph::open(&f.graph, &opts).unwrap();
        let err = g.for_each_piece(Direction::Out, &every, false, |_, _| {}).unwrap_err();
        match &err {
            EngineError::Format(FormatError::NeighbourOutOfRange { index, value, .. }) => {
                assert_eq!((*index, *value), (1234, 7_000_000), "{}", cfg.name)
            }
            other => panic!("{}: {other}", cfg.name),
        }
        let text = err.to_string();
        assert!(text.contains("out.adj") && text.contains("7000000"), "{text}");
        for mode in [Mode::Push, Mode::Pull] {
            let opts = EdgeMapOptions::along(Direction::Out).mode(mode);
            assert!(g.edge_map(&every, &Touch, &opts).is_err(), "{} {mode:?}", cfg.name);
        }
        assert!(g.for_each_list(&every, true, |_, _, _| {}).is_err(), "{}", cfg.name);
    }
}

#[test]
fn a_budget_too_small_is_refused_with_the_smallest_that_works() {
    let f = fixture(
        "weighted gnm",
        gen::with_weights(gen::gnm(100, 300, true, 51), Weights::Integer(3), 51),
        Keep::default(),
    );
    let page_cache = PageCacheOptions {
        page_size: 4096,
        policy: Replacement::Clock,
        track_utilization: false,
    };
    for opts in [
        SelectiveOptions::default(),
        SelectiveOptions {
            need_in: true,
            need_weights: true,
            assemble_lists: true,
            ..SelectiveOptions::default()
        },
        SelectiveOptions {
            page_cache: Some(page_cache),
            ..SelectiveOptions::default()
        },
    ] {
        let open = |memory| SelectiveGraph::open(&f.graph, &SelectiveOptions { memory, ..opts.clone() });
        let err = open(4096).err().expect("4 KiB is refused");
        let EngineError::BudgetTooSmall { budget, minimum, .. } = err else {
            panic!("{err}")
        };
        assert_eq!(budget, 4096);
        let text = err.to_string();
        assert!(
            text.ends_with(&format!("give it at least {}", human_minimum(minimum))),
            "{text}"
        );
        open(minimum).unwrap_or_else(|e| panic!("the minimum {minimum} is refused: {e}"));
        assert!(open(minimum - 1).is_err(), "{minimum} is not the smallest");
    }
}

/// Reads shorter than a pool buffer (`--max-request` below 4 KiB, whose buffers are a page),
/// several I/O threads, weights beside the lists: the smallest budget `minimum_budget` names
/// is one the open takes, and a byte less is refused with that figure.
#[test]
fn the_minimum_budget_opens_whatever_the_request_size_and_io_threads() {
    let f = fixture(
        "weighted gnm",
        gen::with_weights(gen::gnm(100, 300, true, 52), Weights::Integer(3), 52),
        Keep::default(),
    );
    for (max_request, io_threads, need_weights) in [
        (512, 1, false),
        (1024, 1, true),
        (2048, 2, false),
        (4096, 4, true),
        (64 << 10, 3, false),
    ] {
        let opts = SelectiveOptions {
            io: IoConfig {
                backend: Some(BackendKind::Pread),
                block_size: 512,
                max_request_bytes: max_request,
                io_threads,
                ..IoConfig::default()
            },
            need_in: true,
            need_weights,
            ..SelectiveOptions::default()
        };
        let least = SelectiveGraph::minimum_budget(&f.graph, &opts);
        let case = format!("max request {max_request}, {io_threads} I/O threads, weights {need_weights}");
        let open = |memory| SelectiveGraph::open(&f.graph, &SelectiveOptions { memory, ..opts.clone() });
        open(least).unwrap_or_else(|e| panic!("{case}: the minimum {least} is refused: {e}"));
        match open(least - 1) {
            Err(EngineError::BudgetTooSmall { minimum, .. }) => assert_eq!(minimum, least, "{case}"),
            Err(e) => panic!("{case}: {e}"),
            Ok(_) => panic!("{case}: {} bytes opens, below the minimum {least}", least - 1),
        }
    }
}

/// A graph whose traversal from vertex 0 pulls twice: a hub (0) with 1000 spokes, a leaf behind
/// each spoke, and 500 separate edges it never reaches. The first pull reads the leaves' and the
/// separate edges' lists; the second finds the separate edges' lists retained.
fn spokes_and_pairs() -> EdgeList {
    let mut edges: Vec<(u32, u32)> = (1..=1000).map(|i| (0, i)).collect();
    edges.extend((1..=1000).map(|i| (i, 1000 + i)));
    edges.extend((0..500).map(|k| (2001 + 2 * k, 2002 + 2 * k)));
    EdgeList::new(3001, false, edges)
}

#[test]
fn retained_lists_serve_later_rounds() {
    let f = fixture("spokes and pairs", spokes_and_pairs(), Keep::default());
    let want = oracle::bfs_levels(&f.test, 0);
    for cfg in io_configs().into_iter().step_by(3) {
        let g = open_selective(&f.graph, &cfg.io, LARGE, false);
        assert_eq!(levels_by_edge_map(&g, 0), want, "{}", cfg.name);
        let served = stats(&g).settings["retained_lists_served"].as_u64().unwrap();
        assert!(
            served >= 1000,
            "{}: {served} lists served from retained lists",
            cfg.name
        );
    }
}

#[test]
fn retention_off_reads_everything_again() {
    let f = fixture("spokes and pairs", spokes_and_pairs(), Keep::default());
    let open = |retain_lists| {
        let opts = SelectiveOptions {
            io: pread(),
            memory: LARGE,
            retain_lists,
            ..SelectiveOptions::default()
        };
        SelectiveGraph::open(&f.graph, &opts).unwrap()
    };
    let (on, off) = (open(true), open(false));
    assert_eq!(levels_by_edge_map(&on, 0), levels_by_edge_map(&off, 0));
    let (on, off) = (stats(&on), stats(&off));
    assert_eq!(off.settings["retained_lists_served"], 0);
    assert!(on.settings["retained_lists_served"].as_u64().unwrap() > 0);
    assert!(
        off.bytes_read > on.bytes_read,
        "{} vs {}",
        off.bytes_read,
        on.bytes_read
    );
}
