//! `_native.Graph`: an opened graph directory, its metadata, degree arrays, verify, export,
//! grid layouts (partition) and algorithm runs.

use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Duration;

use diskgraph_algo::msbfs::UNREACHED;
use diskgraph_algo::registry::{self, RunRequest};
use diskgraph_algo::{AlgoError, Algorithm, Values};
use diskgraph_engine::engine_options::{
    ADJACENCY, BASC, BASC_FRACTION, ENGINE_OPTIONS, IFT, IFT_SEQ, INDEX_SUMMARY, IO, MEMORY, READ_OPTIONS, RUN_OPTIONS,
    THREADS,
};
use diskgraph_engine::options::{Params, Value};
use diskgraph_engine::GraphIndex;
use diskgraph_format::{read_range, Codec, Csr, Direction, FormatError, GraphDir};
use diskgraph_prep::export::{export, ExportFormat};
use numpy::{IntoPyArray, PyArray1, PyArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rayon::prelude::*;

use crate::errors::{export_error, format_error, open_error, run_error, value_error};
use crate::interrupt::interruptible;
use crate::json_to_py;
use crate::options;
use crate::static_cache::PyStaticCache;
use crate::sync_handle::PySyncGraph;
use diskgraph_engine::sync::SyncGraph;
use diskgraph_engine::{Needs, OpenEngine, OpenRequest};
use diskgraph_prep::reorder::GorderCheckpoint;
use diskgraph_prep::select::{select_graph, SelectMethod, SelectOptions};
use diskgraph_prep::{CancelProgress, Method as ReorderMethod, PartitionOptions, ReorderOptions, SortOrder};

/// What `run` hands to Python: per-vertex values, their original IDs, the stats dict, the summary.
type RunTuple<'py> = (Bound<'py, PyAny>, Bound<'py, PyArray1<u64>>, Bound<'py, PyAny>, String);

/// What `csr` hands to Python: row offsets, column positions and the weights, if any.
type CsrTuple<'py> = (
    Bound<'py, PyArray1<u64>>,
    Bound<'py, PyArray1<u32>>,
    Option<Bound<'py, PyArray1<f32>>>,
);

/// An opened graph directory (checked on open: manifest, file sizes, offset indexes).
///
/// Use ``diskgraph.open(path)``, which wraps this class.
#[pyclass(module = "diskgraph._native", name = "Graph", frozen)]
pub struct PyGraph {
    dir: GraphDir,
    /// The vertex index once [`load_index`](Self::load_index) has read it: every later run uses it.
    index: Mutex<Option<GraphIndex>>,
}

#[pymethods]
impl PyGraph {
    /// Opens and checks the graph directory at ``path`` (O(V); raises ``GraphFormatError``).
    #[new]
    fn new(py: Python<'_>, path: PathBuf) -> PyResult<Self> {
        let dir = py.detach(|| GraphDir::open(&path)).map_err(|e| open_error(&path, e))?;
        Ok(PyGraph {
            dir,
            index: Mutex::new(None),
        })
    }

    /// Opens the directory again (its manifest changed: a selection or a layout was published),
    /// keeping the index already read, if any: publishing changes none of its files.
    fn reopen(&self, py: Python<'_>) -> PyResult<Self> {
        let dir = py.detach(|| GraphDir::open(self.dir.path())).map_err(format_error)?;
        Ok(PyGraph {
            dir,
            index: Mutex::new(self.loaded_index()),
        })
    }

