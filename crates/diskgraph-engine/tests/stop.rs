//! The run's stop request reaches the engines where they work without the algorithm: opening
//! (loading a CSR, plain or decoded from a compressed layout, the offsets, the IDs, a static
//! cache) ends with [`EngineError::Cancelled`] for a run asked to stop, and a selective round
//! under way stops handing out reads once asked, returning `Cancelled` with part of its lists
//! undelivered.

mod common;

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use common::{fixture, pread};
use diskgraph_engine::options::Params;
use diskgraph_engine::selective::{BascOptions, SelectiveGraph, SelectiveOptions, VertexSubset};
use diskgraph_engine::shards::{ShardGraph, ShardOptions};
use diskgraph_engine::stream::{StreamGraph, StreamOptions};
use diskgraph_engine::sync::{SyncGraph, SyncOptions};
use diskgraph_engine::{
    AdjacencyChoice, Cancel, Engine, EngineError, MemoryGraph, MemoryOptions, OpenEngine, OpenRequest,
};
use diskgraph_format::{basc_layout_name, Codec, Direction};
use diskgraph_testkit::gen::{self, Weights};
use diskgraph_testkit::Keep;

/// A stop request already set.
fn set() -> Option<Cancel> {
    let cancel = Cancel::new();
    cancel.cancel();
    Some(cancel)
}

/// Whether `r` is the stop.
fn cancelled<T>(r: Result<T, EngineError>) -> bool {
    matches!(r, Err(EngineError::Cancelled))
}

#[test]
fn every_engine_stops_opening_for_a_run_asked_to_stop() {
    let el = gen::with_weights(gen::rmat(10, 8000, true, 5), Weights::Uniform(0.5, 2.0), 5);
    let f = fixture("rmat", el, Keep::default());
    let g = &f.graph;
    let memory = |adjacency, cancel| MemoryOptions {
        need_in: true,
        need_weights: true,
        adjacency,
        cancel,
        ..MemoryOptions::default()
    };
    for adjacency in [AdjacencyChoice::Plain, AdjacencyChoice::Codec(Codec::Vbyte)] {
        assert!(
            cancelled(MemoryGraph::open(g, &memory(adjacency, set()))),
            "{adjacency:?}"
        );
        // Unset, the request is carried by the engine for its run.
        let cancel = Cancel::new();
        let m = MemoryGraph::open(g, &memory(adjacency, Some(cancel.clone()))).expect("opens");
        assert!(m.check_cancelled().is_ok());
        cancel.cancel();
        assert!(
            cancelled(m.check_cancelled()) && m.cancel().is_cancelled(),
            "{adjacency:?}"
        );
    }
    let basc = f.selection.as_ref().map(|name| BascOptions {
        layout: basc_layout_name(name),
        fraction: 0.5,
        preloaded: None,
    });
    let selective = SelectiveOptions {
        io: pread(),
        memory: 16 << 20,
        need_in: true,
        basc,
        ..SelectiveOptions::default()
    };
    SelectiveGraph::open(g, &selective).expect("opens with its static cache");
    let stopped = SelectiveOptions {
        cancel: set(),
        ..selective
    };
    assert!(cancelled(SelectiveGraph::open(g, &stopped)), "selective");
    let sync = SyncOptions {
        memory: 4 << 20,
        need_in: true,
        cancel: set(),
        ..SyncGraph::options(g, &OpenRequest::new("bfs", &Params::new(), 1).unwrap()).unwrap()
    };
    assert!(cancelled(SyncGraph::open(g, &sync)), "sync");
    let stream = StreamOptions {
        memory: 4 << 20,
        cancel: set(),
        ..StreamOptions::default()
    };
    assert!(cancelled(StreamGraph::open(g, &f.layouts[0].0, &stream)), "stream");
    let shards = ShardOptions {
        layout: Some(f.shard_layouts[0].clone()),
        memory: 4 << 20,
        gsc: false,
        deterministic: false,
        scratch: None,
        index: None,
        cancel: set(),
    };
    assert!(cancelled(ShardGraph::open(g, &shards)), "shards");
}

#[test]
fn a_selective_round_stops_handing_out_reads_once_asked() {
    let el = gen::rmat(13, 200_000, true, 9);
    let f = fixture("rmat", el, Keep::default());
    let cancel = Cancel::new();
    // Small reads: the round is hundreds of them.
    let mut io = pread();
    io.max_request_bytes = 4096;
    let opts = SelectiveOptions {
        io,
        memory: 16 << 20,
        retain_lists: false,
        cancel: Some(cancel.clone()),
        ..SelectiveOptions::default()
    };
    let g = SelectiveGraph::open(&f.graph, &opts).expect("opens");
    let all = VertexSubset::all(g.num_vertices());
    let edges = AtomicU64::new(0);
    g.for_each_piece(Direction::Out, &all, false, |_, p| {
        edges.fetch_add(p.targets.len() as u64, Relaxed);
    })
    .expect("a whole round");
    let whole = edges.swap(0, Relaxed);
    assert_eq!(whole, g.num_arcs());
    let r = g.for_each_piece(Direction::Out, &all, false, |_, p| {
        edges.fetch_add(p.targets.len() as u64, Relaxed);
        cancel.cancel();
    });
    assert!(matches!(r, Err(EngineError::Cancelled)), "{r:?}");
    let delivered = edges.into_inner();
    assert!(
        delivered > 0 && delivered < whole / 2,
        "{delivered} of {whole} edges delivered"
    );
    assert!(cancelled(g.for_each_piece(Direction::Out, &all, false, |_, _| panic!(
        "read after the stop"
    ))));
}
