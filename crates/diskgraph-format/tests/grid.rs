//! Grid layouts: a reference writer built here (independently of the partitioner), the open
//! checks, verify's content checks against deliberately wrong layouts, corruption, and the
//! publishing rules (existing layouts, replacement, leftovers of crashed runs); the manifest's
//! layout records (what publishing records, manifests that list bare names, records that
//! disagree with a layout's metadata).

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use diskgraph_format::{
    publish_basc, verify, verify_grid, BascInfo, BascRecord, BascSelection, Direction, FormatError, GraphBuilder,
    GraphDir, GridLayout, GridMeta, GridRecord, GridShape, GridSort, LayoutBuilder, LayoutKind, LayoutRecord,
    GRID_EDGES, GRID_INDEX, GRID_META, GRID_WEIGHTS, MANIFEST,
};
use proptest::prelude::*;

/// An arc with its weight.
type Arc = (u32, u32, f32);

/// Writes a graph with the given arcs (sorted here; both directions added when undirected).
fn write_graph(path: &Path, n: u64, arcs: &[Arc], directed: bool, weighted: bool) -> Vec<Arc> {
    let mut arcs = arcs.to_vec();
    if !directed {
        let rev: Vec<Arc> = arcs.iter().filter(|a| a.0 != a.1).map(|&(u, v, w)| (v, u, w)).collect();
        arcs.extend(rev);
    }
    arcs.sort_by_key(|a| (a.0, a.1));
    if !weighted {
        arcs.iter_mut().for_each(|a| a.2 = 1.0);
    }
    let b = GraphBuilder::create(path, false).unwrap();
    let mut files = Vec::new();
    let mut out = b.csr("out", n, weighted).unwrap();
    for &(u, v, w) in &arcs {
        out.push(u, v, weighted.then_some(w)).unwrap();
    }
    files.extend(out.finish().unwrap());
    if directed {
        let mut rev: Vec<Arc> = arcs.iter().map(|&(u, v, w)| (v, u, w)).collect();
        rev.sort_by_key(|a| (a.0, a.1));
        let mut inn = b.csr("in", n, weighted).unwrap();
        for &(u, v, w) in &rev {
            inn.push(u, v, weighted.then_some(w)).unwrap();
        }
        files.extend(inn.finish().unwrap());
    }
    let loops = arcs.iter().filter(|a| a.0 == a.1).count() as u64;
    let a = arcs.len() as u64;
    let m = common::manifest(n, a, loops, directed, weighted, files);
    b.publish(&m).unwrap();
    arcs
}

/// The blocks of a correct layout, computed the plain way.
fn blocks_for(n: u64, arcs: &[Arc], sort: &GridSort, rows: u32) -> Vec<Vec<Arc>> {
    let p = u64::from(rows);
    let cols = if *sort == GridSort::Source { 1 } else { p };
    let (row_len, col_len) = (n.div_ceil(p), n.div_ceil(cols));
    let mut blocks = vec![Vec::new(); (p * cols) as usize];
    for &a in arcs {
        let b = u64::from(a.0) / row_len * cols + u64::from(a.1) / col_len;
        blocks[b as usize].push(a);
    }
    for b in &mut blocks {
        match sort {
            GridSort::Destination => b.sort_by_key(|a| (a.1, a.0)),
            _ => b.sort_by_key(|a| (a.0, a.1)),
        }
    }
    blocks
}

/// Raw layout content: edges, weights, index.
struct Raw {
    edges: Vec<u32>,
    weights: Vec<f32>,
    index: Vec<u64>,
}

fn raw(blocks: &[Vec<Arc>]) -> Raw {
    let mut r = Raw {
        edges: Vec::new(),
        weights: Vec::new(),
        index: vec![0],
    };
    for b in blocks {
        for &(s, d, w) in b {
            r.edges.extend([s, d]);
            r.weights.push(w);
        }
        r.index.push(r.weights.len() as u64);
    }
    r
}

/// Publishes a layout with exactly the given content.
fn write_raw(g: &GraphDir, sort: GridSort, rows: u32, r: &Raw, force: bool) -> Result<PathBuf, FormatError> {
    let b = LayoutBuilder::create(g, &sort.layout_name(rows), force)?;
    let meta = fill(&b, g, sort, rows, r)?;
    b.publish(&meta)
}

