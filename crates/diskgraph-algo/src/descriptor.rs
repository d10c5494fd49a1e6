//! What an algorithm declares about itself, beside its code: an [`Algorithm`] descriptor — name,
//! help, options, result kind, and one [`Variant`] per engine that runs it. The registry, the
//! command line, `diskgraph algorithms`, the Python methods and the test harness read these
//! descriptors; nothing else lists algorithms or repeats a default.
//!
//! A variant is a plain function from the engine's graph and the run's resolved inputs
//! ([`Run`]) to an [`Outcome`]: the per-vertex values, the summary line, and the counters and
//! settings to record; [`On`] names its engine by the engine's graph type, so the registry
//! runs every variant through one generic path ([`Code`]).

use diskgraph_engine::options::{OptionKind, OptionSpec, Params};
pub use diskgraph_engine::Needs;
use diskgraph_engine::{EngineKind, Held, OpenEngine, OpenRequest, Vertices};
use diskgraph_format::{GraphDir, VertexNames};
use serde_json::Value as Json;

use crate::cluster::ClusterScheme;
use crate::execution::{execute, Job, Ran};
use crate::verification::Verifier;
use crate::AlgoError;

/// An algorithm, as the registry and every surface see it.
#[derive(Debug)]
pub struct Algorithm {
    /// Its name (`diskgraph run NAME`, `Graph.NAME()`).
    pub name: &'static str,
    /// One line on what it computes.
    pub help: &'static str,
    /// Its options, besides the run's and the engines'.
    pub options: &'static [&'static OptionSpec],
    /// How it runs over a split directory on a cluster, if it does.
    pub cluster: Option<ClusterScheme>,
    /// What its values are.
    pub result: ResultKind,
    /// One per engine that runs it, memory first.
    pub variants: &'static [Variant],
    /// Its verifier: checks an answer against the graph, independently of every variant.
    pub verify: Verifier,
    /// The bytes a vertex its arrays take, with the run's options on an engine, on a graph
    /// that names its vertices so (see [`footprint`](crate::footprint)).
    pub memory: fn(&Params, EngineKind, Naming) -> PerVertex,
}

/// How a graph names its vertices, which some verifiers' arrays depend on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Naming {
    /// Each vertex's ID is its internal number (no ID table): an answer's IDs are vertices.
    Itself,
    /// Vertices have original IDs of their own (an ID table), which answers are given in.
    Remapped,
}

/// The bytes a vertex an algorithm holds in each phase of a run, at their peak (see
/// [`footprint`](crate::footprint)).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PerVertex {
    /// While the engine is open: the algorithm's arrays, and its result as the variant builds it.
    pub run: f64,
    /// After: the result and the verifier's arrays (`--verify`).
    pub verify: f64,
}

impl PerVertex {
    /// The figure of an algorithm whose arrays were not counted one by one: a bound above
    /// those that were (six 8-byte arrays while running, four while verifying).
    pub const BOUND: PerVertex = PerVertex {
        run: 48.0,
        verify: 32.0,
    };
}

/// The type of an algorithm's per-vertex values, and what they mean.
#[derive(Debug)]
pub struct ResultKind {
    /// Their type.
    pub values: ValueType,
    /// Their name, a column name (`level`, `rank`, `component`, ...): Python's `to_pandas()`
    /// and `to_arrow()` name the value column so, and every run records it as the `value`
    /// setting (a variant may record another, as bfs records `parent` with `--parents`).
    pub name: &'static str,
    /// What they mean, for the help and the docstrings.
    pub help: &'static str,
}

/// The type of per-vertex values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueType {
    /// Signed integers (`int64`).
    Signed,
    /// Unsigned integers (`uint64`), such as component labels.
    Unsigned,
    /// Floats (`float64`).
    Float,
    /// A row of hop distances per vertex, one column per source (`int64`, -1 unreached).
    Matrix,
}

impl ValueType {
    /// The numpy dtype name.
    pub fn dtype(self) -> &'static str {
        match self {
            ValueType::Signed | ValueType::Matrix => "int64",
            ValueType::Unsigned => "uint64",
            ValueType::Float => "float64",
        }
    }
}

