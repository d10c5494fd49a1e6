//! Single-source shortest paths: parallel delta-stepping.
//!
//! The method is Meyer and Sanders' Δ-stepping ("Δ-stepping: a parallelizable shortest path
//! algorithm", J. Algorithms 2003), organised as in GAPBS's `sssp.cc`: tentative distances live
//! in buckets of width Δ; the lowest non-empty bucket is relaxed in parallel rounds until it
//! stays empty, then the next one. Each round relaxes every out-edge of the bucket's vertices with
//! an atomic minimum on the distance (non-negative `f64`s order like their bit patterns, so
//! `AtomicU64::fetch_min` on the bits is a float minimum); a vertex whose distance dropped is
//! queued in the bucket of its new distance, and a queued vertex whose distance has since
//! dropped below the current bucket is skipped as stale. Buckets live in a ring of `WINDOW`
//! slots; farther ones wait in an overflow list that is redistributed when the ring runs dry.
//!
//! Exactness: a distance is always the left-to-right `f64` sum (`dist[u] + w as f64`) of the
//! weights along some path, and float addition of a non-negative weight is monotone, so any
//! label-correcting order that converges computes the same minimum over paths of that sum as
//! Dijkstra does, bit for bit.
//!
//! Δ is the mean edge weight (1 for unweighted graphs, where every bucket is one BFS level). An
//! unweighted graph is run as a BFS by [`sssp`]; [`sssp_with_delta`] always runs Δ-stepping.
//! Negative (or NaN) weights are refused before anything is computed.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use diskgraph_engine::MemoryGraph;
use diskgraph_format::Csr;
use rayon::prelude::*;

use crate::{bfs, check_source, chunk_len, AlgoError};

/// Buckets held in the ring; a vertex whose bucket is farther ahead goes to the overflow list.
const WINDOW: u64 = 1024;
/// Bucket indexes are capped here (the last bucket then runs as Bellman-Ford).
const MAX_BUCKET: u64 = 1 << 62;
/// A round over fewer frontier vertices than this runs on the calling thread.
const SEQUENTIAL_FRONTIER: usize = 128;

/// The result of [`sssp`].
#[derive(Clone, Debug, PartialEq)]
pub struct Sssp {
    /// Distance from the source (the `f64` sum of the `f32` weights along a shortest path, or
    /// hop count when unweighted); `f64::INFINITY` when unreached.
    pub dist: Vec<f64>,
    /// Relaxation rounds (BFS levels for unweighted graphs).
    pub iterations: usize,
    /// Edges relaxed.
    pub edges_processed: u64,
}

/// Shortest-path distances from `source` along out-edges, using the weights (1 per edge when
/// the graph is unweighted; then this is a BFS).
///
/// Errors: [`AlgoError::InvalidSource`]; [`AlgoError::NegativeWeight`] naming the first edge
/// (in CSR order) whose weight is negative or NaN.
pub fn sssp(g: &MemoryGraph, source: u32) -> Result<Sssp, AlgoError> {
    check_source(g, source)?;
    if !g.weighted() {
        let b = bfs(g, source, false)?;
        return Ok(Sssp {
            dist: b
                .levels
                .into_par_iter()
                .map(|l| if l < 0 { f64::INFINITY } else { l as f64 })
                .collect(),
            iterations: b.iterations,
            edges_processed: b.edges_processed,
        });
    }
    check_weights(g.out())?;
    Ok(delta_stepping(g.out(), source, default_delta(g.out())))
}

/// [`sssp`] with an explicit bucket width `delta`, always by Δ-stepping (also on unweighted
/// graphs). A tiny Δ behaves like Dijkstra, a huge one like Bellman-Ford; the result is the
/// same.
///
/// Errors: as [`sssp`], plus [`AlgoError::InvalidSetting`] unless `delta` is positive and finite.
pub fn sssp_with_delta(g: &MemoryGraph, source: u32, delta: f64) -> Result<Sssp, AlgoError> {
    check_source(g, source)?;
    if !(delta > 0.0 && delta.is_finite()) {
        return Err(AlgoError::InvalidSetting(format!(
            "delta must be positive and finite, got {delta}"
        )));
    }
    check_weights(g.out())?;
    Ok(delta_stepping(g.out(), source, delta))
}

/// Fails on the first edge (in CSR order) whose weight is negative or NaN.
fn check_weights(out: &Csr) -> Result<(), AlgoError> {
    let Some(w) = &out.weights else { return Ok(()) };
    match w.par_iter().position_first(|&x| !(x >= 0.0)) {
        None => Ok(()),
        Some(i) => {
            let src = out.offsets.partition_point(|&o| o <= i as u64) - 1;
            Err(AlgoError::NegativeWeight {
                src: src as u32,
                dst: out.targets[i],
                weight: w[i],
            })
        }
    }
}

