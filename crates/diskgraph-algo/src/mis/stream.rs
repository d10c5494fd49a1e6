//! Maximal independent sets on the stream engine (edge directions and self-loops ignored, as in
//! [`crate::mis()`]).
//!
//! - **Greedy** (CLIP's one-pass MIS, beyond the neighbourhood): every vertex starts in the set;
//!   one pass over a layout whose blocks are row-major and (src, dst)-sorted inside (`source`, or
//!   `grid`), on one thread in file order, removes the larger end of an arc whose smaller end is
//!   still in. That is the greedy set by ascending ID, equal to the memory engine's (see
//!   [`crate::mis()`] for why the order suffices).
//! - **Luby** (the parallel baseline): rounds of two passes — undecided vertices beaten by an
//!   undecided neighbour's priority, then neighbours of the vertices that joined — streaming only
//!   the blocks of undecided sources (of the joined ones, on an undirected graph, in the second).

use std::sync::atomic::{AtomicU8, Ordering::Relaxed};

use diskgraph_engine::stream::{source_sorted, AtomicWord, Pass, StreamGraph, Threads, Update};
use diskgraph_engine::Engine;

use crate::mis::{luby_key, IN, OUT, UNDECIDED};
use crate::AlgoError;
use crate::Mis;

/// The greedy set by ascending ID, in one pass.
///
/// Errors: [`AlgoError::InvalidSetting`] for a layout whose blocks are not (src, dst)-sorted
/// (`destination` or a key order); engine failures.
pub fn mis_greedy(g: &StreamGraph) -> Result<Mis, AlgoError> {
    let sort = g.layout().sort();
    if !source_sorted(sort) {
        return Err(AlgoError::InvalidSetting(format!(
            "greedy mis needs a source- or grid-sorted layout, and {} is sorted by {sort} (run `diskgraph partition GRAPH --grid P --sort source`)",
            g.layout().name()
        )));
    }
    let in_set = g.vertex_array::<AtomicU8>(|_| 1)?;
    let pass = Pass {
        threads: Threads::One,
        ..Pass::all()
    };
    let r = g.stream(&pass, |e, _| {
        let (lo, hi) = (e.src.min(e.dst) as usize, e.src.max(e.dst) as usize);
        if lo != hi && in_set[lo].get() == 1 {
            in_set[hi].set(0);
        }
        Update::NONE
    })?;
    Ok(Mis {
        in_set: in_set.values()?.into_iter().map(|b| b == 1).collect(),
        iterations: 1,
        edges_processed: r.edges_processed,
    })
}

/// Luby's randomized rounds with priorities seeded by `seed`.
///
/// Errors: engine failures.
pub fn mis_luby(g: &StreamGraph, seed: u64) -> Result<Mis, AlgoError> {
    let status = g.vertex_array::<AtomicU8>(|_| UNDECIDED)?;
    let beaten = g.vertex_array::<AtomicU8>(|_| 0)?;
    let undecided = g.frontier();
    undecided.insert_range(0..g.num_vertices() as u64);
    let added = g.frontier();
    let directed = g.directed();
    let get = |v: u32| status[v as usize].get();
    let (mut round, mut edges) = (0u64, 0u64);
    while !undecided.is_empty() {
        let compare = Pass {
            active: Some(&undecided),
            ..Pass::all()
        };
        edges += g
            .stream(&compare, |e, _| {
                let (u, v) = (e.src, e.dst);
                if u != v && get(u) == UNDECIDED && get(v) == UNDECIDED {
                    let loser = if luby_key(seed, round, u) < luby_key(seed, round, v) {
                        v
                    } else {
                        u
                    };
                    beaten[loser as usize].set(1);
                }
                Update::NONE
            })?
            .edges_processed;
        added.clear();
        g.vmap(|v| {
            if get(v) == UNDECIDED && beaten[v as usize].get() == 0 {
                status[v as usize].set(IN);
                added.insert(v);
            }
            beaten[v as usize].set(0);
        });
        let remove = Pass {
            active: Some(if directed { &undecided } else { &added }),
            ..Pass::all()
        };
        edges += g
            .stream(&remove, |e, _| {
                let (u, v) = (e.src, e.dst);
                let (su, sv) = (get(u), get(v));
                if su == IN && sv == UNDECIDED {
                    let _ = status[v as usize].compare_exchange(UNDECIDED, OUT, Relaxed, Relaxed);
                } else if sv == IN && su == UNDECIDED {
                    let _ = status[u as usize].compare_exchange(UNDECIDED, OUT, Relaxed, Relaxed);
                }
                Update::NONE
            })?
            .edges_processed;
        g.vmap(|v| {
            if get(v) != UNDECIDED {
                undecided.remove(v);
            }
        });
        round += 1;
    }
    Ok(Mis {
        in_set: status.values()?.into_iter().map(|s| s == IN).collect(),
        iterations: round as usize,
        edges_processed: edges,
    })
}