    /// Opens the graph on the sync engine for plain single-threaded traversals. ``options``:
    /// ``memory`` (the cache), ``ift``, ``ift_seq``, ``index_summary``, ``io``, ``adjacency`` as
    /// the sync engine declares them (absent: their defaults), and ``in_edges``, ``weights``
    /// (bools) to open those too.
    fn sync(&self, py: Python<'_>, options: Bound<'_, PyDict>) -> PyResult<PySyncGraph> {
        let mut params = Params::new();
        let (mut in_edges, mut weights) = (false, false);
        for (key, obj) in options.iter() {
            let name: String = key.extract()?;
            match name.as_str() {
                "in_edges" => in_edges = obj.extract()?,
                "weights" => weights = obj.extract()?,
                _ => {
                    let spec = [&MEMORY, &IFT, &IFT_SEQ, &INDEX_SUMMARY, &IO, &ADJACENCY]
                        .into_iter()
                        .find(|s| s.name == name)
                        .ok_or_else(|| {
                            PyTypeError::new_err(format!(
                                "sync() got an unexpected keyword argument '{name}' (valid: memory, ift, ift_seq, index_summary, io, adjacency, in_edges, weights)"
                            ))
                        })?;
                    let value = options::value(spec, &obj)?;
                    params
                        .set(spec, value)
                        .map_err(|e| PyValueError::new_err(format!("{name}: {e}")))?;
                }
            }
        }
        let mut req = OpenRequest::new("sync", &params, 1).map_err(|e| run_error(e.into()))?;
        req.needs = Needs {
            in_edges,
            weights,
            ..Needs::NONE
        };
        req.index = self.loaded_index();
        let opts = SyncGraph::options(&self.dir, &req).map_err(|e| run_error(e.into()))?;
        PySyncGraph::open(py, &self.dir, opts)
    }

    /// Reads the graph's vertex index (original IDs, offsets of each stored direction) once
    /// and keeps it for every later run of this object, which then skips reading it from disk;
    /// returns the bytes it holds (16 to 24 per vertex) until the object is freed. Calling it
    /// again keeps the index already read.
    fn load_index(&self, py: Python<'_>) -> PyResult<u64> {
        if let Some(index) = self.loaded_index() {
            return Ok(index.bytes());
        }
        let index = py.detach(|| registry::load_index(&self.dir)).map_err(run_error)?;
        let bytes = index.bytes();
        *self.index.lock().unwrap_or_else(|e| e.into_inner()) = Some(index);
        Ok(bytes)
    }

    /// Number of vertices.
    #[getter]
    fn num_vertices(&self) -> u64 {
        self.dir.manifest().num_vertices
    }

    /// Number of edges: arcs of a directed graph, each undirected edge once.
    #[getter]
    fn num_edges(&self) -> u64 {
        self.dir.manifest().num_edges
    }

    /// Number of stored arcs (undirected edges count twice, self-loops once).
    #[getter]
    fn num_arcs(&self) -> u64 {
        self.dir.manifest().num_arcs
    }

    /// Whether the graph is directed.
    #[getter]
    fn directed(&self) -> bool {
        self.dir.manifest().directed
    }

    /// Whether the graph has edge weights.
    #[getter]
    fn weighted(&self) -> bool {
        self.dir.manifest().weighted
    }

    /// The graph directory's path.
    #[getter]
    fn path(&self) -> PathBuf {
        self.dir.path().to_path_buf()
    }

