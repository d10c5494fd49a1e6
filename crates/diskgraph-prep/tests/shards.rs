//! The shard partitioner against the testkit's model of the stored graph: on seeded graphs with
//! self-loops, duplicates, isolated vertices, hubs, directed and undirected, more shards than
//! vertices and the empty graph, every arc of the CSR appears exactly once, in its shard, in its
//! window, each shard sorted; the intervals follow the documented rule; the manifest records the
//! layout; a tiny budget gives byte-identical files; automatic N and block size are the plan for
//! the budget, whose written layout needs no more, and a budget no layout fits is refused naming
//! the smallest that works; a small graph gets small blocks; and the publishing rules hold.

mod common;

use std::path::Path;

use common::{seeded, store, Stored};
use diskgraph_format::{
    plan_shards, shard_layout_name, verify, GraphBuilder, GraphDir, LayoutRecord, Manifest, ShardBudget, ShardLayout,
    ShardPlan, ShardRecord, ShardRequest, DEFAULT_SHARD_BLOCK_BYTES, FORMAT_NAME, FORMAT_VERSION, MAX_SHARDS,
    MIN_SHARD_BLOCK_BYTES, SHARD_DST, SHARD_SRC, SHARD_WINDOWS,
};
use diskgraph_prep::shards::shard_intervals;
use diskgraph_prep::{partition_shards, NoProgress, ShardOptions};
use diskgraph_testkit::gen;
use diskgraph_testkit::{EdgeList, Keep, TestGraph};

/// The model's stored arcs, sorted by (src, dst).
fn model_arcs(t: &TestGraph) -> Vec<(u32, u32)> {
    let mut a = t.arcs.clone();
    a.sort_unstable();
    a
}

/// The documented interval rule, computed the plain way from the model's arcs (with exact
/// rational targets).
fn expected_intervals(t: &TestGraph, n: u32) -> Vec<u32> {
    let v_count = t.num_vertices as u64;
    let e = t.num_arcs() as u64;
    let mut prefix = vec![0u64; t.num_vertices + 1];
    for &(_, d) in &t.arcs {
        prefix[d as usize + 1] += 1;
    }
    for v in 1..prefix.len() {
        prefix[v] += prefix[v - 1];
    }
    let p_at = |v: u64| prefix[v.min(v_count) as usize] as f64;
    let nn = u64::from(n);
    let mut b = vec![0u64; n as usize + 1];
    for p in 1..n as usize {
        let base = p_at(b[p - 1]);
        let target = base + (e as f64 - base) / (nn - p as u64 + 1) as f64;
        let (lo, hi) = if v_count >= nn {
            (b[p - 1] + 1, v_count - (nn - p as u64))
        } else {
            (b[p - 1], v_count)
        };
        b[p] = (lo..=hi)
            .find(|&v| v == hi || p_at(v) >= target || target < (p_at(v) + p_at(v + 1)) / 2.0)
            .unwrap();
    }
    b[n as usize] = v_count;
    b.into_iter().map(|x| x as u32).collect()
}

