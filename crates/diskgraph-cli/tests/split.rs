//! `diskgraph split` end to end: the split directory is published with a graph directory per
//! part that `info` and `run` accept, `info` describes it, `verify` checks it whole, a damaged part is a non-zero exit
//! naming the part, and bad arguments are one-line errors.

mod common;
use common::{fails, flip_byte, ok, s};

#[test]
fn split_verify_and_damage() {
    let dir = tempfile::tempdir().unwrap();
    let g = dir.path().join("g");
    ok(&["generate", "kronecker", "--scale", "10", "-o", s(&g)]);
    let out = dir.path().join("g.split");
    let said = ok(&["split", s(&g), "--parts", "4", "-o", s(&out)]);
    assert!(said.contains("4 parts (2×2)") && said.contains("× the mean"), "{said}");
    assert!(ok(&["verify", s(&out)]).contains(": ok"));
    let info = ok(&["info", s(&out)]);
    assert!(
        info.contains("4 parts, 2×2, of an undirected graph") && info.contains("part-1-1"),
        "{info}"
    );
    let json: serde_json::Value = serde_json::from_str(&ok(&["info", s(&out), "--json"])).unwrap();
    assert_eq!(json["split"]["parts"].as_array().unwrap().len(), 4);
    assert!(json["balance"].as_f64().unwrap() < 1.1, "{json}");
    let part = out.join("part-1-0");
    assert!(ok(&["info", s(&part)]).contains("vertices   1024"));
    ok(&["run", "bfs", s(&part), "--source", "max-degree"]);
    assert!(fails(&["split", s(&g), "--parts", "4", "-o", s(&out)]).contains("exists"));
    let err = fails(&["split", s(&g), "--parts", "0", "-o", s(&out), "--force"]);
    assert!(err.contains("--parts 0"), "{err}");
    flip_byte(&part.join("out.adj"), 8);
    let err = fails(&["verify", s(&out)]);
    assert!(err.contains("part-1-0") && err.contains("checksum"), "{err}");
}
