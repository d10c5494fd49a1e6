//! The algorithm registry: names to engine variants, the `auto` engine choice, and results in
//! original IDs.
//!
//! [`run`] is what the CLI and Python call: it opens what the algorithm needs, maps sources
//! from original IDs to internal ones, runs the variant on a rayon pool of the requested size,
//! and returns per-vertex values (indexed like the graph's ascending original IDs) plus
//! [`RunStats`]. Component labels become the smallest original ID in each component, so any
//! engine's output can be compared byte for byte.
//!
//! Engines: `memory` loads the CSR; `selective` reads adjacency lists from disk per iteration
//! under the `--memory` budget; `stream` streams a grid layout (`diskgraph partition`) with
//! loaded-data reentry (`--mrt`), vertex state in memory or mapped (`--vertex-state`); `auto`
//! takes `memory` when the CSR the algorithm needs fits in the budget and `selective` otherwise
//! (`stream` for `mis`, which has no selective variant), and says which it took and why (`scc`
//! always runs in memory). `scc`, `kcore`, `msbfs`, `apsp`, `sp`, `diameter` and `bc` have no
//! stream variant.
//!
//! `--method` picks an algorithm's method: `wcc` on the stream engine `union-find` (default) or
//! `label-propagation`; `mis` `greedy` (default) or `luby` (seeded with `--seed`), on either
//! engine. Other algorithms (and `wcc` on other engines) take none.
//!
//! `msbfs` reports, per vertex, the sum of its finite distances from the sources (`-1` when no
//! source reaches it); the sources (original IDs, in bit order) are in the stats' settings, and
//! the full distance matrix is available from [`crate::msbfs()`] / [`crate::selective::msbfs()`].
//! `apsp` returns that matrix for any number of sources ([`Values::Distances`]), running msbfs
//! in batches of 64.

use std::cell::OnceCell;
use std::sync::Arc;
use std::time::Instant;

use diskgraph_engine::selective::{
    BascOptions, EngineError, IoConfig, IoError, LoadedStatic, OffsetsIndex, PageCacheOptions, SelectiveGraph,
    SelectiveOptions,
};
use diskgraph_engine::stream::{StreamError, VertexStateKind, DEFAULT_MRT};
use diskgraph_engine::{MemoryGraph, RunStats};
use diskgraph_format::{basc_layout_name, Direction, FormatError, GraphDir, IdRanking, IDS, IN_IDX, OUT_IDX};
use rayon::prelude::*;
use serde_json::json;

use crate::msbfs::{MAX_SOURCES, UNREACHED};
use crate::stream::StreamAlgoError;
use crate::{
    apsp_in_batches, betweenness, bfs, diameter, kcore, mis, msbfs, scc, selective, spmv, sssp, wcc, AlgoError, Apsp,
    BcOptions, Betweenness, Bfs, Components, Diameter, KCore, Mis, MisMethod, MultiBfs, PageRank, PageRankResult,
    SelectiveError, Spmv, Sssp, DEFAULT_SWEEPS,
};

mod stream;

/// Algorithms [`run`] knows, with a one-line description each.
pub const ALGORITHMS: &[(&str, &str)] = &[
    (
        "bfs",
        "breadth-first search levels (-1 unreached); --parents for the parent tree",
    ),
    (
        "sssp",
        "single-source shortest path distances (inf unreached); refuses negative weights",
    ),
    (
        "wcc",
        "weakly connected components, labelled by their smallest vertex ID",
    ),
    (
        "scc",
        "strongly connected components, labelled by their smallest vertex ID (memory engine)",
    ),
    (
        "pagerank",
        "PageRank with NetworkX semantics (alpha 0.85, to --tolerance or --iterations)",
    ),
    ("kcore", "core number of every vertex on the undirected simple view"),
    (
        "msbfs",
        "multi-source BFS from up to 64 --sources at once: sum of finite distances (-1 unreached)",
    ),
    (
        "apsp",
        "hop distances from each of --sources (K sampled, or IDs; msbfs in batches of 64), -1 unreached",
    ),
    ("spmv", "y = A^T x with the edge weights (x from --x, or all ones)"),
    (
        "mis",
        "maximal independent set, 1 in the set and 0 not (greedy by ID; --method luby)",
    ),
    ("sp", "unweighted shortest-path lengths (hops) from --source, -1 unreached"),
    (
        "diameter",
        "diameter lower bound by --rounds BFS sweeps from --source: hop distances from the vertex whose eccentricity it is",
    ),
    (
        "bc",
        "betweenness centrality (Brandes, NetworkX scaling): exact, or from --samples K sources",
    ),
];

/// The names of [`ALGORITHMS`], comma-separated.
fn known_algorithms() -> String {
    ALGORITHMS.iter().map(|(name, _)| *name).collect::<Vec<_>>().join(", ")
}

/// Engines [`run`] knows.
pub const ENGINES: &[&str] = &["memory", "selective", "stream", "auto"];

