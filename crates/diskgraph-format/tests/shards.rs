//! Shard layouts: a reference writer built here (independently of the partitioner), the reader's
//! arithmetic (intervals, shards, windows), the open checks, verify's content checks against
//! deliberately wrong layouts with consistent checksums, damaged files, the manifest's record
//! of a shard layout, and atomic publishing.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use diskgraph_format::{
    shard_layout_name, shard_layouts, verify, verify_shards, FormatError, GraphBuilder, GraphDir, LayoutBuilder,
    LayoutKind, LayoutRecord, ShardLayout, ShardMeta, ShardRecord, DEFAULT_SHARD_BLOCK_BYTES, MANIFEST, SHARD_DST,
    SHARD_META, SHARD_SRC, SHARD_WINDOWS,
};
use proptest::prelude::*;

/// A stored arc.
type Arc = (u32, u32);

/// Writes an unweighted graph with the given arcs (both directions added when undirected);
/// returns the stored arcs sorted by (src, dst).
fn write_graph(path: &Path, n: u64, arcs: &[Arc], directed: bool) -> Vec<Arc> {
    let mut arcs = arcs.to_vec();
    if !directed {
        let rev: Vec<Arc> = arcs.iter().filter(|a| a.0 != a.1).map(|&(u, v)| (v, u)).collect();
        arcs.extend(rev);
    }
    arcs.sort_unstable();
    let b = GraphBuilder::create(path, false).unwrap();
    let mut files = Vec::new();
    let mut out = b.csr("out", n, false).unwrap();
    for &(u, v) in &arcs {
        out.push(u, v, None).unwrap();
    }
    files.extend(out.finish().unwrap());
    if directed {
        let mut rev: Vec<Arc> = arcs.iter().map(|&(u, v)| (v, u)).collect();
        rev.sort_unstable();
        let mut inn = b.csr("in", n, false).unwrap();
        for &(u, v) in &rev {
            inn.push(u, v, None).unwrap();
        }
        files.extend(inn.finish().unwrap());
    }
    let loops = arcs.iter().filter(|a| a.0 == a.1).count() as u64;
    let a = arcs.len() as u64;
    let m = common::manifest(n, a, loops, directed, false, files);
    b.publish(&m).unwrap();
    arcs
}

/// The interval of `v`, the plain way.
fn interval(b: &[u32], v: u32) -> usize {
    (0..b.len() - 1).find(|&p| b[p] <= v && v < b[p + 1]).unwrap()
}

/// Raw layout content: the two columns and the window index.
#[derive(Clone, Debug)]
struct Raw {
    src: Vec<u32>,
    dst: Vec<u32>,
    windows: Vec<u64>,
}

/// The correct content for `arcs` under boundaries `b`, computed the plain way: windows as
/// lists of arcs, `windows[q][p]`.
fn windows_for(arcs: &[Arc], b: &[u32]) -> Vec<Vec<Vec<Arc>>> {
    let n = b.len() - 1;
    let mut w = vec![vec![Vec::new(); n]; n];
    for &(s, d) in arcs {
        w[interval(b, d)][interval(b, s)].push((s, d));
    }
    for shard in &mut w {
        for window in shard {
            window.sort_unstable();
        }
    }
    w
}

fn raw(windows: &[Vec<Vec<Arc>>]) -> Raw {
    let mut r = Raw {
        src: Vec::new(),
        dst: Vec::new(),
        windows: vec![0],
    };
    for shard in windows {
        for window in shard {
            for &(s, d) in window {
                r.src.push(s);
                r.dst.push(d);
            }
            r.windows.push(r.src.len() as u64);
        }
    }
    r
}

/// Publishes a shard layout with exactly the given content and boundaries.
fn write_raw(g: &GraphDir, b: &[u32], r: &Raw, force: bool) -> Result<PathBuf, FormatError> {
    let n = (b.len() - 1) as u32;
    let builder = LayoutBuilder::create(g, &shard_layout_name(n, None), force)?;
    let meta = fill(&builder, g, b, r)?;
    builder.publish(&meta)
}

