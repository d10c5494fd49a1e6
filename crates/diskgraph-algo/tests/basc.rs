//! The BAsC static cache on the selective engine: selections made by `select_graph` (each
//! method) loaded at open, results equal to the oracles with fewer bytes read, hit ratios and
//! loading time and bytes reported, the manifest's record of each selection, and the errors
//! (selection too large for its share, bad fraction, missing selection).

mod support;

use diskgraph_algo::registry::{load_static_cache, run, RunRequest, Values};
use diskgraph_algo::{selective, BcOptions};
use diskgraph_engine::selective::{
    BascOptions, EngineError, PageCacheOptions, Replacement, SelectiveGraph, SelectiveOptions,
};
use diskgraph_format::{BascRecord, GraphDir, LayoutRecord};
use diskgraph_prep::select::{select_graph, SelectMethod, SelectOptions};
use diskgraph_testkit::{gen, oracle, Keep};
use support::{io, store, Stored};

const MEMORY: u64 = 16 << 20;

fn open_with_basc(s: &Stored, layout: Option<&str>, fraction: f64) -> Result<SelectiveGraph, EngineError> {
    let opts = SelectiveOptions {
        io: io(
            diskgraph_engine::selective::BackendKind::Pread,
            diskgraph_engine::selective::SchedulerKind::Bitmap,
            512,
        ),
        memory: MEMORY,
        need_in: true,
        basc: layout.map(|l| BascOptions {
            layout: l.to_string(),
            fraction,
            preloaded: None,
        }),
        ..SelectiveOptions::default()
    };
    // Reopen: the selection was published after `s.graph` was opened.
    let g = GraphDir::open(s.graph.path()).unwrap();
    SelectiveGraph::open(&g, &opts)
}

#[test]
fn static_cache_serves_lists_and_keeps_answers() {
    let s = store(
        "rmat 11 undirected",
        &gen::rmat(11, 16 << 11, false, 3),
        Keep::default(),
    );
    let adj = s.test.num_arcs() as u64 * 4;
    for method in [
        SelectMethod::Gvs { rounds: 4 },
        SelectMethod::HighDegree,
        SelectMethod::LowDegree,
        SelectMethod::Random { seed: 2 },
    ] {
        let opts = SelectOptions {
            method: method.clone(),
            budget_bytes: adj / 4,
            page_bytes: 4096,
            name: None,
            force: false,
        };
        let summary = select_graph(s.graph.path(), &opts).unwrap();
        assert!(summary.edges * 4 < summary.bytes && summary.bytes <= adj / 4);
        let layout = format!("basc-{}", method.name());
        // The manifest records the selection.
        let g = GraphDir::open(s.graph.path()).unwrap();
        let pages = |bytes: u64| bytes.div_ceil(4096) * 4096;
        let record = BascRecord {
            name: layout.clone(),
            method: method.name().to_string(),
            num_selected: summary.count as u64,
            num_arcs: summary.edges,
            bytes_on_disk: pages(summary.count as u64 * 4) + pages(summary.edges * 4),
        };
        assert_eq!(g.layout(&layout), Some(&LayoutRecord::Basc(record)));
        // A selection of S bytes loads into a share of S bytes, and not into one byte less.
        let share = |bytes: u64| (bytes as f64 + 0.5) / MEMORY as f64;
        open_with_basc(&s, Some(&layout), share(summary.bytes)).unwrap();
        assert!(
            open_with_basc(&s, Some(&layout), share(summary.bytes - 1)).is_err(),
            "{layout}"
        );
        let cached = open_with_basc(&s, Some(&layout), 0.5).unwrap();
        let plain = open_with_basc(&s, None, 0.5).unwrap();
        for g in [&cached, &plain] {
            let b = selective::bfs(g, 0, false).unwrap();
            assert_eq!(b.levels, oracle::bfs_levels(&s.test, 0), "{layout}");
            let d = selective::diameter(g, 0, 3, None).unwrap();
            assert_eq!(d.bound, oracle::eccentricity(&s.test, d.from), "{layout}");
        }
        let opts = BcOptions {
            sources: (0..12).collect(),
            sampled: true,
            normalized: true,
        };
        let (a, b) = (
            selective::betweenness(&cached, &opts).unwrap().values,
            selective::betweenness(&plain, &opts).unwrap().values,
        );
        for (x, y) in a.iter().zip(&b) {
            assert!((x - y).abs() <= 1e-9 * y.abs().max(1.0), "{layout}: {x} vs {y}");
        }
        let (mut with, mut without) = (
            diskgraph_engine::RunStats::default(),
            diskgraph_engine::RunStats::default(),
        );
        cached.record(&mut with);
        plain.record(&mut without);
        let hit = with.cache_hit_ratio["basc"];
        assert!(hit > 0.0 && hit <= 1.0, "{layout}: hit ratio {hit}");
        assert!(with.settings["basc_load_seconds"].as_f64().unwrap() >= 0.0);
        assert_eq!(with.settings["basc_lists"].as_u64().unwrap(), summary.count as u64);
        // The algorithms read less; loading the cache (reported apart) may cost more than a
        // poor selection (Random) saves.
        let load = with.settings["basc_load_bytes"].as_u64().unwrap();
        assert!(load >= summary.edges * 4, "{layout}: loading read {load} bytes");
        assert!(
            with.bytes_read - load < without.bytes_read,
            "{layout}: {} bytes after loading vs {} bytes",
            with.bytes_read - load,
            without.bytes_read
        );
    }
}

