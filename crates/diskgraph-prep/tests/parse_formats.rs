//! Format round trips: fixtures of every format, automatic detection, CRLF and gzip input,
//! inputs spanning many buffers and batches, binary inputs with weights, and a property test.

mod parse_support;

use std::path::{Path, PathBuf};

use diskgraph_prep::parse::{open_input, parse_format_name, FormatChoice, ParseOptions};
use diskgraph_prep::InputFormat;
use parse_support::{auto, error_of, given, gzip, pairs, read_all, triples, write, INPUTS};
use proptest::prelude::*;

fn input(name: &str) -> PathBuf {
    Path::new(INPUTS).join(name)
}

fn tmp() -> tempfile::TempDir {
    tempfile::tempdir().expect("tempdir")
}

#[test]
fn fixture_snap_crlf_bom() {
    let p = read_all(&input("tiny-crlf.txt"), &auto()).expect("snap");
    assert_eq!(pairs(&p.edges), [(0, 1), (1, 2), (2, 0), (5, 5)]);
    assert_eq!(
        (p.info.format, p.info.directed, p.info.weighted),
        (InputFormat::Snap, None, false)
    );
    assert_eq!(p.info.declared_vertices, None);
    assert_eq!(p.info.description, "snap edge list");
}

#[test]
fn fixture_konect() {
    let p = read_all(&input("out.tiny-sym"), &auto()).expect("konect");
    assert_eq!(pairs(&p.edges), [(1, 2), (2, 3), (3, 4), (5, 1)]);
    assert_eq!((p.info.directed, p.info.weighted), (Some(false), false));
    assert_eq!(p.info.declared_vertices, Some(1..6));
    assert_eq!(
        p.message.as_deref(),
        Some("format auto: konect (name starts with out.)")
    );
}

#[test]
fn fixture_dimacs() {
    let p = read_all(&input("tiny.gr"), &auto()).expect("dimacs");
    let expected = [(1, 2, 0.5), (2, 3, 1.25), (3, 4, 2.0), (4, 1, -3.0), (1, 3, 100.0)];
    assert_eq!(triples(&p.edges), expected.map(|(u, v, w)| (u, v, Some(w))));
    assert_eq!(
        (p.info.directed, p.info.weighted, p.info.declared_vertices),
        (Some(true), true, Some(1..5))
    );
}

#[test]
fn fixture_mtx_symmetric() {
    let p = read_all(&input("tiny-symmetric.mtx"), &auto()).expect("mtx");
    let expected = [(2, 1, 1.5), (3, 1, -2.0), (4, 3, 3.0), (4, 4, 7.0)];
    assert_eq!(
        triples(&p.edges),
        expected.map(|(u, v, w)| (u, v, Some(w))),
        "each stored entry once"
    );
    assert_eq!(
        (p.info.directed, p.info.weighted, p.info.declared_vertices),
        (Some(false), true, Some(1..5))
    );
    assert_eq!(p.info.description, "matrix market, real symmetric");
}

#[test]
fn fixture_wel_and_binary() {
    let p = read_all(&input("tiny.wel"), &auto()).expect("wel");
    assert_eq!(
        triples(&p.edges),
        [(0, 1, Some(10.0)), (1, 2, Some(20.0)), (2, 0, Some(30.0))]
    );
    let opts = ParseOptions {
        weight_file: Some(input("tiny.bin32.weights")),
        ..auto()
    };
    let p = read_all(&input("tiny.bin32"), &opts).expect("bin32");
    assert_eq!(
        triples(&p.edges),
        [(0, 1, Some(0.5)), (1, 2, Some(1.5)), (4_000_000_000, 0, Some(-2.5))]
    );
    assert!(p.info.weighted && p.info.directed.is_none());
    let p = read_all(&input("tiny.bin32"), &auto()).expect("bin32 unweighted");
    assert!(!p.info.weighted && p.edges.iter().all(|e| e.weight.is_none()));
    let p = read_all(&input("tiny.bin64"), &auto()).expect("bin64");
    assert_eq!(pairs(&p.edges), [(0, u64::MAX), (7, 8)]);
    assert_eq!(p.message.as_deref(), Some("format auto: bin64 (extension .bin64)"));
}

