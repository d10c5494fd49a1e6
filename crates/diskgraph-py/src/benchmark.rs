//! `diskgraph.graph500`: the Graph500 benchmark, as `diskgraph graph500` runs it.

use std::path::PathBuf;

use diskgraph_algo::AlgoError;
use diskgraph_cli::graph500::{run, Options};
use pyo3::prelude::*;

use crate::errors::export_error;
use crate::interrupt::interruptible;
use crate::typed::{self, Typed};

/// Runs the benchmark on one engine (see ``diskgraph.graph500``) and returns its report as a
/// dict, the GIL released; KeyboardInterrupt stops the search under way.
#[pyfunction]
#[pyo3(signature = (scale, graph, edgefactor, seed, roots, engine, memory, threads, force, bfs_only))]
#[allow(clippy::too_many_arguments)]
pub fn graph500(
    py: Python<'_>,
    scale: Option<u32>,
    graph: Option<PathBuf>,
    edgefactor: u32,
    seed: u64,
    roots: usize,
    engine: String,
    memory: u64,
    threads: Option<u64>,
    force: bool,
    bfs_only: bool,
) -> PyResult<Bound<'_, PyAny>> {
    let ran = interruptible(py, move |cancel| {
        let opts = Options {
            scale,
            edge_factor: edgefactor,
            graph,
            force,
            seed,
            roots,
            engines: vec![engine],
            memory,
            threads,
            sssp: !bfs_only,
            cancel: Some(cancel),
            tamper: None,
        };
        run(&opts, &mut |_| {})
    })?;
    match ran {
        Ok(mut reports) => crate::json_to_py(py, &reports.remove(0)),
        Err(e) => Err(benchmark_error(e)),
    }
}

/// The Python exception of a failed benchmark: a search that fails validation is a
/// VerificationError, a bad setting a ValueError, a damaged graph a GraphFormatError.
fn benchmark_error(e: anyhow::Error) -> PyErr {
    for cause in e.chain() {
        if let Some(a @ (AlgoError::WrongAnswer { .. } | AlgoError::InvalidSetting(_))) =
            cause.downcast_ref::<AlgoError>()
        {
            let message = diskgraph_cli::one_line(&e);
            return Typed {
                message,
                ..typed::of_algo(a)
            }
            .into_pyerr();
        }
    }
    export_error(e)
}