/// Δ: the mean finite positive weight (1 when there is none or the graph is unweighted).
fn default_delta(out: &Csr) -> f64 {
    let Some(w) = &out.weights else { return 1.0 };
    let (sum, count) = w
        .par_iter()
        .filter(|&&x| x > 0.0 && x.is_finite())
        .map(|&x| (x as f64, 1u64))
        .reduce(|| (0.0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
    let mean = sum / count as f64;
    if mean > 0.0 && mean.is_finite() {
        mean
    } else {
        1.0
    }
}

/// Δ-stepping from `source` with bucket width `delta` (weights already checked).
fn delta_stepping(out: &Csr, source: u32, delta: f64) -> Sssp {
    let n = out.num_vertices();
    let inf = f64::INFINITY.to_bits();
    let dist: Vec<AtomicU64> = (0..n).into_par_iter().map(|_| AtomicU64::new(inf)).collect();
    dist[source as usize].store(0f64.to_bits(), Relaxed);
    let bucket = |d: f64| -> u64 {
        let b = d / delta;
        if b >= MAX_BUCKET as f64 {
            MAX_BUCKET
        } else {
            b as u64
        }
    };
    let slot = |b: u64| (b % WINDOW) as usize;
    let mut ring: Vec<Vec<u32>> = vec![Vec::new(); WINDOW as usize];
    let mut far: Vec<u32> = Vec::new();
    ring[0].push(source);
    // The ring holds buckets `base..base + WINDOW`; `cur` walks through them.
    let (mut base, mut cur) = (0u64, 0u64);
    let (mut iterations, mut edges) = (0usize, 0u64);
    loop {
        // Next non-empty bucket of the window, else start a new window from the overflow list.
        match (cur..base + WINDOW).find(|&b| !ring[slot(b)].is_empty()) {
            Some(b) => cur = b,
            None => {
                // Every bucket below `base + WINDOW` is done, so entries below it are stale.
                let done = base + WINDOW;
                far.retain(|&v| bucket(f64::from_bits(dist[v as usize].load(Relaxed))) >= done);
                let Some(next) = far
                    .par_iter()
                    .with_min_len(4096)
                    .map(|&v| bucket(f64::from_bits(dist[v as usize].load(Relaxed))))
                    .min()
                else {
                    break;
                };
                (base, cur) = (next, next);
                let mut still_far = Vec::new();
                for v in far.drain(..) {
                    let b = bucket(f64::from_bits(dist[v as usize].load(Relaxed)));
                    if b < base + WINDOW {
                        ring[slot(b)].push(v);
                    } else {
                        still_far.push(v);
                    }
                }
                far = still_far;
                continue;
            }
        }
        let mut frontier = std::mem::take(&mut ring[slot(cur)]);
        while !frontier.is_empty() {
            iterations += 1;
            let relax = |chunk: &[u32]| -> RoundOutput {
                let mut r = RoundOutput::default();
                for &u in chunk {
                    let du = f64::from_bits(dist[u as usize].load(Relaxed));
                    if bucket(du) != cur {
                        continue; // stale: settled in an earlier bucket at a lower distance
                    }
                    let (a, b) = (out.offsets[u as usize] as usize, out.offsets[u as usize + 1] as usize);
                    r.edges += (b - a) as u64;
                    for i in a..b {
                        let v = out.targets[i];
                        let w = out.weights.as_ref().map_or(1.0, |w| w[i] as f64);
                        let nd = du + w;
                        let bits = nd.to_bits();
                        let d = &dist[v as usize];
                        if bits < d.load(Relaxed) && bits < d.fetch_min(bits, Relaxed) {
                            let b = bucket(nd);
                            if b == cur {
                                r.same.push(v);
                            } else if b < base + WINDOW {
                                r.later.push(((b - cur) as u32, v));
                            } else {
                                r.far.push(v);
                            }
                        }
                    }
                }
                r
            };
            let parts: Vec<RoundOutput> = if frontier.len() < SEQUENTIAL_FRONTIER {
                vec![relax(&frontier)]
            } else {
                frontier.par_chunks(chunk_len(frontier.len(), 64)).map(relax).collect()
            };
            frontier.clear();
            for p in parts {
                edges += p.edges;
                frontier.extend_from_slice(&p.same);
                for (k, v) in p.later {
                    ring[slot(cur + k as u64)].push(v);
                }
                far.extend_from_slice(&p.far);
            }
        }
        if cur == MAX_BUCKET {
            break;
        }
        cur += 1;
    }
    Sssp {
        dist: dist.into_par_iter().map(|d| f64::from_bits(d.into_inner())).collect(),
        iterations,
        edges_processed: edges,
    }
}

/// What one task of a relaxation round produced.
#[derive(Default)]
struct RoundOutput {
    /// Vertices lowered into the current bucket.
    same: Vec<u32>,
    /// Vertices lowered into a later bucket of the window: (bucket - current, vertex).
    later: Vec<(u32, u32)>,
    /// Vertices lowered beyond the window.
    far: Vec<u32>,
    /// Edges relaxed.
    edges: u64,
}
