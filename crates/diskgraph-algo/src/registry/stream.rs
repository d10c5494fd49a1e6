//! The registry's stream engine: which layout to stream, how to open it, which variant to run.

use diskgraph_engine::selective::BackendKind;
use diskgraph_engine::stream::{StreamGraph, StreamOptions};
use diskgraph_format::{GraphDir, LayoutRecord};

use super::{needs_weights, Answer, Inputs, Method, RunError, RunRequest};
use crate::stream::{self as algo, default_layout, LayoutNeed};
use crate::{MisMethod, PageRank};

/// What `alg` (with `method`) needs of a layout's order.
fn need(alg: &str, method: Method) -> LayoutNeed {
    match (alg, method) {
        ("mis", Method::Mis(MisMethod::Greedy)) => LayoutNeed::SourceSorted,
        _ => LayoutNeed::Any,
    }
}

/// The layout to stream: `--layout`, which must be one of the graph's, or the algorithm's
/// preferred one; a graph without one is an error naming the `diskgraph partition` command that
/// makes it.
fn layout(graph: &GraphDir, req: &RunRequest, method: Method) -> Result<String, RunError> {
    let alg = req.algorithm.as_str();
    let path = graph.path().display();
    let need = need(alg, method);
    let make = format!("diskgraph partition {path} --grid P{}", need.partition_flags());
    match &req.layout {
        Some(name) if graph.layout(name).is_some() => Ok(name.clone()),
        Some(name) => {
            let has = match graph.layouts() {
                [] => "none".to_string(),
                l => l.iter().map(LayoutRecord::name).collect::<Vec<_>>().join(", "),
            };
            Err(RunError::Setting(format!(
                "{path} has no layout {name} (it has: {has}); create one with `{make}`"
            )))
        }
        None => default_layout(graph, need).ok_or_else(|| {
            let kind = match need {
                LayoutNeed::Any => "a grid layout",
                LayoutNeed::SourceSorted => "a source- or grid-sorted layout",
            };
            RunError::Setting(format!(
                "{alg} on the stream engine needs {kind} of {path}, and there is none: create one with `{make}`"
            ))
        }),
    }
}

/// Opens the graph on the stream engine with the request's settings.
pub(super) fn open(graph: &GraphDir, req: &RunRequest, method: Method) -> Result<StreamGraph, RunError> {
    if req.io.backend == Some(BackendKind::Mmap) {
        return Err(RunError::Setting(
            "the stream engine reads with uring or pread, not mmap".into(),
        ));
    }
    let name = layout(graph, req, method)?;
    let opts = StreamOptions {
        memory: req.memory,
        mrt: req.mrt,
        vertex_state: req.vertex_state,
        scratch_dir: None,
        weights: needs_weights(&req.algorithm),
        backend: req.io.backend,
        queue_depth: req.io.queue_depth,
    };
    Ok(StreamGraph::open(graph, &name, &opts)?)
}

/// Runs the request's algorithm on `g`.
pub(super) fn run(
    g: &StreamGraph,
    req: &RunRequest,
    method: Method,
    inputs: &Inputs,
    pr: &PageRank,
) -> Result<Answer, RunError> {
    Ok(match (req.algorithm.as_str(), method) {
        ("bfs", _) => Answer::Bfs(algo::bfs(g, inputs.source, req.parents)?),
        ("sssp", _) => Answer::Sssp(algo::sssp(g, inputs.source)?),
        ("wcc", Method::LabelPropagation) => Answer::Components(algo::wcc_label_propagation(g)?),
        ("wcc", _) => Answer::Components(algo::wcc_union_find(g)?),
        ("pagerank", _) => Answer::PageRank(algo::pagerank(g, pr)?),
        ("spmv", _) => Answer::Spmv(algo::spmv(g, &inputs.x)?),
        ("mis", Method::Mis(MisMethod::Luby { seed })) => Answer::Mis(algo::mis_luby(g, seed)?),
        ("mis", _) => Answer::Mis(algo::mis_greedy(g)?),
        (alg, _) => unreachable!("{alg} is refused before the stream engine opens"),
    })
}
