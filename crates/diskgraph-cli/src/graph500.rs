//! `diskgraph graph500`: the Graph500 benchmark (specification 3.0) on this engine, as the
//! command line and Python (`diskgraph.graph500`) run it.
//!
//! - **Kernel 1** (construction): a Kronecker graph of `2^scale` vertices and `edgefactor ·
//!   2^scale` edges, weights uniform in (0, 1], generated and imported into a graph directory,
//!   timed; or an existing undirected graph, taken as it is (no construction time).
//! - **Kernel 2**: breadth-first searches from `roots` search keys drawn with the seed among the
//!   vertices of degree ≥ 1, each timed (the engine's computing, the graph's index loaded
//!   beforehand as a long-running engine keeps it) and then validated by the bfs verifier,
//!   which checks Graph500's rules on the parent tree.
//! - **Kernel 3**: single-source shortest paths from the same keys, timed and validated the
//!   same way (the sssp verifier: no arc shortens a distance, every vertex on a tight arc back to
//!   the root).
//!
//! TEPS are input edges within the searched component over the search's time, as the
//! specification counts them: for a generated graph the input edge list's (duplicates and
//! self-loops included, tallied per vertex while it is generated), for a given graph its stored
//! edges. The statistics are the reference implementation's (quartiles as the mean of the two
//! middle order statistics, the TEPS' harmonic mean and its standard deviation).

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use diskgraph_algo::bfs::PARENTS;
use diskgraph_algo::options::SOURCE;
use diskgraph_algo::registry::{self, RunOutput, RunRequest};
use diskgraph_algo::{AlgoError, RowIds, Values};
use diskgraph_engine::engine_options::{ENGINE, MEMORY, THREADS};
use diskgraph_engine::options::Value;
use diskgraph_engine::Source;
use diskgraph_format::{Direction, GraphDir, DEGREE_PIECE};
use diskgraph_prep::generate::{generator, GeneratorSpec};
use diskgraph_prep::{EdgeSource, ImportOptions, InputError, InputInfo, NoProgress, RawEdge};
use rand::seq::index::sample;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

/// What to run.
#[derive(Clone, Debug)]
pub struct Options {
    /// Kernel 1: generate a Kronecker graph of this scale (else `graph` is an existing graph).
    pub scale: Option<u32>,
    /// Edges per vertex of the generated graph.
    pub edge_factor: u32,
    /// The graph: where the generated one goes (`None`: a temporary directory, removed at the
    /// end), or the existing one to search.
    pub graph: Option<PathBuf>,
    /// Replace an existing graph at `graph` when generating.
    pub force: bool,
    /// Seed of the generator and of the search keys.
    pub seed: u64,
    /// Search keys (Graph500: 64).
    pub roots: usize,
    /// The engines to run kernels 2 and 3 on, each in turn (`auto` or an engine's name).
    pub engines: Vec<String>,
    /// The memory budget of every run, and of the import.
    pub memory: u64,
    /// Worker threads (`None`: all cores).
    pub threads: Option<u64>,
    /// Whether kernel 3 (SSSP) runs after kernel 2 (BFS).
    pub sssp: bool,
    /// The stop request every search checks (Ctrl-C, KeyboardInterrupt).
    pub cancel: Option<diskgraph_engine::Cancel>,
    /// Changes each search's answer before it is validated: a test of validation, nothing
    /// else (`None` in every real run).
    pub tamper: Option<fn(&mut RunOutput)>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            scale: None,
            edge_factor: diskgraph_prep::generate::DEFAULT_EDGE_FACTOR,
            graph: None,
            force: false,
            seed: 1,
            roots: 64,
            engines: vec!["auto".into()],
            memory: diskgraph_io::DEFAULT_MEMORY,
            threads: None,
            sssp: true,
            cancel: None,
            tamper: None,
        }
    }
}

/// The reference implementation's statistics of a sample.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Statistics {
    /// Smallest.
    pub min: f64,
    /// First quartile.
    pub firstquartile: f64,
    /// Median.
    pub median: f64,
    /// Third quartile.
    pub thirdquartile: f64,
    /// Largest.
    pub max: f64,
    /// Mean.
    pub mean: f64,
    /// Sample standard deviation.
    pub stddev: f64,
}

