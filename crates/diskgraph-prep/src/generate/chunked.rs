//! Chunked parallel generation shared by the stateless generators.
//!
//! A generator whose edges can be computed independently in fixed ranges implements
//! [`ChunkGen`]: edge (or vertex) range `chunk` is filled from RNGs seeded by the chunk index
//! alone (see [`super::rng`]). [`Chunked`] turns it into an [`EdgeSource`]: when its queue runs
//! dry it generates the next wave of chunks in parallel on the current rayon pool, then hands
//! them out one per [`EdgeSource::next_batch`] call, in chunk order. At most one wave (one chunk
//! per rayon thread, between 2 and [`MAX_WAVE`]) plus the batch the caller holds is in memory,
//! whatever the size of the graph. Buffers handed back by the caller are reused.

use std::collections::VecDeque;

use rayon::prelude::*;

use crate::{EdgeSource, InputError, InputInfo, RawEdge};

/// Edges per chunk. The output of every chunked generator depends on it: changing it changes
/// the graphs generated from a given seed.
pub(crate) const CHUNK_EDGES: u64 = 1 << 18;

/// The most chunks generated at once (about 6 MiB each).
pub(crate) const MAX_WAVE: usize = 32;

/// A generator made of independent chunks.
pub(crate) trait ChunkGen: Send + Sync {
    /// How many chunks there are.
    fn chunks(&self) -> u64;
    /// Appends the edges of chunk `chunk` (< `chunks()`) to the empty `out` (possibly none).
    fn fill(&self, chunk: u64, out: &mut Vec<RawEdge>);
}

/// An [`EdgeSource`] that emits the chunks of a [`ChunkGen`] in order.
pub(crate) struct Chunked<G> {
    generator: G,
    info: InputInfo,
    total: u64,
    emitted: u64,
    next_chunk: u64,
    ready: VecDeque<Vec<RawEdge>>,
    spare: Vec<Vec<RawEdge>>,
}

impl<G: ChunkGen> Chunked<G> {
    pub(crate) fn new(generator: G, info: InputInfo, total: u64) -> Self {
        Chunked {
            generator,
            info,
            total,
            emitted: 0,
            next_chunk: 0,
            ready: VecDeque::new(),
            spare: Vec::new(),
        }
    }

    /// Generates the next wave of chunks in parallel.
    fn refill(&mut self) {
        let wave = rayon::current_num_threads().clamp(2, MAX_WAVE) as u64;
        let count = wave.min(self.generator.chunks() - self.next_chunk) as usize;
        let mut buffers: Vec<Vec<RawEdge>> = (0..count).map(|_| self.spare.pop().unwrap_or_default()).collect();
        let first = self.next_chunk;
        let generator = &self.generator;
        buffers.par_iter_mut().enumerate().for_each(|(i, buffer)| {
            buffer.clear();
            generator.fill(first + i as u64, buffer);
        });
        self.next_chunk += count as u64;
        self.ready.extend(buffers);
    }
}

impl<G: ChunkGen> EdgeSource for Chunked<G> {
    fn info(&self) -> &InputInfo {
        &self.info
    }

    fn next_batch(&mut self, out: &mut Vec<RawEdge>) -> Result<bool, InputError> {
        out.clear();
        loop {
            if self.ready.is_empty() {
                if self.next_chunk == self.generator.chunks() {
                    return Ok(false);
                }
                self.refill();
            }
            let Some(mut chunk) = self.ready.pop_front() else {
                continue;
            };
            if chunk.is_empty() {
                self.spare.push(chunk);
                continue;
            }
            std::mem::swap(out, &mut chunk);
            if self.spare.len() < MAX_WAVE {
                self.spare.push(chunk);
            }
            self.emitted += out.len() as u64;
            return Ok(true);
        }
    }

    fn progress(&self) -> (u64, Option<u64>) {
        (self.emitted, Some(self.total))
    }

    fn rewindable(&self) -> bool {
        true
    }

    /// Starts over at chunk 0: chunks depend on their index alone, so the edges are the same.
    fn rewind(&mut self) -> Result<(), InputError> {
        self.spare.extend(self.ready.drain(..));
        self.spare.truncate(MAX_WAVE);
        self.next_chunk = 0;
        self.emitted = 0;
        Ok(())
    }
}

/// The `[start, end)` range of chunk `chunk` of `total` units, `per_chunk` units a chunk.
pub(crate) fn chunk_range(chunk: u64, per_chunk: u64, total: u64) -> std::ops::Range<u64> {
    let start = chunk * per_chunk;
    start..total.min(start + per_chunk)
}

/// How many chunks of `per_chunk` units cover `total` units.
pub(crate) fn chunk_count(per_chunk: u64, total: u64) -> u64 {
    total.div_ceil(per_chunk)
}
