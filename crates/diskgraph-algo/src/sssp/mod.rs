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
//! slots; farther ones wait in an ordered overflow map (bucket → vertices) and move into the ring
//! when it runs dry, the next window starting at the first waiting bucket. A queued entry is
//! never updated: when its vertex's distance drops it is queued again, and the old entry is
//! skipped as stale when its bucket comes up.
//!
//! Exactness: a distance is always the left-to-right `f64` sum (`dist[u] + w as f64`) of the
//! weights along some path, and float addition of a non-negative weight is monotone, so any
//! label-correcting order that converges computes the same minimum over paths of that sum as
//! Dijkstra does, bit for bit.
//!
//! A large frontier is sorted and deduplicated before each round, so the vertices' edge lists are
//! read in address order and a vertex queued several times is relaxed once.
//!
//! Δ is twice the mean weight over the mean out-degree, capped at the mean weight (Meyer and
//! Sanders' Θ(1/d) for uniform weights); 1 for unit weights, where every bucket is one BFS
//! level. An unweighted graph is run as a BFS by [`sssp`]; [`sssp_with_delta`] always runs
//! Δ-stepping. Negative (or NaN) weights are refused, in the same pass that measures the mean
//! weight, before anything is computed.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use diskgraph_engine::{Cancel, Engine, EngineError, MemoryGraph, Vertices};
use diskgraph_format::Csr;
use rayon::prelude::*;

use serde_json::json;

use crate::bfs;
use crate::descriptor::{Algorithm, Needs, On, Outcome, PerVertex, ResultKind, Run, ValueType, Values, Variant};
use crate::options::SOURCE;
use crate::parallel::chunk_len;
use crate::stop::Poll;
use crate::AlgoError;
use diskgraph_engine::selective::SelectiveGraph;
use diskgraph_engine::stream::StreamGraph;
use diskgraph_engine::sync::SyncGraph;

pub mod selective;
pub mod stream;
pub mod sync;
pub(crate) mod verify;

/// Single-source shortest paths.
pub const SSSP: Algorithm = Algorithm {
    name: "sssp",
    help: "single-source shortest path distances from --source (inf unreached); refuses negative weights",
    options: &[&SOURCE],
    cluster: Some(crate::cluster::ClusterScheme::MinPlusRounds),
    result: ResultKind {
        values: ValueType::Float,
        name: "distance",
        help: "the distance from the source along out-edges, summing the weights (hops when unweighted), inf unreached",
    },
    variants: &[
        Variant {
            needs: Needs::WEIGHTS,
            run: &On::<MemoryGraph>(|g, run| Ok(present(sssp(g, run.source())?, run))),
        },
        Variant {
            needs: Needs::WEIGHTS,
            run: &On::<SelectiveGraph>(|g, run| Ok(present(selective::sssp(g, run.source())?, run))),
        },
        Variant {
            needs: Needs::WEIGHTS,
            run: &On::<StreamGraph>(|g, run| Ok(present(stream::sssp(g, run.source())?, run))),
        },
        Variant {
            needs: Needs::WEIGHTS,
            run: &On::<SyncGraph>(|g, run| Ok(present(sync::sssp(g, run.source())?, run))),
        },
    ],
    verify: verify::verify,
    // Running, the bound stands on every engine: Δ-stepping on a weighted graph queues a vertex
    // again each time its distance drops into a later bucket (the stale entries stay until
    // their bucket comes up), and holds a map entry and a vector for each bucket in use, as many
    // as the distances span over Δ; neither is bounded per vertex. (An unweighted graph runs as
    // a BFS, its levels and their f64 copy: 16 on the selective engine.) The verifier, the same
    // on every engine: the result and a bitmap of the vertices grounded.
    memory: |_, _, _| PerVertex {
        run: PerVertex::BOUND.run,
        verify: 8.125,
    },
};