/// Writes the given content into a builder and returns the metadata to publish it with.
fn fill(b: &LayoutBuilder, g: &GraphDir, sort: GridSort, rows: u32, r: &Raw) -> Result<GridMeta, FormatError> {
    let mut files = BTreeMap::new();
    let mut put = |name: &str, bytes: &[u8]| -> Result<(), FormatError> {
        let mut f = b.positioned(name, bytes.len() as u64)?;
        // Two halves, the second first: exercises the read-back checksum.
        let half = bytes.len() / 2;
        f.write_at(half as u64, &bytes[half..])?;
        f.write_at(0, &bytes[..half])?;
        files.extend([f.finish()?]);
        Ok(())
    };
    put(GRID_EDGES, bytemuck::cast_slice(&r.edges))?;
    if g.manifest().weighted {
        put(GRID_WEIGHTS, bytemuck::cast_slice(&r.weights))?;
    }
    put(GRID_INDEX, bytemuck::cast_slice(&r.index))?;
    Ok(GridMeta::new(g.manifest(), sort, rows, None, files))
}

/// The names of the layouts `g` lists, in the manifest's order.
fn names(g: &GraphDir) -> Vec<String> {
    g.layouts().iter().map(|l| l.name().to_string()).collect()
}

/// Pages of 4096 bytes that `len` bytes take.
fn n_pages(len: u64) -> u64 {
    len.div_ceil(4096)
}

/// A graph in a temporary directory with a correct layout of each given kind.
struct Fixture {
    _dir: tempfile::TempDir,
    path: PathBuf,
    arcs: Vec<Arc>,
    n: u64,
}

impl Fixture {
    fn new(n: u64, arcs: &[Arc], directed: bool, weighted: bool) -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("g");
        let arcs = write_graph(&path, n, arcs, directed, weighted);
        Fixture {
            _dir: dir,
            path,
            arcs,
            n,
        }
    }

    fn graph(&self) -> GraphDir {
        GraphDir::open(&self.path).unwrap()
    }

    fn layout(&self, sort: GridSort, rows: u32) -> PathBuf {
        let blocks = blocks_for(self.n, &self.arcs, &sort, rows);
        write_raw(&self.graph(), sort, rows, &raw(&blocks), false).unwrap()
    }
}

fn small() -> Fixture {
    let arcs: Vec<Arc> = (0..40u32).map(|i| (i * 7 % 23, i * 11 % 23, i as f32 * 0.5)).collect();
    Fixture::new(23, &arcs, true, true)
}

fn sorts() -> [GridSort; 4] {
    [
        GridSort::Grid,
        GridSort::Source,
        GridSort::Destination,
        GridSort::Key("by_weight".into()),
    ]
}

fn graph_strategy() -> impl Strategy<Value = (u64, Vec<Arc>, bool, bool)> {
    (1u64..50).prop_flat_map(|n| {
        let arc = (0..n as u32, 0..n as u32, -3.0f32..3.0);
        (
            Just(n),
            prop::collection::vec(arc, 0..200),
            any::<bool>(),
            any::<bool>(),
        )
    })
}

