//! k-core decomposition on the sync engine: Batagelj and Zaversnik's O(m) bucket algorithm
//! ("An O(m) Algorithm for Cores Decomposition of Networks", 2003), single-threaded, on the
//! memory engine's simple undirected view (directions ignored, duplicate edges and the two
//! directions of an edge counted once, self-loops dropped; see [`kcore`](super)).
//!
//! A first sequential scan reads every vertex's lists for its simple degree. The vertices are
//! then bucket-sorted by degree into the order array, held as a FIFO queue the prefetcher reads
//! ahead of (PrefEdge, Nilakant et al., SYSTOR '14, §3.4.2): the algorithm walks it from the
//! head, and each decrement of a neighbour's degree swaps that neighbour to the front of its
//! bucket — entries ahead of the head, rewritten in place.
//!
//! Directed graphs need their in-edges (a vertex's simple neighbours merge both lists).

use diskgraph_engine::sync::{AheadQueue, ListReader, Reads, Sequential, SyncGraph};
use diskgraph_engine::Engine;
use diskgraph_format::Direction;

use super::{simple_neighbours, KCore};
use crate::wcc::sync::both_ways;
use crate::AlgoError;

/// Reads a vertex's simple neighbours through two list readers (one per direction).
struct Simple<'g> {
    out: ListReader<'g>,
    inn: ListReader<'g>,
    directed: bool,
}

impl Simple<'_> {
    /// Calls `f` on every simple neighbour of `v`, ascending.
    fn for_each(&mut self, v: u32, f: impl FnMut(u32)) -> Result<(), AlgoError> {
        let a = self.out.neighbours(Direction::Out, v)?;
        let b = match self.directed {
            true => self.inn.neighbours(Direction::In, v)?,
            false => &[],
        };
        simple_neighbours(v, a, b, f);
        Ok(())
    }
}

/// Core numbers on the simple undirected view of `g` (see the module doc).
///
/// Errors: [`EngineError::MissingInEdges`](diskgraph_engine::EngineError::MissingInEdges) for a
/// directed graph opened without its in-edges; engine failures.
pub fn kcore(g: &SyncGraph) -> Result<KCore, AlgoError> {
    let n = g.num_vertices();
    let reads = Reads {
        directions: both_ways(g)?,
        weights: false,
        level: 0,
    };
    let mut lists = Simple {
        out: g.reader(),
        inn: g.reader(),
        directed: g.directed(),
    };
    let mut deg = vec![0u32; n];
    for v in Sequential::new(g, 0..n as u32, reads.clone()) {
        let mut d = 0;
        lists.for_each(v, |_| d += 1)?;
        deg[v as usize] = d;
    }
    let max_deg = deg.iter().copied().max().unwrap_or(0) as usize;
    // bin[d]: the position of the first vertex of degree d in the order array.
    let mut bin = vec![0usize; max_deg + 1];
    for &d in &deg {
        bin[d as usize] += 1;
    }
    let mut start = 0;
    for b in &mut bin {
        let count = *b;
        *b = start;
        start += count;
    }
    let mut pos = vec![0usize; n];
    let mut vert = vec![0u32; n];
    for v in 0..n {
        let d = deg[v] as usize;
        pos[v] = bin[d];
        vert[bin[d]] = v as u32;
        bin[d] += 1;
    }
    for d in (1..=max_deg).rev() {
        bin[d] = bin[d - 1];
    }
    bin[0] = 0;
    let mut order = AheadQueue::new(g, n, reads);
    for v in vert {
        order.push(v);
    }
    // The popped degrees never decrease: each new one starts a peeling level, as the other
    // engines count them.
    let (mut levels, mut level) = (0, None);
    while let Some(v) = order.pop() {
        let dv = deg[v as usize];
        if level != Some(dv) {
            (levels, level) = (levels + 1, Some(dv));
        }
        lists.for_each(v, |u| {
            let du = deg[u as usize];
            if du > dv {
                // Swap u with the first vertex of its bucket, then move the bucket's start past it.
                let (pu, pw) = (pos[u as usize], bin[du as usize]);
                let w = order.get(pw);
                if u != w {
                    pos[u as usize] = pw;
                    order.set(pu, w);
                    pos[w as usize] = pu;
                    order.set(pw, u);
                }
                bin[du as usize] += 1;
                deg[u as usize] -= 1;
            }
        })?;
    }
    let max_core = deg.iter().copied().max().unwrap_or(0);
    Ok(KCore {
        core: deg,
        max_core,
        levels,
    })
}
