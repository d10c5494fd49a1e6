//! Random walks on the selective engine: each step is one round reading the out-lists of the
//! vertices where walks stand and follow an arc — the active set, which is what this engine
//! reads well.
//!
//! A step has two parts, with the same calls to [`step`] as every engine's variant, so the
//! visits are equal bit for bit for any thread count, budget and order of reads:
//!
//! 1. **In memory**, over the vertices holding walks: add the walks to the visits and draw their
//!    moves with [`step`], which needs only the out-degree (the offsets index has it). Walks that
//!    restart go to their source slot now; the vertices where some walk follows an arc go to the
//!    round. A vertex whose walks all restart (dangling, damping 0, or so drawn) costs no read,
//!    and the last step reads nothing.
//! 2. **One round** ([`for_each_piece_with`](SelectiveGraph::for_each_piece_with)) over those
//!    vertices' out-lists. A list arrives in pieces, each with its position in the list, on any
//!    worker and in any order: the piece holding arcs `start..start + len` of `v` sends the walks
//!    that drew an arc `k` in that range to `targets[k - start]` (the list is in CSR order, as
//!    [`step`] indexes it), adding them to the next step's counts with atomics — sums, the same
//!    in any order. A piece draws again with [`step`] for the same `(seed, v, t)` and keeps the
//!    arcs in its range. A list longer than a block can come in many pieces (reads end at block
//!    boundaries), so for those part 1 keeps the arcs drawn, sorted, and each piece takes its
//!    range by binary search instead of drawing again; at most `8n` bytes are kept a step (a
//!    vertex's walks at 8 bytes each and `KEPT_OVERHEAD` for its entry; pieces of the others
//!    draw again), so the state stays O(V).
//!
//! Memory beside the engine's budget, which carries the reads: the visits and the walk counts of
//! this step and the next (24 bytes a vertex), the vertices holding walks and those to read, and
//! the kept arcs (at most 8 bytes a vertex).

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;

use diskgraph_engine::selective::{SelectiveGraph, VertexSubset};
use diskgraph_engine::Engine;
use diskgraph_format::Direction;
use rayon::prelude::*;

use super::{step, RandomWalk, RandomWalkResult, Start, Walk};
use crate::parallel::chunk_len;
use crate::stop::Poll;
use crate::AlgoError;

/// What a vertex's kept arcs cost beside 8 bytes a walk, in 8-byte units: its entry (a vertex
/// and a vector, 32 bytes) in its chunk's list and in the step's, the allocator's header and
/// rounding (24 at most), and the chunk list's unused capacity (32 at most).
const KEPT_OVERHEAD: u64 = 15;

/// What part 1 of a step found over a chunk of the vertices holding walks.
#[derive(Default)]
struct Drawn {
    /// Vertices the chunk's restarting walks arrived at first (each vertex once over all
    /// chunks and the round: the arrival that found its count zero).
    arrived: Vec<u32>,
    /// Vertices where some walk follows an arc, ascending: their lists are read.
    to_read: Vec<u32>,
    /// For some of them (long lists), the arcs their walks take, ascending.
    arcs: Vec<(u32, Vec<u64>)>,
    /// Walks that follow an arc.
    moves: u64,
}

/// Adds a walk arriving at `w` to `next`; `w` goes to `first` when it is the first to arrive.
#[inline]
fn arrive(next: &[AtomicU64], w: u32, first: &mut Vec<u32>) {
    if next[w as usize].fetch_add(1, Relaxed) == 0 {
        first.push(w);
    }
}

