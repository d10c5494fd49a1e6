//! Multi-source BFS on the selective engine: the bit-parallel search of [`crate::msbfs()`], one
//! I/O round per level reading the out-lists of the vertices some search visits at that level.
//! Each list is read once per level for all the searches at it, which is how Graphene's APSP
//! cuts the I/O of many traversals.

use std::sync::Mutex;

use diskgraph_engine::selective::{SelectiveGraph, VertexSubset};
use diskgraph_engine::Engine;
use diskgraph_format::Direction;

use crate::msbfs::State;
use crate::AlgoError;
use crate::MultiBfs;

/// Bit-parallel multi-source BFS from `sources` (1 to 64 vertices) along out-edges;
/// `want_matrix` also returns every distance. Same result as [`crate::msbfs()`].
pub fn msbfs(g: &SelectiveGraph, sources: &[u32], want_matrix: bool) -> Result<MultiBfs, AlgoError> {
    let n = g.num_vertices();
    let mut state = State::new(n, sources, want_matrix)?;
    let edges_before = g.edges_delivered();
    while !state.frontier.is_empty() {
        // The frontier as the round's subset: no copy of the list beside it.
        let active = VertexSubset::from_vertices(n, std::mem::take(&mut state.frontier));
        let touched = Mutex::new(Vec::new());
        g.for_each_piece_with(
            Direction::Out,
            &active,
            false,
            Vec::new,
            |t, u, p| state.expand(u, p.targets, t),
            |t| touched.lock().unwrap_or_else(|e| e.into_inner()).extend_from_slice(&t),
        )?;
        active.par_for_each(|u| state.stop_visiting(u));
        drop(active);
        state.settle(&[], touched.into_inner().unwrap_or_else(|e| e.into_inner()));
    }
    Ok(state.finish(g.edges_delivered() - edges_before))
}