#[test]
fn static_cache_errors_are_clear() {
    let s = store("gnm", &gen::gnm(500, 4000, false, 4), Keep::default());
    let opts = SelectOptions {
        method: SelectMethod::HighDegree,
        budget_bytes: 4 << 20,
        page_bytes: 4096,
        name: Some("all".into()),
        force: false,
    };
    select_graph(s.graph.path(), &opts).unwrap();
    // Everything selected (8000 arcs, 32 KB) cannot fit 1% of 16 MiB... it can; 0.001 cannot.
    match open_with_basc(&s, Some("basc-all"), 0.001) {
        Err(EngineError::BudgetTooSmall { what, .. }) => assert!(what.contains("basc-all"), "{what}"),
        other => panic!("{:?}", other.err()),
    }
    assert!(open_with_basc(&s, Some("basc-all"), 1.5).is_err());
    let err = open_with_basc(&s, Some("basc-none"), 0.5).err().unwrap().to_string();
    assert!(err.contains("basc-none") && err.contains("diskgraph select"), "{err}");

    // The selection's copy of its lists, damaged: a target that is no vertex, a short file.
    let err = |s: &Stored| open_with_basc(s, Some("basc-all"), 0.5).err().unwrap().to_string();
    let lists = s.graph.path().join("basc-all").join("lists.u32");
    let good = std::fs::read(&lists).unwrap();
    let mut bad = good.clone();
    bad[4..8].copy_from_slice(&500u32.to_le_bytes());
    std::fs::write(&lists, &bad).unwrap();
    let e = err(&s);
    assert!(
        e.contains("lists.u32") && e.contains("target 500 out of range (V = 500)"),
        "{e}"
    );
    std::fs::write(&lists, &good[..good.len() - 4096]).unwrap();
    let e = err(&s);
    assert!(e.contains("lists.u32") && e.contains("bytes, expected"), "{e}");
    std::fs::write(&lists, &good).unwrap();
    open_with_basc(&s, Some("basc-all"), 0.5).unwrap();
    // A selection of the first format (no lists.u32) asks to be made again.
    let meta = s.graph.path().join("basc-all").join("basc.json");
    let text = std::fs::read_to_string(&meta).unwrap();
    std::fs::write(&meta, text.replace("\"version\": 2", "\"version\": 1")).unwrap();
    let e = err(&s);
    assert!(e.contains("version 1") && e.contains("diskgraph select"), "{e}");
}