/// Writes the given content into a builder and returns the metadata to publish it with.
fn fill(builder: &LayoutBuilder, g: &GraphDir, b: &[u32], r: &Raw) -> Result<ShardMeta, FormatError> {
    let mut files = BTreeMap::new();
    let mut put = |name: &str, bytes: &[u8]| -> Result<(), FormatError> {
        let mut f = builder.positioned(name, bytes.len() as u64)?;
        f.write_at(0, bytes)?;
        files.extend([f.finish()?]);
        Ok(())
    };
    put(SHARD_SRC, bytemuck::cast_slice(&r.src))?;
    put(SHARD_DST, bytemuck::cast_slice(&r.dst))?;
    put(SHARD_WINDOWS, bytemuck::cast_slice(&r.windows))?;
    Ok(ShardMeta::new(
        g.manifest(),
        b.to_vec(),
        DEFAULT_SHARD_BLOCK_BYTES,
        None,
        files,
    ))
}

/// A graph in a temporary directory.
struct Fixture {
    _dir: tempfile::TempDir,
    path: PathBuf,
    arcs: Vec<Arc>,
}

impl Fixture {
    fn new(n: u64, arcs: &[Arc], directed: bool) -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("g");
        let arcs = write_graph(&path, n, arcs, directed);
        Fixture { _dir: dir, path, arcs }
    }

    fn graph(&self) -> GraphDir {
        GraphDir::open(&self.path).unwrap()
    }

    /// Publishes the correct layout for boundaries `b`.
    fn layout(&self, b: &[u32]) -> PathBuf {
        write_raw(&self.graph(), b, &raw(&windows_for(&self.arcs, b)), false).unwrap()
    }
}

/// 23 vertices, 40 directed arcs with a duplicate and a self-loop; vertex 22 isolated.
fn small() -> Fixture {
    let mut arcs: Vec<Arc> = (0..38u32).map(|i| (i * 7 % 22, i * 11 % 22)).collect();
    arcs.extend([(3, 3), (5, 1)]);
    Fixture::new(23, &arcs, true)
}

/// The boundaries `small` uses: three intervals, the middle one wider.
const SMALL: [u32; 4] = [0, 6, 17, 23];

/// Arbitrary valid boundaries for `n` vertices and `k` intervals (empty intervals included).
fn boundaries(n: u64, k: usize, cuts: &[u32]) -> Vec<u32> {
    let mut b: Vec<u32> = cuts.iter().take(k - 1).map(|&c| c % (n as u32 + 1)).collect();
    b.resize(k - 1, n as u32);
    b.sort_unstable();
    b.insert(0, 0);
    b.push(n as u32);
    b
}

