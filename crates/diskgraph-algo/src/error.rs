//! Why a run stopped: the one error type of the algorithm layer.

use diskgraph_engine::{EngineError, Vertices};
use diskgraph_format::{FormatError, Interrupted};

/// Why an algorithm, or the registry running it, refused or stopped. Each variant locates the
/// fault.
#[derive(Debug, thiserror::Error)]
pub enum AlgoError {
    /// The engine failed: a damaged graph, a read, a budget too small, a source that is no
    /// vertex.
    #[error(transparent)]
    Engine(#[from] EngineError),
    /// SSSP found an edge whose weight is negative or NaN (original IDs; made by
    /// [`AlgoError::negative_weight`]).
    #[error("edge {src} -> {dst} has weight {weight}; shortest paths need non-negative weights")]
    NegativeWeight {
        /// Tail of the offending edge (original ID).
        src: u64,
        /// Head of the offending edge (original ID).
        dst: u64,
        /// Its weight.
        weight: f32,
    },
    /// The algorithm is defined on undirected graphs only (as NetworkX's
    /// `NetworkXNotImplemented` for directed ones).
    #[error(
        "{0} needs an undirected graph; this one is directed (import it with {switch})",
        switch = diskgraph_engine::spelling::switch("undirected")
    )]
    NeedsUndirected(&'static str),
    /// The algorithm compares weights, and an edge's weight is NaN (original IDs).
    #[error("edge {src} -- {dst} has weight NaN; {algorithm} needs weights that compare")]
    NanWeight {
        /// The algorithm.
        algorithm: &'static str,
        /// One end of the offending edge (original ID).
        src: u64,
        /// The other end (original ID).
        dst: u64,
    },
    /// The algorithm pulls over in-edges, and the directed graph was loaded without them.
    #[error("{0} needs the in-edges of a directed graph; load it with in-edges")]
    MissingInEdges(&'static str),
    /// A setting is out of its valid range, or does not apply to the run.
    #[error("{0}")]
    InvalidSetting(String),
    /// A verifier found the answer wrong (`--verify`): the first violation, vertices named by
    /// their original IDs (or names).
    #[error("the {algorithm} answer is wrong: {violation}")]
    WrongAnswer {
        /// The algorithm whose answer it is.
        algorithm: &'static str,
        /// What is wrong: the vertex or arc and the values seen.
        violation: String,
    },
    /// No algorithm of that name.
    #[error("unknown algorithm {0:?} (known: {known})", known = crate::registry::names().join(", "))]
    UnknownAlgorithm(String),
}

impl From<FormatError> for AlgoError {
    fn from(e: FormatError) -> Self {
        AlgoError::Engine(EngineError::from(e))
    }
}

/// A stopped run ([`Cancel::check`](diskgraph_engine::Cancel::check)) is the engine's
/// [`EngineError::Cancelled`].
impl From<Interrupted> for AlgoError {
    fn from(e: Interrupted) -> Self {
        AlgoError::Engine(EngineError::from(e))
    }
}

impl AlgoError {
    /// [`AlgoError::NegativeWeight`] for the edge `src -> dst` (internal IDs, named by their
    /// original IDs in `vertices`) of weight `weight`.
    pub fn negative_weight(vertices: &Vertices, src: u32, dst: u32, weight: f32) -> Self {
        AlgoError::NegativeWeight {
            src: vertices.id(src),
            dst: vertices.id(dst),
            weight,
        }
    }

    /// The graph-format error behind this one, if any (a damaged graph, or a file that could
    /// not be read).
    pub fn format_error(&self) -> Option<&FormatError> {
        match self {
            AlgoError::Engine(EngineError::Format(f)) => Some(f),
            _ => None,
        }
    }
}
