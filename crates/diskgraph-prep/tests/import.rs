//! The import pipeline against a plain in-memory model of the cleaning rules, on many random
//! edge lists with nasty features, under budgets that keep everything in memory and budgets
//! that force external sort runs and the sorted-ID path.

use std::collections::{BTreeMap, BTreeSet};

use diskgraph_format::{verify, Direction, GraphDir};
use diskgraph_prep::{import, ImportOptions, InputFormat, InputInfo, NoProgress, RawEdge};
use diskgraph_testkit::VecSource;
use proptest::prelude::*;

#[derive(Clone, Debug)]
struct Case {
    edges: Vec<(u64, u64, f32)>,
    extra: Vec<u64>,
    declared: Option<std::ops::Range<u64>>,
    directed: bool,
    weighted: bool,
    keep_self_loops: bool,
    keep_duplicates: bool,
    memory: u64,
}

/// Expected arcs (original IDs, sorted) and vertex set, computed the obvious way.
/// An arc in original IDs with its weight, if the graph is weighted.
type Arc = (u64, u64, Option<f32>);

fn model(c: &Case) -> (Vec<u64>, Vec<Arc>) {
    let mut vertices: BTreeSet<u64> = c.edges.iter().flat_map(|&(u, v, _)| [u, v]).collect();
    vertices.extend(&c.extra);
    if let Some(r) = &c.declared {
        vertices.extend(r.clone());
    }
    let mut arcs: Vec<(u64, u64, f32)> = Vec::new();
    for &(u, v, w) in &c.edges {
        if u == v && !c.keep_self_loops {
            continue;
        }
        arcs.push((u, v, w));
        if !c.directed && u != v {
            arcs.push((v, u, w));
        }
    }
    arcs.sort_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)).then(a.2.total_cmp(&b.2)));
    if !c.keep_duplicates {
        let mut best: BTreeMap<(u64, u64), f32> = BTreeMap::new();
        for (u, v, w) in arcs {
            best.entry((u, v)).and_modify(|x| *x = x.min(w)).or_insert(w);
        }
        arcs = best.into_iter().map(|((u, v), w)| (u, v, w)).collect();
    }
    let arcs = arcs
        .into_iter()
        .map(|(u, v, w)| (u, v, c.weighted.then_some(w)))
        .collect();
    (vertices.into_iter().collect(), arcs)
}

fn arcs_of(g: &GraphDir, dir: Direction, ids: &[u64]) -> Vec<Arc> {
    let csr = g.load_csr(dir, true).unwrap();
    let mut out = Vec::new();
    for u in 0..csr.num_vertices() as u32 {
        let ws = csr.edge_weights(u);
        for (i, &v) in csr.neighbours(u).iter().enumerate() {
            let (a, b) = if dir == Direction::Out { (u, v) } else { (v, u) };
            out.push((ids[a as usize], ids[b as usize], ws.map(|w| w[i])));
        }
    }
    out.sort_by(|a, b| {
        (a.0, a.1)
            .cmp(&(b.0, b.1))
            .then(a.2.unwrap_or(0.0).total_cmp(&b.2.unwrap_or(0.0)))
    });
    out
}

fn check(c: &Case) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g");
    let info = InputInfo {
        format: InputFormat::Generated,
        directed: Some(c.directed),
        weighted: c.weighted,
        declared_vertices: c.declared.clone(),
        description: "test".into(),
    };
    let edges = c
        .edges
        .iter()
        .map(|&(src, dst, w)| RawEdge {
            src,
            dst,
            weight: c.weighted.then_some(w),
        })
        .collect();
    let mut src = VecSource::new(info, edges)
        .with_vertices(c.extra.clone())
        .in_batches_of(777);
    let opts = ImportOptions {
        undirected: false,
        keep_self_loops: c.keep_self_loops,
        keep_duplicates: c.keep_duplicates,
        memory: c.memory,
        force: false,
        ..ImportOptions::default()
    };
    let (vertices, arcs) = model(c);
    let result = import(&mut src, &path, &opts, &mut NoProgress);
    if vertices.is_empty() {
        assert!(result.is_err());
        return;
    }
    let summary = result.unwrap();
    verify(&path).unwrap();
    let g = GraphDir::open(&path).unwrap();
    let ids = g.original_ids().unwrap();
    assert_eq!(ids, vertices);
    assert_eq!(
        summary.ids_remapped,
        vertices.iter().enumerate().any(|(i, &v)| v != i as u64)
    );
    let got = arcs_of(&g, Direction::Out, &ids);
    assert_eq!(got, arcs);
    if c.directed {
        assert_eq!(arcs_of(&g, Direction::In, &ids), arcs);
    }
    let pushed: usize = c
        .edges
        .iter()
        .filter(|e| e.0 != e.1 || c.keep_self_loops)
        .map(|e| if !c.directed && e.0 != e.1 { 2 } else { 1 })
        .sum();
    assert_eq!(summary.duplicates_merged, (pushed - arcs.len()) as u64);
    let m = g.manifest();
    let loops = arcs.iter().filter(|a| a.0 == a.1).count() as u64;
    assert_eq!(m.num_self_loops, loops);
    assert_eq!(m.num_arcs, arcs.len() as u64);
    let want_edges = if c.directed {
        arcs.len() as u64
    } else {
        (arcs.len() as u64 - loops) / 2 + loops
    };
    assert_eq!(m.num_edges, want_edges);
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(
        leftovers,
        vec![std::ffi::OsString::from("g")],
        "no temporary files remain"
    );
}

