//! `_native.StaticCache`: a BAsC static cache loaded once (`Graph.load_static_cache`) and passed
//! to later runs as `basc=`, which then skip the loading.

use diskgraph_engine::selective::LoadedStatic;
use pyo3::prelude::*;

/// A BAsC selection's lists loaded into memory once, for several runs on the graph that loaded
/// them (``Graph.load_static_cache``; pass it as ``basc=``). Runs given it read nothing to fill
/// their static cache and report ``stats["settings"]["basc_preloaded"]``. The lists stay in
/// memory, outside any run's budget, until the object is dropped.
#[pyclass(module = "diskgraph._native", name = "StaticCache", frozen)]
pub struct PyStaticCache {
    pub(crate) loaded: LoadedStatic,
    memory: u64,
    basc_fraction: f64,
}

impl PyStaticCache {
    /// Wraps `loaded`, loaded for runs of budget `memory` with `basc_fraction` of it.
    pub(crate) fn new(loaded: LoadedStatic, memory: u64, basc_fraction: f64) -> Self {
        PyStaticCache {
            loaded,
            memory,
            basc_fraction,
        }
    }
}

#[pymethods]
impl PyStaticCache {
    /// The selection's layout name (``"basc-<name>"``).
    #[getter]
    fn layout(&self) -> &str {
        self.loaded.layout()
    }

    /// Number of adjacency lists held.
    #[getter]
    fn lists(&self) -> usize {
        self.loaded.lists()
    }

    /// Bytes held (lists and their index): what a run's static cache share must hold.
    #[getter]
    fn bytes(&self) -> u64 {
        self.loaded.bytes()
    }

    /// Seconds the load took.
    #[getter]
    fn load_seconds(&self) -> f64 {
        self.loaded.load_seconds()
    }

    /// Bytes the load read.
    #[getter]
    fn load_bytes(&self) -> u64 {
        self.loaded.load_bytes()
    }

    /// The budget it was loaded for (runs given it default to it).
    #[getter]
    pub(crate) fn memory(&self) -> u64 {
        self.memory
    }

    /// The share of ``memory`` it was loaded into (runs given it default to it).
    #[getter]
    pub(crate) fn basc_fraction(&self) -> f64 {
        self.basc_fraction
    }

    fn __repr__(&self) -> String {
        format!(
            "StaticCache({:?}, lists={}, bytes={}, load_seconds={:.3})",
            self.loaded.layout(),
            self.loaded.lists(),
            self.loaded.bytes(),
            self.loaded.load_seconds()
        )
    }
}
