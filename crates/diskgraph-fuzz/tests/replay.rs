//! Replays every corpus and regression input of every fuzz target through its body: the corpus
//! the fuzzers grew and each crash they found stay tests of the normal `cargo test`.

use std::path::{Path, PathBuf};

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz")
}

/// The files of `dir` (none when it does not exist), sorted so a failure names the same file
/// every run.
fn inputs(dir: &Path) -> Vec<PathBuf> {
    entries(dir, Path::is_file)
}

/// The per-target subdirectories of `dir`.
fn inputs_dirs(dir: &Path) -> Vec<PathBuf> {
    entries(dir, Path::is_dir)
}

/// The entries of `dir` that `keep` accepts, sorted (none when `dir` does not exist).
fn entries(dir: &Path, keep: fn(&Path) -> bool) -> Vec<PathBuf> {
    let Ok(listing) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut paths: Vec<PathBuf> = listing
        .map(|e| e.expect("listing a fuzz directory").path())
        .filter(|p| keep(p))
        .collect();
    paths.sort();
    paths
}

#[test]
fn every_corpus_and_regression_input_runs_without_panicking() {
    let fuzz = fuzz_dir();
    for kind in ["corpus", "regressions"] {
        for dir in inputs_dirs(&fuzz.join(kind)) {
            let name = dir.file_name().unwrap().to_string_lossy().into_owned();
            let target = diskgraph_fuzz::target(&name)
                .unwrap_or_else(|| panic!("{} has no fuzz target called {name}", dir.display()));
            for input in inputs(&dir) {
                let data = std::fs::read(&input).expect("reading a corpus input");
                let outcome = std::panic::catch_unwind(|| (target.run)(&data));
                assert!(outcome.is_ok(), "fuzz target {name} panicked on {}", input.display());
            }
        }
    }
}

#[test]
fn every_target_has_a_seed_corpus() {
    let corpus = fuzz_dir().join("corpus");
    for target in diskgraph_fuzz::targets() {
        assert!(
            !inputs(&corpus.join(target.name)).is_empty(),
            "fuzz target {} has no corpus in fuzz/corpus/{}",
            target.name,
            target.name
        );
    }
}
