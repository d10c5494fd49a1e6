//! Errors as typed values: a [`Kind`], which alone decides the exception class ([`Kind::spec`],
//! the one table), and fields read from the Rust error's variant (the path, line, vertex,
//! budget, minimum, option, ...), which the exception carries as attributes (`e.kind`,
//! `e.path`, `e.minimum`, ...).
//!
//! The message is the Rust error's own text, except where the error holds a command-line option
//! as data: then the message is built from the fields in Python's spelling of it
//! ([`keyword`]).

use std::path::{Path, PathBuf};

use diskgraph_algo::AlgoError;
use diskgraph_engine::EngineError;
use diskgraph_format::FormatError;
use diskgraph_io::IoError;
use diskgraph_prep::InputError;
use pyo3::exceptions::{PyKeyboardInterrupt, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyType};
use pyo3::PyTypeInfo;

use crate::errors::{
    graph_not_found_class, input_not_found_class, not_a_graph_class, AlgorithmError, DiskgraphError, GraphFormatError,
    InputFormatError, InvalidVertex, OutputExistsError, Suspended, VerificationError,
};

/// A function giving an exception class.
type ClassOf = for<'py> fn(Python<'py>) -> PyResult<Bound<'py, PyType>>;

/// The class `T`, as a [`ClassOf`].
fn class_of<'py, T: PyTypeInfo>(py: Python<'py>) -> PyResult<Bound<'py, PyType>> {
    Ok(T::type_object(py))
}

/// What kind of fault an error is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A graph path that does not exist.
    GraphNotFound,
    /// A path that is not a graph directory.
    NotAGraph,
    /// A damaged graph directory, or a file of it that could not be read.
    GraphFormat,
    /// An output that exists, without `force=True`.
    OutputExists,
    /// An input file to import that does not exist.
    InputNotFound,
    /// A malformed input to import.
    InputFormat,
    /// A vertex ID that is not a vertex of the graph.
    InvalidVertex,
    /// An algorithm that refused its input.
    Algorithm,
    /// A run's answer that failed its verifier.
    WrongAnswer,
    /// A refused setting or argument.
    Setting,
    /// A long computation that stopped at its time limit with its state saved.
    Suspended,
    /// A run stopped on request (Ctrl-C).
    Interrupted,
    /// Any other fault (a scratch file that could not be made, an unwritable output, ...).
    Other,
}

impl Kind {
    /// Every kind.
    pub const ALL: [Kind; 13] = [
        Kind::GraphNotFound,
        Kind::NotAGraph,
        Kind::GraphFormat,
        Kind::OutputExists,
        Kind::InputNotFound,
        Kind::InputFormat,
        Kind::InvalidVertex,
        Kind::Algorithm,
        Kind::WrongAnswer,
        Kind::Setting,
        Kind::Suspended,
        Kind::Interrupted,
        Kind::Other,
    ];

    /// The kind's name (`e.kind`) and its exception class: the one table.
    fn spec(self) -> (&'static str, ClassOf) {
        match self {
            Kind::GraphNotFound => ("graph_not_found", graph_not_found_class),
            Kind::NotAGraph => ("not_a_graph", not_a_graph_class),
            Kind::GraphFormat => ("graph_format", class_of::<GraphFormatError>),
            Kind::OutputExists => ("output_exists", class_of::<OutputExistsError>),
            Kind::InputNotFound => ("input_not_found", input_not_found_class),
            Kind::InputFormat => ("input_format", class_of::<InputFormatError>),
            Kind::InvalidVertex => ("invalid_vertex", class_of::<InvalidVertex>),
            Kind::Algorithm => ("algorithm", class_of::<AlgorithmError>),
            Kind::WrongAnswer => ("wrong_answer", class_of::<VerificationError>),
            Kind::Setting => ("setting", class_of::<PyValueError>),
            Kind::Suspended => ("suspended", class_of::<Suspended>),
            Kind::Interrupted => ("interrupted", class_of::<PyKeyboardInterrupt>),
            Kind::Other => ("other", class_of::<DiskgraphError>),
        }
    }

    /// The kind's name, as `e.kind` holds it.
    pub fn name(self) -> &'static str {
        self.spec().0
    }

    /// The kind named `name`.
    pub fn named(name: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// Whether the class is also an `OSError`, made as Python's file functions make theirs.
    fn is_os_error(self) -> bool {
        matches!(self, Kind::GraphNotFound | Kind::NotAGraph | Kind::InputNotFound)
    }
}

/// One field of an error.
#[derive(Clone, Debug)]
pub enum Field {
    /// A file or directory.
    Path(PathBuf),
    /// A count, an ID, a line, a number of bytes.
    Int(u64),
    /// A real number (a weight).
    Float(f64),
    /// A name (an option, an algorithm) or a text.
    Text(String),
}