/// The distances, the vertices reached and the farthest distance.
fn present(r: Sssp, run: &Run) -> Outcome {
    let n = r.dist.len();
    let (reached, max) = r
        .dist
        .iter()
        .filter(|d| d.is_finite())
        .fold((0usize, 0.0f64), |(c, m), &d| (c + 1, m.max(d)));
    let summary = format!("reached {reached} of {n} vertices, max distance {max}");
    Outcome::new(Values::Float(r.dist), summary)
        .iterations(r.iterations as u64)
        .edges(r.edges_processed)
        .setting("source", json!(run.id(run.source())))
}

/// Buckets held in the ring; a vertex whose bucket is farther ahead goes to the overflow map.
const WINDOW: u64 = 1024;
/// Bucket indexes are capped here (the last bucket then runs as Bellman-Ford).
const MAX_BUCKET: u64 = 1 << 62;
/// A frontier at least this long is sorted and deduplicated before its round.
const SORT_FRONTIER: usize = 4096;
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
/// Errors: [`EngineError::InvalidVertex`](diskgraph_engine::EngineError::InvalidVertex); [`AlgoError::NegativeWeight`] naming the first edge
/// (in CSR order) whose weight is negative or NaN.
pub fn sssp(g: &MemoryGraph, source: u32) -> Result<Sssp, AlgoError> {
    g.check_vertex(source)?;
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
    let cancel = g.cancel();
    let delta = check_weights(g.out(), g.vertices(), &cancel)?;
    Ok(delta_stepping(g.out(), source, delta, &cancel)?)
}

/// [`sssp`] with an explicit bucket width `delta`, always by Δ-stepping (also on unweighted
/// graphs). A tiny Δ behaves like Dijkstra, a huge one like Bellman-Ford; the result is the
/// same.
///
/// Errors: as [`sssp`], plus [`AlgoError::InvalidSetting`] unless `delta` is positive and finite.
pub fn sssp_with_delta(g: &MemoryGraph, source: u32, delta: f64) -> Result<Sssp, AlgoError> {
    g.check_vertex(source)?;
    if !(delta > 0.0 && delta.is_finite()) {
        return Err(AlgoError::InvalidSetting(format!(
            "delta must be positive and finite, got {delta}"
        )));
    }
    let cancel = g.cancel();
    check_weights(g.out(), g.vertices(), &cancel)?;
    Ok(delta_stepping(g.out(), source, delta, &cancel)?)
}

/// One pass over the weights: fails on the first edge (in CSR order) whose weight is negative or
/// NaN, else returns Δ: twice the mean finite positive weight over the mean out-degree, at most
/// the mean weight (Meyer and Sanders' Θ(1/d) for weights in [0, 1]); 1 when the graph is
/// unweighted or has no such weights. The error names the edge by the original IDs of
/// `vertices`; [`EngineError::Cancelled`](diskgraph_engine::EngineError::Cancelled) once
/// `cancel` is set (polled per chunk of weights).
fn check_weights(out: &Csr, vertices: &Vertices, cancel: &Cancel) -> Result<f64, AlgoError> {
    const CHUNK: usize = 1 << 14;
    let Some(w) = &out.weights else { return Ok(1.0) };
    // Per chunk: whether it holds a bad weight, and the sum and count of the usable ones.
    let chunks: Vec<(bool, f64, u64)> = w
        .par_chunks(CHUNK)
        .map(|c| {
            if cancel.is_cancelled() {
                return (false, 0.0, 0);
            }
            c.iter().fold((false, 0.0, 0), |(bad, sum, count), &x| {
                let usable = x > 0.0 && x.is_finite();
                (
                    bad | is_bad(x),
                    sum + if usable { x as f64 } else { 0.0 },
                    count + usable as u64,
                )
            })
        })
        .collect();
    cancel.check()?;
    if let Some(c) = chunks.iter().position(|c| c.0) {
        let i = c * CHUNK
            + w[c * CHUNK..]
                .iter()
                .position(|&x| is_bad(x))
                .expect("the chunk has one");
        let src = out.offsets.partition_point(|&o| o <= i as u64) - 1;
        return Err(AlgoError::negative_weight(vertices, src as u32, out.targets[i], w[i]));
    }
    let (sum, count) = chunks.iter().fold((0.0, 0), |a, c| (a.0 + c.1, a.1 + c.2));
    let mean = sum / count as f64;
    let avg_degree = out.num_arcs() as f64 / out.num_vertices().max(1) as f64;
    let delta = mean * (2.0 / avg_degree).min(1.0);
    Ok(if delta > 0.0 && delta.is_finite() { delta } else { 1.0 })
}