fn graph_strategy() -> impl Strategy<Value = (u64, Vec<Arc>, bool)> {
    (0u64..40).prop_flat_map(|n| {
        let arcs = match n {
            0 => prop::collection::vec((0..1u32, 0..1u32), 0..1).boxed(),
            _ => prop::collection::vec((0..n as u32, 0..n as u32), 0..150).boxed(),
        };
        (Just(n), arcs, any::<bool>())
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// A correct layout opens, answers the arithmetic right, reads back window by window, is
    /// recorded in the manifest, and verifies.
    #[test]
    fn correct_layouts_open_read_and_verify(
        (n, arcs, directed) in graph_strategy(),
        k in 1usize..9,
        cuts in prop::collection::vec(any::<u32>(), 8),
    ) {
        let f = Fixture::new(n, &arcs, directed);
        let b = boundaries(n, k, &cuts);
        let path = f.layout(&b);
        let name = shard_layout_name(k as u32, None);
        prop_assert_eq!(&path, &f.path.join(&name));
        let g = f.graph();
        let e = f.arcs.len() as u64;
        let pages = |len: u64| len.div_ceil(4096) * 4096;
        let record = ShardRecord {
            name: name.clone(),
            num_shards: k as u32,
            block_bytes: DEFAULT_SHARD_BLOCK_BYTES,
            num_arcs: e,
            compressed: None,
            bytes_on_disk: 2 * pages(4 * e) + pages(8 * (k * k + 1) as u64),
            generation: 0,
        };
        prop_assert_eq!(g.layout(&name), Some(&LayoutRecord::Shards(record.clone())));
        prop_assert_eq!(shard_layouts(&g), vec![&record]);
        let l = ShardLayout::open(&g, &name).unwrap();
        prop_assert_eq!((l.name(), l.path()), (name.as_str(), path.as_path()));
        prop_assert_eq!((l.num_shards(), l.num_arcs(), l.block_bytes()), (k as u32, e, DEFAULT_SHARD_BLOCK_BYTES));
        prop_assert_eq!(l.intervals(), &b[..]);
        prop_assert_eq!(l.column_path(SHARD_SRC), path.join(SHARD_SRC));
        for v in 0..n as u32 {
            prop_assert_eq!(l.interval_of(v) as usize, interval(&b, v));
            prop_assert!(l.interval(l.interval_of(v)).contains(&v));
        }
        let want = windows_for(&f.arcs, &b);
        let mut at = 0u64;
        for q in 0..k as u32 {
            prop_assert_eq!(l.interval(q), b[q as usize]..b[q as usize + 1]);
            let shard_start = at;
            for p in 0..k as u32 {
                let w = &want[q as usize][p as usize];
                prop_assert_eq!(l.window(q, p), at..at + w.len() as u64);
                prop_assert_eq!(&l.read_window(q, p).unwrap(), w);
                at += w.len() as u64;
            }
            prop_assert_eq!(l.shard(q), shard_start..at);
        }
        prop_assert_eq!(at, e);
        let r = verify(&f.path).unwrap();
        prop_assert_eq!(r.layouts_checked, 1);
        let r = verify_shards(&g, &name).unwrap();
        prop_assert_eq!((r.files_checked, r.arcs_checked), (3, e));
    }

    /// Layouts whose files are internally consistent (sizes, checksums, window index) but whose
    /// content is wrong are caught by verify, naming the file and the arc.
    #[test]
    fn wrong_content_fails_verify(
        (n, arcs, directed) in graph_strategy(),
        k in 1usize..6,
        cuts in prop::collection::vec(any::<u32>(), 8),
        fault in 0usize..6,
        pick in any::<prop::sample::Index>(),
    ) {
        let f = Fixture::new(n, &arcs, directed);
        prop_assume!(!f.arcs.is_empty());
        let b = boundaries(n, k, &cuts);
        let mut w = windows_for(&f.arcs, &b);
        let filled: Vec<(usize, usize)> = (0..k)
            .flat_map(|q| (0..k).map(move |p| (q, p)))
            .filter(|&(q, p)| !w[q][p].is_empty())
            .collect();
        let (q, p) = filled[pick.index(filled.len())];
        let (file, expect) = match fault {
            // Two arcs of a window swapped.
            0 => {
                let i = w[q][p].windows(2).position(|x| x[0] < x[1]);
                prop_assume!(i.is_some());
                let i = i.unwrap();
                w[q][p].swap(i, i + 1);
                let (a, c) = (w[q][p][i], w[q][p][i + 1]);
                (if a.0 != c.0 { SHARD_SRC } else { SHARD_DST }, "not sorted")
            }
            // An arc moved into another window of its shard (its source outside that interval).
            1 => {
                prop_assume!(k > 1);
                let a = w[q][p].remove(0);
                let other = (p + 1) % k;
                w[q][other].insert(0, a);
                w[q][other].sort_unstable();
                (SHARD_SRC, "outside interval")
            }
            // An arc moved into another shard (its destination outside that interval).
            2 => {
                prop_assume!(k > 1);
                let a = w[q][p].remove(0);
                let other = (q + 1) % k;
                w[other][p].push(a);
                w[other][p].sort_unstable();
                (SHARD_DST, "outside interval")
            }
            // A destination changed to another vertex of the same interval, order kept: only
            // the comparison with the graph sees it.
            3 => {
                let i = w[q][p].len() - 1;
                let (s, d) = w[q][p][i];
                prop_assume!(d + 1 < b[q + 1] && f.arcs.binary_search(&(s, d + 1)).is_err());
                w[q][p][i] = (s, d + 1);
                (SHARD_DST, "the graph's out.*")
            }
            // An arc overwritten by a copy of its predecessor: same counts, order kept.
            4 => {
                prop_assume!(w[q][p].len() > 1 && w[q][p][0] != w[q][p][1]);
                let file = if w[q][p][0].0 != w[q][p][1].0 { SHARD_SRC } else { SHARD_DST };
                w[q][p][1] = w[q][p][0];
                (file, "the graph's out.*")
            }
            // A source changed within its interval, order kept (the last arc of the window).
            _ => {
                let i = w[q][p].len() - 1;
                let (s, d) = w[q][p][i];
                prop_assume!(s + 1 < b[p + 1] && f.arcs.binary_search(&(s + 1, d)).is_err());
                w[q][p][i] = (s + 1, d);
                (SHARD_SRC, "the graph's out.*")
            }
        };
        write_raw(&f.graph(), &b, &raw(&w), false).unwrap();
        let msg = verify(&f.path).unwrap_err().to_string();
        prop_assert!(msg.contains(&format!("{}/{}", shard_layout_name(k as u32, None), file)), "{}", msg);
        prop_assert!(msg.contains(expect), "expected {:?}: {}", expect, msg);
    }
}

#[test]
fn an_arc_in_the_wrong_shard_with_matching_ranges_is_caught_by_the_comparison() {
    // Moving 0 -> 1 (shard 0) out and adding a second 0 -> 2 (shard 1): ranges and order hold,
    // the shard sizes do not match the graph.
    let f = Fixture::new(3, &[(0, 1), (0, 2), (1, 2)], true);
    let b = [0, 2, 3];
    let mut w = windows_for(&f.arcs, &b);
    assert_eq!(w[0][0], [(0, 1)]);
    w[0][0].clear();
    w[1][0].insert(0, (0, 2));
    write_raw(&f.graph(), &b, &raw(&w), false).unwrap();
    let msg = verify(&f.path).unwrap_err().to_string();
    assert!(msg.contains("shards-2/windows.idx"), "{msg}");
    assert!(msg.contains("shard 0 ends at arc 0"), "{msg}");
}

#[test]
fn flipped_bytes_fail_verify_naming_the_file() {
    for file in [SHARD_SRC, SHARD_DST, SHARD_WINDOWS] {
        let f = small();
        let dir = f.layout(&SMALL);
        let p = dir.join(file);
        let mut bytes = std::fs::read(&p).unwrap();
        bytes[13] ^= 0x01;
        std::fs::write(&p, &bytes).unwrap();
        let err = verify(&f.path).unwrap_err();
        assert!(
            matches!(err, FormatError::Checksum { .. } | FormatError::Index { .. }),
            "{file}: {err}"
        );
        assert!(err.to_string().contains(&format!("shards-3/{file}")), "{err}");
    }
    // A non-zero byte in the padding.
    let f = small();
    let p = f.layout(&SMALL).join(SHARD_DST);
    let mut bytes = std::fs::read(&p).unwrap();
    *bytes.last_mut().unwrap() = 1;
    std::fs::write(&p, &bytes).unwrap();
    let err = verify(&f.path).unwrap_err();
    assert!(matches!(err, FormatError::Padding { .. }), "{err}");
    assert!(err.to_string().contains("shards-3/dst.u32"), "{err}");
}

#[test]
fn truncated_files_and_bad_windows_fail_open() {
    for file in [SHARD_SRC, SHARD_DST, SHARD_WINDOWS] {
        let f = small();
        let p = f.layout(&SMALL).join(file);
        std::fs::OpenOptions::new()
            .write(true)
            .open(&p)
            .unwrap()
            .set_len(100)
            .unwrap();
        let err = ShardLayout::open(&f.graph(), "shards-3").unwrap_err();
        assert!(matches!(err, FormatError::FileSize { .. }), "{err}");
        assert!(err.to_string().contains(&format!("shards-3/{file}")), "{err}");
        assert!(verify(&f.path).is_err());
    }
    // Consistent size and checksum, but decreasing, not starting at 0 or not ending at E.
    let f = small();
    let w = windows_for(&f.arcs, &SMALL);
    let e = f.arcs.len() as u64;
    for (bad, entry, says) in [
        (0, 2, "below the previous"),
        (1, 0, "expected 0"),
        (2, 9, &format!("!= num_arcs {e}")),
    ] {
        let mut r = raw(&w);
        match bad {
            0 => r.windows[2] = r.windows[1].wrapping_sub(1),
            1 => r.windows[0] = 1,
            _ => r.windows[9] += 1,
        }
        write_raw(&f.graph(), &SMALL, &r, true).unwrap();
        let err = ShardLayout::open(&f.graph(), "shards-3").unwrap_err();
        match &err {
            FormatError::Index { entry: at, .. } => assert_eq!(*at, entry, "{err}"),
            other => panic!("{other}"),
        }
        assert!(
            err.to_string().contains("windows.idx") && err.to_string().contains("shards-3"),
            "{err}"
        );
        assert!(err.to_string().contains(says), "{err}");
        assert!(verify(&f.path).is_err());
    }
    // Monotone and complete, but the boundaries of two windows shifted by one arc: the arc
    // now in the wrong window is named, with the window's extent by windows.idx.
    let mut r = raw(&w);
    let i = (1..9).find(|&i| r.windows[i] > r.windows[i - 1]).unwrap();
    r.windows[i] -= 1;
    write_raw(&f.graph(), &SMALL, &r, true).unwrap();
    ShardLayout::open(&f.graph(), "shards-3").unwrap();
    let msg = verify(&f.path).unwrap_err().to_string();
    assert!(
        msg.contains("outside interval") && msg.contains("by windows.idx"),
        "{msg}"
    );
}

/// Rewrites the graph's manifest through a JSON edit.
fn edit_manifest(graph: &Path, edit: impl FnOnce(&mut serde_json::Value)) {
    edit_json(&graph.join(MANIFEST), edit)
}

fn edit_json(p: &Path, edit: impl FnOnce(&mut serde_json::Value)) {
    let mut v: serde_json::Value = serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap();
    edit(&mut v);
    std::fs::write(p, serde_json::to_vec_pretty(&v).unwrap()).unwrap();
}

#[test]
fn a_record_that_disagrees_with_shards_json_is_refused_naming_the_field() {
    for (field, value) in [
        ("num_shards", serde_json::json!(4)),
        ("block_bytes", serde_json::json!(4096)),
        ("num_arcs", serde_json::json!(41)),
        ("bytes_on_disk", serde_json::json!(4096)),
    ] {
        let f = small();
        f.layout(&SMALL);
        edit_manifest(&f.path, |v| v["layouts"][0][field] = value.clone());
        let err = ShardLayout::open(&f.graph(), "shards-3").unwrap_err();
        match &err {
            FormatError::RecordMismatch {
                field: named, recorded, ..
            } => assert_eq!((named.as_str(), recorded.as_str()), (field, value.to_string().as_str())),
            other => panic!("{field}: {other}"),
        }
        assert!(err.to_string().contains("shards-3/shards.json"), "{err}");
        assert!(matches!(verify(&f.path), Err(FormatError::RecordMismatch { .. })));
    }
    // A shard layout recorded as a grid is refused by the shard reader.
    let f = small();
    f.layout(&SMALL);
    edit_manifest(&f.path, |v| {
        v["layouts"] = serde_json::json!([{ "kind": "grid", "name": "shards-3", "sort": "grid", "rows": 3,
            "cols": 3, "num_arcs": 40, "weighted": false, "bytes_on_disk": 12288 }]);
    });
    let err = ShardLayout::open(&f.graph(), "shards-3").unwrap_err().to_string();
    assert!(err.contains("shards-3 is a grid layout, not a shards layout"), "{err}");
    let err = ShardLayout::open(&f.graph(), "shards-5").unwrap_err().to_string();
    assert!(
        err.contains("not listed") && err.contains("diskgraph partition --shards"),
        "{err}"
    );
}

#[test]
fn inconsistent_shards_json_fails_open() {
    type Edit = Box<dyn Fn(&mut serde_json::Value)>;
    let edits: Vec<(&str, Edit)> = vec![
        ("disagree with the graph", Box::new(|v| v["directed"] = false.into())),
        ("disagree with the graph", Box::new(|v| v["num_vertices"] = 24.into())),
        ("block_bytes", Box::new(|v| v["block_bytes"] = 6000.into())),
        ("block_bytes", Box::new(|v| v["block_bytes"] = (128u64 << 20).into())),
        (
            "ends at 22",
            Box::new(|v| v["intervals"] = serde_json::json!([0, 6, 17, 22])),
        ),
        (
            "below the previous",
            Box::new(|v| v["intervals"] = serde_json::json!([0, 17, 6, 23])),
        ),
        ("need 4", Box::new(|v| v["intervals"] = serde_json::json!([0, 23]))),
        ("unknown field", Box::new(|v| v["weights"] = true.into())),
        ("version", Box::new(|v| v["version"] = 2.into())),
        ("format", Box::new(|v| v["format"] = "diskgraph-grid".into())),
        (
            "out.adj has xxh3",
            Box::new(|v| v["graph_out_adj"] = "0123456789abcdef".into()),
        ),
        (
            "unexpected file",
            Box::new(|v| v["files"]["x.u32"] = v["files"]["src.u32"].clone()),
        ),
        (
            "dst.u32 is not listed",
            Box::new(|v| {
                v["files"].as_object_mut().unwrap().remove("dst.u32");
            }),
        ),
        (
            "windows.idx has length 88",
            Box::new(|v| v["files"]["windows.idx"]["len"] = 88.into()),
        ),
    ];
    for (expect, edit) in edits {
        let f = small();
        let dir = f.layout(&SMALL);
        edit_json(&dir.join(SHARD_META), edit);
        let err = ShardLayout::open(&f.graph(), "shards-3").unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("shards-3/shards.json"), "{expect}: {msg}");
        assert!(msg.contains(expect), "{expect}: {msg}");
    }
    // num_shards and the name must agree (and the record follows shards.json).
    let f = small();
    let dir = f.layout(&SMALL);
    edit_json(&dir.join(SHARD_META), |v| v["num_shards"] = 0.into());
    let msg = ShardLayout::open(&f.graph(), "shards-3").unwrap_err().to_string();
    assert!(msg.contains("num_shards 0 must be 1 to 4096"), "{msg}");
}

#[test]
fn publishing_records_the_layout_and_bare_names_open() {
    let f = small();
    f.layout(&SMALL);
    f.layout(&[0, 23]);
    f.layout(&[0, 0, 1, 1, 2, 2, 3, 4, 5, 6, 23]);
    let g = f.graph();
    let names: Vec<&str> = g.layouts().iter().map(|l| l.name()).collect();
    assert_eq!(names, ["shards-1", "shards-10", "shards-3"]);
    let by_n: Vec<u32> = shard_layouts(&g).iter().map(|r| r.num_shards).collect();
    assert_eq!(by_n, [1, 3, 10]);
    assert_eq!(g.layouts_of(LayoutKind::Shards).count(), 3);
    assert_eq!(verify(&f.path).unwrap().layouts_checked, 3);

    let records = g.layouts().to_vec();
    edit_manifest(&f.path, |v| {
        v["layouts"] = serde_json::json!(["shards-1", "shards-10", "shards-3"])
    });
    let g = f.graph();
    assert_eq!(g.layouts(), &records[..]);
    ShardLayout::open(&g, "shards-10").unwrap();
    assert_eq!(verify(&f.path).unwrap().layouts_checked, 3);
}

#[test]
fn a_failed_or_dropped_build_leaves_nothing() {
    let f = small();
    let g = f.graph();
    let entries = || {
        let mut names: Vec<_> = std::fs::read_dir(&f.path)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        names.sort();
        names
    };
    let before = entries();
    // Dropped half-way.
    let b = LayoutBuilder::create(&g, "shards-3", false).unwrap();
    let tmp = b.dir().to_path_buf();
    let mut col = b.positioned(SHARD_SRC, 160).unwrap();
    col.write_at(0, &[0; 16]).unwrap();
    drop(col);
    drop(b);
    assert!(!tmp.exists());
    // Metadata that fails its checks is refused at publish, and the directory goes.
    let b = LayoutBuilder::create(&g, "shards-3", false).unwrap();
    let tmp = b.dir().to_path_buf();
    let r = raw(&windows_for(&f.arcs, &SMALL));
    let mut meta = fill(&b, &g, &SMALL, &r).unwrap();
    meta.intervals[1] = 30;
    let err = b.publish(&meta).unwrap_err();
    assert!(
        err.to_string().contains("shards.json") && err.to_string().contains("intervals"),
        "{err}"
    );
    assert!(!tmp.exists());
    // A short column is refused when it is finished.
    let b = LayoutBuilder::create(&g, "shards-3", false).unwrap();
    let mut col = b.positioned(SHARD_SRC, 160).unwrap();
    col.write_at(0, &[0; 16]).unwrap();
    let err = col.finish().unwrap_err();
    assert!(err.to_string().contains("src.u32"), "{err}");
    drop(b);
    assert_eq!(entries(), before);
    assert!(f.graph().layouts().is_empty());
}

#[test]
fn empty_graphs_and_more_shards_than_vertices() {
    let f = Fixture::new(0, &[], false);
    f.layout(&[0, 0, 0]);
    let g = f.graph();
    let l = ShardLayout::open(&g, "shards-2").unwrap();
    assert_eq!((l.shard(0), l.shard(1), l.window(1, 0)), (0..0, 0..0, 0..0));
    verify(&f.path).unwrap();

    let f = Fixture::new(2, &[(0, 1), (1, 1)], false);
    f.layout(&[0, 0, 1, 1, 2]);
    let g = f.graph();
    let l = ShardLayout::open(&g, "shards-4").unwrap();
    assert_eq!((l.interval_of(0), l.interval_of(1)), (1, 3));
    assert_eq!(l.interval(0), 0..0);
    assert_eq!(l.read_window(3, 1).unwrap(), [(0, 1)]);
    assert_eq!(l.read_window(3, 3).unwrap(), [(1, 1)]);
    assert_eq!(l.read_window(1, 3).unwrap(), [(1, 0)]);
    verify(&f.path).unwrap();
}