    /// The parsed ``manifest.json`` as a dict.
    #[getter]
    fn manifest<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        json_to_py(py, self.dir.manifest())
    }

    /// Original IDs of the vertices, ascending (uint64). Every per-vertex result is indexed like
    /// this array.
    fn vertex_ids<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<u64>>> {
        let mut ids = py.detach(|| self.dir.original_ids()).map_err(format_error)?;
        if !self.dir.manifest().ids_ascending() {
            ids.sort_unstable(); // a reordered graph: internal order is not ID order
        }
        Ok(ids.into_pyarray(py))
    }

    /// Out-degree of every vertex (int64), from the offset index.
    fn out_degree<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<i64>>> {
        self.degrees(py, Direction::Out)
    }

    /// In-degree of every vertex (int64); the same as the out-degree for undirected graphs.
    fn in_degree<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<i64>>> {
        self.degrees(py, Direction::In)
    }

    /// Full check (O(E)): checksums, padding, every neighbour ID and list order. Returns what
    /// was checked; raises ``GraphFormatError`` on any fault. Interruptible (KeyboardInterrupt).
    fn verify<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let path = self.dir.path().to_path_buf();
        let report =
            interruptible(py, move |stop| diskgraph_format::verify_cancellable(&path, &stop))?.map_err(format_error)?;
        let d = PyDict::new(py);
        d.set_item("files_checked", report.files_checked)?;
        d.set_item("bytes_checked", report.bytes_checked)?;
        d.set_item("arcs_checked", report.arcs_checked)?;
        Ok(d)
    }

    /// Writes the graph as text in original IDs (``el``, ``wel``, ``snap`` or ``mtx``) and returns
    /// the number of edge lines written. Interrupted (KeyboardInterrupt), it leaves no output.
    #[pyo3(signature = (output, format = "el", force = false))]
    fn export(&self, py: Python<'_>, output: PathBuf, format: &str, force: bool) -> PyResult<u64> {
        let fmt = ExportFormat::parse(format).map_err(|e| PyValueError::new_err(e.to_string()))?;
        if fmt == ExportFormat::Wel && !self.dir.manifest().weighted {
            return Err(PyValueError::new_err(format!(
                "{}: graph is unweighted; export it as el, snap or mtx",
                self.dir.path().display()
            )));
        }
        if !force && std::fs::symlink_metadata(&output).is_ok() {
            return Err(format_error(diskgraph_format::FormatError::Exists {
                path: output.to_path_buf(),
            }));
        }
        let dir = self.dir.clone();
        interruptible(py, move |stop| {
            export(&dir, &output, fmt, force, &mut CancelProgress(stop))
        })?
        .map_err(export_error)
    }

    /// Publishes a grid layout inside the graph directory (``diskgraph partition``): P×P blocks
    /// of edges (``sort="grid"``, the default; P×1 source-sorted stripes with ``"source"``;
    /// ``"destination"``), ``grid`` ranges (1 to 4096; None: chosen from ``memory``). Returns the
    /// summary as a dict. Replacing an existing layout needs ``force=True`` (else
    /// ``OutputExistsError``). This object still lists the layouts it was opened with: reopen the
    /// graph to stream the new one (``diskgraph.Graph.partition`` does). With ``compress`` (a
    /// codec name) the blocks are compressed (layout ``grid-P…-<codec>``). Interrupted
    /// (KeyboardInterrupt), it publishes nothing and leaves no temporaries.
    #[pyo3(signature = (grid = None, sort = "grid", memory = None, force = false, compress = None))]
    fn partition<'py>(
        &self,
        py: Python<'py>,
        grid: Option<Bound<'py, PyAny>>,
        sort: &str,
        memory: Option<u64>,
        force: bool,
        compress: Option<&str>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let grid = grid
            .map(|g| options::count("grid", &g, 1, i128::from(diskgraph_format::MAX_GRID)))
            .transpose()?
            .map(|g| g as u32);
        let sort: SortOrder = sort.parse().map_err(PyValueError::new_err)?;
        let opts = PartitionOptions {
            grid,
            memory: memory.unwrap_or_else(crate::default_memory),
            force,
            compress: codec_option(compress)?,
        };
        let path = self.dir.path().to_path_buf();
        let summary = interruptible(py, move |stop| {
            diskgraph_prep::partition(&path, sort, &opts, &mut CancelProgress(stop))
        })?
        .map_err(export_error)?;
        json_to_py(py, &summary)
    }

    /// Publishes GraphChi's shards inside the graph for the shard engine (`diskgraph partition
    /// --shards`): `shards` of them, with edge-value blocks of `block_size` bytes (either None:
    /// chosen so that the shards engine runs the layout within `memory`), the windows
    /// compressed with the codec `compress` (if not None: layout `shards-N-<codec>`). Returns
    /// the summary as a dict. Interrupted (KeyboardInterrupt), it publishes nothing and leaves
    /// no temporaries.
    fn partition_shards<'py>(
        &self,
        py: Python<'py>,
        shards: Option<Bound<'py, PyAny>>,
        memory: u64,
        block_size: Option<u64>,
        force: bool,
        compress: Option<&str>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let shards = shards
            .map(|n| options::count("shards", &n, 1, i128::from(diskgraph_format::MAX_SHARDS)))
            .transpose()?
            .map(|n| n as u32);
        let opts = diskgraph_prep::ShardOptions {
            shards,
            memory,
            block_bytes: block_size,
            force,
            compress: codec_option(compress)?,
        };
        let path = self.dir.path().to_path_buf();
        let summary = interruptible(py, move |stop| {
            diskgraph_prep::partition_shards(&path, &opts, &mut CancelProgress(stop))
        })?
        .map_err(export_error)?;
        json_to_py(py, &summary)
    }

    /// Encodes every adjacency list with ``codec`` into the compressed layout
    /// ``compressed-<codec>`` inside the graph (``diskgraph compress``); replacing an existing
    /// one needs ``force=True`` (else ``OutputExistsError``). Returns what it made as a dict:
    /// ``name``, ``path``, ``codec``, ``arcs`` (both directions of a directed graph),
    /// ``plain_bytes``, ``list_bytes``, ``bytes_per_arc``, ``seconds``. This object still lists
    /// the layouts it was opened with (``diskgraph.Graph.compress`` reopens the graph).
    /// Interrupted (KeyboardInterrupt), it publishes nothing and leaves no temporaries.
    #[pyo3(signature = (codec = "vbyte", force = false))]
    fn compress<'py>(&self, py: Python<'py>, codec: &str, force: bool) -> PyResult<Bound<'py, PyAny>> {
        let codec = parse_codec(codec)?;
        let dir = self.dir.clone();
        let report = interruptible(py, move |stop| {
            diskgraph_format::compress_cancellable(&dir, codec, force, &stop)
        })?
        .map_err(format_error)?;
        let summary = serde_json::json!({
            "name": report.path.file_name().map(|n| n.to_string_lossy().into_owned()),
            "path": report.path,
            "codec": report.codec.name(),
            "arcs": report.arcs,
            "plain_bytes": report.plain_bytes,
            "list_bytes": report.list_bytes,
            "bytes_per_arc": report.bytes_per_arc(),
            "seconds": report.seconds,
        });
        json_to_py(py, &summary)
    }

    /// Chooses the vertices of a BAsC static cache and publishes them inside the graph as
    /// ``basc-<name>`` (``diskgraph select``): ``method`` ``"gvs"`` (``k`` rounds, pages of
    /// ``page_size`` bytes), ``"highd"``, ``"lowd"`` or ``"random"`` (``seed``), within
    /// ``budget`` bytes of edge lists. Returns the summary as a dict. Interrupted
    /// (KeyboardInterrupt), it publishes nothing.
    #[pyo3(signature = (method, budget, k = 100, page_size = 4096, seed = 1, name = None, force = false))]
    #[allow(clippy::too_many_arguments)]
    fn select<'py>(
        &self,
        py: Python<'py>,
        method: &str,
        budget: u64,
        k: usize,
        page_size: u64,
        seed: u64,
        name: Option<String>,
        force: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let method = match method {
            "gvs" if k == 0 => return Err(PyValueError::new_err("k must be at least 1")),
            "gvs" => SelectMethod::Gvs { rounds: k },
            "highd" => SelectMethod::HighDegree,
            "lowd" => SelectMethod::LowDegree,
            "random" => SelectMethod::Random { seed },
            other => {
                return Err(PyValueError::new_err(format!(
                    "unknown selection method {other:?}: expected 'gvs', 'highd', 'lowd' or 'random'"
                )))
            }
        };
        if page_size < 4 {
            return Err(PyValueError::new_err("page_size must be at least 4 bytes"));
        }
        let opts = SelectOptions {
            method,
            budget_bytes: budget,
            page_bytes: page_size,
            name,
            force,
        };
        let path = self.dir.path().to_path_buf();
        let summary = interruptible(py, move |stop| select_graph(&path, &opts, &mut CancelProgress(stop)))?
            .map_err(export_error)?;
        json_to_py(py, &summary)
    }

    /// The I/O cost model and locality figures of the graph's ordering (``diskgraph cost``) as
    /// a dict: one sequential pass over the out-lists.
    fn cost<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let path = self.dir.path().to_path_buf();
        let report = py.detach(|| diskgraph_prep::cost::cost(&path)).map_err(export_error)?;
        json_to_py(py, &report)
    }

    /// Writes the graph relabelled by an ordering to ``output`` (``diskgraph reorder``):
    /// ``method`` ``"norder"``, ``"degree"``, ``"random"`` (``seed``), ``"pagerank"``,
    /// ``"gorder"`` (``window``, or by default the average number of lists per ``page_size``
    /// page, 4 KiB when ``None``) or ``"original"``. Returns the summary as a dict.
    ///
    /// Gorder only: ``checkpoint`` is a state file saved every ``checkpoint_every`` seconds and
    /// resumed from when it exists; with ``time_limit`` (seconds) a run saves it and raises
    /// ``Suspended`` once it has lasted that long.
    ///
    /// Interrupted (KeyboardInterrupt), it leaves nothing at ``output`` (a Gorder checkpoint
    /// keeps its last save).
    #[pyo3(signature = (
        output, method = "norder", window = None, seed = None, memory = None, force = false,
        checkpoint = None, checkpoint_every = 600.0, time_limit = None, page_size = None
    ))]
    #[allow(clippy::too_many_arguments)]
    fn reorder<'py>(
        &self,
        py: Python<'py>,
        output: PathBuf,
        method: &str,
        window: Option<u64>,
        seed: Option<u64>,
        memory: Option<u64>,
        force: bool,
        checkpoint: Option<PathBuf>,
        checkpoint_every: f64,
        time_limit: Option<f64>,
        page_size: Option<u64>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let method: ReorderMethod = method.parse().map_err(PyValueError::new_err)?;
        let seconds = |what: &str, x: f64| {
            if x >= 0.0 && x.is_finite() {
                Ok(Duration::from_secs_f64(x))
            } else {
                Err(PyValueError::new_err(format!(
                    "{what} must be a number of seconds >= 0, not {x}"
                )))
            }
        };
        if checkpoint.is_none() && time_limit.is_some() {
            return Err(PyValueError::new_err(
                "time_limit needs a checkpoint to save the state in",
            ));
        }
        let checkpoint = checkpoint
            .map(|path| -> PyResult<_> {
                Ok(GorderCheckpoint {
                    path,
                    every: seconds("checkpoint_every", checkpoint_every)?,
                    time_limit: time_limit.map(|t| seconds("time_limit", t)).transpose()?,
                })
            })
            .transpose()?;
        let opts = ReorderOptions {
            method,
            window,
            page_bytes: page_size,
            seed,
            memory: memory.unwrap_or_else(crate::default_memory),
            force,
            checkpoint,
        };
        let input = self.dir.path().to_path_buf();
        let summary = interruptible(py, move |stop| {
            diskgraph_prep::reorder(&input, &output, &opts, &mut CancelProgress(stop))
        })?
        .map_err(export_error)?;
        json_to_py(py, &summary)
    }

    /// Runs ``algorithm`` with ``options`` (a dict of the options given, by name; see
    /// ``diskgraph.Graph.run``): returns ``(values, vertex_ids, stats, summary)``. apsp's values
    /// are 2-D (vertices × sources). ``basc`` may be a ``StaticCache`` loaded by
    /// ``load_static_cache``; its budget and fraction are the run's unless given.
    fn run<'py>(&self, py: Python<'py>, algorithm: &str, options: Bound<'py, PyDict>) -> PyResult<RunTuple<'py>> {
        let alg = registry::find(algorithm).map_err(run_error)?;
        let mut req = RunRequest::new(algorithm);
        let mut unknown = Vec::new();
        let mut cache_settings = None;
        let mut progress = None;
        for (key, obj) in options.iter() {
            let name: String = key.extract()?;
            if obj.is_none() {
                continue;
            }
            if name == "progress" {
                progress = Some(options::Progress::new(&obj)?);
                continue;
            }
            if name == BASC.name {
                if let Ok(cache) = obj.cast::<PyStaticCache>() {
                    let cache = cache.get();
                    req.static_cache = Some(cache.loaded.clone());
                    cache_settings = Some((cache.memory(), cache.basc_fraction()));
                    continue;
                }
            }
            match registry::option(alg, &name) {
                Ok(spec) => {
                    let value = options::value(spec, &obj)?;
                    req.params.set(spec, value).map_err(value_error)?;
                }
                Err(_) => unknown.push(name),
            }
        }
        if let Some(name) = unknown.first() {
            return Err(PyTypeError::new_err(format!(
                "{algorithm}() got an unexpected keyword argument '{name}' (valid: {})",
                known_options(alg).join(", ")
            )));
        }
        // A loaded static cache brings the budget and share it was loaded for, unless given.
        if let Some((memory, fraction)) = cache_settings {
            if !req.params.is_given(&MEMORY) {
                req.params
                    .set(&MEMORY, Value::Size(memory))
                    .map_err(PyValueError::new_err)?;
            }
            if !req.params.is_given(&BASC_FRACTION) {
                req.params
                    .set(&BASC_FRACTION, Value::Float(fraction))
                    .map_err(PyValueError::new_err)?;
            }
        }
        req.index = self.loaded_index();
        req.progress = progress.as_ref().map(options::Progress::observer);
        let dir = self.dir.clone();
        let ran = crate::interrupt::interruptible(py, move |cancel| {
            req.cancel = Some(cancel);
            registry::run(&dir, &req)
        });
        let ran = match ran {
            Ok(ran) => ran,
            Err(raised) => {
                // The progress callback's own exception, if any, is dropped for the interrupt.
                drop(progress);
                return Err(raised);
            }
        };
        if let Some(progress) = progress {
            progress.finish()?;
        }
        let out = ran.map_err(run_error)?;
        let values = match out.values {
            Values::Signed(v) => v.into_pyarray(py).into_any(),
            Values::Unsigned(v) => v.into_pyarray(py).into_any(),
            Values::Float(v) => v.into_pyarray(py).into_any(),
            Values::Distances { sources, hops } => {
                // Vertex-major (one row per vertex, one column per source), -1 when unreached.
                let n = out.vertex_ids.len();
                vertex_major(&hops, n, sources)
                    .into_pyarray(py)
                    .reshape([n, sources])?
                    .into_any()
            }
        };
        let stats = json_to_py(py, &out.stats)?;
        Ok((values, out.vertex_ids.into_vec().into_pyarray(py), stats, out.summary))
    }

    /// Loads selection ``basc`` into a static cache once, as ``options`` say (``memory``,
    /// ``basc_fraction``, ``threads`` and how to read: ``io``, ``block_size``, ``max_gap``,
    /// ``max_request``, ``scheduler``, ``queue_depth``, ``io_threads``), for runs that pass the
    /// result as ``basc=``.
    fn load_static_cache<'py>(
        &self,
        py: Python<'py>,
        basc: &str,
        options: Bound<'py, PyDict>,
    ) -> PyResult<PyStaticCache> {
        let mut params = Params::new();
        params
            .set(&BASC, Value::Text(basc.to_string()))
            .map_err(PyValueError::new_err)?;
        let taken = || READ_OPTIONS.iter().chain(&[&MEMORY, &BASC_FRACTION, &THREADS]).copied();
        for (key, obj) in options.iter() {
            let name: String = key.extract()?;
            if obj.is_none() {
                continue;
            }
            let spec = taken().find(|o| o.name == name).ok_or_else(|| {
                let mut valid: Vec<&str> = taken().map(|o| o.name).collect();
                valid.sort_unstable();
                PyTypeError::new_err(format!(
                    "load_static_cache() got an unexpected keyword argument '{name}' (valid: {})",
                    valid.join(", ")
                ))
            })?;
            let value = options::value(spec, &obj)?;
            params.set(spec, value).map_err(value_error)?;
        }
        let index = self.loaded_index();
        let loaded = py
            .detach(|| registry::load_static_cache(&self.dir, &params, index))
            .map_err(run_error)?;
        let memory = params.value::<u64>(&MEMORY);
        let fraction = params.value::<f64>(&BASC_FRACTION);
        Ok(PyStaticCache::new(loaded, memory, fraction))
    }

    /// The out-neighbours (``direction="in"``: in-neighbours) of vertex ``v``, an original ID,
    /// as original IDs in ascending order (uint64; a parallel edge repeats its neighbour). Reads
    /// one list from disk; the vertex index is read on first use and kept, as ``load_index``
    /// does.
    #[pyo3(signature = (v, direction = "out"))]
    fn neighbors<'py>(&self, py: Python<'py>, v: u64, direction: &str) -> PyResult<Bound<'py, PyArray1<u64>>> {
        let d = parse_direction(direction)?;
        let index = self.index_or_load(py)?;
        let u = index
            .vertices()
            .resolve(v)
            .map_err(|e| run_error(AlgoError::Engine(e)))?;
        let list = py.detach(|| self.read_list(&index, d, u)).map_err(format_error)?;
        Ok(list.into_pyarray(py))
    }

    /// One direction of the graph (``"out"`` or ``"in"``) as a CSR with rows and columns in
    /// ascending original-ID order (the order of ``vertex_ids``): ``(indptr, indices, weights)``
    /// — uint64 offsets (V + 1), uint32 column positions ascending within each row, float32
    /// weights or None. Reads the whole direction into memory (12 to 16 bytes per arc).
    #[pyo3(signature = (direction = "out"))]
    fn csr<'py>(&self, py: Python<'py>, direction: &str) -> PyResult<CsrTuple<'py>> {
        let d = parse_direction(direction)?;
        let csr = py
            .detach(|| -> Result<Csr, FormatError> {
                let csr = self.dir.load_csr(d, true)?;
                if self.dir.manifest().ids_ascending() {
                    return Ok(csr);
                }
                Ok(in_id_order(&csr, &self.dir.original_ids()?))
            })
            .map_err(format_error)?;
        Ok((
            csr.offsets.into_pyarray(py),
            csr.targets.into_pyarray(py),
            csr.weights.map(|w| w.into_pyarray(py)),
        ))
    }

    fn __repr__(&self) -> String {
        let m = self.dir.manifest();
        format!(
            "Graph({:?}, num_vertices={}, num_edges={}, directed={}, weighted={})",
            self.dir.path().display().to_string(),
            m.num_vertices,
            m.num_edges,
            m.directed,
            m.weighted
        )
    }
}

