//! The Graph500 Kronecker (R-MAT) generator.
//!
//! The graph has `N = 2^scale` vertices and `M = edge_factor · N` undirected edges. Each edge is
//! placed by descending `scale` levels of the adjacency matrix: at every level one of the four
//! quadrants is chosen with the Graph500 initiator probabilities A = 0.57 (top left), B = 0.19
//! (top right), C = 0.19 (bottom left), D = 0.05 (bottom right), which fixes one bit of the
//! source and one bit of the destination. As in the Graph500 reference code no noise is added
//! to the initiator. Each level consumes 16 random bits (so the probabilities are rounded to
//! multiples of 2^-16, an error below 10^-5).
//!
//! The recursion concentrates edges on vertices whose IDs have many zero bits, so the labels
//! are then scrambled with a pseudo-random permutation of `[0, N)` derived from the seed
//! ([`LabelScramble`]); nothing else is shuffled. Self-loops and duplicate edges are emitted as
//! generated (the importer drops or merges them), and all `N` vertices are declared, so
//! isolated vertices count, as in Graph500.
//!
//! Edges are generated in chunks of 2^18, each from its own ChaCha8 stream, in parallel.

use super::chunked::{chunk_count, chunk_range, ChunkGen, Chunked, CHUNK_EDGES};
use super::rng::{unit_weight, Key, Purpose, KRONECKER};
use crate::{EdgeSource, InputFormat, InputInfo, RawEdge};
use rand::RngCore;

/// Cumulative initiator probabilities in units of 2^-16: A, A + B, A + B + C.
const THRESHOLD_A: u64 = 37_356; // 0.57 · 65536
const THRESHOLD_AB: u64 = 49_807; // 0.76 · 65536
const THRESHOLD_ABC: u64 = 62_259; // 0.95 · 65536

/// Rounds of [`LabelScramble`].
const SCRAMBLE_ROUNDS: usize = 4;

/// The bijective label permutation of `[0, 2^scale)` used by the Kronecker generator.
///
/// Each of four rounds applies, modulo `2^scale`, three bijections: XOR with a key, multiply by
/// an odd key (odd numbers are invertible modulo a power of two), and the xorshift
/// `x ^= x >> ceil(scale / 2)` (the top bits are unchanged, so the lower ones can be recovered
/// from them). Multiplication carries low bits upwards and the xorshift carries high bits
/// downwards, so a few rounds mix every bit into every other. The keys come from the seed.
#[derive(Clone, Debug)]
pub struct LabelScramble {
    mask: u64,
    shift: u32,
    rounds: [(u64, u64); SCRAMBLE_ROUNDS],
}

impl LabelScramble {
    /// The permutation of `[0, 2^scale)` for `seed`.
    ///
    /// # Panics
    /// If `scale` is not in `1..=63`.
    pub fn new(scale: u32, seed: u64) -> Self {
        assert!((1..=63).contains(&scale), "scale must be 1..=63");
        let mask = (1u64 << scale) - 1;
        let key = Key::new(seed, KRONECKER, Purpose::Scramble);
        let mut rng = key.rng(0);
        let rounds = std::array::from_fn(|_| (rng.next_u64() & mask, (rng.next_u64() | 1) & mask));
        LabelScramble { mask, shift: scale.div_ceil(2), rounds }
    }

    /// The image of `x` (which must be `< 2^scale`).
    #[inline]
    pub fn apply(&self, mut x: u64) -> u64 {
        debug_assert!(x <= self.mask);
        for &(xor, mul) in &self.rounds {
            x ^= xor;
            x = x.wrapping_mul(mul) & self.mask;
            x ^= x >> self.shift;
        }
        x
    }
}

/// The chunk generator behind [`kronecker`].
struct Kronecker {
    scale: u32,
    edges: u64,
    structure: Key,
    weights: Option<Key>,
    scramble: LabelScramble,
}

impl ChunkGen for Kronecker {
    fn chunks(&self) -> u64 {
        chunk_count(CHUNK_EDGES, self.edges)
    }

    fn fill(&self, chunk: u64, out: &mut Vec<RawEdge>) {
        let range = chunk_range(chunk, CHUNK_EDGES, self.edges);
        out.reserve(range.clone().count());
        let mut rng = self.structure.rng(chunk);
        let mut weight_rng = self.weights.map(|key| key.rng(chunk));
        // 16-bit draws carried across edges: four levels per u64.
        let (mut bits, mut left) = (0u64, 0u32);
        for _ in range {
            let (mut src, mut dst) = (0u64, 0u64);
            for _ in 0..self.scale {
                if left == 0 {
                    bits = rng.next_u64();
                    left = 4;
                }
                let r = bits & 0xFFFF;
                bits >>= 16;
                left -= 1;
                // Quadrants A = (0, 0), B = (0, 1), C = (1, 0), D = (1, 1).
                let s = (r >= THRESHOLD_AB) as u64;
                let d = (r >= THRESHOLD_A) as u64 ^ s ^ (r >= THRESHOLD_ABC) as u64;
                src = src << 1 | s;
                dst = dst << 1 | d;
            }
            out.push(RawEdge {
                src: self.scramble.apply(src),
                dst: self.scramble.apply(dst),
                weight: weight_rng.as_mut().map(unit_weight),
            });
        }
    }
}

/// The Graph500 Kronecker generator (see the module doc); parameters are validated by the caller.
pub(crate) fn kronecker(scale: u32, edge_factor: u32, seed: u64, weighted: bool) -> Box<dyn EdgeSource> {
    let vertices = 1u64 << scale;
    let edges = edge_factor as u64 * vertices;
    let info = InputInfo {
        format: InputFormat::Generated,
        directed: Some(false),
        weighted,
        declared_vertices: Some(0..vertices),
        description: format!(
            "kronecker scale={scale} edge_factor={edge_factor} seed={seed}{} \
             (Graph500 A=0.57 B=0.19 C=0.19 D=0.05, scrambled labels)",
            if weighted { " weighted" } else { "" }
        ),
    };
    let generator = Kronecker {
        scale,
        edges,
        structure: Key::new(seed, KRONECKER, Purpose::Structure),
        weights: weighted.then(|| Key::new(seed, KRONECKER, Purpose::Weight)),
        scramble: LabelScramble::new(scale, seed),
    };
    Box::new(Chunked::new(generator, info, edges))
}