fn sort_strategy() -> impl Strategy<Value = GridSort> {
    prop_oneof![
        Just(GridSort::Grid),
        Just(GridSort::Source),
        Just(GridSort::Destination)
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// A correct layout opens, reads back block by block, and verifies.
    #[test]
    fn correct_layouts_open_read_and_verify(
        (n, arcs, directed, weighted) in graph_strategy(),
        sort in sort_strategy(),
        rows in 1u32..20,
    ) {
        let f = Fixture::new(n, &arcs, directed, weighted);
        let path = f.layout(sort.clone(), rows);
        prop_assert_eq!(path, f.path.join(sort.layout_name(rows)));
        let g = f.graph();
        prop_assert_eq!(names(&g), vec![sort.layout_name(rows)]);
        let cols = sort.cols_for(rows);
        let bytes = 4096 * (n_pages(f.arcs.len() as u64 * 8)
            + if weighted { n_pages(f.arcs.len() as u64 * 4) } else { 0 }
            + n_pages((u64::from(rows) * u64::from(cols) + 1) * 8));
        let want = LayoutRecord::Grid(GridRecord {
            name: sort.layout_name(rows),
            sort: sort.clone(),
            rows,
            cols,
            num_arcs: f.arcs.len() as u64,
            weighted,
            compressed: None,
            bytes_on_disk: bytes,
            generation: 0,
        });
        prop_assert_eq!(g.layout(&sort.layout_name(rows)), Some(&want));
        let l = GridLayout::open(&g, &sort.layout_name(rows)).unwrap();
        let blocks = blocks_for(n, &f.arcs, &sort, rows);
        prop_assert_eq!(l.num_blocks(), blocks.len());
        for (b, want) in blocks.iter().enumerate() {
            let (edges, weights) = l.read_block(b).unwrap();
            let pairs: Vec<(u32, u32)> = want.iter().map(|a| (a.0, a.1)).collect();
            prop_assert_eq!(edges, pairs);
            let ws: Vec<f32> = want.iter().map(|a| a.2).collect();
            prop_assert_eq!(weights, weighted.then_some(ws));
            prop_assert_eq!(l.block_len(b), want.len() as u64);
        }
        let r = verify(&f.path).unwrap();
        prop_assert_eq!(r.layouts_checked, 1);
    }

    /// Layouts whose files are internally consistent (sizes, checksums, index) but whose content
    /// is wrong are caught by verify, naming the file.
    #[test]
    fn wrong_content_fails_verify(
        (n, arcs, directed, weighted) in graph_strategy(),
        sort in sort_strategy(),
        rows in 1u32..8,
        fault in 0usize..4,
        pick in any::<prop::sample::Index>(),
    ) {
        let f = Fixture::new(n, &arcs, directed, weighted);
        prop_assume!(!f.arcs.is_empty());
        let mut blocks = blocks_for(n, &f.arcs, &sort, rows);
        let filled: Vec<usize> = (0..blocks.len()).filter(|&b| !blocks[b].is_empty()).collect();
        let b = filled[pick.index(filled.len())];
        let key = |x: &Arc| if sort == GridSort::Destination { (x.1, x.0) } else { (x.0, x.1) };
        let expect = match fault {
            // One weight changed.
            0 => {
                prop_assume!(weighted);
                blocks[b][0].2 += 1.0;
                "differ from the graph"
            }
            // Two arcs of a block out of order.
            1 => {
                let i = blocks[b].windows(2).position(|w| key(&w[0]) < key(&w[1]));
                prop_assume!(i.is_some());
                let i = i.unwrap();
                blocks[b].swap(i, i + 1);
                "order"
            }
            // An arc moved into the next block (outside that block's ranges).
            2 => {
                prop_assume!(blocks.len() > 1);
                let a = blocks[b].remove(0);
                let other = (b + 1) % blocks.len();
                blocks[other].insert(0, a);
                "outside its ranges"
            }
            // An arc overwritten by a copy of its predecessor: same counts, order kept.
            _ => {
                prop_assume!(blocks[b].len() > 1 && blocks[b][0] != blocks[b][1]);
                blocks[b][1] = blocks[b][0];
                "differ from the graph"
            }
        };
        write_raw(&f.graph(), sort.clone(), rows, &raw(&blocks), false).unwrap();
        let err = verify(&f.path).unwrap_err();
        let msg = err.to_string();
        prop_assert!(msg.contains(&format!("{}/{}", sort.layout_name(rows), GRID_EDGES)), "{}", msg);
        prop_assert!(msg.contains(expect), "expected {:?}: {}", expect, msg);
    }
}

#[test]
fn every_sort_and_key_layout_verifies_together() {
    let f = small();
    for s in sorts() {
        f.layout(s, 3);
    }
    let g = f.graph();
    assert_eq!(g.layouts_of(LayoutKind::Grid).count(), 4);
    assert_eq!(g.layouts_of(LayoutKind::Basc).count(), 0);
    let r = verify(&f.path).unwrap();
    assert_eq!(r.layouts_checked, 4);
    let l = GridLayout::open(&g, "grid-3-source").unwrap();
    assert_eq!((l.rows(), l.cols(), l.row_len(), l.col_len()), (3, 1, 8, 23));
    assert_eq!(l.source_range(2), 16..23);
    assert_eq!(l.destination_range(2), 0..23);
    let k = GridLayout::open(&g, "grid-3-by_weight").unwrap();
    assert_eq!(k.sort(), &GridSort::Key("by_weight".into()));
    assert_eq!(k.shape().block_position(5), (1, 2));
    assert_eq!(k.source_range(5), 8..16);
    assert_eq!(k.destination_range(5), 16..23);
    assert!(k.weights_path().is_some());
}

#[test]
fn ranges_past_the_last_vertex_are_empty() {
    let f = Fixture::new(3, &[(0, 2, 1.0), (2, 1, 1.0)], true, false);
    f.layout(GridSort::Grid, 16);
    let g = f.graph();
    let l = GridLayout::open(&g, "grid-16").unwrap();
    assert_eq!(l.row_len(), 1);
    assert_eq!(l.source_range(l.shape().block(5, 0)), 3..3);
    assert_eq!(l.read_block(l.shape().block_of(2, 1)).unwrap().0, vec![(2, 1)]);
    assert_eq!(l.weights_path(), None);
    verify(&f.path).unwrap();
}

#[test]
fn flipped_byte_fails_verify_naming_the_file() {
    for file in [GRID_EDGES, GRID_WEIGHTS, GRID_INDEX] {
        let f = small();
        let dir = f.layout(GridSort::Grid, 4);
        let p = dir.join(file);
        let mut bytes = std::fs::read(&p).unwrap();
        bytes[5] ^= 0x40;
        std::fs::write(&p, &bytes).unwrap();
        let err = verify(&f.path).unwrap_err();
        assert!(
            matches!(err, FormatError::Checksum { .. } | FormatError::Index { .. }),
            "{err}"
        );
        assert!(err.to_string().contains(&format!("grid-4/{file}")), "{err}");
    }
    // A non-zero byte in the padding.
    let f = small();
    let p = f.layout(GridSort::Grid, 4).join(GRID_EDGES);
    let mut bytes = std::fs::read(&p).unwrap();
    *bytes.last_mut().unwrap() = 1;
    std::fs::write(&p, &bytes).unwrap();
    assert!(matches!(verify(&f.path), Err(FormatError::Padding { .. })));
}

#[test]
fn truncated_or_bad_index_fails_open_without_panic() {
    let f = small();
    let dir = f.layout(GridSort::Grid, 4);
    let p = dir.join(GRID_INDEX);
    let file = std::fs::OpenOptions::new().write(true).open(&p).unwrap();
    file.set_len(100).unwrap();
    let err = GridLayout::open(&f.graph(), "grid-4").unwrap_err();
    assert!(matches!(err, FormatError::FileSize { .. }), "{err}");
    assert!(err.to_string().contains("blocks.idx"), "{err}");
    file.set_len(0).unwrap();
    assert!(GridLayout::open(&f.graph(), "grid-4").is_err());
    assert!(verify(&f.path).is_err());

    // Consistent size and checksum, but decreasing or not ending at num_arcs.
    let g = f.graph();
    let blocks = blocks_for(f.n, &f.arcs, &GridSort::Grid, 2);
    for bad in 0..3 {
        let mut r = raw(&blocks);
        match bad {
            0 => r.index[2] = r.index[1].wrapping_sub(1),
            1 => r.index[0] = 1,
            _ => *r.index.last_mut().unwrap() += 1,
        }
        write_raw(&g, GridSort::Grid, 2, &r, true).unwrap();
        let err = GridLayout::open(&f.graph(), "grid-2").unwrap_err();
        assert!(matches!(err, FormatError::Index { .. }), "{err}");
        let dir = f.graph().layout("grid-2").unwrap().dir_name();
        assert!(err.to_string().contains(&format!("{dir}/blocks.idx")), "{err}");
    }
}

/// Rewrites the graph's manifest through a JSON edit.
fn edit_manifest(graph: &Path, edit: impl FnOnce(&mut serde_json::Value)) {
    let p = graph.join(MANIFEST);
    let mut v: serde_json::Value = serde_json::from_slice(&std::fs::read(&p).unwrap()).unwrap();
    edit(&mut v);
    std::fs::write(&p, serde_json::to_vec_pretty(&v).unwrap()).unwrap();
}

/// Rewrites a layout's grid.json through a JSON edit.
fn edit_meta(layout: &Path, edit: impl FnOnce(&mut serde_json::Value)) {
    let p = layout.join(GRID_META);
    let mut v: serde_json::Value = serde_json::from_slice(&std::fs::read(&p).unwrap()).unwrap();
    edit(&mut v);
    std::fs::write(&p, serde_json::to_vec_pretty(&v).unwrap()).unwrap();
}

#[test]
fn listed_layout_missing_on_disk_is_an_error_naming_it() {
    let f = small();
    let dir = f.layout(GridSort::Grid, 4);
    std::fs::remove_dir_all(&dir).unwrap();
    let g = f.graph();
    let err = GridLayout::open(&g, "grid-4").unwrap_err();
    assert!(err.to_string().contains("grid-4/grid.json"), "{err}");
    let err = verify(&f.path).unwrap_err();
    assert!(err.to_string().contains("grid-4/grid.json"), "{err}");
    // Not listed: not a layout, whatever is on disk.
    let err = GridLayout::open(&g, "grid-8").unwrap_err();
    assert!(err.to_string().contains("not listed"), "{err}");
}

#[test]
fn bad_layout_names_in_the_manifest_are_rejected() {
    for bad in [
        serde_json::json!(["../x"]),
        serde_json::json!([".grid-4.tmp-1-2"]),
        serde_json::json!(["grid-4", "grid-4"]),
        serde_json::json!(["out.adj"]),
        serde_json::json!([""]),
    ] {
        let f = small();
        edit_manifest(&f.path, |v| v["layouts"] = bad.clone());
        let err = GraphDir::open(&f.path).unwrap_err();
        assert!(matches!(err, FormatError::Manifest { .. }), "{bad}: {err}");
    }
    // A bare name whose directory holds no kind's metadata, and a kind this build does not
    // know: the graph does not open.
    for bad in [
        serde_json::json!(["shards-4"]),
        serde_json::json!([{ "kind": "vshards", "name": "shards-4" }]),
    ] {
        let f = small();
        edit_manifest(&f.path, |v| v["layouts"] = bad.clone());
        let err = GraphDir::open(&f.path).unwrap_err();
        assert!(matches!(err, FormatError::Manifest { .. }), "{bad}: {err}");
        assert!(err.to_string().contains("shards"), "{bad}: {err}");
        assert!(verify(&f.path).is_err());
    }
}

#[test]
fn inconsistent_metadata_fails_open() {
    type Edit = Box<dyn Fn(&mut serde_json::Value)>;
    let edits: Vec<(&str, Edit)> = vec![
        ("disagree with the graph", Box::new(|v| v["num_arcs"] = 39.into())),
        ("disagree with the graph", Box::new(|v| v["num_vertices"] = 24.into())),
        ("range lengths", Box::new(|v| v["row_len"] = 5.into())),
        ("columns", Box::new(|v| v["cols"] = 1.into())),
        ("not grid-4", Box::new(|v| v["sort"] = "destination".into())),
        ("unknown sort", Box::new(|v| v["sort"] = "sideways".into())),
        ("unknown field", Box::new(|v| v["extra"] = 1.into())),
        ("version", Box::new(|v| v["version"] = 2.into())),
        ("each side", Box::new(|v| v["rows"] = 0.into())),
        (
            "out.adj has xxh3",
            Box::new(|v| v["graph_out_adj"] = "0123456789abcdef".into()),
        ),
        ("not listed", Box::new(|v| v["files"]["weights.f32"]["len"] = 4.into())),
        (
            "malformed checksum",
            Box::new(|v| v["files"]["edges.bin"]["xxh3"] = "zz".into()),
        ),
        (
            "unexpected file",
            Box::new(|v| v["files"]["x.bin"] = v["files"]["edges.bin"].clone()),
        ),
    ];
    for (expect, edit) in edits {
        let f = small();
        let dir = f.layout(GridSort::Grid, 4);
        edit_meta(&dir, |v| {
            if expect == "not listed" {
                v["files"].as_object_mut().unwrap().remove("weights.f32");
            } else {
                edit(v)
            }
        });
        let err = GridLayout::open(&f.graph(), "grid-4").unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("grid-4/grid.json"), "{expect}: {msg}");
        assert!(msg.contains(expect), "{expect}: {msg}");
    }
}

