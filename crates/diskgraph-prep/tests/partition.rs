//! The partitioner against the testkit's model of the stored graph: on seeded graphs with
//! self-loops, duplicates, isolated vertices, hubs, directed and undirected, weighted or not,
//! for P ∈ {1, 4, 16} and every order, the layout holds exactly the graph's arcs (with weights),
//! each in its block, in the promised order, and the manifest records it; a tiny budget gives
//! byte-identical files; and the publishing rules hold.

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use common::{seeded, store, Stored};
use diskgraph_format::{
    verify, Codec, GraphDir, GridLayout, GridRecord, GridSort, LayoutRecord, GRID_BYTE_INDEX, GRID_EDGES, GRID_INDEX,
    GRID_PACKED, GRID_WEIGHTS,
};
use diskgraph_prep::partition::default_grid;
use diskgraph_prep::{partition, partition_with_key, NoProgress, PartitionOptions, SortOrder};
use diskgraph_testkit::gen::{self, Weights};
use diskgraph_testkit::{Keep, TestGraph};

/// An arc with the bits of its weight (0 when unweighted), for exact multiset comparison.
type Arc = (u32, u32, u32);

fn model_arcs(t: &TestGraph) -> Vec<Arc> {
    let mut a: Vec<Arc> = t
        .arcs
        .iter()
        .enumerate()
        .map(|(i, &(s, d))| (s, d, t.weights.as_ref().map_or(0, |w| w[i].to_bits())))
        .collect();
    a.sort_unstable();
    a
}

/// The key of the test's custom order: mixes source, destination and weight.
fn test_key(s: u32, d: u32, w: f32) -> f64 {
    f64::from((s.wrapping_mul(2654435761) ^ d.wrapping_mul(40503)) % 97) + f64::from(w).min(1e9) * 1e-12
}

/// Checks one published layout against the model, independently of the format's own checks.
fn check_layout(st: &Stored, name: &str, sort: &GridSort, p: u32) {
    check_layout_coded(st, name, sort, p, None)
}

/// [`check_layout`] of a layout whose blocks are compressed with `compressed`.
fn check_layout_coded(st: &Stored, name: &str, sort: &GridSort, p: u32, compressed: Option<Codec>) {
    let g = GraphDir::open(&st.path).unwrap();
    let l = GridLayout::open(&g, name).unwrap_or_else(|e| panic!("{}: {e}", st.name));
    let ctx = format!("{} {name}", st.name);
    let n = st.test.num_vertices as u64;
    let cols = if *sort == GridSort::Source { 1 } else { p };
    assert_eq!((l.rows(), l.cols()), (p, cols), "{ctx}");
    let (row_len, col_len) = (n.div_ceil(u64::from(p)), n.div_ceil(u64::from(cols)));
    assert_eq!((l.row_len(), l.col_len()), (row_len, col_len), "{ctx}");
    let on_disk: u64 = [GRID_EDGES, GRID_WEIGHTS, GRID_INDEX, GRID_PACKED, GRID_BYTE_INDEX]
        .iter()
        .filter_map(|f| std::fs::metadata(l.file_path(f)).ok())
        .map(|m| m.len())
        .sum();
    let record = GridRecord {
        name: name.to_string(),
        sort: sort.clone(),
        rows: p,
        cols,
        num_arcs: st.test.num_arcs() as u64,
        weighted: st.test.weights.is_some(),
        compressed,
        bytes_on_disk: on_disk,
        generation: g.layout(name).map_or(0, LayoutRecord::generation),
    };
    assert_eq!(g.layout(name), Some(&LayoutRecord::Grid(record)), "{ctx}");
    let index = l.index();
    assert_eq!(index.len(), (p * cols) as usize + 1, "{ctx}");
    assert_eq!(
        (index[0], *index.last().unwrap()),
        (0, st.test.num_arcs() as u64),
        "{ctx}"
    );
    assert!(index.windows(2).all(|w| w[0] <= w[1]), "{ctx}: index decreases");
    let mut got: Vec<Arc> = Vec::new();
    for b in 0..l.num_blocks() {
        let (edges, weights) = l.read_block(b).unwrap();
        assert_eq!(edges.len() as u64, index[b + 1] - index[b], "{ctx}");
        assert_eq!(weights.is_some(), st.test.weights.is_some(), "{ctx}");
        let (row, col) = ((b as u64) / u64::from(cols), (b as u64) % u64::from(cols));
        for (i, &(s, d)) in edges.iter().enumerate() {
            assert_eq!(u64::from(s) / row_len, row, "{ctx}: block {b} edge {s}->{d}");
            assert_eq!(u64::from(d) / col_len, col, "{ctx}: block {b} edge {s}->{d}");
            got.push((s, d, weights.as_ref().map_or(0, |w| w[i].to_bits())));
        }
        check_order(&ctx, b, sort, &edges, weights.as_deref());
    }
    got.sort_unstable();
    assert_eq!(got, model_arcs(&st.test), "{ctx}: arcs differ from the graph's");
}

