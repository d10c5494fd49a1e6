//! The exception classes and the mapping from Rust errors to them.
//!
//! Every exception diskgraph raises on purpose derives from `DiskgraphError`, except bad
//! arguments (`ValueError`, `TypeError`), which are the caller's bug rather than a fault of a
//! graph or an input. A missing graph or input is also a `FileNotFoundError`, and a path that
//! is not a graph directory a `NotADirectoryError`, as Python's own file functions raise.
//!
//! Each error crosses as a typed value ([`crate::typed`]): its kind decides the class, its
//! fields become attributes. Where an error holds an option as data, its message is built in
//! Python's spelling from the fields; messages that name an option in their text spell it as
//! the package asked when it loaded (`diskgraph_io::spelling`: `memory=4GiB` rather than
//! `--memory 4GiB`), so no text is rewritten here. An error's causes are joined once (no OS
//! text twice).

use std::path::Path;

use diskgraph_algo::AlgoError;
use diskgraph_format::FormatError;
use diskgraph_prep::reorder::GorderSuspended;
use diskgraph_prep::{InputError, NoLayoutFits};
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyFileNotFoundError, PyNotADirectoryError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyType};
use pyo3::PyTypeInfo;

use crate::typed::{self, Field, Kind, Typed};

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
    VerificationError,
    AlgorithmError,
    "A run's answer failed its verifier (`verify=True`): the message names the first violation, the vertex or arc and the values seen."
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

/// A class deriving from a diskgraph exception and an `OSError` subclass, made once.
struct OsErrorClass {
    cell: PyOnceLock<Py<PyType>>,
    name: &'static str,
    doc: &'static str,
}

impl OsErrorClass {
    /// The class, made on first use from `bases` (the diskgraph class, then the OS one).
    fn get<'py>(
        &self,
        py: Python<'py>,
        bases: (Bound<'py, PyType>, Bound<'py, PyType>),
    ) -> PyResult<Bound<'py, PyType>> {
        let class = self.cell.get_or_try_init(py, || {
            let namespace = PyDict::new(py);
            namespace.set_item("__module__", "diskgraph")?;
            namespace.set_item("__doc__", self.doc)?;
            let made = PyType::type_object(py).call1((self.name, bases, namespace))?;
            Ok::<_, PyErr>(made.cast_into::<PyType>()?.unbind())
        })?;
        Ok(class.bind(py).clone())
    }
}

static GRAPH_NOT_FOUND: OsErrorClass = OsErrorClass {
    cell: PyOnceLock::new(),
    name: "GraphNotFoundError",
    doc: "A graph path that does not exist: a GraphFormatError and a FileNotFoundError.",
};
static NOT_A_GRAPH: OsErrorClass = OsErrorClass {
    cell: PyOnceLock::new(),
    name: "NotAGraphError",
    doc: "A path that is not a diskgraph graph directory (a file, or a directory without manifest.json): a GraphFormatError and a NotADirectoryError.",
};
static INPUT_NOT_FOUND: OsErrorClass = OsErrorClass {
    cell: PyOnceLock::new(),
    name: "InputNotFoundError",
    doc: "An input file to import that does not exist: an InputFormatError and a FileNotFoundError.",
};

