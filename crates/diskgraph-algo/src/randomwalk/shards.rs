//! Random walks on the shard engine, GraphChi style: walks travel as counts on the arcs. In
//! iteration `t` a vertex takes the walks at it at step `t`, adds them to its visits, and moves
//! each with [`step`] — the same calls as every engine's, so the visits are equal bit for bit —
//! writing on each out-arc how many walks took it; walks that restart are counted per source
//! slot and arrive at their slot's vertex at the next step.
//!
//! The engine's visibility rule tells which step an arc's count belongs to: written by a
//! smaller source, it was written this iteration (those walks moved at step `t` and wait, held
//! in the vertex, for step `t + 1`); written by a larger source or the vertex itself, it was
//! written last iteration (walks that moved at step `t − 1`, at the vertex now). Every count is
//! read exactly once before its source writes the arc again, so no arc needs clearing.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use diskgraph_engine::shards::{Program, ProgramNeeds, ShardGraph, Update};
use diskgraph_engine::{Cancel, Engine};

use super::{step, RandomWalk, RandomWalkResult, Walk};
use crate::stop::Poll;
use crate::AlgoError;

/// A vertex's walks.
#[derive(Clone, Copy, Debug, Default)]
struct Walkers {
    /// Walks at the vertex over the steps so far.
    visits: u64,
    /// Walks that reach it at the next step by restarting there (or starting, at step 0).
    arriving: u64,
    /// Walks that moved to it along an arc from a smaller vertex this iteration, for the next
    /// step.
    held: u64,
}

/// The walking program.
struct Walking<'s> {
    walk: Walk,
    walks: u64,
    length: u32,
    sources: &'s [u32],
    /// Walks restarting at each source slot, for the next step.
    restarts: Vec<AtomicU64>,
    moves: AtomicU64,
    /// The run's stop request, polled while a vertex's walks move (the engine checks it after
    /// each interval).
    cancel: Cancel,
}

impl Program for Walking<'_> {
    type Value = Walkers;

    fn needs(&self) -> ProgramNeeds {
        ProgramNeeds {
            in_sources: true,
            ..ProgramNeeds::default()
        }
    }

    fn before_iteration(&mut self, iteration: u32, values: &mut [Walkers]) {
        for (slot, &s) in self.sources.iter().enumerate() {
            values[s as usize].arriving += match iteration {
                0 => self.walk.dealt(self.walks, slot),
                _ => self.restarts[slot].swap(0, Relaxed),
            };
        }
    }

    fn update(&self, u: Update<'_, Walkers>) {
        let (v, t) = (u.vertex, u.iteration);
        let w = u.value;
        let mut now = w.arriving + w.held;
        w.held = 0;
        for k in 0..u.in_edges.len() {
            let c = u64::from(u.in_edges.get(k));
            match u.in_edges.source(k) < v {
                true => w.held += c,
                false => now += c,
            }
        }
        w.arriving = 0;
        w.visits += now;
        if t >= self.length {
            return;
        }
        let degree = u.out_edges.len();
        let mut taken: Vec<u64> = Vec::new();
        step(
            &self.walk,
            v,
            t,
            (now, degree as u64),
            &mut Poll::new(&self.cancel),
            |k| taken.push(k),
            |slot| {
                self.restarts[slot].fetch_add(1, Relaxed);
            },
        );
        self.moves.fetch_add(taken.len() as u64, Relaxed);
        taken.sort_unstable();
        let mut next = taken.iter().peekable();
        for k in 0..degree as u64 {
            let mut c = 0u32;
            while next.next_if_eq(&&k).is_some() {
                c += 1;
            }
            u.out_edges.set(k as usize, c);
        }
    }

    fn after_iteration(&mut self, iteration: u32, _values: &mut [Walkers]) -> bool {
        iteration < self.length
    }
}

/// Walks `settings` from the source slots `sources` on `g`.
///
/// Errors: [`AlgoError::InvalidSetting`] for no source, a damping outside `[0, 1]`, or more
/// walks than an arc can count (2³² − 1); engine failures.
pub fn randomwalk(g: &ShardGraph, settings: &RandomWalk, sources: &[u32]) -> Result<RandomWalkResult, AlgoError> {
    let walk = Walk::new(settings, sources.len())?;
    if settings.walks > u64::from(u32::MAX) {
        return Err(AlgoError::InvalidSetting(format!(
            "the shard engine counts walks on arcs in 32 bits: at most {} walks, got {}",
            u32::MAX,
            settings.walks
        )));
    }
    for &s in sources {
        g.check_vertex(s)?;
    }
    let mut program = Walking {
        walk,
        walks: settings.walks,
        length: settings.length,
        sources,
        restarts: (0..sources.len()).map(|_| AtomicU64::new(0)).collect(),
        moves: AtomicU64::new(0),
        cancel: g.cancel(),
    };
    let mut values = vec![Walkers::default(); g.num_vertices()];
    g.run(&mut program, &mut values, settings.length.saturating_add(1))?;
    Ok(RandomWalkResult {
        sources: sources.to_vec(),
        visits: values.into_iter().map(|w| w.visits).collect(),
        moves: program.moves.into_inner(),
    })
}
