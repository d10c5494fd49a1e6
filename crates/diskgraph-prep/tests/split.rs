//! The splitter against the testkit's model of the stored graph: on seeded graphs with
//! self-loops, duplicates, isolated vertices, hubs, weights, directed and undirected, split into
//! 1 to 9 parts, every arc of the graph (with its weight) lands in exactly one part, the one of
//! its source's row and its destination's column in that row; each part's `in.*` is its
//! `out.*` transposed; the split verifies; the parts are balanced on a skewed graph; damaged
//! parts and routing are refused; and the publishing rules hold.

mod common;

use std::path::Path;

use common::{seeded, store, Stored};
use diskgraph_format::{verify_split, ArcStream, Direction, GraphDir, SplitDir, SPLIT_META};
use diskgraph_prep::{split, split_shape, NoProgress, SplitOptions};
use diskgraph_testkit::{gen, Keep};

/// Every arc of direction `dir` of `g` as (list owner, neighbour, weight bits).
fn arcs(g: &GraphDir, dir: Direction) -> Vec<(u32, u32, u32)> {
    let mut s = ArcStream::open(g, dir, true, 1 << 16).unwrap();
    let mut out = Vec::new();
    while let Some((v, _)) = s.next_vertex().unwrap() {
        while let Some((u, w)) = s.next_arc().unwrap() {
            out.push((v, u, w.to_bits()));
        }
    }
    out
}

fn split_into(st: &Stored, parts: u32, out: &Path) -> SplitDir {
    let opts = SplitOptions { parts, force: true };
    split(&st.path, out, &opts, &mut NoProgress).unwrap_or_else(|e| panic!("split {} in {parts}: {e:#}", st.name));
    SplitDir::open(out).unwrap()
}

#[test]
fn every_arc_lands_in_the_part_of_its_row_and_column() {
    let dir = tempfile::tempdir().unwrap();
    for st in seeded(false).into_iter().chain(seeded(true)) {
        let g = GraphDir::open(&st.path).unwrap();
        // The model's arcs, with the graph's weights (the importer's order is the model's).
        let mut want: Vec<(u32, u32, u32)> = arcs(&g, Direction::Out);
        let model: Vec<(u32, u32)> = want.iter().map(|&(s, d, _)| (s, d)).collect();
        assert_eq!(model, st.test.arcs, "{}: the stored graph is the model", st.name);
        want.sort_unstable();
        for parts in [1, 2, 3, 4, 6, 9] {
            let ctx = format!("{} in {parts} parts", st.name);
            let out = dir.path().join("split");
            let s = split_into(&st, parts, &out);
            let m = s.meta();
            assert_eq!((m.rows, m.cols), split_shape(parts), "{ctx}");
            assert_eq!(m.directed, st.test.directed, "{ctx}");
            let mut got = Vec::new();
            for (p, part) in m.parts.iter().zip(s.parts()) {
                let pm = part.manifest();
                assert!(
                    pm.directed && pm.num_vertices == st.test.num_vertices as u64,
                    "{ctx}: {}",
                    p.name
                );
                let out_arcs = arcs(part, Direction::Out);
                for &(v, u, _) in &out_arcs {
                    assert!(
                        m.row(p.row).contains(&v),
                        "{ctx}: {v} -> {u} in {} outside its rows",
                        p.name
                    );
                    assert!(
                        m.col(p.row, p.col).contains(&u),
                        "{ctx}: {v} -> {u} in {} outside its columns",
                        p.name
                    );
                }
                let mut transposed: Vec<(u32, u32, u32)> = arcs(part, Direction::In)
                    .into_iter()
                    .map(|(d, s, w)| (s, d, w))
                    .collect();
                transposed.sort_unstable();
                let mut sorted_out = out_arcs.clone();
                sorted_out.sort_unstable();
                assert_eq!(
                    transposed, sorted_out,
                    "{ctx}: in.* of {} is its out.* transposed",
                    p.name
                );
                let loops = out_arcs.iter().filter(|a| a.0 == a.1).count() as u64;
                assert_eq!(
                    (pm.num_arcs, pm.num_self_loops),
                    (p.num_arcs, loops),
                    "{ctx}: {}",
                    p.name
                );
                got.extend(out_arcs);
            }
            got.sort_unstable();
            assert_eq!(got, want, "{ctx}: the parts' arcs are the graph's");
            verify_split(&out).unwrap_or_else(|e| panic!("{ctx}: {e}"));
        }
    }
}

