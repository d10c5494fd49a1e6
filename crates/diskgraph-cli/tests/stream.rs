//! `diskgraph run --engine stream` end to end: generate → partition → run every stream
//! algorithm with its options, against the memory engine's output files; and the errors a user
//! meets (no layout yet, a missing named layout, an unknown method), each one line.

use std::path::Path;

mod common;
use common::{fails, ok, s};

/// `vertex<TAB>value` lines of a result file.
fn rows(path: &Path) -> Vec<(String, String)> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| {
            let (v, x) = l.split_once('\t').unwrap();
            (v.to_string(), x.to_string())
        })
        .collect()
}

/// Asserts two result files agree: exactly, or within a relative 1e-9 for floats.
fn same(a: &Path, b: &Path) {
    let (ra, rb) = (rows(a), rows(b));
    assert_eq!(ra.len(), rb.len());
    for ((va, xa), (vb, xb)) in ra.iter().zip(&rb) {
        assert_eq!(va, vb);
        if xa != xb {
            let (x, y): (f64, f64) = (xa.parse().unwrap(), xb.parse().unwrap());
            assert!(
                (x - y).abs() <= 1e-9 * x.abs().max(y.abs()),
                "{}: {va}: {xa} vs {xb}",
                a.display()
            );
        }
    }
}

#[test]
fn partition_then_stream_every_algorithm() {
    let dir = tempfile::tempdir().unwrap();
    let g = dir.path().join("g");
    let out = |name: &str| dir.path().join(name);
    ok(&[
        "generate",
        "erdos-renyi",
        "--vertices",
        "1500",
        "--edges",
        "6000",
        "--weighted",
        "-o",
        s(&g),
    ]);
    // No layout yet: the error names the command that makes one.
    let msg = fails(&["run", "sssp", s(&g), "--engine", "stream"]);
    assert!(msg.contains(&format!("diskgraph partition {}", s(&g))), "{msg}");
    ok(&["partition", s(&g), "--grid", "4"]);
    ok(&["partition", s(&g), "--grid", "2", "--sort", "source"]);
    let cases: &[(&str, &[&str])] = &[
        ("sssp", &["--mrt", "1"]),
        ("sssp", &["--vertex-state", "mmap", "--memory", "256KiB"]),
        ("bfs", &["--mrt", "10", "--io", "pread"]),
        ("bfs", &["--parents"]),
        ("wcc", &[]),
        ("wcc", &["--method", "label-propagation", "--mrt", "3"]),
        ("pagerank", &["--iterations", "15"]),
        ("spmv", &["--layout", "grid-2-source"]),
        ("mis", &[]),
        ("mis", &["--layout", "grid-4", "--vertex-state", "mmap"]),
    ];
    for (k, (alg, flags)) in cases.iter().enumerate() {
        let (mem, strm, stats) = (
            out(&format!("{k}.m.tsv")),
            out(&format!("{k}.s.tsv")),
            out(&format!("{k}.json")),
        );
        let common = ["run", alg, s(&g), "--threads", "2"];
        let extra: Vec<&str> = flags
            .iter()
            .copied()
            .filter(|f| *f == "--parents" || *f == "15" || *f == "--iterations")
            .collect();
        ok(&[&common[..], &["--engine", "memory", "--out", s(&mem)], &extra[..]].concat());
        let stdout = ok(&[
            &common[..],
            &["--engine", "stream", "--out", s(&strm), "--stats", s(&stats)],
            flags,
        ]
        .concat());
        assert!(stdout.contains("on engine stream"), "{stdout}");
        if *alg == "bfs" && flags.contains(&"--parents") {
            assert_eq!(rows(&strm).len(), 1500);
        } else {
            same(&mem, &strm);
        }
        let st: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
        assert_eq!(st["engine"], "stream");
        assert!(st["bytes_read"].as_u64().unwrap() > 0, "{alg}");
        let set = &st["settings"];
        assert!(set["layout"].as_str().unwrap().starts_with("grid-"));
        if let Some(i) = flags.iter().position(|f| *f == "--mrt") {
            assert_eq!(set["mrt"].to_string(), flags[i + 1]);
        }
        if flags.contains(&"mmap") {
            assert_eq!(set["vertex_state"], "mmap");
        }
        if flags.contains(&"pread") {
            assert_eq!(set["io_backend"], "pread");
        }
    }
    // wcc by union-find takes one pass; mis greedy prefers the source layout.
    let st: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(out("4.json")).unwrap()).unwrap();
    assert_eq!(st["iterations"], 1);
    let st: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(out("8.json")).unwrap()).unwrap();
    assert_eq!(st["settings"]["layout"], "grid-2-source");
}

#[test]
fn stream_errors_are_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let g = dir.path().join("g");
    ok(&[
        "generate",
        "erdos-renyi",
        "--vertices",
        "200",
        "--edges",
        "600",
        "-o",
        s(&g),
    ]);
    ok(&["partition", s(&g), "--grid", "2"]);
    let msg = fails(&["run", "bfs", s(&g), "--engine", "stream", "--layout", "grid-3"]);
    assert!(msg.contains("no layout grid-3") && msg.contains("grid-2"), "{msg}");
    let msg = fails(&["run", "wcc", s(&g), "--engine", "stream", "--method", "magic"]);
    assert!(msg.contains("union-find or label-propagation"), "{msg}");
    let msg = fails(&["run", "kcore", s(&g), "--engine", "stream"]);
    assert!(msg.contains("no stream variant"), "{msg}");
    let msg = fails(&["run", "bfs", s(&g), "--engine", "stream", "--memory", "4KiB"]);
    assert!(msg.contains("budget"), "{msg}");
    let msg = fails(&["run", "bfs", s(&g), "--engine", "stream", "--io", "mmap"]);
    assert!(msg.contains("io mmap is for the selective or sync engine"), "{msg}");
    let out = common::diskgraph(&["run", "bfs", s(&g), "--vertex-state", "disk"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("memory or mmap"));
}
