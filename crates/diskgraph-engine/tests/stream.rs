//! The stream engine's guarantees, through its own primitives, on grid layouts written by
//! `diskgraph partition`: a pass hands every edge once (with its weight), in either order, on
//! any thread split, whether budgets cut blocks into many loads or hold them whole; relaxation
//! over active sources reaches the same fixpoint for every P, reentry limit, budget and vertex
//! state, and reentry cuts iterations; blocks and runs without an active source are skipped;
//! gathering and adding by column sum each destination in the same order; by-column passes
//! never share a destination; updates and vmap; a damaged layout is an error; a budget too
//! small is refused with the smallest one, which works; pread and an unweighted opening.

mod common;

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;

use common::{fixture, open_stream, partitioned, partitioned_coded, reopened, stats, weighted_multigraph};
use diskgraph_engine::selective::BackendKind;
use diskgraph_engine::stream::{Frontier, Order, Pass, StreamGraph, StreamOptions, Threads, Update, VertexStateKind};
use diskgraph_engine::{human_minimum, Engine, EngineError};
use diskgraph_format::{Codec, FormatError, GraphDir, GridLayout};
use diskgraph_prep::SortOrder;
use diskgraph_testkit::gen::{self, Weights};
use diskgraph_testkit::harness::Fixture;
use diskgraph_testkit::{oracle, Keep, TestGraph};

/// A budget that cuts blocks into loads of a few thousand edges.
const SMALL: u64 = 256 << 10;
/// A budget that holds these graphs' blocks whole.
const LARGE: u64 = 16 << 20;

/// Small nasty graphs: self-loops, duplicates, isolated vertices, a hub, a long path,
/// disconnected parts, directed and undirected, weighted.
fn graphs() -> Vec<Fixture> {
    vec![
        weighted_multigraph(),
        fixture(
            "disconnected parts, a long path and isolated vertices, undirected",
            gen::relabel(
                gen::add_isolated(gen::union(gen::gnm(300, 600, false, 5), gen::path(300, false)), 150),
                5,
            ),
            Keep::default(),
        ),
        fixture(
            "rmat scale 11 directed, relabelled (a hub)",
            gen::relabel(gen::rmat(11, 16 << 10, true, 4), 4),
            Keep::default(),
        ),
        fixture(
            "weighted undirected star of 3000 with self-loops and duplicates",
            gen::with_weights(gen::star(3000, 300, false, 8), Weights::Uniform(0.0, 1.0), 8),
            Keep::all(),
        ),
    ]
}

/// Every layout of `f` the tests stream: grids of P 1, 4 and 16, and 4-range source- and
/// destination-sorted ones, and compressed grid, source- and destination-sorted ones (blocks
/// decoded whole); with the graph opened again.
fn layouts(f: &Fixture) -> (GraphDir, Vec<String>) {
    let vbyte = Some(Codec::Vbyte);
    let names = [
        (1, SortOrder::Grid, None),
        (4, SortOrder::Grid, None),
        (16, SortOrder::Grid, None),
        (4, SortOrder::Source, None),
        (4, SortOrder::Destination, None),
        (4, SortOrder::Grid, vbyte),
        (4, SortOrder::Source, vbyte),
        (16, SortOrder::Destination, vbyte),
    ]
    .into_iter()
    .map(|(p, sort, compress)| partitioned_coded(f, p, sort, compress).1)
    .collect();
    (reopened(f), names)
}

/// The stored arcs with their weights, sorted.
fn weighted_arcs(t: &TestGraph) -> Vec<(u32, u32, f32)> {
    let mut arcs: Vec<(u32, u32, f32)> = t
        .arcs
        .iter()
        .enumerate()
        .map(|(i, &(s, d))| (s, d, t.weight(i)))
        .collect();
    arcs.sort_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)).then(a.2.total_cmp(&b.2)));
    arcs
}

/// The edges one `pass` hands the edge function, with their weights, sorted.
fn edges_of(g: &StreamGraph, pass: &Pass<'_>) -> Result<Vec<(u32, u32, f32)>, EngineError> {
    let seen = Mutex::new(Vec::new());
    g.stream(pass, |e, w| {
        seen.lock().unwrap().push((e.src, e.dst, w));
        Update::NONE
    })?;
    let mut seen = seen.into_inner().unwrap();
    seen.sort_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)).then(a.2.total_cmp(&b.2)));
    Ok(seen)
}

