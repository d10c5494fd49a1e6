//! Every file a graph, a layout or a split names must be a regular file: a FIFO or a device in
//! the place of `manifest.json`, a layout's metadata, `split.json` or a data file is refused with
//! the file named and what it is, at once — never read without bound, never waited on.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::sync::mpsc;
use std::time::Duration;

use diskgraph_format::{
    compress, verify, Codec, CompressedLayout, FormatError, GraphBuilder, GraphDir, Manifest, SplitDir,
    COMPRESSED_META, FORMAT_NAME, FORMAT_VERSION, MANIFEST, OUT_ADJ, SPLIT_META,
};

/// Writes an undirected graph of `n` vertices with these arcs (sorted, both ways given).
fn write_graph(path: &Path, n: u64, arcs: &[(u32, u32)]) {
    let b = GraphBuilder::create(path, false).unwrap();
    let mut out = b.csr("out", n, false).unwrap();
    for &(u, v) in arcs {
        out.push(u, v, None).unwrap();
    }
    let files: BTreeMap<_, _> = out.finish().unwrap().into_iter().collect();
    b.publish(&Manifest {
        format: FORMAT_NAME.into(),
        version: FORMAT_VERSION,
        num_vertices: n,
        num_edges: arcs.len() as u64 / 2,
        num_arcs: arcs.len() as u64,
        num_self_loops: 0,
        directed: false,
        weighted: false,
        multi_edges: false,
        ordering: "original".into(),
        ids_remapped: false,
        files,
        layouts: vec![],
        tool: "test".into(),
        source: BTreeMap::new(),
    })
    .unwrap();
}

/// Replaces the file at `path` with a FIFO.
fn fifo_in_place_of(path: &Path) {
    std::fs::remove_file(path).unwrap();
    let made = Command::new("mkfifo").arg(path).status().expect("running mkfifo");
    assert!(made.success());
}

/// Runs `open` on a thread and returns its error, failing the test if it takes more than ten
/// seconds (a reader waiting for a FIFO's writer never returns).
fn refused_at_once<T: Send + 'static>(open: impl FnOnce() -> Result<T, FormatError> + Send + 'static) -> String {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(open().err().map(|e| e.to_string()));
    });
    rx.recv_timeout(Duration::from_secs(10))
        .expect("the open blocked instead of refusing")
        .expect("the open succeeded")
}

const TRIANGLE: [(u32, u32); 6] = [(0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1)];

#[test]
fn a_manifest_that_is_a_fifo_or_a_device_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let g = dir.path().join("g");
    write_graph(&g, 3, &TRIANGLE);
    let manifest = g.join(MANIFEST);
    fifo_in_place_of(&manifest);
    let opened = g.clone();
    let e = refused_at_once(move || GraphDir::open(&opened));
    assert_eq!(e, format!("{}: is a FIFO, not a regular file", manifest.display()));
    std::fs::remove_file(&manifest).unwrap();
    std::os::unix::fs::symlink("/dev/null", &manifest).unwrap();
    let opened = g.clone();
    let e = refused_at_once(move || GraphDir::open(&opened));
    assert_eq!(
        e,
        format!("{}: is a character device, not a regular file", manifest.display())
    );
}

#[test]
fn a_data_file_that_is_a_fifo_is_refused_even_where_its_size_fits() {
    // With no arcs, out.adj is empty: a FIFO has the size the manifest implies.
    let dir = tempfile::tempdir().unwrap();
    let g = dir.path().join("g");
    write_graph(&g, 3, &[]);
    let adj = g.join(OUT_ADJ);
    fifo_in_place_of(&adj);
    let opened = g.clone();
    let e = refused_at_once(move || verify(&opened));
    assert_eq!(e, format!("{}: is a FIFO, not a regular file", adj.display()));
}

#[test]
fn a_layout_metadata_file_that_is_a_fifo_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let g = dir.path().join("g");
    write_graph(&g, 3, &TRIANGLE);
    let r = compress(&GraphDir::open(&g).unwrap(), Codec::Vbyte, false).unwrap();
    let meta = r.path.join(COMPRESSED_META);
    fifo_in_place_of(&meta);
    let graph = GraphDir::open(&g).unwrap();
    let name = r.path.file_name().unwrap().to_string_lossy().into_owned();
    let e = refused_at_once(move || CompressedLayout::open(&graph, &name));
    assert_eq!(e, format!("{}: is a FIFO, not a regular file", meta.display()));
    // A symlink inside the graph is followed: its target must be a regular file.
    std::fs::rename(&meta, g.join("pipe")).unwrap();
    std::os::unix::fs::symlink(g.join("pipe"), &meta).unwrap();
    let graph = GraphDir::open(&g).unwrap();
    let name = r.path.file_name().unwrap().to_string_lossy().into_owned();
    let e = refused_at_once(move || CompressedLayout::open(&graph, &name));
    assert_eq!(e, format!("{}: is a FIFO, not a regular file", meta.display()));
}

#[test]
fn a_split_routing_file_that_is_a_fifo_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let split = dir.path().join("s");
    std::fs::create_dir(&split).unwrap();
    let meta = split.join(SPLIT_META);
    std::fs::write(&meta, b"{}").unwrap();
    fifo_in_place_of(&meta);
    let opened = split.clone();
    let e = refused_at_once(move || SplitDir::open(&opened));
    assert_eq!(e, format!("{}: is a FIFO, not a regular file", meta.display()));
}
