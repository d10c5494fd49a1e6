//! A testkit edge list stored as a graph directory by the importer, with the testkit's model
//! of it: what the layout tests partition.

use std::path::PathBuf;

use diskgraph_prep::{import, ImportOptions, InputFormat, InputInfo, NoProgress, RawEdge};
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
    };
    import(&mut src, &path, &opts, &mut NoProgress).unwrap_or_else(|e| panic!("import {name}: {e:#}"));
    Stored {
        _dir: dir,
        path,
        test: el.build(keep),
        name: name.to_string(),
    }
}