#[test]
fn a_loaded_static_cache_serves_later_runs_without_reading_it_again() {
    let s = store("rmat 11 directed", &gen::rmat(11, 12 << 11, true, 5), Keep::default());
    let other = store(
        "rmat 11 directed, other seed",
        &gen::rmat(11, 12 << 11, true, 6),
        Keep::default(),
    );
    for g in [&s, &other] {
        let opts = SelectOptions {
            method: SelectMethod::Gvs { rounds: 3 },
            budget_bytes: 32 << 10,
            page_bytes: 4096,
            name: None,
            force: false,
        };
        select_graph(g.graph.path(), &opts).unwrap();
    }
    let dir = GraphDir::open(s.graph.path()).unwrap();
    let request = |alg: &str| RunRequest {
        engine: "selective".into(),
        memory: MEMORY,
        basc: Some("gvs".into()),
        basc_fraction: 0.25,
        samples: Some(16),
        ..RunRequest::new(alg)
    };
    let loaded = load_static_cache(&dir, &request("bfs")).unwrap();
    assert_eq!(loaded.layout(), "basc-gvs");
    assert!(loaded.lists() > 0 && loaded.load_bytes() > 0, "{loaded:?}");
    for alg in ["bfs", "diameter", "bc"] {
        let fresh = run(&dir, &request(alg)).unwrap();
        let reused = run(
            &dir,
            &RunRequest {
                basc: None,
                basc_loaded: Some(loaded.clone()),
                ..request(alg)
            },
        )
        .unwrap();
        match (&fresh.values, &reused.values) {
            // bc sums path dependencies in whatever order the threads finish.
            (Values::Float(a), Values::Float(b)) => {
                for (x, y) in a.iter().zip(b) {
                    assert!((x - y).abs() <= 1e-9 * y.abs().max(1.0), "{alg}: {x} vs {y}");
                }
            }
            (a, b) => assert_eq!(a, b, "{alg}"),
        }
        let (f, r) = (&fresh.stats, &reused.stats);
        assert_eq!(f.settings["basc_preloaded"], false);
        assert_eq!(r.settings["basc_preloaded"], true);
        assert_eq!(r.settings["basc_load_bytes"], 0, "{alg}");
        assert_eq!(r.settings["basc_lists"], loaded.lists() as u64, "{alg}");
        assert_eq!(f.cache_hit_ratio["basc"], r.cache_hit_ratio["basc"], "{alg}");
        // The same lists read, less the loading.
        let load = f.settings["basc_load_bytes"].as_u64().unwrap();
        assert_eq!(r.bytes_read, f.bytes_read - load, "{alg}");
    }
    // Refused: another graph's lists, another selection's name, a share too small for them.
    let refused = |graph: &GraphDir, req: RunRequest| {
        run(
            graph,
            &RunRequest {
                basc_loaded: Some(loaded.clone()),
                ..req
            },
        )
        .err()
        .unwrap()
        .to_string()
    };
    let other_dir = GraphDir::open(other.graph.path()).unwrap();
    let e = refused(&other_dir, request("bfs"));
    assert!(e.contains("basc-gvs") && e.contains("out-lists differ"), "{e}");
    let e = refused(
        &dir,
        RunRequest {
            basc: Some("other".into()),
            ..request("bfs")
        },
    );
    assert!(e.contains("basc-other"), "{e}");
    let e = refused(
        &dir,
        RunRequest {
            basc_fraction: (loaded.bytes() - 1) as f64 / MEMORY as f64,
            ..request("bfs")
        },
    );
    assert!(
        e.contains("too small") && e.contains("loaded selection basc-gvs"),
        "{e}"
    );
    // Loading needs a selection.
    let e = load_static_cache(&dir, &RunRequest::new("bfs"))
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("needs a selection"), "{e}");
}

