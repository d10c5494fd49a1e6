//! The command line's rough edges, each a regression test: outputs checked before the work,
//! export by extension (Parquet included), errors in the user's terms (original IDs, the paths
//! given), runs that did not converge, sizes in decimal and binary units, the statistics
//! betweenness and k-core report, and budgets below an engine's minimum.

use std::path::{Path, PathBuf};

use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::record::Field;

mod common;
use common::{diskgraph, fails, listing, ok, s};

/// Writes `text` as `name` in `dir` and imports it (with `extra` flags) as graph `g`.
fn graph(dir: &Path, name: &str, text: &str, extra: &[&str]) -> PathBuf {
    let input = dir.join(name);
    std::fs::write(&input, text).unwrap();
    let g = dir.join("g");
    let mut args = vec!["import", s(&input), "-o", s(&g)];
    args.extend_from_slice(extra);
    ok(&args);
    g
}

/// The stats JSON a run wrote.
fn stats(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn run_outputs_are_checked_before_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let g = graph(d, "e.el", "1 2\n2 3\n", &[]);
    let before = listing(d);

    let missing = d.join("no-such-dir").join("r.tsv");
    let msg = fails(&["run", "bfs", s(&g), "--out", s(&missing)]);
    assert!(msg.contains(&format!("cannot write {}", missing.display())), "{msg}");
    assert!(msg.contains("does not exist") && !msg.contains(".tmp-"), "{msg}");
    // Checked before the run: nothing was computed, so nothing was printed.
    let out = diskgraph(&["run", "bfs", s(&g), "--out", s(&missing)]);
    assert!(out.stdout.is_empty(), "{}", String::from_utf8_lossy(&out.stdout));

    let msg = fails(&["run", "bfs", s(&g), "--out", s(&d.join("r.csv"))]);
    assert!(msg.contains("r.csv has an unknown extension .csv"), "{msg}");
    assert!(msg.contains(".tsv, .npy or .parquet"), "{msg}");
    let msg = fails(&["run", "bfs", s(&g), "--out", s(&d.join("results"))]);
    assert!(msg.contains("has no extension"), "{msg}");
    let msg = fails(&["run", "bfs", s(&g), "--stats", s(&d.join("nope").join("s.json"))]);
    assert!(msg.contains("nope") && msg.contains("does not exist"), "{msg}");
    assert_eq!(listing(d), before, "a refused run leaves nothing behind");

    let tsv = d.join("r.tsv");
    ok(&["run", "bfs", s(&g), "--out", s(&tsv)]);
    std::fs::write(&tsv, "keep me").unwrap();
    let msg = fails(&["run", "bfs", s(&g), "--out", s(&tsv)]);
    assert!(msg.contains("already exists") && msg.contains("--force"), "{msg}");
    assert_eq!(std::fs::read_to_string(&tsv).unwrap(), "keep me");
    ok(&["run", "bfs", s(&g), "--out", s(&tsv), "--force"]);
    assert_eq!(std::fs::read_to_string(&tsv).unwrap(), "1\t0\n2\t1\n3\t2\n");
}

/// Reads a Parquet edge export back: its column names and its rows.
fn parquet_rows(path: &Path) -> (Vec<String>, Vec<Vec<Field>>) {
    let reader = SerializedFileReader::new(std::fs::File::open(path).unwrap()).unwrap();
    let columns = reader
        .metadata()
        .file_metadata()
        .schema_descr()
        .columns()
        .iter()
        .map(|c| c.name().to_string())
        .collect();
    let rows = reader
        .get_row_iter(None)
        .unwrap()
        .map(|row| row.unwrap().get_column_iter().map(|(_, f)| f.clone()).collect())
        .collect();
    (columns, rows)
}

