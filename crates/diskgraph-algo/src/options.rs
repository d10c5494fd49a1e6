//! Options several algorithms take. An algorithm's own options are declared in its module.

use diskgraph_engine::options::{Default, Engines, OptionKind, OptionSpec};
use diskgraph_engine::Source;

/// `--source`: where a traversal starts.
pub const SOURCE: OptionSpec = OptionSpec {
    name: "source",
    kind: OptionKind::Source,
    default: Default::Source(Source::Smallest),
    help: "where it starts: an original vertex ID, smallest (the smallest ID, as NetworkX's min(G)) or max-degree (the vertex with the most out-edges, the smallest ID among equals)",
    engines: Engines::All,
    examples: &[],
};

/// `--seed`: the seed of what is drawn at random.
pub const SEED: OptionSpec = OptionSpec {
    name: "seed",
    kind: OptionKind::Count { min: 0, max: u64::MAX },
    default: Default::Count(1),
    help: "seed of what is drawn at random: sampled sources (drawn by original ID, the same on every ordering of a graph), Luby's priorities, random walks' moves",
    engines: Engines::All,
    examples: &["7"],
};

/// `--allow-unconverged`: take the result of an iterative run that reached its iteration
/// limit before converging (see [`registry::unconverged`](crate::registry::unconverged)).
pub const ALLOW_UNCONVERGED: OptionSpec = OptionSpec {
    name: "allow_unconverged",
    kind: OptionKind::Flag,
    default: Default::Flag(false),
    help: "accept a run that reaches its iteration limit before converging (else it fails, its values kept: written by the command line, held by Python's ConvergenceError)",
    engines: Engines::All,
    examples: &[],
};

/// Every source count and list is at most this long where one traversal serves them all.
pub const SOURCES_DEFAULT: usize = 64;
