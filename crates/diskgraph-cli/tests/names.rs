//! Any node IDs, any common input: CSV import with names, names in every output and option,
//! standard input and FIFOs, and the warnings about ignored columns and rounded weights.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

mod common;
use common::{fails, ok, s};

/// Runs the binary with `args`, `stdin` piped in.
fn with_stdin(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_diskgraph"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run diskgraph");
    let mut pipe = child.stdin.take().unwrap();
    // A command that fails before reading its input closes the pipe: that is its answer.
    let _ = pipe.write_all(stdin);
    drop(pipe);
    child.wait_with_output().unwrap()
}

const PEOPLE: &str =
    "source,target,weight\nalice,bob,1.5\nbob,\"carol, jr\",2\n\"carol, jr\",alice,0.5\ndave,alice,3\n";

/// Imports `PEOPLE` (weighted) into `dir/p.dg`; returns the graph's path and the stderr.
fn people(dir: &Path) -> (std::path::PathBuf, String) {
    let input = dir.join("people.csv");
    std::fs::write(&input, PEOPLE).unwrap();
    let graph = dir.join("p.dg");
    let out = Command::new(env!("CARGO_BIN_EXE_diskgraph"))
        .args(["import", s(&input), "-o", s(&graph), "--weighted"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    (graph, String::from_utf8(out.stderr).unwrap())
}

#[test]
fn a_csv_of_names_round_trips_through_run_export_and_info() {
    let dir = tempfile::tempdir().unwrap();
    let (graph, stderr) = people(dir.path());
    assert!(stderr.contains("header row [source, target, weight]"), "{stderr}");
    ok(&["verify", s(&graph)]);
    let info = ok(&["info", s(&graph)]);
    assert!(
        info.contains(r#"names      "alice", "bob", "carol, jr", "dave""#),
        "{info}"
    );
    let json: serde_json::Value = serde_json::from_str(&ok(&["info", s(&graph), "--json"])).unwrap();
    assert_eq!(json["names"], true);

    // A source by name; rows by name.
    let tsv = dir.path().join("d.tsv");
    let stdout = ok(&["run", "sssp", s(&graph), "--source", "dave", "--out", s(&tsv)]);
    assert!(stdout.contains("reached 4 of 4 vertices"), "{stdout}");
    let rows = std::fs::read_to_string(&tsv).unwrap();
    assert_eq!(rows, "alice\t3.0\nbob\t4.5\ncarol, jr\t6.5\ndave\t0.0\n");
    // Summaries name vertices.
    let stdout = ok(&["run", "pagerank", s(&graph)]);
    assert!(stdout.contains("top: alice "), "{stdout}");
    // Several sources by name (a name holding a comma cannot be one of them).
    let tsv = dir.path().join("m.tsv");
    ok(&["run", "msbfs", s(&graph), "--sources", "alice, dave", "--out", s(&tsv)]);
    let sums = std::fs::read_to_string(&tsv).unwrap();
    assert_eq!(sums, "alice\t1\nbob\t3\ncarol, jr\t5\ndave\t0\n", "distance sums");
    // Values that are vertices are named too.
    let tsv = dir.path().join("parents.tsv");
    ok(&[
        "run",
        "bfs",
        s(&graph),
        "--source",
        "bob",
        "--parents",
        "--out",
        s(&tsv),
    ]);
    let parents = std::fs::read_to_string(&tsv).unwrap();
    assert_eq!(parents, "alice\tcarol, jr\nbob\tbob\ncarol, jr\tbob\ndave\t-1\n");
    let tsv = dir.path().join("wcc.tsv");
    ok(&["run", "wcc", s(&graph), "--out", s(&tsv)]);
    let labels = std::fs::read_to_string(&tsv).unwrap();
    assert_eq!(labels, "alice\talice\nbob\talice\ncarol, jr\talice\ndave\talice\n");
    let err = fails(&["run", "bfs", s(&graph), "--source", "erin"]);
    assert!(err.contains("no vertex is named \"erin\""), "{err}");

    // CSV export writes the names back, and re-imports to the same graph.
    let csv = dir.path().join("out.csv");
    ok(&["export", s(&graph), "-o", s(&csv), "--format", "csv"]);
    let text = std::fs::read_to_string(&csv).unwrap();
    assert!(text.starts_with("source,target,weight\nalice,bob,1.5\n"), "{text}");
    assert!(text.contains("bob,\"carol, jr\",2\n"), "{text}");
    let again = dir.path().join("again.dg");
    ok(&["import", s(&csv), "-o", s(&again), "--weighted"]);
    let tsv2 = dir.path().join("d2.tsv");
    ok(&["run", "sssp", s(&again), "--source", "dave", "--out", s(&tsv2)]);
    assert_eq!(std::fs::read_to_string(&tsv2).unwrap(), rows);
}

#[test]
fn standard_input_is_read_by_content() {
    let dir = tempfile::tempdir().unwrap();
    let graph = dir.path().join("s.dg");
    let out = with_stdin(&["import", "-", "-o", s(&graph)], PEOPLE.as_bytes());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("format auto: csv (the first line has commas)"),
        "{stderr}"
    );
    assert!(
        stderr.contains("warning: <stdin>:2: column 2 (\"weight\") holds numbers and is ignored"),
        "{stderr}"
    );
    let info = ok(&["info", s(&graph)]);
    assert!(info.contains("vertices   4"), "{info}");

    let graph = dir.path().join("t.dg");
    let out = with_stdin(&["import", "-", "-o", s(&graph)], b"# snap\n0 1\n1 2\n");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(ok(&["info", s(&graph)]).contains("vertices   3"));

    // A fault names standard input and the line; binary input needs a regular file.
    let out = with_stdin(&["import", "-", "-o", s(&dir.path().join("x.dg"))], b"0 1\n1 x\n");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && stderr.contains("<stdin>:2: vertex ID \"x\""),
        "{stderr}"
    );
    let out = with_stdin(
        &["import", "-", "--format", "bin32", "-o", s(&dir.path().join("b.dg"))],
        &[0; 8],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && stderr.contains("needs a regular file"),
        "{stderr}"
    );
}

#[test]
fn a_fifo_is_read_front_to_back() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("edges.fifo");
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(made.success());
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            let mut f = std::fs::OpenOptions::new().write(true).open(fifo).unwrap();
            let gz = {
                let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
                e.write_all(b"0 1 2.5\n1 2 0.5\n2 0 1\n").unwrap();
                e.finish().unwrap()
            };
            f.write_all(&gz).unwrap();
        })
    };
    let graph = dir.path().join("f.dg");
    ok(&["import", s(&fifo), "-o", s(&graph), "--weighted"]);
    writer.join().unwrap();
    let info = ok(&["info", s(&graph)]);
    assert!(info.contains("vertices   3") && info.contains("weighted"), "{info}");
}