/// A 4-thread pool, so that passes split and by-column passes run columns at once.
fn four_threads() -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new().num_threads(4).build().unwrap()
}

#[test]
fn every_pass_hands_each_edge_once() {
    four_threads().install(|| {
        for f in graphs() {
            let want = weighted_arcs(&f.test);
            let (g, names) = layouts(&f);
            for name in &names {
                for memory in [SMALL, LARGE] {
                    let ctx = format!("{} [{name}, {} KiB]", f.name, memory >> 10);
                    let sg = open_stream(&g, name, 1, VertexStateKind::Memory, memory);
                    for (threads, order) in [
                        (Threads::Shared, Order::RowMajor),
                        (Threads::One, Order::ColumnMajor),
                        (Threads::ByColumn, Order::RowMajor),
                    ] {
                        let pass = Pass {
                            order,
                            threads,
                            weights: true,
                            ..Pass::all()
                        };
                        assert_eq!(edges_of(&sg, &pass).unwrap(), want, "{ctx}, {threads:?} {order:?}");
                    }
                    let s = stats(&sg);
                    assert!(s.bytes_read > 0 && s.io_requests > 0, "{ctx}: {s:?}");
                    assert!(s.peak_engine_memory <= memory, "{ctx}: over budget");
                }
            }
        }
    });
}

/// Hop distances from `source` (`u32::MAX` unreached) by relaxation passes over the active
/// sources, each loaded block re-entered as `g`'s reentry limit allows, until a pass changes
/// nothing; and the passes run.
fn hops_from(g: &StreamGraph, source: u32) -> (Vec<u32>, u64) {
    let dist = g
        .vertex_array::<AtomicU32>(|v| if v == source { 0 } else { u32::MAX })
        .unwrap();
    let (mut active, mut next) = (g.frontier(), g.frontier());
    active.insert(source);
    let mut passes = 0;
    while !active.is_empty() {
        passes += 1;
        let pass = Pass {
            active: Some(&active),
            next: Some(&next),
            mrt: g.options().mrt,
            ..Pass::all()
        };
        g.stream(&pass, |e, _| {
            let d = dist[e.src as usize].load(Relaxed).saturating_add(1);
            Update::dst_if(dist[e.dst as usize].fetch_min(d, Relaxed) > d)
        })
        .unwrap();
        active.clear();
        std::mem::swap(&mut active, &mut next);
    }
    (dist.values().expect("no mapped fault"), passes)
}

/// [`oracle::bfs_levels`] with `u32::MAX` for unreached.
fn levels(t: &TestGraph, source: u32) -> Vec<u32> {
    let levels = oracle::bfs_levels(t, source);
    levels
        .into_iter()
        .map(|l| u32::try_from(l).unwrap_or(u32::MAX))
        .collect()
}

#[test]
fn relaxation_reaches_the_fixpoint_for_every_p_reentry_budget_and_vertex_state() {
    four_threads().install(|| {
        for f in graphs() {
            let t = &f.test;
            let hub = (0..t.num_vertices as u32)
                .max_by_key(|&v| t.arcs.iter().filter(|a| a.0 == v).count())
                .unwrap();
            let want = [levels(t, 0), levels(t, hub)];
            let (g, names) = layouts(&f);
            for (k, name) in names.iter().enumerate() {
                for (mrt, state) in [
                    (1, VertexStateKind::Memory),
                    (5, VertexStateKind::Memory),
                    (1, VertexStateKind::Mmap),
                    (5, VertexStateKind::Mmap),
                ] {
                    let memory = if (k + mrt as usize).is_multiple_of(2) {
                        SMALL
                    } else {
                        LARGE
                    };
                    let ctx = format!("{} [{name}, mrt {mrt}, {state}, {} KiB]", f.name, memory >> 10);
                    let sg = open_stream(&g, name, mrt, state, memory);
                    assert_eq!(hops_from(&sg, 0).0, want[0], "{ctx}, from 0");
                    assert_eq!(hops_from(&sg, hub).0, want[1], "{ctx}, from {hub}");
                    let s = stats(&sg);
                    assert_eq!(s.settings["mrt"], mrt, "{ctx}");
                    assert_eq!(s.settings["vertex_state"], state.to_string(), "{ctx}");
                }
            }
        }
    });
}

