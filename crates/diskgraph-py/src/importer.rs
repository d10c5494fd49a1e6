//! Imports from Python: `import_file` (a file, exactly as the CLI reads it), `EdgeImporter`
//! (edges pushed from Python in batches, with vertex names when the vertices have them) and
//! `read_names` (a graph's vertex names).
//!
//! `EdgeImporter` runs [`diskgraph_prep::import`] on a background thread over an [`EdgeSource`]
//! that receives batches from a bounded channel, so an input of any size streams through with
//! a few batches in flight. `push` copies a batch out of the numpy arrays (GIL held), then sends
//! it with the GIL released; a full channel blocks the pusher until the importer catches up.
//! `finish` closes the channel and waits for the import, checking Python's signals
//! ([`wait_interruptibly`]). An importer dropped or aborted before `finish`, or a
//! KeyboardInterrupt while `finish` waits, sets the import's stop request: the source fails (or
//! the import stops at its next cancellation point), so the import removes its temporary
//! directory and publishes nothing. `import_file` runs as a run does ([`interruptible`]).

use std::path::{Path, PathBuf};
use std::sync::mpsc::{channel, sync_channel, Receiver, SyncSender};
use std::sync::{Mutex, MutexGuard};
use std::thread::JoinHandle;

use diskgraph_format::{Cancel, Codec, GraphDir, ListEncoding, VertexNames};
use diskgraph_prep::parse::{open_input, parse_format_name, Column, CsvOptions, Header, IdKind, ParseOptions};
use diskgraph_prep::{
    import, CancelProgress, EdgeSource, ImportOptions, ImportSummary, InputError, InputFormat, InputInfo, RawEdge,
};
use numpy::PyReadonlyArray1;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;

use crate::errors::{format_error, import_error, DiskgraphError};
use crate::interrupt::interruptible;
use crate::json_to_py;
use crate::wait::wait_interruptibly;

/// Edges per message on the channel (24 bytes each).
const BATCH: usize = 1 << 18;
/// Messages the channel holds before `push` blocks.
const IN_FLIGHT: usize = 4;

/// A CSV column as Python gives it: an int is a 0-based index, a str a header name.
#[derive(FromPyObject)]
pub enum ColumnArg {
    /// A 0-based index.
    Index(usize),
    /// A header name.
    Name(String),
}

impl From<ColumnArg> for Column {
    fn from(c: ColumnArg) -> Column {
        match c {
            ColumnArg::Index(i) => Column::Index(i),
            ColumnArg::Name(n) => Column::Name(n),
        }
    }
}

/// The lists' encoding: compressed-only with the codec named, or plain (``ValueError`` for an
/// unknown codec).
fn encoding(compressed_only: Option<&str>) -> PyResult<ListEncoding> {
    match compressed_only {
        None => Ok(ListEncoding::Plain),
        Some(name) => name
            .parse::<Codec>()
            .map(ListEncoding::Compressed)
            .map_err(PyValueError::new_err),
    }
}

