//! Chunked parallel generation shared by the stateless generators.
//!
//! A generator whose edges can be computed independently in fixed ranges implements
//! [`ChunkGen`]: edge (or vertex) range `chunk` is filled from RNGs seeded by the chunk index
//! alone (see [`super::rng`]). [`Chunked`] turns it into an [`EdgeSource`]: a producer thread
//! generates waves of chunks in parallel on the rayon pool and queues them, in chunk order,
//! while the caller consumes the previous ones (an import places arcs while the next edges are
//! drawn); [`EdgeSource::next_batch`] hands out one chunk per call. At most two waves (one
//! chunk per rayon thread, between 2 and [`MAX_WAVE`], each) plus the batch the caller holds
//! are in memory, whatever the size of the graph. Buffers handed back by the caller are reused.
//! Rewinding stops the producer and starts a new one at chunk 0.

use std::sync::mpsc::{self, Receiver, SyncSender};
use std::sync::Arc;
use std::thread::JoinHandle;

use rayon::prelude::*;

use crate::{EdgeSource, InputError, InputInfo, RawEdge};

/// Edges per chunk. The output of every chunked generator depends on it: changing it changes
/// the graphs generated from a given seed.
pub(crate) const CHUNK_EDGES: u64 = 1 << 18;

/// The most chunks generated at once (about 6 MiB each).
pub(crate) const MAX_WAVE: usize = 32;

/// Chunks generated at once: one per thread.
fn wave() -> usize {
    rayon::current_num_threads().clamp(2, MAX_WAVE)
}

/// A generator made of independent chunks.
pub(crate) trait ChunkGen: Send + Sync + 'static {
    /// How many chunks there are.
    fn chunks(&self) -> u64;
    /// Appends the edges of chunk `chunk` (< `chunks()`) to the empty `out` (possibly none).
    fn fill(&self, chunk: u64, out: &mut Vec<RawEdge>);
}

/// The producer of one read: its queue of generated chunks, the way back for spent buffers,
/// and its thread.
struct Producer {
    chunks: Receiver<Vec<RawEdge>>,
    spent: SyncSender<Vec<RawEdge>>,
    thread: Option<JoinHandle<()>>,
}

impl Producer {
    /// Starts generating `generator`'s chunks from chunk 0.
    fn start<G: ChunkGen>(generator: Arc<G>) -> Producer {
        let wave = wave();
        // A wave queued while the next is generated.
        let (send, chunks) = mpsc::sync_channel(wave);
        let (spent, reuse) = mpsc::sync_channel::<Vec<RawEdge>>(2 * wave);
        let thread = std::thread::Builder::new()
            .name("generator".into())
            .spawn(move || {
                let total = generator.chunks();
                let mut next = 0u64;
                while next < total {
                    let count = (wave as u64).min(total - next) as usize;
                    let mut buffers: Vec<Vec<RawEdge>> =
                        (0..count).map(|_| reuse.try_recv().unwrap_or_default()).collect();
                    let g = &generator;
                    buffers.par_iter_mut().enumerate().for_each(|(i, buffer)| {
                        buffer.clear();
                        g.fill(next + i as u64, buffer);
                    });
                    next += count as u64;
                    for buffer in buffers {
                        if send.send(buffer).is_err() {
                            return; // the reader stopped or rewound
                        }
                    }
                }
            })
            .expect("cannot start the generator's thread");
        Producer {
            chunks,
            spent,
            thread: Some(thread),
        }
    }
}

