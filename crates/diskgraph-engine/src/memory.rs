//! The memory engine: the whole CSR loaded, for parallel in-memory algorithms. The ceiling every
//! out-of-core engine is measured against.

use diskgraph_format::{Csr, Direction, GraphDir};
use serde_json::json;

use crate::contract::{Engine, EngineCore, EngineKind, Lists};
use crate::engine_options::ADJACENCY;
use crate::index::{vertices_of, GraphIndex};
use crate::options::Params;
use crate::request::{directions_and_weights, Held, Needs, OpenEngine, OpenRequest};
use crate::{AdjacencyChoice, Cancel, EngineError, Recorder, RunStats, Vertices};

/// How to open a graph on the memory engine.
#[derive(Clone, Debug, Default)]
pub struct MemoryOptions {
    /// Load the in-edges of a directed graph too (undirected graphs: in = out).
    pub need_in: bool,
    /// Load the weights (weighted graphs).
    pub need_weights: bool,
    /// The budget the run was given: recorded (the engine holds the whole CSR whatever it is).
    pub memory: u64,
    /// The graph's index loaded earlier: its IDs are used instead of reading them again.
    pub index: Option<GraphIndex>,
    /// Which copy of the lists to load (`--adjacency`).
    pub adjacency: AdjacencyChoice,
    /// The run's stop request: the load polls it between pieces of its reads (ending with
    /// [`EngineError::Cancelled`]), and the engine's [`Recorder`] carries it.
    pub cancel: Option<Cancel>,
}

/// A graph held fully in memory: the out-CSR and, for directed graphs, the in-CSR.
///
/// For undirected graphs both directions are the same CSR (each edge is stored both ways).
#[derive(Clone, Debug)]
pub struct MemoryGraph {
    /// The counts, IDs and budget; a log without steps of its own (algorithms loop over CSR
    /// slices).
    core: EngineCore,
    out: Csr,
    inn: Option<Csr>,
    /// The lists loaded: `plain`, or the compressed layout decoded on load.
    adjacency: String,
    /// Bytes read to load the lists, when they were decoded from a compressed layout (the
    /// plain CSR's bytes otherwise).
    compressed_bytes: Option<u64>,
}

impl OpenEngine for MemoryGraph {
    const KIND: EngineKind = EngineKind::Memory;
    type Options = MemoryOptions;

    fn options(_: &GraphDir, req: &OpenRequest) -> Result<MemoryOptions, EngineError> {
        Ok(MemoryOptions {
            need_in: req.needs.in_edges,
            need_weights: req.needs.weights,
            memory: req.memory,
            index: req.index.clone(),
            adjacency: req.params.choice_value(&ADJACENCY),
            cancel: req.cancel.clone(),
        })
    }

    /// Nothing besides the CSR, which a run counts with its state (bytes an arc and a vertex).
    fn least_budget(_: &GraphDir, _: &MemoryOptions) -> Result<u64, EngineError> {
        Ok(0)
    }

    fn open_with(graph: &GraphDir, opts: &MemoryOptions) -> Result<Self, EngineError> {
        MemoryGraph::open(graph, opts)
    }

    /// The CSR: 8 bytes a vertex of offsets and 4 an arc (8 weighted), a direction.
    fn held(graph: Option<&GraphDir>, _: &Params, needs: Needs) -> Held {
        let (dirs, weights) = directions_and_weights(graph, needs);
        Held {
            per_vertex: 8.0 * dirs,
            per_arc: 4.0 * dirs * weights,
        }
    }
}

impl MemoryGraph {
    /// Loads a graph directory as `opts` says.
    pub fn open(g: &GraphDir, opts: &MemoryOptions) -> Result<Self, EngineError> {
        let cancel = opts.cancel.clone().unwrap_or_default();
        let stop = cancel.flag();
        cancel.check()?;
        let vertices = vertices_of(g, opts.index.as_ref(), stop)?;
        let directed = g.manifest().directed;
        let mut directions = vec![Direction::Out];
        if directed && opts.need_in {
            directions.push(Direction::In);
        }
        let compressed = opts.adjacency.open(g)?;
        let mut csrs = Vec::new();
        let mut compressed_bytes = 0;
        for &d in &directions {
            csrs.push(match &compressed {
                // Decoded on load: the algorithms see the same CSR either way.
                Some(layout) => {
                    let csr = layout.load_csr_stoppable(g, d, opts.need_weights, stop)?;
                    compressed_bytes += layout.lists_len(d) + csr.offsets.len() as u64 * 8;
                    compressed_bytes += csr.weights.as_ref().map_or(0, |w| w.len() as u64 * 4);
                    csr
                }
                None => g.load_csr_stoppable(d, opts.need_weights, stop)?,
            });
        }
        let inn = (csrs.len() == 2).then(|| csrs.pop().expect("two directions"));
        let out = csrs.pop().expect("the out-direction");
        let adjacency = compressed.as_ref().map_or("plain".into(), |l| l.name().to_string());
        let recorder = Recorder::with_cancel(opts.cancel.as_ref());
        let mut g = MemoryGraph::from_parts(directed, out, inn, vertices, opts.memory, recorder, adjacency);
        g.compressed_bytes = compressed.is_some().then_some(compressed_bytes);
        Ok(g)
    }

