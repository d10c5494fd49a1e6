//! `diskgraph run --engine selective` end to end: every algorithm with every I/O flag gives the
//! memory engine's output file; `auto` says what it picked; spmv reads `--x` as text and .npy;
//! bad flags fail with one line.

use std::path::{Path, PathBuf};

mod common;
use common::{diskgraph, fails, ok, s};

/// A weighted directed graph with sparse original IDs, a hub and a few isolated vertices.
fn graph() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("e.wel");
    let mut text = String::new();
    for i in 0..3000u64 {
        let (a, b) = (i % 1500, (i * 7919 + 13) % 1500);
        text += &format!("{} {} {}\n", a * 3 + 10, b * 3 + 10, 1 + i % 5);
        if i % 3 == 0 {
            text += &format!("10 {} 2\n", a * 3 + 10);
        }
    }
    std::fs::write(&input, text).unwrap();
    let g = dir.path().join("g");
    ok(&["import", s(&input), "-o", s(&g)]);
    (dir, g)
}

#[test]
fn selective_flags_give_the_memory_engines_output() {
    let (dir, g) = graph();
    let d = dir.path();
    let xfile = d.join("x.txt");
    let x: String = (0..1500).map(|v| format!("{}\n", (v % 7) as f64 - 2.5)).collect();
    std::fs::write(&xfile, x).unwrap();
    let flag_sets: [&[&str]; 3] = [
        &[
            "--io",
            "pread",
            "--block-size",
            "4096",
            "--scheduler",
            "pluglist",
            "--max-gap",
            "0",
        ],
        &[
            "--block-size",
            "512",
            "--max-request",
            "2KiB",
            "--queue-depth",
            "4",
            "--io-threads",
            "2",
        ],
        &[
            "--io",
            "mmap",
            "--scheduler",
            "bitmap",
            "--max-gap",
            "32",
            "--threads",
            "1",
        ],
    ];
    let runs: [&[&str]; 9] = [
        &["bfs", "--source", "10"],
        &["bfs", "--source", "max-degree", "--parents"],
        &["sssp", "--source", "10"],
        &["wcc"],
        &["kcore"],
        &["pagerank", "--iterations", "12"],
        &["msbfs", "--sources", "10,19,4000,"],
        &["apsp", "--sources", "70"],
        &["spmv", "--x", s(&xfile)],
    ];
    for (i, run) in runs.iter().enumerate() {
        let mem_out = d.join(format!("m{i}.tsv"));
        let mut args = vec!["run", run[0], s(&g)];
        args.extend_from_slice(&run[1..]);
        let mut mem = args.clone();
        mem.extend(["--engine", "memory", "--out", s(&mem_out)]);
        ok(&mem);
        let want = std::fs::read_to_string(&mem_out).unwrap();
        for (j, flags) in flag_sets.iter().enumerate() {
            let sel_out = d.join(format!("s{i}-{j}.tsv"));
            let stats = d.join(format!("s{i}-{j}.json"));
            let mut sel = args.clone();
            sel.extend([
                "--engine",
                "selective",
                "--memory",
                "1MiB",
                "--out",
                s(&sel_out),
                "--stats",
                s(&stats),
            ]);
            sel.extend_from_slice(flags);
            let printed = ok(&sel);
            assert!(printed.contains("engine selective"), "{printed}");
            let got = std::fs::read_to_string(&sel_out).unwrap();
            if run[0] == "bfs" && run.contains(&"--parents") {
                // Parents are a valid tree, not necessarily the same one.
                assert_eq!(got.lines().count(), want.lines().count());
                continue;
            }
            if matches!(run[0], "pagerank" | "spmv") {
                for (a, b) in got.lines().zip(want.lines()) {
                    let (a, b): (f64, f64) = (
                        a.split('\t').nth(1).unwrap().parse().unwrap(),
                        b.split('\t').nth(1).unwrap().parse().unwrap(),
                    );
                    assert!((a - b).abs() <= 1e-12 * b.abs(), "{run:?} {flags:?}: {a} vs {b}");
                }
                continue;
            }
            assert!(got == want, "{run:?} with {flags:?} differs from the memory engine");
            let st: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
            assert_eq!(st["engine"], "selective");
            assert!(st["bytes_read"].as_u64().unwrap() > 0 && st["io_requests"].as_u64().unwrap() > 0);
            for key in [
                "io_backend",
                "block_size",
                "scheduler",
                "max_gap_blocks",
                "max_request_bytes",
                "queue_depth",
            ] {
                assert!(st["settings"].get(key).is_some(), "{key} missing from {st}");
            }
            assert!(st["peak_engine_memory"].as_u64().unwrap() <= 1 << 20);
        }
    }
}