/// A variant's code on the engine `E`: a plain function from the opened engine and the run
/// to the outcome. Its engine is the type's ([`OpenEngine::KIND`]).
pub struct On<E>(pub fn(&E, &Run) -> Result<Outcome, AlgoError>);

/// What the registry does with a variant's code, whatever its engine: the engine's least
/// budget for a request, and a run on the engine opened for it ([`On`] implements it for every
/// engine).
pub trait Code: Sync {
    /// The engine the code runs on.
    fn engine(&self) -> EngineKind;

    /// The engine's least budget for `req` on `graph` (without the run's O(V) state), computed
    /// without opening it.
    ///
    /// Errors: the engine cannot run at all (a missing layout, a bad setting).
    fn least_budget(&self, graph: &GraphDir, req: &OpenRequest) -> Result<u64, AlgoError>;

    /// Opens the engine for `req` and runs the code, as `job` says.
    fn run(&self, graph: &GraphDir, req: &OpenRequest, job: Job) -> Result<Ran, AlgoError>;

    /// What the engine holds beside its budget ([`OpenEngine::held`]).
    fn held(&self, graph: Option<&GraphDir>, params: &Params, needs: Needs) -> Held;
}

impl<E: OpenEngine> Code for On<E> {
    fn engine(&self) -> EngineKind {
        E::KIND
    }

    fn least_budget(&self, graph: &GraphDir, req: &OpenRequest) -> Result<u64, AlgoError> {
        Ok(E::least_budget(graph, &E::options(graph, req)?)?)
    }

    fn run(&self, graph: &GraphDir, req: &OpenRequest, job: Job) -> Result<Ran, AlgoError> {
        let g = E::open_with(graph, &E::options(graph, req)?)?;
        execute(&g, self.0, job)
    }

    fn held(&self, graph: Option<&GraphDir>, params: &Params, needs: Needs) -> Held {
        E::held(graph, params, needs)
    }
}

impl std::fmt::Debug for dyn Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Code({})", self.engine())
    }
}

/// An algorithm's code on one engine.
#[derive(Debug)]
pub struct Variant {
    /// What it needs of the engine.
    pub needs: Needs,
    /// The code.
    pub run: &'static dyn Code,
}

impl Variant {
    /// The engine it runs on.
    pub fn engine(&self) -> EngineKind {
        self.run.engine()
    }
}

impl Algorithm {
    /// The variant on `engine`, if it has one.
    pub fn variant(&self, engine: EngineKind) -> Option<&Variant> {
        self.variants.iter().find(|v| v.engine() == engine)
    }

    /// The engines it runs on, memory first.
    pub fn engines(&self) -> impl Iterator<Item = EngineKind> + '_ {
        self.variants.iter().map(Variant::engine)
    }

    /// Its option named `name`.
    pub fn option(&self, name: &str) -> Option<&'static OptionSpec> {
        self.options.iter().copied().find(|o| o.name == name)
    }

    /// Its source option, if it takes one.
    pub fn source_option(&self) -> Option<&'static OptionSpec> {
        self.options
            .iter()
            .copied()
            .find(|o| matches!(o.kind, OptionKind::Source))
    }

    /// Its sources option, if it takes one.
    pub fn sources_option(&self) -> Option<&'static OptionSpec> {
        self.options
            .iter()
            .copied()
            .find(|o| matches!(o.kind, OptionKind::Sources { .. }))
    }
}

/// A run as a variant sees it: the options and the sources resolved to internal IDs.
pub struct Run<'a> {
    /// The given options (what is not given takes its default).
    pub params: &'a Params,
    /// The graph's vertices.
    pub vertices: &'a Vertices,
    /// The graph's vertex names, by original ID, when it has them.
    pub names: Option<&'a VertexNames>,
    pub(crate) source: Option<u32>,
    pub(crate) sources: Option<Vec<u32>>,
}