impl Statistics {
    /// The statistics of `x` (not empty).
    fn of(x: &[f64]) -> Statistics {
        let mut s = x.to_vec();
        s.sort_by(f64::total_cmp);
        let n = s.len();
        let mean = s.iter().sum::<f64>() / n as f64;
        let var = s.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n.max(2) - 1) as f64;
        Statistics {
            min: s[0],
            firstquartile: (s[(n - 1) / 4] + s[n / 4]) / 2.0,
            median: (s[(n - 1) / 2] + s[n / 2]) / 2.0,
            thirdquartile: (s[n - 1 - (n - 1) / 4] + s[n - 1 - n / 4]) / 2.0,
            max: s[n - 1],
            mean,
            stddev: var.sqrt(),
        }
    }
}

/// One kernel's results over its searches.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct KernelReport {
    /// Seconds per search.
    pub time: Statistics,
    /// Input edges in each searched component.
    pub nedge: Statistics,
    /// Traversed edges per second, per search.
    pub teps: Statistics,
    /// The TEPS' harmonic mean (the benchmark's figure).
    pub harmonic_mean_teps: f64,
    /// The TEPS' harmonic standard deviation.
    pub harmonic_stddev_teps: f64,
    /// Searches validated (all of them, or the benchmark failed).
    pub validated: usize,
    /// Mean seconds of a validation.
    pub mean_validate_time: f64,
    /// The engine that ran the searches.
    pub engine: String,
}

/// The benchmark's results on one engine.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    /// log2 of the vertex count (rounded up for a given graph).
    pub scale: u32,
    /// Edges per vertex (input edges for a generated graph, stored for a given one).
    pub edgefactor: f64,
    /// Searches per kernel.
    pub nbfs: usize,
    /// Seconds to generate and import the graph (`None` for a given graph).
    pub construction_time: Option<f64>,
    /// The engine asked for.
    pub engine: String,
    /// The memory budget.
    pub memory: u64,
    /// The search keys (original IDs).
    pub roots: Vec<u64>,
    /// Kernel 2.
    pub bfs: KernelReport,
    /// Kernel 3 (`None` when it was not asked for).
    pub sssp: Option<KernelReport>,
}

impl Report {
    /// The report in the reference implementation's format (`key: value` lines).
    pub fn text(&self) -> String {
        let mut lines = vec![
            format!("SCALE: {}", self.scale),
            format!("edgefactor: {}", self.edgefactor),
            format!("NBFS: {}", self.nbfs),
            "num_mpi_processes: 1".to_string(),
            format!(
                "engine: {} ({} memory)",
                self.engine,
                diskgraph_engine::human_bytes(self.memory)
            ),
            match self.construction_time {
                Some(t) => format!("construction_time: {t:.9}"),
                None => "construction_time: nan".into(),
            },
        ];
        let kernels = std::iter::once(("bfs", &self.bfs)).chain(self.sssp.as_ref().map(|k| ("sssp", k)));
        for (name, k) in kernels {
            let stats = |what: &str, s: &Statistics| {
                [
                    ("min", s.min),
                    ("firstquartile", s.firstquartile),
                    ("median", s.median),
                    ("thirdquartile", s.thirdquartile),
                    ("max", s.max),
                    ("mean", s.mean),
                    ("stddev", s.stddev),
                ]
                .into_iter()
                .map(|(stat, v)| format!("{name}_{stat}_{what}: {v:.9e}"))
                .collect::<Vec<_>>()
            };
            lines.push(format!("{name}_engine: {}", k.engine));
            lines.extend(stats("time", &k.time));
            lines.extend(stats("nedge", &k.nedge));
            let teps: Vec<String> = stats("TEPS", &k.teps)
                .into_iter()
                .filter(|l| !l.contains("_mean_TEPS") && !l.contains("_stddev_TEPS"))
                .collect();
            lines.extend(teps);
            lines.push(format!("{name}_harmonic_mean_TEPS: {:.9e}", k.harmonic_mean_teps));
            lines.push(format!("{name}_harmonic_stddev_TEPS: {:.9e}", k.harmonic_stddev_teps));
            lines.push(format!("{name}_validated: {}", k.validated));
            lines.push(format!("{name}_mean_validate_time: {:.9e}", k.mean_validate_time));
        }
        lines.join("\n")
    }
}

/// A generated graph and its input edges per vertex.
struct Constructed {
    graph: GraphDir,
    seconds: f64,
    input: Degrees,
    input_edges: u64,
}

