//! What every engine offers an algorithm ([`Engine`]), and random access to whole lists for
//! engines that hold them ([`Lists`]).
//!
//! An algorithm's variant for an engine takes that engine's graph type, so its inner loops use
//! the engine's own vocabulary at full speed — edge maps over vertex subsets on the selective
//! engine ([`SelectiveGraph::edge_map`](crate::selective::SelectiveGraph::edge_map)), passes
//! over a grid on the stream engine ([`StreamGraph::stream`](crate::stream::StreamGraph::stream)),
//! CSR slices on the memory engine. What every variant and the registry need besides — counts,
//! original IDs and sources, degrees, the budget, the stats — is this contract, the same on
//! every engine.

use std::fmt;

use diskgraph_format::Direction;

use crate::{Cancel, EngineError, Recorder, RunStats, Snapshot, Vertices};

/// The engines, by the shape of their runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum EngineKind {
    /// The whole CSR in memory, parallel in-memory code: the ceiling.
    Memory,
    /// Graphene: a frontier's adjacency lists read from disk per iteration.
    Selective,
    /// CLIP / GridGraph: a grid layout streamed block by block, with loaded-data reentry.
    Stream,
    /// PrefEdge: single-threaded code reading lists through a cache a prefetcher fills ahead.
    Sync,
    /// GraphChi: vertex programs over shards with parallel sliding windows and a block cache.
    Shards,
}

impl EngineKind {
    /// Every engine, in the order `auto` prefers out-of-core ones after `memory`.
    pub const ALL: [EngineKind; 5] = [
        EngineKind::Memory,
        EngineKind::Selective,
        EngineKind::Stream,
        EngineKind::Sync,
        EngineKind::Shards,
    ];

    /// The engine's name (`--engine NAME`) and one line on what it does: the engines' table.
    const fn about(self) -> (&'static str, &'static str) {
        match self {
            EngineKind::Memory => ("memory", "loads the whole CSR and runs parallel in-memory code"),
            EngineKind::Selective => (
                "selective",
                "reads the adjacency lists of each iteration's active vertices from disk",
            ),
            EngineKind::Stream => (
                "stream",
                "streams a grid layout (diskgraph partition) with loaded-data reentry",
            ),
            EngineKind::Sync => (
                "sync",
                "single-threaded code reading lists through a cache a prefetcher fills ahead of it",
            ),
            EngineKind::Shards => (
                "shards",
                "vertex programs over a shards layout (diskgraph partition --shards): sliding windows and a block cache",
            ),
        }
    }

    /// The engine's name (`--engine NAME`).
    pub const fn name(self) -> &'static str {
        self.about().0
    }

    /// One line on what the engine does.
    pub const fn help(self) -> &'static str {
        self.about().1
    }

    /// Whether the engine keeps the graph on disk.
    pub fn out_of_core(self) -> bool {
        self != EngineKind::Memory
    }
}

impl fmt::Display for EngineKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for EngineKind {
    type Err = String;

    /// Parses an engine's name.
    fn from_str(s: &str) -> Result<Self, String> {
        EngineKind::ALL.into_iter().find(|e| e.name() == s).ok_or_else(|| {
            let known: Vec<&str> = EngineKind::ALL.into_iter().map(EngineKind::name).collect();
            format!("unknown engine {s:?} (known: {})", known.join(", "))
        })
    }
}

/// What every engine keeps the same way, which the [`Engine`] accessors read: which engine it
/// is, the graph's counts and original IDs, the budget it was given and its run's log.
#[derive(Clone, Debug)]
pub struct EngineCore {
    /// Which engine.
    pub kind: EngineKind,
    /// The original IDs (and the vertex count).
    pub vertices: Vertices,
    /// Stored arcs (an undirected edge counts twice, a self-loop once).
    pub num_arcs: u64,
    /// Whether the graph is directed.
    pub directed: bool,
    /// Whether the algorithm gets edge weights.
    pub weighted: bool,
    /// The budget the engine was given, in bytes.
    pub budget: u64,
    /// The run's log.
    pub recorder: Recorder,
}

