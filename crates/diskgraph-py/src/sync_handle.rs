//! `_native.SyncGraph` and `_native.SyncQueue`: the sync engine's handle for plain Python
//! traversals — lists by original ID from the engine's cache, and a FIFO queue the prefetcher
//! reads ahead of.

use diskgraph_algo::AlgoError;
use diskgraph_engine::sync::{AheadQueue, Reads, SyncGraph, SyncOptions};
use diskgraph_engine::{Engine, EngineError, RunStats};
use diskgraph_format::{Direction, GraphDir};
use numpy::{IntoPyArray, PyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::errors::run_error;
use crate::json_to_py;

/// The error of an engine call, as a run's.
fn engine_error(e: EngineError) -> PyErr {
    run_error(AlgoError::Engine(e))
}

/// `"out"` or `"in"`.
fn direction(name: &str) -> PyResult<Direction> {
    match name {
        "out" => Ok(Direction::Out),
        "in" => Ok(Direction::In),
        _ => Err(PyValueError::new_err(format!(
            "unknown direction {name:?}: expected 'out' or 'in'"
        ))),
    }
}

/// A graph open on the sync engine: ``neighbors(v)`` returns the list from the engine's cache,
/// blocking on a miss, while a prefetcher reads ahead of the queues made with ``queue()``.
///
/// Use ``Graph.sync(...)``, which wraps this class.
#[pyclass(module = "diskgraph._native", name = "SyncGraph", frozen)]
pub struct PySyncGraph {
    g: SyncGraph,
}

impl PySyncGraph {
    /// Opens `dir` on the sync engine as `opts` say.
    pub(crate) fn open(py: Python<'_>, dir: &GraphDir, opts: SyncOptions) -> PyResult<Self> {
        let g = py.detach(|| SyncGraph::open(dir, &opts)).map_err(engine_error)?;
        Ok(PySyncGraph { g })
    }

    fn internal(&self, id: u64) -> PyResult<u32> {
        self.g.vertices().resolve(id).map_err(engine_error)
    }
}

#[pymethods]
impl PySyncGraph {
    /// Number of vertices.
    #[getter]
    fn num_vertices(&self) -> usize {
        self.g.num_vertices()
    }

    /// The out- (or ``direction="in"``) neighbours of vertex ``v`` (an original ID), as original
    /// IDs in the graph's order.
    #[pyo3(signature = (v, direction="out"))]
    fn neighbors<'py>(&self, py: Python<'py>, v: u64, direction: &str) -> PyResult<Bound<'py, PyArray1<u64>>> {
        let (d, v) = (self::direction(direction)?, self.internal(v)?);
        let ids = self.g.vertices().ids();
        let mut r = self.g.reader();
        let list = py.detach(|| {
            r.neighbours(d, v)
                .map(|l| l.iter().map(|&x| ids[x as usize]).collect::<Vec<u64>>())
        });
        Ok(list.map_err(engine_error)?.into_pyarray(py))
    }

    /// The weights of ``neighbors(v, direction)``, in the same order.
    #[pyo3(signature = (v, direction="out"))]
    fn weights<'py>(&self, py: Python<'py>, v: u64, direction: &str) -> PyResult<Bound<'py, PyArray1<f32>>> {
        let (d, v) = (self::direction(direction)?, self.internal(v)?);
        let mut r = self.g.reader();
        let w = py.detach(|| r.edges(d, v).map(|(_, w)| w.to_vec()));
        Ok(w.map_err(engine_error)?.into_pyarray(py))
    }

    /// The number of stored arcs of ``v`` in ``direction``.
    #[pyo3(signature = (v, direction="out"))]
    fn degree(&self, v: u64, direction: &str) -> PyResult<u64> {
        let (d, v) = (self::direction(direction)?, self.internal(v)?);
        self.g.reader().degree(d, v).map_err(engine_error)
    }

    /// An empty FIFO queue of vertices whose lists in ``directions`` the prefetcher reads
    /// ahead; ``level`` is its nesting depth (inner loops higher).
    #[pyo3(signature = (directions=vec!["out".to_string()], level=0))]
    fn queue(&self, directions: Vec<String>, level: u32) -> PyResult<PySyncQueue> {
        let directions = directions.iter().map(|d| direction(d)).collect::<PyResult<Vec<_>>>()?;
        if directions.iter().any(|&d| !self.g.has(d)) {
            return Err(PyValueError::new_err(
                "the in-edges of this directed graph were not opened: use Graph.sync(in_edges=True)",
            ));
        }
        let reads = Reads {
            directions,
            weights: self.g.weighted(),
            level,
        };
        Ok(PySyncQueue {
            q: std::sync::Mutex::new(AheadQueue::new(&self.g, self.g.num_vertices(), reads)),
            ids: self.g.vertices().clone(),
        })
    }

    /// The engine's counters so far (bytes read, pages prefetched, used and wasted, waits).
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let mut stats = RunStats {
            engine: "sync".into(),
            ..RunStats::default()
        };
        self.g.record(&mut stats);
        json_to_py(py, &stats)
    }
}

/// A FIFO queue of vertices (original IDs) that the sync engine's prefetcher reads ahead of.
#[pyclass(module = "diskgraph._native", name = "SyncQueue", frozen)]
pub struct PySyncQueue {
    q: std::sync::Mutex<AheadQueue>,
    ids: diskgraph_engine::Vertices,
}

#[pymethods]
impl PySyncQueue {
    /// Appends vertex ``v`` (an original ID).
    fn push(&self, v: u64) -> PyResult<()> {
        let v = self.ids.resolve(v).map_err(engine_error)?;
        let mut q = self.q.lock().unwrap_or_else(|e| e.into_inner());
        if q.len() >= self.ids.len().max(1) {
            return Err(PyValueError::new_err("the queue holds every vertex already"));
        }
        q.push(v);
        Ok(())
    }

    /// Takes the vertex at the head, ``None`` when empty.
    fn pop(&self) -> Option<u64> {
        let mut q = self.q.lock().unwrap_or_else(|e| e.into_inner());
        q.pop().map(|v| self.ids.ids()[v as usize])
    }

    fn __len__(&self) -> usize {
        self.q.lock().unwrap_or_else(|e| e.into_inner()).len()
    }
}