/// Every option name `alg` takes: its own, the run's and the engines'.
fn known_options(alg: &Algorithm) -> Vec<&'static str> {
    let mut names: Vec<&str> = alg
        .options
        .iter()
        .chain(RUN_OPTIONS)
        .chain(ENGINE_OPTIONS)
        .map(|o| o.name)
        .chain(["progress"])
        .collect();
    names.sort_unstable();
    names
}

impl PyGraph {
    /// The index [`load_index`](Self::load_index) read, if any.
    fn loaded_index(&self) -> Option<GraphIndex> {
        self.index.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// The loaded index, reading (and keeping) it first if [`load_index`](Self::load_index) has
    /// not.
    fn index_or_load(&self, py: Python<'_>) -> PyResult<GraphIndex> {
        if let Some(index) = self.loaded_index() {
            return Ok(index);
        }
        self.load_index(py)?;
        Ok(self.loaded_index().expect("load_index keeps the index"))
    }

    /// The neighbours of internal vertex `u` in direction `d`, as original IDs, ascending.
    fn read_list(&self, index: &GraphIndex, d: Direction, u: u32) -> Result<Vec<u64>, FormatError> {
        // An undirected graph stores one CSR, which serves both directions.
        let stored = if self.dir.manifest().directed {
            d
        } else {
            Direction::Out
        };
        let offsets = index
            .offsets()
            .get(stored)
            .expect("the index holds every stored direction");
        let (start, end) = (offsets[u as usize], offsets[u as usize + 1]);
        let (_, adj, _) = self.dir.files_of(stored);
        let path = self.dir.file_path(adj);
        let ids = index.vertices().ids();
        let mut list = Vec::with_capacity((end - start) as usize);
        let targets = match self.dir.has_plain_lists() {
            true => read_range::<u32>(&path, start..end)?,
            // A compressed-only graph's list, decoded.
            false => self.dir.read_list(stored, u)?,
        };
        for (i, t) in targets.into_iter().enumerate() {
            let id = ids.get(t as usize).ok_or_else(|| FormatError::NeighbourOutOfRange {
                path: path.clone(),
                index: start + i as u64,
                value: t,
                num_vertices: ids.len() as u64,
            })?;
            list.push(*id);
        }
        if !index.vertices().ascending() {
            list.sort_unstable();
        }
        Ok(list)
    }

    fn degrees<'py>(&self, py: Python<'py>, dir: Direction) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let offsets = py.detach(|| self.dir.load_offsets(dir)).map_err(format_error)?;
        let mut degrees: Vec<i64> = offsets.windows(2).map(|w| (w[1] - w[0]) as i64).collect();
        if !self.dir.manifest().ids_ascending() {
            // A reordered graph: rows by ascending original ID, as every result.
            let ids = py.detach(|| self.dir.original_ids()).map_err(format_error)?;
            degrees = diskgraph_format::IdOrder::new(&ids).apply(&degrees);
        }
        Ok(degrees.into_pyarray(py))
    }
}