/// Reentry cuts iterations: a path in ID order is one block; with MRT 1 each iteration moves
/// one hop, with reentry a loaded block carries the search along the path.
#[test]
fn reentry_reduces_iterations() {
    let f = fixture("path 400", gen::path(400, true), Keep::default());
    let (g, grid) = partitioned(&f, 1, SortOrder::Grid);
    let want = levels(&f.test, 0);
    let run = |mrt| {
        let sg = open_stream(&g, &grid, mrt, VertexStateKind::Memory, LARGE);
        let (hops, iterations) = hops_from(&sg, 0);
        assert_eq!(hops, want, "mrt {mrt}");
        (iterations, stats(&sg).settings["reentry_passes"].as_u64().unwrap())
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
    // Two separate halves: a search inside the first never needs the second's blocks.
    let el = gen::union(gen::gnm(500, 2000, false, 21), gen::gnm(500, 2000, false, 22));
    let f = fixture("two halves", el, Keep::default());
    let (g, grid) = partitioned(&f, 8, SortOrder::Grid);
    let sg = open_stream(&g, &grid, 1, VertexStateKind::Memory, LARGE);
    let (hops, iterations) = hops_from(&sg, 0);
    assert_eq!(hops, levels(&f.test, 0));
    let s = stats(&sg);
    let skipped = s.settings["blocks_skipped"].as_u64().unwrap();
    assert!(skipped >= 16 * iterations, "{skipped} blocks skipped");
    assert!(s.settings["edges_skipped"].as_u64().unwrap() > 0);
    assert!(s.bytes_read < iterations * f.test.num_arcs() as u64 * 8);
}

/// `Σ w x[src]` into each destination, in a register per destination's run (gathered).
fn gathered_sums(g: &StreamGraph, x: &[f64]) -> Vec<f64> {
    let acc: Vec<AtomicU64> = (0..g.num_vertices()).map(|_| AtomicU64::new(0)).collect();
    g.gather(true, |dst, run, weights| {
        let mut sum = f64::from_bits(acc[dst as usize].load(Relaxed));
        for (k, e) in run.iter().enumerate() {
            sum += f64::from(weights.map_or(1.0, |w| w[k])) * x[e.src as usize];
        }
        acc[dst as usize].store(sum.to_bits(), Relaxed);
    })
    .unwrap();
    acc.into_iter().map(|a| f64::from_bits(a.into_inner())).collect()
}

/// `Σ w x[src]` into each destination with plain reads and writes (by column).
fn by_column_sums(g: &StreamGraph, x: &[f64]) -> Vec<f64> {
    let acc: Vec<AtomicU64> = (0..g.num_vertices()).map(|_| AtomicU64::new(0)).collect();
    let pass = Pass {
        threads: Threads::ByColumn,
        weights: true,
        ..Pass::all()
    };
    g.stream(&pass, |e, w| {
        let a = &acc[e.dst as usize];
        a.store(
            (f64::from_bits(a.load(Relaxed)) + f64::from(w) * x[e.src as usize]).to_bits(),
            Relaxed,
        );
        Update::NONE
    })
    .unwrap();
    acc.into_iter().map(|a| f64::from_bits(a.into_inner())).collect()
}

/// Gathering on a destination-sorted layout and adding by column on a grid-sorted one sum each
/// destination in the same (ascending-source) order: bit for bit equal on 4 threads, and equal
/// to the testkit's sums up to rounding; a grid-sorted layout cannot be gathered.
#[test]
fn gathered_sums_equal_by_column_sums() {
    four_threads().install(|| {
        for f in graphs() {
            let t = &f.test;
            let x: Vec<f64> = (0..t.num_vertices)
                .map(|v| ((v * 7919) % 13) as f64 * 0.75 - 4.5)
                .collect();
            let (want, scale) = (oracle::spmv(t, &x), oracle::spmv_scale(t, &x));
            partitioned(&f, 16, SortOrder::Grid);
            let (g, _) = partitioned(&f, 16, SortOrder::Destination);
            let by_column = open_stream(&g, "grid-16", 1, VertexStateKind::Memory, LARGE);
            let gathered = open_stream(&g, "grid-16-destination", 1, VertexStateKind::Memory, LARGE);
            assert!(by_column.column_parallel() && gathered.column_parallel(), "{}", f.name);
            let sums = gathered_sums(&gathered, &x);
            assert_eq!(by_column_sums(&by_column, &x), sums, "{}", f.name);
            for (v, (a, b)) in sums.iter().zip(&want).enumerate() {
                assert!((a - b).abs() <= 1e-12 * scale[v], "{}: vertex {v}: {a} vs {b}", f.name);
            }
            let refused = by_column.gather(false, |_, _, _| {});
            assert!(matches!(refused, Err(EngineError::Setting(m)) if m.contains("--sort destination")));
        }
    });
}

/// `Threads::ByColumn` never hands two threads edges of one destination at the same time, and
/// each destination sees its edges in file order (ascending source in a `grid` layout): a plain
/// read-modify-write count per destination loses nothing, on 4 threads, with a budget that holds
/// a request of many blocks and one that cuts the stream into many small requests.
#[test]
fn by_column_never_shares_a_destination() {
    let f = fixture(
        "rmat hub",
        gen::relabel(gen::rmat(11, 16 << 10, true, 12), 12),
        Keep::all(),
    );
    let n = f.test.num_vertices;
    let mut indegree = vec![0u64; n];
    for &(_, d) in &f.test.arcs {
        indegree[d as usize] += 1;
    }
    four_threads().install(|| {
        let grid16 = partitioned(&f, 16, SortOrder::Grid);
        let grid1 = partitioned(&f, 1, SortOrder::Grid);
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
            assert_eq!(r.edges_processed as usize, f.test.num_arcs());
            let got: Vec<u64> = count.iter().map(|c| c.load(Relaxed)).collect();
            assert_eq!(got, indegree, "{grid} {memory}");
        }
    });
}

