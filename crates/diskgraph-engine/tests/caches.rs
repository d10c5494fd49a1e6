//! The selective engine's caches, through its own rounds: a BAsC static cache (selections made
//! by `select_graph` with each method) loads at open into its share, serves its lists so that
//! fewer bytes are read, reports its hit ratio and loading, and refuses clearly what it cannot
//! load; once loaded it serves later opens without reading it again; a page cache keeps the
//! lists delivered intact, reports hits and utilisation, leaves the I/O buffers alone when a
//! static cache takes its share, and copies no more of a round's pages than it holds.

mod common;

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use common::{fixture, lists_read, pread, reopened, stats, stored_lists};
use diskgraph_engine::selective::{
    BackendKind, BascOptions, LoadedStatic, PageCacheOptions, Piece, Replacement, SchedulerKind, SelectiveGraph,
    SelectiveOptions, VertexSubset,
};
use diskgraph_engine::{AdjacencyChoice, EngineError};
use diskgraph_format::{BascRecord, Direction, GraphDir, LayoutRecord};
use diskgraph_prep::select::{select_graph, SelectMethod, SelectOptions, SelectSummary};
use diskgraph_testkit::gen;
use diskgraph_testkit::harness::Fixture;
use diskgraph_testkit::Keep;

const MEMORY: u64 = 16 << 20;

/// Publishes selection `basc-<name>` of `f`'s graph made by `method` within `budget_bytes`.
fn select(f: &Fixture, name: &str, method: SelectMethod, budget_bytes: u64, page_bytes: u64) -> SelectSummary {
    let opts = SelectOptions {
        method,
        budget_bytes,
        page_bytes,
        name: Some(name.into()),
        force: false,
    };
    select_graph(f.path(), &opts, &mut diskgraph_prep::NoProgress)
        .unwrap_or_else(|e| panic!("select {name} of {}: {e:#}", f.name))
}

/// The options of an open reading with pread, in-edges opened, with static cache `basc`.
fn cached(basc: Option<BascOptions>) -> SelectiveOptions {
    SelectiveOptions {
        io: pread(),
        memory: MEMORY,
        need_in: true,
        basc,
        ..SelectiveOptions::default()
    }
}

/// Opens `f`'s graph with selection `layout` in `fraction` of the budget (or none).
fn open_with_basc(f: &Fixture, layout: Option<&str>, fraction: f64) -> Result<SelectiveGraph, EngineError> {
    let basc = layout.map(|l| BascOptions {
        layout: l.to_string(),
        fraction,
        preloaded: None,
    });
    SelectiveGraph::open(&reopened(f), &cached(basc))
}

/// Reads every out-list and then those of every fifth vertex, checking what is delivered.
fn read_rounds(g: &SelectiveGraph, f: &Fixture, ctx: &str) {
    let n = f.test.num_vertices;
    for active in [VertexSubset::all(n), VertexSubset::from_fn(n, |v| v % 5 == 0)] {
        let got = lists_read(g, Direction::Out, &active, false).unwrap();
        assert_eq!(got, stored_lists(&f.test, Direction::Out, &active, false), "{ctx}");
    }
}