/// An error as a typed value: its kind, its message and its fields.
#[derive(Debug)]
pub struct Typed {
    /// What kind of fault it is.
    pub kind: Kind,
    /// The message, in Python's terms.
    pub message: String,
    /// The fields, each an attribute of the exception.
    pub fields: Vec<(&'static str, Field)>,
}

impl Typed {
    /// An error of `kind` with `message` and no fields.
    pub fn new(kind: Kind, message: impl Into<String>) -> Self {
        Typed {
            kind,
            message: message.into(),
            fields: Vec::new(),
        }
    }

    /// The same with the field `name` set to `value`.
    pub fn with(mut self, name: &'static str, value: Field) -> Self {
        self.fields.push((name, value));
        self
    }

    /// The same with a `path` field, when there is a path.
    fn at(self, path: Option<&Path>) -> Self {
        match path {
            Some(p) => self.with("path", Field::Path(p.to_path_buf())),
            None => self,
        }
    }

    /// The Python exception: the kind's class made from the message (an `OSError` kind from
    /// `errno`, `strerror` and `filename`), with `kind` and the fields as attributes.
    pub fn into_pyerr(self) -> PyErr {
        Python::attach(|py| match self.instance(py) {
            Ok(e) => PyErr::from_value(e),
            Err(e) => e,
        })
    }

    fn instance(self, py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
        let (name, class) = self.kind.spec();
        let class = class(py)?;
        let e = match (self.kind.is_os_error(), self.fields.iter().find(|(n, _)| *n == "errno")) {
            (true, Some((_, Field::Int(errno)))) => class.call1((*errno, self.message.clone(), self.filename()))?,
            _ => class.call1((self.message.clone(),))?,
        };
        e.setattr("kind", name)?;
        for (field, value) in self.fields {
            match value {
                Field::Path(p) => e.setattr(field, p.to_string_lossy().into_owned())?,
                Field::Int(n) => e.setattr(field, n)?,
                Field::Float(x) => e.setattr(field, x)?,
                Field::Text(t) => e.setattr(field, t)?,
            }
        }
        Ok(e)
    }

