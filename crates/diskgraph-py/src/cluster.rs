//! The Rust side of cluster runs over split directories: the runner `diskgraph run --cluster`
//! calls ([`register`]: it hands the run to the Ray orchestrator, `diskgraph.cluster.run_job`),
//! and the pieces the orchestrator calls — the split's routing ([`PySplitRouting`]), a part's
//! boundary vertices ([`part_boundary`]), kcore's ownership join ([`PyPartEdges`]) and the
//! options of a run as the descriptors parse them ([`cluster_job`]).

use std::path::{Path, PathBuf};

/// A numpy array of `int64`, as the functions below hand them to Python.
type Ints<'py> = Bound<'py, PyArray1<i64>>;

/// A numpy array of `uint32` (boundary positions and counts).
type Positions<'py> = Bound<'py, PyArray1<u32>>;

use anyhow::anyhow;
use diskgraph_algo::cluster::boundary::Boundary;
use diskgraph_algo::cluster::job::{prepare, ClusterJob};
use diskgraph_algo::cluster::ownership::{OwnedEdges, PartEdges};
use diskgraph_algo::cluster::routing::Routing;
use diskgraph_algo::registry;
use diskgraph_algo::{ValueType, Values};
use diskgraph_cli::cluster::{ClusterAnswer, ClusterRequest, ClusterRunner};
use diskgraph_engine::options::{Params, Value};
use diskgraph_format::{read_manifest, GraphDir};
use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::{format_error, open_error, run_error, value_error};
use crate::options;

/// Runs `diskgraph run --cluster` through the Python orchestrator.
struct PyRunner;

impl ClusterRunner for PyRunner {
    fn run(&self, req: &ClusterRequest) -> anyhow::Result<ClusterAnswer> {
        Python::attach(|py| answer(py, req).map_err(|e| anyhow!("{}", e.value(py))))
    }
}

/// Registers the Python orchestrator as the runner of `diskgraph run --cluster`.
pub fn register() {
    diskgraph_cli::cluster::set_runner(Box::new(PyRunner));
}

/// `value` as Python passes it to the orchestrator and the engines' options.
fn to_py<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        Value::Flag(b) => b.into_pyobject(py)?.to_owned().into_any(),
        Value::Count(n) | Value::Size(n) => n.into_pyobject(py)?.into_any(),
        Value::Float(x) => x.into_pyobject(py)?.into_any(),
        Value::Choice(s) => s.into_pyobject(py)?.into_any(),
        Value::Text(s) => s.into_pyobject(py)?.into_any(),
        Value::Source(s) => s.to_string().into_pyobject(py)?.into_any(),
        Value::Sources(s) => s.to_string().into_pyobject(py)?.into_any(),
        Value::Vector(x) => x.to_vec().into_pyarray(py).into_any(),
    })
}

/// A job's options and its engines' options, as two dicts.
fn job_dicts<'py>(py: Python<'py>, job: &ClusterJob) -> PyResult<(Bound<'py, PyDict>, Bound<'py, PyDict>)> {
    let (options, engine) = (PyDict::new(py), PyDict::new(py));
    for (name, value) in &job.options {
        match value {
            Some(v) => options.set_item(name, to_py(py, v)?)?,
            None => options.set_item(name, py.None())?,
        }
    }
    for (name, value) in &job.engine {
        engine.set_item(name, to_py(py, value)?)?;
    }
    Ok((options, engine))
}

