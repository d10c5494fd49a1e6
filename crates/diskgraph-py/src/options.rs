//! Conversion and checking of `run`'s options that arrive as arbitrary Python objects: msbfs
//! sources, spmv's `x`, sizes and counts, the selective engine's I/O settings, and the stream
//! engine's vertex state and names (layout, method).
//!
//! Bad values raise `ValueError` (out of range, unknown name, non-finite `x`), wrong types
//! `TypeError`, and a source ID that cannot be a vertex `InvalidVertex`. The I/O backend and
//! scheduler names follow the CLI's rules (case-insensitive `uring`/`pread`/`mmap` and
//! `bitmap`/`pluglist`); the semantic checks of the I/O settings (block size a power of two in
//! 512..=65536, a request holding a block, ...) stay with the I/O layer, which reports them as
//! `ValueError` when the selective engine opens.

use diskgraph_algo::msbfs::MAX_SOURCES;
use diskgraph_algo::registry::Sources;
use diskgraph_engine::selective::{BackendKind, IoConfig, SchedulerKind};
use diskgraph_engine::stream::VertexStateKind;
use numpy::PyReadonlyArray1;
use pyo3::exceptions::{PyOverflowError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyString};

use crate::errors::InvalidVertex;

/// Python's name of `obj`'s type, for messages.
fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map_or_else(|_| "?".to_string(), |n| n.to_string())
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

/// An optional integer option in `min..=max`.
pub fn count<T: TryFrom<i128>>(
    name: &str,
    obj: Option<&Bound<'_, PyAny>>,
    min: i128,
    max: i128,
) -> PyResult<Option<T>> {
    let Some(obj) = obj else { return Ok(None) };
    let shown = || obj.str().map_or_else(|_| "?".to_string(), |s| s.to_string());
    match integer(name, obj)? {
        Some(v) if v < min => Err(PyValueError::new_err(format!("{name} must be at least {min}, got {v}"))),
        Some(v) if v <= max => T::try_from(v)
            .map(Some)
            .map_err(|_| PyValueError::new_err(format!("{name} {v} is out of range"))),
        Some(v) => Err(PyValueError::new_err(format!("{name} must be at most {max}, got {v}"))),
        None => Err(PyValueError::new_err(format!("{name} {} is out of range", shown()))),
    }
}

/// An optional name (a str or None).
fn name_arg(name: &str, obj: Option<&Bound<'_, PyAny>>, choices: &str) -> PyResult<Option<String>> {
    let Some(obj) = obj else { return Ok(None) };
    match obj.cast::<PyString>() {
        Ok(s) => Ok(Some(s.to_cow()?.into_owned())),
        Err(_) => Err(PyTypeError::new_err(format!(
            "{name} must be {choices}, got {}",
            type_name(obj)
        ))),
    }
}

/// An optional size in bytes: an int, or a string such as `"16KiB"` (the rules of `memory` and
/// of the CLI's size flags); at most `u32::MAX`, like the CLI's I/O sizes.
pub fn size(name: &str, obj: Option<&Bound<'_, PyAny>>) -> PyResult<Option<u32>> {
    let Some(obj) = obj else { return Ok(None) };
    let bytes: u64 = if let Ok(s) = obj.cast::<PyString>() {
        let text = s.to_cow()?;
        diskgraph_engine::parse_size(&text).map_err(|e| PyValueError::new_err(format!("{name}: {e}")))?
    } else {
        match integer(name, obj) {
            Ok(Some(v)) if v >= 1 => u64::try_from(v).unwrap_or(u64::MAX),
            Ok(None) => return Err(PyValueError::new_err(format!("{name} is too large"))),
            Ok(Some(_)) => {
                let shown = obj.str().map_or_else(|_| "?".to_string(), |s| s.to_string());
                return Err(PyValueError::new_err(format!(
                    "{name} must be a positive number of bytes, got {shown}"
                )));
            }
            Err(_) => {
                return Err(PyTypeError::new_err(format!(
                    "{name} must be an int (bytes) or a size string like '16KiB', got {}",
                    type_name(obj)
                )))
            }
        }
    };
    u32::try_from(bytes)
        .map(Some)
        .map_err(|_| PyValueError::new_err(format!("{name} of {bytes} bytes is too large")))
}