/// The order inside one block.
fn check_order(ctx: &str, b: usize, sort: &GridSort, edges: &[(u32, u32)], weights: Option<&[f32]>) {
    let w = |i: usize| weights.map_or(1.0, |w| w[i]);
    for i in 1..edges.len() {
        let (a, c) = (edges[i - 1], edges[i]);
        let ok = match sort {
            GridSort::Grid | GridSort::Source => a <= c,
            GridSort::Destination => (a.1, a.0) <= (c.1, c.0),
            GridSort::Key(_) => {
                let (ka, kc) = (test_key(a.0, a.1, w(i - 1)), test_key(c.0, c.1, w(i)));
                ka.total_cmp(&kc).then((a.0, a.1).cmp(&(c.0, c.1))).is_le()
            }
        };
        assert!(ok, "{ctx}: block {b} out of {sort} order at {i}: {a:?} then {c:?}");
    }
}

fn opts(p: u32, memory: u64, force: bool) -> PartitionOptions {
    PartitionOptions {
        grid: Some(p),
        memory,
        force,
        compress: None,
    }
}

#[test]
fn layouts_hold_the_graphs_arcs_in_order() {
    let orders = [SortOrder::Grid, SortOrder::Source, SortOrder::Destination];
    for st in seeded(true) {
        for p in [1u32, 4, 16] {
            for order in orders {
                let s = partition(&st.path, order, &opts(p, 1 << 30, false), &mut NoProgress)
                    .unwrap_or_else(|e| panic!("{}: {e:#}", st.name));
                let sort = order.grid_sort();
                assert_eq!(s.name, sort.layout_name(p));
                assert_eq!(s.num_arcs, st.test.num_arcs() as u64);
                check_layout(&st, &s.name, &sort, p);
                let g = GraphDir::open(&st.path).unwrap();
                assert_eq!(g.layout(&s.name).unwrap().bytes_on_disk(), s.bytes_written);
            }
            let s = partition_with_key(&st.path, "mixed", test_key, &opts(p, 1 << 30, false), &mut NoProgress)
                .unwrap_or_else(|e| panic!("{}: {e:#}", st.name));
            check_layout(&st, &s.name, &GridSort::Key("mixed".into()), p);
        }
        let r = verify(&st.path).unwrap_or_else(|e| panic!("{}: {e}", st.name));
        assert_eq!(r.layouts_checked, 12, "{}", st.name);
    }
}