/// Runs `req` with `diskgraph.cluster.run_job` and reads its answer.
fn answer(py: Python<'_>, req: &ClusterRequest) -> PyResult<ClusterAnswer> {
    let (options, engine) = job_dicts(py, req.job)?;
    let alg = req.job.algorithm;
    let args = (alg.name, req.split, req.cluster, req.timeout, options, engine);
    let out = py.import("diskgraph.cluster")?.call_method1("run_job", args)?;
    let (values, summary, stats): (Bound<'_, PyAny>, String, Bound<'_, PyAny>) = out.extract()?;
    let values = match alg.result.values {
        ValueType::Float => Values::Float(values.extract::<PyReadonlyArray1<'_, f64>>()?.as_slice()?.to_vec()),
        ValueType::Signed => Values::Signed(values.extract::<PyReadonlyArray1<'_, i64>>()?.as_slice()?.to_vec()),
        ValueType::Unsigned => Values::Unsigned(values.extract::<PyReadonlyArray1<'_, u64>>()?.as_slice()?.to_vec()),
        ValueType::Matrix => return Err(value_error(format!("{} does not run on a cluster", alg.name))),
    };
    let json: String = py.import("json")?.call_method1("dumps", (stats,))?.extract()?;
    let stats = serde_json::from_str(&json).map_err(|e| value_error(format!("the cluster's stats: {e}")))?;
    Ok(ClusterAnswer { values, summary, stats })
}

/// The routing of a split directory as the driver sees it (see `Routing`): `split.json`
/// checked, the parts here checked against it, the vertex IDs.
#[pyclass(module = "diskgraph._native", name = "SplitRouting", frozen)]
pub struct PySplitRouting {
    routing: Routing,
}

#[pymethods]
impl PySplitRouting {
    /// Opens the routing of the split directory at ``path``.
    #[new]
    fn new(py: Python<'_>, path: PathBuf) -> PyResult<Self> {
        let routing = py.detach(|| Routing::open(&path)).map_err(|e| open_error(&path, e))?;
        Ok(PySplitRouting { routing })
    }

    /// The split directory.
    #[getter]
    fn path(&self) -> PathBuf {
        self.routing.path().to_path_buf()
    }

    /// The graph's number of vertices (every part has them all).
    #[getter]
    fn num_vertices(&self) -> u64 {
        self.routing.meta().num_vertices
    }

    /// Whether the parts carry weights.
    #[getter]
    fn weighted(&self) -> bool {
        self.routing.meta().weighted
    }

    /// The parts' directory names, row by row.
    #[getter]
    fn parts(&self) -> Vec<String> {
        self.routing.names().into_iter().map(String::from).collect()
    }

    /// Each part's ``out.adj`` xxh3, as the routing lists it.
    #[getter]
    fn out_adj(&self) -> Vec<String> {
        self.routing.meta().parts.iter().map(|p| p.out_adj.clone()).collect()
    }

    /// The parts found here, by index.
    #[getter]
    fn here(&self) -> Vec<usize> {
        self.routing.here().to_vec()
    }

    /// The original ID of each vertex number (ascending).
    fn vertex_ids<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<u64>>> {
        let g = self.routing.first_part();
        let ids = match g.manifest().ids_remapped {
            true => g.original_ids().map_err(format_error)?,
            false => (0..g.num_vertices()).collect(),
        };
        Ok(ids.into_pyarray(py))
    }

    /// The part (index) holding ``min → max`` of each simple-edge key ``min << 32 | max``.
    fn owners<'py>(&self, py: Python<'py>, keys: PyReadonlyArray1<'_, u64>) -> PyResult<Bound<'py, PyArray1<u32>>> {
        Ok(self.routing.owners(keys.as_slice()?).into_pyarray(py))
    }
}

/// Opens the part at `path`.
fn open_part(path: &Path) -> PyResult<GraphDir> {
    GraphDir::open(path).map_err(|e| open_error(path, e))
}

/// The boundary of the part at ``path``: its sources with arcs (ascending), their out-degrees in
/// the part, its destinations with arcs (ascending), as int64 arrays.
/// The parts of the split at ``path`` that lie on this machine with the lists ``routing``
/// names (pairs of a part's directory name and its ``out.adj`` xxh3), by index; only each
/// part's manifest is read, by the format crate (a part whose files are damaged is found, and
/// the worker opening it names it). A node holding none answers an empty list.
#[pyfunction]
pub fn parts_here(py: Python<'_>, path: PathBuf, routing: Vec<(String, String)>) -> Vec<usize> {
    py.detach(|| {
        routing
            .iter()
            .enumerate()
            .filter(|(_, (name, xxh3))| {
                read_manifest(&path.join(name)).is_ok_and(|m| m.files.get("out.adj").is_some_and(|f| &f.xxh3 == xxh3))
            })
            .map(|(i, _)| i)
            .collect()
    })
}

#[pyfunction]
pub fn part_boundary<'py>(py: Python<'py>, path: PathBuf) -> PyResult<(Ints<'py>, Ints<'py>, Ints<'py>)> {
    let b = py.detach(|| open_part(&path).and_then(|g| Boundary::of(&g).map_err(format_error)))?;
    let wide = |v: Vec<u32>| v.into_iter().map(i64::from).collect::<Vec<i64>>();
    let degrees: Vec<i64> = b.source_degrees.iter().map(|&d| d as i64).collect();
    Ok((
        wide(b.sources).into_pyarray(py),
        degrees.into_pyarray(py),
        wide(b.destinations).into_pyarray(py),
    ))
}

/// kcore's ownership join on one part (see `ownership`): its simple edges read, then the edges
/// it owns as adjacency lists over its kcore boundary.
#[pyclass(module = "diskgraph._native", name = "PartEdges")]
pub struct PyPartEdges {
    /// Before :meth:`own`.
    edges: Option<PartEdges>,
    /// After :meth:`own`.
    owned: Option<OwnedEdges>,
    /// Bytes of the part's files read.
    #[pyo3(get)]
    bytes_read: u64,
}

#[pymethods]
impl PyPartEdges {
    /// Reads the simple edges of the part at ``path``.
    #[new]
    fn new(py: Python<'_>, path: PathBuf) -> PyResult<Self> {
        let edges = py.detach(|| open_part(&path).and_then(|g| PartEdges::read(&g).map_err(format_error)))?;
        Ok(PyPartEdges {
            bytes_read: edges.bytes_read,
            edges: Some(edges),
            owned: None,
        })
    }

    /// The keys (``min << 32 | max``) of the edges the part holds only as ``max → min``.
    fn asked<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<u64>>> {
        Ok(self.before()?.asked().to_vec().into_pyarray(py))
    }

    /// Which of ``keys`` the part holds as ``min → max``.
    fn holds<'py>(&self, py: Python<'py>, keys: PyReadonlyArray1<'_, u64>) -> PyResult<Bound<'py, PyArray1<bool>>> {
        Ok(self.before()?.holds(keys.as_slice()?).into_pyarray(py))
    }

    /// Keeps the edges the part owns (``held_elsewhere``: which of :meth:`asked` another part
    /// holds as ``min → max``); returns its kcore boundary and each vertex's owned edges.
    fn own<'py>(
        &mut self,
        py: Python<'py>,
        held_elsewhere: PyReadonlyArray1<'_, bool>,
    ) -> PyResult<(Ints<'py>, Ints<'py>)> {
        let held = held_elsewhere.as_slice()?;
        if held.len() != self.before()?.asked().len() {
            return Err(value_error(format!(
                "{} answers for {} asked edges",
                held.len(),
                self.before()?.asked().len()
            )));
        }
        let owned = self.edges.take().expect("checked").own(held);
        let boundary: Vec<i64> = owned.boundary.iter().map(|&v| i64::from(v)).collect();
        let degrees: Vec<i64> = owned.degrees().into_iter().map(|d| d as i64).collect();
        self.owned = Some(owned);
        Ok((boundary.into_pyarray(py), degrees.into_pyarray(py)))
    }

    /// The neighbours of the ``removed`` boundary positions along the owned edges: their
    /// positions, ascending, and how many removed neighbours each has (``uint32``: four bytes a
    /// value travel).
    fn neighbours_of<'py>(
        &self,
        py: Python<'py>,
        removed: PyReadonlyArray1<'_, i64>,
    ) -> PyResult<(Positions<'py>, Positions<'py>)> {
        let owned = self
            .owned
            .as_ref()
            .ok_or_else(|| value_error("neighbours_of before own"))?;
        let n = owned.boundary.len() as i64;
        let mut at = Vec::with_capacity(removed.len()?);
        for &p in removed.as_slice()? {
            if !(0..n).contains(&p) {
                return Err(value_error(format!(
                    "position {p} is not on the part's boundary of {n}"
                )));
            }
            at.push(p as u32);
        }
        let (touched, counts) = owned.neighbours_of(&at);
        Ok((touched.into_pyarray(py), counts.into_pyarray(py)))
    }
}

