//! The graphs the harness runs on: small nasty ones for every option set, more of every kind
//! for every algorithm option, a few large ones, and the real graphs shipped in `testdata/real`.

use std::path::{Path, PathBuf};

use super::fixture::{Case, Naming};
use crate::gen::{self, Weights};
use crate::{EdgeList, Keep};

/// `el` with `n / 5 + 1` self-loops and `n` duplicate edges added (seeded).
fn with_loops_and_duplicates(el: EdgeList, n: usize, seed: u64) -> EdgeList {
    gen::add_duplicates(gen::add_self_loops(el, n / 5 + 1, seed), n, seed)
}

/// Small graphs, each nasty in its own way, under every naming: the corpus every option set
/// runs on.
pub fn nasty() -> Vec<Case> {
    vec![
        Case::new(
            "weighted directed multigraph with self-loops",
            gen::with_weights(
                with_loops_and_duplicates(gen::gnm(120, 600, true, 1), 120, 1),
                Weights::Integer(4),
                1,
            ),
            Keep::all(),
        ),
        Case::new(
            "weighted undirected gnm",
            gen::with_weights(gen::gnm(150, 600, false, 2), Weights::Uniform(0.0, 1.0), 2),
            Keep::default(),
        )
        .named(Naming::Sparse),
        Case::new(
            "disconnected parts, a long path and isolated vertices, undirected",
            gen::relabel(
                gen::add_isolated(gen::union(gen::gnm(80, 160, false, 5), gen::path(80, false)), 40),
                5,
            ),
            Keep::default(),
        )
        .named(Naming::Huge),
        Case::new(
            "rmat scale 8 directed (a hub)",
            gen::relabel(gen::rmat(8, 2000, true, 4), 4),
            Keep::default(),
        )
        .named(Naming::Reordered),
        Case::new(
            "star of 400 with noise, self-loops and duplicates, undirected",
            gen::star(400, 60, false, 8),
            Keep::all(),
        ),
        Case::new(
            "dag with negative weights",
            gen::with_weights(gen::dag(100, 300, 7), Weights::WithNegative, 7),
            Keep::default(),
        ),
        Case::new(
            "weighted grid 10x12 directed",
            gen::with_weights(gen::grid(10, 12, true), Weights::Integer(9), 6),
            Keep::default(),
        )
        .named(Naming::Sparse),
        Case::new("long directed path", gen::path(300, true), Keep::default()),
        Case::new(
            "cycle chain (many strongly connected components)",
            gen::relabel(gen::cycle_chain(12, 9, 2, 15, 3), 3),
            Keep::all(),
        )
        .named(Naming::Reordered),
        Case::new(
            "single vertex with self-loops",
            EdgeList::new(1, true, vec![(0, 0), (0, 0)]),
            Keep::all(),
        ),
        Case::new(
            "two isolated vertices",
            EdgeList::new(2, false, vec![]),
            Keep::default(),
        ),
        Case::new(
            "pair multigraph with mixed weights",
            gen::with_weights(EdgeList::new(2, true, vec![(0, 1), (1, 0), (0, 1)]), Weights::Mixed, 1),
            Keep::all(),
        ),
    ]
}

/// Nasty graphs stored compressed-only (no `out.adj`; each codec), directed and undirected,
/// weighted, with self-loops, duplicates, isolated vertices and sparse IDs: every (algorithm,
/// engine) must read them through the codec.
pub fn compressed_only() -> Vec<Case> {
    use diskgraph_format::Codec::{Vbyte, Zeta};
    let nasty = nasty();
    let pick = |name: &str| {
        nasty
            .iter()
            .find(|c| c.name.starts_with(name))
            .cloned()
            .unwrap_or_else(|| panic!("no nasty case {name:?}"))
    };
    vec![
        pick("weighted directed multigraph").compressed_only(Vbyte),
        pick("weighted undirected gnm").compressed_only(Zeta),
        pick("disconnected parts").compressed_only(Vbyte),
        pick("star of 400").compressed_only(Zeta),
        pick("two isolated vertices").compressed_only(Vbyte),
        Case::new(
            "rmat scale 8 directed (a hub)",
            gen::relabel(gen::rmat(8, 2000, true, 4), 4),
            Keep::default(),
        )
        .named(Naming::Sparse)
        .compressed_only(Zeta),
    ]
}