/// Checks one published shard layout against the model, independently of the format's own
/// checks; returns the arcs of each shard.
fn check_layout(st: &Stored, n: u32) -> Vec<u64> {
    let g = GraphDir::open(&st.path).unwrap();
    let name = shard_layout_name(n, None);
    let ctx = format!("{} {name}", st.name);
    let l = ShardLayout::open(&g, &name).unwrap_or_else(|e| panic!("{ctx}: {e}"));
    let t = &st.test;
    let e = t.num_arcs() as u64;
    assert_eq!((l.num_shards(), l.num_arcs()), (n, e), "{ctx}");
    let b = expected_intervals(t, n);
    assert_eq!(l.intervals(), &b[..], "{ctx}: intervals");
    if t.num_vertices as u64 >= u64::from(n) {
        assert!((0..n).all(|p| !l.interval(p).is_empty()), "{ctx}: an empty interval");
    }
    let on_disk: u64 = [SHARD_SRC, SHARD_DST, SHARD_WINDOWS]
        .iter()
        .map(|f| std::fs::metadata(l.column_path(f)).unwrap().len())
        .sum();
    let record = ShardRecord {
        name: name.clone(),
        num_shards: n,
        block_bytes: l.block_bytes(),
        num_arcs: e,
        compressed: None,
        bytes_on_disk: on_disk,
        generation: g.layout(&name).map_or(0, LayoutRecord::generation),
    };
    assert_eq!(g.layout(&name), Some(&LayoutRecord::Shards(record)), "{ctx}");
    let column = |file: &str| -> Vec<u32> {
        let bytes = std::fs::read(l.column_path(file)).unwrap();
        bytes[..4 * e as usize]
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    };
    let (src, dst) = (column(SHARD_SRC), column(SHARD_DST));
    let mut got = Vec::with_capacity(e as usize);
    let mut sizes = Vec::new();
    let mut at = 0u64;
    for q in 0..n {
        let shard = l.shard(q);
        assert_eq!(
            shard.start,
            at,
            "{ctx}: shard {q} does not follow shard {}",
            q.wrapping_sub(1)
        );
        sizes.push(shard.end - shard.start);
        for p in 0..n {
            let w = l.window(q, p);
            assert_eq!(w.start, at, "{ctx}: window ({q}, {p})");
            for i in w.clone() {
                let (s, d) = (src[i as usize], dst[i as usize]);
                assert!(
                    l.interval(p).contains(&s),
                    "{ctx}: arc {i} {s}->{d} not in window ({q}, {p})"
                );
                assert!(l.interval(q).contains(&d), "{ctx}: arc {i} {s}->{d} not in shard {q}");
                got.push((s, d));
            }
            at = w.end;
        }
        let arcs = &got[shard.start as usize..];
        assert!(
            arcs.windows(2).all(|x| x[0] <= x[1]),
            "{ctx}: shard {q} not sorted by (src, dst)"
        );
    }
    assert_eq!(at, e, "{ctx}");
    got.sort_unstable();
    assert_eq!(got, model_arcs(t), "{ctx}: arcs differ from the graph's");
    sizes
}

fn opts(n: Option<u32>, memory: u64, force: bool) -> ShardOptions {
    ShardOptions {
        shards: n,
        memory,
        block_bytes: Some(DEFAULT_SHARD_BLOCK_BYTES),
        force,
        compress: None,
    }
}

/// `--shards auto` with the block size chosen, for `memory`.
fn auto(memory: u64) -> ShardOptions {
    ShardOptions {
        block_bytes: None,
        ..opts(None, memory, true)
    }
}

/// What `plan_shards` makes of `memory` for `g` (layouts plain, shards and blocks chosen).
fn plan(g: &GraphDir, memory: u64) -> ShardPlan {
    let request = ShardRequest {
        memory,
        shards: None,
        block_bytes: None,
        compressed: false,
    };
    plan_shards(g, &request, 1 << 16).unwrap()
}

#[test]
fn shards_hold_the_graphs_arcs_in_their_windows() {
    let counts = [1u32, 2, 3, 7, 16, 64];
    for st in seeded(false) {
        for n in counts {
            let s = partition_shards(&st.path, &opts(Some(n), 1 << 30, false), &mut NoProgress)
                .unwrap_or_else(|e| panic!("{}: {e:#}", st.name));
            assert_eq!(
                (s.name.as_str(), s.num_shards),
                (shard_layout_name(n, None).as_str(), n)
            );
            assert_eq!(s.num_arcs, st.test.num_arcs() as u64);
            assert!(!s.shards_from_budget);
            let sizes = check_layout(&st, n);
            assert_eq!(s.largest_shard, sizes.iter().copied().max().unwrap());
            let g = GraphDir::open(&st.path).unwrap();
            assert_eq!(g.layout(&s.name).unwrap().bytes_on_disk(), s.bytes_written);
            assert_eq!(s.path, st.path.join(&s.name));
        }
        let r = verify(&st.path).unwrap_or_else(|e| panic!("{}: {e}", st.name));
        assert_eq!(r.layouts_checked, counts.len(), "{}", st.name);
    }
}