/// The degrees TEPS count.
enum Degrees {
    /// A generated graph's input edges per endpoint, by original ID (tallied while kernel 1
    /// generated them).
    Input(Vec<u32>),
    /// A given graph's stored lists, read from its index as they are needed: 4 bytes a vertex
    /// held would not fit beside a search of Kronecker 28 in 4 GiB.
    Stored,
}

impl Degrees {
    /// Bytes the benchmark holds for them on a graph of `n` vertices (a piece of the index at a
    /// time when stored).
    fn bytes(&self, n: u64) -> u64 {
        match self {
            Degrees::Input(d) => 4 * d.len() as u64,
            Degrees::Stored => 8 * DEGREE_PIECE.min(n + 1),
        }
    }
}

/// Runs the benchmark: kernel 1 once, kernels 2 and 3 on each engine of `opts`; `say` gets a
/// line per step. A search whose answer fails validation ends it with the verifier's error.
pub fn run(opts: &Options, say: &mut dyn FnMut(&str)) -> Result<Vec<Report>> {
    if opts.roots == 0 {
        return Err(AlgoError::InvalidSetting("--roots must be at least 1".into()).into());
    }
    for engine in &opts.engines {
        ENGINE.parse(engine).map_err(AlgoError::InvalidSetting)?;
    }
    MEMORY
        .check(&Value::Size(opts.memory))
        .map_err(AlgoError::InvalidSetting)?;
    if let Some(threads) = opts.threads {
        THREADS
            .check(&Value::Count(threads))
            .map_err(AlgoError::InvalidSetting)?;
    }
    let scratch;
    let (graph, construction, input, edges) = match opts.scale {
        Some(scale) => {
            let path = match &opts.graph {
                Some(path) => path.clone(),
                None => {
                    let here = std::env::current_dir().context("cannot find the current directory")?;
                    scratch = tempfile::Builder::new()
                        .prefix(".graph500-")
                        .tempdir_in(here)
                        .context("cannot make a temporary directory for the graph in the current directory")?;
                    scratch.path().join("graph")
                }
            };
            let c = construct(scale, opts, &path)?;
            say(&format!(
                "kernel 1: Kronecker scale {scale}, edge factor {}, into {}: {:.3} s",
                opts.edge_factor,
                path.display(),
                c.seconds
            ));
            (c.graph, Some(c.seconds), Some(c.input), c.input_edges)
        }
        None => {
            let Some(path) = &opts.graph else {
                bail!("give --scale S to generate a graph, or GRAPH to search an existing one")
            };
            let graph = GraphDir::open(path)?;
            let edges = graph.manifest().num_edges;
            (graph, None, None, edges)
        }
    };
    let m = graph.manifest();
    if m.directed {
        bail!(
            "{} is directed; Graph500 searches an undirected graph (import it with --undirected)",
            graph.path().display()
        );
    }
    let n = m.num_vertices;
    let scale = (n.max(1) as f64).log2().ceil() as u32;
    let roots = search_keys(&graph, opts.roots, opts.seed)?;
    // A given graph's input is its stored edges.
    let degree = input.unwrap_or(Degrees::Stored);
    // The index is loaded once for every search when it is small beside the budget; a larger
    // one would take from each search's budget more than loading it again costs.
    let index_bytes = 8 * (n + 1);
    let index = match index_bytes <= opts.memory / PRELOADED_INDEX_SHARE {
        true => Some(registry::load_index(&graph)?),
        false => None,
    };
    // Each search gets the budget less what the benchmark itself holds: the degrees and the
    // loaded index.
    let held = degree.bytes(n) + index.as_ref().map_or(0, |_| index_bytes);
    let search_memory = opts.memory.checked_sub(held).filter(|&m| m > 0).ok_or_else(|| {
        AlgoError::InvalidSetting(format!(
            "--memory {} does not hold the benchmark's own {} (the degrees of {n} vertices and the index)",
            diskgraph_engine::human_bytes(opts.memory),
            diskgraph_engine::human_bytes(held)
        ))
    })?;
    let mut reports = Vec::new();
    for engine in &opts.engines {
        let run = |algorithm: &str, kernel: &str, say: &mut dyn FnMut(&str)| {
            let search = Search {
                graph: &graph,
                index: index.as_ref(),
                memory: search_memory,
                engine,
                algorithm,
                kernel,
            };
            kernel_run(&search, opts, &roots, &degree, say)
        };
        let bfs = run("bfs", "bfs", say)?;
        let sssp = if opts.sssp {
            Some(run("sssp", "sssp", say)?)
        } else {
            None
        };
        reports.push(Report {
            scale,
            edgefactor: edges as f64 / n.max(1) as f64,
            nbfs: roots.len(),
            construction_time: construction,
            engine: engine.clone(),
            memory: opts.memory,
            roots: roots.iter().map(|&(id, _)| id).collect(),
            bfs,
            sssp,
        });
    }
    Ok(reports)
}

