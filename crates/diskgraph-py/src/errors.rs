//! The exception classes and the mapping from Rust errors to them.
//!
//! Every exception diskgraph raises on purpose derives from `DiskgraphError`, except bad
//! arguments (`ValueError`, `TypeError`), which are the caller's bug rather than a fault of a
//! graph or an input.

use diskgraph_algo::AlgoError;
use diskgraph_engine::EngineError;
use diskgraph_format::FormatError;
use diskgraph_io::IoError;
use diskgraph_prep::reorder::GorderSuspended;
use diskgraph_prep::InputError;
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyValueError};
use pyo3::PyErr;

create_exception!(
    diskgraph,
    DiskgraphError,
    PyException,
    "Base class of every diskgraph error."
);
create_exception!(
    diskgraph,
    GraphFormatError,
    DiskgraphError,
    "A graph directory is missing, damaged or not a diskgraph graph (the message names the file and the fault)."
);
create_exception!(
    diskgraph,
    InputFormatError,
    DiskgraphError,
    "An input to import is malformed (the message names the file and the line or byte offset)."
);
create_exception!(
    diskgraph,
    InvalidVertex,
    DiskgraphError,
    "A vertex ID (e.g. a source) is not a vertex of the graph."
);
create_exception!(
    diskgraph,
    AlgorithmError,
    DiskgraphError,
    "An algorithm refused its input (e.g. SSSP on a graph with negative weights)."
);
create_exception!(
    diskgraph,
    OutputExistsError,
    DiskgraphError,
    "The output path exists and `force=True` was not given."
);

create_exception!(
    diskgraph,
    Suspended,
    DiskgraphError,
    "A long computation (Gorder with a checkpoint) stopped at its time limit with its state saved: the same call again goes on from it."
);

/// A damaged or missing graph directory (or an existing output, for writers).
pub fn format_error(e: FormatError) -> PyErr {
    match e {
        FormatError::Exists { .. } => OutputExistsError::new_err(e.to_string()),
        _ => GraphFormatError::new_err(e.to_string()),
    }
}

/// An error of a run ([`diskgraph_algo::registry::run`]) or of loading for runs.
pub fn run_error(e: AlgoError) -> PyErr {
    let msg = e.to_string();
    match e {
        AlgoError::Engine(EngineError::Format(f)) => format_error(f),
        AlgoError::Engine(EngineError::Io(IoError::Os { .. })) => GraphFormatError::new_err(msg),
        AlgoError::Engine(EngineError::NoSuchVertex(_) | EngineError::InvalidVertex { .. }) => {
            InvalidVertex::new_err(msg)
        }
        AlgoError::Engine(EngineError::Scratch { .. }) => DiskgraphError::new_err(msg),
        AlgoError::Engine(_) | AlgoError::InvalidSetting(_) | AlgoError::UnknownAlgorithm(_) => {
            PyValueError::new_err(msg)
        }
        AlgoError::NegativeWeight { .. }
        | AlgoError::NeedsUndirected(_)
        | AlgoError::NanWeight { .. }
        | AlgoError::MissingInEdges(_) => AlgorithmError::new_err(msg),
    }
}

/// An error of an import (an `anyhow` chain): the most specific cause decides the class, and
/// the message is the whole chain.
pub fn import_error(e: anyhow::Error) -> PyErr {
    chain_error(e, false)
}

/// An error of an export: as [`import_error`], but a fault of the graph being read is a
/// `GraphFormatError`.
pub fn export_error(e: anyhow::Error) -> PyErr {
    chain_error(e, true)
}

fn chain_error(e: anyhow::Error, reading_graph: bool) -> PyErr {
    let msg = format!("{e:#}");
    for cause in e.chain() {
        if cause.is::<GorderSuspended>() {
            return Suspended::new_err(msg);
        }
        if cause.downcast_ref::<InputError>().is_some() {
            return InputFormatError::new_err(msg);
        }
        if let Some(f) = cause.downcast_ref::<FormatError>() {
            return match f {
                FormatError::Exists { .. } => OutputExistsError::new_err(msg),
                _ if reading_graph => GraphFormatError::new_err(msg),
                _ => DiskgraphError::new_err(msg),
            };
        }
    }
    DiskgraphError::new_err(msg)
}