#[test]
fn bad_fixtures() {
    let expected = [
        ("zero-id.gr", ":3: vertex ID 0 in a 1-based format"),
        ("nan-weight.wel", ":2: weight \"nan\" is NaN"),
        ("bip.konect", ":1: bipartite KONECT networks (bip) are not supported"),
        (
            "too-many-entries.mtx",
            ":4: more entries than the 1 declared on the size line (line 2)",
        ),
        ("not-square.mtx", ":2: the matrix is 2×3: a graph needs a square matrix"),
        ("negative-id.txt", ":3: negative vertex ID \"-3\""),
        (
            "konect-count.konect",
            ": line 2 declares 3 edges but the file has 2 edge lines",
        ),
        ("partial.bin64", ": byte 16: trailing partial record of 3 bytes"),
        ("truncated.txt.gz", ": corrupt or truncated gzip stream"),
    ];
    let mut listed: Vec<String> = std::fs::read_dir(input("bad"))
        .expect("bad/")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    listed.sort();
    let mut names: Vec<String> = expected.iter().map(|(n, _)| n.to_string()).collect();
    names.sort();
    assert_eq!(listed, names, "every bad fixture has an expected error");
    for (name, text) in expected {
        let message = error_of(&input(&format!("bad/{name}")), &auto());
        assert!(message.contains(text), "{name}: {message}");
    }
}

#[test]
fn detection_by_name_and_content() {
    let dir = tmp();
    let cases: [(&str, &[u8], InputFormat, &str); 14] = [
        (
            "a.MTX",
            b"%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n",
            InputFormat::Mtx,
            "extension .mtx",
        ),
        ("a.gr", b"p sp 2 1\na 1 2 3\n", InputFormat::Dimacs, "extension .gr"),
        ("a.el", b"0 1\n", InputFormat::El, "extension .el"),
        ("a.wel", b"0 1 2\n", InputFormat::Wel, "extension .wel"),
        ("a.konect", b"% asym\n1 2\n", InputFormat::Konect, "extension .konect"),
        (
            "out.a-b",
            b"% asym\n1 2\n",
            InputFormat::Konect,
            "name starts with out.",
        ),
        (
            "a.bin32",
            &[1, 0, 0, 0, 2, 0, 0, 0],
            InputFormat::Bin32,
            "extension .bin32",
        ),
        (
            "a.txt",
            b"\n%%matrixmarket matrix coordinate pattern general\n2 2 1\n1 2\n",
            InputFormat::Mtx,
            "file starts with %%MatrixMarket",
        ),
        (
            "a",
            b"p sp 2 1\na 1 2 3\n",
            InputFormat::Dimacs,
            "file starts with a DIMACS problem line `p sp`",
        ),
        (
            "a.dat",
            b"c comment\np sp 2 1\na 1 2 3\n",
            InputFormat::Dimacs,
            "file starts with a DIMACS `c` comment",
        ),
        (
            "a.tab",
            b"% sym\n1 2\n",
            InputFormat::Konect,
            "file starts with a KONECT header `% sym|asym`",
        ),
        (
            "a.edges",
            b"%asym positive\n1 2 3\n",
            InputFormat::Konect,
            "file starts with a KONECT header `% sym|asym`",
        ),
        (
            "a.txt",
            b"% just a comment\n1 2\n",
            InputFormat::Snap,
            "no known extension or header: whitespace edge list",
        ),
        (
            "edges",
            b"1 2\n",
            InputFormat::Snap,
            "no known extension or header: whitespace edge list",
        ),
    ];
    for (name, bytes, format, why) in cases {
        let path = write(dir.path(), name, bytes);
        let p = read_all(&path, &auto()).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(p.info.format, format, "{name}");
        assert_eq!(
            p.message,
            Some(format!("format auto: {} ({why})", format.name())),
            "{name}"
        );
        // A given format gives no message.
        let (_, message) = open_input(&path, &given(format)).expect("given");
        assert_eq!(message, None);
    }
    // `.gz` is stripped before the extension rules; the content decides for gzip too.
    let path = write(
        dir.path(),
        "g.mtx.gz",
        &gzip(b"%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n"),
    );
    assert_eq!(
        read_all(&path, &auto()).expect("mtx.gz").message.as_deref(),
        Some("format auto: mtx (extension .mtx)")
    );
    let path = write(dir.path(), "out.x.gz", &gzip(b"% sym\n1 2\n"));
    assert_eq!(
        read_all(&path, &auto()).expect("konect gz").info.format,
        InputFormat::Konect
    );
    let path = write(dir.path(), "h.gz", &gzip(b"c x\np sp 2 1\na 1 2 3\n"));
    assert_eq!(
        read_all(&path, &auto()).expect("dimacs gz").info.format,
        InputFormat::Dimacs
    );
    // Binary is never guessed from content; a given format overrides the name.
    let path = write(dir.path(), "b.dat", &[1, 0, 0, 0, 2, 0, 0, 0]);
    assert!(error_of(&path, &auto()).contains("vertex ID"));
    assert_eq!(
        pairs(&read_all(&path, &given(InputFormat::Bin32)).expect("given bin32").edges),
        [(1, 2)]
    );
    let path = write(dir.path(), "c.mtx", b"1 2\n");
    assert_eq!(
        read_all(&path, &given(InputFormat::Snap))
            .expect("given snap")
            .info
            .format,
        InputFormat::Snap
    );
}