/// What every engine offers an algorithm.
pub trait Engine: Sync {
    /// What the engine keeps the same way as every other (see [`EngineCore`]).
    fn core(&self) -> &EngineCore;

    /// Which engine this is.
    fn kind(&self) -> EngineKind {
        self.core().kind
    }

    /// Number of vertices.
    fn num_vertices(&self) -> usize {
        self.core().vertices.len()
    }

    /// Number of stored arcs (an undirected edge counts twice, a self-loop once).
    fn num_arcs(&self) -> u64 {
        self.core().num_arcs
    }

    /// Whether the graph is directed.
    fn directed(&self) -> bool {
        self.core().directed
    }

    /// Whether the algorithm gets edge weights (the graph has them and they were opened).
    fn weighted(&self) -> bool {
        self.core().weighted
    }

    /// The original IDs, and the resolution of sources by ID.
    fn vertices(&self) -> &Vertices {
        &self.core().vertices
    }

    /// The vertex with the most out-edges, the smallest original ID among equals.
    fn max_degree_vertex(&self) -> Result<u32, EngineError>;

    /// Calls `f(v, degree)` for every vertex in ascending internal ID: its stored arcs in
    /// direction `d` (self-loops and kept duplicates included).
    ///
    /// Errors: `d` is a direction the graph does not store; a damaged index.
    fn for_each_degree(&self, d: Direction, f: impl FnMut(u32, u64)) -> Result<(), EngineError>
    where
        Self: Sized;

    /// The memory budget the engine was given, in bytes.
    fn budget(&self) -> u64 {
        self.core().budget
    }

    /// Edges the engine handed to the algorithm so far, where it counts them.
    fn edges_counted(&self) -> Option<u64>;

    /// Copies the engine's counters and settings (I/O, memory, caches) into `stats`.
    fn record(&self, stats: &mut RunStats);

    /// The engine's log over time (see [`recorder`](crate::recorder)).
    fn recorder(&self) -> &Recorder {
        &self.core().recorder
    }

    /// The counters a step or an I/O sample reads: by default those [`record`](Self::record)
    /// copies, with bytes counted per round. Engines whose `record` is costly, or whose bytes
    /// grow per read, say so here.
    fn snapshot(&self) -> Snapshot {
        let mut s = RunStats::default();
        self.record(&mut s);
        Snapshot {
            bytes_read: s.bytes_read,
            edges: self.edges_counted(),
            cache_hit_ratio: s.cache_hit_ratio,
            bytes_live: false,
        }
    }

    /// Ends one of the engine's steps (a round, a pass, a sweep) that had `active` vertices,
    /// where it knows them: recorded, and shown to the run's observer, when the log is open.
    fn step(&self, active: Option<u64>) {
        self.recorder().step(active, || self.snapshot());
    }

    /// [`EngineError::Cancelled`] once the run was asked to stop (see [`Cancel`](crate::Cancel)):
    /// engines call it where a step starts, algorithms once per iteration of a loop of their
    /// own.
    fn check_cancelled(&self) -> Result<(), EngineError> {
        self.recorder().check_cancelled()
    }

    /// The run's stop request (a request never set when the run has none), for the loops that
    /// poll it without the engine: kernels over CSR slices, between chunks of their work.
    fn cancel(&self) -> Cancel {
        self.recorder().cancel()
    }

    /// Checks an internal vertex ID (a source) against the graph.
    fn check_vertex(&self, v: u32) -> Result<(), EngineError> {
        if (v as usize) < self.num_vertices() {
            Ok(())
        } else {
            Err(EngineError::InvalidVertex {
                vertex: v,
                num_vertices: self.num_vertices(),
            })
        }
    }
}

/// Random access to whole adjacency lists, for engines that hold them.
pub trait Lists: Engine {
    /// The neighbours of `v` in direction `d`, ascending.
    ///
    /// # Panics
    /// If `v` is out of range, or `d` is a direction the engine did not open.
    fn neighbours(&self, d: Direction, v: u32) -> &[u32];

    /// The weights of [`neighbours`](Self::neighbours), when weights were opened.
    fn weights(&self, d: Direction, v: u32) -> Option<&[f32]>;
}
