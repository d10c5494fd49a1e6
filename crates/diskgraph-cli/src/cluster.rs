//! `diskgraph run ALGO SPLIT --cluster SPEC`: a run over a split directory (`diskgraph split`)
//! on a Ray cluster. The options are parsed and defaulted by the descriptors as for any run
//! ([`prepare`]), the supersteps run by the [`ClusterRunner`] the embedding program registers
//! ([`set_runner`]: the Python package's `diskgraph` command registers its Ray orchestrator),
//! and the result is written by the writers and checked by the convergence rule of every run.

use std::path::Path;
use std::sync::OnceLock;

use anyhow::{anyhow, bail, Context, Result};
use diskgraph_algo::cluster::job::{prepare, ClusterJob};
use diskgraph_algo::cluster::routing::Routing;
use diskgraph_algo::registry::{RunOutput, RunRequest};
use diskgraph_algo::{RowIds, ValueType, Values};
use diskgraph_engine::RunStats;
use serde_json::{Map, Value as Json};

use crate::names::Names;
use crate::run::{self, Args};

/// Seconds a worker may take to answer one call of a cluster run (`--timeout`'s default): a
/// worker that does not answer in time is restarted and its call repeated once.
pub const DEFAULT_TIMEOUT: f64 = 1800.0;

/// What a [`ClusterRunner`] is asked to run.
#[derive(Debug)]
pub struct ClusterRequest<'a> {
    /// The algorithm and its options, as the descriptors made them.
    pub job: &'a ClusterJob,
    /// The split directory.
    pub split: &'a Path,
    /// Where to run: `local:N` or `ray://HOST:PORT`.
    pub cluster: &'a str,
    /// Seconds a worker may take to answer one call.
    pub timeout: f64,
}

/// What a cluster run answers.
#[derive(Debug)]
pub struct ClusterAnswer {
    /// One value per vertex, in vertex-number order (ascending ID: splits are of graphs in their
    /// original ordering).
    pub values: Values,
    /// The run's summary line(s).
    pub summary: String,
    /// What it recorded: `engine`, `iterations`, `converged`, `bytes_read`, `wall_seconds` and
    /// the cluster's own figures (supersteps, workers, restarts...).
    pub stats: Map<String, Json>,
}

/// Runs the supersteps of a cluster run (the Python package's Ray orchestrator).
pub trait ClusterRunner: Send + Sync {
    /// Runs `req` and returns its values and statistics.
    fn run(&self, req: &ClusterRequest) -> Result<ClusterAnswer>;
}

static RUNNER: OnceLock<Box<dyn ClusterRunner>> = OnceLock::new();

/// Registers the runner of `--cluster` runs; false when one is registered already (it stays).
pub fn set_runner(runner: Box<dyn ClusterRunner>) -> bool {
    RUNNER.set(runner).is_ok()
}

/// `diskgraph run` over the split directory `a.graph` on cluster `spec`, its outputs checked.
pub(crate) fn run(a: &Args, spec: &str) -> Result<()> {
    let Some(runner) = RUNNER.get() else {
        bail!(
            "--cluster runs on Ray through the Python package's `diskgraph` command (pip install 'diskgraph[ray]'); this binary has none"
        );
    };
    if a.report.is_some() {
        bail!("--report is not available with --cluster (--stats writes the run's statistics)");
    }
    let context = || format!("{} on {}", a.algorithm, a.graph.display());
    let routing = Routing::open(&a.graph)?;
    let first = routing.first_part();
    let names = first.names()?;
    let params = run::params(a, names.as_ref().map(Names::new).as_ref())?;
    let job = prepare(&a.algorithm, &params, &routing).with_context(context)?;
    let req = ClusterRequest {
        job: &job,
        split: &a.graph,
        cluster: spec,
        timeout: a.timeout.unwrap_or(DEFAULT_TIMEOUT),
    };
    let answer = runner.run(&req).with_context(context)?;
    let n = first.num_vertices() as usize;
    if answer.values.len() != n {
        bail!(
            "{}: the cluster answered {} values for {n} vertices",
            context(),
            answer.values.len()
        );
    }
    let vertex_ids = match first.manifest().ids_remapped {
        true => RowIds::Listed(first.original_ids()?),
        false => RowIds::Identity(n),
    };
    let out = RunOutput {
        // Component labels are original vertex IDs.
        vertex_values: job.algorithm.result.values == ValueType::Unsigned,
        values: answer.values,
        vertex_ids,
        stats: stats(&job, spec, answer.stats)?,
        summary: answer.summary,
    };
    run::finish(a, &out, names.as_ref())?;
    let req = RunRequest {
        params,
        ..RunRequest::new(&a.algorithm)
    };
    run::check_converged(a, &req, &out)
}

/// The run's [`RunStats`] from what the cluster recorded: the counters every run has, and the
/// rest (the options, the cluster, supersteps, workers...) as settings.
fn stats(job: &ClusterJob, spec: &str, mut recorded: Map<String, Json>) -> Result<RunStats> {
    let mut take = |key: &str| recorded.remove(key);
    let count = |v: Option<Json>| v.and_then(|v| v.as_u64()).unwrap_or(0);
    let mut stats = RunStats {
        algorithm: job.algorithm.name.to_string(),
        engine: take("engine")
            .and_then(|v| v.as_str().map(String::from))
            .unwrap_or_default(),
        iterations: count(take("iterations")),
        converged: take("converged").and_then(|v| v.as_bool()),
        bytes_read: count(take("bytes_read")),
        wall_seconds: take("wall_seconds").and_then(|v| v.as_f64()).unwrap_or(0.0),
        ..RunStats::default()
    };
    stats.compute_seconds = stats.wall_seconds;
    for (name, value) in &job.options {
        if let Some(value) = value {
            let json = serde_json::to_value(value.to_string())?;
            stats.settings.insert((*name).to_string(), json);
        }
    }
    stats.settings.insert("cluster".into(), Json::from(spec));
    stats
        .settings
        .insert("cluster_scheme".into(), Json::from(job.scheme.name()));
    stats.settings.extend(recorded);
    Ok(stats)
}

/// `--timeout`'s value: a positive number of seconds.
pub(crate) fn parse_timeout(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(t) if t > 0.0 && t.is_finite() => Ok(t),
        _ => Err(format!("{text:?} is not a positive number of seconds")),
    }
}

/// The error of `--cluster` given a graph directory, not a split.
pub(crate) fn no_split(graph: &Path) -> anyhow::Error {
    anyhow!(
        "--cluster runs over a split directory (diskgraph split GRAPH --parts N -o DIR); {} is a graph: run it without --cluster",
        graph.display()
    )
}
