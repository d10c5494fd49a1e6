//! Vertex names (`names.idx`, `names.bin`): round trip, open-time bounds checks, verify.

use std::collections::BTreeMap;
use std::path::Path;

use diskgraph_format::{
    verify, FormatError, GraphBuilder, GraphDir, Manifest, VertexNames, FORMAT_NAME, FORMAT_VERSION, MANIFEST,
    NAMES_BIN, NAMES_IDX,
};

/// Writes an undirected path graph 0 - 1 - ... - (n-1) carrying `names` (one per vertex).
fn write(path: &Path, names: &[&str]) -> Manifest {
    let n = names.len() as u64;
    let b = GraphBuilder::create(path, false).unwrap();
    let mut out = b.csr("out", n, false).unwrap();
    for v in 0..n as u32 {
        if v > 0 {
            out.push(v, v - 1, None).unwrap();
        }
        if u64::from(v) + 1 < n {
            out.push(v, v + 1, None).unwrap();
        }
    }
    let arcs = out.num_edges();
    let mut files = out.finish().unwrap();
    let mut table = VertexNames::new();
    names.iter().for_each(|name| table.push(name));
    files.extend(b.names(&table).unwrap());
    let m = Manifest {
        format: FORMAT_NAME.into(),
        version: FORMAT_VERSION,
        num_vertices: n,
        num_edges: arcs / 2,
        num_arcs: arcs,
        num_self_loops: 0,
        directed: false,
        weighted: false,
        multi_edges: false,
        ordering: "original".into(),
        ids_remapped: false,
        files: files.into_iter().collect(),
        layouts: vec![],
        tool: "test".into(),
        source: BTreeMap::new(),
    };
    b.publish(&m).unwrap();
    m
}

const NAMES: [&str; 4] = ["Myriel", "Napoleon", "Mlle, \"Baptistine\"", "Éponine"];

#[test]
fn names_round_trip_and_verify() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g");
    let m = write(&path, &NAMES);
    assert!(m.has_names());
    let g = GraphDir::open(&path).unwrap();
    let names = g.names().unwrap().expect("the graph has names");
    assert_eq!(names.iter().collect::<Vec<_>>(), NAMES);
    assert_eq!(names.index()["Éponine"], 3);
    let report = verify(&path).unwrap();
    assert_eq!(report.files_checked, 4);
}

#[test]
fn graphs_without_names_have_none() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g");
    let mut m = write(&path, &NAMES);
    m.files.remove(NAMES_IDX);
    m.files.remove(NAMES_BIN);
    std::fs::write(path.join(MANIFEST), serde_json::to_vec(&m).unwrap()).unwrap();
    std::fs::remove_file(path.join(NAMES_IDX)).unwrap();
    std::fs::remove_file(path.join(NAMES_BIN)).unwrap();
    let g = GraphDir::open(&path).unwrap();
    assert!(!g.manifest().has_names());
    assert_eq!(g.names().unwrap(), None);
}

/// Overwrites the little-endian u64 entry `i` of `names.idx` (the checksum no longer matches,
/// but open does not read checksums: its bounds checks must catch it).
fn poke_offset(path: &Path, i: usize, value: u64) {
    let file = path.join(NAMES_IDX);
    let mut bytes = std::fs::read(&file).unwrap();
    bytes[i * 8..i * 8 + 8].copy_from_slice(&value.to_le_bytes());
    std::fs::write(&file, bytes).unwrap();
}

#[test]
fn a_lying_names_index_is_refused_on_open() {
    let total: u64 = NAMES.iter().map(|n| n.len() as u64).sum();
    for (entry, value) in [(4, total + 1), (4, u64::MAX), (2, 1), (0, 3)] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("g");
        write(&path, &NAMES);
        poke_offset(&path, entry, value);
        let err = GraphDir::open(&path).unwrap_err();
        match &err {
            FormatError::Index { path: p, .. } => assert!(p.ends_with(NAMES_IDX), "{err}"),
            other => panic!("entry {entry} = {value}: {other}"),
        }
    }
}

#[test]
fn a_manifest_that_lists_half_the_names_or_a_wrong_length_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g");
    let m = write(&path, &NAMES);
    let mut half = m.clone();
    half.files.remove(NAMES_BIN);
    std::fs::write(path.join(MANIFEST), serde_json::to_vec(&half).unwrap()).unwrap();
    let err = GraphDir::open(&path).unwrap_err();
    assert!(err.to_string().contains("names.bin is not listed"), "{err}");

    let mut long = m.clone();
    long.files.get_mut(NAMES_IDX).unwrap().len += 8;
    std::fs::write(path.join(MANIFEST), serde_json::to_vec(&long).unwrap()).unwrap();
    let err = GraphDir::open(&path).unwrap_err();
    assert!(err.to_string().contains("names.idx has length"), "{err}");
}

#[test]
fn broken_utf8_and_repeated_names_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g");
    write(&path, &NAMES);
    // Split "É" (two bytes, the start of the last name) between two names.
    let total: u64 = NAMES.iter().map(|n| n.len() as u64).sum();
    let split = total - NAMES[3].len() as u64 + 1;
    poke_offset(&path, 3, split);
    let g = GraphDir::open(&path).unwrap();
    let err = g.names().unwrap_err();
    assert!(err.to_string().contains("not UTF-8"), "{err}");
    assert!(err.to_string().contains(NAMES_BIN), "{err}");

    let repeated = tempfile::tempdir().unwrap();
    let path = repeated.path().join("g");
    write(&path, &["a", "b", "a"]);
    let err = verify(&path).unwrap_err();
    assert!(
        err.to_string().contains("vertices 0 and 2 have the same name \"a\""),
        "{err}"
    );
}

#[test]
fn verify_checks_the_names_checksum() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g");
    write(&path, &NAMES);
    let file = path.join(NAMES_BIN);
    let mut bytes = std::fs::read(&file).unwrap();
    bytes[0] = b'm';
    std::fs::write(&file, bytes).unwrap();
    assert!(GraphDir::open(&path).is_ok());
    let err = verify(&path).unwrap_err();
    assert!(matches!(err, FormatError::Checksum { .. }), "{err}");
}
