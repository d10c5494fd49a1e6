//! Diameter lower bound on the selective engine: the sweeps of [`crate::diameter`] over the
//! selective BFS.

use diskgraph_engine::selective::SelectiveGraph;
use diskgraph_engine::Engine;

use diskgraph_format::Direction;

use crate::bfs::selective::reach;
use crate::diameter::{sweep, Diameter};
use crate::AlgoError;

/// Diameter lower bound from `start` with up to `rounds` BFS sweeps, ties going to the smallest
/// `ids[v]` (see [`crate::diameter`]).
pub fn diameter(g: &SelectiveGraph, start: u32, rounds: usize, ids: Option<&[u64]>) -> Result<Diameter, AlgoError> {
    sweep(start, rounds, ids, |s| {
        g.check_vertex(s)?;
        Ok(reach(g, s, &[Direction::Out])?.plain_levels())
    })
}