/// The engine's programming model directly: both orders visit every edge once, in block order;
/// `Update::SRC` activates sources; `vmap` visits every vertex.
#[test]
fn orders_updates_and_vmap() {
    let f = fixture("gnm", gen::gnm(200, 900, true, 31), Keep::default());
    let (g, grid) = partitioned(&f, 4, SortOrder::Grid);
    let sg = open_stream(&g, &grid, 1, VertexStateKind::Memory, SMALL);
    let shape = *sg.layout().shape();
    for order in [Order::RowMajor, Order::ColumnMajor] {
        let seen = Mutex::new(Vec::new());
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
        assert_eq!(r.edges_processed as usize, f.test.num_arcs());
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
        assert_eq!(arcs, f.test.arcs);
        let sources: Vec<u32> = next.to_vec();
        assert!(sources.iter().all(|v| v % 2 == 0) && !sources.is_empty());
    }
    let count = AtomicU64::new(0);
    sg.vmap(|_| {
        count.fetch_add(1, Relaxed);
    });
    assert_eq!(count.into_inner(), 200);
}

/// An edge outside its block is an error naming `edges.bin`, never an out-of-bounds access,
/// whatever the pass: split over threads, by column, or one thread re-entering its loads.
#[test]
fn a_corrupt_layout_is_an_error() {
    let f = fixture("gnm", gen::gnm(500, 3000, false, 41), Keep::default());
    let (g, grid) = partitioned(&f, 4, SortOrder::Grid);
    let edges = g.path().join(&grid).join("edges.bin");
    let clean = std::fs::read(&edges).unwrap();
    let every = Frontier::full(500);
    let next = Frontier::new(500);
    let passes = [
        Pass::all(),
        Pass {
            threads: Threads::ByColumn,
            ..Pass::all()
        },
        Pass {
            active: Some(&every),
            next: Some(&next),
            mrt: 5,
            threads: Threads::One,
            ..Pass::all()
        },
    ];
    for bad in [7_000_000u32, 499] {
        let mut bytes = clean.clone();
        // Edge 10 is in block (0, 0): a destination of 499 is in range for the graph but not the
        // block; 7 000 000 is in range for nothing.
        bytes[10 * 8 + 4..10 * 8 + 8].copy_from_slice(&bad.to_le_bytes());
        std::fs::write(&edges, &bytes).unwrap();
        for memory in [SMALL, LARGE] {
            let sg = open_stream(&g, &grid, 5, VertexStateKind::Memory, memory);
            for pass in &passes {
                match sg.stream(pass, |_, _| Update::DST) {
                    Err(EngineError::Format(FormatError::Content { path, reason })) => {
                        assert!(path.ends_with("edges.bin") && reason.contains("edge 10 "), "{reason}")
                    }
                    other => panic!("{bad}, {:?}: {other:?}", pass.threads),
                }
            }
        }
    }
}

