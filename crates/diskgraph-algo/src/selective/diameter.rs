//! Diameter lower bound on the selective engine: the sweeps of [`crate::diameter`] over the
//! selective BFS.

use diskgraph_engine::selective::SelectiveGraph;

use diskgraph_format::Direction;

use super::bfs::reach;
use super::{check_source, SelectiveError};
use crate::bfs::plain_levels;
use crate::diameter::{sweep, Diameter};

/// Diameter lower bound from `start` with up to `rounds` BFS sweeps, ties going to the smallest
/// `ids[v]` (see [`crate::diameter`]).
pub fn diameter(
    g: &SelectiveGraph,
    start: u32,
    rounds: usize,
    ids: Option<&[u64]>,
) -> Result<Diameter, SelectiveError> {
    sweep(start, rounds, ids, |s| {
        check_source(g, s)?;
        Ok(plain_levels(reach(g, s, false, &[Direction::Out])?.level))
    })
}
