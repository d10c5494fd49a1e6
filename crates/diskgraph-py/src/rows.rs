//! `write_rows`: a result's rows written by the command line's own writers, so that
//! `Result.write` gives the bytes `diskgraph run --out` gives.

use std::path::PathBuf;

use diskgraph_algo::msbfs::UNREACHED;
use diskgraph_algo::{RowIds, Values};
use diskgraph_format::VertexNames;
use numpy::{PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;

use crate::errors::export_error;

/// The values of a result as the writers take them: a 1-D int64, uint64 or float64 array, or a
/// 2-D int64 array of hop counts (apsp: a column per source, -1 unreached).
fn values_of(values: &Bound<'_, PyAny>) -> PyResult<Values> {
    if let Ok(v) = values.extract::<PyReadonlyArray1<'_, i64>>() {
        return Ok(Values::Signed(v.as_array().to_vec()));
    }
    if let Ok(v) = values.extract::<PyReadonlyArray1<'_, u64>>() {
        return Ok(Values::Unsigned(v.as_array().to_vec()));
    }
    if let Ok(v) = values.extract::<PyReadonlyArray1<'_, f64>>() {
        return Ok(Values::Float(v.as_array().to_vec()));
    }
    let m = values.extract::<PyReadonlyArray2<'_, i64>>().map_err(|_| {
        PyTypeError::new_err("values must be a 1-D int64, uint64 or float64 array, or a 2-D int64 array")
    })?;
    let sources = m.shape()[1];
    // Source-major, as the engine's hop rows.
    let hops = m
        .as_array()
        .t()
        .iter()
        .map(|&h| u32::try_from(h).unwrap_or(UNREACHED))
        .collect();
    Ok(Values::Distances { sources, hops })
}

/// Writes a result's rows to ``path`` itself (the caller renames it into place) in ``format``:
/// ``"tsv"`` and ``"npy"`` as ``diskgraph run --out`` writes them, or ``"csv"`` (the TSV's
/// fields comma-separated under a ``vertex,value`` header). ``vertex_ids`` (uint64) and
/// ``values`` are parallel; ``labels`` (one str a row) names the rows of a text file instead
/// of their IDs.
#[pyfunction]
#[pyo3(signature = (path, format, vertex_ids, values, labels = None))]
pub fn write_rows(
    py: Python<'_>,
    path: PathBuf,
    format: &str,
    vertex_ids: PyReadonlyArray1<'_, u64>,
    values: &Bound<'_, PyAny>,
    labels: Option<Vec<String>>,
) -> PyResult<()> {
    let values = values_of(values)?;
    let (ids, names) = match labels.filter(|_| format != "npy") {
        Some(labels) => {
            let mut names = VertexNames::new();
            labels.iter().for_each(|l| names.push(l));
            (RowIds::Identity(labels.len()), Some(names))
        }
        None => (RowIds::Listed(vertex_ids.as_array().to_vec()), None),
    };
    let format = format.to_string();
    py.detach(|| diskgraph_cli::output::write_rows(&path, &format, &ids, names.as_ref(), &values))
        .map_err(export_error)
}
