//! The algorithm registry: names to engine variants, the `auto` engine choice, and results in
//! original IDs.
//!
//! [`run`] is what the CLI and Python call: it opens what the algorithm needs, maps the source
//! from an original ID to an internal one, runs the variant on a rayon pool of the requested
//! size, and returns per-vertex values (indexed like the graph's ascending original IDs) plus
//! [`RunStats`]. Component labels become the smallest original ID in each component, so any
//! engine's output can be compared byte for byte.

use std::time::Instant;

use diskgraph_engine::{MemoryGraph, RunStats};
use diskgraph_format::{FormatError, GraphDir};
use serde_json::json;

use crate::{bfs, kcore, scc, sssp, wcc, AlgoError, Components, PageRank};

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
        "strongly connected components, labelled by their smallest vertex ID",
    ),
    (
        "pagerank",
        "PageRank with NetworkX semantics (alpha 0.85, to --tolerance or --iterations)",
    ),
    ("kcore", "core number of every vertex on the undirected simple view"),
];

/// Engines [`run`] knows.
pub const ENGINES: &[&str] = &["memory", "auto"];

/// Everything that can stop a run.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The graph directory is damaged.
    #[error(transparent)]
    Format(#[from] FormatError),
    /// The algorithm refused its input.
    #[error(transparent)]
    Algo(#[from] AlgoError),
    /// No algorithm of that name.
    #[error("unknown algorithm {0:?} (known: bfs, sssp, wcc, scc, pagerank, kcore)")]
    UnknownAlgorithm(String),
    /// No engine of that name.
    #[error("unknown engine {0:?} (known: memory, auto)")]
    UnknownEngine(String),
    /// The source vertex is not in the graph.
    #[error("source vertex {0} is not a vertex of the graph")]
    NoSuchVertex(u64),
    /// A setting is out of range.
    #[error("{0}")]
    Setting(String),
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
    /// Memory budget in bytes (out-of-core engines; recorded for `memory`).
    pub memory: u64,
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

/// Per-vertex result values, indexed like the graph's ascending original IDs.
#[derive(Clone, Debug, PartialEq)]
pub enum Values {
    /// Signed integers (BFS levels and parents with -1 for unreached, core numbers).
    Signed(Vec<i64>),
    /// Unsigned integers (component labels: original IDs).
    Unsigned(Vec<u64>),
    /// Floats (distances with `inf` unreached, ranks).
    Float(Vec<f64>),
}

impl Values {
    /// Number of values.
    pub fn len(&self) -> usize {
        match self {
            Values::Signed(v) => v.len(),
            Values::Unsigned(v) => v.len(),
            Values::Float(v) => v.len(),
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
    /// Original ID of each vertex, ascending (parallel to `values`).
    pub vertex_ids: Vec<u64>,
    /// What the run did and cost.
    pub stats: RunStats,
    /// A few lines describing the answer (reached vertices, component count, top ranks...).
    pub summary: String,
}

/// Runs `req` on `graph`.
pub fn run(graph: &GraphDir, req: &RunRequest) -> Result<RunOutput, RunError> {
    if !ALGORITHMS.iter().any(|(n, _)| *n == req.algorithm) {
        return Err(RunError::UnknownAlgorithm(req.algorithm.clone()));
    }
    let engine = match req.engine.as_str() {
        "memory" | "auto" => "memory",
        other => return Err(RunError::UnknownEngine(other.to_string())),
    };
    if req.threads == Some(0) {
        return Err(RunError::Setting("--threads must be at least 1".into()));
    }
    if !(req.tolerance > 0.0 && req.tolerance.is_finite()) {
        return Err(RunError::Setting(format!(
            "tolerance must be a positive number, got {}",
            req.tolerance
        )));
    }
    let mut pool = rayon::ThreadPoolBuilder::new();
    if let Some(t) = req.threads {
        pool = pool.num_threads(t);
    }
    let pool = pool
        .build()
        .map_err(|e| RunError::Setting(format!("cannot start {:?} threads: {e}", req.threads)))?;
    pool.install(|| run_memory(graph, req, engine, pool.current_num_threads()))
}

fn run_memory(graph: &GraphDir, req: &RunRequest, engine: &str, threads: usize) -> Result<RunOutput, RunError> {
    let start = Instant::now();
    let ids = graph.original_ids()?;
    let source = match req.source {
        Source::Smallest => 0,
        Source::MaxDegree => max_degree_vertex(&graph.load_offsets(diskgraph_format::Direction::Out)?),
        Source::Id(s) => ids.binary_search(&s).map_err(|_| RunError::NoSuchVertex(s))? as u32,
    };
    let alg = req.algorithm.as_str();
    let need_in = matches!(alg, "bfs" | "scc" | "pagerank" | "kcore");
    let need_weights = alg == "sssp";
    let g = MemoryGraph::load(graph, need_in, need_weights)?;
    let load_seconds = start.elapsed().as_secs_f64();
    let mut stats = RunStats {
        algorithm: alg.to_string(),
        engine: engine.to_string(),
        load_seconds,
        peak_engine_memory: g.memory_bytes(),
        bytes_read: g.memory_bytes(),
        io_utility: 1.0,
        ..Default::default()
    };
    stats.settings.insert("threads".into(), json!(threads));
    stats.settings.insert("memory".into(), json!(req.memory));
    stats.settings.insert("engine_requested".into(), json!(req.engine));
    let compute = Instant::now();
    let n = ids.len();
    let (values, summary) = match alg {
        "bfs" => {
            stats.settings.insert("source".into(), json!(ids[source as usize]));
            let r = bfs(&g, source, req.parents)?;
            stats.iterations = r.iterations as u64;
            stats.edges_processed = r.edges_processed;
            let reached = r.levels.iter().filter(|&&l| l >= 0).count();
            let depth = r.levels.iter().copied().max().unwrap_or(-1);
            let summary = format!("reached {reached} of {n} vertices, max depth {depth}");
            let values = match r.parents {
                Some(p) if req.parents => {
                    stats.settings.insert("parents".into(), json!(true));
                    if ids.last().is_some_and(|&max| max > i64::MAX as u64) {
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
        "sssp" => {
            stats.settings.insert("source".into(), json!(ids[source as usize]));
            let r = sssp(&g, source)?;
            stats.iterations = r.iterations as u64;
            stats.edges_processed = r.edges_processed;
            let finite: Vec<f64> = r.dist.iter().copied().filter(|d| d.is_finite()).collect();
            let max = finite.iter().copied().fold(0.0, f64::max);
            let summary = format!("reached {} of {n} vertices, max distance {max}", finite.len());
            (Values::Float(r.dist), summary)
        }
        "wcc" | "scc" => {
            let c = if alg == "wcc" { wcc(&g) } else { scc(&g) };
            stats.edges_processed = g.out().num_arcs() as u64;
            let labels = smallest_original_labels(&c, &ids);
            let largest = c.largest().map_or(0, |(_, size)| size);
            let summary = format!("{} components, largest has {largest} vertices", c.count());
            (Values::Unsigned(labels), summary)
        }
        "pagerank" => {
            let mut pr = PageRank::new()
                .tolerance(req.tolerance)
                .max_iterations(req.max_iterations);
            if let Some(k) = req.iterations {
                pr = pr.fixed_iterations(Some(k));
                stats.settings.insert("iterations".into(), json!(k));
            } else {
                stats.settings.insert("tolerance".into(), json!(req.tolerance));
            }
            let r = pr.run(&g)?;
            stats.iterations = r.iterations as u64;
            stats.edges_processed = r.edges_processed;
            let mut order: Vec<usize> = (0..n).collect();
            order.sort_by(|&a, &b| r.ranks[b].total_cmp(&r.ranks[a]).then(a.cmp(&b)));
            let top: Vec<String> = order
                .iter()
                .take(5)
                .map(|&v| format!("{} {:.6e}", ids[v], r.ranks[v]))
                .collect();
            let conv = if req.iterations.is_some() || r.converged {
                ""
            } else {
                " (NOT converged)"
            };
            let summary = format!("{} iterations{conv}; top: {}", r.iterations, top.join(", "));
            (Values::Float(r.ranks), summary)
        }
        "kcore" => {
            let k = kcore(&g);
            stats.edges_processed = g.out().num_arcs() as u64;
            let summary = format!("max core {}", k.max_core);
            (Values::Signed(k.core.iter().map(|&c| i64::from(c)).collect()), summary)
        }
        _ => unreachable!("checked against ALGORITHMS"),
    };
    let summary = match req.engine.as_str() {
        "auto" => format!("{summary}\n{}", auto_note(g.memory_bytes(), req.memory)),
        _ => summary,
    };
    stats.compute_seconds = compute.elapsed().as_secs_f64();
    stats.wall_seconds = start.elapsed().as_secs_f64();
    Ok(RunOutput {
        values,
        vertex_ids: ids,
        stats,
        summary,
    })
}

/// Says which engine `auto` chose and why.
fn auto_note(graph_bytes: u64, budget: u64) -> String {
    let mib = |b: u64| b as f64 / (1u64 << 20) as f64;
    let fit = if graph_bytes <= budget { "fits in" } else { "exceeds" };
    format!(
        "engine auto: memory (the only engine so far; the graph's {:.1} MiB {fit} the {:.1} MiB budget)",
        mib(graph_bytes),
        mib(budget)
    )
}

/// The vertex with the largest out-degree (the smallest such ID on ties).
fn max_degree_vertex(offsets: &[u64]) -> u32 {
    let degree = |v: usize| offsets[v + 1] - offsets[v];
    (0..offsets.len().saturating_sub(1)).fold(0, |best, v| if degree(v) > degree(best) { v } else { best }) as u32
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