impl PyPartEdges {
    /// The edges before the join; an error after it.
    fn before(&self) -> PyResult<&PartEdges> {
        self.edges
            .as_ref()
            .ok_or_else(|| value_error("the part's edges were given out by own"))
    }
}

/// The options of ``algorithm`` over ``split`` from ``options`` (Python values; None takes the
/// default), as the descriptors parse them: a dict of the algorithm's options the cluster
/// honours (defaults filled in, a source as its vertex number) and a dict of the run's and
/// engines' options given. Options the cluster does not take are refused by name.
#[pyfunction]
pub fn cluster_job<'py>(
    py: Python<'py>,
    algorithm: &str,
    split: &PySplitRouting,
    options: &Bound<'py, PyDict>,
) -> PyResult<(Bound<'py, PyDict>, Bound<'py, PyDict>)> {
    let alg = registry::find(algorithm).map_err(run_error)?;
    let mut params = Params::new();
    for (name, obj) in options.iter() {
        if obj.is_none() {
            continue;
        }
        let name: String = name.extract()?;
        let spec = registry::option(alg, &name)
            .map_err(|_| PyTypeError::new_err(format!("{algorithm}() got an unexpected keyword argument '{name}'")))?;
        let value = options::value(spec, &obj)?;
        params.set(spec, value).map_err(value_error)?;
    }
    let job = prepare(algorithm, &params, &split.routing).map_err(run_error)?;
    job_dicts(py, &job)
}
