//! A testkit edge list stored as a graph directory by the importer, with the testkit's model
//! of it: what the layout tests partition.

use std::path::PathBuf;

use diskgraph_prep::{import, ImportOptions, InputFormat, InputInfo, NoProgress, RawEdge};
use diskgraph_testkit::gen::{self, Weights};
use diskgraph_testkit::{EdgeList, Keep, TestGraph, VecSource};

/// A graph directory imported from a testkit edge list, with the testkit's model of it.
pub struct Stored {
    /// The temporary directory holding it, removed on drop.
    pub _dir: tempfile::TempDir,
    /// The graph directory.
    pub path: PathBuf,
    /// The testkit's model of the stored graph.
    pub test: TestGraph,
    /// The graph's name, for messages.
    pub name: String,
}

/// Imports `el` keeping what `keep` says.
pub fn store(name: &str, el: &EdgeList, keep: Keep) -> Stored {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g");
    let n = el.num_vertices as u64;
    let info = InputInfo {
        format: InputFormat::Generated,
        directed: Some(el.directed),
        weighted: el.weights.is_some(),
        declared_vertices: Some(0..n),
        description: name.to_string(),
    };
    let edges = el
        .edges
        .iter()
        .enumerate()
        .map(|(i, &(s, d))| RawEdge {
            src: u64::from(s),
            dst: u64::from(d),
            weight: el.weights.as_ref().map(|w| w[i]),
        })
        .collect();
    let mut src = VecSource::new(info, edges);
    let opts = ImportOptions {
        undirected: !el.directed,
        keep_self_loops: keep.self_loops,
        keep_duplicates: keep.duplicates,
        memory: 64 << 20,
        force: false,
        ..ImportOptions::default()
    };
    import(&mut src, &path, &opts, &mut NoProgress).unwrap_or_else(|e| panic!("import {name}: {e:#}"));
    Stored {
        _dir: dir,
        path,
        test: el.build(keep),
        name: name.to_string(),
    }
}

/// Seeded graphs with the nasty features (self-loops, duplicates, isolated vertices, a hub,
/// directed and undirected), each stored with and without self-loops/duplicates; the R-MAT one
/// with mixed weights when `weighted`.
pub fn seeded(weighted: bool) -> Vec<Stored> {
    let mut out = Vec::new();
    for seed in 0..6u64 {
        let directed = seed.is_multiple_of(2);
        let n = 5 + 11 * seed as usize;
        let rmat = gen::rmat(6, 300, directed, seed);
        let (rmat_name, rmat) = match weighted {
            true => ("weighted", gen::with_weights(rmat, Weights::Mixed, seed)),
            false => ("rmat+loops+dups", rmat),
        };
        let lists = [
            ("gnm", gen::gnm(n, 4 * n, directed, seed)),
            (
                "gnm+loops+dups+isolated",
                gen::relabel(
                    gen::add_isolated(
                        gen::add_duplicates(
                            gen::add_self_loops(gen::gnm(n, 3 * n, directed, seed), 5, seed),
                            9,
                            seed,
                        ),
                        7,
                    ),
                    seed,
                ),
            ),
            ("star", gen::star(n + 3, n, directed, seed)),
            (
                rmat_name,
                gen::add_duplicates(gen::add_self_loops(rmat, 4, seed), 20, seed),
            ),
        ];
        for (i, (name, el)) in lists.into_iter().enumerate() {
            let keep = if (seed as usize + i).is_multiple_of(2) {
                Keep::all()
            } else {
                Keep::default()
            };
            out.push(store(&format!("{name}/seed{seed}/{keep:?}"), &el, keep));
        }
    }
    out
}