/// Everything that can stop a run.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The graph directory is damaged (or a file could not be read).
    #[error(transparent)]
    Format(#[from] FormatError),
    /// The algorithm refused its input.
    #[error(transparent)]
    Algo(#[from] AlgoError),
    /// No algorithm of that name.
    #[error("unknown algorithm {0:?} (known: {known})", known = known_algorithms())]
    UnknownAlgorithm(String),
    /// No engine of that name.
    #[error("unknown engine {0:?} (known: memory, selective, stream, auto)")]
    UnknownEngine(String),
    /// The source vertex is not in the graph.
    #[error("source vertex {0} is not a vertex of the graph")]
    NoSuchVertex(u64),
    /// A setting is out of range (including a memory budget too small for the engine, and
    /// I/O settings the I/O layer refuses).
    #[error("{0}")]
    Setting(String),
}

impl From<EngineError> for RunError {
    fn from(e: EngineError) -> Self {
        match e {
            EngineError::Format(f) => RunError::Format(f),
            EngineError::Io(IoError::Os { path, source }) => RunError::Format(FormatError::Io { path, source }),
            other => RunError::Setting(other.to_string()),
        }
    }
}

impl From<StreamError> for RunError {
    fn from(e: StreamError) -> Self {
        match e {
            StreamError::Format(f) => RunError::Format(f),
            StreamError::Io(IoError::Os { path, source }) => RunError::Format(FormatError::Io { path, source }),
            other => RunError::Setting(other.to_string()),
        }
    }
}

impl From<StreamAlgoError> for RunError {
    fn from(e: StreamAlgoError) -> Self {
        match e {
            StreamAlgoError::Algo(a) => RunError::Algo(a),
            StreamAlgoError::Engine(e) => e.into(),
        }
    }
}

impl From<SelectiveError> for RunError {
    fn from(e: SelectiveError) -> Self {
        match e {
            SelectiveError::Algo(a) => RunError::Algo(a),
            SelectiveError::Engine(e) => e.into(),
        }
    }
}

/// What to run and how.
#[derive(Clone, Debug)]
pub struct RunRequest {
    /// Algorithm name (see [`ALGORITHMS`]).
    pub algorithm: String,
    /// Engine name (see [`ENGINES`]).
    pub engine: String,
    /// Source vertex of bfs and sssp.
    pub source: Source,
    /// BFS: return the parent tree instead of levels.
    pub parents: bool,
    /// PageRank: stop when the L1 change is below `num_vertices * tolerance` (NetworkX).
    pub tolerance: f64,
    /// PageRank: run exactly this many iterations instead.
    pub iterations: Option<usize>,
    /// PageRank: give up after this many iterations.
    pub max_iterations: usize,
    /// Worker threads (all cores when absent).
    pub threads: Option<usize>,
    /// Memory budget in bytes (what the selective engine may hold; `auto` compares the CSR with
    /// it; recorded for `memory`).
    pub memory: u64,
    /// msbfs and apsp: the sources.
    pub sources: Sources,
    /// msbfs, apsp and bc `samples`: seed of the sampled sources.
    pub seed: u64,
    /// spmv: `x`, one value per vertex in ascending original-ID order (all ones when absent).
    pub x: Option<Vec<f64>>,
    /// Selective engine: I/O settings (backend, block size, merging, scheduler, queue depth, I/O
    /// threads). `compute_threads` is set from `threads` and `buffer_bytes` from `memory`.
    pub io: IoConfig,
    /// Selective engine: keep the lists a pull round read that the next round needs again
    /// ([`SelectiveOptions::retain_lists`]).
    pub retain_lists: bool,
    /// Stream engine: maximum reentry times of a loaded block (1 is GridGraph).
    pub mrt: u32,
    /// Stream engine: where vertex state lives.
    pub vertex_state: VertexStateKind,
    /// Stream engine: the grid layout to stream (default: the one the algorithm prefers among
    /// those the graph has).
    pub layout: Option<String>,
    /// The algorithm's method (`wcc` on the stream engine: `union-find`, `label-propagation`;
    /// `mis`: `greedy`, `luby`); `None` for the default.
    pub method: Option<String>,
    /// bc: sample this many sources (with `seed`) instead of all vertices.
    pub samples: Option<usize>,
    /// diameter: BFS sweeps.
    pub rounds: usize,
    /// Selective engine: load the BAsC selection `basc-<name>` (or this layout name) into a
    /// static cache of `basc_fraction` of the budget.
    pub basc: Option<String>,
    /// Selective engine: a static cache loaded earlier ([`load_static_cache`]) to use instead of
    /// loading `basc` again (`basc` may then be `None`: it is the loaded one's selection).
    pub basc_loaded: Option<LoadedStatic>,
    /// Selective engine: share of the budget given to the static cache.
    pub basc_fraction: f64,
    /// Selective engine: read through a page cache.
    pub page_cache: Option<PageCacheOptions>,
    /// The graph's index loaded earlier ([`load_index`]) to use instead of reading it again.
    pub index: Option<LoadedIndex>,
    /// Put the rows in ascending original-ID order (the default). Without it, a reordered
    /// graph's rows stay in its internal order, each still paired with its original ID: a run
    /// whose per-vertex values nobody reads (the CLI without `--out`) then neither ranks the
    /// IDs nor moves every row (0.1 s of a 0.9 s Kronecker 24 bfs).
    pub in_id_order: bool,
}

impl RunRequest {
    /// A request with the defaults of the CLI.
    pub fn new(algorithm: &str) -> Self {
        RunRequest {
            algorithm: algorithm.to_string(),
            engine: "auto".to_string(),
            source: Source::Smallest,
            parents: false,
            tolerance: 1e-9,
            iterations: None,
            max_iterations: 10_000,
            threads: None,
            memory: 1 << 30,
            sources: Sources::Sample(MAX_SOURCES),
            seed: 1,
            x: None,
            io: IoConfig::default(),
            retain_lists: true,
            mrt: DEFAULT_MRT,
            vertex_state: VertexStateKind::Memory,
            layout: None,
            method: None,
            samples: None,
            rounds: DEFAULT_SWEEPS,
            basc: None,
            basc_loaded: None,
            basc_fraction: 0.5,
            page_cache: None,
            index: None,
            in_id_order: true,
        }
    }
}

/// How the source vertex of a traversal is chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// The vertex with the smallest original ID (NetworkX's `min(G)` in the reference answers).
    Smallest,
    /// The vertex with the most out-edges (ties: smallest ID), a good start on skewed graphs.
    MaxDegree,
    /// This original ID.
    Id(u64),
}

impl std::str::FromStr for Source {
    type Err = String;

    /// Parses `smallest`, `max-degree`, or an original vertex ID.
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "smallest" => Ok(Source::Smallest),
            "max-degree" => Ok(Source::MaxDegree),
            _ => s
                .parse()
                .map(Source::Id)
                .map_err(|_| format!("source {s:?} is not a vertex ID, smallest or max-degree")),
        }
    }
}

/// The sources of a multi-source BFS.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Sources {
    /// This many distinct vertices sampled uniformly with the request's seed (at most 64, and
    /// at most the number of vertices).
    Sample(usize),
    /// These original IDs (1 to 64).
    Ids(Vec<u64>),
}

impl std::str::FromStr for Sources {
    type Err = String;

    /// Parses `K` (sample K vertices) or a comma-separated list of original IDs `a,b,c` (one
    /// explicit source: `a,`).
    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || format!("sources {s:?} are neither a count K nor a list of vertex IDs a,b,c");
        if s.contains(',') {
            s.split(',')
                .map(str::trim)
                .filter(|t| !t.is_empty())
                .map(|t| t.parse().map_err(|_| bad()))
                .collect::<Result<Vec<u64>, _>>()
                .map(Sources::Ids)
        } else {
            s.trim().parse().map(Sources::Sample).map_err(|_| bad())
        }
    }
}