#[test]
fn more_shards_than_vertices_and_the_empty_graph() {
    for directed in [false, true] {
        let st = store("tiny", &gen::gnm(3, 5, directed, 1), Keep::all());
        partition_shards(&st.path, &opts(Some(8), 1 << 20, false), &mut NoProgress).unwrap();
        check_layout(&st, 8);
        // No arcs, and no vertices at all.
        let edgeless = store("edgeless", &EdgeList::new(6, directed, vec![]), Keep::all());
        let empty = without_vertices(directed);
        for g in [&edgeless, &empty] {
            for n in [1, 5, 9] {
                let s = partition_shards(&g.path, &opts(Some(n), 1 << 20, false), &mut NoProgress).unwrap();
                assert_eq!((s.num_arcs, s.largest_shard), (0, 0));
                check_layout(g, n);
            }
            let auto = partition_shards(&g.path, &opts(None, 1 << 20, true), &mut NoProgress).unwrap();
            assert_eq!(auto.num_shards, 1);
            // Even without arcs an interval holds its grouping arrays: one byte is refused.
            let err = partition_shards(&g.path, &opts(None, 1, true), &mut NoProgress).unwrap_err();
            let msg = format!("{err:#}");
            let least = msg
                .split("give --memory ")
                .nth(1)
                .and_then(|r| r.strip_suffix(" or more"));
            let least = least
                .and_then(|b| diskgraph_io::parse_size(b).ok())
                .unwrap_or_else(|| panic!("{msg}"));
            assert!((64 << 10..66 << 10).contains(&least), "{msg}");
            verify(&g.path).unwrap();
        }
        assert_eq!(
            GraphDir::open(&edgeless.path)
                .unwrap()
                .layout("shards-5")
                .map(|l| l.num_arcs()),
            Some(0)
        );
        verify(&st.path).unwrap();
    }
}

/// A graph of no vertices (which import refuses), written directly.
fn without_vertices(directed: bool) -> Stored {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g");
    let b = GraphBuilder::create(&path, false).unwrap();
    let mut files = b.csr("out", 0, false).unwrap().finish().unwrap();
    if directed {
        files.extend(b.csr("in", 0, false).unwrap().finish().unwrap());
    }
    let m = Manifest {
        format: FORMAT_NAME.into(),
        version: FORMAT_VERSION,
        num_vertices: 0,
        num_edges: 0,
        num_arcs: 0,
        num_self_loops: 0,
        directed,
        weighted: false,
        multi_edges: false,
        ordering: "original".into(),
        ids_remapped: false,
        files: files.into_iter().collect(),
        layouts: vec![],
        tool: "test".into(),
        source: Default::default(),
    };
    b.publish(&m).unwrap();
    Stored {
        _dir: dir,
        path,
        test: EdgeList::new(0, directed, vec![]).build(Keep::all()),
        name: "no vertices".into(),
    }
}

#[test]
fn intervals_balance_in_degree_and_a_hub_keeps_its_whole_in_degree() {
    // Vertex 0 receives 30 arcs, vertices 1..=30 one each: the hub fills an interval alone.
    let mut edges: Vec<(u32, u32)> = (1..=30).map(|v| (v, 0)).collect();
    edges.extend((1..=30).map(|v| (0, v)));
    let st = store("hub", &EdgeList::new(31, true, edges), Keep::default());
    partition_shards(&st.path, &opts(Some(4), 1 << 20, false), &mut NoProgress).unwrap();
    let sizes = check_layout(&st, 4);
    let g = GraphDir::open(&st.path).unwrap();
    let l = ShardLayout::open(&g, "shards-4").unwrap();
    // The hub alone, then the other 30 arcs shared evenly by the three intervals left.
    assert_eq!(l.intervals(), [0, 1, 11, 21, 31]);
    assert_eq!(sizes, [30, 10, 10, 10]);

    // On a graph with many small in-degrees, every shard is within two largest in-degrees of E/N.
    let st = store("gnm", &gen::gnm(2000, 20_000, true, 5), Keep::default());
    let max_in = {
        let mut d = vec![0u64; 2000];
        st.test.arcs.iter().for_each(|&(_, v)| d[v as usize] += 1);
        d.into_iter().max().unwrap()
    };
    for n in [3u32, 10, 33] {
        partition_shards(&st.path, &opts(Some(n), 1 << 20, false), &mut NoProgress).unwrap();
        let sizes = check_layout(&st, n);
        let share = st.test.num_arcs() as u64 / u64::from(n);
        for (q, &size) in sizes.iter().enumerate() {
            assert!(
                size.abs_diff(share) <= 2 * max_in,
                "N={n} shard {q}: {size} arcs, share {share}"
            );
        }
    }
}