#[test]
fn compressed_layouts_hold_the_graphs_arcs_and_refuse_damage() {
    let orders = [SortOrder::Grid, SortOrder::Source, SortOrder::Destination];
    let coded = |p: u32| PartitionOptions {
        compress: Some(Codec::Vbyte),
        ..opts(p, 1 << 20, false)
    };
    for st in seeded(true) {
        for p in [1u32, 4] {
            for order in orders {
                let s = partition(&st.path, order, &coded(p), &mut NoProgress)
                    .unwrap_or_else(|e| panic!("{}: {e:#}", st.name));
                let sort = order.grid_sort();
                assert_eq!(s.name, format!("{}-vbyte", sort.layout_name(p)));
                check_layout_coded(&st, &s.name, &sort, p, Some(Codec::Vbyte));
                assert!(!s.path.join(GRID_EDGES).exists(), "{}: the plain edges stayed", s.name);
                let plain = partition(&st.path, order, &opts(p, 1 << 20, false), &mut NoProgress).unwrap();
                let weights = |dir: &Path| std::fs::read(dir.join(GRID_WEIGHTS)).ok();
                assert_eq!(weights(&s.path), weights(&plain.path), "{}", s.name);
                let g = GraphDir::open(&st.path).unwrap();
                let packed = GridLayout::open(&g, &s.name).unwrap().meta().files[GRID_PACKED].len;
                let arcs = st.test.num_arcs() as u64;
                assert!(
                    arcs < 100 || packed < arcs * 8,
                    "{}: {packed} bytes, no smaller",
                    s.name
                );
            }
        }
        let r = verify(&st.path).unwrap_or_else(|e| panic!("{}: {e}", st.name));
        assert_eq!(r.layouts_checked, 12, "{}", st.name);
        let err = partition_with_key(&st.path, "mixed", test_key, &coded(4), &mut NoProgress).unwrap_err();
        assert!(format!("{err:#}").contains("not compressed"), "{err:#}");
    }
    // A damaged block: an error naming edges.packed and the block, from the reader and verify.
    let st = big();
    let s = partition(&st.path, SortOrder::Grid, &coded(4), &mut NoProgress).unwrap();
    let g = GraphDir::open(&st.path).unwrap();
    let l = GridLayout::open(&g, &s.name).unwrap();
    let b = (0..l.num_blocks()).max_by_key(|&b| l.block_len(b)).unwrap();
    let at = l.block_bytes(b).start + 1;
    let path = s.path.join(GRID_PACKED);
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[at as usize] ^= 0x5a;
    std::fs::write(&path, &bytes).unwrap();
    let err = l.read_block(b).unwrap_err().to_string();
    assert!(
        err.contains(GRID_PACKED) && err.contains(&format!("block {b}")),
        "{err}"
    );
    let err = verify(&st.path).unwrap_err().to_string();
    assert!(err.contains(GRID_PACKED), "{err}");
}

fn read_files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    [GRID_EDGES, GRID_WEIGHTS, GRID_INDEX]
        .into_iter()
        .filter_map(|f| std::fs::read(dir.join(f)).ok().map(|b| (f.to_string(), b)))
        .collect()
}

/// A graph far bigger than the smallest budget: 2^13 vertices, ~120 000 weighted arcs with hubs.
fn big() -> Stored {
    let el = gen::with_weights(gen::rmat(13, 60_000, false, 7), Weights::Uniform(0.0, 5.0), 7);
    store("rmat13", &el, Keep::default())
}

#[test]
fn a_tiny_budget_streams_and_gives_identical_files() {
    let st = big();
    let edges_bytes = st.test.num_arcs() as u64 * 8;
    for order in [SortOrder::Grid, SortOrder::Source, SortOrder::Destination] {
        for p in [1u32, 4, 16] {
            let roomy = partition(&st.path, order, &opts(p, 1 << 30, true), &mut NoProgress).unwrap();
            let want = read_files(&roomy.path);
            let tight = partition(&st.path, order, &opts(p, 1, true), &mut NoProgress).unwrap();
            assert!(
                tight.peak_memory < edges_bytes,
                "{order:?} P={p}: planned {} bytes for {edges_bytes} bytes of edges",
                tight.peak_memory
            );
            assert_eq!(read_files(&tight.path), want, "{order:?} P={p}");
            check_layout(&st, &tight.name, &order.grid_sort(), p);
        }
    }
    let key = |s: u32, d: u32, _| f64::from(d) - f64::from(s);
    let roomy = partition_with_key(&st.path, "diff", key, &opts(4, 1 << 30, false), &mut NoProgress).unwrap();
    assert_eq!(roomy.scratch_bytes, 0, "the roomy key sort spilled");
    let want = read_files(&roomy.path);
    let tight = partition_with_key(&st.path, "diff", key, &opts(4, 1, true), &mut NoProgress).unwrap();
    assert!(tight.scratch_bytes > 0, "the tight key sort never spilled");
    assert_eq!(read_files(&tight.path), want);
    verify(&st.path).unwrap();
}