#[test]
fn binary_exports_import_back_to_the_same_graph() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let el = |g: &Path, name: &str| {
        let out = d.join(name);
        ok(&["export", s(g), "-o", s(&out), "--force"]);
        std::fs::read_to_string(out).unwrap()
    };
    // Directed, with a reciprocal pair; then undirected, each edge written once and doubled
    // again by the import; then IDs 0..n, which the export writes without an ID table.
    let cases = [
        ("10 20\n20 30\n30 10\n20 10\n", &[][..]),
        ("1 2\n2 3\n3 1\n", &["--undirected"][..]),
        ("0 1\n1 2\n2 0\n", &["--undirected"][..]),
    ];
    for (i, (text, flags)) in cases.into_iter().enumerate() {
        let case = d.join(format!("case{i}"));
        std::fs::create_dir(&case).unwrap();
        let g = graph(&case, "e.el", text, flags);
        for format in ["bin32", "bin64"] {
            let bin = d.join(format!("e.{format}"));
            let printed = ok(&["export", s(&g), "-o", s(&bin), "--force"]);
            let edges = text.lines().count();
            assert!(printed.contains(&format!("{edges} edges written")), "{printed}");
            let width = if format == "bin32" { 4 } else { 8 };
            assert_eq!(std::fs::metadata(&bin).unwrap().len(), (edges * 2 * width) as u64);
            let again = d.join("again");
            let mut args = vec!["import", s(&bin), "--format", format, "-o", s(&again), "--force"];
            args.extend_from_slice(flags);
            ok(&args);
            assert_eq!(el(&again, "b.el"), el(&g, "a.el"), "{format} {flags:?}");
        }
    }
    // An ID beyond 2^32 goes only to bin64.
    let g = graph(d, "w.el", "1 5000000000\n", &[]);
    let msg = fails(&["export", s(&g), "-o", s(&d.join("w.bin32"))]);
    assert!(msg.contains("beyond bin32") && msg.contains("bin64"), "{msg}");
    assert!(!d.join("w.bin32").exists());
    ok(&["export", s(&g), "-o", s(&d.join("w.bin64"))]);
    let bytes = std::fs::read(d.join("w.bin64")).unwrap();
    assert_eq!(bytes[..8], 1u64.to_le_bytes());
    assert_eq!(bytes[8..], 5_000_000_000u64.to_le_bytes());
}

#[test]
fn export_writes_the_format_its_extension_names() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let g = graph(d, "e.wel", "10 20 1.5\n20 30 0.25\n30 10 2\n", &[]);

    let pq = d.join("edges.parquet");
    let printed = ok(&["export", s(&g), "-o", s(&pq)]);
    assert!(printed.contains("3 edges written"), "{printed}");
    let (columns, rows) = parquet_rows(&pq);
    assert_eq!(columns, ["src", "dst", "weight"]);
    assert_eq!(
        rows,
        [
            [Field::ULong(10), Field::ULong(20), Field::Float(1.5)],
            [Field::ULong(20), Field::ULong(30), Field::Float(0.25)],
            [Field::ULong(30), Field::ULong(10), Field::Float(2.0)],
        ]
    );

    // Undirected and unweighted: each edge once, no weight column.
    let u = d.join("u");
    std::fs::write(d.join("u.el"), "1 2\n2 3\n").unwrap();
    ok(&["import", s(&d.join("u.el")), "-o", s(&u), "--undirected"]);
    let upq = d.join("u.parquet");
    ok(&["export", s(&u), "-o", s(&upq)]);
    let (columns, rows) = parquet_rows(&upq);
    assert_eq!(columns, ["src", "dst"]);
    assert_eq!(
        rows,
        [[Field::ULong(1), Field::ULong(2)], [Field::ULong(2), Field::ULong(3)]]
    );

    let mtx = d.join("g.mtx");
    ok(&["export", s(&g), "-o", s(&mtx)]);
    assert!(std::fs::read_to_string(&mtx).unwrap().starts_with("%%MatrixMarket"));
    let txt = d.join("g.txt");
    ok(&["export", s(&g), "-o", s(&txt), "--format", "wel"]);
    assert_eq!(
        std::fs::read_to_string(&txt).unwrap(),
        "10 20 1.5\n20 30 0.25\n30 10 2\n"
    );

    // Refused before any work, leaving nothing: an unknown extension (the known ones listed), a
    // format the extension contradicts, a missing directory.
    let before = listing(d);
    let msg = fails(&["export", s(&g), "-o", s(&d.join("g.xlsx"))]);
    assert!(msg.contains("unknown extension .xlsx"), "{msg}");
    assert!(
        msg.contains(".el, .wel, .snap, .txt, .tsv, .mtx, .parquet, .csv, .bin32 or .bin64"),
        "{msg}"
    );
    let msg = fails(&["export", s(&g), "-o", s(&d.join("x.parquet")), "--format", "el"]);
    assert!(msg.contains("--format is el"), "{msg}");
    let missing = d.join("no").join("g.el");
    let msg = fails(&["export", s(&g), "-o", s(&missing)]);
    assert!(
        msg.contains(&missing.display().to_string()) && msg.contains("does not exist"),
        "{msg}"
    );
    let msg = fails(&["export", s(&g), "-o", s(&pq)]);
    assert!(msg.contains("already exists") && msg.contains("--force"), "{msg}");
    assert_eq!(listing(d), before);
    ok(&["export", s(&g), "-o", s(&pq), "--force"]);
}

