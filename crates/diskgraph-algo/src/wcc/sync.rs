//! Weakly connected components on the sync engine: a breadth-first search per component, as in
//! PrefEdge's Figure 4 (Nilakant et al., SYSTOR '14). An outer sequential scan over the vertices
//! (level 0) starts a BFS from every vertex not labelled yet; the BFS follows edges both ways
//! through a FIFO queue (level 1) that the prefetcher reads ahead of (§3.4–3.5). The scan meets
//! each component first at its smallest vertex, which becomes the label: the memory engine's
//! convention.
//!
//! Directed graphs need their in-edges (both directions are followed).

use diskgraph_engine::sync::{AheadQueue, Reads, Sequential, SyncGraph};
use diskgraph_engine::{Engine, EngineError};
use diskgraph_format::Direction;

use crate::{AlgoError, Components};

/// Label of a vertex no BFS has reached yet.
const UNLABELLED: u32 = u32::MAX;

/// The directions a traversal of the undirected view reads on `g`: out-lists, and in-lists
/// when `g` is directed.
///
/// Errors: [`EngineError::MissingInEdges`] for a directed graph opened without its in-edges.
pub(crate) fn both_ways(g: &SyncGraph) -> Result<Vec<Direction>, AlgoError> {
    if !g.directed() {
        return Ok(vec![Direction::Out]);
    }
    if !g.has(Direction::In) {
        return Err(EngineError::MissingInEdges.into());
    }
    Ok(vec![Direction::Out, Direction::In])
}

/// Weakly connected components (edge direction ignored), each labelled by its smallest vertex.
///
/// Errors: [`EngineError::MissingInEdges`] for a directed graph opened without its in-edges;
/// engine failures.
pub fn wcc(g: &SyncGraph) -> Result<Components, AlgoError> {
    let n = g.num_vertices();
    let dirs = both_ways(g)?;
    let reads = |level| Reads {
        directions: dirs.clone(),
        weights: false,
        level,
    };
    let mut labels = vec![UNLABELLED; n];
    let mut lists = g.reader();
    let mut queue = AheadQueue::new(g, n, reads(1));
    for root in Sequential::new(g, 0..n as u32, reads(0)) {
        if labels[root as usize] != UNLABELLED {
            continue;
        }
        labels[root as usize] = root;
        queue.push(root);
        while let Some(v) = queue.pop() {
            for &d in &dirs {
                for &x in lists.neighbours(d, v)? {
                    if labels[x as usize] == UNLABELLED {
                        labels[x as usize] = root;
                        queue.push(x);
                    }
                }
            }
        }
    }
    Ok(Components { labels, iterations: 1 })
}
