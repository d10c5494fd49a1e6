//! Paths the Python package handles itself: metadata files read as the graph reader reads them,
//! and a call's outputs checked against each other and the directories it reads.

use std::path::PathBuf;

use pyo3::exceptions::{PyFileNotFoundError, PyOSError, PyValueError};
use pyo3::prelude::*;

/// The text of the metadata (JSON) file at ``path``, read as the graph reader reads
/// ``manifest.json``: a regular file (a FIFO, a device or a socket is refused, ``OSError``) of at
/// most 64 MiB.
#[pyfunction]
pub fn read_metadata(py: Python<'_>, path: PathBuf) -> PyResult<String> {
    let bytes = py.detach(|| diskgraph_io::read_metadata(&path)).map_err(|e| {
        let msg = format!("{}: {e}", path.display());
        match e.kind() {
            std::io::ErrorKind::NotFound => PyFileNotFoundError::new_err(msg),
            _ => PyOSError::new_err(msg),
        }
    })?;
    String::from_utf8(bytes).map_err(|e| PyValueError::new_err(format!("{}: not UTF-8: {e}", path.display())))
}

/// Checks a call's outputs before it starts (``ValueError`` naming both): ``writes``, pairs of a
/// name (the argument) and a path, are files or directories it writes (replacing them whole);
/// ``scratch``, directories it writes files inside; ``reads``, the graph or split directories it
/// reads. No output may be another, nor lie inside one read; nor may one it replaces hold one.
#[pyfunction]
#[pyo3(signature = (reads, writes, scratch = Vec::new()))]
pub fn check_outputs(
    reads: Vec<(String, PathBuf)>,
    writes: Vec<(String, PathBuf)>,
    scratch: Vec<(String, PathBuf)>,
) -> PyResult<()> {
    let refused = |e: diskgraph_format::FormatError| PyValueError::new_err(e.to_string());
    let mut paths = diskgraph_format::OutputPaths::new();
    for (name, path) in &reads {
        paths.reads(name, path);
    }
    for (name, path) in &writes {
        paths.writes(name, path).map_err(refused)?;
    }
    for (name, path) in &scratch {
        paths.writes_inside(name, path).map_err(refused)?;
    }
    Ok(())
}
