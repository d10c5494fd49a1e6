//! `diskgraph compress` and `import --compress` end to end: the layout is published and recorded,
//! `info` and `verify` see it, runs read it by default and with `--adjacency`, giving the plain
//! lists' answers; an existing layout needs `--force`; an unknown codec, a missing layout and a
//! damaged list are one-line errors naming what is wrong.

use std::path::{Path, PathBuf};

mod common;
use common::{diskgraph, fails, flip_byte, ok, s};

fn generated(dir: &Path) -> PathBuf {
    let g = dir.join("g");
    ok(&["generate", "kronecker", "--scale", "10", "-o", s(&g)]);
    g
}

/// The `--out` TSV of `algo` on `engine` reading `adjacency`.
fn result(g: &Path, algo: &str, engine: &str, adjacency: &str, out: &Path) -> String {
    ok(&[
        "run",
        algo,
        s(g),
        "--engine",
        engine,
        "--memory",
        "1MiB",
        "--adjacency",
        adjacency,
        "--out",
        s(out),
        "--force",
    ]);
    std::fs::read_to_string(out).unwrap()
}

/// Two result TSVs hold the same vertices and values (pagerank's sums may differ in the last
/// bits where an engine's summation order varies: relative 1e-9).
fn same_values(got: &str, want: &str, ctx: &str) {
    let rows = |t: &str| -> Vec<(String, f64)> {
        t.lines()
            .map(|l| {
                let (v, x) = l.split_once('\t').unwrap();
                (v.to_string(), x.parse().unwrap())
            })
            .collect()
    };
    let (got, want) = (rows(got), rows(want));
    assert_eq!(got.len(), want.len(), "{ctx}");
    for ((gv, gx), (wv, wx)) in got.iter().zip(&want) {
        assert_eq!(gv, wv, "{ctx}");
        assert!(
            (gx - wx).abs() <= 1e-9 * wx.abs().max(1e-300),
            "{ctx}: vertex {gv}: {gx} vs {wx}"
        );
    }
}

#[test]
fn compress_publishes_a_layout_that_runs_read() {
    let dir = tempfile::tempdir().unwrap();
    let g = generated(dir.path());
    let out = ok(&["compress", s(&g)]);
    assert!(
        out.contains("compressed-vbyte:") && out.contains("bytes per arc"),
        "{out}"
    );
    let info = ok(&["info", s(&g)]);
    assert!(
        info.contains("compressed-vbyte") && info.contains("vbyte codec"),
        "{info}"
    );
    let json: serde_json::Value = serde_json::from_str(&ok(&["info", s(&g), "--json"])).unwrap();
    let details = &json["layout_details"][0];
    assert_eq!(details["compressed"][0], "vbyte", "{details}");
    assert!(ok(&["verify", s(&g)]).contains(": ok"));
    let tsv = dir.path().join("r.tsv");
    for algo in ["bfs", "wcc", "pagerank"] {
        for engine in ["memory", "selective", "sync"] {
            let plain = result(&g, algo, engine, "plain", &tsv);
            for adjacency in ["vbyte", "auto"] {
                let got = result(&g, algo, engine, adjacency, &tsv);
                same_values(&got, &plain, &format!("{algo} on {engine}, {adjacency}"));
            }
        }
    }
    let stats = dir.path().join("s.json");
    ok(&["run", "bfs", s(&g), "--engine", "memory", "--stats", s(&stats)]);
    let stats: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
    assert_eq!(stats["settings"]["adjacency"], "compressed-vbyte");
    assert!(fails(&["compress", s(&g)]).contains("already exists"));
    ok(&["compress", s(&g), "--force"]);
}

#[test]
fn import_compress_and_bad_requests() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("e.txt");
    std::fs::write(&input, "1 2\n2 3\n3 1\n7 1\n").unwrap();
    let g = dir.path().join("g");
    let out = ok(&["import", s(&input), "-o", s(&g), "--compress", "vbyte"]);
    assert!(out.contains("compressed-vbyte:"), "{out}");
    assert!(ok(&["verify", s(&g)]).contains(": ok"));
    let bad = diskgraph(&["compress", s(&g), "--codec", "lz4"]);
    let err = String::from_utf8_lossy(&bad.stderr);
    assert_eq!(bad.status.code(), Some(2), "{err}");
    assert!(err.contains("unknown codec \"lz4\"") && err.contains("vbyte"), "{err}");
    let plain = dir.path().join("plain");
    ok(&["import", s(&input), "-o", s(&plain)]);
    let err = fails(&["run", "bfs", s(&plain), "--adjacency", "vbyte"]);
    assert!(
        err.contains("no compressed-vbyte layout") && err.contains("diskgraph compress"),
        "{err}"
    );
    let err = fails(&["run", "bfs", s(&plain), "--engine", "stream", "--adjacency", "plain"]);
    assert!(err.contains("adjacency"), "{err}");
}

#[test]
fn a_damaged_compressed_list_is_an_error_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let g = generated(dir.path());
    ok(&["compress", s(&g)]);
    flip_byte(&g.join("compressed-vbyte").join("out.cadj"), 100);
    let err = fails(&["verify", s(&g)]);
    assert!(err.contains("out.cadj") && err.contains("checksum"), "{err}");
}

#[test]
fn partition_shards_compress_publishes_a_layout_the_shard_engine_runs() {
    let dir = tempfile::tempdir().unwrap();
    let g = generated(dir.path());
    ok(&["partition", s(&g), "--shards", "3", "--block-size", "4KiB"]);
    let out = ok(&[
        "partition",
        s(&g),
        "--shards",
        "3",
        "--block-size",
        "4KiB",
        "--compress",
        "vbyte",
    ]);
    assert!(out.contains("shards-3-vbyte"), "{out}");
    let info = ok(&["info", s(&g)]);
    let line = info
        .lines()
        .find(|l| l.trim_start().starts_with("shards-3-vbyte "))
        .unwrap_or_default();
    assert!(line.contains("vbyte codec"), "{info}");
    assert!(ok(&["verify", s(&g)]).contains(": ok"));
    let run = |layout: &str| {
        let out = dir.path().join(format!("{layout}.tsv"));
        let args = [
            "run",
            "pagerank",
            s(&g),
            "--engine",
            "shards",
            "--layout",
            layout,
            "--out",
            s(&out),
        ];
        ok(&args);
        std::fs::read_to_string(&out).unwrap()
    };
    let (plain, packed) = (run("shards-3"), run("shards-3-vbyte"));
    assert!(
        !plain.is_empty() && packed == plain,
        "shards-3-vbyte's pagerank differs"
    );
    let bad = diskgraph(&["partition", s(&g), "--shards", "3", "--compress", "lz4"]);
    let err = String::from_utf8_lossy(&bad.stderr);
    assert_eq!(bad.status.code(), Some(2), "{err}");
    assert!(err.contains("lz4"), "{err}");
}
