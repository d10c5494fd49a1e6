//! The option sets the harness runs an (algorithm, engine) pair with, read from the
//! descriptors: the inputs a graph suggests (sources, `x`), then, one at a time, every value an
//! option's declaration names — a choice's other names, a flag's other value, its examples — and
//! for an out-of-core engine all of them changed at once.

use std::sync::Arc;

use diskgraph_algo::options::SEED;
use diskgraph_algo::Algorithm;
use diskgraph_engine::engine_options::{ENGINE, MEMORY, RUN_OPTIONS, VERIFY};
use diskgraph_engine::options::{Default, OptionKind, OptionSpec, Params, Value};
use diskgraph_engine::{EngineKind, Source, Sources};

use super::fixture::Fixture;

/// The budget the harness gives every engine unless an option set changes it: small enough that
/// the out-of-core engines cut their buffers and loads, large enough for any of their settings.
/// The run's O(V) state comes on top (see [`check_run`](super::check_run)).
pub const BUDGET: u64 = 2 << 20;

/// The budget of the option set that changes every engine option: small reads and loads.
pub const TIGHT_BUDGET: u64 = 256 << 10;

/// How many option sets to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Depth {
    /// One set for a large graph: the defaults, except that an option off by default that has
    /// examples takes its first (sampled betweenness, fixed PageRank iterations), to keep it
    /// quick.
    Large,
    /// The engine's defaults, with the algorithm's inputs and own options varied.
    Algorithm,
    /// Also every engine and run option's values, one at a time, and all changed at once.
    Full,
}

/// A named set of options.
#[derive(Clone, Debug)]
pub struct OptionSet {
    /// What it changes, for messages.
    pub label: String,
    /// The options.
    pub params: Params,
}

/// The option sets of `alg` on `engine` for fixture `f`.
pub fn option_sets(alg: &Algorithm, engine: EngineKind, f: &Fixture, depth: Depth) -> Vec<OptionSet> {
    let mut base = Params::new()
        .with(&ENGINE, Value::Choice(engine.name()))
        .with(&MEMORY, Value::Size(BUDGET));
    let honoured = |o: &&OptionSpec| o.engines.contains(engine);
    let inputs: Vec<&OptionSpec> = alg.options.iter().copied().filter(honoured).collect();
    for o in &inputs {
        if let Some(v) = input(o, f).into_iter().next() {
            base = base.with(o, v);
        }
    }
    // The options off by default take their first example: sampled betweenness, fixed
    // PageRank iterations.
    let mut sampled = base.clone();
    for o in &inputs {
        if let (Default::Absent, Some(text)) = (o.default, o.examples.first()) {
            sampled = sampled.with(o, o.parse(text).expect("an example parses"));
        }
    }
    if depth == Depth::Large {
        return vec![OptionSet {
            label: "defaults of a large graph".into(),
            params: sampled,
        }];
    }
    let mut sets = vec![OptionSet {
        label: "defaults".into(),
        params: base.clone(),
    }];
    let mut vary = |o: &OptionSpec, v: Value| {
        let label = format!("{}={v}", o.name);
        // A seed draws what the options off by default ask for (betweenness's sampled
        // sources): alone it would rerun the defaults.
        let start = if o.name == SEED.name { &sampled } else { &base };
        sets.push(OptionSet {
            label,
            params: start.clone().with(o, v),
        });
    };
    for o in &inputs {
        let values = match input(o, f) {
            given if !given.is_empty() => given.into_iter().skip(1).collect(),
            _ => values(o, engine, f),
        };
        values.into_iter().for_each(|v| vary(o, v));
    }
    if depth == Depth::Algorithm {
        return sets;
    }
    let engine_options: Vec<&OptionSpec> = engine.options().collect();
    // Every run is verified (`check_run`): `verify` is not varied.
    let run_options: Vec<&OptionSpec> = RUN_OPTIONS
        .iter()
        .copied()
        .filter(|o| o.name != ENGINE.name && o.name != VERIFY.name)
        .collect();
    for o in run_options.iter().chain(&engine_options) {
        values(o, engine, f).into_iter().for_each(|v| vary(o, v));
    }
    if !engine_options.is_empty() {
        // At a tight budget: loads and reads cut lists and blocks into many pieces.
        let mut all = base.clone().with(&MEMORY, Value::Size(TIGHT_BUDGET));
        for o in &engine_options {
            if let Some(v) = values(o, engine, f).pop() {
                all = all.with(o, v);
            }
        }
        sets.push(OptionSet {
            label: "every engine option changed, budget 256 KiB".into(),
            params: all,
        });
    }
    sets
}

/// The values of an input option the graph suggests (a source, sources, `x`), first the one
/// the defaults take; empty for other options.
fn input(o: &OptionSpec, f: &Fixture) -> Vec<Value> {
    let n = f.test.num_vertices as u32;
    match o.kind {
        OptionKind::Source => {
            let mut v = vec![Value::Source(Source::Smallest), Value::Source(Source::MaxDegree)];
            if n > 0 {
                v.push(Value::Source(Source::Id(f.id(n - 1))));
                v.push(Value::Source(Source::Id(f.id(n / 2))));
            }
            v
        }
        OptionKind::Sources { max } => {
            let cap = max.unwrap_or(usize::MAX).min(64);
            let step = (n as usize / 20).max(1);
            let listed: Vec<u64> = (0..n).step_by(step).take(cap).map(|v| f.id(v)).collect();
            let mut v = vec![Value::Sources(Sources::Ids(listed))];
            if n > 0 {
                v.push(Value::Sources(Sources::Sample((n as usize).min(5))));
                v.push(Value::Sources(Sources::Ids(vec![f.id(n - 1), f.id(0), f.id(n - 1)])));
            }
            v
        }
        OptionKind::Vector => {
            let x = (0..n as usize).map(|v| ((v * 7919) % 13) as f64 * 0.75 - 4.5).collect();
            vec![Value::Vector(Arc::new(x))]
        }
        _ => Vec::new(),
    }
}

/// The values of option `o` besides its default that `engine` takes: a flag's other value, a
/// choice's other names, the fixture's layouts or selection for a layout or selection name,
/// and the declared examples.
fn values(o: &OptionSpec, engine: EngineKind, f: &Fixture) -> Vec<Value> {
    match &o.kind {
        // The plain lists and every compressed layout (which `auto` reads depends on the engine
        // and the threads).
        OptionKind::Choice(_) if o.name == "adjacency" && !o.engines.contains(engine) => Vec::new(),
        OptionKind::Choice(_) if o.name == "adjacency" => std::iter::once("plain")
            .chain(f.codecs.iter().map(|c| c.name()))
            .map(Value::Choice)
            .collect(),
        OptionKind::Flag => vec![Value::Flag(o.default != Default::Flag(true))],
        OptionKind::Choice(choices) => choices
            .iter()
            .filter(|c| c.engines.contains(engine) && o.default != Default::Choice(c.name))
            .map(|c| Value::Choice(c.name))
            .collect(),
        OptionKind::Text if o.name == "layout" && engine == EngineKind::Shards => {
            f.shard_layouts.iter().map(|name| Value::Text(name.clone())).collect()
        }
        OptionKind::Text if o.name == "layout" => f.layouts.iter().map(|(name, _)| Value::Text(name.clone())).collect(),
        OptionKind::Text if o.name == "basc" => f.selection.iter().map(|s| Value::Text(s.clone())).collect(),
        _ => o
            .examples
            .iter()
            .map(|text| {
                o.parse(text)
                    .unwrap_or_else(|e| panic!("example {text:?} of {}: {e}", o.name))
            })
            .collect(),
    }
}
