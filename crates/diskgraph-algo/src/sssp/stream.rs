//! Single-source shortest paths on the stream engine: relaxation (Bellman-Ford over the active
//! sources) with loaded-data reentry (CLIP's Algorithm 1).
//!
//! Distances are `f64` bits in atomics, lowered with `fetch_min` (non-negative floats order like
//! their bits). Each iteration streams the blocks holding active sources; the edge function
//! relaxes `dist[dst]` from `dist[src] + w` and reports the destination updated, which makes it
//! active for the next iteration and — when it is a source of the same block — for the block's
//! next reentry pass. Iterations continue until one updates nothing. Exactness: as for the
//! memory engine, any label-correcting order computes the same left-to-right `f64` sums along
//! the same minimal paths, so the distances equal Dijkstra's bit for bit.
//!
//! Negative or NaN weights are refused before anything is computed, as in the memory engine: one
//! sequential read of the weights checks them all; if one is bad, a pass over the edges names the
//! smallest (source, destination) carrying one (the first in CSR order). An unweighted graph
//! counts hops (weight 1).

use std::sync::atomic::AtomicU64;
use std::sync::Mutex;

use diskgraph_engine::stream::{AtomicWord, Order, Pass, StreamGraph, Threads, Update};
use diskgraph_engine::Engine;

use crate::AlgoError;
use crate::Sssp;

fn is_bad(w: f32) -> bool {
    w < 0.0 || w.is_nan()
}

/// Shortest-path distances from `source` along out-edges, with `g`'s MRT.
///
/// Errors: [`EngineError::InvalidVertex`](diskgraph_engine::EngineError::InvalidVertex); [`AlgoError::NegativeWeight`] naming the first edge in
/// CSR order whose weight is negative or NaN; [`AlgoError::InvalidSetting`] when a weighted
/// layout was opened without its weights; engine failures.
pub fn sssp(g: &StreamGraph, source: u32) -> Result<Sssp, AlgoError> {
    g.check_vertex(source)?;
    if g.layout().weighted() && !g.weighted() {
        return Err(AlgoError::InvalidSetting(
            "sssp needs the weights: open the graph with them".into(),
        ));
    }
    check_weights(g)?;
    let inf = f64::INFINITY.to_bits();
    let dist = g.vertex_array::<AtomicU64>(|v| if v == source { 0 } else { inf })?;
    let mut active = g.frontier();
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
            weights: true,
        };
        let r = g.stream(&pass, |e, w| {
            let d = dist[e.src as usize].get();
            if d == inf {
                return Update::NONE;
            }
            let nd = (f64::from_bits(d) + f64::from(w)).to_bits();
            let slot = &dist[e.dst as usize];
            Update::dst_if(nd < slot.get() && slot.fetch_min(nd, std::sync::atomic::Ordering::Relaxed) > nd)
        })?;
        edges += r.edges_processed;
        iterations += 1;
        std::mem::swap(&mut active, &mut next);
        next.clear();
    }
    Ok(Sssp {
        dist: dist.values()?.into_iter().map(f64::from_bits).collect(),
        iterations,
        edges_processed: edges,
    })
}

/// Refuses a negative or NaN weight, naming the one with the smallest (source, destination).
fn check_weights(g: &StreamGraph) -> Result<(), AlgoError> {
    let mut bad = false;
    g.for_each_weight(|w| bad |= w.iter().any(|&x| is_bad(x)))?;
    if !bad {
        return Ok(());
    }
    let first: Mutex<Option<(u32, u32, f32)>> = Mutex::new(None);
    let pass = Pass {
        threads: Threads::One,
        weights: true,
        ..Pass::all()
    };
    g.stream(&pass, |e, w| {
        if is_bad(w) {
            let mut f = first.lock().unwrap_or_else(|p| p.into_inner());
            if f.is_none_or(|(s, d, _)| (e.src, e.dst) < (s, d)) {
                *f = Some((e.src, e.dst, w));
            }
        }
        Update::NONE
    })?;
    let found = first.into_inner().unwrap_or_else(|p| p.into_inner());
    let (src, dst, weight) = found.expect("a bad weight was seen in the weights file");
    Err(AlgoError::negative_weight(g.vertices(), src, dst, weight))
}