#[test]
fn an_ignored_third_column_and_a_rounded_weight_are_warned_about_once() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("w.txt");
    std::fs::write(&input, "0 1\n1 2 5\n2 3 6\n").unwrap();
    let out = common::diskgraph(&["import", s(&input), "-o", s(&dir.path().join("a.dg"))]);
    assert!(out.status.success());
    let stderr = String::from_utf8(out.stderr).unwrap();
    let warnings: Vec<&str> = stderr.lines().filter(|l| l.starts_with("warning:")).collect();
    assert_eq!(
        warnings,
        [format!("warning: {}:2: a third column is ignored: the input is read as unweighted (pass --weighted to read it as edge weights)", input.display())]
    );

    std::fs::write(&input, "0 1 1\n1 2 16777217\n2 3 16777219\n").unwrap();
    let out = common::diskgraph(&["import", s(&input), "-o", s(&dir.path().join("b.dg")), "--weighted"]);
    assert!(out.status.success());
    let stderr = String::from_utf8(out.stderr).unwrap();
    let warnings: Vec<&str> = stderr.lines().filter(|l| l.starts_with("warning:")).collect();
    assert_eq!(warnings.len(), 1, "{stderr}");
    assert!(
        warnings[0].contains(":2: weight \"16777217\" is stored as 16777216: weights are 32-bit floats"),
        "{stderr}"
    );
}
