//! Every (algorithm, engine) pair the descriptors declare stops when asked, within the stated
//! bound: a run whose stop request is set before it starts returns
//! [`EngineError::Cancelled`] at once, and a run asked to stop while it works returns it within
//! [`LATENCY`] of the request.
//!
//! One graph serves every pair: an R-MAT graph with a long path hanging off vertex 0 (so that
//! traversals from the smallest ID, label propagation and per-level engine rounds take tens of
//! thousands of steps), weighted, with the grid and shard layouts the stream and shard engines
//! read. Each algorithm runs with options that make it long where it has any (many PageRank
//! iterations, every source of betweenness, many walks, many sources). A run over before the
//! request arrived is run again with the request coming sooner, down to [`DELAYS`]' last.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use diskgraph_algo::registry::{self, RunRequest};
use diskgraph_algo::{AlgoError, Algorithm};
use diskgraph_engine::engine_options::{ENGINE, MEMORY, THREADS};
use diskgraph_engine::options::{Params, Value};
use diskgraph_engine::{Cancel, EngineError, EngineKind, Sources};
use diskgraph_format::GraphDir;
use diskgraph_prep::{
    import, partition, partition_shards, ImportOptions, InputFormat, InputInfo, NoProgress, PartitionOptions, RawEdge,
    ShardOptions, SortOrder,
};
use diskgraph_testkit::gen::{self, Weights};
use diskgraph_testkit::harness::pairs;
use diskgraph_testkit::{EdgeList, VecSource};

/// Vertices of the R-MAT part (2^SCALE).
const SCALE: u32 = 16;
/// Edges of the R-MAT part.
const RMAT_EDGES: usize = 1 << 20;
/// Vertices of the path hanging off vertex 0.
const PATH: usize = 1 << 17;

/// The bound the manual states ("well under 0.1 s") with slack for a loaded two-core machine:
/// the most a run may take to return once asked to stop.
const LATENCY: Duration = Duration::from_secs(2);

/// When the request comes after the run starts: the first that finds it still working counts.
const DELAYS: [Duration; 5] = [
    Duration::from_millis(100),
    Duration::from_millis(30),
    Duration::from_millis(10),
    Duration::from_millis(3),
    Duration::from_millis(1),
];

/// The budget of every run: the out-of-core engines size their buffers and loads from it.
const BUDGET: u64 = 64 << 20;

/// Imports the test graph into `dir` and publishes a source-sorted grid layout and a shards
/// layout.
fn build(dir: &Path) -> GraphDir {
    let n = (1usize << SCALE) + PATH;
    let mut el = gen::rmat(SCALE, RMAT_EDGES, false, 7);
    el.num_vertices = n;
    let first = 1u32 << SCALE;
    el.edges.push((0, first));
    el.edges.extend((first..n as u32 - 1).map(|v| (v, v + 1)));
    let el: EdgeList = gen::with_weights(el, Weights::Uniform(0.5, 1.0), 7);
    let info = InputInfo {
        format: InputFormat::Generated,
        directed: Some(false),
        weighted: true,
        declared_vertices: None,
        description: "cancellation test graph".into(),
    };
    let weights = el.weights.as_ref().expect("weighted");
    let edges = el
        .edges
        .iter()
        .zip(weights)
        .map(|(&(s, d), &w)| RawEdge {
            src: u64::from(s),
            dst: u64::from(d),
            weight: Some(w),
        })
        .collect();
    let mut src = VecSource::new(info, edges).with_vertices((0..n as u64).collect());
    let path = dir.join("g");
    let opts = ImportOptions {
        undirected: true,
        keep_self_loops: false,
        keep_duplicates: false,
        memory: 256 << 20,
        force: false,
        ..ImportOptions::default()
    };
    import(&mut src, &path, &opts, &mut NoProgress).expect("import");
    let grid = PartitionOptions {
        grid: Some(4),
        memory: 256 << 20,
        ..PartitionOptions::default()
    };
    partition(&path, SortOrder::Source, &grid, &mut NoProgress).expect("grid layout");
    let shards = ShardOptions {
        shards: Some(4),
        memory: BUDGET,
        ..ShardOptions::default()
    };
    partition_shards(&path, &shards, &mut NoProgress).expect("shards layout");
    GraphDir::open(&path).expect("open")
}