#[test]
fn parts_hold_about_equal_arcs_on_a_skewed_graph() {
    let st = store("rmat 12", &gen::rmat(12, 60_000, true, 3), Keep::all());
    let dir = tempfile::tempdir().unwrap();
    for parts in [2, 4, 8] {
        let opts = SplitOptions { parts, force: true };
        let s = split(&st.path, &dir.path().join("s"), &opts, &mut NoProgress).unwrap();
        let mean = s.part_arcs.iter().sum::<u64>() as f64 / f64::from(parts);
        let max = *s.part_arcs.iter().max().unwrap() as f64;
        assert!((s.balance - max / mean).abs() < 1e-9, "{s:?}");
        assert!(
            s.balance <= 1.1,
            "{parts} parts: {:?} (max/mean {})",
            s.part_arcs,
            s.balance
        );
    }
}

#[test]
fn damaged_parts_and_routing_are_refused() {
    let st = store("gnm", &gen::gnm(300, 3000, true, 5), Keep::all());
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("s");
    split_into(&st, 4, &out);
    // A changed byte in a part: its checksum.
    let adj = out.join("part-1-0").join("out.adj");
    let mut bytes = std::fs::read(&adj).unwrap();
    bytes[40] ^= 1;
    std::fs::write(&adj, &bytes).unwrap();
    let err = verify_split(&out).unwrap_err().to_string();
    assert!(err.contains("part-1-0") && err.contains("out.adj"), "{err}");
    // Two parts swapped: their arc counts or out.adj do not match the routing.
    split_into(&st, 4, &out);
    std::fs::rename(out.join("part-0-0"), dir.path().join("tmp")).unwrap();
    std::fs::rename(out.join("part-0-1"), out.join("part-0-0")).unwrap();
    std::fs::rename(dir.path().join("tmp"), out.join("part-0-1")).unwrap();
    let err = SplitDir::open(&out).unwrap_err().to_string();
    assert!(err.contains("part part-0-0") && err.contains("routing says"), "{err}");
    // Routing that lies about the boundaries.
    split_into(&st, 4, &out);
    let meta = out.join(SPLIT_META);
    let text = std::fs::read_to_string(&meta).unwrap();
    let mut json: serde_json::Value = serde_json::from_str(&text).unwrap();
    json["row_bounds"][1] = serde_json::json!(1000);
    std::fs::write(&meta, json.to_string()).unwrap();
    let err = SplitDir::open(&out).unwrap_err().to_string();
    assert!(err.contains("split.json") && err.contains("row_bounds"), "{err}");
    // Column boundaries moved: arcs of the part lie outside its destinations.
    let mut json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let cut = json["col_bounds"][0][1].as_u64().unwrap();
    json["col_bounds"][0][1] = serde_json::json!(cut / 2);
    std::fs::write(&meta, json.to_string()).unwrap();
    let err = verify_split(&out).unwrap_err().to_string();
    assert!(
        err.contains("outside its destinations") && err.contains("part part-0-0"),
        "{err}"
    );
    // A missing part.
    split_into(&st, 4, &out);
    std::fs::remove_dir_all(out.join("part-1-1")).unwrap();
    let err = SplitDir::open(&out).unwrap_err().to_string();
    assert!(err.contains("part-1-1"), "{err}");
}

#[test]
fn publishing_rules() {
    let st = store("gnm", &gen::gnm(50, 200, false, 1), Keep::all());
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("s");
    let opts = |parts, force| SplitOptions { parts, force };
    split(&st.path, &out, &opts(2, false), &mut NoProgress).unwrap();
    let err = format!(
        "{:#}",
        split(&st.path, &out, &opts(2, false), &mut NoProgress).unwrap_err()
    );
    assert!(err.contains("exists"), "{err}");
    split(&st.path, &out, &opts(3, true), &mut NoProgress).unwrap();
    assert_eq!(SplitDir::open(&out).unwrap().meta().num_parts(), 3);
    for bad in [0, 257] {
        let err = format!(
            "{:#}",
            split(&st.path, &out, &opts(bad, true), &mut NoProgress).unwrap_err()
        );
        assert!(err.contains("--parts") && err.contains("1 to 256"), "{err}");
    }
    // Something else at the output is never replaced.
    let other = dir.path().join("other");
    std::fs::create_dir(&other).unwrap();
    std::fs::write(other.join("keep.txt"), "mine").unwrap();
    let err = format!(
        "{:#}",
        split(&st.path, &other, &opts(2, true), &mut NoProgress).unwrap_err()
    );
    assert!(err.contains("not a split directory"), "{err}");
    assert!(other.join("keep.txt").exists());
    // Nothing half written is left beside the outputs.
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !n.starts_with('.')), "{names:?}");
}
