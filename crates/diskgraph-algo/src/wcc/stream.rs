//! Weakly connected components on the stream engine.
//!
//! - **Union-find** (CLIP's Algorithm 2, beyond the neighbourhood): one pass over the edges, in
//!   row-major block order on one thread, unites the endpoints of every edge in a disjoint-set
//!   forest kept in the vertex state: `find` with path halving, `union` hooking the larger root
//!   under the smaller. Roots are therefore the smallest vertices of their trees, and parents
//!   stay local when blocks are read in row order (the paper's two optimisations). A final pass
//!   over the vertices in ascending order points each at its root (a parent is always smaller,
//!   so its own root is known by then). An undirected graph's reverse arcs are skipped (each edge
//!   is stored both ways).
//! - **Label propagation** (the classic baseline of GridGraph and X-Stream): every vertex starts
//!   with its own ID as label, and each edge lowers the larger label of its endpoints to the
//!   smaller, until no label changes. On an undirected graph (both arcs stored) labels flow along
//!   arcs, so only vertices whose label dropped are active; on a directed graph a label must also
//!   flow from an arc's head to its tail, which activity by source cannot track, so every
//!   iteration streams all edges. Relaxation, so `--mrt` reentry applies.
//!
//! Both label each component by its smallest vertex, as the memory engine does.

use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

use diskgraph_engine::stream::{AtomicWord, Order, Pass, StreamGraph, Threads, Update};
use diskgraph_engine::Engine;

use crate::AlgoError;
use crate::Components;

/// Components by one union-find pass; `iterations` is 1.
///
/// Errors: engine failures.
pub fn wcc_union_find(g: &StreamGraph) -> Result<Components, AlgoError> {
    let parent = g.vertex_array::<AtomicU32>(|v| v)?;
    let find = |mut x: u32| loop {
        let px = parent[x as usize].get();
        if px == x {
            return x;
        }
        let gx = parent[px as usize].get();
        if gx != px {
            parent[x as usize].set(gx);
        }
        x = gx;
    };
    let undirected = !g.directed();
    let pass = Pass {
        threads: Threads::One,
        ..Pass::all()
    };
    g.stream(&pass, |e, _| {
        if e.src == e.dst || (undirected && e.src > e.dst) {
            return Update::NONE;
        }
        let (a, b) = (find(e.src), find(e.dst));
        if a != b {
            parent[a.max(b) as usize].set(a.min(b));
        }
        Update::NONE
    })?;
    for v in 0..parent.len() {
        let p = parent[v].get();
        parent[v].set(parent[p as usize].get());
    }
    Ok(Components {
        labels: parent.values()?,
        iterations: 1,
    })
}

/// Components by label propagation with `g`'s MRT; `iterations` counts the streaming iterations.
///
/// Errors: engine failures.
pub fn wcc_label_propagation(g: &StreamGraph) -> Result<Components, AlgoError> {
    let label = g.vertex_array::<AtomicU32>(|v| v)?;
    let directed = g.directed();
    let mut active = g.frontier();
    let mut next = g.frontier();
    let mut iterations = 0;
    loop {
        let pass = Pass {
            order: Order::RowMajor,
            active: (iterations > 0 && !directed).then_some(&active),
            next: Some(&next),
            mrt: g.options().mrt,
            threads: Threads::Shared,
            weights: false,
        };
        g.stream(&pass, |e, _| {
            let (ls, ld) = (label[e.src as usize].get(), label[e.dst as usize].get());
            if ls < ld {
                Update::dst_if(label[e.dst as usize].fetch_min(ls, Relaxed) > ls)
            } else if directed && ld < ls && label[e.src as usize].fetch_min(ld, Relaxed) > ld {
                Update::SRC
            } else {
                Update::NONE
            }
        })?;
        iterations += 1;
        if next.is_empty() {
            break;
        }
        std::mem::swap(&mut active, &mut next);
        next.clear();
    }
    Ok(Components {
        labels: label.values()?,
        iterations,
    })
}
