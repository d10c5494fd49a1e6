//! `ListScan` hands out every list and weight exactly as the CSR holds them, whatever the
//! buffer, and refuses a neighbour that is no vertex.

use std::os::unix::fs::FileExt;
use std::path::Path;

use diskgraph_format::{Direction, FormatError, GraphBuilder, GraphDir, ListScan};
use proptest::prelude::*;

mod common;

/// Writes a weighted directed graph of `n` vertices with the sorted `arcs`.
fn write(path: &Path, n: u64, arcs: &[(u32, u32)]) {
    let b = GraphBuilder::create(path, true).unwrap();
    let weight = |u: u32, v: u32| Some(u as f32 + v as f32 / 8.0);
    let mut out = b.csr("out", n, true).unwrap();
    for &(u, v) in arcs {
        out.push(u, v, weight(u, v)).unwrap();
    }
    let mut files = out.finish().unwrap();
    let mut reversed: Vec<(u32, u32)> = arcs.iter().map(|&(u, v)| (v, u)).collect();
    reversed.sort_unstable();
    let mut inn = b.csr("in", n, true).unwrap();
    for &(v, u) in &reversed {
        inn.push(v, u, weight(u, v)).unwrap();
    }
    files.extend(inn.finish().unwrap());
    let loops = arcs.iter().filter(|a| a.0 == a.1).count() as u64;
    b.publish(&common::manifest(n, arcs.len() as u64, loops, true, true, files))
        .unwrap();
}

/// A vertex, its list and its weights, as a scan hands them out.
type Scanned = (u32, Vec<u32>, Option<Vec<f32>>);

/// Every list a scan hands out, and the batches it took.
fn scan(graph: &GraphDir, weights: bool, buffer: usize) -> Result<(Vec<Scanned>, usize), FormatError> {
    let mut scan = ListScan::open(graph, Direction::Out, weights, buffer)?;
    let (mut lists, mut batches) = (Vec::new(), 0);
    while let Some(batch) = scan.next_batch()? {
        batches += 1;
        lists.extend(batch.iter().map(|(v, l, w)| (v, l.to_vec(), w.map(<[f32]>::to_vec))));
    }
    Ok((lists, batches))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Graphs with a hub whose list spans several read buffers, and buffers from tiny to large.
    #[test]
    fn a_scan_yields_the_csr_in_order(
        n in 1u32..3000,
        hub_degree in 0usize..6000,
        others in prop::collection::vec((0u32..3000, 0u32..3000), 0..2000),
        buffer in prop::sample::select(vec![8usize, 100, 4096, 10_000, 1 << 20]),
        weights: bool,
    ) {
        let dir = tempfile::tempdir().unwrap();
        let mut arcs: Vec<(u32, u32)> = (0..hub_degree).map(|i| (n / 2, i as u32 % n)).collect();
        arcs.extend(others.into_iter().map(|(u, v)| (u % n, v % n)));
        arcs.sort_unstable();
        write(dir.path(), u64::from(n), &arcs);
        let graph = GraphDir::open(dir.path()).unwrap();
        let csr = graph.load_csr(Direction::Out, true).unwrap();
        let (lists, batches) = scan(&graph, weights, buffer).unwrap();
        prop_assert_eq!(lists.len(), n as usize);
        for (i, (v, list, w)) in lists.iter().enumerate() {
            prop_assert_eq!(*v, i as u32);
            prop_assert_eq!(list.as_slice(), csr.neighbours(*v));
            prop_assert_eq!(w.as_deref(), weights.then(|| csr.edge_weights(*v).unwrap()));
        }
        // A batch holds a buffer's worth of IDs (and of offsets), or one longer list alone.
        prop_assert!(batches <= n as usize);
        if arcs.len() * 4 <= buffer && n as usize * 8 <= buffer {
            prop_assert_eq!(batches, 1);
        }
    }
}

#[test]
fn a_neighbour_past_the_vertices_is_an_error_naming_the_file_and_arc() {
    let dir = tempfile::tempdir().unwrap();
    let mut arcs: Vec<(u32, u32)> = (0..5000u32).map(|i| (i % 10, i % 10)).collect();
    arcs.sort_unstable();
    write(dir.path(), 10, &arcs);
    // Arc 4321 made to point at vertex 77 of 10.
    let adj = std::fs::OpenOptions::new()
        .write(true)
        .open(dir.path().join("out.adj"))
        .unwrap();
    adj.write_all_at(&77u32.to_le_bytes(), 4321 * 4).unwrap();
    drop(adj);
    let graph = GraphDir::open(dir.path()).unwrap();
    let err = scan(&graph, false, 4096).unwrap_err();
    let message = err.to_string();
    assert!(
        matches!(
            err,
            FormatError::NeighbourOutOfRange {
                index: 4321,
                value: 77,
                ..
            }
        ),
        "{message}"
    );
    assert!(message.contains("out.adj"), "{message}");
}