#[test]
fn existing_layout_needs_force_and_force_replaces() {
    let f = small();
    f.layout(GridSort::Grid, 4);
    let g = f.graph();
    let err = LayoutBuilder::create(&g, "grid-4", false).err().unwrap();
    assert!(matches!(err, FormatError::Exists { .. }), "{err}");
    assert!(err.to_string().contains("grid-4"), "{err}");
    assert!(f.path.join("grid-4").join(GRID_META).exists());
    let blocks = blocks_for(f.n, &f.arcs, &GridSort::Grid, 4);
    // The replacement is the layout's next generation; the one it replaced is removed.
    write_raw(&g, GridSort::Grid, 4, &raw(&blocks), true).unwrap();
    assert_eq!(names(&f.graph()), ["grid-4"]);
    assert_eq!(f.graph().layout("grid-4").unwrap().generation(), 1);
    assert_eq!(
        GridLayout::open(&f.graph(), "grid-4").unwrap().path(),
        f.path.join("grid-4.v1")
    );
    verify(&f.path).unwrap();
    write_raw(&g, GridSort::Grid, 4, &raw(&blocks), true).unwrap();
    assert_eq!(f.graph().layout("grid-4").unwrap().dir_name(), "grid-4.v2");
    let want = [
        "grid-4.v2",
        "in.adj",
        "in.idx",
        "in.wgt",
        "manifest.json",
        "out.adj",
        "out.idx",
        "out.wgt",
    ];
    assert_eq!(entries(&f.path), want.map(String::from).into_iter().collect());
}