/// Per-vertex result values, indexed like the graph's ascending original IDs.
#[derive(Clone, Debug, PartialEq)]
pub enum Values {
    /// Signed integers (BFS levels and parents with -1 for unreached, core numbers).
    Signed(Vec<i64>),
    /// Unsigned integers (component labels: original IDs).
    Unsigned(Vec<u64>),
    /// Floats (distances with `inf` unreached, ranks).
    Float(Vec<f64>),
    /// Hop distances from several sources (apsp): `hops[i * n + v]` from source `i` (in the
    /// order of the stats' `sources`) to vertex `v`, [`UNREACHED`] when
    /// unreached; `sources` rows of one value per vertex each.
    Distances {
        /// Number of sources (rows).
        sources: usize,
        /// The rows, source-major.
        hops: Vec<u32>,
    },
}

impl Values {
    /// Number of values.
    pub fn len(&self) -> usize {
        match self {
            Values::Signed(v) => v.len(),
            Values::Unsigned(v) => v.len(),
            Values::Float(v) => v.len(),
            Values::Distances { sources, hops } => hops.len() / (*sources).max(1),
        }
    }

    /// Whether there are no values.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The result of [`run`].
#[derive(Clone, Debug)]
pub struct RunOutput {
    /// One value per vertex.
    pub values: Values,
    /// Original ID of each vertex (parallel to `values`): ascending, unless the request asked
    /// for no ID order ([`RunRequest::in_id_order`]).
    pub vertex_ids: Vec<u64>,
    /// What the run did and cost.
    pub stats: RunStats,
    /// A few lines describing the answer (reached vertices, component count, top ranks...).
    pub summary: String,
}

/// Which engine runs the request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Engine {
    Memory,
    Selective,
    Stream,
}

/// An algorithm's method, parsed from [`RunRequest::method`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Method {
    /// The algorithm's only (or default) method.
    Default,
    /// wcc: one union-find pass (stream).
    UnionFind,
    /// wcc: label propagation (stream).
    LabelPropagation,
    /// mis: the given method.
    Mis(MisMethod),
}

/// Parses and checks `--method` for the algorithm and engine.
fn method(req: &RunRequest, engine: Engine) -> Result<Method, RunError> {
    let alg = req.algorithm.as_str();
    let name = req.method.as_deref();
    let bad = |known: &str| {
        RunError::Setting(format!(
            "unknown {alg} method {:?} (known: {known})",
            name.unwrap_or_default()
        ))
    };
    match (alg, engine, name) {
        ("mis", _, None | Some("greedy")) => Ok(Method::Mis(MisMethod::Greedy)),
        ("mis", _, Some("luby")) => Ok(Method::Mis(MisMethod::Luby { seed: req.seed })),
        ("mis", _, Some(_)) => Err(bad("greedy, luby")),
        ("wcc", Engine::Stream, None | Some("union-find")) => Ok(Method::UnionFind),
        ("wcc", Engine::Stream, Some("label-propagation")) => Ok(Method::LabelPropagation),
        ("wcc", Engine::Stream, Some(_)) => Err(bad("union-find, label-propagation")),
        (_, _, None) => Ok(Method::Default),
        ("wcc", _, Some(m)) => Err(RunError::Setting(format!(
            "wcc --method {m} is for the stream engine (--engine stream); the {} engine has one method",
            if engine == Engine::Memory {
                "memory"
            } else {
                "selective"
            }
        ))),
        (_, _, Some(m)) => Err(RunError::Setting(format!("{alg} has no --method (got {m:?})"))),
    }
}

/// Runs `req` on `graph`.
pub fn run(graph: &GraphDir, req: &RunRequest) -> Result<RunOutput, RunError> {
    if !ALGORITHMS.iter().any(|(n, _)| *n == req.algorithm) {
        return Err(RunError::UnknownAlgorithm(req.algorithm.clone()));
    }
    if !ENGINES.contains(&req.engine.as_str()) {
        return Err(RunError::UnknownEngine(req.engine.clone()));
    }
    if req.threads == Some(0) {
        return Err(RunError::Setting("--threads must be at least 1".into()));
    }
    if !(req.tolerance > 0.0 && req.tolerance.is_finite()) {
        return Err(RunError::Setting(format!(
            "tolerance must be a positive number, got {}",
            req.tolerance
        )));
    }
    if req.mrt == 0 {
        return Err(RunError::Setting("--mrt must be at least 1".into()));
    }
    // Checked for every engine, so a bad I/O setting is an error even where it would be unused.
    IoConfig {
        compute_threads: 1,
        ..req.io.clone()
    }
    .validate()
    .map_err(|e| RunError::Setting(e.to_string()))?;
    let alg = req.algorithm.as_str();
    let csr = csr_bytes(graph, alg);
    let size = |b: u64| match b {
        b if b >= 1 << 30 => format!("{:.1} GiB", b as f64 / (1u64 << 30) as f64),
        b if b >= 1 << 20 => format!("{:.1} MiB", b as f64 / (1u64 << 20) as f64),
        b => format!("{:.1} KiB", b as f64 / 1024.0),
    };
    let (engine, note) = match req.engine.as_str() {
        "memory" => (Engine::Memory, None),
        "selective" if matches!(alg, "scc" | "mis") => {
            let others = if alg == "mis" { "memory or stream" } else { "memory" };
            return Err(RunError::Setting(format!(
                "{alg} has no selective variant; use --engine {others}"
            )));
        }
        "selective" => (Engine::Selective, None),
        "stream" if matches!(alg, "scc" | "kcore" | "msbfs" | "apsp" | "sp" | "diameter" | "bc") => {
            return Err(RunError::Setting(format!(
                "{alg} has no stream variant; use --engine memory or selective"
            )))
        }
        "stream" => (Engine::Stream, None),
        _ if alg == "scc" => (
            Engine::Memory,
            Some(format!(
                "engine auto: memory (scc runs in memory only; its CSR is {}, the budget {})",
                size(csr),
                size(req.memory)
            )),
        ),
        _ => {
            let (e, name, fit) = match (csr <= req.memory, alg) {
                (true, _) => (Engine::Memory, "memory", "fits in"),
                (false, "mis") => (Engine::Stream, "stream", "exceeds"),
                (false, _) => (Engine::Selective, "selective", "exceeds"),
            };
            let note = format!(
                "engine auto: {name} (the {} CSR {alg} needs {fit} the {} budget)",
                size(csr),
                size(req.memory)
            );
            (e, Some(note))
        }
    };
    let mut pool = rayon::ThreadPoolBuilder::new();
    if let Some(t) = req.threads {
        pool = pool.num_threads(t);
    }
    let pool = pool
        .build()
        .map_err(|e| RunError::Setting(format!("cannot start {:?} threads: {e}", req.threads)))?;
    let threads = pool.current_num_threads();
    let method = method(req, engine)?;
    let mut out = pool.install(|| run_on(graph, req, engine, method, threads))?;
    if let Some(note) = note {
        out.summary = format!("{}\n{note}", out.summary);
        out.stats.settings.insert("engine_choice".into(), json!(note));
    }
    Ok(out)
}