/// Imports an input file into a new graph directory, as ``diskgraph import`` does; returns the
/// import summary as a dict (plus ``format_detected`` when the format was decided from the
/// file, or, for CSV, what was decided about its header and IDs). Raises ``InputFormatError``
/// naming the file and line on a malformed input, and KeyboardInterrupt (nothing left at
/// ``output``) when interrupted. The CSV options (``header``: ``"auto"``,
/// ``"yes"`` or ``"no"``; ``delimiter``; columns by index or header name; ``ids``:
/// ``"auto"``, ``"integer"`` or ``"name"``) apply to CSV input only. ``compressed_only``
/// (a codec name) stores the lists only compressed with it (no ``out.adj``).
#[pyfunction]
#[pyo3(signature = (
    input, output, *, format = "auto", undirected = false, weighted = false, weight_file = None,
    keep_self_loops = false, keep_duplicates = false, memory = None, force = false,
    header = "auto", delimiter = None, source_column = None, target_column = None, weight_column = None,
    ids = "auto", compressed_only = None
))]
#[allow(clippy::too_many_arguments)]
pub fn import_file<'py>(
    py: Python<'py>,
    input: PathBuf,
    output: PathBuf,
    format: &str,
    undirected: bool,
    weighted: bool,
    weight_file: Option<PathBuf>,
    keep_self_loops: bool,
    keep_duplicates: bool,
    memory: Option<u64>,
    force: bool,
    header: &str,
    delimiter: Option<&str>,
    source_column: Option<ColumnArg>,
    target_column: Option<ColumnArg>,
    weight_column: Option<ColumnArg>,
    ids: &str,
    compressed_only: Option<&str>,
) -> PyResult<Bound<'py, PyAny>> {
    let choice = parse_format_name(format).map_err(PyValueError::new_err)?;
    let csv = CsvOptions {
        header: Header::parse(header).map_err(PyValueError::new_err)?,
        delimiter: delimiter
            .map(diskgraph_prep::parse::parse_delimiter)
            .transpose()
            .map_err(PyValueError::new_err)?,
        source: source_column.map(Column::from),
        target: target_column.map(Column::from),
        weight: weight_column.map(Column::from),
        ids: IdKind::parse(ids).map_err(PyValueError::new_err)?,
    };
    let popts = ParseOptions {
        format: choice,
        weighted,
        weight_file,
        csv,
    };
    let iopts = ImportOptions {
        undirected,
        keep_self_loops,
        keep_duplicates,
        memory: memory.unwrap_or_else(crate::default_memory),
        force,
        encoding: encoding(compressed_only)?,
    };
    check_output(&output, force)?;
    let (summary, detected) = interruptible(py, move |stop| -> anyhow::Result<(ImportSummary, Option<String>)> {
        let (mut source, detected) = open_input(&input, &popts)?;
        let summary = import(source.as_mut(), &output, &iopts, &mut CancelProgress(stop))?;
        Ok((summary, detected))
    })?
    .map_err(import_error)?;
    let d = json_to_py(py, &summary)?;
    if let Some(msg) = detected {
        d.set_item("format_detected", msg)?;
    }
    Ok(d)
}

/// Raises `OutputExistsError` up front, before any input is read (the import checks again
/// when it publishes).
fn check_output(output: &Path, force: bool) -> PyResult<()> {
    if !force && std::fs::symlink_metadata(output).is_ok() {
        return Err(format_error(diskgraph_format::FormatError::Exists {
            path: output.to_path_buf(),
        }));
    }
    Ok(())
}

enum Msg {
    Edges(Vec<RawEdge>),
    Vertices(Vec<u64>),
    Names(Vec<String>),
}

/// The importer's view of the channel.
struct ChannelSource {
    info: InputInfo,
    rx: Receiver<Msg>,
    /// The import's stop request: set by `abort`, a drop, or KeyboardInterrupt in `finish`.
    cancel: Cancel,
    pending_vertices: Vec<u64>,
    names: Option<VertexNames>,
    edges: u64,
    output: PathBuf,
}

impl ChannelSource {
    fn check_abort(&self) -> Result<(), InputError> {
        if self.cancel.is_cancelled() {
            return Err(InputError::File {
                path: self.output.clone(),
                message: "import abandoned before finish()".into(),
            });
        }
        Ok(())
    }
}

impl EdgeSource for ChannelSource {
    fn info(&self) -> &InputInfo {
        &self.info
    }

    fn next_batch(&mut self, out: &mut Vec<RawEdge>) -> Result<bool, InputError> {
        out.clear();
        self.check_abort()?;
        match self.rx.recv() {
            Ok(Msg::Edges(edges)) => {
                self.check_abort()?;
                self.edges += edges.len() as u64;
                *out = edges;
                Ok(true)
            }
            Ok(Msg::Vertices(ids)) => {
                // An empty batch: the importer collects them through `extra_vertices` next.
                self.check_abort()?;
                self.pending_vertices.extend(ids);
                Ok(true)
            }
            Ok(Msg::Names(names)) => {
                self.check_abort()?;
                let table = self.names.get_or_insert_with(VertexNames::new);
                names.iter().for_each(|name| table.push(name));
                Ok(true)
            }
            Err(_) => {
                self.check_abort()?;
                Ok(false)
            }
        }
    }

    fn progress(&self) -> (u64, Option<u64>) {
        (self.edges, None)
    }

    fn extra_vertices(&mut self) -> Vec<u64> {
        std::mem::take(&mut self.pending_vertices)
    }

    fn take_names(&mut self) -> Option<VertexNames> {
        self.names.take()
    }
}

/// An import in progress on its own thread.
struct Running {
    tx: SyncSender<Msg>,
    /// Receives the import's outcome as it ends.
    done: Mutex<Receiver<anyhow::Result<ImportSummary>>>,
    handle: JoinHandle<()>,
    /// The import's stop request.
    cancel: Cancel,
}

impl Running {
    /// Stops the import (its source fails, or it stops at its next cancellation point), closes
    /// the channel and waits for it to clean up.
    fn abort(self) {
        self.cancel.cancel();
        drop(self.tx);
        let _ = self.handle.join();
    }