/// apsp's output: column `i` of the TSV is `sp` from the stats' `i`-th source (-1 unreached),
/// and the .npy holds the same rows as an int64 sub-array per vertex.
#[test]
fn apsp_columns_are_single_source_runs() {
    let (dir, g) = graph();
    let d = dir.path();
    let (tsv, npy, stats) = (d.join("a.tsv"), d.join("a.npy"), d.join("a.json"));
    let apsp = ["run", "apsp", s(&g), "--sources", "3", "--seed", "9"];
    ok(&[&apsp[..], &["--out", s(&tsv), "--stats", s(&stats)]].concat());
    ok(&[&apsp[..], &["--engine", "selective", "--out", s(&npy)]].concat());
    let st: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
    let sources: Vec<u64> = st["settings"]["sources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    assert_eq!(sources.len(), 3);
    let rows: Vec<Vec<i64>> = std::fs::read_to_string(&tsv)
        .unwrap()
        .lines()
        .map(|l| l.split('\t').map(|x| x.parse().unwrap()).collect())
        .collect();
    assert_eq!(rows.len(), 1500);
    for (i, src) in sources.iter().enumerate() {
        let sp = d.join(format!("sp{i}.tsv"));
        ok(&["run", "sp", s(&g), "--source", &src.to_string(), "--out", s(&sp)]);
        let want: Vec<(i64, i64)> = std::fs::read_to_string(&sp)
            .unwrap()
            .lines()
            .map(|l| {
                let (a, b) = l.split_once('\t').unwrap();
                (a.parse().unwrap(), b.parse().unwrap())
            })
            .collect();
        let got: Vec<(i64, i64)> = rows.iter().map(|r| (r[0], r[1 + i])).collect();
        assert_eq!(got, want, "column {i} (source {src})");
    }
    assert!(rows.iter().any(|r| r[1..].contains(&-1)), "some vertex is unreached");
    let bytes = std::fs::read(&npy).unwrap();
    let header_len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
    let header = std::str::from_utf8(&bytes[10..10 + header_len]).unwrap();
    assert!(
        header.contains("('value', '<i8', (3,))") && header.contains("'shape': (1500,)"),
        "{header}"
    );
    let body = &bytes[10 + header_len..];
    assert_eq!(body.len(), 1500 * 32);
    let word = |k: usize| i64::from_le_bytes(body[8 * k..8 * k + 8].try_into().unwrap());
    for (v, row) in rows.iter().enumerate() {
        assert_eq!((0..4).map(|c| word(4 * v + c)).collect::<Vec<_>>(), *row);
    }
}

#[test]
fn auto_keeps_scc_within_the_budget_or_says_what_it_needs() {
    let (_dir, g) = graph();
    // Below its CSR (both directions) and state, scc reads its lists selectively.
    let out = ok(&["run", "scc", s(&g), "--memory", "112KiB", "--max-request", "2KiB"]);
    assert!(out.contains("engine auto: selective (the "), "{out}");
    assert!(
        out.contains(" CSR and state scc needs exceeds the 112KiB budget; the selective engine needs at least "),
        "{out}"
    );
    // Below every engine's smallest budget (64 KiB reads need twice that), an error naming each.
    let e = fails(&["run", "scc", s(&g), "--memory", "16KiB"]);
    assert!(
        e.contains("scc cannot run within --memory 16KiB: the memory engine at least "),
        "{e}"
    );
    let selective = e
        .split("(its CSR and the run's state), the selective engine at least ")
        .nth(1)
        .and_then(|rest| rest.split([' ', ',']).next())
        .unwrap_or_else(|| panic!("{e}"));
    let selective = diskgraph_cli::parse_size(selective).unwrap_or_else(|err| panic!("{err}: {e}"));
    assert!(selective > 128 << 10, "{e}");
    assert!(e.contains("; give --memory "), "{e}");
}

#[test]
fn auto_says_what_it_picked_and_spmv_reads_npy() {
    let (dir, g) = graph();
    // bfs's CSR and state (68 KiB) exceed 64 KiB; the selective engine's least and state do not.
    let out = ok(&["run", "bfs", s(&g), "--memory", "64KiB", "--max-request", "2KiB"]);
    assert!(out.contains("engine auto: selective"), "{out}");
    let out = ok(&["run", "wcc", s(&g)]);
    assert!(out.contains("engine auto: memory"), "{out}");
    // x as a .npy of f8: all twos doubles the all-ones result.
    let npy = dir.path().join("x.npy");
    let mut header = "{'descr': '<f8', 'fortran_order': False, 'shape': (1500,), }".to_string();
    let total = 10 + header.len() + 1;
    header.push_str(&" ".repeat(total.div_ceil(64) * 64 - total));
    header.push('\n');
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend_from_slice(&(header.len() as u16).to_le_bytes());
    bytes.extend_from_slice(header.as_bytes());
    for _ in 0..1500 {
        bytes.extend_from_slice(&2.0f64.to_le_bytes());
    }
    std::fs::write(&npy, bytes).unwrap();
    let (ones, twos) = (dir.path().join("1.tsv"), dir.path().join("2.tsv"));
    ok(&["run", "spmv", s(&g), "--engine", "selective", "--out", s(&ones)]);
    ok(&[
        "run",
        "spmv",
        s(&g),
        "--engine",
        "selective",
        "--x",
        s(&npy),
        "--out",
        s(&twos),
    ]);
    let values = |p: &Path| -> Vec<f64> {
        std::fs::read_to_string(p)
            .unwrap()
            .lines()
            .map(|l| l.split('\t').nth(1).unwrap().parse().unwrap())
            .collect()
    };
    let (a, b) = (values(&ones), values(&twos));
    assert!(a.iter().zip(&b).all(|(x, y)| 2.0 * x == *y));
    assert!(a.iter().any(|&y| y > 0.0));
}

#[test]
fn bad_selective_flags_fail_with_one_line() {
    let (dir, g) = graph();
    let msg = fails(&["run", "bfs", s(&g), "--engine", "selective", "--block-size", "1000"]);
    assert!(msg.contains("block size"), "{msg}");
    let msg = fails(&["run", "bfs", s(&g), "--engine", "selective", "--memory", "4KiB"]);
    assert!(msg.contains("budget"), "{msg}");
    let msg = fails(&["run", "mis", s(&g), "--engine", "selective"]);
    assert!(msg.contains("mis has no selective variant"), "{msg}");
    let msg = fails(&["run", "msbfs", s(&g), "--sources", "65"]);
    assert!(msg.contains("64"), "{msg}");
    let msg = fails(&["run", "apsp", s(&g), "--sources", "1501"]);
    assert!(msg.contains("1 to 1500"), "{msg}");
    let msg = fails(&["run", "apsp", s(&g), "--sources", "11,"]);
    assert!(msg.contains("11"), "{msg}");
    let msg = fails(&["run", "apsp", s(&g), "--engine", "stream"]);
    assert!(msg.contains("no stream variant"), "{msg}");
    let x = dir.path().join("x.txt");
    std::fs::write(&x, "1\n2\n").unwrap();
    let msg = fails(&["run", "spmv", s(&g), "--x", s(&x)]);
    assert!(msg.contains("x has 2 values"), "{msg}");
    std::fs::write(&x, "1\nabc\n").unwrap();
    let msg = fails(&["run", "spmv", s(&g), "--x", s(&x)]);
    assert!(msg.contains("line 2"), "{msg}");
    let out = diskgraph(&["run", "bfs", s(&g), "--io", "floppy"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("floppy"));
}
