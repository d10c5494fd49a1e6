//! One variant's run on its opened engine, the same for every engine: sources resolved, the
//! code run with the engine's log open, the engine's figures recorded ([`execute`]).

use std::time::Instant;

use diskgraph_engine::options::Value;
use diskgraph_engine::{recorder, Engine, RunStats, Source, Vertices};
use diskgraph_format::VertexNames;
use serde_json::json;

use crate::descriptor::{Algorithm, Outcome, Run};
use crate::registry::{resolve_sources, RunRequest};
use crate::AlgoError;

/// What a run of a variant is given besides its engine.
pub struct Job<'a> {
    /// The algorithm.
    pub(crate) alg: &'a Algorithm,
    /// The request.
    pub(crate) req: &'a RunRequest,
    /// The graph's vertex names, when it has them.
    pub(crate) names: Option<&'a VertexNames>,
    /// When the run started (before its engine opened).
    pub(crate) start: Instant,
    /// The stats recorded so far.
    pub(crate) stats: RunStats,
}

/// A run done on an engine since dropped: its outcome, stats and vertices, and when its
/// computing started.
pub struct Ran {
    pub(crate) outcome: Outcome,
    pub(crate) stats: RunStats,
    pub(crate) vertices: Vertices,
    /// The run's resolved source and sources (internal IDs), for its verifier.
    pub(crate) source: Option<u32>,
    pub(crate) sources: Option<Vec<u32>>,
    pub(crate) compute: Instant,
}

/// Resolves the run's sources on the opened engine `g`, runs `f` (which labels vertices with
/// the job's names, when the graph has them), and records the engine's figures.
pub(crate) fn execute<E: Engine>(
    g: &E,
    f: fn(&E, &Run) -> Result<Outcome, AlgoError>,
    job: Job,
) -> Result<Ran, AlgoError> {
    let Job {
        alg,
        req,
        names,
        start,
        mut stats,
    } = job;
    let params = &req.params;
    g.recorder()
        .open(start, req.progress.clone(), req.cancel.clone(), g.snapshot());
    g.check_cancelled()?;
    let vertices = g.vertices();
    let source = match alg.source_option() {
        Some(spec) => Some(match params.source(spec) {
            Source::Id(id) => vertices.resolve(id)?,
            Source::Smallest => vertices.smallest(),
            Source::MaxDegree => g.max_degree_vertex()?,
        }),
        None => None,
    };
    let sources = match alg.sources_option() {
        Some(spec) => Some(resolve_sources(alg.name, spec, params, vertices)?),
        None => None,
    };
    stats.load_seconds = start.elapsed().as_secs_f64();
    let compute = Instant::now();
    let run = Run {
        params,
        vertices,
        names,
        source,
        sources,
    };
    let outcome = recorder::sampled(g, || f(g, &run))?;
    // A run that ends between its last cancellation point and here is still one that was
    // asked to stop: its caller must not take the answer for a whole one.
    g.check_cancelled()?;
    g.record(&mut stats);
    stats.edges_processed = g.edges_counted().unwrap_or(0);
    let log = g.recorder().close(g.snapshot(), outcome.edges_processed);
    stats.steps = log.steps;
    stats.io_series = log.io;
    for name in params.given() {
        if let Some(Value::Choice(choice)) = alg.option(name).and_then(|o| params.get(o)) {
            stats.settings.insert(name.into(), json!(choice));
        }
    }
    Ok(Ran {
        outcome,
        stats,
        vertices: vertices.clone(),
        source: run.source,
        sources: run.sources,
        compute,
    })
}
