//! Betweenness centrality on the selective engine: Brandes per source, as the memory engine
//! ([`crate::betweenness`]), with every list read from disk.
//!
//! Forward, level by level: one round reads the out-lists of the level's vertices, claims
//! unvisited targets for the next level (compare-and-swap) and adds the path count of the tail
//! to every target one level further. Backward, from the deepest level up: one round reads the
//! level's out-lists again and sums each vertex's dependency over its successors. Pieces of a
//! split list add atomically, so sums match the memory engine's up to rounding. The levels'
//! vertex sets are kept in memory (O(V) in total, semi-external state).
//!
//! An edge's visit touches one cache line of vertex state: each vertex's level sits beside one
//! value ([`Slot`]), its path count σ while the source's forward pass runs, replaced by
//! `(1 + δ) / σ` once its dependency δ is final, so that a predecessor `v` adds up its
//! dependency as `σ(v) · Σ (1 + δ(w)) / σ(w)` over its successors `w` (Brandes' sum with σ(v)
//! taken out). On large graphs this state is far beyond the caches and the visits, not the
//! reads, are what bc waits for.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};

use diskgraph_engine::selective::{FrontierBuilder, SelectiveGraph, VertexSubset};
use diskgraph_format::Direction;
use rayon::prelude::*;

use super::{add_f64, atomics, SelectiveError};
use crate::bc::{check_sources, scale, BcOptions, Betweenness};
use crate::bfs::UNVISITED;

/// A vertex's level and value (σ, then `(1 + δ) / σ`): 16 bytes, aligned so that a slot never
/// straddles two cache lines.
#[repr(C, align(16))]
struct Slot {
    level: AtomicU32,
    value: AtomicU64,
}

impl Slot {
    fn value(&self) -> f64 {
        f64::from_bits(self.value.load(Relaxed))
    }
}

/// Betweenness centrality on the selective engine (see the module doc and
/// [`crate::betweenness`]).
pub fn betweenness(g: &SelectiveGraph, opts: &BcOptions) -> Result<Betweenness, SelectiveError> {
    let n = g.num_vertices();
    check_sources(&opts.sources, n)?;
    let slots: Vec<Slot> = (0..n)
        .into_par_iter()
        .map(|_| Slot {
            level: AtomicU32::new(UNVISITED),
            value: AtomicU64::new(0f64.to_bits()),
        })
        .collect();
    let delta = atomics(n, 0f64.to_bits());
    let mut bc = vec![0.0f64; n];
    let mut iterations = 0;
    for &source in &opts.sources {
        let levels = forward(g, source, &slots)?;
        iterations += levels.len();
        for (d, set) in levels.iter().enumerate().rev() {
            if d + 1 < levels.len() {
                backward(g, set, d as u32 + 1, &slots, &delta)?;
            }
            // The level's dependencies are final: count them, and leave each vertex's
            // (1 + δ) / σ for the level above.
            for v in set.iter() {
                let i = v as usize;
                let dv = f64::from_bits(delta[i].load(Relaxed));
                if v != source {
                    bc[i] += dv;
                }
                let coefficient = (1.0 + dv) / slots[i].value();
                slots[i].value.store(coefficient.to_bits(), Relaxed);
            }
        }
        for v in levels.iter().flat_map(|set| set.iter()) {
            let i = v as usize;
            slots[i].level.store(UNVISITED, Relaxed);
            slots[i].value.store(0f64.to_bits(), Relaxed);
            delta[i].store(0f64.to_bits(), Relaxed);
        }
    }
    Ok(Betweenness {
        values: scale(bc, g.directed(), opts),
        sources: opts.sources.len(),
        iterations,
    })
}

/// Levels from `source` (level `d` at index `d`) with path counts in the slots' values.
fn forward(g: &SelectiveGraph, source: u32, slots: &[Slot]) -> Result<Vec<VertexSubset>, SelectiveError> {
    let n = g.num_vertices();
    slots[source as usize].level.store(0, Relaxed);
    slots[source as usize].value.store(1f64.to_bits(), Relaxed);
    let mut levels = vec![VertexSubset::single(n, source)];
    let mut next = FrontierBuilder::new(n);
    for depth in 1u32.. {
        let frontier = levels.last().expect("the source's level");
        g.for_each_piece_with(
            Direction::Out,
            frontier,
            false,
            || next.local(),
            |local, v, p| {
                let sv = slots[v as usize].value();
                for &w in p.targets {
                    let slot = &slots[w as usize];
                    let lw = &slot.level;
                    if lw.load(Relaxed) == UNVISITED && lw.compare_exchange(UNVISITED, depth, Relaxed, Relaxed).is_ok()
                    {
                        local.insert(w);
                    }
                    if lw.load(Relaxed) == depth {
                        add_f64(&slot.value, sv);
                    }
                }
            },
            drop,
        )?;
        let found = next.take();
        if found.is_empty() {
            break;
        }
        levels.push(found);
    }
    Ok(levels)
}

/// Dependencies of the vertices of `set` into `delta`, from the coefficients `(1 + δ) / σ` of
/// their successors (level `below`).
fn backward(
    g: &SelectiveGraph,
    set: &VertexSubset,
    below: u32,
    slots: &[Slot],
    delta: &[AtomicU64],
) -> Result<(), SelectiveError> {
    g.for_each_piece(Direction::Out, set, false, |v, p| {
        let sum: f64 = p
            .targets
            .iter()
            .map(|&w| &slots[w as usize])
            .filter(|slot| slot.level.load(Relaxed) == below)
            .map(Slot::value)
            .sum();
        if sum != 0.0 {
            add_f64(&delta[v as usize], slots[v as usize].value() * sum);
        }
    })?;
    Ok(())
}
