//! Why an engine stopped: the one error type of the engine layer.

use std::path::PathBuf;

use diskgraph_format::FormatError;
use diskgraph_io::{human_minimum, IoError};

/// Why an engine refused to open or stopped during a run. Each variant locates the fault.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The graph directory or a layout is damaged (including a neighbour ID out of range, found
    /// as it was read), or one of its files could not be read.
    #[error(transparent)]
    Format(FormatError),
    /// The I/O layer failed or refused its settings.
    #[error(transparent)]
    Io(IoError),
    /// The memory budget cannot hold what the engine needs.
    #[error(
        "memory budget of {budget} bytes is too small for {what}: give it at least {}{fix}",
        human_minimum(*minimum)
    )]
    BudgetTooSmall {
        /// The budget.
        budget: u64,
        /// What did not fit.
        what: String,
        /// The smallest budget that holds it.
        minimum: u64,
        /// Another way to fit, worded to follow the minimum (`, or …`), or empty.
        fix: String,
    },
    /// A setting the engine cannot honour.
    #[error("{0}")]
    Setting(String),
    /// The scratch file of mapped vertex state could not be made.
    #[error("cannot map vertex state in {}: {source}", dir.display())]
    Scratch {
        /// The scratch directory.
        dir: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// A static cache selection whose lists its start index cannot address.
    #[error("selection {layout}: 64 consecutive lists hold 2^32 edges or more, more than the static cache can index")]
    ListsTooLong {
        /// The selection's layout name.
        layout: String,
    },
    /// Preloaded static cache lists that are not this run's.
    #[error("the loaded static cache {layout} cannot serve this run: {reason}")]
    PreloadedMismatch {
        /// The loaded selection's layout name.
        layout: String,
        /// Why not.
        reason: String,
    },
    /// A loaded index that is not this graph's.
    #[error("the loaded index is not that of {}: load it from this graph", graph.display())]
    IndexMismatch {
        /// The graph opened.
        graph: PathBuf,
    },
    /// The call needs the in-edges of a directed graph, and they were not opened.
    #[error("the in-edges of this directed graph were not opened")]
    MissingInEdges,
    /// An original ID that is not a vertex of the graph.
    #[error("source vertex {0} is not a vertex of the graph")]
    NoSuchVertex(u64),
    /// The run was asked to stop ([`Cancel`](crate::Cancel)): Ctrl-C, KeyboardInterrupt.
    #[error("interrupted")]
    Cancelled,
    /// An internal vertex ID out of range.
    #[error("vertex {vertex} is out of range (the graph has {num_vertices} vertices)")]
    InvalidVertex {
        /// The internal ID.
        vertex: u32,
        /// Number of vertices in the graph.
        num_vertices: usize,
    },
}

impl From<IoError> for EngineError {
    /// The I/O layer's error; a read stopped on the run's stop request is the run's
    /// [`Cancelled`](EngineError::Cancelled).
    fn from(e: IoError) -> Self {
        match e {
            IoError::Stopped => EngineError::Cancelled,
            e => EngineError::Io(e),
        }
    }
}

impl From<FormatError> for EngineError {
    /// The graph's error; a load stopped on the run's stop request is the run's
    /// [`Cancelled`](EngineError::Cancelled).
    fn from(e: FormatError) -> Self {
        match e {
            FormatError::Read(IoError::Stopped) => EngineError::Cancelled,
            e => EngineError::Format(e),
        }
    }
}

impl EngineError {
    /// [`EngineError::BudgetTooSmall`] for `what` that needs a budget of `minimum` bytes.
    pub fn budget(budget: u64, what: impl Into<String>, minimum: u64) -> Self {
        EngineError::BudgetTooSmall {
            budget,
            what: what.into(),
            minimum,
            fix: String::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_minimum_is_a_short_size_at_least_as_large() {
        let e = EngineError::budget(4096, "the I/O buffers", 139_300);
        assert_eq!(
            e.to_string(),
            "memory budget of 4096 bytes is too small for the I/O buffers: give it at least 136.125KiB"
        );
        let e = EngineError::budget(1 << 20, "the lists", (1 << 20) + 1);
        assert_eq!(
            e.to_string(),
            "memory budget of 1048576 bytes is too small for the lists: give it at least 1.125MiB"
        );
    }
}
