//! One harness for every (algorithm, engine, option set) the descriptors declare: it runs each
//! through the registry — as the command line and Python do — on graph directories written by
//! the importer ([`Fixture`]), and checks the answer against the sequential oracles
//! ([`expectation`]).
//!
//! A new engine or algorithm is tested by its descriptor alone: the pairs come from
//! [`ALGORITHMS`] and their variants, the option sets from the options' declarations
//! ([`option_sets`]); only a new algorithm's oracle must be added ([`expect::ORACLES`]).

pub mod corpus;
pub mod expect;
pub mod fixture;
pub mod mutate;
pub mod option_sets;

use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};

use diskgraph_algo::registry::{self, RunRequest, ALGORITHMS};
use diskgraph_algo::Algorithm;
use diskgraph_engine::engine_options::{MEMORY, VERIFY};
use diskgraph_engine::options::{Params, Value};
use diskgraph_engine::{EngineKind, OpenRequest, RunStats};

pub use expect::{expectation, Expectation};
pub use fixture::{store, Case, Fixture, Naming};
pub use option_sets::{option_sets, Depth, OptionSet, BUDGET};

/// A run that did not give what the oracle expects.
#[derive(Debug)]
pub struct Failure {
    /// The algorithm.
    pub algorithm: &'static str,
    /// The engine.
    pub engine: EngineKind,
    /// The option set's label.
    pub options: String,
    /// The graph's name.
    pub graph: String,
    /// What went wrong.
    pub why: String,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} on the {} engine with {} on {}: {}",
            self.algorithm, self.engine, self.options, self.graph, self.why
        )
    }
}

/// Every pair the descriptors declare, `(algorithm, engine)`.
pub fn pairs() -> impl Iterator<Item = (&'static Algorithm, EngineKind)> {
    ALGORITHMS.iter().flat_map(|&a| a.engines().map(move |e| (a, e)))
}

/// Runs every pair on `f` with the option sets of `depth`; returns the failures and the number
/// of runs.
pub fn check_fixture(f: &Fixture, depth: Depth) -> (Vec<Failure>, usize) {
    let mut failures = Vec::new();
    let mut runs = 0;
    for (alg, engine) in pairs() {
        for set in option_sets(alg, engine, f, depth) {
            runs += 1;
            if let Err(why) = check_run(f, alg, engine, &set) {
                failures.push(Failure {
                    algorithm: alg.name,
                    engine,
                    options: set.label,
                    graph: f.name.clone(),
                    why,
                });
            }
        }
    }
    (failures, runs)
}

/// Runs `alg` with `set` on `f`, its verifier on, and compares with the oracle: a run must pass
/// its verifier and agree with the oracle.
///
/// The option set's budget is the engine's own: the run's O(V) state, which `--memory` also
/// covers, is added to it, so every engine is held to the same share whatever the graph's size.
pub fn check_run(f: &Fixture, alg: &Algorithm, engine: EngineKind, set: &OptionSet) -> Result<(), String> {
    let mut params = set.params.clone().with(&VERIFY, Value::Flag(true));
    let mut share: u64 = params.value(&MEMORY);
    if let Some(variant) = alg.variant(engine) {
        let budget = |params: &Params| {
            let base = OpenRequest::with_threads_of(alg.name, params).ok()?;
            registry::Budget::of(&f.graph, alg, variant, &base).ok()
        };
        if let Some(first) = budget(&params) {
            params = params.with(&MEMORY, Value::Size(share + first.state));
            // At least the engine's least, which can depend on the budget given (the shard
            // layout the engine takes): asked again with the budget it will get.
            if let Some(again) = budget(&params) {
                share = share.max(again.engine);
                params = params.with(&MEMORY, Value::Size(share + again.state));
            }
        }
    }
    let req = RunRequest {
        params,
        ..RunRequest::new(alg.name)
    };
    let result = catch_unwind(AssertUnwindSafe(|| registry::run(&f.graph, &req)))
        .map_err(|panic| format!("panicked: {}", panic_text(&panic)))?;
    match (expectation(alg, engine, f, &set.params), result) {
        (Expectation::Output(check), Ok(out)) => {
            check_stats(f, alg, engine, share, &out.stats)?;
            if out.stats.verified.is_none() {
                return Err("ran without its verifier".into());
            }
            check(&out)
        }
        (Expectation::Output(_), Err(e)) => Err(format!("refused: {e}")),
        (Expectation::Refusal(text), Err(e)) if e.to_string().contains(text) => Ok(()),
        (Expectation::Refusal(text), Err(e)) => Err(format!("refused with {e:?}, expected a refusal saying {text:?}")),
        (Expectation::Refusal(text), Ok(_)) => Err(format!("ran, expected a refusal saying {text:?}")),
    }
}

/// What every run's statistics must say: the algorithm and engine that ran, and the engine
/// within its share `budget` — but for a single vertex whose lists alone exceed k-core's assembly
/// share, which gets a buffer of its own.
fn check_stats(f: &Fixture, alg: &Algorithm, engine: EngineKind, budget: u64, stats: &RunStats) -> Result<(), String> {
    if stats.engine != engine.name() || stats.algorithm != alg.name {
        return Err(format!("{} ran on the {} engine", stats.algorithm, stats.engine));
    }
    let mut degree = vec![0u64; f.test.num_vertices];
    for &(a, b) in &f.test.arcs {
        degree[a as usize] += 1;
        degree[b as usize] += 1;
    }
    let largest_lists = 4 * degree.into_iter().max().unwrap_or(0);
    let allowed = match engine {
        EngineKind::Memory => u64::MAX,
        EngineKind::Selective => budget + largest_lists,
        EngineKind::Stream | EngineKind::Sync | EngineKind::Shards => budget,
    };
    if stats.peak_engine_memory > allowed {
        return Err(format!(
            "engine memory {} over the budget {budget}",
            stats.peak_engine_memory
        ));
    }
    Ok(())
}

/// A panic's message.
fn panic_text(panic: &Box<dyn std::any::Any + Send>) -> String {
    panic
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "?".into())
}

/// Panics listing `failures` (at most the first 20), if any.
pub fn assert_none(failures: &[Failure], runs: usize) {
    if failures.is_empty() {
        return;
    }
    let shown: Vec<String> = failures.iter().take(20).map(|f| format!("  {f}")).collect();
    panic!(
        "{} of {runs} runs failed:\n{}{}",
        failures.len(),
        shown.join("\n"),
        if failures.len() > 20 { "\n  ..." } else { "" }
    );
}
