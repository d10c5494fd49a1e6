//! `diskgraph reorder` and `diskgraph cost` end to end: reorder → verify → info → cost, results
//! of `run` on a reordered graph equal to the original's per original ID, and the errors a user
//! can run into, each a one-line message with a non-zero exit.

use std::path::{Path, PathBuf};

mod common;
use common::{fails, ok, s};

/// A directed weighted graph on sparse original IDs (with an isolated vertex), imported.
fn imported(dir: &Path) -> PathBuf {
    let text = dir.join("edges.txt");
    let mut lines = String::from("# src dst weight\n");
    let mut x = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..3000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let (a, b) = (x % 600, (x >> 20) % 600);
        lines.push_str(&format!(
            "{} {} {}\n",
            1_000_000_007 * a,
            1_000_000_007 * b,
            (x >> 40) % 9 + 1
        ));
    }
    lines.push_str("77 77 1\n");
    std::fs::write(&text, lines).unwrap();
    let g = dir.join("g");
    ok(&["import", s(&text), "-o", s(&g), "--weighted"]);
    g
}

/// A vertex with out-edges, as an original ID: the source of the first edge of the file.
fn a_source(dir: &Path) -> String {
    let text = std::fs::read_to_string(dir.join("edges.txt")).unwrap();
    text.lines().nth(1).unwrap().split(' ').next().unwrap().to_string()
}

/// The rows of a `.tsv` result, sorted.
fn sorted_rows(path: &Path) -> Vec<String> {
    let mut rows: Vec<String> = std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    rows.sort();
    rows
}

/// The `io cost` figure `diskgraph cost` prints.
fn io_cost(graph: &Path) -> f64 {
    let out = ok(&["cost", s(graph)]);
    let line = out
        .lines()
        .find(|l| l.starts_with("io cost"))
        .unwrap_or_else(|| panic!("{out}"));
    line.split_whitespace().nth(2).unwrap().parse().unwrap()
}

/// Runs bfs and sssp from `source` and wcc on `graph`; returns each result's sorted `.tsv` rows.
fn results(graph: &Path, source: &str, dir: &Path, label: &str) -> Vec<(&'static str, Vec<String>)> {
    let mut all = Vec::new();
    for algo in ["bfs", "sssp", "wcc"] {
        let tsv = dir.join(format!("{label}-{algo}.tsv"));
        let mut args = vec!["run", algo, s(graph), "--out", s(&tsv)];
        if algo != "wcc" {
            args.extend(["--source", source]);
        }
        ok(&args);
        all.push((algo, sorted_rows(&tsv)));
    }
    all
}

#[test]
fn reorder_verify_info_cost_and_run() {
    let dir = tempfile::tempdir().unwrap();
    let g = imported(dir.path());
    let source = a_source(dir.path());
    let want = results(&g, &source, dir.path(), "input");
    let before = io_cost(&g);
    assert!(before > 0.0);
    for method in ["norder", "degree", "random", "pagerank", "gorder", "original"] {
        let r = dir.path().join(method);
        let out = ok(&["reorder", s(&g), "-o", s(&r), "--method", method, "--memory", "256KiB"]);
        assert!(out.contains(&format!("{method} ordering")), "{out}");
        assert!(
            out.contains("ordering computed in") && out.contains("graph written in"),
            "{out}"
        );
        let v = ok(&["verify", s(&r)]);
        assert!(v.contains(": ok"), "{v}");
        let info = ok(&["info", s(&r)]);
        assert!(info.contains(&format!("ordering {method}")), "{info}");
        assert!(
            info.contains("reorder_method: ") && info.contains("reordered_from: "),
            "{info}"
        );
        let json: serde_json::Value = serde_json::from_str(&ok(&["cost", s(&r), "--json"])).unwrap();
        assert_eq!(json["ordering"], method);
        assert!(json["cost"].as_f64().unwrap() > 0.0, "{json}");
        if method == "original" {
            assert_eq!(io_cost(&r), before);
        }
        for ((algo, got), (_, want)) in results(&r, &source, dir.path(), method).iter().zip(&want) {
            assert_eq!(got, want, "{algo} on the {method} ordering, per original ID");
        }
    }
    let random = io_cost(&dir.path().join("random"));
    assert!(io_cost(&dir.path().join("norder")) < random);
}

