//! The import pipeline against a plain in-memory model of the cleaning rules, on many random
//! edge lists with nasty features, under budgets that place every list in one pass and budgets
//! that force many passes, counting passes, lists longer than the placement buffer and the
//! sorted-ID path; from sources that start over and from sources read once (spooled).

use std::collections::{BTreeMap, BTreeSet};

use diskgraph_format::{verify, Direction, GraphDir};
use diskgraph_prep::import::MIN_MEMORY;
use diskgraph_prep::{import, EdgeSource, ImportOptions, InputError, InputFormat, InputInfo, NoProgress, RawEdge};
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
    /// Whether the source can start over (else the import spools it).
    rewindable: bool,
}

/// A source that can be read only once, as standard input.
struct ReadOnce(VecSource);

impl EdgeSource for ReadOnce {
    fn info(&self) -> &InputInfo {
        self.0.info()
    }
    fn next_batch(&mut self, out: &mut Vec<RawEdge>) -> Result<bool, InputError> {
        self.0.next_batch(out)
    }
    fn progress(&self) -> (u64, Option<u64>) {
        self.0.progress()
    }
    fn extra_vertices(&mut self) -> Vec<u64> {
        self.0.extra_vertices()
    }
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
    let src = VecSource::new(info, edges)
        .with_vertices(c.extra.clone())
        .in_batches_of(777);
    let mut src: Box<dyn EdgeSource> = match c.rewindable {
        true => Box::new(src),
        false => Box::new(ReadOnce(src)),
    };
    let opts = ImportOptions {
        undirected: false,
        keep_self_loops: c.keep_self_loops,
        keep_duplicates: c.keep_duplicates,
        memory: c.memory,
        force: false,
        ..ImportOptions::default()
    };
    let (vertices, arcs) = model(c);
    let result = import(src.as_mut(), &path, &opts, &mut NoProgress);
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
    if arcs.is_empty() {
        assert_eq!(summary.passes, 1, "nothing to place");
    } else {
        assert!(summary.passes >= 2, "a first read, then placement");
    }
    let spool = if c.rewindable { 0 } else { 8 * c.edges.len() as u64 };
    assert!(summary.peak_scratch_bytes >= spool, "{summary:?}");
    assert!(summary.bytes_written >= summary.peak_scratch_bytes);
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
        any::<[bool; 6]>(),
        prop::sample::select(vec![MIN_MEMORY, 1 << 20, 1 << 30]),
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
                rewindable: flags[5],
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
            rewindable: true,
        });
    }
    // At the smallest budget: counting passes over ranges of ranks (the counters of the
    // sparse IDs do not fit), many placement passes, and the spool of a source read once.
    for rewindable in [true, false] {
        check(&Case {
            edges: edges[..60_000].to_vec(),
            extra: vec![],
            declared: None,
            directed: true,
            weighted: true,
            keep_self_loops: false,
            keep_duplicates: false,
            memory: MIN_MEMORY,
            rewindable,
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
        rewindable: true,
    };
    check(&base);
    check(&Case {
        memory: MIN_MEMORY,
        rewindable: false,
        ..base.clone()
    });
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

/// Bytes of the graph's files.
fn graph_bytes(path: &std::path::Path) -> u64 {
    std::fs::read_dir(path)
        .unwrap()
        .map(|e| e.unwrap().metadata().unwrap())
        .filter(|m| m.is_file())
        .map(|m| m.len())
        .sum()
}

#[test]
fn many_passes_keep_scratch_within_half_the_graph() {
    // A hub joined to 20k vertices (its list alone is larger than the 32 KiB placement buffer
    // of the smallest budget), duplicates with different weights, self-loops, isolated declared
    // vertices: directed and undirected, weighted or not, kept or merged.
    let mut edges: Vec<(u64, u64, f32)> = (0..20_000u64).map(|i| (7, 100 + i, (i % 5) as f32)).collect();
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..30_000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        edges.push((x % 20_000, (x >> 24) % 20_000, (x % 9) as f32));
    }
    edges.extend([(5, 5, 1.0), (5, 5, 0.5), (7, 100, -1.0), (20_100, 20_100, 2.0)]);
    for (directed, weighted, keep) in [
        (false, false, false),
        (true, true, false),
        (false, true, true),
        (true, false, true),
    ] {
        let c = Case {
            edges: edges.clone(),
            extra: vec![],
            declared: Some(0..20_300),
            directed,
            weighted,
            keep_self_loops: keep,
            keep_duplicates: keep,
            memory: MIN_MEMORY,
            rewindable: true,
        };
        check(&c);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("g");
        let info = InputInfo {
            format: InputFormat::Generated,
            directed: Some(directed),
            weighted,
            declared_vertices: c.declared.clone(),
            description: "hub".into(),
        };
        let raw = edges
            .iter()
            .map(|&(src, dst, w)| RawEdge {
                src,
                dst,
                weight: weighted.then_some(w),
            })
            .collect();
        let mut src = VecSource::new(info, raw);
        let opts = ImportOptions {
            keep_self_loops: keep,
            keep_duplicates: keep,
            memory: MIN_MEMORY,
            ..ImportOptions::default()
        };
        let s = import(&mut src, &path, &opts, &mut NoProgress).unwrap();
        let graph = graph_bytes(&path);
        assert!(s.passes > 10, "{} passes", s.passes);
        assert!(s.peak_scratch_bytes > 0, "the hub's list went through sort runs");
        assert!(
            2 * s.peak_scratch_bytes <= graph,
            "peak scratch {} + graph {graph} is more than 1.5 times the graph",
            s.peak_scratch_bytes
        );
    }
}
