//! Read faults at the command line, injected through `DISKGRAPH_IO_FAULTS` (see
//! `diskgraph_io::faults`) into every data file of a graph: on every engine (and every I/O
//! backend of the selective one) an EIO ends the run with a one-line error naming the file and
//! a non-zero exit, and no result file is left; short reads, EINTR and EAGAIN change nothing in
//! the results. `verify` names the file it could not read.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{ok, s};

/// The graph: a Kronecker graph with a grid and a shards layout.
fn graph(dir: &Path) -> PathBuf {
    let g = dir.join("g");
    ok(&["generate", "kronecker", "--scale", "12", "-o", s(&g)]);
    ok(&["partition", s(&g), "--grid", "4"]);
    ok(&["partition", s(&g), "--shards", "4", "--block-size", "4KiB"]);
    g
}

/// The data files of `g` (not its JSON metadata, which is read whole, not through the I/O
/// layer), relative to `g`'s parent, e.g. `g/grid-4/edges.bin`; with `bulk`, only those an
/// engine streams or reads block by block (not the indexes it loads first).
fn data_files(g: &Path, bulk: bool) -> Vec<String> {
    fn walk(base: &Path, dir: &Path, bulk: bool, out: &mut Vec<String>) {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let p = e.path();
            let ext = p
                .extension()
                .map(|x| x.to_string_lossy().into_owned())
                .unwrap_or_default();
            if p.is_dir() {
                walk(base, &p, bulk, out);
            } else if ext != "json" && !(bulk && ext == "idx") {
                out.push(p.strip_prefix(base).unwrap().to_string_lossy().into_owned());
            }
        }
    }
    let mut out = Vec::new();
    walk(g.parent().unwrap(), g, bulk, &mut out);
    out.sort();
    out
}

/// `DISKGRAPH_IO_FAULTS` planning `entries` (`KIND[*TIMES]`) on the data files of `g`
/// ([`data_files`]).
fn plan(g: &Path, bulk: bool, entries: &[&str]) -> String {
    let files = data_files(g, bulk);
    assert!(files.len() >= 4, "{files:?}");
    files
        .iter()
        .flat_map(|f| entries.iter().map(move |e| format!("{e}@{f}")))
        .collect::<Vec<_>>()
        .join(";")
}

/// Runs the binary with `args` and the fault plan `faults`.
fn faulted(args: &[&str], faults: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_diskgraph"))
        .args(args)
        .env("DISKGRAPH_IO_FAULTS", faults)
        .output()
        .expect("run diskgraph")
}

/// Every engine, and every backend of the selective engine, as `run` arguments.
const ENGINES: &[&[&str]] = &[
    &["--engine", "memory"],
    &["--engine", "selective", "--io", "uring"],
    &["--engine", "selective", "--io", "pread"],
    &["--engine", "selective", "--io", "mmap"],
    &["--engine", "stream"],
    &["--engine", "stream", "--io", "pread"],
    &["--engine", "sync"],
    &["--engine", "shards", "--memory", "4MiB"],
];

/// `run wcc` on `g` with `engine`, writing `out`.
fn wcc_args<'a>(g: &'a Path, engine: &[&'a str], out: &'a Path) -> Vec<&'a str> {
    let mut args = vec!["run", "wcc", s(g), "--out", s(out)];
    args.extend_from_slice(engine);
    args
}

#[test]
fn an_eio_ends_every_engine_with_the_file_named_and_no_output() {
    let dir = tempfile::tempdir().unwrap();
    let g = graph(dir.path());
    // The engines' bulk reads (the I/O backends'), past the indexes they load first.
    let faults = plan(&g, true, &["eio"]);
    let outs = dir.path().join("out");
    std::fs::create_dir(&outs).unwrap();
    for engine in ENGINES {
        let out = outs.join("wcc.tsv");
        let o = faulted(&wcc_args(&g, engine, &out), &faults);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success(), "{engine:?} ran through an EIO: {stderr}");
        let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("diskgraph: error: ")).collect();
        assert_eq!(errors.len(), 1, "{engine:?}: {stderr}");
        assert!(errors[0].contains("Input/output error"), "{engine:?}: {stderr}");
        let bulk = data_files(&g, true);
        assert!(
            bulk.iter()
                .any(|f| errors[0].contains(&format!("{}: Input/output error", dir.path().join(f).display()))),
            "{engine:?}: the error names no bulk file of the graph: {stderr}"
        );
        assert!(errors[0].contains("at byte "), "{engine:?}: {stderr}");
        let left: Vec<_> = std::fs::read_dir(&outs)
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert!(left.is_empty(), "{engine:?} left {left:?}");
    }
    let o = faulted(&["verify", s(&g)], &faults);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && stderr.contains("Input/output error") && stderr.contains(s(&g)),
        "{stderr}"
    );
}

#[test]
fn short_and_interrupted_reads_change_no_result() {
    let dir = tempfile::tempdir().unwrap();
    let g = graph(dir.path());
    let faults = plan(&g, false, &["short=5000*8", "short=12288*8", "eintr*4", "eagain*4"]);
    for (i, engine) in ENGINES.iter().enumerate() {
        let clean = dir.path().join(format!("clean-{i}.tsv"));
        let bumped = dir.path().join(format!("bumped-{i}.tsv"));
        ok(&wcc_args(&g, engine, &clean));
        let o = faulted(&wcc_args(&g, engine, &bumped), &faults);
        assert!(o.status.success(), "{engine:?}: {}", String::from_utf8_lossy(&o.stderr));
        assert_eq!(
            std::fs::read(&clean).unwrap(),
            std::fs::read(&bumped).unwrap(),
            "{engine:?}: short reads changed the result"
        );
    }
    ok(&["verify", s(&g)]);
    let o = faulted(&["verify", s(&g)], &faults);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}
