//! What a vertex program sees: the [`Program`] trait with its hooks, and an [`Update`] — the
//! vertex, its value, and its in- and out-edges with their mutable values.
//!
//! Edge values are `u32` words (an `f32` travels as its bits, [`f32::to_bits`]); every edge
//! starts at 0. An update may read and write the values of its own in- and out-edges; which
//! writes it sees is the engine's visibility rule (see the module doc of
//! [`shards`](crate::shards)).

use std::ops::Range;
use std::sync::atomic::Ordering::Relaxed;

use super::columns::Columns;

/// What a program reads of its edges.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProgramNeeds {
    /// The source of each in-edge ([`InEdges::source`]).
    pub in_sources: bool,
    /// The target of each out-edge ([`OutEdges::target`]).
    pub out_targets: bool,
    /// The edge values (a program that reads only the structure, such as triangle counting,
    /// saves their I/O).
    pub edge_values: bool,
    /// The out-edges at all. A program whose updates read only their in-edges and state of its
    /// own (PageRank with its ranks in memory) saves reading every window: its updates get no
    /// out-edges, and the engine finds conflicting updates from the memory shard alone.
    pub out_edges: bool,
}

impl ProgramNeeds {
    /// In-edge sources alone: no out-edges, no edge values (a program keeping its state in
    /// memory, such as PageRank with its ranks). Only the memory shards are read.
    pub const IN_SOURCES: ProgramNeeds = ProgramNeeds {
        in_sources: true,
        out_targets: false,
        edge_values: false,
        out_edges: false,
    };
}

impl Default for ProgramNeeds {
    /// Edge values of in- and out-edges, no sources or targets.
    fn default() -> Self {
        ProgramNeeds {
            in_sources: false,
            out_targets: false,
            edge_values: true,
            out_edges: true,
        }
    }
}

/// A vertex-centric program run by [`ShardGraph::run`](super::ShardGraph::run).
pub trait Program: Sync {
    /// Each vertex's value, held in memory for the whole run.
    type Value: Send;

    /// What the updates read besides edge values.
    fn needs(&self) -> ProgramNeeds {
        ProgramNeeds::default()
    }

    /// Called before each iteration (0, 1, …) with every vertex's value.
    fn before_iteration(&mut self, _iteration: u32, _values: &mut [Self::Value]) {}

    /// Updates one vertex. Called once per vertex per iteration, in parallel with updates of
    /// vertices it shares no edge with.
    fn update(&self, update: Update<'_, Self::Value>);

    /// Called after the updates of each interval, with the interval's vertex range and values.
    fn after_interval(&mut self, _iteration: u32, _interval: Range<u32>, _values: &mut [Self::Value]) {}

    /// Called after each iteration; returns whether to run another.
    fn after_iteration(&mut self, iteration: u32, values: &mut [Self::Value]) -> bool;
}

/// One vertex's update: the vertex, the iteration, its value and its edges.
pub struct Update<'a, V> {
    /// The vertex (internal ID).
    pub vertex: u32,
    /// The iteration, from 0.
    pub iteration: u32,
    /// Its value.
    pub value: &'a mut V,
    /// Its in-edges, by ascending source.
    pub in_edges: InEdges<'a>,
    /// Its out-edges, by ascending target (the order of its out-list in the graph); none when
    /// the program does not ask for them ([`ProgramNeeds::out_edges`]).
    pub out_edges: OutEdges<'a>,
}

/// A vertex's in-edges: positions in its interval's memory shard, or their sources alone when
/// the program reads sources and no edge values.
pub struct InEdges<'a> {
    pub(super) columns: &'a Columns,
    /// First edge of the memory shard.
    pub(super) base: u64,
    /// Edges, as offsets from `base`, or their sources when `sources`.
    pub(super) grouped: &'a [u32],
    /// Whether `grouped` holds the sources.
    pub(super) sources: bool,
}

impl InEdges<'_> {
    /// Number of in-edges.
    pub fn len(&self) -> usize {
        self.grouped.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.grouped.is_empty()
    }

    fn edge(&self, i: usize) -> u64 {
        assert!(!self.sources, "the program did not ask for edge values");
        self.base + u64::from(self.grouped[i])
    }

    /// The value of in-edge `i`.
    pub fn get(&self, i: usize) -> u32 {
        self.columns.value(self.edge(i)).load(Relaxed)
    }

    /// Sets the value of in-edge `i`.
    pub fn set(&self, i: usize, x: u32) {
        self.columns.set_value(self.edge(i), x);
    }

    /// The source of in-edge `i`.
    ///
    /// # Panics
    /// If the program did not ask for in-edge sources ([`ProgramNeeds::in_sources`]).
    pub fn source(&self, i: usize) -> u32 {
        match self.sources {
            true => self.grouped[i],
            false => self.columns.source(self.edge(i)),
        }
    }

    /// The values of all in-edges, in order.
    pub fn values(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }
}

/// A vertex's out-edges: runs in the windows of its interval, in target order.
pub struct OutEdges<'a> {
    pub(super) columns: &'a Columns,
    /// Edge ranges, one per shard the vertex has out-edges in, ascending.
    pub(super) runs: &'a [Range<u64>],
    pub(super) len: usize,
}

impl OutEdges<'_> {
    /// Number of out-edges.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The edge of out-edge `k`.
    fn edge(&self, mut k: usize) -> u64 {
        for r in self.runs {
            let n = (r.end - r.start) as usize;
            if k < n {
                return r.start + k as u64;
            }
            k -= n;
        }
        panic!("out-edge {k} past the end of {} out-edges", self.len)
    }

    /// The value of out-edge `k`.
    pub fn get(&self, k: usize) -> u32 {
        self.columns.value(self.edge(k)).load(Relaxed)
    }

    /// Sets the value of out-edge `k`.
    pub fn set(&self, k: usize, x: u32) {
        self.columns.set_value(self.edge(k), x);
    }

    /// The target of out-edge `k`.
    ///
    /// # Panics
    /// If the program did not ask for out-edge targets ([`ProgramNeeds::out_targets`]).
    pub fn target(&self, k: usize) -> u32 {
        self.columns.target(self.edge(k))
    }

    /// Sets every out-edge's value to `x`.
    pub fn fill(&self, x: u32) {
        for r in self.runs {
            for e in r.clone() {
                self.columns.set_value(e, x);
            }
        }
    }

    /// The values of all out-edges, in order.
    pub fn values(&self) -> impl Iterator<Item = u32> + '_ {
        self.runs
            .iter()
            .flat_map(|r| r.clone())
            .map(|e| self.columns.value(e).load(Relaxed))
    }

    /// The targets of all out-edges, in order (see [`target`](Self::target)).
    pub fn targets(&self) -> impl Iterator<Item = u32> + '_ {
        self.runs.iter().flat_map(|r| r.clone()).map(|e| self.columns.target(e))
    }
}
