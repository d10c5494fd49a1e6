//! Every descriptor as JSON: what `diskgraph algorithms --json` prints and Python's
//! `diskgraph.algorithms()` returns, and what the Python methods are generated from.

use diskgraph_engine::engine_options::{ENGINE_OPTIONS, READ_OPTIONS, RUN_OPTIONS};
use diskgraph_engine::options::{Default, OptionKind, OptionSpec};
use diskgraph_engine::EngineKind;
use serde_json::{json, Value as Json};

use crate::descriptor::Algorithm;
use crate::registry::ALGORITHMS;

/// The whole catalogue: algorithms, engines, and the options of runs and engines.
pub fn catalog() -> Json {
    json!({
        "algorithms": ALGORITHMS.iter().map(|a| algorithm(a)).collect::<Vec<_>>(),
        "engines": EngineKind::ALL.iter().map(|&e| json!({
            "name": e.name(),
            "help": e.help(),
            "options": e.options().map(|o| o.name).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "run_options": RUN_OPTIONS.iter().map(|o| option(o, &EngineKind::ALL)).collect::<Vec<_>>(),
        "engine_options": ENGINE_OPTIONS.iter().map(|o| option(o, &EngineKind::ALL)).collect::<Vec<_>>(),
        "read_options": READ_OPTIONS.iter().map(|o| o.name).collect::<Vec<_>>(),
    })
}

/// One algorithm.
pub fn algorithm(a: &Algorithm) -> Json {
    let engines: Vec<EngineKind> = a.engines().collect();
    json!({
        "name": a.name,
        "help": a.help,
        "result": {"name": a.result.name, "dtype": a.result.values.dtype(), "matrix": a.result.values == crate::ValueType::Matrix, "help": a.result.help},
        "engines": engines.iter().map(|e| e.name()).collect::<Vec<_>>(),
        "options": a.options.iter().map(|o| option(o, &engines)).collect::<Vec<_>>(),
        "cluster": a.cluster.map(|c| json!({"scheme": c.name(), "help": c.help(), "options": c.options()})),
    })
}

/// One option; `engines` are those it could apply to.
fn option(o: &OptionSpec, engines: &[EngineKind]) -> Json {
    let mut j = json!({
        "name": o.name,
        "flag": o.flag_name(),
        "kind": kind_name(&o.kind),
        "default": default(&o.default),
        "help": o.help,
        "engines": engines.iter().filter(|e| o.engines.contains(**e)).map(|e| e.name()).collect::<Vec<_>>(),
    });
    match &o.kind {
        OptionKind::Count { min, max } => {
            j["min"] = json!(min);
            j["max"] = json!(max);
        }
        OptionKind::Float { above, below } => {
            j["above"] = json!(above);
            j["below"] = if below.is_finite() { json!(below) } else { Json::Null };
        }
        OptionKind::Size { max } => j["max"] = json!(max),
        OptionKind::Choice(choices) => {
            j["choices"] = json!(choices
                .iter()
                .map(|c| json!({"name": c.name, "help": c.help}))
                .collect::<Vec<_>>())
        }
        OptionKind::Sources { max } => j["max"] = json!(max),
        _ => {}
    }
    j
}

/// The kind's name in the catalogue.
fn kind_name(kind: &OptionKind) -> &'static str {
    match kind {
        OptionKind::Flag => "flag",
        OptionKind::Count { .. } => "count",
        OptionKind::Float { .. } => "float",
        OptionKind::Size { .. } => "size",
        OptionKind::Choice(_) => "choice",
        OptionKind::Text => "text",
        OptionKind::Source => "source",
        OptionKind::Sources { .. } => "sources",
        OptionKind::Vector => "vector",
    }
}

/// The default as JSON (`null` when absent).
fn default(d: &Default) -> Json {
    match d {
        Default::Absent => Json::Null,
        Default::Flag(b) => json!(b),
        Default::Count(n) | Default::Size(n) => json!(n),
        Default::Float(x) => json!(x),
        Default::Choice(s) => json!(s),
        Default::Source(s) => json!(s.to_string()),
        Default::Sample(k) => json!(k),
    }
}