/// Options that make `alg` run long (each looked up by name in its declaration).
fn long_options(alg: &Algorithm, engine: EngineKind) -> Params {
    let params = Params::new()
        .with(&ENGINE, Value::Choice(engine.name()))
        .with(&MEMORY, Value::Size(BUDGET))
        .with(&THREADS, Value::Count(2));
    // Betweenness takes every vertex as a source by default: hours of work.
    let long = match alg.name {
        "pagerank" => Some(("iterations", Value::Count(1_000_000))),
        "randomwalk" => Some(("walks", Value::Count(u64::from(u32::MAX)))),
        "apsp" => Some(("sources", Value::Sources(Sources::Sample(48)))),
        "wcc" if engine == EngineKind::Stream => Some(("method", Value::Choice("label-propagation"))),
        "mis" if engine != EngineKind::Sync => Some(("method", Value::Choice("luby"))),
        _ => None,
    };
    match long {
        Some((name, value)) => {
            let spec = alg
                .option(name)
                .unwrap_or_else(|| panic!("{} has no option {name}", alg.name));
            params.with(spec, value)
        }
        None => params,
    }
}

/// How a run ended, and when.
struct Ended {
    result: Result<(), AlgoError>,
    /// When the run returned.
    at: Instant,
}

/// Runs `req` on `g`, its stop request set after `delay` (at once when `None`, before the run
/// starts); returns how it ended and when the request was set.
fn run_stopped(g: &GraphDir, req: &RunRequest, delay: Option<Duration>) -> (Ended, Instant) {
    let cancel = Cancel::new();
    let req = RunRequest {
        cancel: Some(cancel.clone()),
        ..req.clone()
    };
    let Some(delay) = delay else {
        cancel.cancel();
        let set = Instant::now();
        let result = registry::run(g, &req).map(|_| ());
        return (
            Ended {
                result,
                at: Instant::now(),
            },
            set,
        );
    };
    let done = AtomicBool::new(false);
    std::thread::scope(|s| {
        let setter = s.spawn(|| {
            let start = Instant::now();
            while start.elapsed() < delay && !done.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_micros(200));
            }
            cancel.cancel();
            Instant::now()
        });
        let result = registry::run(g, &req).map(|_| ());
        let at = Instant::now();
        done.store(true, Ordering::Relaxed);
        let set = setter.join().expect("the setter thread");
        (Ended { result, at }, set)
    })
}

/// Checks one pair: stopped before it starts, then while it works; returns the latency seen.
fn check(g: &GraphDir, alg: &Algorithm, engine: EngineKind) -> Result<Duration, String> {
    let req = RunRequest {
        params: long_options(alg, engine),
        ..RunRequest::new(alg.name)
    };
    let (ended, set) = run_stopped(g, &req, None);
    match ended.result {
        Err(AlgoError::Engine(EngineError::Cancelled)) if ended.at - set <= LATENCY => {}
        Err(AlgoError::Engine(EngineError::Cancelled)) => {
            return Err(format!(
                "stopped before it started, it took {:?} to return",
                ended.at - set
            ))
        }
        other => return Err(format!("stopped before it started, it ended with {other:?}")),
    }
    for delay in DELAYS {
        let (ended, set) = run_stopped(g, &req, Some(delay));
        match ended.result {
            Err(AlgoError::Engine(EngineError::Cancelled)) => {
                let latency = ended.at.saturating_duration_since(set);
                return match latency <= LATENCY {
                    true => Ok(latency),
                    false => Err(format!("asked to stop after {delay:?}, it took {latency:?} to return")),
                };
            }
            // Over before the request came (or in the instant after its last poll): sooner.
            Ok(()) => continue,
            Err(e) => return Err(format!("asked to stop after {delay:?}, it failed otherwise: {e}")),
        }
    }
    Err(format!("every run was over within {:?}", DELAYS[DELAYS.len() - 1]))
}

#[test]
fn every_pair_stops_within_the_bound() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let started = Instant::now();
    let g = build(dir.path());
    eprintln!(
        "graph of {} vertices, {} arcs built in {:.1?}",
        g.num_vertices(),
        g.manifest().num_arcs,
        started.elapsed()
    );
    let mut failures = Vec::new();
    let mut pairs_seen = 0;
    for (alg, engine) in pairs() {
        pairs_seen += 1;
        let t = Instant::now();
        match check(&g, alg, engine) {
            Ok(latency) => eprintln!(
                "{} on {engine}: stopped in {latency:.1?} ({:.1?} in all)",
                alg.name,
                t.elapsed()
            ),
            Err(why) => {
                eprintln!("{} on {engine}: {why}", alg.name);
                failures.push(format!("{} on {engine}: {why}", alg.name));
            }
        }
    }
    eprintln!("{pairs_seen} pairs in {:.1?}", started.elapsed());
    assert!(
        failures.is_empty(),
        "{} of {pairs_seen} pairs:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
