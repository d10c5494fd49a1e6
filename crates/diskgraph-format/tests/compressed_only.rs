//! Compressed-only graphs written by [`ListWriter`]: the same lists written plain, compressed
//! only and both ways (in batches or arc by arc) read back identical through every reader —
//! `load_csr`, `ArcStream`, `ListScan`, `read_list` — and verify; the plain form is the one
//! `CsrWriter` writes, byte for byte; the two forms of a graph have the same lists checksum; a
//! damaged compressed-only list is found by `verify`; the lists' layout cannot be replaced.

mod common;

use std::path::Path;

use diskgraph_format::{
    compress, verify, ArcStream, Codec, Direction, FormatError, GraphBuilder, GraphDir, ListEncoding, ListScan, OUT_ADJ,
};
use proptest::prelude::*;

/// A graph's lists by direction: `(offsets, targets, weights)` of out and, directed, in.
type Lists = Vec<(Vec<u64>, Vec<u32>, Option<Vec<f32>>)>;

/// The sorted lists of `arcs` (both directions stored when undirected) over `n` vertices.
fn lists(n: u32, arcs: &[(u32, u32)], directed: bool, weighted: bool) -> Lists {
    let mut arcs = arcs.to_vec();
    if !directed {
        let rev: Vec<_> = arcs.iter().filter(|a| a.0 != a.1).map(|&(u, v)| (v, u)).collect();
        arcs.extend(rev);
    }
    let csr = |mut arcs: Vec<(u32, u32)>| {
        arcs.sort_unstable();
        let mut offsets = vec![0u64; n as usize + 1];
        for &(u, _) in &arcs {
            offsets[u as usize + 1] += 1;
        }
        for v in 0..n as usize {
            offsets[v + 1] += offsets[v];
        }
        let weights = weighted.then(|| arcs.iter().map(|&(u, v)| u as f32 + v as f32 / 8.0).collect());
        (offsets, arcs.iter().map(|a| a.1).collect(), weights)
    };
    let mut all = vec![csr(arcs.clone())];
    if directed {
        all.push(csr(arcs.iter().map(|&(u, v)| (v, u)).collect()));
    }
    all
}

/// Writes `lists` as a graph at `path` stored as `encoding`: in batches of `batch` vertices,
/// or arc by arc when `batch` is 0.
fn write(path: &Path, lists: &Lists, encoding: ListEncoding, batch: usize) {
    let b = GraphBuilder::create(path, true).unwrap();
    let (n, directed, weighted) = (lists[0].0.len() as u64 - 1, lists.len() == 2, lists[0].2.is_some());
    let mut files = Vec::new();
    for ((offsets, targets, weights), prefix) in lists.iter().zip(["out", "in"]) {
        let mut w = b.lists(prefix, n, weighted, encoding).unwrap();
        if batch == 0 {
            for v in 0..n as usize {
                for i in offsets[v] as usize..offsets[v + 1] as usize {
                    w.push(v as u32, targets[i], weights.as_ref().map(|w| w[i])).unwrap();
                }
            }
        } else {
            for first in (0..n as usize).step_by(batch) {
                let last = (first + batch).min(n as usize);
                let (a, z) = (offsets[first] as usize, offsets[last] as usize);
                let relative: Vec<u64> = offsets[first..=last].iter().map(|o| o - a as u64).collect();
                let wgt = weights.as_ref().map(|w| &w[a..z]);
                w.push_lists(first as u32, &relative, &targets[a..z], wgt).unwrap();
            }
        }
        assert_eq!(w.num_edges(), targets.len() as u64);
        files.extend(w.finish().unwrap());
    }
    let a = lists[0].1.len() as u64;
    let loops = (0..n as usize)
        .map(|v| {
            lists[0].1[lists[0].0[v] as usize..lists[0].0[v + 1] as usize]
                .iter()
                .filter(|&&t| t as usize == v)
                .count() as u64
        })
        .sum::<u64>();
    b.publish(&common::manifest(n, a, loops, directed, weighted, files))
        .unwrap();
}