#[test]
fn key_order_breaks_ties_by_source_and_destination() {
    let el = gen::with_weights(gen::gnm(30, 200, true, 3), Weights::Integer(2), 3);
    let st = store("ties", &el, Keep::all());
    let s = partition_with_key(
        &st.path,
        "by_weight",
        |_, _, w| f64::from(w),
        &opts(2, 1 << 20, false),
        &mut NoProgress,
    )
    .unwrap();
    let g = GraphDir::open(&st.path).unwrap();
    let l = GridLayout::open(&g, &s.name).unwrap();
    for b in 0..l.num_blocks() {
        let (edges, weights) = l.read_block(b).unwrap();
        let w = weights.unwrap();
        let keys: Vec<(u32, u32, u32)> = edges.iter().zip(&w).map(|(e, w)| (*w as u32, e.0, e.1)).collect();
        assert!(keys.windows(2).all(|k| k[0] <= k[1]), "block {b}: {keys:?}");
    }
    assert_eq!(s.name, "grid-2-by_weight");
    assert!(partition_with_key(
        &st.path,
        "source",
        |_, _, _| 0.0,
        &opts(2, 1 << 20, false),
        &mut NoProgress
    )
    .is_err());
    assert!(partition_with_key(
        &st.path,
        "Bad Name",
        |_, _, _| 0.0,
        &opts(2, 1 << 20, false),
        &mut NoProgress
    )
    .is_err());
}

#[test]
fn default_grid_comes_from_the_budget() {
    let st = big();
    let n = st.test.num_vertices as u64;
    for memory in [1u64 << 30, 64 << 10, 4 << 10] {
        let o = PartitionOptions {
            grid: None,
            memory,
            force: true,
            compress: None,
        };
        let s = partition(&st.path, SortOrder::Grid, &o, &mut NoProgress).unwrap();
        assert!(s.grid_from_budget);
        assert_eq!(s.rows, default_grid(n, memory));
        assert!(s.rows.is_power_of_two());
        assert!(n.div_ceil(u64::from(s.rows)) * 8 <= memory / 16 || s.rows == 256);
        check_layout(&st, &s.name, &GridSort::Grid, s.rows);
    }
    assert_eq!(default_grid(n, 1 << 30), 1);
    assert_eq!(default_grid(n, 64 << 10), 16);
}

#[test]
fn existing_layouts_need_force_and_failures_leave_nothing() {
    let el = gen::gnm(50, 200, true, 1);
    let st = store("small", &el, Keep::default());
    let before = entries(&st.path);
    partition(&st.path, SortOrder::Grid, &opts(4, 1 << 20, false), &mut NoProgress).unwrap();
    let err = partition(&st.path, SortOrder::Grid, &opts(4, 1 << 20, false), &mut NoProgress).unwrap_err();
    assert!(format!("{err:#}").contains("grid-4"), "{err:#}");
    assert!(format!("{err:#}").contains("already exists"), "{err:#}");
    partition(&st.path, SortOrder::Grid, &opts(4, 1 << 20, true), &mut NoProgress).unwrap();
    for bad in [0, diskgraph_format::MAX_GRID + 1] {
        let err = partition(&st.path, SortOrder::Grid, &opts(bad, 1 << 20, false), &mut NoProgress).unwrap_err();
        assert!(format!("{err:#}").contains("--grid"), "{err:#}");
    }
    let mut after = before.clone();
    after.push("grid-4.v1".into());
    after.sort();
    assert_eq!(entries(&st.path), after, "temporary files left behind");
    let missing = st.path.join("nope");
    let err = partition(&missing, SortOrder::Grid, &opts(4, 1 << 20, false), &mut NoProgress).unwrap_err();
    assert!(format!("{err:#}").contains("nope"), "{err:#}");
    verify(&st.path).unwrap();
}

#[test]
fn a_corrupt_graph_is_an_error_not_a_layout() {
    let el = gen::gnm(40, 300, true, 2);
    let st = store("corrupt", &el, Keep::default());
    let adj = st.path.join("in.adj");
    let mut bytes = std::fs::read(&adj).unwrap();
    bytes[0..4].copy_from_slice(&1000u32.to_le_bytes());
    std::fs::write(&adj, &bytes).unwrap();
    let err = partition(
        &st.path,
        SortOrder::Destination,
        &opts(4, 1 << 20, false),
        &mut NoProgress,
    )
    .unwrap_err();
    assert!(format!("{err:#}").contains("in.adj"), "{err:#}");
    assert!(GraphDir::open(&st.path).unwrap().layouts().is_empty());
    assert!(
        !entries(&st.path).iter().any(|e| e.starts_with('.')),
        "{:?}",
        entries(&st.path)
    );
}

fn entries(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}