impl Run<'_> {
    /// The resolved source (internal ID).
    ///
    /// # Panics
    /// If the algorithm has no source option.
    pub fn source(&self) -> u32 {
        self.source.expect("the algorithm declares a source option")
    }

    /// The resolved sources (internal IDs).
    ///
    /// # Panics
    /// If the algorithm has no sources option.
    pub fn sources(&self) -> &[u32] {
        self.sources
            .as_deref()
            .expect("the algorithm declares a sources option")
    }

    /// The original ID of internal vertex `v`.
    pub fn id(&self, v: u32) -> u64 {
        self.vertices.id(v)
    }

    /// Internal vertex `v` as a summary shows it: its name when the graph has names, else its
    /// original ID.
    pub fn label(&self, v: u32) -> String {
        let id = self.id(v);
        match self.names.and_then(|n| n.get(id)) {
            Some(name) => name.to_string(),
            None => id.to_string(),
        }
    }
}

/// Per-vertex result values in internal-ID order (the registry puts them in original-ID order).
#[derive(Clone, Debug, PartialEq)]
pub enum Values {
    /// Signed integers (BFS levels and parents with -1 for unreached, core numbers).
    Signed(Vec<i64>),
    /// Unsigned integers (component labels: original IDs).
    Unsigned(Vec<u64>),
    /// Floats (distances with `inf` unreached, ranks).
    Float(Vec<f64>),
    /// Hop distances from several sources (apsp): `hops[i * n + v]` from source `i` (in the
    /// order of the stats' `sources`) to vertex `v`, [`UNREACHED`](crate::msbfs::UNREACHED)
    /// when unreached; `sources` rows of one value per vertex each.
    Distances {
        /// Number of sources (rows).
        sources: usize,
        /// The rows, source-major.
        hops: Vec<u32>,
    },
}

impl Values {
    /// Number of values (vertices).
    pub fn len(&self) -> usize {
        match self {
            Values::Signed(v) => v.len(),
            Values::Unsigned(v) => v.len(),
            Values::Float(v) => v.len(),
            Values::Distances { sources, hops } => hops.len() / (*sources).max(1),
        }
    }

    /// Whether there are no values.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// What a variant hands back: values, a summary, and what to record.
#[derive(Debug)]
pub struct Outcome {
    /// One value per vertex, internal order.
    pub values: Values,
    /// A line describing the answer (reached vertices, component count, top ranks...).
    pub summary: String,
    /// Iterations (levels, sweeps, rounds).
    pub iterations: u64,
    /// Edges examined, when the algorithm counts them (else the engine's count stands).
    pub edges_processed: Option<u64>,
    /// Whether an iterative algorithm converged before its iteration limit (`None` when it has
    /// no such limit, or ran a fixed number of iterations).
    pub converged: Option<bool>,
    /// Settings that shaped the answer (the source, the tolerance...), for the stats.
    pub settings: Vec<(&'static str, Json)>,
    /// Whether the values are original vertex IDs (parents, component labels; a negative value
    /// is none), which outputs that name vertices name too.
    pub vertex_values: bool,
}

impl Outcome {
    /// An outcome of `values` with `summary`, nothing counted yet.
    pub fn new(values: Values, summary: String) -> Self {
        Outcome {
            values,
            summary,
            iterations: 0,
            edges_processed: None,
            converged: None,
            settings: Vec::new(),
            vertex_values: false,
        }
    }

    /// With values that are original vertex IDs (see [`Outcome::vertex_values`]).
    pub fn vertex_valued(mut self) -> Self {
        self.vertex_values = true;
        self
    }

    /// With `iterations`.
    pub fn iterations(mut self, iterations: u64) -> Self {
        self.iterations = iterations;
        self
    }

    /// With `edges` examined.
    pub fn edges(mut self, edges: u64) -> Self {
        self.edges_processed = Some(edges);
        self
    }

    /// With whether it converged before its iteration limit.
    pub fn converged(mut self, converged: bool) -> Self {
        self.converged = Some(converged);
        self
    }

    /// With a setting recorded.
    pub fn setting(mut self, name: &'static str, value: Json) -> Self {
        self.settings.push((name, value));
        self
    }
}