#[test]
fn errors_name_original_ids_and_the_paths_given() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Original IDs 100, 200, 300 are internal 0, 1, 2.
    let g = graph(d, "e.wel", "100 200 1\n200 300 -2.5\n300 100 1\n", &[]);
    ok(&["partition", s(&g)]);
    for engine in ["memory", "selective", "stream", "sync"] {
        let msg = fails(&["run", "sssp", s(&g), "--source", "100", "--engine", engine]);
        assert!(
            msg.contains("edge 200 -> 300 has weight -2.5; shortest paths need non-negative weights"),
            "{engine}: {msg}"
        );
    }

    let missing = d.join("no-such-dir").join("g2");
    let msg = fails(&["import", s(&d.join("e.wel")), "-o", s(&missing)]);
    assert!(
        msg.contains(&missing.display().to_string()) && msg.contains("does not exist"),
        "{msg}"
    );
    assert!(!msg.contains(".tmp-"), "a temporary path: {msg}");

    let empty = d.join("empty");
    std::fs::create_dir(&empty).unwrap();
    let want = format!(
        "{} is not a diskgraph graph directory (no manifest.json)",
        empty.display()
    );
    for cmd in ["info", "verify"] {
        let msg = fails(&[cmd, s(&empty)]);
        assert!(msg.ends_with(&want), "{cmd}: {msg}");
    }
    let msg = fails(&["run", "bfs", s(&empty)]);
    assert!(msg.ends_with(&want), "{msg}");
}

#[test]
fn an_unconverged_run_fails_after_writing_its_results() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let g = graph(d, "e.el", "1 2\n2 3\n3 1\n3 4\n4 1\n", &[]);
    let (tsv, json) = (d.join("pr.tsv"), d.join("pr.json"));
    let run = [
        "run",
        "pagerank",
        s(&g),
        "--max-iterations",
        "2",
        "--out",
        s(&tsv),
        "--stats",
        s(&json),
    ];
    let msg = fails(&run);
    assert!(
        msg.contains("pagerank stopped at its iteration limit (2 iterations) without converging"),
        "{msg}"
    );
    assert!(
        msg.contains(&format!("its results were written to {}", tsv.display())),
        "{msg}"
    );
    assert!(msg.contains("--allow-unconverged"), "{msg}");
    assert_eq!(std::fs::read_to_string(&tsv).unwrap().lines().count(), 4);
    assert_eq!(stats(&json)["converged"], false);

    let msg = fails(&["run", "pagerank", s(&g), "--max-iterations", "2"]);
    assert!(msg.contains("no results were written"), "{msg}");

    let allowed = [&run[..], &["--force", "--allow-unconverged"]].concat();
    let printed = ok(&allowed);
    assert!(printed.contains("NOT converged"), "{printed}");
    assert_eq!(stats(&json)["converged"], false);

    ok(&["run", "pagerank", s(&g), "--stats", s(&json)]);
    assert_eq!(stats(&json)["converged"], true);
    // A fixed number of iterations converges to nothing: no verdict.
    ok(&["run", "pagerank", s(&g), "--iterations", "2", "--stats", s(&json)]);
    assert!(stats(&json).get("converged").is_none());
    // Algorithms without an iteration limit report none.
    ok(&["run", "bfs", s(&g), "--stats", s(&json)]);
    assert!(stats(&json).get("converged").is_none());
}

#[test]
fn sizes_take_decimal_and_binary_units() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let g = graph(d, "e.el", "1 2\n", &["--memory", "64MB"]);
    let json = d.join("s.json");
    for (given, bytes) in [
        ("1GB", 1_000_000_000u64),
        ("1GiB", 1 << 30),
        ("1G", 1 << 30),
        ("250MB", 250_000_000),
        ("250MiB", 250 << 20),
        ("1.5gb", 1_500_000_000),
        ("123456789", 123_456_789),
    ] {
        ok(&["run", "bfs", s(&g), "--memory", given, "--stats", s(&json)]);
        assert_eq!(stats(&json)["settings"]["memory"], bytes, "{given}");
    }
    let msg = fails(&["run", "bfs", s(&g), "--memory", "1PB"]);
    assert!(msg.contains("GB") && msg.contains("GiB"), "{msg}");
}

