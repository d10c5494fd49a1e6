//! `diskgraph partition` end to end: generate → partition → info → verify, the errors a user
//! can run into (existing layout, bad arguments, missing graph, corrupt layout), each a one-line
//! message naming the graph or file with a non-zero exit.

use std::path::Path;

mod common;
use common::{fails, flip_byte, layout_dir, ok, s};

/// A generated weighted undirected graph of 2000 vertices in a fresh directory.
fn generated(dir: &Path) -> std::path::PathBuf {
    let g = dir.join("g");
    ok(&[
        "generate",
        "erdos-renyi",
        "--vertices",
        "2000",
        "--edges",
        "9000",
        "--weighted",
        "-o",
        s(&g),
    ]);
    g
}

#[test]
fn partition_then_info_then_verify() {
    let dir = tempfile::tempdir().unwrap();
    let g = generated(dir.path());
    let out = ok(&["partition", s(&g), "--grid", "4"]);
    assert!(
        out.contains("grid-4: 4×4 blocks, 500 vertices per range, grid order"),
        "{out}"
    );
    assert!(out.contains("edges"), "{out}");
    let out = ok(&[
        "partition",
        s(&g),
        "--grid",
        "8",
        "--sort",
        "source",
        "--memory",
        "64KiB",
    ]);
    assert!(out.contains("grid-8-source: 8×1 blocks"), "{out}");
    let out = ok(&["partition", s(&g), "--sort", "destination", "--memory", "16KiB"]);
    assert!(out.contains("P chosen from --memory"), "{out}");
    assert!(out.contains("grid-16-destination: 16×16 blocks"), "{out}");

    let info = ok(&["info", s(&g)]);
    assert!(
        info.contains("layouts    csr, grid-16-destination, grid-4, grid-8-source"),
        "{info}"
    );
    assert!(
        info.contains("4×4 blocks, 500 vertices per range, grid order"),
        "{info}"
    );
    let json: serde_json::Value = serde_json::from_str(&ok(&["info", s(&g), "--json"])).unwrap();
    assert_eq!(json["layouts"].as_array().unwrap().len(), 3);
    let d = &json["layout_details"][2];
    assert_eq!(
        (d["name"].as_str(), d["rows"].as_u64(), d["cols"].as_u64()),
        (Some("grid-8-source"), Some(8), Some(1))
    );
    assert_eq!(d["sort"], "source");

    let out = ok(&["verify", s(&g)]);
    assert!(out.contains(": ok"), "{out}");
}

#[test]
fn existing_layout_needs_force() {
    let dir = tempfile::tempdir().unwrap();
    let g = generated(dir.path());
    ok(&["partition", s(&g), "--grid", "4"]);
    let msg = fails(&["partition", s(&g), "--grid", "4"]);
    assert!(msg.contains(&format!("{}/grid-4", s(&g))), "{msg}");
    assert!(msg.contains("--force"), "{msg}");
    ok(&["partition", s(&g), "--grid", "4", "--force"]);
    let entries: Vec<String> = std::fs::read_dir(&g)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(entries.is_empty(), "temporary entries left: {entries:?}");
    ok(&["verify", s(&g)]);
}

#[test]
fn bad_arguments_and_graphs_fail_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let g = generated(dir.path());
    let msg = fails(&["partition", s(&g), "--grid", "0"]);
    assert!(msg.contains("--grid 0"), "{msg}");
    let msg = fails(&["partition", s(&g), "--grid", "5000"]);
    assert!(msg.contains("4096"), "{msg}");
    let missing = dir.path().join("missing");
    let msg = fails(&["partition", s(&missing)]);
    assert!(msg.contains("missing"), "{msg}");
    let bad = common::diskgraph(&["partition", s(&g), "--sort", "sideways"]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("sideways"));
}

#[test]
fn corrupt_layout_fails_verify_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let g = generated(dir.path());
    ok(&["partition", s(&g), "--grid", "2"]);
    flip_byte(&g.join("grid-2").join("edges.bin"), 100);
    let msg = fails(&["verify", s(&g)]);
    assert!(msg.contains("grid-2/edges.bin"), "{msg}");
    assert!(msg.contains("checksum"), "{msg}");
    let info = ok(&["info", s(&g)]);
    assert!(info.contains("grid-2"), "{info}");

    std::fs::remove_dir_all(g.join("grid-2")).unwrap();
    let msg = fails(&["verify", s(&g)]);
    assert!(msg.contains("grid-2/grid.json"), "{msg}");
    let info = ok(&["info", s(&g)]);
    assert!(info.contains("unreadable"), "{info}");
    // Partitioning again repairs it (the listed layout is replaced with --force).
    ok(&["partition", s(&g), "--grid", "2", "--force"]);
    ok(&["verify", s(&g)]);
}