    /// Closes the channel and waits for the import; KeyboardInterrupt while waiting stops it
    /// (nothing published) and is raised.
    fn finish(self, py: Python<'_>) -> PyResult<ImportSummary> {
        drop(self.tx);
        let outcome = wait_interruptibly(py, &self.done, &self.cancel);
        let _ = py.detach(|| self.handle.join());
        match outcome? {
            Some(res) => res.map_err(import_error),
            None => Err(DiskgraphError::new_err("the import thread panicked")),
        }
    }
}

/// Builds a graph directory from edges pushed in batches (the engine of ``from_edges``,
/// ``from_scipy``, ``from_networkx`` and ``from_parquet``).
///
/// The import runs on a background thread as batches arrive; ``finish()`` waits for it and
/// publishes the graph. An importer that is aborted, or dropped before ``finish()``, or
/// interrupted (KeyboardInterrupt) in ``finish()``, leaves nothing at ``output``.
///
/// >>> imp = EdgeImporter("g", directed=True, weighted=False)
/// >>> imp.push(np.array([1, 2], np.uint64), np.array([2, 3], np.uint64))
/// >>> imp.finish()["num_edges"]
/// 2
#[pyclass(module = "diskgraph._native", frozen)]
pub struct EdgeImporter {
    running: Mutex<Option<Running>>,
    weighted: bool,
}

#[pymethods]
impl EdgeImporter {
    /// Starts an import into ``output``; ``description`` is recorded in the manifest;
    /// ``compressed_only`` (a codec name) stores the lists only compressed with it.
    #[new]
    #[pyo3(signature = (
        output, *, directed = true, weighted = false, keep_self_loops = false, keep_duplicates = false,
        memory = None, force = false, description = "python", compressed_only = None
    ))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        output: PathBuf,
        directed: bool,
        weighted: bool,
        keep_self_loops: bool,
        keep_duplicates: bool,
        memory: Option<u64>,
        force: bool,
        description: &str,
        compressed_only: Option<&str>,
    ) -> PyResult<Self> {
        check_output(&output, force)?;
        let info = InputInfo {
            format: InputFormat::Api,
            directed: Some(directed),
            weighted,
            declared_vertices: None,
            description: description.to_string(),
        };
        let opts = ImportOptions {
            undirected: !directed,
            keep_self_loops,
            keep_duplicates,
            memory: memory.unwrap_or_else(crate::default_memory),
            force,
            encoding: encoding(compressed_only)?,
        };
        let (tx, rx) = sync_channel(IN_FLIGHT);
        let cancel = Cancel::new();
        let mut source = ChannelSource {
            info,
            rx,
            cancel: cancel.clone(),
            pending_vertices: Vec::new(),
            names: None,
            edges: 0,
            output: output.clone(),
        };
        let (outcome, done) = channel();
        let mut progress = CancelProgress(cancel.clone());
        let handle = std::thread::Builder::new()
            .name("diskgraph-import".into())
            .spawn(move || {
                // The receiver lives in the importer until the outcome is taken or dropped.
                let _ = outcome.send(import(&mut source, &output, &opts, &mut progress));
            })
            .map_err(|e| PyRuntimeError::new_err(format!("cannot start the import thread: {e}")))?;
        let running = Running {
            tx,
            done: Mutex::new(done),
            handle,
            cancel,
        };
        Ok(EdgeImporter {
            running: Mutex::new(Some(running)),
            weighted,
        })
    }

    /// Adds edges ``src[i] -> dst[i]`` (contiguous uint64 arrays of equal length) with
    /// ``weights`` (float32, finite) when the importer is weighted. Blocks while the importer
    /// catches up, with the GIL released.
    #[pyo3(signature = (src, dst, weights = None))]
    fn push(
        &self,
        py: Python<'_>,
        src: PyReadonlyArray1<'_, u64>,
        dst: PyReadonlyArray1<'_, u64>,
        weights: Option<PyReadonlyArray1<'_, f32>>,
    ) -> PyResult<()> {
        let (s, d) = (src.as_slice()?, dst.as_slice()?);
        if s.len() != d.len() {
            return Err(PyValueError::new_err(format!(
                "src and dst differ in length ({} and {})",
                s.len(),
                d.len()
            )));
        }
        let w = match (&weights, self.weighted) {
            (Some(w), true) => Some(w.as_slice()?),
            (None, false) => None,
            (None, true) => return Err(PyValueError::new_err("this importer is weighted: pass weights")),
            (Some(_), false) => {
                return Err(PyValueError::new_err(
                    "this importer is unweighted: weights not accepted",
                ))
            }
        };
        if let Some(w) = w {
            if w.len() != s.len() {
                return Err(PyValueError::new_err(format!(
                    "weights has length {}, src and dst have {}",
                    w.len(),
                    s.len()
                )));
            }
            if let Some(i) = w.iter().position(|x| !x.is_finite()) {
                return Err(PyValueError::new_err(format!(
                    "weights[{i}] is {}: weights must be finite",
                    w[i]
                )));
            }
        }
        for start in (0..s.len()).step_by(BATCH) {
            let end = (start + BATCH).min(s.len());
            let batch: Vec<RawEdge> = (start..end)
                .map(|i| RawEdge {
                    src: s[i],
                    dst: d[i],
                    weight: w.map(|w| w[i]),
                })
                .collect();
            self.send(py, Msg::Edges(batch))?;
        }
        Ok(())
    }

    /// Adds vertices (a contiguous uint64 array) that exist even if no edge touches them.
    fn add_vertices(&self, py: Python<'_>, ids: PyReadonlyArray1<'_, u64>) -> PyResult<()> {
        let ids = ids.as_slice()?;
        for chunk in ids.chunks(BATCH) {
            self.send(py, Msg::Vertices(chunk.to_vec()))?;
        }
        Ok(())
    }

    /// Names the next vertices: the first call's first name is vertex 0's, and so on. A graph
    /// given names must have the vertex IDs ``0 .. len(names)`` (every one given a name),
    /// and the names must be distinct; the import checks both when it ends.
    fn add_names(&self, py: Python<'_>, names: Vec<String>) -> PyResult<()> {
        for chunk in names.chunks(BATCH) {
            self.send(py, Msg::Names(chunk.to_vec()))?;
        }
        Ok(())
    }

    /// Ends the input, waits for the import to publish the graph, and returns its summary.
    /// KeyboardInterrupt while it waits stops the import, which then publishes nothing.
    fn finish<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let running = self.take()?;
        let summary = running.finish(py)?;
        json_to_py(py, &summary)
    }

    /// Abandons the import: nothing is published and temporary files are removed. Does nothing
    /// after ``finish()`` or a previous ``abort()``.
    fn abort(&self, py: Python<'_>) {
        let running = lock(&self.running).take();
        if let Some(r) = running {
            py.detach(|| r.abort());
        }
    }

    /// Whether ``finish()`` or ``abort()`` was called (or a push failed).
    #[getter]
    fn closed(&self) -> bool {
        lock(&self.running).is_none()
    }

    /// Whether the importer expects weights.
    #[getter]
    fn weighted(&self) -> bool {
        self.weighted
    }
}