/// Kernel 1: the Kronecker graph of `scale` generated into `path` (weighted, undirected,
/// self-loops dropped and duplicates merged by the import), timed; and its input edges counted
/// per endpoint on the way.
fn construct(scale: u32, opts: &Options, path: &Path) -> Result<Constructed> {
    let spec = GeneratorSpec::Kronecker {
        scale,
        edge_factor: opts.edge_factor,
        seed: opts.seed,
        weighted: true,
    };
    let start = Instant::now();
    let mut source = Tallied {
        inner: generator(&spec).map_err(anyhow::Error::msg)?,
        degree: vec![0; 1usize << scale],
        edges: 0,
        rewound: false,
    };
    let import = ImportOptions {
        undirected: false,
        keep_self_loops: false,
        keep_duplicates: false,
        memory: opts.memory,
        force: opts.force,
        ..ImportOptions::default()
    };
    diskgraph_prep::import(&mut source, path, &import, &mut NoProgress)?;
    let seconds = start.elapsed().as_secs_f64();
    Ok(Constructed {
        graph: GraphDir::open(path)?,
        seconds,
        input: Degrees::Input(source.degree),
        input_edges: source.edges,
    })
}

/// A generator whose edges are counted per endpoint (by original ID) as they pass, on the
/// import's first read only.
struct Tallied {
    inner: Box<dyn EdgeSource>,
    degree: Vec<u32>,
    edges: u64,
    /// Whether the generator started over (its edges are then counted already).
    rewound: bool,
}

impl EdgeSource for Tallied {
    fn info(&self) -> &InputInfo {
        self.inner.info()
    }

    fn next_batch(&mut self, out: &mut Vec<RawEdge>) -> Result<bool, InputError> {
        let more = self.inner.next_batch(out)?;
        if self.rewound {
            return Ok(more);
        }
        for e in out.iter() {
            for end in [e.src, e.dst] {
                let d = &mut self.degree[end as usize];
                *d = d.saturating_add(1);
            }
        }
        self.edges += out.len() as u64;
        Ok(more)
    }

    fn progress(&self) -> (u64, Option<u64>) {
        self.inner.progress()
    }

    fn extra_vertices(&mut self) -> Vec<u64> {
        self.inner.extra_vertices()
    }

    fn rewindable(&self) -> bool {
        self.inner.rewindable()
    }

    fn rewind(&mut self) -> Result<(), InputError> {
        self.inner.rewind()?;
        self.rewound = true;
        Ok(())
    }
}

/// `count` search keys drawn with `seed` among the vertices with an edge other than a
/// self-loop (all of them when fewer): `(original ID, internal ID)`, in the order drawn. Two
/// passes over the index, holding only the keys drawn: one counts the vertices with an edge,
/// the other finds the ones at the drawn ranks among them.
fn search_keys(graph: &GraphDir, count: usize, seed: u64) -> Result<Vec<(u64, u32)>> {
    let mut candidates = 0usize;
    graph.for_each_degree(Direction::Out, |_, d| candidates += usize::from(d > 0))?;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let drawn = sample(&mut rng, candidates, candidates.min(count.saturating_mul(2))).into_vec();
    // (rank among the candidates, place in the draw), by rank.
    let mut wanted: Vec<(usize, usize)> = drawn.iter().enumerate().map(|(k, &rank)| (rank, k)).collect();
    wanted.sort_unstable();
    let mut found = vec![(0u32, 0u64); drawn.len()];
    let (mut rank, mut next) = (0usize, 0usize);
    graph.for_each_degree(Direction::Out, |v, d| {
        if d == 0 {
            return;
        }
        if wanted.get(next).is_some_and(|&(r, _)| r == rank) {
            found[wanted[next].1] = (v, d);
            next += 1;
        }
        rank += 1;
    })?;
    let loops_only = |v: u32, d: u64| -> Result<bool> {
        Ok(d == 1 && graph.manifest().num_self_loops > 0 && graph.read_list(Direction::Out, v)? == [v])
    };
    let mut keys = Vec::new();
    for (v, d) in found {
        if keys.len() < count && !loops_only(v, d)? {
            keys.push((graph.original_id(v)?, v));
        }
    }
    if keys.is_empty() {
        bail!("{} has no edge to search", graph.path().display());
    }
    Ok(keys)
}