/// The static cache `req` asks for: selection `basc` (or the loaded one's), preloaded when
/// `basc_loaded` is given.
fn basc_options(req: &RunRequest) -> Option<BascOptions> {
    let layout = match (&req.basc, &req.basc_loaded) {
        (Some(name), _) if name.starts_with("basc-") => name.clone(),
        (Some(name), _) => basc_layout_name(name),
        (None, Some(loaded)) => loaded.layout().to_string(),
        (None, None) => return None,
    };
    Some(BascOptions {
        layout,
        fraction: req.basc_fraction,
        preloaded: req.basc_loaded.clone(),
    })
}

/// Loads the static cache `req` asks for (`basc`, `basc_fraction` of `memory`, read with `io`)
/// once, for runs that pass it as [`RunRequest::basc_loaded`]: they skip the loading, and report
/// `basc_preloaded` in their settings.
pub fn load_static_cache(graph: &GraphDir, req: &RunRequest) -> Result<LoadedStatic, RunError> {
    let Some(basc) = basc_options(req) else {
        return Err(RunError::Setting(
            "loading a static cache needs a selection (basc)".into(),
        ));
    };
    let opts = SelectiveOptions {
        io: IoConfig {
            compute_threads: req.threads.unwrap_or_else(rayon::current_num_threads),
            ..req.io.clone()
        },
        memory: req.memory,
        retain_lists: false,
        basc: Some(basc),
        index: req.index.as_ref().map(|i| i.offsets.clone()),
        ..SelectiveOptions::default()
    };
    let g = SelectiveGraph::open(graph, &opts)?;
    Ok(g.loaded_static().expect("a static cache was asked for"))
}

/// A graph's vertex index — original IDs and offsets — loaded once for many runs
/// ([`RunRequest::index`]): each selective run of a session skips reading `16 n` bytes or more
/// from disk (0.13 s of a 0.8 s bfs on Kronecker 24), as an engine that keeps a graph open does;
/// memory runs take the IDs (they load their CSR, offsets included). On a reordered graph it
/// also keeps the IDs' ranking, which puts each run's results in ID order. Cloning shares it.
#[derive(Clone)]
pub struct LoadedIndex {
    ids: Arc<Vec<u64>>,
    /// How results go to ascending ID order, when the IDs do not ascend (a reordered graph):
    /// ranked once here rather than by every run.
    ranking: Option<Arc<IdRanking>>,
    offsets: OffsetsIndex,
    /// The manifest's name and checksum of each file it was read from.
    files: Vec<(String, String)>,
}

impl LoadedIndex {
    /// Bytes held.
    pub fn bytes(&self) -> u64 {
        8 * self.ids.len() as u64 + self.offsets.bytes() + self.ranking.as_ref().map_or(0, |r| r.bytes())
    }
}

impl std::fmt::Debug for LoadedIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoadedIndex")
            .field("vertices", &self.ids.len())
            .field("offsets", &self.offsets)
            .finish()
    }
}

/// Loads `graph`'s index (its original IDs and the offsets of every direction it stores) for
/// runs that pass it as [`RunRequest::index`]: they report `index_preloaded` in their settings.
pub fn load_index(graph: &GraphDir) -> Result<LoadedIndex, RunError> {
    let ids = graph.original_ids()?;
    Ok(LoadedIndex {
        ranking: RunRanking::new(graph, &ids, None).get(),
        ids: Arc::new(ids),
        offsets: OffsetsIndex::load(graph)?,
        files: index_files(graph),
    })
}

/// The manifest's name and checksum of each index file of `graph`: what a [`LoadedIndex`] must
/// have been read from to serve a run on it.
fn index_files(graph: &GraphDir) -> Vec<(String, String)> {
    let files = &graph.manifest().files;
    [IDS, OUT_IDX, IN_IDX]
        .into_iter()
        .filter_map(|name| files.get(name).map(|f| (name.to_string(), f.xxh3.clone())))
        .collect()
}

/// Whether the memory engine loads the in-edges for `alg`.
fn memory_needs_in(alg: &str) -> bool {
    matches!(alg, "bfs" | "sp" | "diameter" | "scc" | "pagerank" | "kcore" | "spmv")
}

/// Whether the selective engine opens the in-edges for `alg`.
fn selective_needs_in(alg: &str) -> bool {
    matches!(alg, "bfs" | "sp" | "diameter" | "wcc" | "pagerank" | "kcore" | "spmv")
}

/// Whether `alg` reads the weights (on any engine).
fn needs_weights(alg: &str) -> bool {
    matches!(alg, "sssp" | "spmv")
}

/// Bytes of the CSR the memory engine would load for `alg`.
fn csr_bytes(graph: &GraphDir, alg: &str) -> u64 {
    let m = graph.manifest();
    let one = (m.num_vertices + 1) * 8 + m.num_arcs * 4 * if needs_weights(alg) && m.weighted { 2 } else { 1 };
    one * if m.directed && memory_needs_in(alg) { 2 } else { 1 }
}

/// What an algorithm returned, on either engine.
enum Answer {
    Bfs(Bfs),
    Sssp(Sssp),
    Components(Components),
    PageRank(PageRankResult),
    KCore(KCore),
    MultiBfs(MultiBfs),
    Apsp(Apsp),
    Spmv(Spmv),
    Mis(Mis),
    Diameter(Diameter),
    Betweenness(Betweenness),
}

/// Inputs resolved from the request: internal source(s) and `x`.
struct Inputs {
    source: u32,
    sources: Vec<u32>,
    x: Vec<f64>,
}

