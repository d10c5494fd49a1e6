//! `diskgraph select` end to end: each method publishes `basc-<name>/` within its size and
//! records it in the manifest, `info` and `verify` see it, an existing selection needs
//! `--force`, bad arguments and a corrupt selection are one-line errors naming the file.

use std::path::Path;

mod common;
use common::{fails, flip_byte, layout_dir, ok, s};

fn generated(dir: &Path) -> std::path::PathBuf {
    let g = dir.join("g");
    ok(&["generate", "kronecker", "--scale", "11", "-o", s(&g)]);
    g
}

/// `(vertices, edges)` from the command's one line.
fn counts(out: &str) -> (u64, u64) {
    let words: Vec<&str> = out.split_whitespace().collect();
    let at = |w: &str| {
        words[words.iter().position(|x| x.starts_with(w)).unwrap() - 1]
            .parse()
            .unwrap()
    };
    (at("vertices"), at("edges"))
}

#[test]
fn every_method_publishes_a_selection_within_its_size() {
    let dir = tempfile::tempdir().unwrap();
    let g = generated(dir.path());
    let info = ok(&["info", s(&g), "--json"]);
    let json: serde_json::Value = serde_json::from_str(&info).unwrap();
    let arcs = json["num_arcs"].as_u64().unwrap();
    for method in ["gvs", "highd", "lowd", "random"] {
        let out = ok(&["select", s(&g), "--method", method, "--size", "0.25", "--k", "5"]);
        assert!(out.contains(&format!("basc-{method}:")), "{out}");
        let (count, edges) = counts(&out);
        assert!(count > 0 && edges <= arcs / 4, "{method}: {out}");
    }
    let out = ok(&["select", s(&g), "--method", "gvs", "--size", "16KiB", "--name", "small"]);
    let (count, edges) = counts(&out);
    assert!(edges <= 4096, "{out}");
    // The manifest records the selection.
    let manifest: serde_json::Value = serde_json::from_slice(&std::fs::read(g.join("manifest.json")).unwrap()).unwrap();
    let layouts = manifest["layouts"].as_array().unwrap();
    let names: Vec<&str> = layouts.iter().map(|l| l["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        ["basc-gvs", "basc-highd", "basc-lowd", "basc-random", "basc-small"]
    );
    let pages = |bytes: u64| bytes.div_ceil(4096) * 4096;
    assert_eq!(
        layouts[4],
        serde_json::json!({
            "kind": "basc", "name": "basc-small", "method": "gvs", "num_selected": count,
            "num_arcs": edges, "bytes_on_disk": pages(count * 4) + pages(edges * 4)
        })
    );
    let info = ok(&["info", s(&g)]);
    assert!(
        info.contains("basc-small") && info.contains("BAsC selection by gvs"),
        "{info}"
    );
    assert!(ok(&["verify", s(&g)]).contains("ok"));

    // An existing selection needs --force; bad arguments are errors.
    let err = fails(&["select", s(&g), "--method", "gvs", "--size", "0.25"]);
    assert!(
        err.contains("basc-gvs: output already exists") && err.contains("--force"),
        "{err}"
    );
    ok(&["select", s(&g), "--method", "gvs", "--size", "0.1", "--force"]);
    assert!(fails(&["select", s(&g), "--method", "best", "--size", "0.1"]).contains("unknown selection method"));
    assert!(fails(&["select", s(&g), "--size", "1.5"]).contains("between 0 and 1"));
    assert!(fails(&["select", s(&g), "--size", "0.1", "--k", "0"]).contains("--k"));

    // A flipped byte in the vertex file: verify names it; --force writes a good one again.
    flip_byte(&g.join("basc-lowd").join("vertices.u32"), 0);
    let err = fails(&["verify", s(&g)]);
    assert!(err.contains("vertices.u32"), "{err}");
    ok(&["select", s(&g), "--method", "lowd", "--size", "0.25", "--force"]);
    assert!(ok(&["verify", s(&g)]).contains("ok"));

    // The same in the copy of the lists (the replacement's generation); a run refuses a target
    // that is no vertex.
    assert_eq!(layout_dir(&g, "basc-lowd"), g.join("basc-lowd.v1"));
    let file = layout_dir(&g, "basc-lowd").join("lists.u32");
    let mut bytes = flip_byte(&file, 0);
    let err = fails(&["verify", s(&g)]);
    assert!(err.contains("lists.u32"), "{err}");
    bytes[..4].copy_from_slice(&u32::MAX.to_le_bytes());
    std::fs::write(&file, &bytes).unwrap();
    let run = [
        "run",
        "bfs",
        s(&g),
        "--engine",
        "selective",
        "--memory",
        "64MiB",
        "--basc",
        "lowd",
    ];
    let err = fails(&run);
    assert!(err.contains("lists.u32") && err.contains("out of range"), "{err}");
}