/// The budget share under which the vertex index is loaded once for all searches (an
/// eighth).
const PRELOADED_INDEX_SHARE: u64 = 8;

/// What one kernel's searches run on.
struct Search<'a> {
    graph: &'a GraphDir,
    /// The index loaded for every search, when it is small.
    index: Option<&'a diskgraph_engine::GraphIndex>,
    /// Each search's budget.
    memory: u64,
    engine: &'a str,
    algorithm: &'a str,
    kernel: &'a str,
}

/// One kernel on one engine: a search from every key, timed, its component's input edges
/// counted, and validated.
fn kernel_run(
    search: &Search,
    opts: &Options,
    roots: &[(u64, u32)],
    degree: &Degrees,
    say: &mut dyn FnMut(&str),
) -> Result<KernelReport> {
    let Search {
        graph,
        index,
        memory,
        engine,
        algorithm,
        kernel,
    } = *search;
    let engine_value = ENGINE.parse(engine).map_err(AlgoError::InvalidSetting)?;
    let (mut times, mut nedges, mut teps, mut validate) = (Vec::new(), Vec::new(), Vec::new(), 0.0);
    let mut ran_on = String::new();
    for (i, &(root, _)) in roots.iter().enumerate() {
        let mut req = RunRequest::new(algorithm)
            .with(&ENGINE, engine_value.clone())
            .with(&MEMORY, Value::Size(memory))
            .with(&SOURCE, Value::Source(Source::Id(root)));
        if algorithm == "bfs" {
            req = req.with(&PARENTS, Value::Flag(true));
        }
        if let Some(t) = opts.threads {
            req = req.with(&THREADS, Value::Count(t));
        }
        req.index = index.cloned();
        req.in_id_order = false;
        req.cancel = opts.cancel.clone();
        let mut out = registry::run(graph, &req).with_context(|| format!("{kernel} from {root}"))?;
        let time = out.stats.compute_seconds;
        let nedge = component_edges(&out, degree, graph)?;
        if let Some(tamper) = opts.tamper {
            tamper(&mut out);
        }
        // The rows are in internal order (`in_id_order` false): their IDs go before the check.
        out.vertex_ids = RowIds::default();
        let started = Instant::now();
        registry::verify_internal(graph, &req, &out.values, &out.stats)
            .with_context(|| format!("{kernel} from {root} fails validation"))?;
        validate += started.elapsed().as_secs_f64();
        say(&format!(
            "{kernel} {}/{}: root {root}, {:.6} s, {nedge} edges, {:.3e} TEPS, validated",
            i + 1,
            roots.len(),
            time,
            nedge as f64 / time
        ));
        ran_on = out.stats.engine.clone();
        times.push(time);
        nedges.push(nedge as f64);
        teps.push(nedge as f64 / time);
    }
    let k = teps.len() as f64;
    let harmonic = k / teps.iter().map(|t| 1.0 / t).sum::<f64>();
    let spread = teps.iter().map(|t| (1.0 / t - 1.0 / harmonic).powi(2)).sum::<f64>();
    Ok(KernelReport {
        time: Statistics::of(&times),
        nedge: Statistics::of(&nedges),
        teps: Statistics::of(&teps),
        harmonic_mean_teps: harmonic,
        harmonic_stddev_teps: spread.sqrt() / (k - 1.0).max(1.0) * harmonic * harmonic,
        validated: teps.len(),
        mean_validate_time: validate / k,
        engine: ran_on,
    })
}