#[test]
fn a_concurrent_publisher_of_the_same_name_loses_cleanly() {
    let f = small();
    let g = f.graph();
    let first = LayoutBuilder::create(&g, "grid-2", false).unwrap();
    let tmp = first.dir().to_path_buf();
    let meta = fill(
        &first,
        &g,
        GridSort::Grid,
        2,
        &raw(&blocks_for(f.n, &f.arcs, &GridSort::Grid, 2)),
    )
    .unwrap();
    f.layout(GridSort::Grid, 2);
    let err = first.publish(&meta).unwrap_err();
    assert!(matches!(err, FormatError::Exists { .. }), "{err}");
    assert!(!tmp.exists(), "temporary directory left behind");
    verify(&f.path).unwrap();
}

fn entries(dir: &Path) -> std::collections::BTreeSet<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect()
}

#[test]
fn leftovers_of_crashed_runs_are_ignored_then_removed() {
    let f = small();
    f.layout(GridSort::Grid, 4);
    let stale = [".grid-8.tmp-999999999-1", ".grid-4.old-999999999-2"];
    for s in stale {
        std::fs::create_dir(f.path.join(s)).unwrap();
        std::fs::write(f.path.join(s).join(GRID_EDGES), b"junk").unwrap();
    }
    std::fs::write(f.path.join(".manifest.json.tmp-999999999-3"), b"{").unwrap();
    // A layout directory renamed into place whose manifest update never happened.
    std::fs::create_dir(f.path.join("grid-2")).unwrap();
    let ours = f.path.join(format!(".grid-9.tmp-{}-4", std::process::id()));
    std::fs::create_dir(&ours).unwrap();

    let g = f.graph();
    assert_eq!(names(&g), ["grid-4"]);
    verify(&f.path).unwrap();
    assert!(GridLayout::open(&g, ".grid-8.tmp-999999999-1").is_err());
    assert!(GridLayout::open(&g, "grid-2").is_err());

    // The next publish removes dead writers' leftovers (not this process's) and replaces the
    // unlisted grid-2 without --force.
    f.layout(GridSort::Grid, 2);
    let left = entries(&f.path);
    for s in stale {
        assert!(!left.contains(s), "{s} not removed: {left:?}");
    }
    assert!(!left.contains(".manifest.json.tmp-999999999-3"));
    assert!(ours.exists(), "a live writer's directory was removed");
    assert_eq!(names(&f.graph()), ["grid-2", "grid-4"]);
    verify(&f.path).unwrap();
}

