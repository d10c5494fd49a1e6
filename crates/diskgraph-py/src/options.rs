//! Python values to run options, by the option's declared kind: the same conversion for every
//! option of every algorithm and engine.
//!
//! Bad values raise `ValueError` (out of range, unknown name, non-finite `x`), wrong types
//! `TypeError`, and a source ID that cannot be a vertex `InvalidVertex`. Names of choices are
//! case-insensitive, as on the command line; sizes are ints (bytes) or strings such as
//! `"16KiB"`.

use std::sync::{Arc, Mutex, PoisonError};

use diskgraph_engine::options::{OptionKind, OptionSpec, Value};
use diskgraph_engine::{Observer, Source, Sources, StepRecord};
use pyo3::exceptions::{PyOverflowError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyString};

use crate::errors::value_error;
use crate::typed::{Kind, Typed};

/// Python's name of `obj`'s type, for messages.
fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map_or_else(|_| "?".to_string(), |n| n.to_string())
}

/// `str(obj)`, for messages.
fn shown(obj: &Bound<'_, PyAny>) -> String {
    obj.str().map_or_else(|_| "?".to_string(), |s| s.to_string())
}

/// An `InvalidVertex` for a source given as `v`, which no vertex ID can be (negative, or too
/// large for 64 bits).
fn not_a_vertex(v: &str) -> PyErr {
    Typed::new(
        Kind::InvalidVertex,
        format!("source vertex {v} is not a vertex of the graph"),
    )
    .into_pyerr()
}

/// An integer (a Python int or anything with `__index__`, not a bool), as `i128`; `None` when
/// it is an int too large even for that.
fn integer(name: &str, obj: &Bound<'_, PyAny>) -> PyResult<Option<i128>> {
    if obj.is_instance_of::<PyBool>() {
        return Err(PyTypeError::new_err(format!("{name} must be an integer, got a bool")));
    }
    match obj.extract::<i128>() {
        Ok(v) => Ok(Some(v)),
        Err(e) if e.is_instance_of::<PyOverflowError>(obj.py()) => Ok(None),
        Err(_) => Err(PyTypeError::new_err(format!(
            "{name} must be an integer, got {}",
            type_name(obj)
        ))),
    }
}

/// An integer option in `min..=max`.
pub fn count(name: &str, obj: &Bound<'_, PyAny>, min: i128, max: i128) -> PyResult<u64> {
    match integer(name, obj)? {
        Some(v) if v < min => Err(PyValueError::new_err(format!("{name} must be at least {min}, got {v}"))),
        Some(v) if v <= max => Ok(v as u64),
        Some(v) => Err(PyValueError::new_err(format!("{name} must be at most {max}, got {v}"))),
        None => Err(PyValueError::new_err(format!("{name} {} is out of range", shown(obj)))),
    }
}

/// A size in bytes: an int, or a string such as `"16KiB"`, in 1 to 2⁶⁴ − 1 bytes.
pub fn size(name: &str, obj: &Bound<'_, PyAny>) -> PyResult<u64> {
    if let Ok(s) = obj.cast::<PyString>() {
        let text = s.to_cow()?;
        return diskgraph_engine::parse_size(&text).map_err(|e| PyValueError::new_err(format!("{name}: {e}")));
    }
    let too_large = || PyValueError::new_err(format!("{name}: {}", diskgraph_io::size_out_of_range(&shown(obj))));
    match integer(name, obj) {
        Ok(Some(v)) if v >= 1 => u64::try_from(v).map_err(|_| too_large()),
        Ok(None) => Err(too_large()),
        Ok(Some(_)) => Err(PyValueError::new_err(format!(
            "{name} must be a positive number of bytes, got {}",
            shown(obj)
        ))),
        Err(_) => Err(PyTypeError::new_err(format!(
            "{name} must be an int (bytes) or a size string like '16KiB', got {}",
            type_name(obj)
        ))),
    }
}

/// A str.
fn text(name: &str, obj: &Bound<'_, PyAny>, expected: &str) -> PyResult<String> {
    match obj.cast::<PyString>() {
        Ok(s) => Ok(s.to_cow()?.into_owned()),
        Err(_) => Err(PyTypeError::new_err(format!(
            "{name} must be {expected}, got {}",
            type_name(obj)
        ))),
    }
}

/// A source vertex: an original ID (an int) or `"smallest"` / `"max-degree"`.
fn source(obj: &Bound<'_, PyAny>) -> PyResult<Source> {
    if obj.is_instance_of::<PyString>() {
        return text("source", obj, "a vertex ID or a rule")?.parse().map_err(|_| {
            let given = obj.repr().map_or_else(|_| shown(obj), |r| r.to_string());
            PyValueError::new_err(format!(
                "source must be a vertex ID, 'smallest' or 'max-degree', got {given}"
            ))
        });
    }
    if obj.is_instance_of::<PyBool>() {
        return Err(PyTypeError::new_err("source must be an integer vertex ID, got a bool"));
    }
    match integer("source", obj)? {
        Some(v) => u64::try_from(v)
            .map(Source::Id)
            .map_err(|_| not_a_vertex(&v.to_string())),
        None => Err(not_a_vertex(&shown(obj))),
    }
}

