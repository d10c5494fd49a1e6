//! The Watts–Strogatz small-world generator.
//!
//! Start from a ring lattice on `n` vertices where each vertex `u` is joined to its `k/2`
//! successors `u + 1, …, u + k/2` (mod `n`), so to `k/2` neighbours on each side: `n·k/2` edges.
//! Then each lattice edge `(u, u + j)` is, with probability `beta`, rewired to `(u, w)` for a
//! random `w`. As in NetworkX's `watts_strogatz_graph`, `w` is never `u`; where NetworkX
//! rejects any `w` already adjacent to `u` in the graph being rewired (which needs the whole
//! graph), this generator draws `w` uniformly among the `n − 1 − k` vertices that are not
//! lattice neighbours of `u`, so that every edge can be decided on its own. A rewired edge
//! therefore never duplicates a lattice edge, and two rewired edges coincide only with
//! probability about `1/n` (the importer merges those). When `k = n − 1` every other vertex is
//! a lattice neighbour and nothing is rewired (as in NetworkX). `beta = 0` gives the lattice,
//! `beta = 1` a random graph with minimum degree `k/2`.
//!
//! Edges are numbered `u·(k/2) + j − 1` and generated in chunks of 2^18 of those numbers, each
//! from its own ChaCha8 stream, in parallel.

use rand::distributions::{Distribution, Uniform};
use rand::Rng;

use super::chunked::{chunk_count, chunk_range, ChunkGen, Chunked, CHUNK_EDGES};
use super::rng::{unit_weight, Key, Purpose, WATTS_STROGATZ};
use crate::{EdgeSource, InputFormat, InputInfo, RawEdge};

/// The chunk generator behind [`watts_strogatz`].
struct WattsStrogatz {
    vertices: u64,
    half: u64,
    beta: f64,
    edges: u64,
    structure: Key,
    weights: Option<Key>,
}

/// `(u + offset) mod n` for `u, offset < n`, without overflow.
#[inline]
fn ring_add(u: u64, offset: u64, n: u64) -> u64 {
    if u >= n - offset {
        u - (n - offset)
    } else {
        u + offset
    }
}

impl ChunkGen for WattsStrogatz {
    fn chunks(&self) -> u64 {
        chunk_count(CHUNK_EDGES, self.edges)
    }

    fn fill(&self, chunk: u64, out: &mut Vec<RawEdge>) {
        let range = chunk_range(chunk, CHUNK_EDGES, self.edges);
        out.reserve(range.clone().count());
        let mut rng = self.structure.rng(chunk);
        let mut weight_rng = self.weights.map(|key| key.rng(chunk));
        let n = self.vertices;
        // Vertices that are neither u nor one of its k lattice neighbours.
        let others = n - 1 - 2 * self.half;
        let other = (others > 0).then(|| Uniform::new(0, others));
        let (mut u, mut j) = (range.start / self.half, range.start % self.half + 1);
        for _ in range {
            let coin: f64 = rng.gen();
            let dst = match &other {
                Some(other) if coin < self.beta => ring_add(u, self.half + 1 + other.sample(&mut rng), n),
                _ => ring_add(u, j, n),
            };
            out.push(RawEdge {
                src: u,
                dst,
                weight: weight_rng.as_mut().map(unit_weight),
            });
            if j == self.half {
                u += 1;
                j = 1;
            } else {
                j += 1;
            }
        }
    }
}

/// The Watts–Strogatz generator (see the module doc); parameters are validated by the caller.
pub(crate) fn watts_strogatz(vertices: u64, k: u64, beta: f64, seed: u64, weighted: bool) -> Box<dyn EdgeSource> {
    let half = k / 2;
    let edges = vertices * half;
    let info = InputInfo {
        format: InputFormat::Generated,
        directed: Some(false),
        weighted,
        declared_vertices: Some(0..vertices),
        description: format!(
            "watts_strogatz n={vertices} k={k} beta={beta} seed={seed}{} (ring lattice, rewired edges avoid lattice neighbours)",
            if weighted { " weighted" } else { "" }
        ),
    };
    let generator = WattsStrogatz {
        vertices,
        half,
        beta,
        edges,
        structure: Key::new(seed, WATTS_STROGATZ, Purpose::Structure),
        weights: weighted.then(|| Key::new(seed, WATTS_STROGATZ, Purpose::Weight)),
    };
    Box::new(Chunked::new(generator, info, edges))
}