impl EdgeImporter {
    fn take(&self) -> PyResult<Running> {
        lock(&self.running)
            .take()
            .ok_or_else(|| PyRuntimeError::new_err("the importer is closed (finish() or abort() was called)"))
    }

    /// Sends one message with the GIL released. If the import has stopped (it failed), waits
    /// for it and raises its error.
    fn send(&self, py: Python<'_>, msg: Msg) -> PyResult<()> {
        let tx = match &*lock(&self.running) {
            Some(r) => r.tx.clone(),
            None => {
                return Err(PyRuntimeError::new_err(
                    "the importer is closed (finish() or abort() was called)",
                ))
            }
        };
        let sent = py.detach(move || tx.send(msg).is_ok());
        if sent {
            return Ok(());
        }
        // The receiver is gone: the import returned early with an error.
        let running = self.take()?;
        running.finish(py)?;
        Err(DiskgraphError::new_err(
            "the import stopped before the end of the input",
        ))
    }
}

impl Drop for EdgeImporter {
    fn drop(&mut self) {
        if let Some(r) = lock(&self.running).take() {
            r.abort();
        }
    }
}

fn lock(m: &Mutex<Option<Running>>) -> MutexGuard<'_, Option<Running>> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The vertex names of the graph at ``path`` (by original ID), or ``None`` when it has none.
/// Raises ``GraphFormatError`` when the graph or its names file is damaged.
#[pyfunction]
pub fn read_names(py: Python<'_>, path: PathBuf) -> PyResult<Option<Vec<String>>> {
    let names = py
        .detach(|| GraphDir::open(&path).and_then(|g| g.names()))
        .map_err(format_error)?;
    Ok(names.map(|n| n.iter().map(str::to_string).collect()))
}