/// msbfs sources: a count K (sample K vertices), a sequence of original IDs, or the CLI's text
/// form (`"K"` or `"a,b,c"`). `None` keeps the default.
pub fn sources(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Sources>> {
    let Some(obj) = obj else { return Ok(None) };
    if let Ok(s) = obj.cast::<PyString>() {
        return s.to_cow()?.parse().map(Some).map_err(PyValueError::new_err);
    }
    if obj.is_instance_of::<PyBool>() {
        return Err(PyTypeError::new_err(
            "sources must be a count or a sequence of vertex IDs, got a bool",
        ));
    }
    let bad_count = |k: String| {
        PyValueError::new_err(format!(
            "sources must be a count of 1 to {MAX_SOURCES} or a sequence of vertex IDs, got {k}"
        ))
    };
    match obj.extract::<i128>() {
        Ok(k) => {
            return usize::try_from(k)
                .ok()
                .filter(|&k| k > 0)
                .map(|k| Some(Sources::Sample(k)))
                .ok_or_else(|| bad_count(k.to_string()))
        }
        Err(e) if e.is_instance_of::<PyOverflowError>(obj.py()) => return Err(bad_count(obj.str()?.to_string())),
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
            Some(v) => ids.push(
                u64::try_from(v)
                    .map_err(|_| InvalidVertex::new_err(format!("source vertex {v} is not a vertex of the graph")))?,
            ),
            None => {
                return Err(InvalidVertex::new_err(format!(
                    "source vertex {} is not a vertex of the graph",
                    item.str()?
                )))
            }
        }
    }
    Ok(Some(Sources::Ids(ids)))
}

/// spmv's `x`: a 1-D float64 numpy array of finite values (its length is checked by the run).
pub fn x(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Vec<f64>>> {
    let Some(obj) = obj else { return Ok(None) };
    let array: PyReadonlyArray1<'_, f64> = obj.extract().map_err(|_| {
        PyTypeError::new_err(format!(
            "x must be a 1-D float64 numpy array (or None for all ones), got {}",
            type_name(obj)
        ))
    })?;
    let x = array.as_array().to_vec();
    if let Some(i) = x.iter().position(|v| !v.is_finite()) {
        return Err(PyValueError::new_err(format!(
            "x must be finite, but x[{i}] is {}",
            x[i]
        )));
    }
    Ok(Some(x))
}

/// An optional free-form name (a str or None), such as a layout or a method; its value is
/// checked by the run.
pub fn text(name: &str, obj: Option<&Bound<'_, PyAny>>) -> PyResult<Option<String>> {
    name_arg(name, obj, "a str or None")
}

/// Where the stream engine keeps vertex state: `"memory"` or `"mmap"` (the CLI's
/// `--vertex-state`); `None` keeps the default (memory).
pub fn vertex_state(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Option<VertexStateKind>> {
    name_arg("vertex_state", obj, "'memory' or 'mmap'")?
        .map(|s| s.parse().map_err(PyValueError::new_err))
        .transpose()
}

/// An I/O backend name (the CLI's `--io`, case-insensitive); `None` probes the kernel.
pub fn backend(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Option<BackendKind>> {
    let choices = "'uring', 'pread', 'mmap' or None to probe";
    name_arg("io", obj, choices)?
        .map(|s| s.parse().map_err(PyValueError::new_err))
        .transpose()
}

/// An I/O scheduler name (the CLI's `--scheduler`, case-insensitive).
pub fn scheduler(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Option<SchedulerKind>> {
    let choices = "'bitmap' or 'pluglist'";
    name_arg("scheduler", obj, choices)?
        .map(|s| s.parse().map_err(PyValueError::new_err))
        .transpose()
}

/// The selective engine's I/O settings as given to `run` (each `None` keeps the default).
pub struct IoArgs<'a, 'py> {
    pub io: Option<&'a Bound<'py, PyAny>>,
    pub block_size: Option<&'a Bound<'py, PyAny>>,
    pub max_gap: Option<&'a Bound<'py, PyAny>>,
    pub max_request: Option<&'a Bound<'py, PyAny>>,
    pub scheduler: Option<&'a Bound<'py, PyAny>>,
    pub queue_depth: Option<&'a Bound<'py, PyAny>>,
    pub io_threads: Option<&'a Bound<'py, PyAny>>,
}

impl IoArgs<'_, '_> {
    /// The [`IoConfig`]: the CLI's defaults (those of `IoConfig::default()`) with the given
    /// settings on top.
    pub fn config(&self) -> PyResult<IoConfig> {
        let d = IoConfig::default();
        let u32_max = i128::from(u32::MAX);
        Ok(IoConfig {
            backend: backend(self.io)?,
            block_size: size("block_size", self.block_size)?.unwrap_or(d.block_size),
            max_gap_blocks: count("max_gap", self.max_gap, 0, u32_max)?.unwrap_or(d.max_gap_blocks),
            max_request_bytes: size("max_request", self.max_request)?.unwrap_or(d.max_request_bytes),
            scheduler: scheduler(self.scheduler)?.unwrap_or(d.scheduler),
            queue_depth: count("queue_depth", self.queue_depth, 1, u32_max)?.unwrap_or(d.queue_depth),
            io_threads: count("io_threads", self.io_threads, 1, usize::MAX as i128)?.unwrap_or(d.io_threads),
            ..d
        })
    }
}