#[test]
fn shards_partition_then_verify_then_info() {
    let dir = tempfile::tempdir().unwrap();
    let g = generated(dir.path());
    let json: serde_json::Value = serde_json::from_str(&ok(&["info", s(&g), "--json"])).unwrap();
    let arcs = json["num_arcs"].as_u64().unwrap();
    assert!((17_000..=18_000).contains(&arcs), "{arcs} arcs");
    let out = ok(&["partition", s(&g), "--shards", "3"]);
    assert!(out.contains("shards-3: 3 shards, largest"), "{out}");
    // 17 500 arcs: a window averages 7.8 KB of a column, so 4 KiB blocks.
    assert!(
        out.contains("4 KiB edge-value blocks, block size chosen from --memory"),
        "{out}"
    );
    assert!(out.contains(&format!("wrote {arcs} edges")), "{out}");
    // A replacement goes to the next generation; the summary names the layout as --layout
    // takes it, and where it went.
    let out = ok(&["partition", s(&g), "--shards", "3", "--force"]);
    assert!(out.contains("shards-3 (in shards-3.v1/): 3 shards"), "{out}");
    // N and the block size for 1 MiB: the shards engine runs the layout in 1 MiB.
    let out = ok(&["partition", s(&g), "--shards", "auto", "--memory", "1MiB"]);
    assert!(out.contains("N and block size chosen from --memory"), "{out}");
    let name = out.split(": ").next().unwrap().rsplit('/').next().unwrap().to_string();
    let least = out
        .split("runs it in --memory ")
        .nth(1)
        .unwrap()
        .split(' ')
        .next()
        .unwrap();
    assert!(diskgraph_engine::parse_size(least).unwrap() <= 1 << 20, "{out}");
    ok(&[
        "run",
        "wcc",
        s(&g),
        "--engine",
        "shards",
        "--layout",
        &name,
        "--memory",
        "1MiB",
    ]);
    // 64 KiB blocks cannot run in 64 KiB: refused, naming the least budget.
    let msg = fails(&[
        "partition",
        s(&g),
        "--shards",
        "auto",
        "--memory",
        "64KiB",
        "--block-size",
        "64KiB",
    ]);
    assert!(
        msg.contains("no shards layout of") && msg.contains("give --memory"),
        "{msg}"
    );
    ok(&["partition", s(&g), "--grid", "2"]);

    let out = ok(&["verify", s(&g)]);
    assert!(out.contains(": ok"), "{out}");
    let info = ok(&["info", s(&g)]);
    let mut shards = vec!["shards-3", &name];
    shards.sort_unstable();
    shards.dedup();
    let listed = format!("layouts    csr, grid-2, {}", shards.join(", "));
    assert!(info.contains(&listed), "{info}");
    assert!(info.contains("shards-3"), "{info}");
    assert!(info.contains("3 shards, largest"), "{info}");
    let json: serde_json::Value = serde_json::from_str(&ok(&["info", s(&g), "--json"])).unwrap();
    let details = json["layout_details"].as_array().unwrap();
    let d = details.iter().find(|d| d["name"] == "shards-3").unwrap();
    assert_eq!(d["shards"]["num_shards"], 3);
    assert_eq!(d["shards"]["block_bytes"], 4096);
    let largest = d["shards"]["largest_shard"].as_u64().unwrap();
    assert!((arcs / 3..arcs).contains(&largest), "{d}");
    assert_eq!(d["error"], serde_json::Value::Null);

    // A damaged column fails verify naming the file; info shows the layout still.
    flip_byte(&layout_dir(&g, "shards-3").join("dst.u32"), 8);
    let msg = fails(&["verify", s(&g)]);
    assert!(msg.contains("shards-3.v1/dst.u32") && msg.contains("checksum"), "{msg}");
    ok(&["partition", s(&g), "--shards", "3", "--force"]);
    ok(&["verify", s(&g)]);
}

#[test]
fn shards_arguments_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    let g = generated(dir.path());
    let msg = fails(&["partition", s(&g), "--shards", "0"]);
    assert!(msg.contains("--shards 0") && msg.contains("4096"), "{msg}");
    let msg = fails(&["partition", s(&g), "--shards", "4097"]);
    assert!(msg.contains("--shards 4097"), "{msg}");
    let msg = fails(&["partition", s(&g), "--shards", "2", "--block-size", "6000"]);
    assert!(msg.contains("--block-size") && msg.contains("6000"), "{msg}");
    for bad in [
        &["--shards", "some"][..],
        &["--shards", "2", "--grid", "2"],
        &["--shards", "2", "--sort", "source"],
        &["--block-size", "64KiB"],
    ] {
        let mut args = vec!["partition", s(&g)];
        args.extend_from_slice(bad);
        let out = common::diskgraph(&args);
        assert!(!out.status.success(), "{bad:?} was accepted");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(bad[0]) || stderr.contains(bad[1]), "{bad:?}: {stderr}");
    }
    ok(&["partition", s(&g), "--shards", "2"]);
    let msg = fails(&["partition", s(&g), "--shards", "2"]);
    assert!(msg.contains("shards-2") && msg.contains("--force"), "{msg}");
}