/// Sources: a count K (sample K vertices), a sequence of original IDs, or the command line's
/// text form (`"K"` or `"a,b,c"`).
fn sources(obj: &Bound<'_, PyAny>, max: Option<usize>) -> PyResult<Sources> {
    if let Ok(s) = obj.cast::<PyString>() {
        return s.to_cow()?.parse().map_err(value_error);
    }
    if obj.is_instance_of::<PyBool>() {
        return Err(PyTypeError::new_err(
            "sources must be a count or a sequence of vertex IDs, got a bool",
        ));
    }
    let bad_count = |k: String| {
        let range = match max {
            Some(max) => format!("1 to {max}"),
            None => "at least 1".to_string(),
        };
        PyValueError::new_err(format!(
            "sources must be a count of {range} or a sequence of vertex IDs, got {k}"
        ))
    };
    match obj.extract::<i128>() {
        Ok(k) => {
            return usize::try_from(k)
                .ok()
                .filter(|&k| k > 0)
                .map(Sources::Sample)
                .ok_or_else(|| bad_count(k.to_string()))
        }
        Err(e) if e.is_instance_of::<PyOverflowError>(obj.py()) => return Err(bad_count(shown(obj))),
        Err(_) => {}
    }
    let items = obj.try_iter().map_err(|_| {
        PyTypeError::new_err(format!(
            "sources must be a count or a sequence of vertex IDs, got {}",
            type_name(obj)
        ))
    })?;
    let mut ids = Vec::new();
    for item in items {
        let item = item?;
        match integer("each source", &item)? {
            Some(v) => ids.push(u64::try_from(v).map_err(|_| not_a_vertex(&v.to_string()))?),
            None => return Err(not_a_vertex(&shown(&item))),
        }
    }
    Ok(Sources::Ids(ids))
}

/// One number per vertex: anything numpy makes a 1-D float64 array of.
fn vector(name: &str, obj: &Bound<'_, PyAny>) -> PyResult<Vec<f64>> {
    let numpy = obj.py().import("numpy")?;
    let array = numpy
        .call_method1("asarray", (obj, "float64"))
        .map_err(|_| PyTypeError::new_err(format!("{name} must be an array of numbers, got {}", type_name(obj))))?;
    let ndim: usize = array.getattr("ndim")?.extract()?;
    if ndim != 1 {
        return Err(PyValueError::new_err(format!(
            "{name} must be one-dimensional (one value per vertex), got shape {}",
            shown(&array.getattr("shape")?)
        )));
    }
    let values: numpy::PyReadonlyArray1<'_, f64> = array.extract()?;
    Ok(values.as_array().to_vec())
}

/// The value of option `spec` that `obj` gives.
pub fn value(spec: &OptionSpec, obj: &Bound<'_, PyAny>) -> PyResult<Value> {
    let name = spec.name;
    let value = match &spec.kind {
        OptionKind::Flag => {
            let is_bool = obj.is_instance_of::<PyBool>() || type_name(obj) == "bool_";
            if !is_bool {
                return Err(PyTypeError::new_err(format!(
                    "{name} must be True or False, got {}",
                    type_name(obj)
                )));
            }
            Value::Flag(obj.is_truthy()?)
        }
        &OptionKind::Count { min, max } => Value::Count(count(name, obj, i128::from(min), i128::from(max))?),
        OptionKind::Float { .. } => {
            if obj.is_instance_of::<PyBool>() {
                return Err(PyTypeError::new_err(format!("{name} must be a number, got a bool")));
            }
            let x: f64 = obj
                .extract()
                .map_err(|_| PyTypeError::new_err(format!("{name} must be a number, got {}", type_name(obj))))?;
            Value::Float(x)
        }
        OptionKind::Size { .. } => Value::Size(size(name, obj)?),
        OptionKind::Choice(_) => {
            let choices = spec.kind.describe();
            let given = text(name, obj, &format!("{choices} (a str)"))?;
            spec.parse(&given).map_err(value_error)?
        }
        OptionKind::Text => Value::Text(text(name, obj, "a str or None")?),
        OptionKind::Source => Value::Source(source(obj)?),
        &OptionKind::Sources { max } => Value::Sources(sources(obj, max)?),
        OptionKind::Vector => Value::Vector(Arc::new(vector(name, obj)?)),
    };
    spec.check(&value).map_err(value_error)?;
    Ok(value)
}

/// A run's `progress=` callback: called with each engine step's record (a dict) as the step ends,
/// holding the GIL for the call. The first exception it raises is kept (later steps are not
/// shown) and raised when the run ends.
pub struct Progress {
    callback: Arc<Py<PyAny>>,
    raised: Arc<Mutex<Option<PyErr>>>,
}

impl Progress {
    /// The callback `obj`, which must be callable.
    pub fn new(obj: &Bound<'_, PyAny>) -> PyResult<Progress> {
        if !obj.is_callable() {
            return Err(PyTypeError::new_err(format!(
                "progress must be callable (or True for a progress bar), got {}",
                type_name(obj)
            )));
        }
        Ok(Progress {
            callback: Arc::new(obj.clone().unbind()),
            raised: Arc::default(),
        })
    }

    /// The observer a run request takes.
    pub fn observer(&self) -> Observer {
        let (callback, raised) = (Arc::clone(&self.callback), Arc::clone(&self.raised));
        Observer::new(move |r: &StepRecord| {
            let mut first = raised.lock().unwrap_or_else(PoisonError::into_inner);
            if first.is_some() {
                return;
            }
            let called = Python::attach(|py| -> PyResult<()> {
                callback.call1(py, (crate::json_to_py(py, r)?,))?;
                Ok(())
            });
            if let Err(e) = called {
                *first = Some(e);
            }
        })
    }

    /// The callback's first exception, if it raised one.
    pub fn finish(self) -> PyResult<()> {
        match self.raised.lock().unwrap_or_else(PoisonError::into_inner).take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}
