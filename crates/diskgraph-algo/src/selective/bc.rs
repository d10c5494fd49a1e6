//! Betweenness centrality on the selective engine: Brandes per source, as the memory engine
//! ([`crate::betweenness`]), with every list read from disk.
//!
//! Forward, level by level: one round reads the out-lists of the level's vertices, claims
//! unvisited targets for the next level (compare-and-swap) and adds the path count of the tail
//! to every target one level further. Backward, from the deepest level up: one round reads the
//! level's out-lists again and sums each vertex's dependency over its successors. Pieces of a
//! split list add atomically, so sums match the memory engine's up to rounding. The levels'
//! vertex sets are kept in memory (O(V) in total, semi-external state).

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};

use diskgraph_engine::selective::{FrontierBuilder, SelectiveGraph, VertexSubset};
use diskgraph_format::Direction;
use rayon::prelude::*;

use super::{add_f64, atomics, SelectiveError};
use crate::bc::{check_sources, scale, BcOptions, Betweenness};
use crate::bfs::UNVISITED;

/// Betweenness centrality on the selective engine (see the module doc and
/// [`crate::betweenness`]).
pub fn betweenness(g: &SelectiveGraph, opts: &BcOptions) -> Result<Betweenness, SelectiveError> {
    let n = g.num_vertices();
    check_sources(&opts.sources, n)?;
    let level: Vec<AtomicU32> = (0..n).into_par_iter().map(|_| AtomicU32::new(UNVISITED)).collect();
    let sigma = atomics(n, 0f64.to_bits());
    let delta = atomics(n, 0f64.to_bits());
    let mut bc = vec![0.0f64; n];
    let mut iterations = 0;
    for &source in &opts.sources {
        let levels = forward(g, source, &level, &sigma)?;
        iterations += levels.len();
        backward(g, &levels, &level, &sigma, &delta)?;
        for set in &levels {
            for v in set.iter() {
                let i = v as usize;
                if v != source {
                    bc[i] += f64::from_bits(delta[i].load(Relaxed));
                }
                level[i].store(UNVISITED, Relaxed);
                sigma[i].store(0f64.to_bits(), Relaxed);
                delta[i].store(0f64.to_bits(), Relaxed);
            }
        }
    }
    Ok(Betweenness {
        values: scale(bc, g.directed(), opts),
        sources: opts.sources.len(),
        iterations,
    })
}

/// Levels from `source` (level `d` at index `d`) with path counts in `sigma`.
fn forward(
    g: &SelectiveGraph,
    source: u32,
    level: &[AtomicU32],
    sigma: &[AtomicU64],
) -> Result<Vec<VertexSubset>, SelectiveError> {
    let n = g.num_vertices();
    level[source as usize].store(0, Relaxed);
    sigma[source as usize].store(1f64.to_bits(), Relaxed);
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
                let sv = f64::from_bits(sigma[v as usize].load(Relaxed));
                for &w in p.targets {
                    let lw = &level[w as usize];
                    if lw.load(Relaxed) == UNVISITED && lw.compare_exchange(UNVISITED, depth, Relaxed, Relaxed).is_ok()
                    {
                        local.insert(w);
                    }
                    if lw.load(Relaxed) == depth {
                        add_f64(&sigma[w as usize], sv);
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

/// Dependencies of every vertex of `levels`, deepest level first, into `delta`.
fn backward(
    g: &SelectiveGraph,
    levels: &[VertexSubset],
    level: &[AtomicU32],
    sigma: &[AtomicU64],
    delta: &[AtomicU64],
) -> Result<(), SelectiveError> {
    let get = |a: &AtomicU64| f64::from_bits(a.load(Relaxed));
    for (d, set) in levels.iter().enumerate().rev().skip(1) {
        let below = d as u32 + 1;
        g.for_each_piece(Direction::Out, set, false, |v, p| {
            let sv = get(&sigma[v as usize]);
            let sum: f64 = p
                .targets
                .iter()
                .filter(|&&w| level[w as usize].load(Relaxed) == below)
                .map(|&w| sv / get(&sigma[w as usize]) * (1.0 + get(&delta[w as usize])))
                .sum();
            if sum != 0.0 {
                add_f64(&delta[v as usize], sum);
            }
        })?;
    }
    Ok(())
}