/// Seeded graphs of every kind and size up to a few thousand vertices: the corpus every
/// algorithm option runs on.
pub fn seeded() -> Vec<Case> {
    let mut cases = Vec::new();
    let keeps = [
        Keep::default(),
        Keep {
            self_loops: true,
            duplicates: false,
        },
        Keep {
            self_loops: false,
            duplicates: true,
        },
        Keep::all(),
    ];
    let namings = [Naming::Dense, Naming::Sparse, Naming::Huge, Naming::Reordered];
    for seed in 0..16u64 {
        let directed = seed % 2 == 0;
        let keep = keeps[(seed / 2 % 4) as usize];
        let naming = namings[(seed % 4) as usize];
        let n = [3, 8, 20, 64, 200, 1000, 2500, 5][(seed % 8) as usize];
        let m = [n / 2, n, 2 * n, 8 * n][(seed % 4) as usize];
        cases.push(
            Case::new(
                format!("gnm n={n} m={m} d={directed} {keep:?} s{seed}"),
                gen::gnm(n, m, directed, seed),
                keep,
            )
            .named(naming),
        );
        let kind = [
            Weights::Uniform(0.0, 1.0),
            Weights::Integer(4),
            Weights::Zero,
            Weights::Mixed,
            Weights::Integer(0),
            Weights::Uniform(1e-3, 1e3),
        ][(seed % 6) as usize];
        let el = gen::with_weights(
            with_loops_and_duplicates(gen::gnm(n, 4 * n, directed, seed + 7), n, seed),
            kind,
            seed,
        );
        cases.push(Case::new(
            format!("weighted {kind:?} n={n} d={directed} {keep:?} s{seed}"),
            el,
            keep,
        ));
        let scale = 4 + (seed % 7) as u32;
        let el = gen::relabel(gen::rmat(scale, 6 << scale, directed, seed), seed);
        cases.push(Case::new(format!("rmat scale={scale} d={directed} {keep:?} s{seed}"), el, keep).named(naming));
    }
    for seed in 0..4u64 {
        let n = [10, 100, 1000, 3000][seed as usize];
        let directed = seed % 2 == 0;
        cases.push(Case::new(
            format!("star n={n} d={directed}"),
            gen::star(n, n / 10, directed, seed),
            Keep::default(),
        ));
        cases.push(Case::new(
            format!("dag n={n}"),
            gen::dag(n, 3 * n, seed),
            Keep::default(),
        ));
        let (r, c) = [(1, 50), (7, 7), (30, 40), (50, 60)][seed as usize];
        cases.push(Case::new(
            format!("grid {r}x{c} d={directed}"),
            gen::grid(r, c, directed),
            Keep::default(),
        ));
    }
    cases
}

/// Graphs large enough for the engines' parallel paths, bottom-up steps and hub splitting.
pub fn large() -> Vec<Case> {
    let mut cases = Vec::new();
    for directed in [false, true] {
        cases.push(Case::new(
            format!("large gnm d={directed}"),
            gen::gnm(30_000, 300_000, directed, 99),
            Keep::default(),
        ));
        cases.push(Case::new(
            format!("large weighted gnm d={directed}"),
            gen::with_weights(gen::gnm(20_000, 200_000, directed, 98), Weights::Uniform(0.0, 1.0), 3),
            Keep::all(),
        ));
        cases.push(Case::new(
            format!("large star d={directed}"),
            gen::star(60_000, 5_000, directed, 5),
            Keep::default(),
        ));
    }
    cases
}

/// The real graphs shipped in `testdata/real` (copies of the project's shared datasets), as
/// the command line imports them.
pub fn real() -> Vec<Case> {
    let dir = real_data();
    [
        ("wiki-Vote.txt", false),
        ("email-Eu-core.txt", false),
        ("as20graph.txt", true),
        ("rome99.gr", false),
        ("chesapeake.mtx", false),
        ("GD01_b.mtx", false),
        ("LFAT5.mtx", false),
        ("Ragusa16.mtx", false),
        ("foodweb-baydry.konect", false),
    ]
    .into_iter()
    .map(|(file, undirected)| Case::from_file(&dir.join(file), undirected))
    .collect()
}

/// `testdata/real` of this repository.
pub fn real_data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/real")
}