    /// Loads a graph directory. `need_in` loads the in-edges of a directed graph too;
    /// `need_weights` loads the weights when the graph has them.
    pub fn load(g: &GraphDir, need_in: bool, need_weights: bool) -> Result<Self, EngineError> {
        let opts = MemoryOptions {
            need_in,
            need_weights,
            ..MemoryOptions::default()
        };
        MemoryGraph::open(g, &opts)
    }

    /// Builds a graph from CSRs already in memory (`inn` is ignored for undirected graphs); its
    /// vertices are named `0..n`.
    ///
    /// # Panics
    /// If a directed graph's in-CSR has a different vertex or arc count from its out-CSR.
    pub fn from_csr(directed: bool, out: Csr, inn: Option<Csr>) -> Self {
        let inn = if directed { inn } else { None };
        if let Some(i) = &inn {
            assert_eq!(i.num_vertices(), out.num_vertices(), "in/out vertex counts differ");
            assert_eq!(i.num_arcs(), out.num_arcs(), "in/out arc counts differ");
        }
        let vertices = Vertices::identity(out.num_vertices());
        MemoryGraph::from_parts(directed, out, inn, vertices, 0, Recorder::default(), "plain".into())
    }

    /// The graph of CSRs `out` and `inn` in memory, its lists read from `adjacency`.
    fn from_parts(
        directed: bool,
        out: Csr,
        inn: Option<Csr>,
        vertices: Vertices,
        budget: u64,
        recorder: Recorder,
        adjacency: String,
    ) -> Self {
        MemoryGraph {
            core: EngineCore {
                kind: <Self as OpenEngine>::KIND,
                vertices,
                num_arcs: out.num_arcs() as u64,
                directed,
                weighted: out.weights.is_some(),
                budget,
                recorder,
            },
            out,
            inn,
            adjacency,
            compressed_bytes: None,
        }
    }

    /// Out-edges (all edges, both ways, for an undirected graph).
    pub fn out(&self) -> &Csr {
        &self.out
    }

    /// In-edges: the in-CSR of a directed graph, the same CSR as [`out`](Self::out) for an
    /// undirected one.
    ///
    /// # Panics
    /// If the graph is directed and was loaded without `need_in`.
    pub fn inn(&self) -> &Csr {
        if self.core.directed {
            self.inn
                .as_ref()
                .expect("in-edges were not loaded (MemoryOptions::need_in)")
        } else {
            &self.out
        }
    }

    /// Whether the in-edges of a directed graph were loaded (always true for undirected graphs,
    /// whose in-edges are their out-edges).
    pub fn has_inn(&self) -> bool {
        !self.core.directed || self.inn.is_some()
    }

    /// The CSR to pull over (the in-edges): the in-CSR of a directed graph loaded with
    /// in-edges, the (shared) out-CSR of an undirected graph, and `None` for a directed graph
    /// loaded without in-edges.
    pub fn in_edges(&self) -> Option<&Csr> {
        self.has_inn().then(|| self.inn())
    }

    /// The CSR of direction `d`.
    ///
    /// # Panics
    /// As [`inn`](Self::inn).
    pub fn csr(&self, d: Direction) -> &Csr {
        match d {
            Direction::Out => &self.out,
            Direction::In => self.inn(),
        }
    }

    /// Bytes held by the CSR arrays.
    pub fn memory_bytes(&self) -> u64 {
        let csr = |c: &Csr| c.offsets.len() * 8 + c.targets.len() * 4 + c.weights.as_ref().map_or(0, |w| w.len() * 4);
        (csr(&self.out) + self.inn.as_ref().map_or(0, csr)) as u64
    }
}

impl Engine for MemoryGraph {
    fn core(&self) -> &EngineCore {
        &self.core
    }

    fn max_degree_vertex(&self) -> Result<u32, EngineError> {
        Ok(self.core.vertices.max_degree(&self.out.offsets))
    }

    fn for_each_degree(&self, d: Direction, mut f: impl FnMut(u32, u64)) -> Result<(), EngineError> {
        if !self.has_inn() && d == Direction::In {
            return Err(EngineError::MissingInEdges);
        }
        for (v, w) in self.csr(d).offsets.windows(2).enumerate() {
            f(v as u32, w[1] - w[0]);
        }
        Ok(())
    }

    fn edges_counted(&self) -> Option<u64> {
        None
    }

    /// The CSR held, as memory and as bytes read.
    fn record(&self, stats: &mut RunStats) {
        stats.peak_engine_memory = self.memory_bytes();
        stats.bytes_read = self.compressed_bytes.unwrap_or_else(|| self.memory_bytes());
        stats.io_utility = 1.0;
        stats.settings.insert("adjacency".into(), json!(self.adjacency));
    }
}

impl Lists for MemoryGraph {
    fn neighbours(&self, d: Direction, v: u32) -> &[u32] {
        self.csr(d).neighbours(v)
    }

    fn weights(&self, d: Direction, v: u32) -> Option<&[f32]> {
        self.csr(d).edge_weights(v)
    }
}