/// A graph far bigger than the smallest budget: 2^13 vertices, ~120 000 arcs with hubs.
fn big() -> Stored {
    store("rmat13", &gen::rmat(13, 60_000, false, 7), Keep::default())
}

fn read_files(dir: &Path) -> Vec<Vec<u8>> {
    [SHARD_SRC, SHARD_DST, SHARD_WINDOWS]
        .iter()
        .map(|f| std::fs::read(dir.join(f)).unwrap())
        .collect()
}

#[test]
fn a_tiny_budget_streams_and_gives_identical_files() {
    let st = big();
    let edges_bytes = st.test.num_arcs() as u64 * 8;
    for n in [1u32, 5, 16] {
        let roomy = partition_shards(&st.path, &opts(Some(n), 1 << 30, true), &mut NoProgress).unwrap();
        let want = read_files(&roomy.path);
        let tight = partition_shards(&st.path, &opts(Some(n), 1, true), &mut NoProgress).unwrap();
        assert!(
            tight.peak_memory < edges_bytes,
            "N={n}: planned {} bytes for {edges_bytes} bytes of arcs",
            tight.peak_memory
        );
        assert!(read_files(&tight.path) == want, "N={n}: files differ");
        check_layout(&st, n);
    }
    verify(&st.path).unwrap();
}

#[test]
fn automatic_shards_and_blocks_are_the_plan_for_the_budget() {
    for st in [
        big(),
        store("directed rmat12", &gen::rmat(12, 30_000, true, 3), Keep::default()),
    ] {
        let g = GraphDir::open(&st.path).unwrap();
        let ShardPlan::TooSmall { least } = plan(&g, 1) else {
            panic!("{}: a layout runs in 1 byte", st.name)
        };
        for memory in [least.minimum, least.minimum + 1000, 3 * least.minimum, 1 << 30] {
            let ctx = format!("{}, M={memory}", st.name);
            let ShardPlan::Fits(c) = plan(&g, memory) else {
                panic!("{ctx}: nothing fits")
            };
            let s = partition_shards(&st.path, &auto(memory), &mut NoProgress).unwrap();
            assert!(s.shards_from_budget && s.block_from_budget, "{ctx}");
            assert_eq!((s.num_shards, s.block_bytes), (c.num_shards, c.block_bytes), "{ctx}");
            // The written layout needs what the engine's formula says, at most the plan.
            let l = ShardLayout::open(&GraphDir::open(&st.path).unwrap(), &s.name).unwrap();
            let exact = ShardBudget::of_geometry(&l.geometry(), l.block_bytes()).minimum();
            assert_eq!(s.min_memory, exact, "{ctx}");
            assert!(exact <= c.minimum && c.minimum <= memory, "{ctx}: {exact} {c:?}");
            check_layout(&st, s.num_shards);
        }
        // A byte less than the least any layout needs is refused, naming that least.
        let err = format!(
            "{:#}",
            partition_shards(&st.path, &auto(least.minimum - 1), &mut NoProgress).unwrap_err()
        );
        assert!(
            err.contains(&format!(
                "give --memory {} or more",
                diskgraph_io::human_minimum(least.minimum)
            )),
            "{}: {err}",
            st.name
        );
        assert!(err.contains(&format!("{} shards of", least.num_shards)), "{err}");
    }
}