/// Options of a run reading through a page cache of `page_size`-byte pages in `memory` bytes.
fn paged_options(page_size: u32, policy: Replacement, memory: u64, track_utilization: bool) -> SelectiveOptions {
    SelectiveOptions {
        io: io(
            diskgraph_engine::selective::BackendKind::Uring,
            diskgraph_engine::selective::SchedulerKind::Bitmap,
            512,
        ),
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

fn open_paged(s: &Stored, page_size: u32, policy: Replacement, basc: Option<&str>) -> SelectiveGraph {
    let opts = SelectiveOptions {
        basc: basc.map(|l| BascOptions {
            layout: l.to_string(),
            fraction: 0.25,
            preloaded: None,
        }),
        ..paged_options(page_size, policy, 4 << 20, true)
    };
    let g = GraphDir::open(s.graph.path()).unwrap();
    SelectiveGraph::open(&g, &opts).unwrap()
}

#[test]
fn page_cache_keeps_answers_and_reports_hits_and_utilization() {
    let s = store("rmat 12 directed", &gen::rmat(12, 12 << 12, true, 9), Keep::default());
    let opts = SelectOptions {
        method: SelectMethod::Gvs { rounds: 3 },
        budget_bytes: 64 << 10,
        page_bytes: 2048,
        name: None,
        force: false,
    };
    select_graph(s.graph.path(), &opts).unwrap();
    for (page, policy, basc) in [
        (512, Replacement::Clock, None),
        (2048, Replacement::Lru, None),
        (2048, Replacement::Clock, Some("basc-gvs")),
    ] {
        let ctx = format!("page {page} {policy:?} {basc:?}");
        let g = open_paged(&s, page, policy, basc);
        for source in [0, 1, 2] {
            let b = selective::bfs(&g, source, false).unwrap();
            assert_eq!(b.levels, oracle::bfs_levels(&s.test, source), "{ctx}");
        }
        let d = selective::diameter(&g, 3, 3, None).unwrap();
        assert_eq!(d.bound, oracle::eccentricity(&s.test, d.from), "{ctx}");
        assert_eq!(selective::wcc(&g).unwrap().labels, oracle::wcc(&s.test), "{ctx}");
        let mut stats = diskgraph_engine::RunStats::default();
        g.record(&mut stats);
        let hit = stats.cache_hit_ratio["page"];
        assert!(hit > 0.0 && hit < 1.0, "{ctx}: page hit ratio {hit}");
        let u = stats.settings["page_cache"]["utilization"].as_f64().unwrap();
        assert!(u > 0.0 && u <= 1.0, "{ctx}: utilization {u}");
        assert!(
            stats.peak_engine_memory <= 4 << 20,
            "{ctx}: {}",
            stats.peak_engine_memory
        );
    }
    let opts = SelectiveOptions {
        page_cache: Some(PageCacheOptions {
            page_size: 1000,
            policy: Replacement::Clock,
            track_utilization: false,
        }),
        ..SelectiveOptions::default()
    };
    let err = SelectiveGraph::open(&s.graph, &opts).err().unwrap().to_string();
    assert!(err.contains("page size 1000"), "{err}");

    // At one budget, a static cache takes its share from the page cache, not from the I/O
    // buffers: both runs read with the same buffers.
    let split = |basc| {
        let mut stats = diskgraph_engine::RunStats::default();
        open_paged(&s, 2048, Replacement::Clock, basc).record(&mut stats);
        let bytes = |k: &str| stats.settings[k].as_u64().unwrap();
        (bytes("io_buffer_bytes"), bytes("page_cache_bytes"))
    };
    let (alone, with_basc) = (split(None), split(Some("basc-gvs")));
    assert_eq!(alone.0, with_basc.0, "{alone:?} {with_basc:?}");
    assert!(with_basc.1 < alone.1, "{alone:?} {with_basc:?}");
}

#[test]
fn a_round_copies_into_the_page_cache_no_more_pages_than_it_holds() {
    use diskgraph_engine::selective::VertexSubset;
    use diskgraph_format::Direction;
    let s = store("rmat 12 directed", &gen::rmat(12, 12 << 12, true, 5), Keep::default());
    let page = 512u64;
    let pages = (s.test.num_arcs() as u64 * 4).div_ceil(page);
    let opts = paged_options(page as u32, Replacement::Lru, 96 << 10, false);
    let g = SelectiveGraph::open(&s.graph, &opts).unwrap();
    let counters = |g: &SelectiveGraph| {
        let mut stats = diskgraph_engine::RunStats::default();
        g.record(&mut stats);
        let c = &stats.settings["page_cache"];
        // At most this many pages fit (the cache's bytes include its bookkeeping).
        let slots = stats.settings["page_cache_bytes"].as_u64().unwrap() / page;
        (
            c["hits"].as_u64().unwrap(),
            c["misses"].as_u64().unwrap(),
            c["evictions"].as_u64().unwrap(),
            slots,
        )
    };
    let every = VertexSubset::all(s.test.num_vertices);
    let edges = std::sync::atomic::AtomicU64::new(0);
    let count = |_, p: diskgraph_engine::selective::Piece<'_>| {
        edges.fetch_add(p.targets.len() as u64, std::sync::atomic::Ordering::Relaxed);
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
    assert_eq!(edges.into_inner(), 2 * s.test.num_arcs() as u64);
}