#[test]
fn format_names() {
    assert_eq!(parse_format_name("auto"), Ok(FormatChoice::Auto));
    for format in [
        InputFormat::Snap,
        InputFormat::Konect,
        InputFormat::Mtx,
        InputFormat::Dimacs,
        InputFormat::El,
        InputFormat::Wel,
        InputFormat::Bin32,
        InputFormat::Bin64,
    ] {
        assert_eq!(parse_format_name(format.name()), Ok(FormatChoice::Given(format)));
    }
    assert_eq!(parse_format_name("MTX"), Ok(FormatChoice::Given(InputFormat::Mtx)));
    assert_eq!(parse_format_name("csv"), Ok(FormatChoice::Given(InputFormat::Csv)));
    let err = parse_format_name("xml").expect_err("unknown");
    assert_eq!(
        err,
        "unknown input format \"xml\" (expected one of auto, snap, csv, konect, mtx, dimacs, el, wel, bin32, bin64, bvgraph)"
    );
    assert!(parse_format_name("generated").is_err());
}

/// The same graph written with LF and with CRLF line ends parses the same, in every text format.
#[test]
fn crlf_round_trip() {
    let dir = tmp();
    let texts = [
        ("s.txt", "# c\n1 2\n\n3 4 9\n"),
        ("s.wel", "1 2 0.5\n3 4 9\n"),
        (
            "s.mtx",
            "%%MatrixMarket matrix coordinate integer general\n% c\n4 4 2\n1 2 5\n3 4 -6\n",
        ),
        ("s.gr", "c c\np sp 4 2\na 1 2 5\na 3 4 6\n"),
        ("s.konect", "% asym weighted\n% 2 4 4\n1 2 5 100\n3 4 6 101\n"),
    ];
    for (name, text) in texts {
        let lf = read_all(&write(dir.path(), name, text.as_bytes()), &auto()).expect(name);
        let crlf = text.replace('\n', "\r\n");
        let crlf = read_all(&write(dir.path(), name, crlf.as_bytes()), &auto()).expect(name);
        assert_eq!(triples(&lf.edges), triples(&crlf.edges), "{name}");
        assert_eq!(lf.info, crlf.info, "{name}");
        assert_eq!(lf.edges.len(), 2, "{name}");
    }
}

/// Gzip input (named or not) gives the same edges; progress counts compressed bytes.
#[test]
fn gzip_round_trip() {
    let dir = tmp();
    let text: String = (0..300_000u64)
        .map(|i| format!("{} {}\t{}\n", i, i * 31 % 100_003, i % 7))
        .collect();
    let plain = read_all(&write(dir.path(), "e.txt", text.as_bytes()), &auto()).expect("plain");
    let gz = gzip(text.as_bytes());
    for name in ["e.txt.gz", "e.txt", "e"] {
        let path = write(dir.path(), name, &gz);
        let p = read_all(&path, &auto()).expect(name);
        assert_eq!(pairs(&p.edges), pairs(&plain.edges), "{name}");
        assert_eq!(p.info.description, "snap edge list, gzip");
        let (source, _) = open_input(&path, &auto()).expect("open");
        assert_eq!(
            source.progress().1,
            Some(gz.len() as u64),
            "total is the compressed size"
        );
    }
    // Several gzip members one after another (as `cat a.gz b.gz` makes) are one input.
    let (a, b) = text.split_at(text.len() / 2 + 3); // splits inside a line
    let mut two = gzip(a.as_bytes());
    two.extend(gzip(b.as_bytes()));
    let p = read_all(&write(dir.path(), "two.gz", &two), &auto()).expect("multi-member");
    assert_eq!(pairs(&p.edges), pairs(&plain.edges));
    // Weighted gzip input.
    let p = read_all(&write(dir.path(), "w.wel.gz", &gz), &auto()).expect("wel.gz");
    assert_eq!(p.edges[8].weight, Some(1.0));
}

