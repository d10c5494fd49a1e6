//! Every descriptor reaches the command line: `diskgraph algorithms` lists each algorithm with
//! the engines that run it and prints the catalogue the Python methods are generated from,
//! `diskgraph run --help` shows each option with its descriptor's default, every (algorithm,
//! engine) pair runs, and an option that does not apply to a run is an error naming it.

mod common;

use common::{fails, ok, s};
use diskgraph_algo::registry::ALGORITHMS;
use diskgraph_engine::engine_options::{ENGINE_OPTIONS, RUN_OPTIONS};
use diskgraph_engine::options::Default;
use diskgraph_engine::EngineKind;

/// A small weighted graph with a grid and a source-sorted layout.
fn graph() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let g = dir.path().join("g");
    ok(&[
        "generate",
        "erdos-renyi",
        "--vertices",
        "100",
        "--edges",
        "400",
        "--weighted",
        "-o",
        s(&g),
    ]);
    ok(&["partition", s(&g), "--grid", "2"]);
    ok(&["partition", s(&g), "--grid", "2", "--sort", "source"]);
    ok(&["partition", s(&g), "--shards", "2", "--block-size", "4KiB"]);
    (dir, g)
}

#[test]
fn algorithms_lists_every_algorithm_and_the_catalogue() {
    let table = ok(&["algorithms"]);
    for a in ALGORITHMS {
        let row = table
            .lines()
            .find(|l| l.starts_with(&format!("{} ", a.name)))
            .unwrap_or_else(|| panic!("no row for {}:\n{table}", a.name));
        for (i, e) in EngineKind::ALL.into_iter().enumerate() {
            let cell = row.split_whitespace().nth(1 + i).unwrap();
            assert_eq!(cell == "yes", a.variant(e).is_some(), "{}: {row}", a.name);
        }
        let details = ok(&["algorithms", a.name]);
        for o in a.options {
            assert!(details.contains(&o.flag_name()), "{}: {details}", a.name);
        }
    }
    let json: serde_json::Value = serde_json::from_str(&ok(&["algorithms", "--json"])).unwrap();
    assert_eq!(json, diskgraph_algo::catalog::catalog());
    let names: Vec<&str> = ALGORITHMS.iter().map(|a| a.name).collect();
    assert_eq!(ok(&["algorithms", "--names"]), names.join("\n") + "\n");
    assert!(fails(&["algorithms", "nope"]).contains("unknown algorithm \"nope\""));
}

#[test]
fn run_help_shows_every_option_with_its_default() {
    let help = ok(&["run", "--help"]);
    let options = ALGORITHMS
        .iter()
        .flat_map(|a| a.options.iter().copied())
        .chain(RUN_OPTIONS.iter().copied())
        .chain(ENGINE_OPTIONS.iter().copied());
    for o in options {
        let line = help
            .lines()
            .find(|l| l.trim_start().starts_with(&o.flag_name()))
            .unwrap_or_else(|| panic!("no {} in run --help", o.flag_name()));
        if !matches!(o.default, Default::Absent | Default::Flag(false)) && !shared_by_several(o.name) {
            let shown = format!("[default: {}]", o.default);
            let text = help_of(&help, &o.flag_name());
            assert!(text.contains(&shown), "{line}: {shown} missing");
        }
    }
}

/// Whether several algorithms declare an option of that name with different defaults (its help
/// then gives each algorithm's).
fn shared_by_several(name: &str) -> bool {
    let mut defaults = ALGORITHMS.iter().filter_map(|a| a.option(name)).map(|o| o.default);
    let first = defaults.next();
    defaults.any(|d| Some(d) != first)
}

/// The help text of `flag` (its line and the wrapped lines after it).
fn help_of(help: &str, flag: &str) -> String {
    let mut lines = help.lines().skip_while(|l| !l.trim_start().starts_with(flag));
    let mut text = lines.next().unwrap_or_default().to_string();
    for l in lines.take_while(|l| !l.trim_start().starts_with("--") && !l.trim_start().starts_with("-h")) {
        text += " ";
        text += l.trim();
    }
    text
}

#[test]
fn every_pair_runs_from_the_command_line() {
    let (dir, g) = graph();
    for a in ALGORITHMS {
        for e in a.engines() {
            let stats = dir.path().join(format!("{}-{e}.json", a.name));
            ok(&[
                "run",
                a.name,
                s(&g),
                "--engine",
                e.name(),
                "--memory",
                "4MiB",
                "--stats",
                s(&stats),
            ]);
            let st: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
            assert_eq!(st["engine"], e.name(), "{}", a.name);
            assert_eq!(st["algorithm"], a.name);
        }
    }
}

#[test]
fn options_that_do_not_apply_are_errors() {
    let (_dir, g) = graph();
    let msg = fails(&["run", "wcc", s(&g), "--parents", "--samples", "3"]);
    assert!(
        msg.contains("wcc has no option parents (it is an option of bfs)"),
        "{msg}"
    );
    let msg = fails(&["run", "bfs", s(&g), "--engine", "memory", "--mrt", "3"]);
    assert!(msg.contains("option mrt is for the stream engine"), "{msg}");
    // bfs has no shards variant: the message still names the engine the option is for.
    let msg = fails(&["run", "bfs", s(&g), "--engine", "stream", "--scratch", "/tmp"]);
    assert!(msg.contains("option scratch is for the shards engine"), "{msg}");
    let msg = fails(&["run", "wcc", s(&g), "--engine", "selective", "--method", "union-find"]);
    assert!(
        msg.contains("wcc's option method applies to the stream engine"),
        "{msg}"
    );
    let msg = fails(&["run", "bfs", s(&g), "--engine", "stream", "--io", "mmap"]);
    assert!(msg.contains("io mmap is for the selective or sync engine"), "{msg}");
    let msg = fails(&["run", "kcore", s(&g), "--engine", "stream"]);
    assert!(
        msg.contains("kcore has no stream variant; use --engine memory, selective or sync"),
        "{msg}"
    );
    // Under auto, an engine's options are accepted: auto may pick that engine.
    ok(&["run", "bfs", s(&g), "--mrt", "3", "--block-size", "4096"]);
    let msg = fails(&["run", "bfs", s(&g), "--engine", "selective", "--memory", "4KiB"]);
    assert!(msg.contains("too small") && msg.contains("give it at least"), "{msg}");
}
