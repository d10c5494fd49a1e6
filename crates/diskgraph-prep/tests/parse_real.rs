//! Every real input in `testdata/real` parses to the counts recorded in `answers.json`,
//! and the mangled Matrix Market files of LAGraph's test suite are judged one by one.

mod parse_support;

use std::collections::{BTreeSet, HashSet};
use std::path::PathBuf;

use diskgraph_prep::parse::FormatChoice;
use diskgraph_prep::{InputFormat, RawEdge};
use parse_support::{auto, error_of, read_all, triples, weighted, Parsed, DATA};
use serde_json::Value;

fn data(name: &str) -> PathBuf {
    PathBuf::from(DATA).join(name)
}

fn answers() -> Value {
    let text = std::fs::read_to_string(data("answers.json")).expect("answers.json");
    serde_json::from_str(&text).expect("answers.json is JSON")
}

fn int(v: &Value, key: &str) -> u64 {
    v[key]
        .as_u64()
        .unwrap_or_else(|| panic!("answers.json: {key} missing in {v}"))
}

/// Number of duplicate entries the reference cleaning merges (self-loops dropped first).
fn duplicates(edges: &[RawEdge], directed: bool) -> u64 {
    let mut seen = HashSet::new();
    let mut dups = 0;
    for e in edges.iter().filter(|e| e.src != e.dst) {
        let key = if directed || e.src < e.dst {
            (e.src, e.dst)
        } else {
            (e.dst, e.src)
        };
        if !seen.insert(key) {
            dups += 1;
        }
    }
    dups
}

/// Checks a parsed graph against its `answers.json` entry.
fn check_against_answers(name: &str, parsed: &Parsed, answer: &Value) {
    let raw = &answer["raw"];
    let edges = &parsed.edges;
    assert_eq!(edges.len() as u64, int(raw, "entries"), "{name}: entries");
    let loops = edges.iter().filter(|e| e.src == e.dst).count() as u64;
    assert_eq!(loops, int(raw, "self_loop_entries_dropped"), "{name}: self-loops");
    let directed = answer["directed"].as_bool().expect("directed");
    assert_eq!(
        duplicates(edges, directed),
        int(raw, "duplicate_entries_merged"),
        "{name}: duplicates"
    );
    let ids: BTreeSet<u64> = edges.iter().flat_map(|e| [e.src, e.dst]).collect();
    assert_eq!(
        ids.len() as u64,
        int(raw, "distinct_ids_in_entries"),
        "{name}: distinct IDs"
    );
    let mut vertices = ids.clone();
    vertices.extend(parsed.info.declared_vertices.clone().unwrap_or(0..0));
    assert_eq!(vertices.len() as u64, int(answer, "num_vertices"), "{name}: vertices");
    assert_eq!(
        vertices.first().copied(),
        Some(int(answer, "vertex_id_min")),
        "{name}: min ID"
    );
    assert_eq!(
        vertices.last().copied(),
        Some(int(answer, "vertex_id_max")),
        "{name}: max ID"
    );
    let weighted = answer["weighted"].as_bool().expect("weighted");
    assert_eq!(parsed.info.weighted, weighted, "{name}: weighted");
    assert!(
        edges.iter().all(|e| e.weight.is_some() == weighted),
        "{name}: weight on every edge iff weighted"
    );
    // Plain edge lists say nothing about direction; the other formats declare it.
    let expected_directed = if parsed.info.format == InputFormat::Snap {
        None
    } else {
        Some(directed)
    };
    assert_eq!(parsed.info.directed, expected_directed, "{name}: directed");
    assert!(answer["completeness"]["complete"].as_bool().expect("complete"));
}