#[test]
fn a_budget_no_layout_fits_publishes_nothing_and_names_the_way_out() {
    let st = big();
    let memory = 256 << 10;
    let before = entries(&st.path);
    let err = format!(
        "{:#}",
        partition_shards(&st.path, &auto(memory), &mut NoProgress).unwrap_err()
    );
    assert!(
        err.contains("no shards layout of") && err.contains("--memory 256KiB"),
        "{err}"
    );
    assert_eq!(entries(&st.path), before);
    // With a block size too large for the budget, the error says that leaving it out fits.
    let g = GraphDir::open(&st.path).unwrap();
    let ShardPlan::Fits(free) = plan(&g, 4 << 20) else {
        panic!("nothing fits 4 MiB")
    };
    let fixed = ShardOptions {
        block_bytes: Some(1 << 20),
        ..opts(None, 4 << 20, true)
    };
    let err = format!("{:#}", partition_shards(&st.path, &fixed, &mut NoProgress).unwrap_err());
    assert!(
        err.contains(&format!("without --block-size it fits ({} shards of", free.num_shards)),
        "{err}"
    );
}

#[test]
fn a_small_graph_gets_small_blocks() {
    // About 6000 edges: with 1 MiB blocks its 4 shards needed 12 MiB.
    let st = store("gnm 6000", &gen::gnm(3000, 6000, false, 5), Keep::default());
    let fixed = ShardOptions {
        block_bytes: None,
        ..opts(Some(4), 1 << 30, true)
    };
    let s = partition_shards(&st.path, &fixed, &mut NoProgress).unwrap();
    assert!(!s.shards_from_budget && s.block_from_budget);
    assert_eq!((s.num_shards, s.block_bytes), (4, MIN_SHARD_BLOCK_BYTES));
    assert!(s.min_memory < 1 << 20, "{} bytes", s.min_memory);
    let s = partition_shards(&st.path, &auto(1 << 30), &mut NoProgress).unwrap();
    assert_eq!(s.num_shards, 1);
    assert!(s.block_bytes <= 64 << 10 && s.min_memory < 1 << 20, "{s:?}");
    // At most V shards.
    let tiny = store("tiny", &gen::gnm(4, 12, true, 2), Keep::default());
    let s = partition_shards(&tiny.path, &auto(1 << 20), &mut NoProgress).unwrap();
    assert!(s.num_shards <= 4);
    check_layout(&tiny, s.num_shards);
}

#[test]
fn the_block_size_is_recorded_and_checked() {
    let st = store("small", &gen::gnm(50, 200, true, 1), Keep::default());
    let o = ShardOptions {
        block_bytes: Some(64 << 10),
        ..opts(Some(2), 1 << 20, false)
    };
    let s = partition_shards(&st.path, &o, &mut NoProgress).unwrap();
    assert_eq!(s.block_bytes, 64 << 10);
    let g = GraphDir::open(&st.path).unwrap();
    assert_eq!(ShardLayout::open(&g, "shards-2").unwrap().block_bytes(), 64 << 10);
    assert_eq!(g.layout("shards-2").unwrap().shards().unwrap().block_bytes, 64 << 10);
    for bad in [0, 1000, 4097, 128 << 20] {
        let o = ShardOptions {
            block_bytes: Some(bad),
            ..opts(Some(3), 1 << 20, false)
        };
        let err = format!("{:#}", partition_shards(&st.path, &o, &mut NoProgress).unwrap_err());
        assert!(err.contains("--block-size") && err.contains(&bad.to_string()), "{err}");
    }
    assert!(GraphDir::open(&st.path).unwrap().layout("shards-3").is_none());
}

