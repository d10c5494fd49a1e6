//! The sync engine over a compressed layout (`--adjacency vbyte`, `zeta`): every list, weight and degree
//! equals what the plain lists give under every backend, index mode and prefetch setting, down to
//! the smallest budget; a BFS through the prefetcher and a sequential scan agree and read fewer
//! bytes; a damaged compressed list is an error naming `out.cadj` and the vertex.

mod common;

use common::{fixture, stats, sync_bfs};
use diskgraph_engine::selective::BackendKind;
use diskgraph_engine::sync::{Reads, Sequential, SyncGraph, SyncOptions};
use diskgraph_engine::{AdjacencyChoice, Engine};
use diskgraph_format::{Codec, CompressedLayout, Direction};
use diskgraph_testkit::harness::Fixture;
use diskgraph_testkit::{gen, Keep};

/// Options reading `adjacency`: `ift`, `ift_seq`, the summary, the backend, in-edges and weights.
fn options(adjacency: AdjacencyChoice, ift: usize, summary: bool, io: Option<BackendKind>) -> SyncOptions {
    SyncOptions {
        memory: 0,
        ift,
        ift_seq: ift / 8,
        index_summary: summary,
        io,
        need_in: true,
        need_weights: true,
        index: None,
        adjacency,
        cancel: None,
    }
}

/// `opts` with the smallest budget the engine takes for them.
fn smallest(f: &Fixture, opts: SyncOptions) -> SyncOptions {
    let memory = SyncGraph::minimum_budget(&f.graph, &opts);
    SyncOptions { memory, ..opts }
}

/// Every list of `g` in both directions, scattered (hits, misses and evictions), with weights
/// when it has them, and every degree.
fn lists(g: &SyncGraph) -> Vec<(Vec<u32>, Vec<f32>, u64)> {
    let n = g.num_vertices() as u32;
    let mut r = g.reader();
    let mut all = Vec::new();
    for v in (0..n).map(|i| (i * 7919) % n) {
        for d in [Direction::Out, Direction::In] {
            let (ids, ws) = match g.weighted() {
                true => {
                    let (ids, ws) = r.edges(d, v).unwrap();
                    (ids.to_vec(), ws.to_vec())
                }
                false => (r.neighbours(d, v).unwrap().to_vec(), Vec::new()),
            };
            all.push((ids, ws, r.degree(d, v).unwrap()));
        }
    }
    all
}

#[test]
fn compressed_lists_equal_the_plain_lists_at_every_backend_and_the_smallest_budget() {
    let graphs = [
        (
            "weighted directed gnm with a hub and empty lists",
            gen::with_weights(
                gen::union(gen::gnm(2500, 12000, true, 3), gen::star(3000, 10, true, 3)),
                gen::Weights::Integer(9),
                3,
            ),
        ),
        ("undirected path", gen::path(2000, false)),
    ];
    for (name, el) in graphs {
        let f = fixture(name, el, Keep::default());
        let plain = SyncGraph::open(&f.graph, &smallest(&f, options(AdjacencyChoice::Plain, 0, false, None))).unwrap();
        let want = lists(&plain);
        let want_bfs = sync_bfs(&plain, 0);
        for io in [None, Some(BackendKind::Pread), Some(BackendKind::Mmap)] {
            for summary in [false, true] {
                for (ift, codec) in [0, 64].into_iter().flat_map(|i| Codec::ALL.map(|c| (i, c))) {
                    let opts = smallest(&f, options(AdjacencyChoice::Codec(codec), ift, summary, io));
                    let g = SyncGraph::open(&f.graph, &opts).unwrap_or_else(|e| panic!("{name} {opts:?}: {e}"));
                    assert!(lists(&g) == want, "{name} {opts:?}");
                    assert_eq!(sync_bfs(&g, 0), want_bfs, "{name} {opts:?}");
                    let s = stats(&g);
                    assert_eq!(
                        s.settings["adjacency"],
                        format!("compressed-{codec}"),
                        "{name} {opts:?}"
                    );
                    if io != Some(BackendKind::Mmap) {
                        assert!(s.peak_engine_memory <= opts.memory, "{name} {opts:?}");
                    }
                }
            }
        }
    }
}

#[test]
fn a_sequential_scan_reads_fewer_bytes_compressed() {
    let f = fixture("gnm", gen::gnm(20000, 200_000, true, 5), Keep::default());
    let mut read = Vec::new();
    for adjacency in [AdjacencyChoice::Plain, AdjacencyChoice::Auto] {
        let opts = SyncOptions {
            memory: 256 << 10,
            need_in: false,
            need_weights: false,
            ..options(adjacency, 16, false, None)
        };
        let g = SyncGraph::open(&f.graph, &opts).unwrap();
        let mut r = g.reader();
        let mut total = 0;
        for v in Sequential::new(&g, 0..20000, Reads::out(0)) {
            total += r.neighbours(Direction::Out, v).unwrap().len();
        }
        assert_eq!(total, f.test.arcs.len());
        let s = stats(&g);
        assert_eq!(g.edges_counted(), Some(total as u64));
        read.push((s.settings["adjacency"].clone(), s.bytes_read));
    }
    let layout = CompressedLayout::open(&f.graph, "compressed-vbyte").unwrap();
    let cadj = layout.lists_len(Direction::Out);
    assert_eq!(read[0].0, "plain");
    assert_eq!(read[1].0, "compressed-vbyte");
    assert!(read[0].1 >= 4 * f.test.arcs.len() as u64, "{read:?}");
    assert!(
        read[1].1 >= cadj && read[1].1 < read[0].1 * 3 / 4,
        "{read:?}, out.cadj {cadj}"
    );
}

#[test]
fn a_damaged_compressed_list_is_an_error_naming_the_file_and_the_vertex() {
    let el = gen::with_weights(gen::gnm(500, 5000, true, 9), gen::Weights::Integer(5), 9);
    let f = fixture("weighted gnm", el, Keep::default());
    let layout = CompressedLayout::open(&f.graph, "compressed-vbyte").unwrap();
    let index = layout.load_offsets(Direction::Out).unwrap();
    let v = 123usize;
    let (_, cadj) = layout.files_of(Direction::Out);
    let mut bytes = std::fs::read(&cadj).unwrap();
    assert!(index[v + 1] > index[v] + 2);
    // A length past what the list's bytes hold.
    bytes[index[v] as usize..index[v + 1] as usize].fill(0x7f);
    std::fs::write(&cadj, &bytes).unwrap();
    for io in [None, Some(BackendKind::Pread), Some(BackendKind::Mmap)] {
        for summary in [false, true] {
            let opts = SyncOptions {
                memory: 1 << 20,
                ..options(AdjacencyChoice::Codec(Codec::Vbyte), 8, summary, io)
            };
            let g = SyncGraph::open(&f.graph, &opts).unwrap();
            let mut r = g.reader();
            assert!(r.neighbours(Direction::Out, v as u32 - 1).is_ok());
            let e = r.neighbours(Direction::Out, v as u32).unwrap_err().to_string();
            assert!(
                e.contains("out.cadj") && e.contains(&format!("vertex {v}")),
                "{io:?}: {e}"
            );
            let e = r.edges(Direction::Out, v as u32).unwrap_err().to_string();
            assert!(
                e.contains("out.cadj") && e.contains(&format!("vertex {v}")),
                "{io:?}: {e}"
            );
        }
    }
}
