//! The shard engine from the command line: partition into shards, run every algorithm it runs
//! with and without GSC against the memory engine, measure the threshold curve, kill a run
//! midway — the graph still verifies and nothing of the run is left in it — and follow the
//! partition a refused budget names to a run that works.

mod common;

use std::process::Command;
use std::time::{Duration, Instant};

use common::{fails, ok, s};

/// The `(id, value)` rows of a run's TSV output.
fn rows(path: &std::path::Path) -> Vec<(String, String)> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| {
            let (a, b) = l.split_once('\t').unwrap();
            (a.to_string(), b.to_string())
        })
        .collect()
}

#[test]
fn shards_runs_equal_the_memory_engine() {
    let dir = tempfile::tempdir().unwrap();
    let g = dir.path().join("g");
    ok(&["generate", "kronecker", "--scale", "10", "-o", s(&g)]);
    let out = ok(&["partition", s(&g), "--shards", "4", "--block-size", "4KiB"]);
    assert!(out.contains("shards-4"), "{out}");
    ok(&["verify", s(&g)]);
    for (algo, extra) in [("wcc", vec![]), ("pagerank", vec!["--tolerance", "1e-10"])] {
        let want = dir.path().join(format!("{algo}-memory.tsv"));
        let mut args = vec!["run", algo, s(&g), "--engine", "memory", "--out", s(&want)];
        args.extend(&extra);
        ok(&args);
        for gsc in ["true", "false"] {
            let got = dir.path().join(format!("{algo}-{gsc}.tsv"));
            let mut args = vec![
                "run",
                algo,
                s(&g),
                "--engine",
                "shards",
                "--memory",
                "1MiB",
                "--gsc",
                gsc,
                "--out",
                s(&got),
            ];
            args.extend(&extra);
            ok(&args);
            let (a, b) = (rows(&want), rows(&got));
            assert_eq!(a.len(), b.len());
            let mut l1 = 0.0;
            for ((ia, va), (ib, vb)) in a.iter().zip(&b) {
                assert_eq!(ia, ib);
                match algo {
                    "wcc" => assert_eq!(va, vb, "wcc {ia}"),
                    _ => l1 += (va.parse::<f64>().unwrap() - vb.parse::<f64>().unwrap()).abs(),
                }
            }
            // Both within the tolerance's bound of the fixed point (1024 vertices × 1e-10),
            // and the contributions' f32 rounding.
            assert!(
                l1 <= 12.0 * 1024.0 * 1e-10 + 1e-5,
                "pagerank: L1 {l1} from the memory engine's"
            );
        }
    }
    let err = fails(&["run", "wcc", s(&g), "--engine", "shards", "--memory", "4KiB"]);
    assert!(err.contains("give it at least"), "{err}");
}

#[test]
fn threshold_prints_the_curve_with_and_without_gsc() {
    let dir = tempfile::tempdir().unwrap();
    let g = dir.path().join("g");
    ok(&[
        "generate",
        "erdos-renyi",
        "--vertices",
        "2000",
        "--edges",
        "20000",
        "-o",
        s(&g),
    ]);
    ok(&["partition", s(&g), "--shards", "3", "--block-size", "4KiB"]);
    let out = ok(&[
        "threshold",
        s(&g),
        "--algo",
        "pagerank",
        "--points",
        "3",
        "--set",
        "iterations=3",
    ]);
    assert!(
        out.contains("GraphChi") && out.contains("GSC") && out.contains("threshold"),
        "{out}"
    );
    let json = ok(&["threshold", s(&g), "--algo", "wcc", "--points", "2", "--json"]);
    let points: serde_json::Value = serde_json::from_str(&json).unwrap();
    let points = points.as_array().unwrap();
    assert_eq!(points.len(), 2);
    for p in points {
        assert!(
            p["gsc_io_bytes"].as_u64().unwrap() <= p["graphchi_io_bytes"].as_u64().unwrap(),
            "{p}"
        );
    }
    let err = fails(&["threshold", s(&g), "--algo", "pagerank", "--set", "nonsense"]);
    assert!(err.contains("NAME=VALUE"), "{err}");
}