#[test]
fn reorder_errors_are_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let g = imported(dir.path());
    let out = dir.path().join("o");
    let bad = common::diskgraph(&["reorder", s(&g), "-o", s(&out), "--method", "bogus"]);
    assert_eq!(bad.status.code(), Some(2), "a usage error");
    let msg = String::from_utf8_lossy(&bad.stderr);
    assert!(
        msg.contains("unknown ordering method \"bogus\"") && msg.contains("norder"),
        "{msg}"
    );
    let msg = fails(&["reorder", s(&g), "-o", s(&out), "--method", "norder", "--window", "3"]);
    assert!(msg.contains("--window applies to gorder only"), "{msg}");
    let msg = fails(&[
        "reorder",
        s(&g),
        "-o",
        s(&out),
        "--method",
        "gorder",
        "--memory",
        "32KiB",
    ]);
    assert!(
        msg.contains("gorder keeps the whole graph") && msg.contains("--memory"),
        "{msg}"
    );
    assert!(!out.exists());

    ok(&["reorder", s(&g), "-o", s(&out), "--method", "random", "--seed", "5"]);
    let msg = fails(&["reorder", s(&g), "-o", s(&out), "--method", "norder"]);
    assert!(msg.contains("already exists") && msg.contains("--force"), "{msg}");
    ok(&["reorder", s(&g), "-o", s(&out), "--method", "norder", "--force"]);

    let msg = fails(&[
        "reorder",
        s(&dir.path().join("nope")),
        "-o",
        s(&out),
        "--method",
        "degree",
        "--force",
    ]);
    assert!(msg.contains("nope"), "{msg}");
    let msg = fails(&["cost", s(&dir.path().join("nope"))]);
    assert!(msg.contains("nope"), "{msg}");

    let adj = g.join("out.adj");
    let mut bytes = std::fs::read(&adj).unwrap();
    bytes[0..4].copy_from_slice(&u32::MAX.to_le_bytes());
    std::fs::write(&adj, bytes).unwrap();
    let msg = fails(&["reorder", s(&g), "-o", s(&out), "--method", "norder", "--force"]);
    assert!(msg.contains("out.adj") && msg.contains("4294967295"), "{msg}");
    let msg = fails(&["cost", s(&g)]);
    assert!(msg.contains("out.adj"), "{msg}");
    assert_eq!(
        ok(&["info", s(&out)])
            .lines()
            .find(|l| l.contains("ordering"))
            .map(|l| l.contains("norder")),
        Some(true),
        "a failed --force run leaves the old output"
    );
}

/// The arguments of `diskgraph reorder GRAPH -o OUT --method METHOD EXTRA...`.
fn reorder_args<'a>(g: &'a Path, out: &'a Path, method: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    [&["reorder", s(g), "-o", s(out), "--method", method][..], extra].concat()
}

/// Runs `diskgraph reorder` with Gorder and `extra` arguments; returns its exit code and stderr.
fn gorder_run(g: &Path, out: &Path, extra: &[&str]) -> (Option<i32>, String) {
    let run = common::diskgraph(&reorder_args(g, out, "gorder", extra));
    (run.status.code(), String::from_utf8_lossy(&run.stderr).into_owned())
}

