//! Seeding shared by all generators.
//!
//! Every random number a generator draws comes from a [`ChaCha8Rng`] whose 256-bit key is
//! derived from `(seed, generator id, purpose)` with splitmix64, and whose 64-bit ChaCha stream
//! number is the chunk index. Streams of one key are independent by construction, so a chunk's
//! edges depend only on the seed, the generator and the chunk index: never on the thread that
//! generated it, the order chunks were generated in, or how the consumer batches them.

use rand::distributions::OpenClosed01;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Generator ids, mixed into every key so that two generators never share a stream.
pub(crate) const KRONECKER: u64 = 1;
pub(crate) const ERDOS_RENYI: u64 = 2;
pub(crate) const WATTS_STROGATZ: u64 = 3;
pub(crate) const BARABASI_ALBERT: u64 = 4;
pub(crate) const GRID: u64 = 5;

/// What a key is used for: the graph's structure, its weights, or the Kronecker label scramble.
/// Weights come from their own key, so a weighted graph has exactly the edges of the unweighted
/// graph with the same seed.
#[derive(Clone, Copy)]
pub(crate) enum Purpose {
    Structure = 0,
    Weight = 1,
    Scramble = 2,
}

/// The splitmix64 finaliser: a bijective 64-bit mixer.
pub(crate) fn splitmix64(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// A ChaCha8 key for `(seed, generator, purpose)`; [`Key::rng`] opens one stream of it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Key([u8; 32]);

impl Key {
    pub(crate) fn new(seed: u64, generator: u64, purpose: Purpose) -> Key {
        let mut state = splitmix64(seed) ^ splitmix64(generator << 8 | purpose as u64);
        let mut key = [0u8; 32];
        for word in key.chunks_exact_mut(8) {
            state = splitmix64(state);
            word.copy_from_slice(&state.to_le_bytes());
        }
        Key(key)
    }

    /// The RNG for stream `stream` (a chunk index) of this key.
    pub(crate) fn rng(&self, stream: u64) -> ChaCha8Rng {
        let mut rng = ChaCha8Rng::from_seed(self.0);
        rng.set_stream(stream);
        rng
    }
}

/// A weight uniform in (0, 1] (24 random bits: 1 is possible, 0 is not).
#[inline]
pub(crate) fn unit_weight(rng: &mut ChaCha8Rng) -> f32 {
    rng.sample(OpenClosed01)
}