/// `"out"` or `"in"`.
fn parse_direction(name: &str) -> PyResult<Direction> {
    match name {
        "out" => Ok(Direction::Out),
        "in" => Ok(Direction::In),
        _ => Err(PyValueError::new_err(format!(
            "unknown direction {name:?}: expected 'out' or 'in'"
        ))),
    }
}

/// `csr` with its rows and neighbour columns put in ascending order of the original IDs `ids`
/// (a reordered graph's internal order is not ID order), each row's columns sorted.
fn in_id_order(csr: &Csr, ids: &[u64]) -> Csr {
    let n = ids.len();
    let mut by_rank: Vec<u32> = (0..n as u32).collect();
    by_rank.par_sort_unstable_by_key(|&v| ids[v as usize]);
    let mut rank = vec![0u32; n];
    for (r, &v) in by_rank.iter().enumerate() {
        rank[v as usize] = r as u32;
    }
    let mut offsets = Vec::with_capacity(n + 1);
    offsets.push(0u64);
    let mut targets = Vec::with_capacity(csr.num_arcs());
    let mut weights = csr.weights.as_ref().map(|_| Vec::with_capacity(csr.num_arcs()));
    let mut row: Vec<(u32, f32)> = Vec::new();
    for &v in &by_rank {
        let w = csr.edge_weights(v);
        row.clear();
        row.extend(
            csr.neighbours(v)
                .iter()
                .enumerate()
                .map(|(i, &t)| (rank[t as usize], w.map_or(1.0, |w| w[i]))),
        );
        row.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
        targets.extend(row.iter().map(|&(t, _)| t));
        if let Some(ws) = weights.as_mut() {
            ws.extend(row.iter().map(|&(_, x)| x));
        }
        offsets.push(targets.len() as u64);
    }
    Csr {
        offsets,
        targets,
        weights,
    }
}

