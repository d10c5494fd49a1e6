//! The road-like grid generator.
//!
//! A `rows × cols` 4-neighbour lattice: vertex `(r, c)` has ID `r·cols + c` and is joined to its
//! right neighbour `(r, c + 1)` and its lower neighbour `(r + 1, c)` when they exist, which gives
//! `2·rows·cols − rows − cols` undirected edges, every vertex of degree at most 4, and a
//! diameter of `rows + cols − 2`: the long, thin shortest-path trees of road networks. Each edge
//! carries an integer weight uniform in `1..=100` (as `f32`), so the grid is always weighted.
//!
//! Vertices are generated in chunks of 2^17 (at most 2^18 edges), each chunk drawing its weights
//! from its own ChaCha8 stream, in parallel.

use rand::distributions::{Distribution, Uniform};

use super::chunked::{chunk_count, chunk_range, ChunkGen, Chunked, CHUNK_EDGES};
use super::rng::{Key, Purpose, GRID};
use crate::{EdgeSource, InputFormat, InputInfo, RawEdge};

/// Vertices per chunk: each emits at most two edges.
const CHUNK_VERTICES: u64 = CHUNK_EDGES / 2;

/// The chunk generator behind [`grid`].
struct Grid {
    rows: u64,
    cols: u64,
    weights: Key,
}

impl ChunkGen for Grid {
    fn chunks(&self) -> u64 {
        chunk_count(CHUNK_VERTICES, self.rows * self.cols)
    }

    fn fill(&self, chunk: u64, out: &mut Vec<RawEdge>) {
        let range = chunk_range(chunk, CHUNK_VERTICES, self.rows * self.cols);
        out.reserve(2 * range.clone().count());
        let mut rng = self.weights.rng(chunk);
        let weight = Uniform::new_inclusive(1u32, 100);
        let (mut r, mut c) = (range.start / self.cols, range.start % self.cols);
        for v in range {
            if c + 1 < self.cols {
                out.push(RawEdge {
                    src: v,
                    dst: v + 1,
                    weight: Some(weight.sample(&mut rng) as f32),
                });
            }
            if r + 1 < self.rows {
                out.push(RawEdge {
                    src: v,
                    dst: v + self.cols,
                    weight: Some(weight.sample(&mut rng) as f32),
                });
            }
            c += 1;
            if c == self.cols {
                c = 0;
                r += 1;
            }
        }
    }
}

/// The grid generator (see the module doc); parameters are validated by the caller, including
/// that the edge count fits in a `u64`.
pub(crate) fn grid(rows: u64, cols: u64, seed: u64) -> Box<dyn EdgeSource> {
    let edges = rows * (cols - 1) + cols * (rows - 1);
    let info = InputInfo {
        format: InputFormat::Generated,
        directed: Some(false),
        weighted: true,
        declared_vertices: Some(0..rows * cols),
        description: format!("grid rows={rows} cols={cols} seed={seed} (4-neighbour lattice, integer weights 1..=100)"),
    };
    Box::new(Chunked::new(
        Grid {
            rows,
            cols,
            weights: Key::new(seed, GRID, Purpose::Weight),
        },
        info,
        edges,
    ))
}