#[test]
fn every_real_file_matches_answers_json() {
    let answers = answers();
    let graphs = answers["graphs"].as_object().expect("graphs");
    let expected_formats = [
        ("wiki-Vote.txt", InputFormat::Snap),
        ("email-Eu-core.txt", InputFormat::Snap),
        ("as20graph.txt", InputFormat::Snap),
        ("rome99.gr", InputFormat::Dimacs),
        ("chesapeake.mtx", InputFormat::Mtx),
        ("GD01_b.mtx", InputFormat::Mtx),
        ("LFAT5.mtx", InputFormat::Mtx),
        ("Ragusa16.mtx", InputFormat::Mtx),
        ("foodweb-baydry.konect", InputFormat::Konect),
    ];
    // The BVGraph (cnr-2000) is not a format of these parsers; every other entry is covered.
    let covered: BTreeSet<&str> = expected_formats.iter().map(|(n, _)| *n).collect();
    let listed: BTreeSet<&str> = graphs
        .keys()
        .map(String::as_str)
        .filter(|k| !k.starts_with("cnr-2000"))
        .collect();
    assert_eq!(covered, listed);
    for (name, format) in expected_formats {
        let parsed = read_all(&data(name), &auto()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(parsed.info.format, format, "{name}: detected format");
        let message = parsed.message.as_deref().unwrap_or_default();
        assert!(
            message.starts_with(&format!("format auto: {}", format.name())),
            "{message}"
        );
        check_against_answers(name, &parsed, &graphs[name]);
    }
}

#[test]
fn declared_headers_match() {
    let answers = answers();
    let header = |name: &str| answers["graphs"][name]["completeness"]["header"].clone();
    for name in ["chesapeake.mtx", "GD01_b.mtx", "LFAT5.mtx", "Ragusa16.mtx"] {
        let parsed = read_all(&data(name), &auto()).expect(name);
        let h = header(name);
        assert_eq!(parsed.info.declared_vertices, Some(1..int(&h, "rows") + 1), "{name}");
        assert_eq!(parsed.edges.len() as u64, int(&h, "nnz"), "{name}");
        let desc = format!(
            "matrix market, {} {}",
            h["field"].as_str().unwrap(),
            h["symmetry"].as_str().unwrap()
        );
        assert_eq!(parsed.info.description, desc);
    }
    let rome = read_all(&data("rome99.gr"), &auto()).expect("rome99");
    assert_eq!(
        rome.info.declared_vertices,
        Some(1..int(&header("rome99.gr"), "nodes") + 1)
    );
    let food = read_all(&data("foodweb-baydry.konect"), &auto()).expect("foodweb");
    assert_eq!(
        food.info.declared_vertices,
        Some(1..int(&header("foodweb-baydry.konect"), "nodes") + 1)
    );
    assert_eq!(food.info.description, "konect asym posweighted");
}

#[test]
fn weights_are_read_exactly() {
    let weights = |name: &str| -> Vec<f32> {
        read_all(&data(name), &auto())
            .expect(name)
            .edges
            .iter()
            .map(|e| e.weight.expect("weighted"))
            .collect()
    };
    let min = |w: &[f32]| w.iter().copied().fold(f32::INFINITY, f32::min);
    let max = |w: &[f32]| w.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let rome = weights("rome99.gr");
    assert_eq!((min(&rome), max(&rome)), (1.0, 12711.0));
    let lfat5 = weights("LFAT5.mtx");
    assert_eq!(min(&lfat5), -6283200.0, "negative weights are kept");
    let food = weights("foodweb-baydry.konect");
    assert_eq!(food[0], 1.261404);
    assert!(food.iter().all(|&w| w > 0.0));
}

#[test]
fn snap_files_with_weighted_option_need_a_third_column() {
    let message = error_of(&data("wiki-Vote.txt"), &weighted(FormatChoice::Auto));
    assert!(message.contains(":5: missing weight (3rd column)"), "{message}");
}

/// The five GAP encodings of the same graph give the same entries (IDs shifted for 1-based).
#[test]
fn gapbs_tiny_encodings_agree() {
    let gap = |name: &str| read_all(&data(&format!("gapbs-tiny/graphs/{name}")), &auto()).expect(name);
    let sorted = |mut v: Vec<(u64, u64, Option<f32>)>| {
        v.sort_by(|a, b| a.partial_cmp(b).expect("finite"));
        v
    };
    let el = gap("4.el");
    let wel = gap("4.wel");
    let gr = gap("4.gr");
    let mtx = gap("4.mtx");
    let mtx_w = gap("4w.mtx");
    assert_eq!(el.info.format, InputFormat::El);
    assert_eq!(wel.info.format, InputFormat::Wel);
    assert!(!el.info.weighted && wel.info.weighted && gr.info.weighted && !mtx.info.weighted && mtx_w.info.weighted);
    for p in [&el, &wel, &gr, &mtx, &mtx_w] {
        assert_eq!(p.edges.len(), 256);
        assert_eq!(p.edges.iter().filter(|e| e.src == e.dst).count(), 36);
    }
    let ids: BTreeSet<u64> = el.edges.iter().flat_map(|e| [e.src, e.dst]).collect();
    assert_eq!(
        (ids.len(), ids.last().copied()),
        (13, Some(13)),
        "13 IDs, max ID 13 (gapbs: 14 nodes)"
    );
    assert_eq!(gr.info.declared_vertices, Some(1..15));
    assert_eq!(mtx.info.declared_vertices, Some(1..15));
    let shifted = |p: &Parsed| {
        triples(&p.edges)
            .into_iter()
            .map(|(u, v, w)| (u + 1, v + 1, w))
            .collect::<Vec<_>>()
    };
    let unweighted = |v: Vec<(u64, u64, Option<f32>)>| v.into_iter().map(|(u, v, _)| (u, v, None)).collect();
    assert_eq!(sorted(shifted(&wel)), sorted(triples(&gr.edges)));
    assert_eq!(sorted(shifted(&wel)), sorted(triples(&mtx_w.edges)));
    assert_eq!(sorted(shifted(&el)), sorted(triples(&mtx.edges)));
    assert_eq!(sorted(shifted(&el)), sorted(unweighted(triples(&gr.edges))));
}

/// LAGraph's mangled Matrix Market files, judged one by one for a square-graph reader.
/// `Err(text)`: the file must fail and the message must contain `text` (which includes the
/// line); `Ok(n)`: the file is structurally valid and must give `n` entries.
#[test]
fn lagraph_mangled_files() {
    let verdicts: [(&str, Result<usize, &str>); 25] = [
        // object `mangled` instead of `matrix`.
        (
            "mangled1.mtx",
            Err(":1: banner object must be `matrix`, found \"mangled\""),
        ),
        // format `mangled` instead of `coordinate`.
        (
            "mangled2.mtx",
            Err(":1: banner format must be `coordinate`, found \"mangled\""),
        ),
        // field `mangled`.
        (
            "mangled3.mtx",
            Err(":1: banner field must be pattern, integer or real, found \"mangled\""),
        ),
        // symmetry `mangled`.
        (
            "mangled4.mtx",
            Err(":1: banner symmetry must be general or symmetric, found \"mangled\""),
        ),
        // hermitian (and pattern hermitian is not even valid Matrix Market).
        ("mangled5.mtx", Err(":1: hermitian matrices are not supported")),
        ("mangled6.mtx", Err(":1: hermitian matrices are not supported")),
        // `%%GraphBLAS type gunk` is a comment; the real entries lack their values.
        ("mangled7.mtx", Err(":5: missing weight (3rd column)")),
        // size line `3`: rows, columns and entries are all needed.
        (
            "mangled8.mtx",
            Err(":4: size line must be `rows columns entries`, found \"3\""),
        ),
        // 3×4 matrices: a graph needs a square matrix (reported on the size line, before the
        // truncation of mangled10, the bad values of mangled11/12, the out-of-range column
        // 9999 of mangled13 and the duplicate of mangled14).
        (
            "mangled9.mtx",
            Err(":4: the matrix is 3×4: a graph needs a square matrix"),
        ),
        ("mangled10.mtx", Err(":4: the matrix is 3×4")),
        ("mangled11.mtx", Err(":4: the matrix is 3×4")),
        ("mangled12.mtx", Err(":4: the matrix is 3×4")),
        ("mangled13.mtx", Err(":4: the matrix is 3×4")),
        ("mangled14.mtx", Err(":5: the matrix is 3×4")),
        // dense `array` matrices (with complex GraphBLAS types) are not graphs.
        ("mangled15.mtx", Err(":1: `array` (dense) matrices are not graphs")),
        ("mangled16.mtx", Err(":1: `array` (dense) matrices are not graphs")),
        ("mangled_format.mtx", Err(":1: `array` (dense) matrices are not graphs")),
        // skew-symmetric is refused.
        ("mangled_skew.mtx", Err(":1: skew-symmetric matrices are not supported")),
        // Valid `integer general` 7×7 files whose values only overflow the GraphBLAS type named
        // in a `%%GraphBLAS` comment (bool, int8 ... uint32). For a graph reader the values are
        // ordinary integer weights (all exactly representable or rounded in f32): accepted.
        ("mangled_bool.mtx", Ok(12)),
        ("mangled_int8.mtx", Ok(12)),
        ("mangled_int16.mtx", Ok(12)),
        ("mangled_int32.mtx", Ok(12)),
        ("mangled_uint8.mtx", Ok(12)),
        ("mangled_uint16.mtx", Ok(12)),
        ("mangled_uint32.mtx", Ok(12)),
    ];
    let listed: BTreeSet<String> = std::fs::read_dir(data("bad"))
        .expect("bad/")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    let judged: BTreeSet<String> = verdicts.iter().map(|(n, _)| n.to_string()).collect();
    assert_eq!(listed, judged, "every file in bad/ has a verdict");
    for (name, verdict) in verdicts {
        let path = data(&format!("bad/{name}"));
        match verdict {
            Err(expected) => {
                let message = error_of(&path, &auto());
                assert!(message.contains(expected), "{name}: {message}");
            }
            Ok(entries) => {
                let parsed = read_all(&path, &auto()).unwrap_or_else(|e| panic!("{e}"));
                assert_eq!(parsed.edges.len(), entries, "{name}");
                assert_eq!(parsed.info.declared_vertices, Some(1..8));
                assert!(parsed.info.weighted);
            }
        }
    }
    let int32 = read_all(&data("bad/mangled_int32.mtx"), &auto()).expect("int32");
    assert_eq!(int32.edges[0].weight, Some(-2147483649.0));
}