/// Input edges within the component a search reached: half the input degrees of the reached
/// vertices (each edge has both ends in it). The rows are in internal order.
fn component_edges(out: &RunOutput, degree: &Degrees, graph: &GraphDir) -> Result<u64> {
    let reached = |i: usize| match &out.values {
        Values::Signed(v) => v[i] >= 0,
        Values::Unsigned(v) => v[i] != u64::MAX,
        Values::Float(v) => v[i].is_finite(),
        Values::Distances { .. } => false,
    };
    let ends: u64 = match degree {
        Degrees::Input(by_id) => {
            let ids = &out.vertex_ids;
            (0..ids.len())
                .filter(|&i| reached(i))
                .map(|i| u64::from(by_id[ids.get(i) as usize]))
                .sum()
        }
        Degrees::Stored => {
            let mut ends = 0;
            graph.for_each_degree(Direction::Out, |v, d| {
                if reached(v as usize) {
                    ends += d;
                }
            })?;
            ends
        }
    };
    Ok(ends / 2)
}

/// Arguments of `diskgraph graph500`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The graph: with --scale, where the generated graph is kept (default: a temporary
    /// directory in the current one, removed at the end); without, an existing undirected graph
    /// to search.
    graph: Option<PathBuf>,
    /// Kernel 1: generate and import a Kronecker graph of 2^SCALE vertices, weights uniform in
    /// (0, 1] (timed as the construction).
    #[arg(long)]
    scale: Option<u32>,
    /// Edges per vertex of the generated graph.
    #[arg(long, default_value_t = diskgraph_prep::generate::DEFAULT_EDGE_FACTOR)]
    edgefactor: u32,
    /// Seed of the generator and of the search keys.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Search keys (NBFS): searches per kernel.
    #[arg(long, default_value_t = 64)]
    roots: usize,
    /// Engines, comma-separated: each runs kernels 2 and 3 in turn, on the same graph and keys.
    #[arg(long, default_value = "auto", value_delimiter = ',')]
    engine: Vec<String>,
    /// Memory budget of every search, and of the import.
    #[arg(long, default_value = "1GiB", value_parser = diskgraph_engine::parse_size)]
    memory: u64,
    /// Run kernel 2 (BFS) only, not kernel 3 (SSSP): for an unweighted graph, or to save time.
    #[arg(long)]
    bfs_only: bool,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<u64>,
    /// Replace an existing graph at GRAPH when generating.
    #[arg(long)]
    force: bool,
    /// Also write the results as JSON (a list, one object per engine).
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
}

/// `diskgraph graph500`: prints each engine's results in the reference implementation's
/// format, and the ratios of the first engine's harmonic mean TEPS to the others'.
pub fn command(a: Args) -> Result<()> {
    let mut paths = diskgraph_format::OutputPaths::new();
    match (&a.graph, a.scale) {
        (Some(graph), Some(_)) => {
            paths.writes("GRAPH", graph)?;
        }
        (Some(graph), None) => {
            paths.reads("GRAPH", graph);
        }
        (None, _) => {}
    }
    if let Some(path) = &a.json {
        crate::out_path::check_output(path, "--json", &["json"], true)?;
        paths.writes("--json", path)?;
    }
    let opts = Options {
        scale: a.scale,
        edge_factor: a.edgefactor,
        graph: a.graph,
        force: a.force,
        seed: a.seed,
        roots: a.roots,
        engines: a.engine,
        memory: a.memory,
        threads: a.threads,
        sssp: !a.bfs_only,
        cancel: Some(crate::interrupt::cancel()),
        tamper: None,
    };
    let reports = run(&opts, &mut |line| eprintln!("{line}"))?;
    for (i, r) in reports.iter().enumerate() {
        if i > 0 {
            println!();
        }
        println!("{}", r.text());
    }
    if let [first, others @ ..] = reports.as_slice() {
        for other in others {
            let sssp = first
                .sssp
                .as_ref()
                .zip(other.sssp.as_ref())
                .map(|(a, b)| ("sssp", a, b));
            for (kernel, a, b) in std::iter::once(("bfs", &first.bfs, &other.bfs)).chain(sssp) {
                println!(
                    "{kernel}_harmonic_mean_TEPS {} / {}: {:.3}",
                    a.engine,
                    b.engine,
                    a.harmonic_mean_teps / b.harmonic_mean_teps
                );
            }
        }
    }
    if let Some(path) = &a.json {
        let json = serde_json::to_string_pretty(&reports)?;
        crate::output::written_whole(path, |tmp| Ok(std::fs::write(tmp, json + "\n")?))?;
    }
    Ok(())
}
