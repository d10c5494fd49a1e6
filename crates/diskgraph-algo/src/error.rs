//! Why a run stopped: the one error type of the algorithm layer.

use diskgraph_engine::EngineError;
use diskgraph_format::FormatError;

/// Why an algorithm, or the registry running it, refused or stopped. Each variant locates the
/// fault.
#[derive(Debug, thiserror::Error)]
pub enum AlgoError {
    /// The engine failed: a damaged graph, a read, a budget too small, a source that is no
    /// vertex.
    #[error(transparent)]
    Engine(#[from] EngineError),
    /// SSSP found an edge whose weight is negative or NaN (internal IDs).
    #[error("edge {src} -> {dst} has weight {weight}; shortest paths need non-negative weights")]
    NegativeWeight {
        /// Tail of the offending edge.
        src: u32,
        /// Head of the offending edge.
        dst: u32,
        /// Its weight.
        weight: f32,
    },
    /// The algorithm pulls over in-edges, and the directed graph was loaded without them.
    #[error("{0} needs the in-edges of a directed graph; load it with in-edges")]
    MissingInEdges(&'static str),
    /// A setting is out of its valid range, or does not apply to the run.
    #[error("{0}")]
    InvalidSetting(String),
    /// No algorithm of that name.
    #[error("unknown algorithm {0:?} (known: {known})", known = crate::registry::names().join(", "))]
    UnknownAlgorithm(String),
}

impl From<FormatError> for AlgoError {
    fn from(e: FormatError) -> Self {
        AlgoError::Engine(EngineError::Format(e))
    }
}

impl AlgoError {
    /// The graph-format error behind this one, if any (a damaged graph, or a file that could
    /// not be read).
    pub fn format_error(&self) -> Option<&FormatError> {
        match self {
            AlgoError::Engine(EngineError::Format(f)) => Some(f),
            _ => None,
        }
    }
}