/// IDs drawn from a few shapes: dense small, sparse huge, or a mix with the extremes.
fn id_strategy() -> impl Strategy<Value = (u64, u64)> {
    prop_oneof![
        Just((0, 50)),
        Just((1_000_000, 1_000_060)),
        Just((u64::MAX - 40, u64::MAX))
    ]
}

fn case_strategy() -> impl Strategy<Value = Case> {
    (
        id_strategy(),
        0usize..400,
        any::<[bool; 5]>(),
        prop::sample::select(vec![1u64 << 20, 1 << 30]),
        any::<u64>(),
    )
        .prop_map(|((lo, hi), m, flags, memory, seed)| {
            let mut x = seed | 1;
            let mut next = move || {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x
            };
            let span = hi - lo + 1;
            let mut edges: Vec<(u64, u64, f32)> = (0..m)
                .map(|_| (lo + next() % span, lo + next() % span, (next() % 7) as f32 - 2.0))
                .collect();
            if flags[4] && !edges.is_empty() {
                let hub = edges[0].0;
                edges.extend((0..m as u64).map(|i| (hub, lo + i % span, 1.5)));
            }
            Case {
                edges,
                extra: if flags[3] { vec![lo, hi, lo + span / 2] } else { vec![] },
                declared: None,
                directed: flags[0],
                weighted: flags[1],
                keep_self_loops: flags[2],
                keep_duplicates: flags[2] && flags[3],
                memory,
            }
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    #[test]
    fn import_matches_model(c in case_strategy()) {
        check(&c);
    }
}

#[test]
fn spills_many_runs_and_uses_sorted_ids() {
    // 300k edges on sparse 64-bit IDs with a 1 MiB budget: several sort runs, and more distinct
    // IDs than the bitmap may cover, so the sorted-ID path ranks them.
    let mut edges = Vec::new();
    let mut x = 88172645463325252u64;
    for _ in 0..300_000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        edges.push((
            (x % 50_000) * 1_000_003,
            ((x >> 20) % 50_000) * 1_000_003,
            (x % 100) as f32,
        ));
    }
    for directed in [true, false] {
        check(&Case {
            edges: edges.clone(),
            extra: vec![],
            declared: None,
            directed,
            weighted: true,
            keep_self_loops: false,
            keep_duplicates: false,
            memory: 1 << 20,
        });
    }
}

#[test]
fn long_path_declared_isolated_vertices_and_only_self_loops() {
    let path: Vec<(u64, u64, f32)> = (0..100_000u64).map(|i| (i, i + 1, 1.0)).collect();
    let base = Case {
        edges: path,
        extra: vec![],
        declared: Some(0..100_050),
        directed: false,
        weighted: false,
        keep_self_loops: false,
        keep_duplicates: false,
        memory: 1 << 20,
    };
    check(&base);
    check(&Case {
        edges: vec![(7, 7, 1.0), (9, 9, 2.0)],
        declared: None,
        ..base.clone()
    });
    check(&Case {
        edges: vec![(7, 7, 1.0)],
        keep_self_loops: true,
        declared: None,
        ..base.clone()
    });
    check(&Case {
        edges: vec![],
        declared: Some(1..4),
        ..base.clone()
    });
    check(&Case {
        edges: vec![],
        declared: None,
        ..base
    });
}
