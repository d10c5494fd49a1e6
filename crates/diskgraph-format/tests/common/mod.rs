//! What the format's integration tests share.

use std::collections::BTreeMap;

use diskgraph_format::{FileEntry, Manifest, FORMAT_NAME, FORMAT_VERSION};

/// The manifest of a test graph of `n` vertices and `arcs` arcs (`loops` of them self-loops),
/// duplicates allowed, its data files `files`.
#[allow(dead_code)] // each test binary compiles this module
pub fn manifest(
    n: u64,
    arcs: u64,
    loops: u64,
    directed: bool,
    weighted: bool,
    files: Vec<(String, FileEntry)>,
) -> Manifest {
    Manifest {
        format: FORMAT_NAME.into(),
        version: FORMAT_VERSION,
        num_vertices: n,
        num_edges: if directed { arcs } else { (arcs - loops) / 2 + loops },
        num_arcs: arcs,
        num_self_loops: loops,
        directed,
        weighted,
        multi_edges: true,
        ordering: "original".into(),
        ids_remapped: false,
        files: files.into_iter().collect(),
        layouts: vec![],
        tool: "test".into(),
        source: BTreeMap::new(),
    }
}