/// The source-major distance matrix `hops` (`sources` rows of `n`) as vertex-major rows of
/// signed hops, -1 when unreached. Blocks of vertices go in parallel, each block's rows staying
/// in the processor's caches while every source's row is read in turn, where a plain gather
/// read each source's row with a stride of `n`, a cache miss per element.
fn vertex_major(hops: &[u32], n: usize, sources: usize) -> Vec<i64> {
    const BLOCK: usize = 4096;
    let mut rows = vec![0i64; n * sources];
    if sources == 0 {
        return rows;
    }
    rows.par_chunks_mut(BLOCK * sources).enumerate().for_each(|(b, block)| {
        let start = b * BLOCK;
        let end = start + block.len() / sources;
        for (i, row) in hops.chunks(n).enumerate() {
            for (v, &h) in (start..end).zip(&row[start..end]) {
                block[(v - start) * sources + i] = if h == UNREACHED { -1 } else { i64::from(h) };
            }
        }
    });
    rows
}

/// A codec by name (as ``diskgraph.codecs()`` lists them); an unknown one is a ``ValueError``
/// naming it.
fn parse_codec(codec: &str) -> PyResult<Codec> {
    codec.parse().map_err(value_error)
}

/// [`parse_codec`] of an optional name.
fn codec_option(codec: Option<&str>) -> PyResult<Option<Codec>> {
    codec.map(parse_codec).transpose()
}