/// Inputs much larger than one read buffer and one batch: edge counts, batch boundaries, the
/// line number of a late error, a line longer than the buffer, a last line without `\n`.
#[test]
fn large_inputs_span_buffers_and_batches() {
    let dir = tmp();
    let n = 1_200_000u64;
    let mut text: String = (0..n).map(|i| format!("{i} {}\n", n - i)).collect();
    let p = read_all(&write(dir.path(), "big.txt", text.as_bytes()), &auto()).expect("big");
    assert_eq!(p.edges.len() as u64, n);
    assert!(p
        .edges
        .iter()
        .enumerate()
        .all(|(i, e)| e.src == i as u64 && e.dst == n - i as u64));
    // A fault near the end is reported with its exact line number.
    text.push_str("5 x\n");
    let message = error_of(&write(dir.path(), "late.txt", text.as_bytes()), &auto());
    assert!(message.contains(&format!(":{}: vertex ID \"x\"", n + 1)), "{message}");
    // A 9 MiB comment line (longer than the read buffer), and no final newline.
    let long = format!("1 2\n#{}\n3 4", "z".repeat(9 << 20));
    let p = read_all(&write(dir.path(), "long.txt", long.as_bytes()), &auto()).expect("long line");
    assert_eq!(pairs(&p.edges), [(1, 2), (3, 4)]);
    // Binary inputs over several batches.
    let bytes: Vec<u8> = (0..700_000u64)
        .flat_map(|i| [i, i ^ 0xdead_beef_0000].map(u64::to_le_bytes))
        .flatten()
        .collect();
    let p = read_all(&write(dir.path(), "big.bin64", &bytes), &auto()).expect("bin64");
    assert_eq!(p.edges.len(), 700_000);
    assert!(p
        .edges
        .iter()
        .enumerate()
        .all(|(i, e)| e.src == i as u64 && e.dst == i as u64 ^ 0xdead_beef_0000));
}

#[test]
fn batches_are_bounded_and_progress_reaches_the_end() {
    let dir = tmp();
    let text: String = (0..1_000_000u32).map(|i| format!("{i} {i}\n")).collect();
    let path = write(dir.path(), "b.el", text.as_bytes());
    let (mut source, _) = open_input(&path, &auto()).expect("open");
    assert_eq!(source.progress(), (0, Some(text.len() as u64)));
    let mut batch = Vec::new();
    let mut sizes = Vec::new();
    while source.next_batch(&mut batch).expect("batch") {
        sizes.push(batch.len());
    }
    assert!(
        sizes.len() >= 2 && sizes.iter().all(|&s| (1..=1 << 20).contains(&s)),
        "{sizes:?}"
    );
    assert_eq!(sizes.iter().sum::<usize>(), 1_000_000);
    assert_eq!(source.progress(), (text.len() as u64, Some(text.len() as u64)));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    /// Random edges written with random separators, comments, blank lines and line ends parse back exactly.
    #[test]
    fn text_round_trip(
        edges in prop::collection::vec((any::<u64>(), any::<u64>(), -1e30f32..1e30f32), 1..200),
        seps in prop::collection::vec(prop::sample::select(vec![" ", "\t", "  ", " \t "]), 4),
        crlf in any::<bool>(),
        comment_every in 1usize..20,
    ) {
        let dir = tmp();
        let eol = if crlf { "\r\n" } else { "\n" };
        let mut text = String::new();
        for (i, (u, v, w)) in edges.iter().enumerate() {
            if i % comment_every == 0 {
                text.push_str(&format!("# comment {i}{eol}{}{eol}", seps[3]));
            }
            text.push_str(&format!("{}{u}{}{v}{}{w:e}{eol}", seps[0], seps[1], seps[2]));
        }
        let opts = ParseOptions { weighted: true, ..auto() };
        let p = read_all(&write(dir.path(), "r.txt", text.as_bytes()), &opts).expect("round trip");
        prop_assert_eq!(triples(&p.edges), edges.iter().map(|&(u, v, w)| (u, v, Some(w))).collect::<Vec<_>>());
    }
}