#[test]
fn dropped_builder_removes_its_directory() {
    let f = small();
    let g = f.graph();
    let b = LayoutBuilder::create(&g, "grid-4", false).unwrap();
    let tmp = b.dir().to_path_buf();
    assert!(tmp.exists());
    drop(b);
    assert!(!tmp.exists());
    assert!(LayoutBuilder::create(&g, "../evil", false).is_err());
    assert!(LayoutBuilder::create(&g, ".hidden", false).is_err());
}

#[test]
fn layout_of_another_graph_with_the_same_counts_is_refused() {
    let a = small();
    let dir = a.layout(GridSort::Grid, 4);
    let other: Vec<Arc> = a.arcs.iter().map(|&(s, d, w)| (d, s, w)).collect();
    let b = Fixture::new(23, &other, true, true);
    let target = b.path.join("grid-4");
    std::fs::create_dir(&target).unwrap();
    for e in std::fs::read_dir(&dir).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), target.join(e.file_name())).unwrap();
    }
    edit_manifest(&b.path, |v| v["layouts"] = serde_json::json!(["grid-4"]));
    let err = verify_grid(&b.graph(), "grid-4").unwrap_err();
    assert!(err.to_string().contains("out.adj has xxh3"), "{err}");
}

#[test]
fn shape_arithmetic() {
    let s = GridShape::new(10, 4, 4);
    assert_eq!((s.row_len(), s.col_len(), s.num_blocks()), (3, 3, 16));
    assert_eq!(s.row_range(3), 9..10);
    assert_eq!(s.block_of(9, 0), 12);
    assert_eq!(s.block_position(13), (3, 1));
    let s = GridShape::new(u64::from(u32::MAX) + 1, 3, 1);
    assert_eq!(s.row_of(u32::MAX), 2);
    assert_eq!(s.row_range(2).end, 1 << 32);
    assert_eq!(s.col_range(0), 0..1 << 32);
}

