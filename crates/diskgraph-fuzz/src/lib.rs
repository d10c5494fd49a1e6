//! The bodies of diskgraph's fuzz targets.
//!
//! Each [`Target`] takes arbitrary bytes and drives a part of diskgraph that reads untrusted
//! input (an importer, a graph directory). A target returns normally whatever the bytes are:
//! bad input must come out as an error value, never a panic, a hang or an unbounded
//! allocation. The same bodies run in two places:
//! - `fuzz/` (cargo-fuzz, nightly, outside the workspace): one libFuzzer binary per target,
//!   `cargo +nightly fuzz run NAME` (docs/guide.md, "Reliability").
//! - `tests/replay.rs` (`cargo test`): every file of `fuzz/corpus/NAME/` and
//!   `fuzz/regressions/NAME/` through target `NAME`, so the corpus and every crash found stay
//!   regression tests.
#![forbid(unsafe_code)]

pub mod graph_dir;
pub mod importers;

/// A fuzz target: a name (its cargo-fuzz binary and corpus directory) and its body.
pub struct Target {
    /// The cargo-fuzz binary and the corpus directory name.
    pub name: &'static str,
    /// Runs one input; returns normally on every input.
    pub run: fn(&[u8]),
}

/// Every target, in no particular order.
pub fn targets() -> impl Iterator<Item = &'static Target> {
    importers::TARGETS.iter().chain(graph_dir::TARGETS)
}

/// The target called `name`.
pub fn target(name: &str) -> Option<&'static Target> {
    targets().find(|t| t.name == name)
}
