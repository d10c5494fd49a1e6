//! Hostile paths and values, refused before any work: a FIFO or a device in the place of a graph's
//! file; outputs that name the same file, or a file inside the graph being read; thread counts
//! past the bound; sizes exact to the byte and refused past 2^64 − 1; and two sizes in one
//! message that never print alike.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::{fails, ok, s};

/// A small undirected graph `g` in `dir`.
fn graph(dir: &Path) -> PathBuf {
    let g = dir.join("g");
    ok(&["generate", "kronecker", "--scale", "6", "-o", s(&g)]);
    g
}

/// Runs the binary with `args`, failing the test (and killing it) if it runs ten seconds.
fn within_ten_seconds(args: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_diskgraph"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run diskgraph");
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(10) {
            child.kill().unwrap();
            panic!("diskgraph {args:?} still runs after ten seconds");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

#[test]
fn a_fifo_or_a_device_in_place_of_the_manifest_is_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let g = graph(dir.path());
    let manifest = g.join("manifest.json");
    std::fs::remove_file(&manifest).unwrap();
    let made = Command::new("mkfifo").arg(&manifest).status().unwrap();
    assert!(made.success());
    let out = within_ten_seconds(&["info", s(&g)]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("{}: is a FIFO, not a regular file", manifest.display())),
        "{err}"
    );
    std::fs::remove_file(&manifest).unwrap();
    std::os::unix::fs::symlink("/dev/null", &manifest).unwrap();
    let out = within_ten_seconds(&["run", "bfs", s(&g), "--source", "0"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("manifest.json: is a character device, not a regular file"),
        "{err}"
    );
}

#[test]
fn outputs_naming_the_same_file_are_refused_before_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let g = graph(dir.path());
    let r = dir.path().join("r.tsv");
    let e = fails(&["run", "bfs", s(&g), "--source", "0", "--out", s(&r), "--stats", s(&r)]);
    assert!(
        e.ends_with(&format!(
            "--stats {} is also --out {}: give each output a path of its own",
            r.display(),
            r.display()
        )),
        "{e}"
    );
    assert!(!r.exists(), "nothing was written");
    let html = dir.path().join("r.html");
    let e = fails(&[
        "run",
        "bfs",
        s(&g),
        "--source",
        "0",
        "--stats",
        s(&html),
        "--report",
        s(&html),
    ]);
    assert!(e.contains("--report") && e.contains("is also --stats"), "{e}");
    assert!(!html.exists());
}

#[test]
fn an_output_inside_the_graph_is_refused_and_the_graph_still_opens() {
    let dir = tempfile::tempdir().unwrap();
    let g = graph(dir.path());
    let manifest = g.join("manifest.json");
    let before = std::fs::read(&manifest).unwrap();
    let e = fails(&["run", "bfs", s(&g), "--source", "0", "--stats", s(&manifest)]);
    assert!(
        e.ends_with(&format!(
            "--stats {} lies inside GRAPH {}, which this command reads: write it elsewhere",
            manifest.display(),
            g.display()
        )),
        "{e}"
    );
    assert_eq!(std::fs::read(&manifest).unwrap(), before);
    ok(&["info", s(&g)]);
    let inside = g.join("r.tsv");
    for args in [
        vec!["run", "bfs", s(&g), "--source", "0", "--out", s(&inside)],
        vec!["export", s(&g), "-o", s(&inside)],
        vec!["reorder", s(&g), "--method", "degree", "-o", s(&inside)],
        vec!["split", s(&g), "--parts", "2", "-o", s(&inside)],
        vec!["run", "pagerank", s(&g), "--engine", "shards", "--scratch", s(&g)],
    ] {
        let e = fails(&args);
        assert!(e.contains("which this command reads"), "{args:?}: {e}");
        assert!(!inside.exists(), "{args:?}");
    }
    // A directory holding the graph is not an output either (reorder --force would replace it).
    let e = fails(&["reorder", s(&g), "--method", "degree", "-o", s(dir.path()), "--force"]);
    assert!(e.contains("holds GRAPH"), "{e}");
    let e = fails(&[
        "reorder",
        s(&g),
        "--method",
        "gorder",
        "-o",
        s(&dir.path().join("g2")),
        "--checkpoint",
        s(&dir.path().join("g2").join("ckpt")),
    ]);
    assert!(e.contains("--checkpoint") && e.contains("lies inside -o"), "{e}");
    ok(&["info", s(&g)]);
}

#[test]
fn thread_counts_are_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let g = graph(dir.path());
    let e = fails(&["run", "bfs", s(&g), "--source", "0", "--threads", "1025"]);
    assert!(e.contains("threads must be at most 1024, got 1025"), "{e}");
    let e = fails(&["run", "bfs", s(&g), "--source", "0", "--threads", "100000"]);
    assert!(e.contains("threads must be at most 1024"), "{e}");
    let e = fails(&[
        "run",
        "bfs",
        s(&g),
        "--source",
        "0",
        "--engine",
        "selective",
        "--io-threads",
        "65",
    ]);
    assert!(e.contains("io_threads must be at most 64, got 65"), "{e}");
    let e = fails(&["graph500", s(&g), "--roots", "1", "--threads", "5000"]);
    assert!(e.contains("threads must be at most 1024, got 5000"), "{e}");
    ok(&["run", "bfs", s(&g), "--source", "0", "--threads", "2"]);
}

#[test]
fn sizes_are_exact_and_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let g = graph(dir.path());
    let stats = dir.path().join("s.json");
    let odd = ((1u64 << 53) + 1).to_string();
    ok(&[
        "run",
        "bfs",
        s(&g),
        "--source",
        "0",
        "--memory",
        &odd,
        "--stats",
        s(&stats),
    ]);
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
    assert_eq!(json["settings"]["memory"].as_u64(), Some((1 << 53) + 1));
    let e = fails(&["run", "bfs", s(&g), "--source", "0", "--memory", "18446744073709551616"]);
    assert!(
        e.contains("size \"18446744073709551616\" is out of range (1 to 18446744073709551615 bytes)"),
        "{e}"
    );
    let e = fails(&["run", "bfs", s(&g), "--source", "0", "--memory", "1.3KiB"]);
    assert!(e.contains("is not a whole number of bytes"), "{e}");
}

#[test]
fn two_sizes_in_one_message_never_print_alike() {
    let dir = tempfile::tempdir().unwrap();
    let g = dir.path().join("g10");
    ok(&["generate", "kronecker", "--scale", "10", "-o", s(&g)]);
    let out = dir.path().join("o");
    let e = fails(&[
        "reorder",
        s(&g),
        "--method",
        "gorder",
        "--memory",
        "50000",
        "-o",
        s(&out),
    ]);
    let need = e
        .split("this graph needs ")
        .nth(1)
        .and_then(|rest| rest.split(", more than --memory ").next())
        .unwrap_or_else(|| panic!("{e}"));
    let budget = e
        .split("more than --memory ")
        .nth(1)
        .and_then(|rest| rest.split(" (raise").next())
        .unwrap_or_else(|| panic!("{e}"));
    assert_eq!(budget, "50000B", "{e}");
    let need_bytes = diskgraph_cli::parse_size(need.split(' ').next().unwrap()).unwrap();
    assert!(need_bytes > 50000, "{e}");
    assert_ne!(need, budget, "{e}");
}