#[test]
fn betweenness_counts_the_arcs_it_examined() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Out-degrees 2, 1, 1, 0. From 1 the search reaches every vertex (4 arcs), from 2 three
    // (2 arcs), from 3 two (1 arc), from 4 itself: each arc looked at forward and backward.
    let g = graph(d, "e.el", "1 2\n1 3\n2 3\n3 4\n", &[]);
    let json = d.join("bc.json");
    ok(&["run", "bc", s(&g), "--engine", "memory", "--stats", s(&json)]);
    assert_eq!(stats(&json)["edges_processed"], 2 * (4 + 2 + 1));
    // The selective engine runs the sources with out-edges as one batch: forward it reads the
    // lists of depth 0 (1, 2, 3: 4 arcs), 1 (2, 3, 4: 2 arcs) and 2 (4: none); backward those
    // of depths 1 and 0 again.
    ok(&["run", "bc", s(&g), "--engine", "selective", "--stats", s(&json)]);
    assert_eq!(stats(&json)["edges_processed"], (4 + 2) * 2);
    // One sampled source: its own search alone.
    ok(&[
        "run",
        "bc",
        s(&g),
        "--engine",
        "memory",
        "--samples",
        "1",
        "--seed",
        "3",
        "--stats",
        s(&json),
    ]);
    let sampled = stats(&json);
    let source = sampled["settings"]["sources"].as_u64().unwrap();
    assert_eq!(source, 1);
    assert!(sampled["edges_processed"].as_u64().unwrap() <= 2 * 4);
}

#[test]
fn kcore_counts_its_peeling_levels() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A 4-clique (core 3) tied by vertex 4 to a triangle (core 2, vertex 4 too), and vertex 9
    // hanging off the triangle (core 1): three levels.
    let text = "1 2\n2 3\n3 1\n4 1\n4 5\n5 6\n5 7\n5 8\n6 7\n6 8\n7 8\n9 1\n";
    let g = graph(d, "e.el", text, &["--undirected"]);
    let (tsv, json) = (d.join("k.tsv"), d.join("k.json"));
    for engine in ["memory", "selective", "sync"] {
        let run = [
            "run",
            "kcore",
            s(&g),
            "--engine",
            engine,
            "--out",
            s(&tsv),
            "--stats",
            s(&json),
            "--force",
        ];
        ok(&run);
        let cores: Vec<String> = std::fs::read_to_string(&tsv)
            .unwrap()
            .lines()
            .map(String::from)
            .collect();
        assert_eq!(
            cores,
            ["1\t2", "2\t2", "3\t2", "4\t2", "5\t3", "6\t3", "7\t3", "8\t3", "9\t1"],
            "{engine}"
        );
        assert_eq!(stats(&json)["iterations"], 3, "{engine}");
    }
}

#[test]
fn a_budget_below_the_engines_minimum_names_the_minimum() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let g = graph(d, "e.el", "1 2\n2 3\n", &[]);
    let tsv = d.join("r.tsv");
    for engine in ["selective", "sync"] {
        let out = diskgraph(&[
            "run",
            "bfs",
            s(&g),
            "--engine",
            engine,
            "--memory",
            "4KiB",
            "--out",
            s(&tsv),
        ]);
        assert!(!out.status.success());
        assert!(out.stdout.is_empty(), "refused before it started");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("memory budget of 4096 bytes is too small"), "{err}");
        // The minimum it names is enough.
        let least = err
            .split("give it at least ")
            .nth(1)
            .unwrap()
            .split(' ')
            .next()
            .unwrap();
        ok(&["run", "bfs", s(&g), "--engine", engine, "--memory", least]);
    }
    assert!(!tsv.exists());
    // auto names every engine's minimum, and the least.
    let msg = fails(&["run", "bfs", s(&g), "--memory", "16"]);
    assert!(
        msg.contains("bfs cannot run within --memory 16B") && msg.contains("or more"),
        "{msg}"
    );
}
