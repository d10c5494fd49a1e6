//! Many `diskgraph run` processes on one graph directory at once, mixing every engine: each
//! writes what it writes when it runs alone — byte for byte, except PageRank on the stream and
//! selective engines, whose atomic float sums are order-dependent and agree to rounding.

#[allow(dead_code)] // the helpers this test does not use
mod common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use common::{ok, s};

/// Processes started together.
const AT_ONCE: usize = 6;

/// (algorithm, engine, extra flags) of the mix.
const JOBS: &[(&str, &str, &[&str])] = &[
    ("pagerank", "memory", &["--iterations", "5"]),
    ("pagerank", "selective", &["--iterations", "5"]),
    ("pagerank", "stream", &["--iterations", "5"]),
    ("pagerank", "sync", &["--iterations", "5"]),
    ("pagerank", "shards", &["--iterations", "5"]),
    ("wcc", "memory", &[]),
    ("wcc", "stream", &[]),
    ("wcc", "shards", &[]),
    ("bfs", "selective", &[]),
    ("bfs", "sync", &[]),
    ("kcore", "selective", &[]),
    ("kcore", "memory", &[]),
];

/// Starts job `j` on `graph`, writing its values to `out`.
fn start(graph: &Path, j: usize, out: &Path) -> Child {
    let (algorithm, engine, extra) = JOBS[j];
    Command::new(env!("CARGO_BIN_EXE_diskgraph"))
        .args([
            "run",
            algorithm,
            s(graph),
            "--engine",
            engine,
            "--memory",
            "32MiB",
            "--threads",
            "2",
        ])
        .args(extra)
        .args(["--out", s(out)])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start diskgraph")
}

/// Waits for `child` (job `j`), which must succeed.
fn finish(child: Child, j: usize) {
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{:?}: {}",
        JOBS[j],
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The rows of a `.tsv` result: (vertex ID, value).
fn rows(path: &Path) -> Vec<(u64, f64)> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| {
            let (id, v) = l.split_once('\t').unwrap();
            (id.parse().unwrap(), v.parse().unwrap())
        })
        .collect()
}

/// Checks job `j`'s output `got` against its lone run's `lone`.
fn same(j: usize, got: &Path, lone: &Path) {
    let (algorithm, engine, _) = JOBS[j];
    if algorithm == "pagerank" && (engine == "stream" || engine == "selective") {
        let (a, b) = (rows(got), rows(lone));
        assert_eq!(a.len(), b.len());
        for ((ia, x), (ib, y)) in a.iter().zip(&b) {
            assert_eq!(ia, ib);
            assert!(
                (x - y).abs() <= 1e-12 * y.abs(),
                "{algorithm} on {engine}, vertex {ia}: {x} vs {y}"
            );
        }
    } else {
        assert!(
            std::fs::read(got).unwrap() == std::fs::read(lone).unwrap(),
            "{algorithm} on {engine}: the output differs from a lone run's"
        );
    }
}

#[test]
fn processes_at_once_write_what_lone_runs_write() {
    let dir = tempfile::tempdir().unwrap();
    let g = dir.path().join("k15");
    ok(&["generate", "kronecker", "--scale", "15", "-o", s(&g)]);
    ok(&["partition", s(&g), "--memory", "1MiB"]);
    ok(&["partition", s(&g), "--shards", "4"]);
    let out = |kind: &str, j: usize| -> PathBuf { dir.path().join(format!("{kind}-{j}.tsv")) };
    for j in 0..JOBS.len() {
        finish(start(&g, j, &out("lone", j)), j);
    }
    // Every job twice, AT_ONCE processes at a time.
    let order: Vec<usize> = (0..2 * JOBS.len()).map(|i| i % JOBS.len()).collect();
    for (batch, jobs) in order.chunks(AT_ONCE).enumerate() {
        let children: Vec<(usize, Child)> = jobs
            .iter()
            .map(|&j| (j, start(&g, j, &out(&format!("at-once{batch}"), j))))
            .collect();
        for (j, child) in children {
            finish(child, j);
        }
        for &j in jobs {
            same(j, &out(&format!("at-once{batch}"), j), &out("lone", j));
        }
    }
    let left: Vec<String> = std::fs::read_dir(&g)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(left.is_empty(), "temporaries left in the graph: {left:?}");
}

/// `diskgraph run` processes on `grid-4` and `shards-4` while another process replaces both
/// with `--force` again and again: every run succeeds (the layout is never missing, its files
/// never gone) and writes what a lone run writes.
#[test]
fn runs_while_layouts_are_replaced_write_what_lone_runs_write() {
    let dir = tempfile::tempdir().unwrap();
    let g = dir.path().join("k12");
    ok(&["generate", "kronecker", "--scale", "12", "-o", s(&g)]);
    ok(&["partition", s(&g), "--grid", "4"]);
    ok(&["partition", s(&g), "--shards", "4"]);
    let run = |engine: &str, layout: &str, out: &Path| {
        Command::new(env!("CARGO_BIN_EXE_diskgraph"))
            .args([
                "run",
                "wcc",
                s(&g),
                "--engine",
                engine,
                "--layout",
                layout,
                "--threads",
                "1",
            ])
            .args(["--memory", "16MiB", "--out", s(out), "--force"])
            .output()
            .unwrap()
    };
    let readers = [("stream", "grid-4"), ("shards", "shards-4")];
    for (engine, layout) in readers {
        assert!(run(engine, layout, &dir.path().join(format!("lone-{engine}.tsv")))
            .status
            .success());
    }
    let writer = std::thread::spawn({
        let g = g.clone();
        move || {
            for _ in 0..8 {
                for how in [["--grid", "4"], ["--shards", "4"]] {
                    ok(&["partition", s(&g), how[0], how[1], "--force"]);
                }
            }
        }
    });
    let mut runs = 0;
    while !writer.is_finished() || runs == 0 {
        for (engine, layout) in readers {
            let out = dir.path().join(format!("at-once-{engine}.tsv"));
            let done = run(engine, layout, &out);
            assert!(
                done.status.success(),
                "{engine} on {layout} while it was replaced: {}",
                String::from_utf8_lossy(&done.stderr)
            );
            let lone = dir.path().join(format!("lone-{engine}.tsv"));
            assert!(
                std::fs::read(&out).unwrap() == std::fs::read(&lone).unwrap(),
                "{engine}: not a lone run's output"
            );
            runs += 1;
        }
    }
    writer.join().unwrap();
    assert!(runs >= 2);
}
