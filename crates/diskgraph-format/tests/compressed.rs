//! Compressed adjacency layouts: every list decodes back to the graph's (directed, undirected,
//! weighted, multigraphs, isolated vertices, a hub), the manifest records the layout, verify
//! checks it, and damaged layouts — a changed byte under a re-sealed checksum, a lying index,
//! a layout of another graph — are refused with the file named.

mod common;

use std::path::Path;

use diskgraph_format::{
    compress, verify, verify_compressed, Codec, CompressedLayout, Direction, FormatError, GraphBuilder, GraphDir,
    LayoutKind, OUT_CADJ, OUT_CIDX,
};
use proptest::prelude::*;

/// Writes a graph of `n` vertices with these arcs (sorted here; both directions when
/// undirected), weights `src + dst / 8` when `weighted`.
fn write_graph(path: &Path, n: u64, arcs: &[(u32, u32)], directed: bool, weighted: bool) {
    let mut arcs = arcs.to_vec();
    if !directed {
        let rev: Vec<_> = arcs.iter().filter(|a| a.0 != a.1).map(|&(u, v)| (v, u)).collect();
        arcs.extend(rev);
    }
    arcs.sort_unstable();
    let b = GraphBuilder::create(path, false).unwrap();
    let mut files = Vec::new();
    let weight = |u: u32, v: u32| weighted.then_some(u as f32 + v as f32 / 8.0);
    let mut out = b.csr("out", n, weighted).unwrap();
    for &(u, v) in &arcs {
        out.push(u, v, weight(u, v)).unwrap();
    }
    files.extend(out.finish().unwrap());
    if directed {
        let mut rev: Vec<_> = arcs.iter().map(|&(u, v)| (v, u)).collect();
        rev.sort_unstable();
        let mut inn = b.csr("in", n, weighted).unwrap();
        for &(u, v) in &rev {
            inn.push(u, v, weight(v, u)).unwrap();
        }
        files.extend(inn.finish().unwrap());
    }
    let loops = arcs.iter().filter(|a| a.0 == a.1).count() as u64;
    let a = arcs.len() as u64;
    b.publish(&common::manifest(n, a, loops, directed, weighted, files))
        .unwrap();
}