/// What every reader gives for direction `d` of `g`: load_csr's lists and weights, then the
/// same through ArcStream, ListScan and read_list (each must agree with load_csr).
fn read_all(g: &GraphDir, d: Direction) -> (Vec<u64>, Vec<u32>, Option<Vec<f32>>) {
    let csr = g.load_csr(d, true).unwrap();
    let mut s = ArcStream::open(g, d, true, 64).unwrap();
    let (mut targets, mut weights) = (Vec::new(), Vec::new());
    while s.next_vertex().unwrap().is_some() {
        while let Some((t, w)) = s.next_arc().unwrap() {
            targets.push(t);
            weights.push(w);
        }
    }
    assert_eq!(targets, csr.targets, "ArcStream");
    if let Some(w) = &csr.weights {
        assert_eq!(&weights, w, "ArcStream weights");
    }
    let mut scan = ListScan::open(g, d, true, 256).unwrap();
    let mut scanned = Vec::new();
    let mut scanned_weights = Vec::new();
    while let Some(batch) = scan.next_batch().unwrap() {
        for (v, list, w) in batch.iter() {
            assert_eq!(list, csr.neighbours(v), "ListScan list of {v}");
            scanned.extend_from_slice(list);
            scanned_weights.extend_from_slice(w.unwrap_or(&[]));
        }
    }
    assert_eq!(scanned, csr.targets, "ListScan");
    assert_eq!(
        csr.weights.clone().unwrap_or_default(),
        scanned_weights,
        "ListScan weights"
    );
    for v in 0..csr.num_vertices() as u32 {
        assert_eq!(g.read_list(d, v).unwrap(), csr.neighbours(v), "read_list {v}");
    }
    (csr.offsets, csr.targets, csr.weights)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    #[test]
    fn every_form_reads_back_the_same_lists(
        n in 1u32..200,
        raw in prop::collection::vec((0u32..200, 0u32..200), 0..600),
        hub in any::<bool>(),
        directed in any::<bool>(),
        weighted in any::<bool>(),
        batch in 0usize..40,
    ) {
        let mut arcs: Vec<(u32, u32)> = raw.into_iter().map(|(u, v)| (u % n, v % n)).collect();
        if hub {
            arcs.extend((0..n).map(|v| (n / 2, v)));
        }
        let lists = lists(n, &arcs, directed, weighted);
        let dir = tempfile::tempdir().unwrap();
        let path = |name: &str| dir.path().join(name);
        write(&path("plain"), &lists, ListEncoding::Plain, batch);
        let plain = GraphDir::open(path("plain")).unwrap();
        let dirs: &[Direction] = if directed { &[Direction::Out, Direction::In] } else { &[Direction::Out] };
        for (k, &d) in dirs.iter().enumerate() {
            let (offsets, targets, weights) = read_all(&plain, d);
            prop_assert_eq!(&offsets, &lists[k].0);
            prop_assert_eq!(&targets, &lists[k].1);
            prop_assert_eq!(&weights, &lists[k].2);
        }
        for codec in Codec::ALL {
            for (name, encoding) in [("only", ListEncoding::Compressed(codec)), ("both", ListEncoding::Both(codec))] {
                let p = path(&format!("{codec}-{name}"));
                write(&p, &lists, encoding, (batch + 7) % 40);
                let g = GraphDir::open(&p).unwrap();
                prop_assert_eq!(g.has_plain_lists(), encoding.plain());
                prop_assert_eq!(g.manifest().lists_tie(), plain.manifest().lists_tie());
                let record = g.layouts()[0].compressed().unwrap();
                prop_assert_eq!(record.lists.is_some(), !encoding.plain());
                for (k, &d) in dirs.iter().enumerate() {
                    let (offsets, targets, weights) = read_all(&g, d);
                    prop_assert_eq!(&offsets, &lists[k].0);
                    prop_assert_eq!(&targets, &lists[k].1);
                    prop_assert_eq!(&weights, &lists[k].2);
                }
                let report = verify(&p).unwrap();
                prop_assert_eq!(report.layouts_checked, 1);
                prop_assert_eq!(report.arcs_checked, lists.iter().map(|l| l.1.len() as u64).sum::<u64>());
                if encoding.plain() {
                    for file in ["out.idx", OUT_ADJ, "out.wgt", "in.idx", "in.adj", "in.wgt"] {
                        let (a, b) = (p.join(file), path("plain").join(file));
                        prop_assert_eq!(std::fs::read(&a).ok(), std::fs::read(&b).ok(), "{}", file);
                    }
                }
            }
        }
    }
}

#[test]
fn plain_lists_are_what_csr_writer_writes() {
    let lists = lists(50, &[(0, 1), (0, 7), (3, 3), (3, 3), (49, 0), (10, 11)], true, true);
    let dir = tempfile::tempdir().unwrap();
    let ours = dir.path().join("ours");
    write(&ours, &lists, ListEncoding::Plain, 0);
    let theirs = dir.path().join("theirs");
    let b = GraphBuilder::create(&theirs, false).unwrap();
    let mut files = Vec::new();
    for ((offsets, targets, weights), prefix) in lists.iter().zip(["out", "in"]) {
        let mut w = b.csr(prefix, 50, true).unwrap();
        for v in 0..50usize {
            for i in offsets[v] as usize..offsets[v + 1] as usize {
                w.push(v as u32, targets[i], weights.as_ref().map(|w| w[i])).unwrap();
            }
        }
        files.extend(w.finish().unwrap());
    }
    let ours = GraphDir::open(&ours).unwrap();
    for (name, entry) in files {
        assert_eq!(ours.manifest().files.get(&name), Some(&entry), "{name}");
    }
}

#[test]
fn a_damaged_compressed_only_list_is_found_and_its_layout_is_not_replaced() {
    let lists = lists(300, &(0..299).map(|v| (v, v + 1)).collect::<Vec<_>>(), false, false);
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("g");
    write(&p, &lists, ListEncoding::Compressed(Codec::Vbyte), 64);
    assert!(!p.join(OUT_ADJ).exists());
    let g = GraphDir::open(&p).unwrap();
    let err = compress(&g, Codec::Vbyte, true).unwrap_err();
    assert!(err.to_string().contains("holds the graph's lists"), "{err}");
    compress(&g, Codec::Zeta, false).unwrap();
    assert_eq!(verify(&p).unwrap().layouts_checked, 2);
    let cadj = p.join("compressed-vbyte").join("out.cadj");
    let mut bytes = std::fs::read(&cadj).unwrap();
    bytes[40] ^= 0x55;
    std::fs::write(&cadj, &bytes).unwrap();
    // Found decoding the lists (or by the layout's checksum), naming the file.
    match verify(&p) {
        Err(FormatError::CompressedList { path, .. } | FormatError::Checksum { path, .. }) => assert_eq!(path, cadj),
        other => panic!("a damaged list verified: {other:?}"),
    }
}
