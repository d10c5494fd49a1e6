//! The `ordering` rule: under `original`, `ids.u64` is strictly ascending; under any other
//! ordering it may be any permutation of distinct IDs; the name itself is checked on open.

use std::collections::BTreeMap;
use std::path::Path;

use diskgraph_format::{verify, GraphBuilder, GraphDir, Manifest, FORMAT_NAME, FORMAT_VERSION, ORIGINAL_ORDERING};

/// Writes an undirected 4-vertex path 0-1-2-3 with `ids` under `ordering`, without checking it.
fn write(path: &Path, ordering: &str, ids: &[u64]) {
    let b = GraphBuilder::create(path, true).unwrap();
    let mut out = b.csr("out", 4, false).unwrap();
    for (u, v) in [(0, 1), (1, 0), (1, 2), (2, 1), (2, 3), (3, 2)] {
        out.push(u, v, None).unwrap();
    }
    let mut files = out.finish().unwrap();
    files.push(b.ids(ids).unwrap());
    let m = Manifest {
        format: FORMAT_NAME.into(),
        version: FORMAT_VERSION,
        num_vertices: 4,
        num_edges: 3,
        num_arcs: 6,
        num_self_loops: 0,
        directed: false,
        weighted: false,
        multi_edges: false,
        ordering: ordering.into(),
        ids_remapped: true,
        files: files.into_iter().collect(),
        layouts: vec![],
        tool: "test".into(),
        source: BTreeMap::new(),
    };
    b.publish(&m).unwrap();
}

#[test]
fn reordered_graphs_may_list_ids_in_any_order() {
    let dir = tempfile::tempdir().unwrap();
    let g = dir.path().join("g");
    write(&g, "norder", &[30, 10, 40, 20]);
    verify(&g).unwrap();
    let d = GraphDir::open(&g).unwrap();
    assert!(!d.manifest().ids_ascending());
    assert_eq!(d.original_ids().unwrap(), vec![30, 10, 40, 20]);

    write(&g, ORIGINAL_ORDERING, &[10, 20, 30, 40]);
    verify(&g).unwrap();
    assert!(GraphDir::open(&g).unwrap().manifest().ids_ascending());
}

#[test]
fn ids_must_be_distinct_and_ascending_under_original() {
    let dir = tempfile::tempdir().unwrap();
    let g = dir.path().join("g");
    write(&g, "gorder", &[30, 10, 30, 20]);
    let err = verify(&g).unwrap_err().to_string();
    assert!(
        err.contains("ids.u64") && err.contains("original ID 30 appears at entries 0 and 2"),
        "{err}"
    );
    write(&g, ORIGINAL_ORDERING, &[30, 10, 40, 20]);
    let err = verify(&g).unwrap_err().to_string();
    assert!(
        err.contains("ids.u64") && err.contains("not strictly ascending at entry 1"),
        "{err}"
    );
}

#[test]
fn ordering_names_are_checked_on_open() {
    let dir = tempfile::tempdir().unwrap();
    let g = dir.path().join("g");
    for bad in ["", "Norder", "9lives", "a/b", &"x".repeat(65)] {
        write(&g, bad, &[1, 2, 3, 4]);
        let err = GraphDir::open(&g).unwrap_err().to_string();
        assert!(
            err.contains("manifest.json") && err.contains("ordering"),
            "{bad:?}: {err}"
        );
    }
    write(&g, "rcm-2_x", &[1, 2, 3, 4]);
    GraphDir::open(&g).unwrap();
}