/// Compresses with every codec and checks each direction decodes to the plain CSR.
fn check_round_trip(path: &Path) {
    let g = GraphDir::open(path).unwrap();
    for codec in Codec::ALL {
        let r = compress(&g, codec, false).unwrap();
        assert_eq!(r.codec, codec);
    }
    let g = GraphDir::open(path).unwrap();
    let dirs: &[Direction] = if g.manifest().directed {
        &[Direction::Out, Direction::In]
    } else {
        &[Direction::Out]
    };
    for record in g.layouts() {
        assert_eq!(record.kind(), LayoutKind::Compressed);
        let layout = CompressedLayout::open(&g, record.name()).unwrap();
        for &d in dirs {
            let plain = g.load_csr(d, true).unwrap();
            let decoded = layout.load_csr(&g, d, true).unwrap();
            assert_eq!(decoded.offsets, plain.offsets, "{} {d:?}", record.name());
            assert_eq!(decoded.targets, plain.targets, "{} {d:?}", record.name());
            assert_eq!(decoded.weights, plain.weights);
        }
    }
    let report = verify(path).unwrap();
    assert_eq!(report.layouts_checked, Codec::ALL.len());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    #[test]
    fn every_list_decodes_to_the_graphs(
        n in 1u32..300,
        raw in prop::collection::vec((0u32..300, 0u32..300), 0..900),
        hub in any::<bool>(),
        directed in any::<bool>(),
        weighted in any::<bool>(),
    ) {
        let mut arcs: Vec<(u32, u32)> = raw.into_iter().map(|(u, v)| (u % n, v % n)).collect();
        if hub {
            arcs.extend((0..n).map(|v| (n / 2, v)));
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("g");
        write_graph(&path, u64::from(n), &arcs, directed, weighted);
        check_round_trip(&path);
    }
}

#[test]
fn a_graph_without_arcs_round_trips() {
    let dir = tempfile::tempdir().unwrap();
    write_graph(&dir.path().join("empty"), 5, &[], true, false);
    check_round_trip(&dir.path().join("empty"));
}

/// A small directed graph compressed with vbyte: its directory and the layout's.
fn compressed_graph(dir: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let path = dir.join("g");
    let arcs: Vec<(u32, u32)> = (0..400u32).map(|i| (i % 37, (i * 7919) % 211)).collect();
    write_graph(&path, 211, &arcs, true, false);
    let r = compress(&GraphDir::open(&path).unwrap(), Codec::Vbyte, false).unwrap();
    (path, r.path)
}

/// Rewrites `file` of the compressed layout with `edit` applied and re-seals its checksum in
/// `compressed.json`, so only the deeper checks can find the lie.
fn reseal(layout: &Path, file: &str, edit: impl FnOnce(&mut Vec<u8>)) {
    diskgraph_testkit::reseal(layout, "compressed.json", file, edit);
}

#[test]
fn a_changed_list_is_found_by_verify_and_by_a_load() {
    let dir = tempfile::tempdir().unwrap();
    let (graph, layout) = compressed_graph(dir.path());
    // The first list's length byte: the list no longer ends where its index says.
    reseal(&layout, OUT_CADJ, |b| b[0] ^= 0x01);
    let err = verify(&graph).unwrap_err();
    assert!(matches!(err, FormatError::CompressedList { vertex: 0, .. }), "{err}");
    assert!(err.to_string().contains("out.cadj"), "{err}");
    let g = GraphDir::open(&graph).unwrap();
    let l = CompressedLayout::open(&g, "compressed-vbyte").unwrap();
    assert!(l.load_csr(&g, Direction::Out, false).is_err());
}

#[test]
fn a_list_that_decodes_to_other_ids_is_found_by_verify() {
    let dir = tempfile::tempdir().unwrap();
    let (graph, layout) = compressed_graph(dir.path());
    // The last byte is the last gap of the last non-empty list: a valid list, the wrong IDs.
    reseal(&layout, OUT_CADJ, |b| {
        let last = b.len() - 1;
        b[last] = b[last].wrapping_sub(1).max(1);
    });
    let err = verify_compressed(&GraphDir::open(&graph).unwrap(), "compressed-vbyte").unwrap_err();
    assert!(err.to_string().contains("differs from"), "{err}");
}

#[test]
fn a_lying_index_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (graph, layout) = compressed_graph(dir.path());
    reseal(&layout, OUT_CIDX, |b| b[8..16].copy_from_slice(&u64::MAX.to_le_bytes()));
    let g = GraphDir::open(&graph).unwrap();
    let l = CompressedLayout::open(&g, "compressed-vbyte").unwrap();
    let err = l.load_offsets(Direction::Out).unwrap_err();
    assert!(matches!(err, FormatError::Index { .. }), "{err}");
    assert!(err.to_string().contains("out.cidx"), "{err}");
}

#[test]
fn damaged_bytes_fail_the_checksum_and_a_layout_of_another_graph_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (graph, layout) = compressed_graph(dir.path());
    let p = layout.join(OUT_CADJ);
    let mut bytes = std::fs::read(&p).unwrap();
    bytes[3] ^= 0x40;
    std::fs::write(&p, &bytes).unwrap();
    assert!(matches!(verify(&graph).unwrap_err(), FormatError::Checksum { .. }));
    // The layout moved into a graph with other lists.
    let other = dir.path().join("other");
    write_graph(&other, 211, &[(1, 2)], true, false);
    std::fs::rename(&layout, other.join("compressed-vbyte")).unwrap();
    let manifest = std::fs::read_to_string(other.join("manifest.json")).unwrap();
    let listed = manifest.replace("\"layouts\": []", "\"layouts\": [\"compressed-vbyte\"]");
    std::fs::write(other.join("manifest.json"), listed).unwrap();
    let g = GraphDir::open(&other).unwrap();
    let err = CompressedLayout::open(&g, "compressed-vbyte").unwrap_err();
    assert!(
        err.to_string().contains("disagree") || err.to_string().contains("out.adj"),
        "{err}"
    );
}

#[test]
fn compressing_again_needs_force() {
    let dir = tempfile::tempdir().unwrap();
    let (graph, _) = compressed_graph(dir.path());
    let g = GraphDir::open(&graph).unwrap();
    assert!(matches!(
        compress(&g, Codec::Vbyte, false),
        Err(FormatError::Exists { .. })
    ));
    compress(&g, Codec::Vbyte, true).unwrap();
    verify(&graph).unwrap();
}