impl Drop for Producer {
    fn drop(&mut self) {
        // Closing the queue ends the producer at its next chunk; wait for it so that no
        // generation outlives the read.
        let (_, closed) = mpsc::sync_channel(0);
        drop(std::mem::replace(&mut self.chunks, closed));
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// An [`EdgeSource`] that emits the chunks of a [`ChunkGen`] in order.
pub(crate) struct Chunked<G> {
    generator: Arc<G>,
    info: InputInfo,
    total: u64,
    emitted: u64,
    /// The producer of the current read, started at its first batch.
    producer: Option<Producer>,
    /// Whether the current read has ended.
    done: bool,
}

impl<G: ChunkGen> Chunked<G> {
    pub(crate) fn new(generator: G, info: InputInfo, total: u64) -> Self {
        Chunked {
            generator: Arc::new(generator),
            info,
            total,
            emitted: 0,
            producer: None,
            done: false,
        }
    }
}

impl<G: ChunkGen> EdgeSource for Chunked<G> {
    fn info(&self) -> &InputInfo {
        &self.info
    }

    fn next_batch(&mut self, out: &mut Vec<RawEdge>) -> Result<bool, InputError> {
        out.clear();
        if self.done {
            return Ok(false);
        }
        let generator = &self.generator;
        let producer = self
            .producer
            .get_or_insert_with(|| Producer::start(Arc::clone(generator)));
        loop {
            let Ok(mut chunk) = producer.chunks.recv() else {
                // Every chunk was handed out and the producer has finished.
                self.done = true;
                self.producer = None;
                return Ok(false);
            };
            if chunk.is_empty() {
                let _ = producer.spent.try_send(chunk);
                continue;
            }
            std::mem::swap(out, &mut chunk);
            let _ = producer.spent.try_send(chunk);
            self.emitted += out.len() as u64;
            return Ok(true);
        }
    }

    fn buffered_bytes(&self) -> u64 {
        // A wave generating, one queued, the spent buffers waiting for reuse (two waves) and
        // the one handed out.
        let chunks = 4 * wave() as u64 + 1;
        chunks * CHUNK_EDGES * std::mem::size_of::<RawEdge>() as u64
    }

    fn progress(&self) -> (u64, Option<u64>) {
        (self.emitted, Some(self.total))
    }

    fn rewindable(&self) -> bool {
        true
    }

    /// Starts over at chunk 0: chunks depend on their index alone, so the edges are the same.
    fn rewind(&mut self) -> Result<(), InputError> {
        self.producer = None;
        self.done = false;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::InputFormat;

    /// Chunk `c` holds the `c` edges `c → 0 .. c` (chunk 0 none).
    struct Triangle(u64);

    impl ChunkGen for Triangle {
        fn chunks(&self) -> u64 {
            self.0
        }

        fn fill(&self, chunk: u64, out: &mut Vec<RawEdge>) {
            out.extend((0..chunk).map(|j| RawEdge {
                src: chunk,
                dst: j,
                weight: None,
            }));
        }
    }

    fn read_to_end(s: &mut dyn EdgeSource) -> Vec<(u64, u64)> {
        let (mut all, mut batch) = (Vec::new(), Vec::new());
        while s.next_batch(&mut batch).unwrap() {
            all.extend(batch.iter().map(|e| (e.src, e.dst)));
        }
        all
    }

    #[test]
    fn chunks_come_in_order_and_again_after_a_rewind_mid_read() {
        let chunks = 100;
        let want: Vec<(u64, u64)> = (1..chunks).flat_map(|c| (0..c).map(move |j| (c, j))).collect();
        let info = InputInfo {
            format: InputFormat::Generated,
            directed: Some(true),
            weighted: false,
            declared_vertices: None,
            description: "triangle".into(),
        };
        let mut s = Chunked::new(Triangle(chunks), info, want.len() as u64);
        assert_eq!(read_to_end(&mut s), want);
        assert!(!s.next_batch(&mut Vec::new()).unwrap(), "an ended read stays ended");
        s.rewind().unwrap();
        let mut batch = Vec::new();
        for _ in 0..3 {
            assert!(s.next_batch(&mut batch).unwrap());
        }
        // Mid-read: the producer is stopped and a new one starts at chunk 0.
        s.rewind().unwrap();
        assert_eq!(read_to_end(&mut s), want);
        assert_eq!(s.progress(), (want.len() as u64, Some(want.len() as u64)));
    }
}
