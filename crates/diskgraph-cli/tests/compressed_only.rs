//! Compressed-only graphs end to end (`import --compress CODEC`, `generate --compress CODEC`,
//! `--keep-plain`): no `out.adj` is written, and every command — verify, info, export,
//! partition (grid and shards), reorder, split, select, compress — and every engine gives on
//! them what it gives on the same graph imported plain; `--adjacency plain` is refused, naming
//! the graph as compressed-only.

use std::path::{Path, PathBuf};

mod common;
use common::{diskgraph, fails, ok, s};

/// A directed, weighted Matrix Market graph of 12 vertices: self-loops, a duplicate with
/// another weight, a hub, and isolated vertices (10, 11 and 12 have no edge).
const NASTY: &str = "%%MatrixMarket matrix coordinate real general
12 12 14
1 2 0.5
1 3 2
1 1 1
2 3 1.5
3 1 0.25
3 4 3
4 5 1
5 1 2
5 6 1
6 7 0.5
7 8 4
8 9 1
9 1 1
1 2 0.125
";

/// Imports `input` to `dir/name` with `extra` flags; the graph's path.
fn import(input: &Path, dir: &Path, name: &str, extra: &[&str]) -> PathBuf {
    let g = dir.join(name);
    let mut args = vec!["import", s(input), "-o", s(&g), "--keep-self-loops"];
    args.extend_from_slice(extra);
    ok(&args);
    g
}

/// The graph exported as an edge list of `format` (`el`, `wel`).
fn exported(g: &Path, dir: &Path, format: &str) -> String {
    let file = dir.join(format!("{}.{format}", g.file_name().unwrap().to_string_lossy()));
    ok(&["export", s(g), "-o", s(&file), "--format", format, "--force"]);
    std::fs::read_to_string(file).unwrap()
}

/// The `--out` TSV of `algo` on `g` with `args`.
fn result(g: &Path, algo: &str, args: &[&str], out: &Path) -> String {
    let mut all = vec![
        "run",
        algo,
        s(g),
        "--out",
        s(out),
        "--force",
        "--memory",
        "1MiB",
        "--verify",
    ];
    all.extend_from_slice(args);
    ok(&all);
    std::fs::read_to_string(out).unwrap()
}

#[test]
fn a_compressed_only_graph_goes_through_every_command_and_engine() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("nasty.mtx");
    std::fs::write(&input, NASTY).unwrap();
    let plain = import(&input, dir.path(), "plain", &[]);
    let want_export = exported(&plain, dir.path(), "wel");
    let out = dir.path().join("r.tsv");
    let bfs = ["--source", "1"];
    let want_bfs = result(&plain, "bfs", &["--engine", "memory", "--source", "1"], &out);
    let want_sssp = result(&plain, "sssp", &["--engine", "memory", "--source", "1"], &out);
    let want_wcc = result(&plain, "wcc", &["--engine", "memory"], &out);
    for codec in ["vbyte", "zeta"] {
        let g = import(&input, dir.path(), codec, &["--compress", codec]);
        assert!(!g.join("out.adj").exists() && !g.join("in.adj").exists(), "{codec}");
        assert!(g.join(format!("compressed-{codec}")).join("in.cadj").exists());
        let info = ok(&["info", s(&g)]);
        assert!(
            info.contains(&format!("compressed-only: in compressed-{codec}")),
            "{info}"
        );
        assert!(ok(&["verify", s(&g)]).contains(": ok"));
        assert_eq!(exported(&g, dir.path(), "wel"), want_export, "{codec}: export");
        ok(&["partition", s(&g), "--grid", "2"]);
        ok(&["partition", s(&g), "--shards", "3", "--block-size", "4KiB"]);
        for engine in ["memory", "selective", "sync", "stream"] {
            let mut args = vec!["--engine", engine];
            args.extend_from_slice(&bfs);
            assert_eq!(result(&g, "bfs", &args, &out), want_bfs, "{codec} bfs on {engine}");
        }
        for engine in ["memory", "selective", "sync", "stream", "shards"] {
            assert_eq!(
                result(&g, "wcc", &["--engine", engine], &out),
                want_wcc,
                "{codec} wcc on {engine}"
            );
        }
        for engine in ["memory", "sync"] {
            let args = ["--engine", engine, "--source", "1"];
            assert_eq!(result(&g, "sssp", &args, &out), want_sssp, "{codec} sssp on {engine}");
        }
        let err = fails(&["run", "sssp", s(&g), "--engine", "selective", "--source", "1"]);
        assert!(
            err.contains("compressed-only") && err.contains("--engine memory"),
            "{err}"
        );
        let err = fails(&[
            "run",
            "bfs",
            s(&g),
            "--engine",
            "memory",
            "--adjacency",
            "plain",
            "--source",
            "1",
        ]);
        assert!(err.contains("compressed-only") && err.contains("no out.adj"), "{err}");
        // The other codec as a derived layout; the lists' own layout cannot be replaced.
        let other = if codec == "vbyte" { "zeta" } else { "vbyte" };
        ok(&["compress", s(&g), "--codec", other]);
        let err = fails(&["compress", s(&g), "--codec", codec, "--force"]);
        assert!(err.contains("holds the graph's lists"), "{err}");
        ok(&["select", s(&g), "--method", "gvs", "--size", "0.5"]);
        assert!(ok(&["verify", s(&g)]).contains(": ok"));
        let args = [
            "--engine",
            "selective",
            "--adjacency",
            other,
            "--basc",
            "gvs",
            "--source",
            "1",
        ];
        assert_eq!(result(&g, "bfs", &args, &out), want_bfs, "{codec} bfs reading {other}");
        let reordered = dir.path().join(format!("{codec}-reordered"));
        ok(&["reorder", s(&g), "-o", s(&reordered), "--method", "degree"]);
        assert!(ok(&["verify", s(&reordered)]).contains(": ok"));
        assert_eq!(result(&reordered, "bfs", &bfs, &out), want_bfs, "{codec}: reordered");
        let split = dir.path().join(format!("{codec}-split"));
        ok(&["split", s(&g), "--parts", "4", "-o", s(&split)]);
        assert!(ok(&["verify", s(&split)]).contains(": ok"));
    }
}