#[test]
fn a_run_killed_midway_leaves_the_graph_verifying() {
    let dir = tempfile::tempdir().unwrap();
    let g = dir.path().join("g");
    let scratch = dir.path().join("scratch");
    std::fs::create_dir(&scratch).unwrap();
    ok(&["generate", "kronecker", "--scale", "12", "-o", s(&g)]);
    ok(&["partition", s(&g), "--shards", "3", "--block-size", "4KiB"]);
    let mut child = Command::new(env!("CARGO_BIN_EXE_diskgraph"))
        .args([
            "run",
            "pagerank",
            s(&g),
            "--engine",
            "shards",
            "--memory",
            "2MiB",
            "--gsc",
            "false",
            "--iterations",
            "100000",
            "--scratch",
            s(&scratch),
        ])
        .spawn()
        .unwrap();
    // Kill it once its scratch copy is being written, or after a while.
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(20) {
        let written = std::fs::read_dir(&scratch).unwrap().any(|e| {
            let d = e.unwrap().path();
            std::fs::metadata(d.join("values.u32")).is_ok()
        });
        if written && start.elapsed() > Duration::from_millis(500) {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.kill().unwrap();
    let status = child.wait().unwrap();
    assert!(!status.success(), "the run was killed, not finished");
    ok(&["verify", s(&g)]);
    // The graph directory holds nothing of the run; rerunning works.
    let names: Vec<String> = std::fs::read_dir(&g)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        names.iter().all(|n| !n.starts_with('.') && !n.contains("scratch")),
        "{names:?}"
    );
    ok(&["run", "wcc", s(&g), "--engine", "shards", "--memory", "2MiB"]);
}

/// `args` as `&str`s.
fn strs(args: &[String]) -> Vec<&str> {
    args.iter().map(String::as_str).collect()
}

/// The command quoted (between backquotes) in `msg` after `after`, as arguments without the
/// leading `diskgraph`.
fn quoted_command(msg: &str, after: &str) -> Vec<String> {
    let rest = &msg[msg.find(after).unwrap_or_else(|| panic!("no {after:?} in {msg}")) + after.len()..];
    let start = rest
        .find("`diskgraph ")
        .unwrap_or_else(|| panic!("no command in {msg}"))
        + "`diskgraph ".len();
    let end = start + rest[start..].find('`').unwrap();
    rest[start..end].split_whitespace().map(str::to_string).collect()
}

#[test]
fn a_refused_budget_names_the_partition_that_fits() {
    let dir = tempfile::tempdir().unwrap();
    let g = dir.path().join("g");
    ok(&["generate", "kronecker", "--scale", "10", "-o", s(&g)]);
    let run = |layout: &str, memory: &str| {
        vec![
            "run",
            "pagerank",
            s(&g),
            "--engine",
            "shards",
            "--layout",
            layout,
            "--memory",
            memory,
        ]
        .into_iter()
        .map(str::to_string)
        .collect::<Vec<String>>()
    };
    // Four shards in 1 MiB blocks need megabytes; in 2 MiB the same shards fit in smaller blocks.
    ok(&["partition", s(&g), "--shards", "4", "--block-size", "1MiB"]);
    let msg = fails(&strs(&run("shards-4", "2MiB")));
    assert!(msg.contains("give it at least"), "{msg}");
    let rebuild = quoted_command(&msg, "or rebuild it with smaller blocks: ");
    assert_eq!(&rebuild[..4], &["partition", s(&g), "--shards", "4"], "{msg}");
    assert!(rebuild.contains(&"--block-size".to_string()) && rebuild.contains(&"--force".to_string()));
    ok(&strs(&rebuild));
    ok(&strs(&run("shards-4", "2MiB")));
    // Below every layout's least: the budget that works and the partition for it.
    let msg = fails(&strs(&run("shards-4", "100KiB")));
    let fix = quoted_command(
        &msg,
        "no shards layout of this graph runs within 100KiB, the smallest budget one does is ",
    );
    assert_eq!(&fix[..4], &["partition", s(&g), "--shards", "auto"], "{msg}");
    let least = fix[5].clone();
    ok(&strs(&fix));
    // A run at that budget now works.
    let out = ok(&[
        "run",
        "pagerank",
        s(&g),
        "--engine",
        "shards",
        "--memory",
        &least,
        "--iterations",
        "2",
    ]);
    assert!(out.contains("pagerank"), "{out}");
    // One shard in 4 KiB blocks needs more than that least: partitioning for the budget fits.
    ok(&["partition", s(&g), "--shards", "1", "--block-size", "4KiB"]);
    let msg = fails(&strs(&run("shards-1", &least)));
    let fix = quoted_command(&msg, "or partition for this budget: ");
    assert_eq!(
        strs(&fix[..6]),
        ["partition", s(&g), "--shards", "auto", "--memory", &least],
        "{msg}"
    );
}