#[test]
fn gorder_stops_at_its_time_limit_and_resumes_to_the_same_order() {
    let dir = tempfile::tempdir().unwrap();
    let g = dir.path().join("k");
    ok(&[
        "generate",
        "kronecker",
        "--scale",
        "12",
        "--edge-factor",
        "8",
        "-o",
        s(&g),
    ]);
    let whole = dir.path().join("whole");
    ok(&reorder_args(&g, &whole, "gorder", &[]));

    let (ckpt, out) = (dir.path().join("gorder.state"), dir.path().join("resumed"));
    let checkpoint = ["--checkpoint", s(&ckpt)];
    let limited = [&checkpoint[..], &["--time-limit", "0"]].concat();
    for placed in [1, 2] {
        let (code, msg) = gorder_run(&g, &out, &limited);
        assert_eq!(code, Some(75), "{msg}");
        assert!(
            msg.contains(&format!("with {placed} of 4096 vertices placed"))
                && msg.contains("run the same command again"),
            "{msg}"
        );
        assert!(ckpt.exists() && !out.exists());
    }
    let summary = ok(&reorder_args(&g, &out, "gorder", &checkpoint));
    assert!(summary.contains("s of it in earlier runs"), "{summary}");
    assert!(!ckpt.exists(), "a complete run removes its checkpoint");
    let ids = |p: &Path| std::fs::read(p.join("ids.u64")).unwrap();
    assert_eq!(ids(&out), ids(&whole), "resuming twice gives the uninterrupted order");

    // A damaged or foreign checkpoint is refused, naming the file; nothing is written.
    let (code, _) = gorder_run(&g, &out, &[&limited[..], &["--force"]].concat());
    assert_eq!(code, Some(75));
    let saved = std::fs::read(&ckpt).unwrap();
    let mut flipped = saved.clone();
    flipped[saved.len() / 2] ^= 0x10;
    let bad = dir.path().join("bad");
    for (contents, expect) in [
        (flipped, "checksum mismatch"),
        (saved[..saved.len() - 4].to_vec(), "but its header"),
        (
            b"not a checkpoint at all, but long enough to hold a header of sixty-four bytes....".to_vec(),
            "wrong magic",
        ),
    ] {
        std::fs::write(&ckpt, contents).unwrap();
        let msg = fails(&reorder_args(&g, &bad, "gorder", &checkpoint));
        assert!(msg.contains(expect) && msg.contains(s(&ckpt)), "{expect}: {msg}");
        assert!(!bad.exists());
    }
    std::fs::write(&ckpt, saved).unwrap();
    let msg = fails(&reorder_args(
        &g,
        &bad,
        "gorder",
        &[&checkpoint[..], &["--window", "2"]].concat(),
    ));
    assert!(msg.contains("another graph or window"), "{msg}");

    let msg = fails(&reorder_args(&g, &bad, "norder", &checkpoint));
    assert!(msg.contains("--checkpoint applies to gorder only"), "{msg}");
    let (code, msg) = gorder_run(&g, &bad, &["--time-limit", "5"]);
    assert_eq!(code, Some(2), "--time-limit needs --checkpoint: {msg}");
}

/// Without `--out`, a run on a reordered graph leaves its rows in the internal order, as nobody
/// reads them: it still prints what the same run with `--out` prints, sampled sources and
/// original IDs included, on every engine.
#[test]
fn runs_without_out_print_what_runs_with_it_print() {
    let dir = tempfile::tempdir().unwrap();
    let g = imported(dir.path());
    let r = dir.path().join("norder");
    ok(&["reorder", s(&g), "-o", s(&r), "--method", "norder"]);
    let source = a_source(dir.path());
    let tsv = dir.path().join("rows.tsv");
    let runs: [&[&str]; 5] = [
        &["bfs", "--source", &source],
        &["bfs", "--source", "max-degree"],
        &["bc", "--samples", "5", "--seed", "7"],
        &["diameter", "--source", "max-degree"],
        &["pagerank"],
    ];
    for run in runs {
        for engine in ["memory", "selective"] {
            let mut args = vec!["run", run[0], s(&r), "--engine", engine];
            args.extend(&run[1..]);
            let without = ok(&args);
            args.extend(["--out", s(&tsv), "--force"]);
            let with = ok(&args);
            let summary = |out: &str| out.lines().next().unwrap().to_string();
            assert_eq!(summary(&without), summary(&with), "{args:?}");
        }
    }
}
