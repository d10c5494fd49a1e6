//! Graph generators: synthetic graphs streamed straight into the importer.
//!
//! [`generator`] turns a [`GeneratorSpec`] into an [`EdgeSource`]:
//!
//! | model | vertices | edges | directed |
//! | --- | --- | --- | --- |
//! | [`GeneratorSpec::Kronecker`] (Graph500) | `2^scale` | `edge_factor · 2^scale` | no |
//! | [`GeneratorSpec::ErdosRenyi`] (G(n, m)) | `n` | `m` | either |
//! | [`GeneratorSpec::WattsStrogatz`] | `n` | `n · k/2` | no |
//! | [`GeneratorSpec::BarabasiAlbert`] | `n` | `(n − m) · m` | no |
//! | [`GeneratorSpec::Grid`] (road-like) | `rows · cols` | `2·rows·cols − rows − cols` | no |
//!
//! Every generator declares all its vertices (`0..n`), reports progress in edges out of the
//! exact total, and is deterministic: the edge stream depends only on the spec (seed included),
//! never on the number of threads or on how the caller consumes it. Edge-parallel models
//! (Kronecker, Erdős–Rényi, Watts–Strogatz, grid) are cut into fixed chunks of 2^18 edges, each
//! drawn from its own ChaCha8 stream keyed by (seed, generator, chunk index), and a wave of
//! chunks (one per rayon thread, at most 32) is generated in parallel whenever the previous wave
//! has been handed out, so memory stays at a few chunks of about 6 MiB whatever the scale.
//! Barabási–Albert is sequential and streams batches as it grows the graph.
//!
//! Optional weights (`weighted: true`) are uniform in (0, 1] and drawn from a stream of their
//! own, so a weighted graph has exactly the edges of the unweighted one with the same seed. Grid
//! weights are integers in `1..=100`. Models may emit self-loops and duplicate edges (see each
//! module); the importer drops or merges them by default.

mod barabasi_albert;
mod chunked;
mod erdos_renyi;
mod grid;
mod kronecker;
mod rng;
mod watts_strogatz;

pub use kronecker::LabelScramble;

use crate::EdgeSource;

/// The Graph500 edge factor (edges per vertex) of [`GeneratorSpec::Kronecker`].
pub const DEFAULT_EDGE_FACTOR: u32 = 16;

/// Which graph to generate, with its parameters; [`generator`] validates them.
#[derive(Clone, Debug, PartialEq)]
pub enum GeneratorSpec {
    /// Graph500 Kronecker graph: `2^scale` vertices (`scale` in `1..=32`), `edge_factor · 2^scale`
    /// undirected edges from the initiator A=0.57 B=0.19 C=0.19 D=0.05, scrambled labels.
    Kronecker {
        /// log2 of the vertex count, `1..=32`.
        scale: u32,
        /// Edges per vertex, at least 1 ([`DEFAULT_EDGE_FACTOR`] in Graph500).
        edge_factor: u32,
        /// Random seed.
        seed: u64,
        /// Whether edges carry weights uniform in (0, 1].
        weighted: bool,
    },
    /// `edges` uniformly random vertex pairs on `vertices` vertices (with replacement).
    ErdosRenyi {
        /// Vertex count, at least 1.
        vertices: u64,
        /// Edge count.
        edges: u64,
        /// Random seed.
        seed: u64,
        /// Whether the graph declares itself directed.
        directed: bool,
        /// Whether edges carry weights uniform in (0, 1].
        weighted: bool,
    },
    /// Ring lattice of `vertices` vertices each joined to `k/2` neighbours on each side, each
    /// edge rewired with probability `beta`.
    WattsStrogatz {
        /// Vertex count.
        vertices: u64,
        /// Lattice degree: even, at least 2, less than `vertices`.
        k: u64,
        /// Rewiring probability in `[0, 1]`.
        beta: f64,
        /// Random seed.
        seed: u64,
        /// Whether edges carry weights uniform in (0, 1].
        weighted: bool,
    },
    /// Preferential attachment: each new vertex joins `m` distinct vertices chosen
    /// proportionally to their degree.
    BarabasiAlbert {
        /// Vertex count, at most `u32::MAX`.
        vertices: u64,
        /// Edges per new vertex, `1 <= m < vertices`.
        m: u64,
        /// Random seed.
        seed: u64,
        /// Whether edges carry weights uniform in (0, 1].
        weighted: bool,
    },
    /// Road-like `rows × cols` 4-neighbour lattice with integer weights in `1..=100`.
    Grid {
        /// Row count, at least 1.
        rows: u64,
        /// Column count, at least 1.
        cols: u64,
        /// Random seed (for the weights).
        seed: u64,
    },
}

/// Checks `spec` and returns its edge stream, or a one-line message naming the bad parameter.
pub fn generator(spec: &GeneratorSpec) -> Result<Box<dyn EdgeSource>, String> {
    match *spec {
        GeneratorSpec::Kronecker {
            scale,
            edge_factor,
            seed,
            weighted,
        } => {
            if !(1..=32).contains(&scale) {
                return Err(format!("kronecker: scale must be 1..=32 (got {scale})"));
            }
            if edge_factor == 0 {
                return Err("kronecker: edge_factor must be >= 1".into());
            }
            Ok(kronecker::kronecker(scale, edge_factor, seed, weighted))
        }
        GeneratorSpec::ErdosRenyi {
            vertices,
            edges,
            seed,
            directed,
            weighted,
        } => {
            if vertices == 0 {
                return Err("erdos_renyi: vertices must be >= 1".into());
            }
            Ok(erdos_renyi::erdos_renyi(vertices, edges, seed, directed, weighted))
        }
        GeneratorSpec::WattsStrogatz {
            vertices,
            k,
            beta,
            seed,
            weighted,
        } => {
            if k < 2 || k % 2 != 0 || k >= vertices {
                return Err(format!(
                    "watts_strogatz: k must be even, >= 2 and < n (got k={k}, n={vertices})"
                ));
            }
            if !(0.0..=1.0).contains(&beta) {
                return Err(format!("watts_strogatz: beta must be in [0, 1] (got {beta})"));
            }
            if vertices.checked_mul(k / 2).is_none() {
                return Err("watts_strogatz: n·k/2 edges must fit in 64 bits".into());
            }
            Ok(watts_strogatz::watts_strogatz(vertices, k, beta, seed, weighted))
        }
        GeneratorSpec::BarabasiAlbert {
            vertices,
            m,
            seed,
            weighted,
        } => {
            if m == 0 || m >= vertices {
                return Err(format!(
                    "barabasi_albert: m must satisfy 1 <= m < n (got m={m}, n={vertices})"
                ));
            }
            if vertices > u32::MAX as u64 {
                return Err(format!("barabasi_albert: n must be <= {} (got {vertices})", u32::MAX));
            }
            Ok(barabasi_albert::barabasi_albert(vertices, m, seed, weighted))
        }
        GeneratorSpec::Grid { rows, cols, seed } => {
            if rows == 0 || cols == 0 {
                return Err(format!("grid: rows and cols must be >= 1 (got {rows}x{cols})"));
            }
            let edges = rows
                .checked_mul(cols)
                .and_then(|_| (rows * (cols - 1)).checked_add(cols * (rows - 1)));
            if edges.is_none() {
                return Err(format!("grid: {rows}x{cols} is too large (edges must fit in 64 bits)"));
            }
            Ok(grid::grid(rows, cols, seed))
        }
    }
}
