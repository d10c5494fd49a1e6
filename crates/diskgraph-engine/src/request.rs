//! How a run opens an engine, the same for every engine: what the algorithm needs of it
//! ([`Needs`]), the run's settings read once ([`OpenRequest`]), and the trait each engine
//! implements to be run by the registry ([`OpenEngine`]: its typed options, its least budget,
//! opening it).
//!
//! Adding an engine is its module, with its graph type implementing [`Engine`] and
//! [`OpenEngine`], and its line in [`EngineKind`]'s table.

use diskgraph_format::GraphDir;
use diskgraph_io::IoConfig;

use crate::engine_options::{io_config, memory, ADJACENCY, THREADS};
use crate::options::Params;
use crate::selective::LoadedStatic;
use crate::stream::LayoutNeed;
use crate::{AdjacencyChoice, Cancel, Engine, EngineError, EngineKind, GraphIndex};

/// What an algorithm's variant needs of its engine when it opens.
#[derive(Clone, Copy, Debug)]
pub struct Needs {
    /// The in-edges of a directed graph.
    pub in_edges: bool,
    /// The edge weights, when the graph has them.
    pub weights: bool,
    /// Whole lists assembled in memory (the selective engine reserves a share of the budget;
    /// the shard engine leaves the variant half of it, or less when the engine needs more).
    pub whole_lists: bool,
    /// The order inside a streamed layout's blocks the variant needs, by the run's options
    /// (the stream engine picks its layout by it).
    pub layout: fn(&Params) -> LayoutNeed,
}

/// Any order of a streamed layout.
fn any_order(_: &Params) -> LayoutNeed {
    LayoutNeed::Any
}

impl Needs {
    /// Nothing beyond the out-lists.
    pub const NONE: Needs = Needs {
        in_edges: false,
        weights: false,
        whole_lists: false,
        layout: any_order,
    };
    /// The in-edges too.
    pub const IN_EDGES: Needs = Needs {
        in_edges: true,
        ..Needs::NONE
    };
    /// The weights too.
    pub const WEIGHTS: Needs = Needs {
        weights: true,
        ..Needs::NONE
    };
}

/// A run as an engine opens for it: the options and the settings every engine shares, read
/// and checked once.
#[derive(Clone)]
pub struct OpenRequest<'a> {
    /// The algorithm's name, for the messages naming what it needs.
    pub algorithm: &'a str,
    /// The run's options (the engine reads its own from them).
    pub params: &'a Params,
    /// What the algorithm needs of the engine.
    pub needs: Needs,
    /// The engine's budget in bytes: `--memory`, less the run's O(V) state once it runs.
    pub memory: u64,
    /// The I/O settings, checked, with the run's compute threads.
    pub io: IoConfig,
    /// The graph's index loaded earlier, used instead of reading it again.
    pub index: Option<GraphIndex>,
    /// A static cache loaded earlier (the selective engine's), used instead of loading the
    /// selection the options name.
    pub static_cache: Option<LoadedStatic>,
    /// The run's stop request.
    pub cancel: Option<Cancel>,
}

impl<'a> OpenRequest<'a> {
    /// A request of `algorithm` with `params` as given: their budget, their I/O settings with
    /// `threads` compute workers, nothing needed beyond the out-lists, nothing loaded earlier.
    ///
    /// Errors: a bad I/O setting.
    pub fn new(algorithm: &'a str, params: &'a Params, threads: usize) -> Result<Self, EngineError> {
        Ok(OpenRequest {
            algorithm,
            params,
            needs: Needs::NONE,
            memory: memory(params),
            io: io_config(params, threads)?,
            index: None,
            static_cache: None,
            cancel: None,
        })
    }

    /// [`new`](Self::new) with the threads `params` ask for (`--threads`), else those of the
    /// current rayon pool.
    pub fn with_threads_of(algorithm: &'a str, params: &'a Params) -> Result<Self, EngineError> {
        let threads = params
            .count(&THREADS)
            .map_or_else(rayon::current_num_threads, |t| t as usize);
        OpenRequest::new(algorithm, params, threads)
    }

    /// The compute threads of the run.
    pub fn threads(&self) -> usize {
        self.io.compute_threads
    }
}

/// An engine as the registry runs it: one implementation per engine.
pub trait OpenEngine: Engine + Sized {
    /// Which engine this is.
    const KIND: EngineKind;

    /// The engine's options, typed, as [`options`](Self::options) reads them.
    type Options;

    /// The options of run `req` on `graph`: the engine's own options parsed from the run's,
    /// what the algorithm needs, and the layout the engine runs over (chosen here, when the
    /// engine has layouts).
    ///
    /// Errors: a bad setting, no layout to run over.
    fn options(graph: &GraphDir, req: &OpenRequest) -> Result<Self::Options, EngineError>;

    /// The smallest budget the engine opens in with `opts` (whatever their budget says),
    /// computed without reading the lists.
    ///
    /// Errors: the engine cannot run at all with them.
    fn least_budget(graph: &GraphDir, opts: &Self::Options) -> Result<u64, EngineError>;

    /// Opens the engine on `graph`.
    ///
    /// Errors: a damaged graph, a budget too small ([`EngineError::BudgetTooSmall`]).
    fn open_with(graph: &GraphDir, opts: &Self::Options) -> Result<Self, EngineError>;

    /// What the engine holds beside its budget for a run of `params` on `graph` needing
    /// `needs` (its indexes and frontiers, by vertex and arc), which the run's budget covers
    /// with the algorithm's arrays. `graph` is `None` for the figures of the help, which take
    /// the plain lists.
    fn held(graph: Option<&GraphDir>, params: &Params, needs: Needs) -> Held;
}

/// The bytes an engine holds beside its budget ([`OpenEngine::held`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Held {
    /// Bytes a vertex.
    pub per_vertex: f64,
    /// Bytes a stored arc.
    pub per_arc: f64,
}

impl Held {
    /// `per_vertex` bytes a vertex and none by arc.
    pub fn by_vertex(per_vertex: f64) -> Held {
        Held {
            per_vertex,
            per_arc: 0.0,
        }
    }
}

/// The directions of lists a run with `needs` reads on `graph` (2 for the in-lists of a
/// directed graph besides the out-lists), and whether it reads the weights beside the arcs
/// (2) or not (1), as factors of the per-direction figures.
pub fn directions_and_weights(graph: Option<&GraphDir>, needs: Needs) -> (f64, f64) {
    let Some(m) = graph.map(GraphDir::manifest) else {
        return (1.0, 1.0);
    };
    let dirs = if m.directed && needs.in_edges { 2.0 } else { 1.0 };
    let weights = if m.weighted && needs.weights { 2.0 } else { 1.0 };
    (dirs, weights)
}

/// Whether a run of `params` needing `needs` reads a compressed layout of `graph` (with its
/// byte-offset index) on an engine that reads `--adjacency`'s choice: weighted runs read the
/// plain lists.
pub fn reads_compressed(graph: Option<&GraphDir>, params: &Params, needs: Needs) -> bool {
    let Some(graph) = graph else { return false };
    if graph.manifest().weighted && needs.weights {
        return false;
    }
    params
        .choice_value::<AdjacencyChoice>(&ADJACENCY)
        .for_threads(1)
        .open(graph)
        .ok()
        .flatten()
        .is_some()
}