#[test]
fn a_static_cache_serves_its_lists_and_fewer_bytes_are_read() {
    let f = fixture("rmat 11 undirected", gen::rmat(11, 16 << 11, false, 3), Keep::default());
    let adj = f.test.num_arcs() as u64 * 4;
    for method in [
        SelectMethod::Gvs { rounds: 4 },
        SelectMethod::HighDegree,
        SelectMethod::LowDegree,
        SelectMethod::Random { seed: 2 },
    ] {
        let name = format!("quarter-{}", method.name());
        let layout = format!("basc-{name}");
        let summary = select(&f, &name, method.clone(), adj / 4, 4096);
        assert!(summary.edges * 4 < summary.bytes && summary.bytes <= adj / 4);
        // The manifest records the selection.
        let pages = |bytes: u64| bytes.div_ceil(4096) * 4096;
        let record = BascRecord {
            name: layout.clone(),
            method: method.name().to_string(),
            num_selected: summary.count as u64,
            num_arcs: summary.edges,
            bytes_on_disk: pages(summary.count as u64 * 4) + pages(summary.edges * 4),
            generation: 0,
        };
        assert_eq!(reopened(&f).layout(&layout), Some(&LayoutRecord::Basc(record)));
        // A selection of S bytes loads into a share of S bytes, and not into one byte less.
        let share = |bytes: u64| (bytes as f64 + 0.5) / MEMORY as f64;
        open_with_basc(&f, Some(&layout), share(summary.bytes)).unwrap();
        assert!(
            open_with_basc(&f, Some(&layout), share(summary.bytes - 1)).is_err(),
            "{layout}"
        );
        let with_cache = open_with_basc(&f, Some(&layout), 0.5).unwrap();
        let without = open_with_basc(&f, None, 0.5).unwrap();
        read_rounds(&with_cache, &f, &layout);
        read_rounds(&without, &f, "no static cache");
        let (with_cache, without) = (stats(&with_cache), stats(&without));
        let hit = with_cache.cache_hit_ratio["basc"];
        assert!(hit > 0.0 && hit <= 1.0, "{layout}: hit ratio {hit}");
        assert!(with_cache.settings["basc_load_seconds"].as_f64().unwrap() >= 0.0);
        assert_eq!(with_cache.settings["basc_lists"], summary.count as u64);
        // The rounds read less; loading the cache (reported apart) may cost more than a poor
        // selection saves.
        let load = with_cache.settings["basc_load_bytes"].as_u64().unwrap();
        assert!(load >= summary.edges * 4, "{layout}: loading read {load} bytes");
        assert!(
            with_cache.bytes_read - load < without.bytes_read,
            "{layout}: {} bytes after loading vs {} bytes",
            with_cache.bytes_read - load,
            without.bytes_read
        );
    }
}

#[test]
fn static_cache_errors_are_clear() {
    let f = fixture("gnm", gen::gnm(500, 4000, false, 4), Keep::default());
    select(&f, "all", SelectMethod::HighDegree, 4 << 20, 4096);
    // Everything selected (8000 arcs, 32 KB and the index) fits 1% of 16 MiB, not 0.1%.
    match open_with_basc(&f, Some("basc-all"), 0.001) {
        Err(EngineError::BudgetTooSmall { what, .. }) => assert!(what.contains("basc-all"), "{what}"),
        other => panic!("{:?}", other.err()),
    }
    assert!(open_with_basc(&f, Some("basc-all"), 1.5).is_err());
    let err = open_with_basc(&f, Some("basc-none"), 0.5).err().unwrap().to_string();
    assert!(err.contains("basc-none") && err.contains("diskgraph select"), "{err}");

    // The selection's copy of its lists, damaged: a target that is no vertex, a short file.
    let err = || open_with_basc(&f, Some("basc-all"), 0.5).err().unwrap().to_string();
    let lists = f.path().join("basc-all").join("lists.u32");
    let good = std::fs::read(&lists).unwrap();
    let mut bad = good.clone();
    bad[4..8].copy_from_slice(&500u32.to_le_bytes());
    std::fs::write(&lists, &bad).unwrap();
    let e = err();
    assert!(
        e.contains("lists.u32") && e.contains("target 500 out of range (V = 500)"),
        "{e}"
    );
    std::fs::write(&lists, &good[..good.len() - 4096]).unwrap();
    let e = err();
    assert!(e.contains("lists.u32") && e.contains("bytes, expected"), "{e}");
    std::fs::write(&lists, &good).unwrap();
    open_with_basc(&f, Some("basc-all"), 0.5).unwrap();
    // A selection of the first format (no lists.u32) asks to be made again.
    let meta = f.path().join("basc-all").join("basc.json");
    let text = std::fs::read_to_string(&meta).unwrap();
    std::fs::write(&meta, text.replace("\"version\": 2", "\"version\": 1")).unwrap();
    let e = err();
    assert!(e.contains("version 1") && e.contains("diskgraph select"), "{e}");
}

