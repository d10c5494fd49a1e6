//! Format v1 round trips and publishing rules.

use std::collections::BTreeMap;
use std::path::Path;

use diskgraph_format::{
    verify, Csr, Direction, FormatError, GraphBuilder, GraphDir, Manifest, FORMAT_NAME, FORMAT_VERSION, PAGE,
};
use proptest::prelude::*;

/// Writes a directed graph with the given sorted arc list and returns its manifest.
fn write(path: &Path, n: u64, arcs: &[(u32, u32, f32)], weighted: bool, ids: Option<&[u64]>, force: bool) -> Manifest {
    let b = GraphBuilder::create(path, force).unwrap();
    let mut files = Vec::new();
    let mut out = b.csr("out", n, weighted).unwrap();
    for &(u, v, w) in arcs {
        out.push(u, v, weighted.then_some(w)).unwrap();
    }
    files.extend(out.finish().unwrap());
    let mut rev: Vec<_> = arcs.iter().map(|&(u, v, w)| (v, u, w)).collect();
    rev.sort_by_key(|a| (a.0, a.1));
    let mut inn = b.csr("in", n, weighted).unwrap();
    for &(u, v, w) in &rev {
        inn.push(u, v, weighted.then_some(w)).unwrap();
    }
    files.extend(inn.finish().unwrap());
    if let Some(ids) = ids {
        files.push(b.ids(ids).unwrap());
    }
    let m = Manifest {
        format: FORMAT_NAME.into(),
        version: FORMAT_VERSION,
        num_vertices: n,
        num_edges: arcs.len() as u64,
        num_arcs: arcs.len() as u64,
        num_self_loops: arcs.iter().filter(|a| a.0 == a.1).count() as u64,
        directed: true,
        weighted,
        multi_edges: false,
        ordering: "original".into(),
        ids_remapped: ids.is_some(),
        files: files.into_iter().collect(),
        layouts: vec![],
        tool: "test".into(),
        source: BTreeMap::new(),
    };
    b.publish(&m).unwrap();
    m
}

fn arcs_strategy() -> impl Strategy<Value = (u64, Vec<(u32, u32, f32)>)> {
    (1u64..60).prop_flat_map(|n| {
        let arc = (0..n as u32, 0..n as u32, -5.0f32..5.0);
        (Just(n), prop::collection::vec(arc, 0..300)).prop_map(|(n, mut arcs)| {
            arcs.sort_by_key(|a| (a.0, a.1));
            arcs.dedup_by(|a, b| (a.0, a.1) == (b.0, b.1));
            (n, arcs)
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(100))]
    #[test]
    fn csr_round_trips_and_verifies((n, arcs) in arcs_strategy(), weighted in any::<bool>(), remap in any::<bool>()) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("g");
        let ids: Vec<u64> = (0..n).map(|i| i * 1000 + 7).collect();
        let m = write(&path, n, &arcs, weighted, remap.then_some(&ids[..]), false);
        let g = GraphDir::open(&path).unwrap();
        prop_assert_eq!(g.manifest(), &m);
        let out = g.load_csr(Direction::Out, true).unwrap();
        let mut got = Vec::new();
        for u in 0..n as u32 {
            for (i, &v) in out.neighbours(u).iter().enumerate() {
                got.push((u, v, out.edge_weights(u).map_or(0.0, |w| w[i])));
            }
        }
        let want: Vec<_> = arcs.iter().map(|&(u, v, w)| (u, v, if weighted { w } else { 0.0 })).collect();
        prop_assert_eq!(got, want);
        let inn: Csr = g.load_csr(Direction::In, false).unwrap();
        prop_assert_eq!(inn.num_arcs(), arcs.len());
        let expect_ids: Vec<u64> = if remap { ids.clone() } else { (0..n).collect() };
        prop_assert_eq!(&g.original_ids().unwrap(), &expect_ids);
        for v in 0..n as u32 {
            prop_assert_eq!(g.original_id(v).unwrap(), expect_ids[v as usize]);
        }
        for dir in [Direction::Out, Direction::In] {
            let offsets = g.load_offsets(dir).unwrap();
            let mut degrees = Vec::new();
            g.for_each_degree(dir, |v, d| degrees.push((v, d))).unwrap();
            let want: Vec<(u32, u64)> = offsets.windows(2).enumerate().map(|(v, w)| (v as u32, w[1] - w[0])).collect();
            prop_assert_eq!(degrees, want);
        }
        for entry in std::fs::read_dir(&path).unwrap() {
            let e = entry.unwrap();
            if e.file_name() != "manifest.json" {
                prop_assert_eq!(e.metadata().unwrap().len() % PAGE, 0);
            }
        }
        verify(&path).unwrap();
    }
}

#[test]
fn publish_rules() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g");
    {
        let b = GraphBuilder::create(&path, false).unwrap();
        b.file("out.idx").unwrap().write_u64s(&[0, 1]).unwrap();
    }
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "an unpublished builder leaves nothing"
    );

    write(&path, 2, &[(0, 1, 1.0)], false, None, false);
    assert!(matches!(
        GraphBuilder::create(&path, false),
        Err(FormatError::Exists { .. })
    ));
    write(&path, 3, &[(0, 2, 1.0), (1, 2, 1.0)], false, None, true);
    assert_eq!(GraphDir::open(&path).unwrap().num_vertices(), 3);
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        1,
        "the replaced graph is gone"
    );

    let precious = dir.path().join("precious");
    std::fs::create_dir(&precious).unwrap();
    std::fs::write(precious.join("thesis.tex"), "years of work").unwrap();
    assert!(
        GraphBuilder::create(&precious, true).is_err(),
        "never replaces a non-graph directory"
    );
    assert!(precious.join("thesis.tex").exists());
}

