//! The selective engine over a compressed layout (`--adjacency`): with every I/O configuration a
//! round delivers each active list once, whole, equal to the stored list, reading fewer bytes
//! than the plain lists; traversals and whole-list assembly at a tight budget (lists cut by reads
//! everywhere), and through the page cache, give the plain answers; a weighted run reads the
//! plain lists and says so; a damaged compressed list is an error naming `out.cadj` and the
//! vertex, never a panic.

mod common;

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use common::{fixture, io_configs, levels_by_edge_map, lists_read, pread, stats, stored_lists};
use diskgraph_engine::selective::{
    IoConfig, PageCacheOptions, Replacement, SelectiveGraph, SelectiveOptions, VertexSubset,
};
use diskgraph_engine::{AdjacencyChoice, EngineError};
use diskgraph_format::{Codec, CompressedLayout, Direction, FormatError, GraphDir};
use diskgraph_testkit::gen::{self, Weights};
use diskgraph_testkit::harness::Fixture;
use diskgraph_testkit::{oracle, Keep};

/// A budget that leaves the I/O buffers a few hundred KiB and assembles whole lists in batches.
const SMALL: u64 = 256 << 10;

/// Opens `g` reading `adjacency`, with in-edges, list assembly and `memory`.
fn open(g: &GraphDir, io: &IoConfig, memory: u64, adjacency: AdjacencyChoice) -> SelectiveGraph {
    let opts = SelectiveOptions {
        io: io.clone(),
        memory,
        need_in: true,
        assemble_lists: true,
        adjacency,
        ..SelectiveOptions::default()
    };
    SelectiveGraph::open(g, &opts).unwrap_or_else(|e| panic!("open {}: {e}", g.path().display()))
}

/// A directed star whose hub's lists span many reads, and an undirected R-MAT graph.
fn graphs() -> [Fixture; 2] {
    [
        fixture(
            "directed star of 20000 (its hub spans many reads)",
            gen::star(20_000, 2_000, true, 11),
            Keep::default(),
        ),
        fixture(
            "rmat scale 12 undirected with duplicates",
            gen::rmat(12, 12 << 12, false, 13),
            Keep::all(),
        ),
    ]
}