#[test]
fn a_loaded_static_cache_serves_later_opens_without_reading_it_again() {
    let f = fixture("rmat 11 directed", gen::rmat(11, 12 << 11, true, 5), Keep::default());
    let other = fixture(
        "rmat 11 directed, another seed",
        gen::rmat(11, 12 << 11, true, 6),
        Keep::default(),
    );
    for g in [&f, &other] {
        select(g, "session", SelectMethod::Gvs { rounds: 3 }, 32 << 10, 4096);
    }
    let basc = |layout: &str, fraction: f64, preloaded: Option<LoadedStatic>| {
        cached(Some(BascOptions {
            layout: layout.into(),
            fraction,
            preloaded,
        }))
    };
    let open = |g: &GraphDir, opts: SelectiveOptions| SelectiveGraph::open(g, &opts);
    let dir = reopened(&f);
    let loaded = open(&dir, basc("basc-session", 0.25, None))
        .unwrap()
        .loaded_static()
        .unwrap();
    assert_eq!(loaded.layout(), "basc-session");
    assert!(loaded.lists() > 0 && loaded.load_bytes() > 0, "{loaded:?}");
    let fresh = open(&dir, basc("basc-session", 0.25, None)).unwrap();
    let reused = open(&dir, basc("basc-session", 0.25, Some(loaded.clone()))).unwrap();
    read_rounds(&fresh, &f, "loaded at open");
    read_rounds(&reused, &f, "loaded before");
    let (fresh, reused) = (stats(&fresh), stats(&reused));
    assert_eq!(fresh.settings["basc_preloaded"], false);
    assert_eq!(reused.settings["basc_preloaded"], true);
    assert_eq!(reused.settings["basc_load_bytes"], 0);
    assert_eq!(reused.settings["basc_lists"], loaded.lists() as u64);
    assert_eq!(fresh.cache_hit_ratio["basc"], reused.cache_hit_ratio["basc"]);
    // The same lists read, less the loading.
    let load = fresh.settings["basc_load_bytes"].as_u64().unwrap();
    assert_eq!(reused.bytes_read, fresh.bytes_read - load);
    // Refused: another graph's lists, another selection's name, a share too small for them.
    let refused = |g: &GraphDir, layout: &str, fraction: f64| {
        let opts = basc(layout, fraction, Some(loaded.clone()));
        open(g, opts).err().expect("refused").to_string()
    };
    let e = refused(&reopened(&other), "basc-session", 0.25);
    assert!(e.contains("basc-session") && e.contains("out-lists differ"), "{e}");
    let e = refused(&dir, "basc-other", 0.25);
    assert!(e.contains("basc-other"), "{e}");
    let e = refused(&dir, "basc-session", (loaded.bytes() - 1) as f64 / MEMORY as f64);
    assert!(
        e.contains("too small") && e.contains("loaded selection basc-session"),
        "{e}"
    );
}

/// Options of an open reading through a page cache of `page_size`-byte pages in `memory` bytes.
fn paged(page_size: u32, policy: Replacement, memory: u64, track_utilization: bool) -> SelectiveOptions {
    SelectiveOptions {
        io: common::io(BackendKind::Uring, SchedulerKind::Bitmap, 512),
        memory,
        need_in: true,
        page_cache: Some(PageCacheOptions {
            page_size,
            policy,
            track_utilization,
        }),
        ..SelectiveOptions::default()
    }
}

/// Opens `f`'s graph through a page cache in 4 MiB, with static cache `basc` taking a quarter.
fn open_paged(f: &Fixture, page_size: u32, policy: Replacement, basc: Option<&str>) -> SelectiveGraph {
    let opts = SelectiveOptions {
        basc: basc.map(|l| BascOptions {
            layout: l.to_string(),
            fraction: 0.25,
            preloaded: None,
        }),
        ..paged(page_size, policy, 4 << 20, true)
    };
    SelectiveGraph::open(&reopened(f), &opts).unwrap()
}