#[test]
fn concurrent_publishers_of_different_layouts_all_land() {
    let f = small();
    let kinds: Vec<(GridSort, u32)> = (1..=6u32)
        .flat_map(|p| [(GridSort::Grid, p), (GridSort::Source, p)])
        .collect();
    std::thread::scope(|scope| {
        for (sort, p) in &kinds {
            let f = &f;
            scope.spawn(move || f.layout(sort.clone(), *p));
        }
    });
    let g = f.graph();
    let mut want: Vec<String> = kinds.iter().map(|(s, p)| s.layout_name(*p)).collect();
    want.sort();
    assert_eq!(names(&g), want);
    assert_eq!(verify(&f.path).unwrap().layouts_checked, kinds.len());
    assert!(
        !entries(&f.path).iter().any(|e| e.starts_with('.')),
        "{:?}",
        entries(&f.path)
    );
}

/// Selects vertices 1, 4 and 7 of the small graph as `basc-few`.
fn select_few(f: &Fixture) -> PathBuf {
    let g = f.graph();
    let out = g.load_csr(Direction::Out, false).unwrap();
    let info = BascInfo {
        method: "highd".into(),
        rounds: None,
        page_bytes: None,
        seed: None,
        budget_bytes: 4096,
        select_seconds: 0.5,
    };
    publish_basc(&g, "few", &info, &[1, 4, 7], &out, false).unwrap()
}

/// The manifest's `layouts` as stored.
fn stored_layouts(graph: &Path) -> serde_json::Value {
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(graph.join(MANIFEST)).unwrap()).unwrap();
    v["layouts"].clone()
}

#[test]
fn publishing_records_each_layout_in_the_manifest() {
    let f = small();
    f.layout(GridSort::Destination, 3);
    select_few(&f);
    let g = f.graph();
    assert_eq!(names(&g), ["basc-few", "grid-3-destination"]);
    let out = g.load_csr(Direction::Out, false).unwrap();
    let edges = [1, 4, 7].iter().map(|&v| out.degree(v) as u64).sum();
    let basc = LayoutRecord::Basc(BascRecord {
        name: "basc-few".into(),
        method: "highd".into(),
        num_selected: 3,
        num_arcs: edges,
        bytes_on_disk: 2 * 4096,
        generation: 0,
    });
    let grid = LayoutRecord::Grid(GridRecord {
        name: "grid-3-destination".into(),
        sort: GridSort::Destination,
        rows: 3,
        cols: 3,
        num_arcs: 40,
        weighted: true,
        compressed: None,
        bytes_on_disk: 3 * 4096,
        generation: 0,
    });
    assert_eq!(g.layouts(), [basc.clone(), grid.clone()]);
    assert_eq!(g.layout("grid-3-destination"), Some(&grid));
    assert_eq!(g.layouts_of(LayoutKind::Basc).collect::<Vec<_>>(), [&basc]);
    assert_eq!(
        stored_layouts(&f.path),
        serde_json::json!([
            { "kind": "basc", "name": "basc-few", "method": "highd", "num_selected": 3,
              "num_arcs": edges, "bytes_on_disk": 8192 },
            { "kind": "grid", "name": "grid-3-destination", "sort": "destination", "rows": 3,
              "cols": 3, "num_arcs": 40, "weighted": true, "bytes_on_disk": 12288 },
        ])
    );
    assert_eq!(verify(&f.path).unwrap().layouts_checked, 2);
}