#[test]
fn a_damaged_compressed_block_is_an_error_naming_it() {
    let f = fixture("gnm", gen::gnm(500, 3000, false, 42), Keep::default());
    let (g, name) = partitioned_coded(&f, 4, SortOrder::Grid, Some(Codec::Vbyte));
    let layout = GridLayout::open(&g, &name).unwrap();
    let b = (0..layout.num_blocks()).max_by_key(|&b| layout.block_len(b)).unwrap();
    let path = g.path().join(&name).join("edges.packed");
    let mut bytes = std::fs::read(&path).unwrap();
    // The first run's vertex gap: past the block's sources.
    bytes[layout.block_bytes(b).start as usize] = 0x7f;
    std::fs::write(&path, &bytes).unwrap();
    for memory in [SMALL, LARGE] {
        let sg = open_stream(&g, &name, 1, VertexStateKind::Memory, memory);
        match sg.stream(&Pass::all(), |_, _| Update::NONE) {
            Err(EngineError::Format(FormatError::Content { path, reason })) => {
                assert!(
                    path.ends_with("edges.packed") && reason.contains(&format!("block {b} ")),
                    "{reason}"
                )
            }
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn a_budget_too_small_is_refused_with_the_smallest_that_works() {
    for (name, el) in [
        ("gnm", gen::gnm(100, 300, true, 51)),
        (
            "weighted gnm",
            gen::with_weights(gen::gnm(100, 300, true, 52), Weights::Integer(3), 52),
        ),
    ] {
        let f = fixture(name, el, Keep::default());
        let (g, coded) = partitioned_coded(&f, 2, SortOrder::Grid, Some(Codec::Vbyte));
        for weights in [false, true] {
            for layout in ["grid-2", coded.as_str()] {
                let open = |memory| {
                    let opts = StreamOptions {
                        memory,
                        weights,
                        ..StreamOptions::default()
                    };
                    StreamGraph::open(&g, layout, &opts)
                };
                let err = open(16 << 10).err().expect("16 KiB is refused");
                let EngineError::BudgetTooSmall { budget, minimum, .. } = err else {
                    panic!("{err}")
                };
                assert_eq!(budget, 16 << 10);
                let text = err.to_string();
                assert!(
                    text.ends_with(&format!("give it at least {}", human_minimum(minimum))),
                    "{text}"
                );
                open(minimum).unwrap_or_else(|e| panic!("{name} {layout}: the minimum {minimum} is refused: {e}"));
                assert!(
                    open(minimum - 1).is_err(),
                    "{name} {layout}: {minimum} is not the smallest"
                );
                let opts = StreamOptions {
                    weights,
                    ..StreamOptions::default()
                };
                assert_eq!(StreamGraph::minimum_budget(&g, layout, &opts).unwrap(), minimum);
            }
        }
    }
    let f = fixture("gnm", gen::gnm(100, 300, true, 53), Keep::default());
    let zero = StreamOptions {
        mrt: 0,
        ..StreamOptions::default()
    };
    assert!(matches!(
        StreamGraph::open(&f.graph, "grid-2", &zero),
        Err(EngineError::Setting(_))
    ));
    assert!(matches!(
        StreamGraph::open(&f.graph, "grid-9", &StreamOptions::default()),
        Err(EngineError::Format(_))
    ));
}

/// pread instead of io_uring, and a weighted layout opened without its weights.
#[test]
fn pread_backend_and_unweighted_opening() {
    let el = gen::with_weights(gen::rmat(9, 4 << 9, true, 61), Weights::Integer(5), 61);
    let f = fixture("weighted rmat", el, Keep::default());
    let opts = StreamOptions {
        memory: SMALL,
        backend: Some(BackendKind::Pread),
        weights: true,
        ..StreamOptions::default()
    };
    let weighted = Pass {
        weights: true,
        ..Pass::all()
    };
    let sg = StreamGraph::open(&f.graph, "grid-2", &opts).unwrap();
    assert!(sg.weighted());
    assert_eq!(edges_of(&sg, &weighted).unwrap(), weighted_arcs(&f.test));
    assert_eq!(stats(&sg).settings["io_backend"], "pread");
    let plain = StreamGraph::open(&f.graph, "grid-2", &StreamOptions { weights: false, ..opts }).unwrap();
    assert!(!plain.weighted());
    let unit: Vec<(u32, u32, f32)> = f.test.arcs.iter().map(|&(s, d)| (s, d, 1.0)).collect();
    assert_eq!(edges_of(&plain, &Pass::all()).unwrap(), unit);
    assert!(matches!(edges_of(&plain, &weighted), Err(EngineError::Setting(_))));
    assert!(matches!(plain.for_each_weight(|_| {}), Err(EngineError::Setting(_))));
}