#[test]
fn a_page_cache_keeps_the_lists_and_reports_hits_and_utilization() {
    let f = fixture("rmat 12 directed", gen::rmat(12, 12 << 12, true, 9), Keep::default());
    select(&f, "paged", SelectMethod::Gvs { rounds: 3 }, 64 << 10, 2048);
    let n = f.test.num_vertices;
    for (page, policy, basc) in [
        (512, Replacement::Clock, None),
        (2048, Replacement::Lru, None),
        (2048, Replacement::Clock, Some("basc-paged")),
    ] {
        let ctx = format!("page {page} {policy:?} {basc:?}");
        let g = open_paged(&f, page, policy, basc);
        for d in [Direction::Out, Direction::In] {
            for k in [1, 3, 7] {
                let active = VertexSubset::from_fn(n, |v| v % k == 0);
                let got = lists_read(&g, d, &active, false).unwrap();
                assert_eq!(
                    got,
                    stored_lists(&f.test, d, &active, false),
                    "{ctx}, {d:?}, every {k}th"
                );
            }
        }
        let s = stats(&g);
        let hit = s.cache_hit_ratio["page"];
        assert!(hit > 0.0 && hit < 1.0, "{ctx}: page hit ratio {hit}");
        let u = s.settings["page_cache"]["utilization"].as_f64().unwrap();
        assert!(u > 0.0 && u <= 1.0, "{ctx}: utilization {u}");
        assert!(s.peak_engine_memory <= 4 << 20, "{ctx}: {}", s.peak_engine_memory);
    }
    let opts = SelectiveOptions {
        page_cache: Some(PageCacheOptions {
            page_size: 1000,
            policy: Replacement::Clock,
            track_utilization: false,
        }),
        ..SelectiveOptions::default()
    };
    let err = SelectiveGraph::open(&f.graph, &opts).err().unwrap().to_string();
    assert!(err.contains("page size 1000"), "{err}");

    // At one budget, a static cache takes its share from the page cache, not from the I/O
    // buffers: both opens read with the same buffers.
    let split = |basc| {
        let s = stats(&open_paged(&f, 2048, Replacement::Clock, basc));
        let bytes = |k: &str| s.settings[k].as_u64().unwrap();
        (bytes("io_buffer_bytes"), bytes("page_cache_bytes"))
    };
    let (alone, with_basc) = (split(None), split(Some("basc-paged")));
    assert_eq!(alone.0, with_basc.0, "{alone:?} {with_basc:?}");
    assert!(with_basc.1 < alone.1, "{alone:?} {with_basc:?}");
}

#[test]
fn a_round_copies_into_the_page_cache_no_more_pages_than_it_holds() {
    let f = fixture("rmat 12 directed", gen::rmat(12, 12 << 12, true, 5), Keep::default());
    let page = 512u64;
    let pages = (f.test.num_arcs() as u64 * 4).div_ceil(page);
    // The plain lists, whose pages this test counts.
    let opts = SelectiveOptions {
        adjacency: AdjacencyChoice::Plain,
        ..paged(page as u32, Replacement::Lru, 96 << 10, false)
    };
    let g = SelectiveGraph::open(&f.graph, &opts).unwrap();
    let counters = |g: &SelectiveGraph| {
        let s = stats(g);
        let c = &s.settings["page_cache"];
        // At most this many pages fit (the cache's bytes include its bookkeeping).
        let slots = s.settings["page_cache_bytes"].as_u64().unwrap() / page;
        let count = |k: &str| c[k].as_u64().unwrap();
        (count("hits"), count("misses"), count("evictions"), slots)
    };
    let every = VertexSubset::all(f.test.num_vertices);
    let edges = AtomicU64::new(0);
    let count = |_, p: Piece<'_>| {
        edges.fetch_add(p.targets.len() as u64, Relaxed);
    };
    // One round over every list: every page is missed once; more of them than the cache holds,
    // yet nothing is evicted, since only the last `slots` pages go in.
    g.for_each_piece(Direction::Out, &every, false, count).unwrap();
    let (hits, misses, evictions, slots) = counters(&g);
    assert!(slots > 8 && slots < pages / 2, "{slots} slots for {pages} pages");
    assert_eq!((hits, misses, evictions), (0, pages, 0));
    // The next round finds those pages; the lists are delivered in full both times.
    g.for_each_piece(Direction::Out, &every, false, count).unwrap();
    let (hits, misses, _, _) = counters(&g);
    assert!(hits > slots / 2 && hits <= slots, "{hits} hits, at most {slots} slots");
    assert_eq!(hits + misses, 2 * pages);
    assert_eq!(edges.into_inner(), 2 * f.test.num_arcs() as u64);
}