#[test]
fn compressed_rounds_deliver_every_list_whole_in_fewer_bytes() {
    let configs = io_configs();
    for f in &graphs() {
        let t = &f.test;
        let n = t.num_vertices;
        for active in [VertexSubset::all(n), VertexSubset::from_fn(n, |v| v % 3 == 1)] {
            for d in [Direction::Out, Direction::In] {
                let want = stored_lists(t, d, &active, false);
                let read = |io: &IoConfig, adjacency| {
                    let g = open(&f.graph, io, SMALL, adjacency);
                    let whole = AtomicU64::new(0);
                    g.for_each_piece(d, &active, false, |_, p| {
                        whole.fetch_add(u64::from(!p.is_whole()), Relaxed);
                    })
                    .unwrap();
                    let got = lists_read(&g, d, &active, false).unwrap();
                    (got, whole.into_inner(), stats(&g))
                };
                let (_, _, plain) = read(&pread(), AdjacencyChoice::Plain);
                for cfg in &configs {
                    let ctx = format!("{} {d:?} {} active, {}", f.name, active.len(), cfg.name);
                    let (got, partial, s) = read(&cfg.io, AdjacencyChoice::Codec(Codec::Vbyte));
                    assert_eq!(got, want, "{ctx}");
                    assert_eq!(partial, 0, "{ctx}: compressed lists arrive whole");
                    assert_eq!(s.settings["adjacency"], "compressed-vbyte", "{ctx}");
                    if active.len() == n {
                        assert!(
                            s.bytes_read < plain.bytes_read,
                            "{ctx}: {} bytes read, plain {}",
                            s.bytes_read,
                            plain.bytes_read
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn traversals_and_whole_lists_match_the_plain_lists_at_a_tight_budget() {
    let f = fixture(
        "rmat scale 12 directed",
        gen::rmat(12, 10 << 12, true, 5),
        Keep::default(),
    );
    let t = &f.test;
    let n = t.num_vertices;
    let want = oracle::bfs_levels(t, 0);
    let paged = |io: &IoConfig, memory| {
        let opts = SelectiveOptions {
            io: io.clone(),
            memory,
            need_in: true,
            page_cache: Some(PageCacheOptions {
                page_size: 2048,
                policy: Replacement::Clock,
                track_utilization: false,
            }),
            adjacency: AdjacencyChoice::Codec(Codec::Vbyte),
            ..SelectiveOptions::default()
        };
        SelectiveGraph::open(&f.graph, &opts).unwrap()
    };
    let whole_lists = |g: &SelectiveGraph| {
        let sums: Vec<AtomicU64> = (0..n).map(|_| AtomicU64::new(0)).collect();
        g.for_each_list(&VertexSubset::all(n), true, |v, out, inn| {
            let s = out.iter().chain(inn).map(|&u| u64::from(u) + 1).sum::<u64>() * 31 + out.len() as u64;
            sums[v as usize].store(s, Relaxed);
        })
        .unwrap();
        sums.into_iter().map(AtomicU64::into_inner).collect::<Vec<_>>()
    };
    let plain = open(&f.graph, &pread(), SMALL, AdjacencyChoice::Plain);
    let plain_lists = whole_lists(&plain);
    for cfg in io_configs().into_iter().step_by(2) {
        let g = open(&f.graph, &cfg.io, SMALL, AdjacencyChoice::Codec(Codec::Vbyte));
        assert_eq!(levels_by_edge_map(&g, 0), want, "{}", cfg.name);
        assert_eq!(whole_lists(&g), plain_lists, "{}", cfg.name);
        let s = stats(&g);
        let share = s.settings["stitch_bytes"].as_u64().unwrap();
        let stitched = s.settings["stitch_peak_bytes"].as_u64().unwrap();
        assert!(stitched > 0, "{}: lists are cut by reads of 4 blocks", cfg.name);
        // Beyond its share only for a list cut by reads that is larger alone.
        let allowed = SMALL + stitched.saturating_sub(share);
        assert!(
            s.peak_engine_memory <= allowed,
            "{}: {} > {allowed}",
            cfg.name,
            s.peak_engine_memory
        );
        let cached = paged(&cfg.io, 1 << 20);
        assert_eq!(
            levels_by_edge_map(&cached, 0),
            want,
            "{} through the page cache",
            cfg.name
        );
        assert_eq!(stats(&cached).settings["adjacency"], "compressed-vbyte");
    }
}

#[test]
fn weighted_runs_read_the_plain_lists_and_say_why() {
    let f = fixture(
        "weighted rmat scale 9",
        gen::with_weights(gen::rmat(9, 8 << 9, true, 3), Weights::Uniform(1.0, 9.0), 3),
        Keep::default(),
    );
    let opts = |need_weights| SelectiveOptions {
        io: pread(),
        memory: SMALL,
        need_weights,
        adjacency: AdjacencyChoice::Codec(Codec::Vbyte),
        ..SelectiveOptions::default()
    };
    let g = SelectiveGraph::open(&f.graph, &opts(true)).unwrap();
    let s = stats(&g);
    assert_eq!(s.settings["adjacency"], "plain");
    let note = s.settings["adjacency_note"].as_str().unwrap();
    assert!(note.contains("compressed-vbyte") && note.contains("weights"), "{note}");
    let all = VertexSubset::all(f.test.num_vertices);
    let want = stored_lists(&f.test, Direction::Out, &all, true);
    assert_eq!(lists_read(&g, Direction::Out, &all, true).unwrap(), want);
    let unweighted = SelectiveGraph::open(&f.graph, &opts(false)).unwrap();
    assert_eq!(stats(&unweighted).settings["adjacency"], "compressed-vbyte");
    // (A codec the graph has no layout of is refused: crates/diskgraph-cli/tests/compress.rs.)
}

#[test]
fn a_damaged_compressed_list_is_an_error_naming_the_file_and_vertex() {
    let f = fixture("directed star of 3000", gen::star(3_000, 200, true, 2), Keep::default());
    let g = open(&f.graph, &pread(), SMALL, AdjacencyChoice::Codec(Codec::Vbyte));
    let hub = (0..f.test.num_vertices as u32)
        .max_by_key(|&v| g.degree(Direction::Out, v))
        .unwrap();
    drop(g);
    let layout = f.path().join("compressed-vbyte");
    let lists = layout.join("out.cadj");
    let index = CompressedLayout::open(&f.graph, "compressed-vbyte")
        .unwrap()
        .load_offsets(Direction::Out)
        .unwrap();
    let start = index[hub as usize] as usize;
    let mut bytes = std::fs::read(&lists).unwrap();
    // The list's length (its first byte) one more than the bytes hold.
    bytes[start] = bytes[start].wrapping_add(1);
    std::fs::write(&lists, &bytes).unwrap();
    let g = open(&f.graph, &pread(), SMALL, AdjacencyChoice::Codec(Codec::Vbyte));
    let all = VertexSubset::all(f.test.num_vertices);
    let err = g.for_each_piece(Direction::Out, &all, false, |_, _| ()).unwrap_err();
    let text = err.to_string();
    assert!(
        matches!(&err, EngineError::Format(FormatError::CompressedList { vertex, .. }) if *vertex == hub),
        "{err:?}"
    );
    assert!(
        text.contains("out.cadj") && text.contains(&format!("vertex {hub}")),
        "{text}"
    );
}