/// bc's sources and scaling from the request: NetworkX's defaults (normalized; sampled when
/// `--samples` is given).
fn bc_options(req: &RunRequest, inputs: &Inputs) -> BcOptions {
    BcOptions {
        sources: inputs.sources.clone(),
        sampled: req.samples.is_some(),
        normalized: true,
    }
}

/// The ranking of a run's IDs, computed on first use: only sampled sources and rows put in ID
/// order need it, and IDs that ascend need none.
struct RunRanking<'a> {
    ids: &'a [u64],
    ascending: bool,
    ranking: OnceCell<Arc<IdRanking>>,
}

impl<'a> RunRanking<'a> {
    /// The ranking of `graph`'s IDs `ids`, or the one a loaded index kept.
    fn new(graph: &GraphDir, ids: &'a [u64], kept: Option<Arc<IdRanking>>) -> Self {
        RunRanking {
            ids,
            ascending: graph.manifest().ids_ascending(),
            ranking: kept.map_or_else(OnceCell::new, OnceCell::from),
        }
    }

    /// The ranking, `None` when the IDs ascend.
    fn get(&self) -> Option<Arc<IdRanking>> {
        (!self.ascending).then(|| Arc::clone(self.ranking.get_or_init(|| Arc::new(IdRanking::new(self.ids)))))
    }
}

/// The run's inputs in internal IDs (`ids` maps internal to original IDs).
fn resolve(req: &RunRequest, ids: &[u64], ranking: &RunRanking) -> Result<Inputs, RunError> {
    let n = ids.len();
    let ascending = ranking.ascending;
    let internal = |s: u64| {
        let found = match ascending {
            true => ids.binary_search(&s).ok(),
            false => ids.iter().position(|&x| x == s),
        };
        found.map(|i| i as u32).ok_or(RunError::NoSuchVertex(s))
    };
    let alg = req.algorithm.as_str();
    let source = match (alg, req.source) {
        // Found by the engine in the offsets it loads anyway (see `max_degree_source`).
        ("bfs" | "sssp" | "sp" | "diameter", Source::MaxDegree) => MAX_DEGREE_PENDING,
        ("bfs" | "sssp" | "sp" | "diameter", Source::Id(s)) => internal(s)?,
        ("bfs" | "sssp" | "sp" | "diameter", Source::Smallest) if !ascending => {
            (0..n).min_by_key(|&i| ids[i]).map_or(0, |i| i as u32)
        }
        _ => 0,
    };
    let sources = match (alg, &req.sources) {
        ("msbfs", Sources::Ids(list)) => {
            if list.is_empty() || list.len() > MAX_SOURCES {
                return Err(RunError::Setting(format!(
                    "msbfs takes 1 to {MAX_SOURCES} sources, got {}",
                    list.len()
                )));
            }
            list.iter().map(|&s| internal(s)).collect::<Result<_, _>>()?
        }
        ("msbfs", &Sources::Sample(k)) => {
            if k == 0 || k > MAX_SOURCES {
                return Err(RunError::Setting(format!(
                    "msbfs samples 1 to {MAX_SOURCES} sources, got {k}"
                )));
            }
            sample(ids, ranking.get().as_deref(), k.min(n), req.seed)
        }
        ("apsp", Sources::Ids(list)) if list.is_empty() => {
            return Err(RunError::Setting("apsp takes at least one source".into()))
        }
        ("apsp", Sources::Ids(list)) => list.iter().map(|&s| internal(s)).collect::<Result<_, _>>()?,
        ("apsp", &Sources::Sample(k)) => {
            if k == 0 || k > n {
                return Err(RunError::Setting(format!(
                    "apsp samples 1 to {n} sources (the graph's vertices), got {k}"
                )));
            }
            sample(ids, ranking.get().as_deref(), k, req.seed)
        }
        ("bc", _) => match req.samples {
            Some(0) => return Err(RunError::Setting("bc --samples must be at least 1".into())),
            Some(k) => sample(ids, ranking.get().as_deref(), k.min(n), req.seed),
            None => (0..n as u32).collect(),
        },
        _ => Vec::new(),
    };
    let x = match (alg, &req.x) {
        ("spmv", Some(x)) if x.len() != n => {
            return Err(RunError::Setting(format!(
                "x has {} values, the graph has {n} vertices",
                x.len()
            )))
        }
        ("spmv", Some(x)) => x.clone(),
        ("spmv", None) => vec![1.0; n],
        _ => Vec::new(),
    };
    Ok(Inputs { source, sources, x })
}

/// `k` distinct vertices chosen uniformly with `seed`, by ascending original ID. What is drawn
/// are ranks among the original IDs, so that a reordered copy of a graph samples the same
/// vertices and gives the same answers (`ids` maps internal to original IDs, ranked by `ranking`;
/// `None` when they already ascend, as on a graph in its original ordering).
fn sample(ids: &[u64], ranking: Option<&IdRanking>, k: usize, seed: u64) -> Vec<u32> {
    let ranks = sample_ranks(ids.len(), k, seed);
    let Some(ranking) = ranking else {
        return ranks;
    };
    let rows: Vec<u32> = (0..ids.len() as u32).collect();
    let by_id = ranking.order(ids).apply(&rows);
    ranks.iter().map(|&r| by_id[r as usize]).collect()
}

/// `k` distinct ranks of `0..n`, ascending, chosen uniformly with `seed` (Floyd's algorithm
/// over a splitmix64 stream).
fn sample_ranks(n: usize, k: usize, seed: u64) -> Vec<u32> {
    let mut state = seed;
    let mut next = || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let mut chosen = std::collections::BTreeSet::new();
    for j in n - k..n {
        let t = (next() % (j as u64 + 1)) as usize;
        if !chosen.insert(t as u32) {
            chosen.insert(j as u32);
        }
    }
    chosen.into_iter().collect()
}