/// Whether SSSP refuses a weight: negative or NaN (`-0.0` is fine).
fn is_bad(w: f32) -> bool {
    w < 0.0 || w.is_nan()
}

/// Δ-stepping from `source` with bucket width `delta` (weights already checked), polling
/// `cancel` every round and within rounds.
///
/// Errors: [`EngineError::Cancelled`] once `cancel` is set.
fn delta_stepping(out: &Csr, source: u32, delta: f64, cancel: &Cancel) -> Result<Sssp, EngineError> {
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
    let mut far: BTreeMap<u64, Vec<u32>> = BTreeMap::new();
    ring[0].push(source);
    // The ring holds buckets `base..base + WINDOW`; `cur` walks through them.
    let (mut base, mut cur) = (0u64, 0u64);
    let (mut iterations, mut edges) = (0usize, 0u64);
    loop {
        // Next non-empty bucket of the window, else start a new window from the overflow map.
        match (cur..base + WINDOW).find(|&b| !ring[slot(b)].is_empty()) {
            Some(b) => cur = b,
            None => {
                let Some((&next, _)) = far.first_key_value() else { break };
                (base, cur) = (next, next);
                while let Some(entry) = far.first_entry() {
                    let b = *entry.key();
                    if b >= base + WINDOW {
                        break;
                    }
                    let waiting = entry.remove();
                    let s = &mut ring[slot(b)];
                    if s.is_empty() {
                        *s = waiting;
                    } else {
                        s.extend_from_slice(&waiting);
                    }
                }
                continue;
            }
        }
        let mut frontier = std::mem::take(&mut ring[slot(cur)]);
        while !frontier.is_empty() {
            cancel.check()?;
            iterations += 1;
            if frontier.len() >= SORT_FRONTIER {
                frontier.par_sort_unstable();
                frontier.dedup();
            }
            let relax = |chunk: &[u32]| -> RoundOutput {
                let mut r = RoundOutput::default();
                let mut poll = Poll::new(cancel);
                for &u in chunk {
                    let (a, b) = (out.offsets[u as usize] as usize, out.offsets[u as usize + 1] as usize);
                    if poll.stop(1 + (b - a) as u64) {
                        break;
                    }
                    let du = f64::from_bits(dist[u as usize].load(Relaxed));
                    if bucket(du) != cur {
                        continue; // stale: settled in an earlier bucket at a lower distance
                    }
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
                                r.far.push((b, v));
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
                for (b, v) in p.far {
                    far.entry(b).or_default().push(v);
                }
            }
        }
        if cur == MAX_BUCKET {
            break;
        }
        cur += 1;
    }
    cancel.check()?;
    Ok(Sssp {
        dist: dist.into_par_iter().map(|d| f64::from_bits(d.into_inner())).collect(),
        iterations,
        edges_processed: edges,
    })
}

/// What one task of a relaxation round produced.
#[derive(Default)]
struct RoundOutput {
    /// Vertices lowered into the current bucket.
    same: Vec<u32>,
    /// Vertices lowered into a later bucket of the window: (bucket - current, vertex).
    later: Vec<(u32, u32)>,
    /// Vertices lowered beyond the window: (bucket, vertex).
    far: Vec<(u64, u32)>,
    /// Edges relaxed.
    edges: u64,
}