fn entries(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn existing_layouts_need_force_and_failures_leave_nothing() {
    let st = store("small", &gen::gnm(50, 200, true, 1), Keep::default());
    let before = entries(&st.path);
    partition_shards(&st.path, &opts(Some(4), 1 << 20, false), &mut NoProgress).unwrap();
    let err = format!(
        "{:#}",
        partition_shards(&st.path, &opts(Some(4), 1 << 20, false), &mut NoProgress).unwrap_err()
    );
    assert!(err.contains("shards-4") && err.contains("already exists"), "{err}");
    partition_shards(&st.path, &opts(Some(4), 1 << 20, true), &mut NoProgress).unwrap();
    for bad in [0, MAX_SHARDS + 1] {
        let err = partition_shards(&st.path, &opts(Some(bad), 1 << 20, false), &mut NoProgress).unwrap_err();
        assert!(format!("{err:#}").contains(&format!("--shards {bad}")), "{err:#}");
    }
    let mut after = before.clone();
    // The forced replacement is the layout's next generation; the first is gone.
    after.push("shards-4.v1".into());
    after.sort();
    assert_eq!(entries(&st.path), after, "temporary files left behind");
    let missing = st.path.join("nope");
    let err = partition_shards(&missing, &opts(Some(4), 1 << 20, false), &mut NoProgress).unwrap_err();
    assert!(format!("{err:#}").contains("nope"), "{err:#}");
    verify(&st.path).unwrap();
}

#[test]
fn a_corrupt_or_incomplete_graph_is_an_error_not_a_layout() {
    // A neighbour out of range in out.adj: found by the counting pass.
    let st = store("corrupt", &gen::gnm(40, 300, true, 2), Keep::default());
    let adj = st.path.join("out.adj");
    let mut bytes = std::fs::read(&adj).unwrap();
    bytes[0..4].copy_from_slice(&1000u32.to_le_bytes());
    std::fs::write(&adj, &bytes).unwrap();
    let err = partition_shards(&st.path, &opts(Some(3), 1 << 20, false), &mut NoProgress).unwrap_err();
    assert!(format!("{err:#}").contains("out.adj"), "{err:#}");
    assert!(GraphDir::open(&st.path).unwrap().layouts().is_empty());
    assert!(
        !entries(&st.path).iter().any(|e| e.starts_with('.')),
        "{:?}",
        entries(&st.path)
    );

    // A directed graph without its in.idx: the intervals cannot be chosen, and the error names
    // the file.
    let st = store("no-in", &gen::gnm(40, 300, true, 2), Keep::default());
    std::fs::remove_file(st.path.join("in.idx")).unwrap();
    let err = partition_shards(&st.path, &opts(Some(3), 1 << 20, false), &mut NoProgress).unwrap_err();
    assert!(format!("{err:#}").contains("in.idx"), "{err:#}");
    // Listed nowhere: the manifest refuses a directed graph that does not list in.idx.
    let manifest = st.path.join("manifest.json");
    let mut m: serde_json::Value = serde_json::from_slice(&std::fs::read(&manifest).unwrap()).unwrap();
    m["files"].as_object_mut().unwrap().remove("in.idx");
    std::fs::write(&manifest, serde_json::to_vec(&m).unwrap()).unwrap();
    let err = partition_shards(&st.path, &opts(Some(3), 1 << 20, false), &mut NoProgress).unwrap_err();
    assert!(format!("{err:#}").contains("in.idx is not listed"), "{err:#}");
    assert!(!entries(&st.path)
        .iter()
        .any(|e| e.starts_with('.') || e.starts_with("shards")));
}

#[test]
fn intervals_need_a_valid_count() {
    let st = store("small", &gen::gnm(10, 30, false, 3), Keep::default());
    let g = GraphDir::open(&st.path).unwrap();
    assert_eq!(shard_intervals(&g, 1, 1 << 16).unwrap(), [0, 10]);
    assert_eq!(
        shard_intervals(&g, 10, 1 << 16).unwrap(),
        (0..=10).collect::<Vec<u32>>()
    );
    for bad in [0, MAX_SHARDS + 1] {
        let err = shard_intervals(&g, bad, 1 << 16).unwrap_err().to_string();
        assert!(err.contains("must be 1 to 4096"), "{err}");
    }
}
