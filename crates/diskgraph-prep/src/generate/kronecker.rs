//! The Graph500 Kronecker (R-MAT) generator.
//!
//! The graph has `N = 2^scale` vertices and `M = edge_factor · N` undirected edges. Each edge is
//! placed by descending `scale` levels of the adjacency matrix: at every level one of the four
//! quadrants is chosen with the Graph500 initiator probabilities A = 0.57 (top left), B = 0.19
//! (top right), C = 0.19 (bottom left), D = 0.05 (bottom right), which fixes one bit of the
//! source and one bit of the destination. As in the Graph500 reference code no noise is added
//! to the initiator.
//!
//! Levels are drawn four at a time: the 256 outcomes of four independent levels (4 source bits
//! and 4 destination bits, with the product of the four quadrant probabilities) form one
//! distribution, sampled with Walker's alias method from 32 random bits (8 pick a table slot,
//! 24 decide between the slot's own outcome and its alias, so each outcome's probability is
//! exact to within 10^-8). When `scale` is not a multiple of four the extra low levels are drawn and dropped:
//! the first `scale` levels of a deeper recursion are distributed exactly as a `scale`-level one.
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

/// The Graph500 initiator: probabilities of quadrants (src bit, dst bit) = (0, 0), (0, 1),
/// (1, 0), (1, 1).
const INITIATOR: [f64; 4] = [0.57, 0.19, 0.19, 0.05];

/// Levels drawn at once.
const LEVELS_PER_DRAW: u32 = 4;

/// One slot of the alias table: with probability `threshold / 2^24` the slot's own outcome,
/// otherwise its alias. An outcome packs 4 source bits (high nibble) and 4 destination bits.
#[derive(Clone, Copy, Debug, Default)]
struct AliasSlot {
    threshold: u32,
    own: u8,
    alias: u8,
}

/// Walker's alias table of four initiator levels (Vose's construction).
fn alias_table() -> [AliasSlot; 256] {
    let outcome = |i: usize| -> u8 {
        // Level l (most significant first) is the 2-bit quadrant (i >> 2l) & 3.
        let (mut src, mut dst) = (0u8, 0u8);
        for level in (0..4).rev() {
            let q = (i >> (2 * level)) & 3;
            src = src << 1 | (q >> 1) as u8;
            dst = dst << 1 | (q & 1) as u8;
        }
        src << 4 | dst
    };
    let mut scaled: Vec<f64> = (0..256)
        .map(|i| (0..4).map(|level| INITIATOR[(i >> (2 * level)) & 3]).product::<f64>() * 256.0)
        .collect();
    let mut table = [AliasSlot::default(); 256];
    let (mut small, mut large): (Vec<usize>, Vec<usize>) = (0..256).partition(|&i| scaled[i] < 1.0);
    while let (Some(&s), Some(&l)) = (small.last(), large.last()) {
        small.pop();
        table[s] = AliasSlot {
            threshold: (scaled[s] * (1 << 24) as f64).round() as u32,
            own: outcome(s),
            alias: outcome(l),
        };
        scaled[l] -= 1.0 - scaled[s];
        if scaled[l] < 1.0 {
            large.pop();
            small.push(l);
        }
    }
    // What is left has probability 1 up to rounding.
    for i in small.into_iter().chain(large) {
        table[i] = AliasSlot {
            threshold: 1 << 24,
            own: outcome(i),
            alias: outcome(i),
        };
    }
    table
}

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
        LabelScramble {
            mask,
            shift: scale.div_ceil(2),
            rounds,
        }
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
    table: [AliasSlot; 256],
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
        let draws = self.scale.div_ceil(LEVELS_PER_DRAW);
        let extra = draws * LEVELS_PER_DRAW - self.scale;
        // 32-bit draws, two per u64, carried across edges.
        let (mut bits, mut left) = (0u64, 0u32);
        for _ in range {
            let (mut src, mut dst) = (0u64, 0u64);
            for _ in 0..draws {
                if left == 0 {
                    bits = rng.next_u64();
                    left = 2;
                }
                let r = bits as u32;
                bits >>= 32;
                left -= 1;
                let slot = self.table[(r >> 24) as usize];
                let outcome = if r & 0xFF_FFFF < slot.threshold {
                    slot.own
                } else {
                    slot.alias
                };
                src = src << LEVELS_PER_DRAW | (outcome >> 4) as u64;
                dst = dst << LEVELS_PER_DRAW | (outcome & 15) as u64;
            }
            let (src, dst) = (src >> extra, dst >> extra);
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
        table: alias_table(),
        edges,
        structure: Key::new(seed, KRONECKER, Purpose::Structure),
        weights: weighted.then(|| Key::new(seed, KRONECKER, Purpose::Weight)),
        scramble: LabelScramble::new(scale, seed),
    };
    Box::new(Chunked::new(generator, info, edges))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alias_table_reproduces_four_initiator_levels() {
        let table = alias_table();
        let mut probability = [0f64; 256];
        for slot in &table {
            assert!(slot.threshold <= 1 << 24);
            let own = slot.threshold as f64 / (1 << 24) as f64;
            probability[slot.own as usize] += own / 256.0;
            probability[slot.alias as usize] += (1.0 - own) / 256.0;
        }
        for (packed, &p) in probability.iter().enumerate() {
            let (src, dst) = (packed >> 4, packed & 15);
            let expected: f64 = (0..4)
                .map(|bit| INITIATOR[((src >> bit) & 1) << 1 | ((dst >> bit) & 1)])
                .product();
            assert!(
                (p - expected).abs() < 1e-8,
                "outcome {src:04b}/{dst:04b}: {p} vs {expected}"
            );
        }
    }
}
