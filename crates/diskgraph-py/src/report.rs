//! `report=`: the run report, written as `diskgraph run --report` writes it.

use std::path::PathBuf;

use diskgraph_engine::RunStats;
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;

/// Writes the HTML report of a run on the graph at ``graph`` — its ``summary`` and its stats, as
/// JSON text — to ``path`` (see ``diskgraph.Graph.run``'s ``report``). The device's rates are
/// measured meanwhile, with the GIL released.
#[pyfunction]
pub fn write_report(py: Python<'_>, path: PathBuf, graph: PathBuf, summary: &str, stats: &str) -> PyResult<()> {
    let stats: RunStats =
        serde_json::from_str(stats).map_err(|e| PyValueError::new_err(format!("not a run's stats: {e}")))?;
    py.detach(|| diskgraph_cli::report::write(&path, &graph, summary, &stats))
        .map_err(|e| PyOSError::new_err(format!("{e:#}")))
}