#[test]
fn undirected_compressed_only_graphs_answer_as_plain_ones() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("plain");
    ok(&["generate", "kronecker", "--scale", "9", "-o", s(&plain)]);
    let out = dir.path().join("r.tsv");
    let want_wcc = result(&plain, "wcc", &["--engine", "memory"], &out);
    let want_pr = result(&plain, "pagerank", &["--engine", "memory", "--iterations", "5"], &out);
    for codec in ["vbyte", "zeta"] {
        let g = dir.path().join(codec);
        let said = ok(&[
            "generate",
            "kronecker",
            "--scale",
            "9",
            "-o",
            s(&g),
            "--compress",
            codec,
        ]);
        assert!(said.contains("compressed-only"), "{said}");
        assert!(!g.join("out.adj").exists());
        for engine in ["memory", "selective", "sync"] {
            assert_eq!(
                result(&g, "wcc", &["--engine", engine], &out),
                want_wcc,
                "{codec} wcc on {engine}"
            );
        }
        let pr = result(&g, "pagerank", &["--engine", "memory", "--iterations", "5"], &out);
        assert_eq!(pr, want_pr, "{codec} pagerank");
        assert_eq!(
            exported(&g, dir.path(), "el"),
            exported(&plain, dir.path(), "el"),
            "{codec}: export"
        );
    }
    // Both forms: the plain lists and the derived layout beside them.
    let both = dir.path().join("both");
    let said = ok(&[
        "generate",
        "kronecker",
        "--scale",
        "9",
        "-o",
        s(&both),
        "--compress",
        "vbyte",
        "--keep-plain",
    ]);
    assert!(said.contains("beside the plain lists"), "{said}");
    assert!(both.join("out.adj").exists() && both.join("compressed-vbyte").join("out.cadj").exists());
    assert!(ok(&["verify", s(&both)]).contains(": ok"));
    let plain_lists = std::fs::read(plain.join("out.adj")).unwrap();
    assert_eq!(std::fs::read(both.join("out.adj")).unwrap(), plain_lists);
    assert_eq!(result(&both, "wcc", &["--engine", "memory"], &out), want_wcc);
    let refused = diskgraph(&["import", "x", "-o", s(&dir.path().join("y")), "--keep-plain"]);
    let err = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{err}");
    assert!(err.contains("--compress <CODEC>"), "{err}");
}