/// `GraphNotFoundError(GraphFormatError, FileNotFoundError)`.
pub fn graph_not_found_class(py: Python<'_>) -> PyResult<Bound<'_, PyType>> {
    GRAPH_NOT_FOUND.get(
        py,
        (GraphFormatError::type_object(py), PyFileNotFoundError::type_object(py)),
    )
}

/// `NotAGraphError(GraphFormatError, NotADirectoryError)`.
pub fn not_a_graph_class(py: Python<'_>) -> PyResult<Bound<'_, PyType>> {
    NOT_A_GRAPH.get(
        py,
        (GraphFormatError::type_object(py), PyNotADirectoryError::type_object(py)),
    )
}

/// `InputNotFoundError(InputFormatError, FileNotFoundError)`.
pub fn input_not_found_class(py: Python<'_>) -> PyResult<Bound<'_, PyType>> {
    INPUT_NOT_FOUND.get(
        py,
        (InputFormatError::type_object(py), PyFileNotFoundError::type_object(py)),
    )
}

/// The error of opening `path` as a graph directory: a missing path is a
/// `GraphNotFoundError`, a file or a directory without a manifest a `NotAGraphError`, anything
/// else as [`format_error`].
pub fn open_error(path: &Path, e: FormatError) -> PyErr {
    let not_a_graph = |why: &str| {
        Typed::new(
            Kind::NotAGraph,
            format!("{} is not a diskgraph graph directory ({why})", path.display()),
        )
        .with("path", Field::Path(path.to_path_buf()))
        .into_pyerr()
    };
    if let FormatError::Io { path: at, source } = &e {
        if at == path && source.kind() == std::io::ErrorKind::NotFound {
            return typed::missing(Kind::GraphNotFound, path, source).into_pyerr();
        }
        if at == path && path.exists() && !path.is_dir() {
            return not_a_graph("a file, not a directory");
        }
        if at.parent() == Some(path) && at.file_name() == Some("manifest.json".as_ref()) && !at.exists() {
            return not_a_graph("no manifest.json");
        }
    }
    format_error(e)
}

/// A damaged or missing graph directory (or an existing output, for writers).
pub fn format_error(e: FormatError) -> PyErr {
    typed::of_format(&e).into_pyerr()
}

/// A `ValueError` for a refused setting.
pub fn value_error(msg: impl AsRef<str>) -> PyErr {
    Typed::new(Kind::Setting, msg.as_ref().to_string()).into_pyerr()
}

/// An error of a run ([`diskgraph_algo::registry::run`]) or of loading for runs.
pub fn run_error(e: AlgoError) -> PyErr {
    typed::of_algo(&e).into_pyerr()
}

/// An error of an import (an `anyhow` chain): the most specific cause decides the kind, and
/// the message is the whole chain.
pub fn import_error(e: anyhow::Error) -> PyErr {
    chain_error(e, false).into_pyerr()
}

/// An error of an export: as [`import_error`], but a fault of the graph being read is a
/// `GraphFormatError`.
pub fn export_error(e: anyhow::Error) -> PyErr {
    chain_error(e, true).into_pyerr()
}

/// The typed value of an `anyhow` chain: its most specific known cause's, with the chain's
/// text, each typed cause in its Python message, as the message.
fn chain_error(e: anyhow::Error, reading_graph: bool) -> Typed {
    let mut cause_typed = None;
    let mut line = String::new();
    for cause in e.chain() {
        let typed = typed_cause(cause, reading_graph);
        let text = match &typed {
            Some(t) if t.kind != Kind::InputNotFound => t.message.clone(),
            _ => cause.to_string(),
        };
        if !line.contains(&text) {
            if !line.is_empty() {
                line.push_str(": ");
            }
            line.push_str(&text);
        }
        if cause_typed.is_none() {
            cause_typed = typed;
        }
    }
    let line = line.replace('\n', " ");
    match cause_typed {
        Some(t) if t.kind == Kind::InputNotFound => t,
        Some(t) => Typed { message: line, ..t },
        None => Typed::new(Kind::Other, line),
    }
}

/// The typed value of one cause of a chain, when it is one of the errors known here.
fn typed_cause(cause: &(dyn std::error::Error + 'static), reading_graph: bool) -> Option<Typed> {
    if cause.is::<GorderSuspended>() {
        return Some(Typed::new(Kind::Suspended, cause.to_string()));
    }
    if cause.is::<NoLayoutFits>() {
        return Some(Typed::new(Kind::Setting, cause.to_string()));
    }
    if let Some(input) = cause.downcast_ref::<InputError>() {
        return Some(typed::of_input(input, input.to_string()));
    }
    let f = cause.downcast_ref::<FormatError>()?;
    let typed = typed::of_format(f);
    Some(match f {
        FormatError::Exists { .. } | FormatError::OutputClash { .. } => typed,
        _ if reading_graph => Typed {
            kind: Kind::GraphFormat,
            ..typed
        },
        _ => Typed {
            kind: Kind::Other,
            ..typed
        },
    })
}