fn run_on(
    graph: &GraphDir,
    req: &RunRequest,
    engine: Engine,
    method: Method,
    threads: usize,
) -> Result<RunOutput, RunError> {
    let start = Instant::now();
    let ids = match &req.index {
        Some(index) if index.files != index_files(graph) => {
            return Err(RunError::Setting(format!(
                "the loaded index is not that of {}: load it from this graph",
                graph.path().display()
            )))
        }
        Some(index) => Arc::clone(&index.ids),
        None => Arc::new(graph.original_ids()?),
    };
    let ranking = RunRanking::new(graph, &ids, req.index.as_ref().and_then(|i| i.ranking.clone()));
    let mut inputs = resolve(req, &ids, &ranking)?;
    let alg = req.algorithm.as_str();
    let mut stats = RunStats {
        algorithm: alg.to_string(),
        ..Default::default()
    };
    stats.settings.insert("threads".into(), json!(threads));
    stats.settings.insert("memory".into(), json!(req.memory));
    stats.settings.insert("engine_requested".into(), json!(req.engine));
    let pr = || {
        let pr = PageRank::new()
            .tolerance(req.tolerance)
            .max_iterations(req.max_iterations);
        pr.fixed_iterations(req.iterations)
    };
    let (answer, compute) = match engine {
        Engine::Memory => {
            stats.engine = "memory".into();
            let g = MemoryGraph::load(graph, memory_needs_in(alg), needs_weights(alg))?;
            max_degree_source(&mut inputs, || Ok(max_degree_vertex(&g.out().offsets, &ids)))?;
            stats.load_seconds = start.elapsed().as_secs_f64();
            stats.peak_engine_memory = g.memory_bytes();
            stats.bytes_read = g.memory_bytes();
            stats.io_utility = 1.0;
            let compute = Instant::now();
            let answer = match alg {
                "bfs" => Answer::Bfs(bfs(&g, inputs.source, req.parents)?),
                "sssp" => Answer::Sssp(sssp(&g, inputs.source)?),
                "wcc" => Answer::Components(wcc(&g)),
                "scc" => Answer::Components(scc(&g)),
                "pagerank" => Answer::PageRank(pr().run(&g)?),
                "kcore" => Answer::KCore(kcore(&g)),
                "msbfs" => Answer::MultiBfs(msbfs(&g, &inputs.sources, false)?),
                "apsp" => Answer::Apsp(apsp_in_batches(&inputs.sources, |s| msbfs(&g, s, true))?),
                "spmv" => Answer::Spmv(spmv(&g, &inputs.x)?),
                "sp" => Answer::Bfs(bfs(&g, inputs.source, false)?),
                "diameter" => Answer::Diameter(diameter(&g, inputs.source, req.rounds, Some(&ids))?),
                "bc" => Answer::Betweenness(betweenness(&g, &bc_options(req, &inputs))?),
                "mis" => match method {
                    Method::Mis(m) => Answer::Mis(mis(&g, m)),
                    _ => unreachable!("mis always has a method"),
                },
                _ => unreachable!("checked against ALGORITHMS"),
            };
            if matches!(alg, "wcc" | "scc" | "kcore") {
                stats.edges_processed = g.out().num_arcs() as u64;
            }
            (answer, compute)
        }
        Engine::Selective => {
            stats.engine = "selective".into();
            let opts = SelectiveOptions {
                io: IoConfig {
                    compute_threads: threads,
                    ..req.io.clone()
                },
                memory: req.memory,
                need_in: selective_needs_in(alg),
                need_weights: needs_weights(alg),
                assemble_lists: alg == "kcore",
                partitions: None,
                retain_lists: req.retain_lists,
                basc: basc_options(req),
                page_cache: req.page_cache.clone(),
                index: req.index.as_ref().map(|i| i.offsets.clone()),
            };
            let g = SelectiveGraph::open(graph, &opts)?;
            max_degree_source(&mut inputs, || Ok(max_degree_vertex(g.offsets(Direction::Out), &ids)))?;
            stats.load_seconds = start.elapsed().as_secs_f64();
            let compute = Instant::now();
            let answer = match alg {
                "bfs" => Answer::Bfs(selective::bfs(&g, inputs.source, req.parents)?),
                "sssp" => Answer::Sssp(selective::sssp(&g, inputs.source)?),
                "wcc" => Answer::Components(selective::wcc(&g)?),
                "pagerank" => Answer::PageRank(selective::pagerank(&g, &pr())?),
                "kcore" => Answer::KCore(selective::kcore(&g)?),
                "msbfs" => Answer::MultiBfs(selective::msbfs(&g, &inputs.sources, false)?),
                "apsp" => Answer::Apsp(apsp_in_batches(&inputs.sources, |s| selective::msbfs(&g, s, true))?),
                "spmv" => Answer::Spmv(selective::spmv(&g, &inputs.x)?),
                "sp" => Answer::Bfs(selective::bfs(&g, inputs.source, false)?),
                "diameter" => Answer::Diameter(selective::diameter(&g, inputs.source, req.rounds, Some(&ids))?),
                "bc" => Answer::Betweenness(selective::betweenness(&g, &bc_options(req, &inputs))?),
                _ => unreachable!("scc and mis are refused above"),
            };
            g.record(&mut stats);
            stats.edges_processed = g.edges_delivered();
            (answer, compute)
        }
        Engine::Stream => {
            stats.engine = "stream".into();
            max_degree_source(&mut inputs, || {
                Ok(max_degree_vertex(&graph.load_offsets(Direction::Out)?, &ids))
            })?;
            let g = stream::open(graph, req, method)?;
            stats.load_seconds = start.elapsed().as_secs_f64();
            let compute = Instant::now();
            let answer = stream::run(&g, req, method, &inputs, &pr())?;
            g.record(&mut stats);
            stats.edges_processed = g.edges_processed();
            (answer, compute)
        }
    };
    if let Some(m) = &req.method {
        stats.settings.insert("method".into(), json!(m));
    }
    let (values, summary) = present(answer, &ids, req, &inputs, &mut stats);
    // A reordered graph's internal order is not its original-ID order: rows go out by ID.
    let by_id = req.in_id_order.then(|| ranking.get()).flatten();
    let (values, ids) = match by_id {
        None => (values, Arc::unwrap_or_clone(ids)),
        Some(ranking) => ascending_by_id(values, &ids, &ranking),
    };
    if req.index.is_some() {
        stats.settings.insert("index_preloaded".into(), json!(true));
    }
    stats.compute_seconds = compute.elapsed().as_secs_f64();
    stats.wall_seconds = start.elapsed().as_secs_f64();
    Ok(RunOutput {
        values,
        vertex_ids: ids,
        stats,
        summary,
    })
}

