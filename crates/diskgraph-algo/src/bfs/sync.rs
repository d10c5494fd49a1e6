//! Breadth-first search on the sync engine: the textbook single-threaded loop over a FIFO
//! queue, which the prefetcher reads ahead of (PrefEdge §3.4.2).

use diskgraph_engine::sync::{AheadQueue, Reads, SyncGraph};
use diskgraph_engine::Engine;
use diskgraph_format::Direction;

use super::Bfs;
use crate::AlgoError;

/// Levels (and with `parents` a BFS tree) from `source` along out-edges.
pub fn bfs(g: &SyncGraph, source: u32, parents: bool) -> Result<Bfs, AlgoError> {
    let n = g.num_vertices();
    let mut levels = vec![-1i64; n];
    let mut parent = parents.then(|| vec![-1i64; n]);
    let mut queue = AheadQueue::new(g, n, Reads::out(0));
    let mut lists = g.reader();
    let mut edges = 0;
    levels[source as usize] = 0;
    if let Some(p) = &mut parent {
        p[source as usize] = i64::from(source);
    }
    queue.push(source);
    while let Some(v) = queue.pop() {
        let next = levels[v as usize] + 1;
        let out = lists.neighbours(Direction::Out, v)?;
        edges += out.len() as u64;
        for &x in out {
            if levels[x as usize] < 0 {
                levels[x as usize] = next;
                if let Some(p) = &mut parent {
                    p[x as usize] = i64::from(v);
                }
                queue.push(x);
            }
        }
    }
    let depth = levels.iter().copied().max().unwrap_or(0);
    Ok(Bfs {
        levels,
        parents: parent,
        iterations: depth.max(0) as usize + 1,
        edges_processed: edges,
    })
}
