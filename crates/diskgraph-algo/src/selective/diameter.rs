//! Diameter lower bound on the selective engine: the sweeps of [`crate::diameter`] over the
//! selective BFS.

use diskgraph_engine::selective::SelectiveGraph;

use super::{bfs, SelectiveError};
use crate::diameter::{sweep, Diameter};

/// Diameter lower bound from `start` with up to `rounds` BFS sweeps (see [`crate::diameter`]).
pub fn diameter(g: &SelectiveGraph, start: u32, rounds: usize) -> Result<Diameter, SelectiveError> {
    sweep(start, rounds, |s| Ok(bfs(g, s, false)?.levels))
}