/// Turns an answer into per-vertex values in original IDs and a summary; records iterations
/// and the algorithm's settings.
fn present(answer: Answer, ids: &[u64], req: &RunRequest, inputs: &Inputs, stats: &mut RunStats) -> (Values, String) {
    let n = ids.len();
    let settings = &mut stats.settings;
    match answer {
        Answer::Bfs(r) => {
            settings.insert("source".into(), json!(ids[inputs.source as usize]));
            stats.iterations = r.iterations as u64;
            stats.edges_processed = r.edges_processed;
            let reached = r.levels.par_iter().filter(|&&l| l >= 0).count();
            let depth = r.levels.par_iter().copied().max().unwrap_or(-1);
            let summary = format!("reached {reached} of {n} vertices, max depth {depth}");
            let values = match r.parents {
                Some(p) if req.parents => {
                    settings.insert("parents".into(), json!(true));
                    if ids.iter().max().is_some_and(|&max| max > i64::MAX as u64) {
                        // Original IDs beyond i64: parents are unsigned, u64::MAX marks unreached.
                        Values::Unsigned(
                            p.iter()
                                .map(|&x| if x < 0 { u64::MAX } else { ids[x as usize] })
                                .collect(),
                        )
                    } else {
                        Values::Signed(
                            p.iter()
                                .map(|&x| if x < 0 { -1 } else { ids[x as usize] as i64 })
                                .collect(),
                        )
                    }
                }
                _ => Values::Signed(r.levels),
            };
            (values, summary)
        }
        Answer::Sssp(r) => {
            settings.insert("source".into(), json!(ids[inputs.source as usize]));
            stats.iterations = r.iterations as u64;
            stats.edges_processed = r.edges_processed;
            let finite: Vec<f64> = r.dist.iter().copied().filter(|d| d.is_finite()).collect();
            let max = finite.iter().copied().fold(0.0, f64::max);
            let summary = format!("reached {} of {n} vertices, max distance {max}", finite.len());
            (Values::Float(r.dist), summary)
        }
        Answer::Components(c) => {
            let labels = smallest_original_labels(&c, ids);
            let largest = c.largest().map_or(0, |(_, size)| size);
            let summary = format!("{} components, largest has {largest} vertices", c.count());
            stats.iterations = c.iterations as u64;
            (Values::Unsigned(labels), summary)
        }
        Answer::PageRank(r) => {
            if let Some(k) = req.iterations {
                settings.insert("iterations".into(), json!(k));
            } else {
                settings.insert("tolerance".into(), json!(req.tolerance));
            }
            stats.iterations = r.iterations as u64;
            stats.edges_processed = r.edges_processed;
            let top: Vec<String> = highest_ranks(&r.ranks, 5)
                .into_iter()
                .map(|v| format!("{} {:.6e}", ids[v], r.ranks[v]))
                .collect();
            let conv = if req.iterations.is_some() || r.converged {
                ""
            } else {
                " (NOT converged)"
            };
            let summary = format!("{} iterations{conv}; top: {}", r.iterations, top.join(", "));
            (Values::Float(r.ranks), summary)
        }
        Answer::KCore(k) => {
            let summary = format!("max core {}", k.max_core);
            (Values::Signed(k.core.iter().map(|&c| i64::from(c)).collect()), summary)
        }
        Answer::MultiBfs(r) => {
            let pairs: u64 = r.reached.iter().map(|&x| u64::from(x)).sum();
            let depth = r.max.iter().copied().max().unwrap_or(0);
            let sources = MultiSource {
                sources: &r.sources,
                iterations: r.iterations,
                edges_processed: r.edges_processed,
                pairs,
                depth,
            };
            let summary = sources.record(ids, req, stats);
            (Values::Signed(r.values()), summary)
        }
        Answer::Apsp(r) => {
            let reached = r.hops.iter().filter(|&&h| h != UNREACHED);
            let (pairs, depth) = reached.fold((0u64, 0u32), |(c, m), &h| (c + 1, m.max(h)));
            let sources = MultiSource {
                sources: &r.sources,
                iterations: r.iterations,
                edges_processed: r.edges_processed,
                pairs,
                depth,
            };
            let summary = sources.record(ids, req, stats);
            let sources = r.sources.len();
            (Values::Distances { sources, hops: r.hops }, summary)
        }
        Answer::Diameter(d) => {
            settings.insert("source".into(), json!(ids[inputs.source as usize]));
            settings.insert("rounds".into(), json!(req.rounds));
            settings.insert("bound".into(), json!(d.bound));
            settings.insert("from".into(), json!(ids[d.from as usize]));
            settings.insert("to".into(), json!(ids[d.to as usize]));
            stats.iterations = d.sweeps as u64;
            let summary = format!(
                "diameter at least {} (the eccentricity of vertex {}, reaching {} at that distance) after {} sweeps",
                d.bound, ids[d.from as usize], ids[d.to as usize], d.sweeps
            );
            (Values::Signed(d.levels), summary)
        }
        Answer::Betweenness(b) => {
            settings.insert("sources".into(), json!(b.sources));
            settings.insert("batch".into(), json!(b.batch));
            settings.insert("sampled".into(), json!(req.samples.is_some()));
            if req.samples.is_some() {
                settings.insert("seed".into(), json!(req.seed));
            }
            stats.iterations = b.iterations as u64;
            let top = b
                .values
                .iter()
                .enumerate()
                .max_by(|x, y| x.1.total_cmp(y.1).then(ids[y.0].cmp(&ids[x.0])))
                .map_or((0, 0.0), |(v, &x)| (ids[v], x));
            let summary = format!(
                "betweenness from {} sources ({}): largest {:.6} at vertex {}",
                b.sources,
                if req.samples.is_some() { "sampled" } else { "exact" },
                top.1,
                top.0
            );
            (Values::Float(b.values), summary)
        }
        Answer::Mis(r) => {
            if let Some("luby") = req.method.as_deref() {
                settings.insert("seed".into(), json!(req.seed));
            }
            stats.iterations = r.iterations as u64;
            stats.edges_processed = r.edges_processed;
            let summary = format!("independent set of {} of {n} vertices", r.size());
            (
                Values::Signed(r.in_set.iter().map(|&b| i64::from(b)).collect()),
                summary,
            )
        }
        Answer::Spmv(r) => {
            settings.insert("x".into(), json!(if req.x.is_some() { "given" } else { "ones" }));
            stats.iterations = 1;
            stats.edges_processed = r.edges_processed;
            let sum: f64 = r.y.iter().sum();
            let max = r.y.iter().fold(0.0f64, |m, y| m.max(y.abs()));
            let summary = format!("sum of y {sum:.6e}, max |y| {max:.6e}");
            (Values::Float(r.y), summary)
        }
    }
}