/// Walks `settings` from the source slots `sources` (internal IDs, in order, repeats allowed)
/// on `g`, reading out-lists only. Same result as [`RandomWalk::run`].
///
/// Errors: [`AlgoError::InvalidSetting`] for no source or a damping outside `[0, 1]`;
/// [`EngineError::InvalidVertex`](diskgraph_engine::EngineError::InvalidVertex) for a source
/// that is not a vertex; the engine's failures.
pub fn randomwalk(g: &SelectiveGraph, settings: &RandomWalk, sources: &[u32]) -> Result<RandomWalkResult, AlgoError> {
    let walk = Walk::new(settings, sources.len())?;
    for &s in sources {
        g.check_vertex(s)?;
    }
    let n = g.num_vertices();
    let Start {
        visits,
        mut now,
        mut next,
        mut active,
    } = Start::of(&walk, settings.walks, sources, n);
    // Lists longer than a block may come in many pieces; lists read compressed come whole.
    let block_edges = u64::from(g.io().config().block_size / 4);
    let pieces_cut = g.adjacency_name() == "plain";
    let mut moves = 0;
    let cancel = g.cancel();
    for t in 0..=settings.length {
        cancel.check()?;
        let last = t == settings.length;
        let (now_, next_) = (&now, &next);
        // The kept arcs' cost this step, in 8-byte units (a bound on the arcs: restarts are
        // counted too).
        let kept = AtomicU64::new(0);
        let parts: Vec<Drawn> = active
            .par_chunks(chunk_len(active.len(), 256))
            .map(|chunk| {
                let mut part = Drawn::default();
                let mut poll = Poll::new(&cancel);
                for &v in chunk {
                    if poll.stop(1) {
                        break;
                    }
                    let count = now_[v as usize].load(Relaxed);
                    visits[v as usize].fetch_add(count, Relaxed);
                    if last || count == 0 {
                        now_[v as usize].store(0, Relaxed);
                        continue;
                    }
                    let degree = g.degree(Direction::Out, v);
                    let cost = count.saturating_add(KEPT_OVERHEAD);
                    let keep = pieces_cut
                        && degree > block_edges
                        && kept.fetch_add(cost, Relaxed).saturating_add(cost) <= n as u64;
                    // Room for every walk at once: no growth beyond what was counted.
                    let mut arcs = Vec::with_capacity(if keep { count as usize } else { 0 });
                    let mut followed = 0u64;
                    step(
                        &walk,
                        v,
                        t,
                        (count, degree),
                        &mut poll,
                        |k| {
                            followed += 1;
                            if keep {
                                arcs.push(k);
                            }
                        },
                        |slot| arrive(next_, sources[slot], &mut part.arrived),
                    );
                    if followed == 0 {
                        now_[v as usize].store(0, Relaxed);
                        continue;
                    }
                    part.moves += followed;
                    part.to_read.push(v);
                    if keep {
                        arcs.sort_unstable();
                        part.arcs.push((v, arcs));
                    }
                }
                part
            })
            .collect();
        cancel.check()?;
        // Not read again this step: the arrivals make the next one.
        drop(std::mem::take(&mut active));
        // The chunks are in vertex order, so their lists concatenate ascending, each into a
        // vector of its final length.
        let sum = |f: fn(&Drawn) -> usize| parts.iter().map(f).sum::<usize>();
        let mut arrived = Vec::with_capacity(sum(|p| p.arrived.len()));
        let mut to_read = Vec::with_capacity(sum(|p| p.to_read.len()));
        let mut drawn = Vec::with_capacity(sum(|p| p.arcs.len()));
        for p in parts {
            moves += p.moves;
            // Each of the chunk's vectors is freed once copied.
            arrived.extend(p.arrived);
            to_read.extend(p.to_read);
            drawn.extend(p.arcs);
        }
        if !to_read.is_empty() {
            let round = VertexSubset::from_vertices(n, to_read);
            let found = Mutex::new(Vec::new());
            g.for_each_piece_with(
                Direction::Out,
                &round,
                false,
                Vec::new,
                |first, v, p| {
                    let end = p.start + p.targets.len() as u64;
                    let mut take = |k: u64| arrive(next_, p.targets[(k - p.start) as usize], first);
                    match drawn.binary_search_by_key(&v, |d| d.0) {
                        Ok(i) => {
                            let arcs = &drawn[i].1;
                            let from = arcs.partition_point(|&k| k < p.start);
                            for &k in arcs[from..].iter().take_while(|&&k| k < end) {
                                take(k);
                            }
                        }
                        Err(_) => step(
                            &walk,
                            v,
                            t,
                            (now_[v as usize].load(Relaxed), p.degree),
                            &mut Poll::new(&cancel),
                            |k| {
                                if (p.start..end).contains(&k) {
                                    take(k);
                                }
                            },
                            |_| {},
                        ),
                    }
                },
                |first| found.lock().unwrap_or_else(|e| e.into_inner()).extend(first),
            )?;
            round.par_for_each(|v| now_[v as usize].store(0, Relaxed));
            arrived.append(&mut found.into_inner().unwrap_or_else(|e| e.into_inner()));
        }
        active = arrived;
        active.par_sort_unstable();
        std::mem::swap(&mut now, &mut next);
    }
    Ok(RandomWalkResult {
        sources: sources.to_vec(),
        visits: visits.into_iter().map(AtomicU64::into_inner).collect(),
        moves,
    })
}
