//! `diskgraph._native`: the PyO3 extension module behind the `diskgraph` Python package.
//!
//! Thin by design: it converts types (paths, numpy arrays, dicts) and maps Rust errors to the
//! exception classes of the `errors` module; the graph work happens in `diskgraph-prep` (imports,
//! export), `diskgraph-format` (open, verify) and `diskgraph-algo` (runs), always with the GIL
//! released. The public, documented API is the Python package in `python/diskgraph/`.

#![forbid(unsafe_code)]

use pyo3::prelude::*;

mod benchmark;
mod cli;
mod cluster;
mod errors;
mod graph;
mod importer;
mod interrupt;
mod options;
mod paths;
mod report;
mod rows;
mod static_cache;
mod sync_handle;
mod typed;
mod wait;

/// Large vertex arrays get transparent hugepages (see [`diskgraph_io::HugePageAlloc`]).
#[global_allocator]
static ALLOC: diskgraph_io::HugePageAlloc = diskgraph_io::HugePageAlloc;

/// Converts anything serde can serialise to Python objects (through `json.loads`).
fn json_to_py<'py, T: serde::Serialize + ?Sized>(py: Python<'py>, value: &T) -> PyResult<Bound<'py, PyAny>> {
    let text = serde_json::to_string(value)
        .map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(format!("cannot serialise: {e}")))?;
    py.import("json")?.call_method1("loads", (text,))
}

/// Parses a memory size such as ``"1GiB"``, ``"256MiB"``, ``"1GB"``, ``"512M"``, ``"1.5G"`` or
/// ``"4096"`` into bytes (case-insensitive): ``KiB``, ``MiB``, ``GiB``, ``TiB`` and a bare ``K``,
/// ``M``, ``G``, ``T`` are powers of 2; ``KB``, ``MB``, ``GB``, ``TB`` are powers of 10. A
/// fraction must make a whole number of bytes. An int is taken as bytes. Sizes run from 1 to
/// 2**64 - 1 bytes, exactly; ``name`` is the argument errors name.
///
/// >>> parse_size("256MiB")
/// 268435456
/// >>> parse_size("1GB")
/// 1000000000
#[pyfunction]
#[pyo3(signature = (size, name = "size"))]
fn parse_size(size: &Bound<'_, PyAny>, name: &str) -> PyResult<u64> {
    options::size(name, size)
}

/// The codecs ``Graph.compress`` and ``import_file(compress=...)`` take (``vbyte``, ...), the
/// fastest to decode first: a run's ``adjacency="auto"`` reads the first the graph has.
#[pyfunction]
fn codecs() -> Vec<&'static str> {
    diskgraph_format::Codec::ALL.iter().map(|c| c.name()).collect()
}

/// Every algorithm, engine and option with its kind, default and help, as ``diskgraph
/// algorithms --json`` prints them: what the ``Graph`` methods are generated from.
#[pyfunction]
fn algorithms(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    json_to_py(py, &diskgraph_algo::catalog::catalog())
}

/// The memory budget of a run, an import or a partitioning when none is given: the default of
/// the `memory` run option (`--memory`), as declared once in the engine.
pub(crate) fn default_memory() -> u64 {
    diskgraph_engine::engine_options::memory(&diskgraph_engine::options::Params::new())
}

#[pymodule]
#[pyo3(name = "_native")]
mod native {
    #[pymodule_export]
    use super::benchmark::graph500;
    #[pymodule_export]
    use super::cli::cli_main;
    #[pymodule_export]
    use super::cluster::{cluster_job, part_boundary, parts_here, PyPartEdges, PySplitRouting};
    #[pymodule_export]
    use super::errors::{
        AlgorithmError, DiskgraphError, GraphFormatError, InputFormatError, InvalidVertex, OutputExistsError,
        Suspended, VerificationError,
    };
    #[pymodule_export]
    use super::graph::PyGraph;
    #[pymodule_export]
    use super::importer::{import_file, read_names, EdgeImporter};
    #[pymodule_export]
    use super::paths::{check_outputs, read_metadata};
    #[pymodule_export]
    use super::report::write_report;
    #[pymodule_export]
    use super::rows::write_rows;
    #[pymodule_export]
    use super::static_cache::PyStaticCache;
    #[pymodule_export]
    use super::sync_handle::{PySyncGraph, PySyncQueue};
    #[pymodule_export]
    use super::typed::{error_kinds, make_error};
    #[pymodule_export]
    use super::{algorithms, codecs, parse_size};

    use pyo3::prelude::*;

    #[pymodule_init]
    fn init(m: &Bound<'_, PyModule>) -> PyResult<()> {
        m.add("__version__", env!("CARGO_PKG_VERSION"))?;
        // Messages name options as this package's keyword arguments (`memory=4GiB`), except
        // while the command line runs (`cli_main`).
        diskgraph_io::spelling::spell_for_python(true);
        // Seconds a worker may take to answer one call of a cluster run, unless the run says.
        m.add("DEFAULT_CLUSTER_TIMEOUT", diskgraph_cli::cluster::DEFAULT_TIMEOUT)?;
        m.add("DEFAULT_MEMORY", super::default_memory())?;
        // A Python process runs graph after graph: freed vertex arrays go back to the kernel.
        diskgraph_io::return_large_blocks();
        let py = m.py();
        m.add("GraphNotFoundError", super::errors::graph_not_found_class(py)?)?;
        m.add("NotAGraphError", super::errors::not_a_graph_class(py)?)?;
        m.add("InputNotFoundError", super::errors::input_not_found_class(py)?)?;
        Ok(())
    }
}
