//! Breadth-first search on the stream engine: relaxation of hop counts with loaded-data reentry,
//! as [`sssp`](super::sssp()) with unit weights (no weights are read).
//!
//! Levels are `u32`s lowered with `fetch_min`. With parents, a vertex's state is one `u64`
//! packing (level, parent) and the relaxation offers `(level[src] + 1, src)`: the minimum is the
//! true level with the smallest parent at the level above, so the tree is deterministic (and a
//! BFS tree: a parent's final level is always one less than its child's).

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};

use diskgraph_engine::stream::{AtomicWord, Frontier, Order, Pass, StreamGraph, Threads, Update};
use diskgraph_engine::Engine;
use diskgraph_format::GridEdge;

use crate::AlgoError;
use crate::Bfs;

/// Level of a vertex not reached.
const UNVISITED: u32 = u32::MAX;

/// Levels from `source` along out-edges (and, with `want_parents`, a BFS tree whose parents are
/// internal IDs, the source its own parent), with `g`'s MRT.
///
/// Errors: [`EngineError::InvalidVertex`](diskgraph_engine::EngineError::InvalidVertex); engine failures.
pub fn bfs(g: &StreamGraph, source: u32, want_parents: bool) -> Result<Bfs, AlgoError> {
    g.check_vertex(source)?;
    if want_parents {
        let packed = g.vertex_array::<AtomicU64>(|v| if v == source { u64::from(source) } else { u64::MAX })?;
        let (iterations, edges) = relax(g, source, |e| {
            let p = packed[e.src as usize].get();
            if p == u64::MAX {
                return Update::NONE;
            }
            let offer = ((p >> 32) + 1) << 32 | u64::from(e.src);
            let slot = &packed[e.dst as usize];
            Update::dst_if(offer < slot.get() && slot.fetch_min(offer, Relaxed) > offer)
        })?;
        let values = packed.values()?;
        let level = |p: u64| if p == u64::MAX { -1 } else { (p >> 32) as i64 };
        let parent = |p: u64| if p == u64::MAX { -1 } else { (p & 0xFFFF_FFFF) as i64 };
        return Ok(Bfs {
            levels: values.iter().map(|&p| level(p)).collect(),
            parents: Some(values.iter().map(|&p| parent(p)).collect()),
            iterations,
            edges_processed: edges,
        });
    }
    let level = g.vertex_array::<AtomicU32>(|v| if v == source { 0 } else { UNVISITED })?;
    let (iterations, edges) = relax(g, source, |e| {
        let l = level[e.src as usize].get();
        if l == UNVISITED {
            return Update::NONE;
        }
        let slot = &level[e.dst as usize];
        Update::dst_if(l + 1 < slot.get() && slot.fetch_min(l + 1, Relaxed) > l + 1)
    })?;
    Ok(Bfs {
        levels: level
            .values()?
            .into_iter()
            .map(|l| if l == UNVISITED { -1 } else { i64::from(l) })
            .collect(),
        parents: None,
        iterations,
        edges_processed: edges,
    })
}

/// Iterations of `relax_edge` from `source` until nothing changes; returns (iterations, edges).
fn relax(
    g: &StreamGraph,
    source: u32,
    relax_edge: impl Fn(GridEdge) -> Update + Sync,
) -> Result<(usize, u64), AlgoError> {
    let mut active: Frontier = g.frontier();
    let mut next = g.frontier();
    active.insert(source);
    let (mut iterations, mut edges) = (0, 0);
    while !active.is_empty() {
        let pass = Pass {
            order: Order::RowMajor,
            active: Some(&active),
            next: Some(&next),
            mrt: g.options().mrt,
            threads: Threads::Shared,
            weights: false,
        };
        edges += g.stream(&pass, |e, _| relax_edge(e))?.edges_processed;
        iterations += 1;
        std::mem::swap(&mut active, &mut next);
        next.clear();
    }
    Ok((iterations, edges))
}