    fn filename(&self) -> Option<String> {
        self.fields.iter().find_map(|(n, v)| match (n, v) {
            (&"path", Field::Path(p)) => Some(p.to_string_lossy().into_owned()),
            _ => None,
        })
    }
}

/// How Python spells passing the option `name` (as the Rust error holds it): a flag is
/// `name=True`, an option with a value `name=`.
pub fn keyword(name: &str, flag: bool) -> String {
    let name = name.replace('-', "_");
    if flag {
        format!("{name}=True")
    } else {
        format!("{name}=")
    }
}

/// A file that does not exist, as Python's file functions report it: `[Errno 2] No such file
/// or directory: 'x.dg'`, with `errno`, `strerror` and `filename`.
pub fn missing(kind: Kind, path: &Path, source: &std::io::Error) -> Typed {
    let errno = source.raw_os_error().unwrap_or(2);
    let text = source.to_string();
    let strerror = text.strip_suffix(&format!(" (os error {errno})")).unwrap_or(&text);
    Typed::new(kind, strerror)
        .with("errno", Field::Int(errno as u64))
        .at(Some(path))
}

/// A fault of a graph directory (or of writing one): an existing output names the option
/// that replaces it.
pub fn of_format(e: &FormatError) -> Typed {
    match e {
        FormatError::Exists { path } => Typed::new(
            Kind::OutputExists,
            format!(
                "{}: output already exists (pass {} to replace it)",
                path.display(),
                keyword("force", true)
            ),
        )
        .with("option", Field::Text("force".into()))
        .at(Some(path)),
        FormatError::OutputClash { .. } => Typed::new(Kind::Setting, e.to_string()),
        FormatError::Interrupted(_) => Typed::new(Kind::Interrupted, e.to_string()),
        FormatError::NotAGraph { .. } => Typed::new(Kind::NotAGraph, e.to_string()).at(e.path()),
        _ => Typed::new(Kind::GraphFormat, e.to_string()).at(e.path()),
    }
}

/// An error of a run, or of loading a graph for runs.
pub fn of_algo(e: &AlgoError) -> Typed {
    let text = e.to_string();
    match e {
        AlgoError::Engine(e) => of_engine(e),
        AlgoError::NegativeWeight { src, dst, weight } => Typed::new(Kind::Algorithm, text)
            .with("src", Field::Int(*src))
            .with("dst", Field::Int(*dst))
            .with("weight", Field::Float(f64::from(*weight))),
        AlgoError::NeedsUndirected(algorithm) => Typed::new(
            Kind::Algorithm,
            format!(
                "{algorithm} needs an undirected graph; this one is directed (import it with {}, or {} for from_edges)",
                keyword("undirected", true),
                "directed=False"
            ),
        )
        .with("algorithm", Field::Text(algorithm.to_string()))
        .with("option", Field::Text("undirected".into())),
        AlgoError::NanWeight { algorithm, src, dst } => Typed::new(Kind::Algorithm, text)
            .with("algorithm", Field::Text(algorithm.to_string()))
            .with("src", Field::Int(*src))
            .with("dst", Field::Int(*dst)),
        AlgoError::MissingInEdges(algorithm) => {
            Typed::new(Kind::Algorithm, text).with("algorithm", Field::Text(algorithm.to_string()))
        }
        AlgoError::WrongAnswer { algorithm, .. } => {
            Typed::new(Kind::WrongAnswer, text).with("algorithm", Field::Text(algorithm.to_string()))
        }
        AlgoError::InvalidSetting(s) => Typed::new(Kind::Setting, s.clone()),
        AlgoError::UnknownAlgorithm(name) => {
            Typed::new(Kind::Setting, text).with("algorithm", Field::Text(name.clone()))
        }
    }
}

/// An error of the engine.
fn of_engine(e: &EngineError) -> Typed {
    let text = e.to_string();
    match e {
        EngineError::Format(f) => of_format(f),
        EngineError::Io(io @ IoError::Os { .. }) => Typed::new(Kind::GraphFormat, text).at(io.path()),
        EngineError::NoSuchVertex(v) => Typed::new(Kind::InvalidVertex, text).with("vertex", Field::Int(*v)),
        EngineError::InvalidVertex { vertex, .. } => {
            Typed::new(Kind::InvalidVertex, text).with("vertex", Field::Int(u64::from(*vertex)))
        }
        EngineError::BudgetTooSmall { budget, minimum, .. } => Typed::new(Kind::Setting, text)
            .with("option", Field::Text("memory".into()))
            .with("budget", Field::Int(*budget))
            .with("minimum", Field::Int(*minimum)),
        EngineError::Scratch { dir, .. } => Typed::new(Kind::Other, text).at(Some(dir)),
        EngineError::Cancelled => Typed::new(Kind::Interrupted, text),
        EngineError::Setting(s) => Typed::new(Kind::Setting, s.clone()),
        _ => Typed::new(Kind::Setting, text),
    }
}

/// A malformed or missing input to import, with its path and line or byte offset.
pub fn of_input(e: &InputError, message: String) -> Typed {
    match e {
        InputError::Io { path, source } if source.kind() == std::io::ErrorKind::NotFound => {
            missing(Kind::InputNotFound, path, source)
        }
        InputError::Io { path, .. } | InputError::File { path, .. } => {
            Typed::new(Kind::InputFormat, message).at(Some(path))
        }
        InputError::Line { path, line, .. } => Typed::new(Kind::InputFormat, message)
            .with("line", Field::Int(*line))
            .at(Some(path)),
        InputError::Byte { path, offset, .. } => Typed::new(Kind::InputFormat, message)
            .with("offset", Field::Int(*offset))
            .at(Some(path)),
    }
}

/// Every kind's name and exception class, from the one table: `diskgraph._native.error_kinds()`.
#[pyfunction]
pub fn error_kinds(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    for kind in Kind::ALL {
        let (name, class) = kind.spec();
        d.set_item(name, class(py)?)?;
    }
    Ok(d)
}

/// The exception an error of kind `kind` with `message` and the fields `fields` (names to
/// ints, floats or strs; a `path` is a path) becomes: how Python sees every typed error.
#[pyfunction]
#[pyo3(signature = (kind, message, **fields))]
pub fn make_error<'py>(
    py: Python<'py>,
    kind: &str,
    message: &str,
    fields: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyAny>> {
    let kind = Kind::named(kind).ok_or_else(|| PyValueError::new_err(format!("unknown error kind {kind:?}")))?;
    let mut typed = Typed::new(kind, message);
    for (name, value) in fields.into_iter().flat_map(|f| f.iter()) {
        let given: String = name.extract()?;
        let name: &'static str = FIELDS
            .iter()
            .find(|f| **f == given)
            .ok_or_else(|| PyValueError::new_err(format!("unknown error field {given:?}")))?;
        let field = if name == "path" {
            Field::Path(value.extract()?)
        } else if let Ok(n) = value.extract::<u64>() {
            Field::Int(n)
        } else if let Ok(x) = value.extract::<f64>() {
            Field::Float(x)
        } else {
            Field::Text(value.extract()?)
        };
        typed = typed.with(name, field);
    }
    typed.instance(py)
}

/// The names of the fields an error may carry.
const FIELDS: &[&str] = &[
    "path",
    "errno",
    "line",
    "offset",
    "vertex",
    "src",
    "dst",
    "weight",
    "algorithm",
    "option",
    "budget",
    "minimum",
];
