//! The `diskgraph` command inside the Python package: the console entry point
//! (`diskgraph._cli:main`, which `pip install` turns into a `diskgraph` script) calls
//! [`cli_main`], so installing the wheel gives the command without a separate binary or a Rust
//! toolchain.

use std::ffi::OsString;
use std::io::Write;

use pyo3::prelude::*;

/// Runs the ``diskgraph`` command line ``argv`` (the program name first) and returns its exit
/// status, with the GIL released: the very code of the standalone binary, so its output, errors
/// and exit statuses are the binary's, and `run --cluster` hands the run to the package's Ray
/// orchestrator (`diskgraph.cluster`). Standard output is flushed before returning.
#[pyfunction]
pub fn cli_main(py: Python<'_>, argv: Vec<OsString>) -> i32 {
    crate::cluster::register();
    // The command's messages name its flags (`--memory 4GiB`), as the binary's do.
    let python = diskgraph_io::spelling::spell_for_python(false);
    let code = py.detach(|| diskgraph_cli::cli_main(argv));
    diskgraph_io::spelling::spell_for_python(python);
    // The binary's runtime flushes stdout when `main` returns; a library call must do it.
    let _ = std::io::stdout().flush();
    code
}