#[test]
fn manifests_listing_bare_names_open_with_records_from_the_layouts_metadata() {
    let f = small();
    f.layout(GridSort::Grid, 4);
    select_few(&f);
    let records = f.graph().layouts().to_vec();
    edit_manifest(&f.path, |v| v["layouts"] = serde_json::json!(["basc-few", "grid-4"]));
    let g = f.graph();
    assert_eq!(g.layouts(), &records[..]);
    GridLayout::open(&g, "grid-4").unwrap();
    BascSelection::open(&g, "basc-few").unwrap();
    assert_eq!(verify(&f.path).unwrap().layouts_checked, 2);

    // The next publish rewrites the manifest with a record for every layout.
    f.layout(GridSort::Source, 2);
    let stored = stored_layouts(&f.path);
    assert_eq!(stored.as_array().unwrap().len(), 3);
    assert!(stored.as_array().unwrap().iter().all(|l| l.is_object()), "{stored}");
    assert_eq!(names(&f.graph()), ["basc-few", "grid-2-source", "grid-4"]);

    // A bare name whose layout lost its metadata: the error names the layout and what is missing.
    std::fs::remove_file(f.path.join("grid-4").join(GRID_META)).unwrap();
    edit_manifest(&f.path, |v| v["layouts"] = serde_json::json!(["grid-4"]));
    let err = GraphDir::open(&f.path).unwrap_err().to_string();
    assert!(err.contains("grid-4") && err.contains(GRID_META), "{err}");
}

#[test]
fn a_record_that_disagrees_with_the_layouts_metadata_is_refused_naming_the_field() {
    let changes = [
        ("grid-4", "rows", serde_json::json!(8)),
        ("grid-4", "cols", serde_json::json!(1)),
        ("grid-4", "sort", serde_json::json!("source")),
        ("grid-4", "num_arcs", serde_json::json!(41)),
        ("grid-4", "weighted", serde_json::json!(false)),
        ("grid-4", "bytes_on_disk", serde_json::json!(4096)),
        ("basc-few", "method", serde_json::json!("gvs")),
        ("basc-few", "num_selected", serde_json::json!(2)),
        ("basc-few", "num_arcs", serde_json::json!(0)),
        ("basc-few", "bytes_on_disk", serde_json::json!(1)),
    ];
    for (layout, field, value) in changes {
        let f = small();
        f.layout(GridSort::Grid, 4);
        select_few(&f);
        edit_manifest(&f.path, |v| {
            let entries = v["layouts"].as_array_mut().unwrap();
            let entry = entries.iter_mut().find(|l| l["name"] == layout).unwrap();
            entry[field] = value.clone();
        });
        let g = f.graph();
        let err = match g.layout(layout).unwrap().kind() {
            LayoutKind::Grid => GridLayout::open(&g, layout).unwrap_err(),
            LayoutKind::Basc => BascSelection::open(&g, layout).unwrap_err(),
            LayoutKind::Shards | LayoutKind::Compressed => unreachable!("no such layout in this test"),
        };
        match &err {
            FormatError::RecordMismatch {
                field: named, recorded, ..
            } => {
                assert_eq!((named.as_str(), recorded.as_str()), (field, value.to_string().as_str()));
            }
            other => panic!("{layout} {field}: {other}"),
        }
        let msg = err.to_string();
        assert!(
            msg.contains(MANIFEST) && msg.contains(layout) && msg.contains(field),
            "{msg}"
        );
        let err = verify(&f.path).unwrap_err();
        assert!(
            matches!(err, FormatError::RecordMismatch { .. }),
            "{layout} {field}: {err}"
        );
    }

    // A grid layout recorded as a selection is refused by the grid reader.
    let f = small();
    f.layout(GridSort::Grid, 4);
    edit_manifest(&f.path, |v| {
        v["layouts"] = serde_json::json!([{ "kind": "basc", "name": "grid-4", "method": "gvs",
            "num_selected": 1, "num_arcs": 1, "bytes_on_disk": 8192 }]);
    });
    let err = GridLayout::open(&f.graph(), "grid-4").unwrap_err().to_string();
    assert!(err.contains("grid-4 is a basc layout, not a grid layout"), "{err}");
}