#[test]
fn open_rejects_inconsistent_manifests() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g");
    let m = write(&path, 3, &[(0, 1, 1.0), (1, 2, 1.0)], false, None, false);
    let mpath = path.join("manifest.json");
    let edit = |f: &dyn Fn(&mut Manifest)| {
        let mut bad = m.clone();
        f(&mut bad);
        std::fs::write(&mpath, serde_json::to_vec(&bad).unwrap()).unwrap();
        let err = GraphDir::open(&path).unwrap_err().to_string();
        assert!(
            err.contains("manifest.json") || err.contains(".idx") || err.contains(".adj"),
            "{err}"
        );
        err
    };
    edit(&|m| m.version = 2);
    edit(&|m| m.num_edges = 3);
    edit(&|m| m.num_vertices = 4);
    edit(&|m| m.weighted = true);
    edit(&|m| {
        m.files.remove("in.adj");
    });
    edit(&|m| m.files.get_mut("out.adj").unwrap().xxh3 = "xyz".into());
    edit(&|m| m.num_vertices = u64::MAX);
    edit(&|m| {
        m.num_arcs = u64::MAX;
        m.num_edges = u64::MAX;
    });
    std::fs::write(&mpath, serde_json::to_vec(&m).unwrap()).unwrap();
    GraphDir::open(&path).unwrap();
}

#[test]
fn degrees_streamed_from_a_damaged_index_are_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g");
    let arcs: Vec<(u32, u32, f32)> = (0..9).map(|v| (v, v + 1, 1.0)).collect();
    write(&path, 10, &arcs, false, None, false);
    // Opened first (opening checks the index), then entry 4 of the out-index (offset 4)
    // made larger than entry 5.
    let g = GraphDir::open(&path).unwrap();
    let idx = path.join("out.idx");
    let mut bytes = std::fs::read(&idx).unwrap();
    bytes[4 * 8..5 * 8].copy_from_slice(&7u64.to_le_bytes());
    std::fs::write(&idx, bytes).unwrap();
    let mut seen = 0;
    let err = g.for_each_degree(Direction::Out, |_, _| seen += 1).unwrap_err();
    match &err {
        FormatError::Index { path, entry, .. } => {
            assert!(path.ends_with("out.idx") && *entry == 5, "{err}");
        }
        other => panic!("not an index error: {other}"),
    }
    // Vertex 3's degree (to the raised entry) is seen before entry 5 shows the fault.
    assert_eq!(seen, 4, "the degrees before the fault only");
}
