//! The Erdős–Rényi G(n, m) generator.
//!
//! `m` edges, each with a source and a destination drawn independently and uniformly from
//! `[0, n)`. Unlike strict G(n, m), pairs are drawn with replacement, so self-loops and duplicate
//! edges may occur (about `m/n` and `m²/n²` of them); the importer drops or merges them by
//! default. All `n` vertices are declared, so isolated vertices count. The graph is directed or
//! undirected as asked: an undirected graph just declares itself so.
//!
//! Edges are generated in chunks of 2^18, each from its own ChaCha8 stream, in parallel.

use rand::distributions::{Distribution, Uniform};

use super::chunked::{chunk_count, chunk_range, ChunkGen, Chunked, CHUNK_EDGES};
use super::rng::{unit_weight, Key, Purpose, ERDOS_RENYI};
use crate::{EdgeSource, InputFormat, InputInfo, RawEdge};

/// The chunk generator behind [`erdos_renyi`].
struct ErdosRenyi {
    vertices: u64,
    edges: u64,
    structure: Key,
    weights: Option<Key>,
}

impl ChunkGen for ErdosRenyi {
    fn chunks(&self) -> u64 {
        chunk_count(CHUNK_EDGES, self.edges)
    }

    fn fill(&self, chunk: u64, out: &mut Vec<RawEdge>) {
        let range = chunk_range(chunk, CHUNK_EDGES, self.edges);
        out.reserve(range.clone().count());
        let mut rng = self.structure.rng(chunk);
        let mut weight_rng = self.weights.map(|key| key.rng(chunk));
        let vertex = Uniform::new(0, self.vertices);
        for _ in range {
            let src = vertex.sample(&mut rng);
            let dst = vertex.sample(&mut rng);
            out.push(RawEdge {
                src,
                dst,
                weight: weight_rng.as_mut().map(unit_weight),
            });
        }
    }
}

/// The G(n, m) generator (see the module doc); parameters are validated by the caller.
pub(crate) fn erdos_renyi(vertices: u64, edges: u64, seed: u64, directed: bool, weighted: bool) -> Box<dyn EdgeSource> {
    let info = InputInfo {
        format: InputFormat::Generated,
        directed: Some(directed),
        weighted,
        declared_vertices: Some(0..vertices),
        description: format!(
            "erdos_renyi n={vertices} m={edges} seed={seed} {}{} (uniform pairs with replacement)",
            if directed { "directed" } else { "undirected" },
            if weighted { " weighted" } else { "" }
        ),
    };
    let generator = ErdosRenyi {
        vertices,
        edges,
        structure: Key::new(seed, ERDOS_RENYI, Purpose::Structure),
        weights: weighted.then(|| Key::new(seed, ERDOS_RENYI, Purpose::Weight)),
    };
    Box::new(Chunked::new(generator, info, edges))
}