/// What msbfs and apsp report alike: their sources and traversal counts.
struct MultiSource<'a> {
    sources: &'a [u32],
    iterations: usize,
    edges_processed: u64,
    /// (source, vertex) pairs reached.
    pairs: u64,
    /// Largest finite distance.
    depth: u32,
}

impl MultiSource<'_> {
    /// Records the sources (original IDs), the seed and the counts in `stats`; returns the
    /// summary line.
    fn record(&self, ids: &[u64], req: &RunRequest, stats: &mut RunStats) -> String {
        let sources: Vec<u64> = self.sources.iter().map(|&s| ids[s as usize]).collect();
        stats.settings.insert("sources".into(), json!(sources));
        stats.settings.insert("seed".into(), json!(req.seed));
        stats.iterations = self.iterations as u64;
        stats.edges_processed = self.edges_processed;
        format!(
            "{} sources, {} (source, vertex) pairs reached of {}, max distance {}",
            sources.len(),
            self.pairs,
            sources.len() * ids.len(),
            self.depth
        )
    }
}

/// The `k` vertices of highest rank, highest first (ties by lower index), in one pass: a run's
/// summary must not sort every vertex (on 16 M vertices that took longer than a PageRank sweep).
fn highest_ranks(ranks: &[f64], k: usize) -> Vec<usize> {
    let before = |a: usize, b: usize| ranks[a].total_cmp(&ranks[b]).reverse().then(a.cmp(&b)).is_lt();
    let mut top: Vec<usize> = Vec::with_capacity(k + 1);
    for v in 0..ranks.len() {
        if top.len() == k && !top.last().is_some_and(|&last| before(v, last)) {
            continue;
        }
        let at = top.partition_point(|&u| before(u, v));
        top.insert(at, v);
        top.truncate(k);
    }
    top
}

/// Rows (`ids[i]`, `values[i]`) sorted by original ID, as `ranking` (that of `ids`) says.
fn ascending_by_id(values: Values, ids: &[u64], ranking: &IdRanking) -> (Values, Vec<u64>) {
    let order = ranking.order(ids);
    let values = match values {
        Values::Signed(v) => Values::Signed(order.apply(&v)),
        Values::Unsigned(v) => Values::Unsigned(order.apply(&v)),
        Values::Float(v) => Values::Float(order.apply(&v)),
        Values::Distances { sources, hops } => {
            // One allocation for the whole matrix: a row at a time through a growing vector
            // reallocated it, zeroing gigabytes of fresh pages on Kronecker 24.
            let mut sorted = vec![0; hops.len()];
            let row = ids.len().max(1);
            for (from, to) in hops.chunks(row).zip(sorted.chunks_mut(row)) {
                order.apply_into(from, to);
            }
            Values::Distances { sources, hops: sorted }
        }
    };
    (values, order.sorted_ids())
}

/// `Inputs::source` while `--source max-degree` waits for the engine's offsets.
const MAX_DEGREE_PENDING: u32 = u32::MAX;

/// Resolves a pending `--source max-degree` with `find()` (from the engine's own out-offsets,
/// so they are not loaded twice).
fn max_degree_source(inputs: &mut Inputs, find: impl FnOnce() -> Result<u32, RunError>) -> Result<(), RunError> {
    if inputs.source == MAX_DEGREE_PENDING {
        inputs.source = find()?;
    }
    Ok(())
}

/// The vertex with the most out-edges; among equals, the one with the smallest original ID
/// (`ids`), so that every ordering of a graph starts from the same vertex. In parallel, and
/// reading an ID only on a tie: one sequential pass over both arrays took 30 ms of each run's
/// start on Kronecker 24.
fn max_degree_vertex(offsets: &[u64], ids: &[u64]) -> u32 {
    let degree = |v: usize| offsets[v + 1] - offsets[v];
    let beats = |a: usize, b: usize| degree(a) > degree(b) || (degree(a) == degree(b) && ids[a] < ids[b]);
    (0..offsets.len().saturating_sub(1))
        .into_par_iter()
        .with_min_len(1 << 16)
        .reduce_with(|a, b| if beats(b, a) { b } else { a })
        .unwrap_or(0) as u32
}

/// Relabels components by the smallest original ID among their members.
fn smallest_original_labels(c: &Components, ids: &[u64]) -> Vec<u64> {
    let mut smallest = vec![u64::MAX; ids.len()];
    for (v, &l) in c.labels.iter().enumerate() {
        let s = &mut smallest[l as usize];
        *s = (*s).min(ids[v]);
    }
    c.labels.iter().map(|&l| smallest[l as usize]).collect()
}

#[cfg(test)]
mod tests {
    use super::{highest_ranks, max_degree_vertex};

    #[test]
    fn max_degree_vertex_breaks_ties_by_the_smallest_original_id() {
        // 200,000 vertices (parallel chunks), degrees i % 1000: the 200 of degree 999 tie, and
        // their IDs descend with the row, so the last of them has the smallest.
        let n = 200_000u64;
        let offsets: Vec<u64> = std::iter::once(0)
            .chain((0..n).scan(0, |end, v| {
                *end += v % 1000;
                Some(*end)
            }))
            .collect();
        let ids: Vec<u64> = (0..n).map(|v| 10 * (n - v)).collect();
        assert_eq!(max_degree_vertex(&offsets, &ids), 199_999);
        let ascending: Vec<u64> = (0..n).collect();
        assert_eq!(max_degree_vertex(&offsets, &ascending), 999);
        assert_eq!(max_degree_vertex(&[0], &[]), 0, "no vertex");
        assert_eq!(max_degree_vertex(&[0, 0, 0], &[5, 4]), 1, "all of degree 0");
    }

    #[test]
    fn highest_ranks_equal_a_full_sort() {
        // Many ties (values from a small set), so the order among equal ranks is checked too.
        let ranks: Vec<f64> = (0..1000u64).map(|i| ((i * 7919) % 13) as f64 / 13.0).collect();
        let mut order: Vec<usize> = (0..ranks.len()).collect();
        order.sort_by(|&a, &b| ranks[b].total_cmp(&ranks[a]).then(a.cmp(&b)));
        for k in [0, 1, 5, 77, 1000, 2000] {
            assert_eq!(highest_ranks(&ranks, k), order[..k.min(ranks.len())], "k = {k}");
        }
    }
}
