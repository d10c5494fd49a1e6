//! One test per input fault: each must be an `InputError` naming the file and the line (or byte
//! offset), never a panic and never a silent short read.

mod parse_support;

use diskgraph_prep::parse::{FormatChoice, ParseOptions};
use diskgraph_prep::InputFormat;
use parse_support::{auto, error_of, given, gzip, read_all, weighted, write};
use tempfile::TempDir;

fn tmp() -> TempDir {
    tempfile::tempdir().expect("tempdir")
}

/// Writes `text` to `name` in a fresh directory and returns the error message, minus the path.
fn fails(name: &str, text: &str, opts: &ParseOptions) -> String {
    let dir = tmp();
    let path = write(dir.path(), name, text.as_bytes());
    let message = error_of(&path, opts);
    message[path.display().to_string().len()..].to_string()
}

#[test]
fn missing_file() {
    let dir = tmp();
    let message = error_of(&dir.path().join("nope.txt"), &auto());
    assert!(message.contains("No such file"), "{message}");
}

#[test]
fn unreadable_file() {
    // Tests may run as root, which reads any file: a directory is what cannot be read.
    let dir = tmp();
    let path = dir.path().join("edges.txt");
    std::fs::create_dir(&path).expect("mkdir");
    assert!(error_of(&path, &auto()).contains("directory"));
    assert!(error_of(&path, &given(InputFormat::Bin32)).starts_with(&path.display().to_string()));
}

#[test]
fn truncated_gzip_fails_at_every_cut() {
    let dir = tmp();
    let text: String = (0..600).map(|i| format!("{i} {}\n", i * 7 % 1000)).collect();
    let gz = gzip(text.as_bytes());
    for cut in 2..gz.len() {
        // A new name each time: rewriting one file would make ext4 flush it on every truncation.
        let path = write(dir.path(), &format!("cut{cut}.txt.gz"), &gz[..cut]);
        let message = error_of(&path, &auto());
        assert!(message.contains("gzip"), "cut at {cut}: {message}");
    }
}

#[test]
fn corrupt_gzip() {
    let dir = tmp();
    let text: String = (0..2000).map(|i| format!("{i} {}\n", i + 1)).collect();
    let mut gz = gzip(text.as_bytes());
    let n = gz.len();
    gz[n - 6] ^= 0xff; // the CRC / length trailer
    let path = write(dir.path(), "bad-crc.gz", &gz);
    assert!(error_of(&path, &auto()).contains("corrupt or truncated gzip stream"));
    let mut gz = gzip(text.as_bytes());
    gz[n / 2] ^= 0x55; // the deflate data
    let path = write(dir.path(), "bad-data.txt", &gz);
    assert!(error_of(&path, &auto()).contains("gzip"));
    let mut gz = gzip(text.as_bytes());
    gz.extend_from_slice(b"trailing garbage");
    let path = write(dir.path(), "garbage.txt.gz", &gz);
    assert!(error_of(&path, &auto()).contains("gzip"));
}

#[test]
fn empty_input() {
    let dir = tmp();
    for (name, bytes) in [
        ("empty.txt", b"".to_vec()),
        ("comments.txt", b"# nothing\n\n% here\n".to_vec()),
        ("empty.txt.gz", gzip(b"")),
        ("empty.el", b"\n\n".to_vec()),
    ] {
        let path = write(dir.path(), name, &bytes);
        assert!(
            error_of(&path, &auto()).ends_with(": no edges (the input is empty or holds only comments)"),
            "{name}"
        );
    }
    let path = write(dir.path(), "empty.bin32", b"");
    assert!(error_of(&path, &auto()).ends_with(": no edges (the file is empty)"));
    // A header declaring vertices makes an edge-less input valid (isolated vertices).
    let path = write(
        dir.path(),
        "isolated.mtx",
        b"%%MatrixMarket matrix coordinate pattern general\n3 3 0\n",
    );
    let parsed = read_all(&path, &auto()).expect("declared vertices, no edges");
    assert_eq!((parsed.edges.len(), parsed.info.declared_vertices), (0, Some(1..4)));
    // ... but not a declared count of zero.
    let path = write(
        dir.path(),
        "zero.mtx",
        b"%%MatrixMarket matrix coordinate pattern general\n0 0 0\n",
    );
    assert!(error_of(&path, &auto()).contains("no edges"));
}

#[test]
fn non_numeric_id() {
    assert_eq!(
        fails("x.txt", "1 2\n3 12a\n", &auto()),
        ":2: vertex ID \"12a\" is not a non-negative integer"
    );
    assert_eq!(
        fails("x.txt", "1 2\n\n1.5 2\n", &auto()),
        ":3: vertex ID \"1.5\" is not a non-negative integer"
    );
    assert_eq!(
        fails("x.txt", "+4 2\n", &auto()),
        ":1: vertex ID \"+4\" is not a non-negative integer"
    );
    // Commas make an input csv when its format is detected; as snap they are no separator.
    assert_eq!(
        fails("x.txt", "1,2\n", &given(InputFormat::Snap)),
        ":1: vertex ID \"1,2\" is not a non-negative integer"
    );
    assert_eq!(
        fails("x.gr", "p sp 3 1\na 1 x 4\n", &auto()),
        ":2: vertex ID \"x\" is not a non-negative integer"
    );
}

#[test]
fn negative_id() {
    assert_eq!(fails("x.txt", "1 2\n-3 4\n", &auto()), ":2: negative vertex ID \"-3\"");
    assert_eq!(fails("x.el", "1 -0\n", &auto()), ":1: negative vertex ID \"-0\"");
}

#[test]
fn id_too_large_for_u64() {
    let message = fails("x.txt", "1 18446744073709551616\n", &auto());
    assert_eq!(
        message,
        ":1: vertex ID \"18446744073709551616\" is too large (the maximum is 18446744073709551615)"
    );
    assert!(fails("x.txt", "99999999999999999999999 1\n", &auto()).contains("too large"));
    // The largest u64 and long runs of leading zeros are fine.
    let dir = tmp();
    let path = write(
        dir.path(),
        "max.txt",
        b"18446744073709551615 0000000000000000000000042\n",
    );
    let parsed = read_all(&path, &auto()).expect("u64::MAX");
    assert_eq!((parsed.edges[0].src, parsed.edges[0].dst), (u64::MAX, 42));
}

#[test]
fn id_zero_in_one_based_formats() {
    let zero = "vertex ID 0 in a 1-based format (IDs start at 1)";
    assert_eq!(
        fails("x.gr", "p sp 3 2\na 1 2 5\na 0 2 5\n", &auto()),
        format!(":3: {zero}")
    );
    let mtx = "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n3 0\n";
    assert_eq!(fails("x.mtx", mtx, &auto()), format!(":4: {zero}"));
    assert_eq!(
        fails("out.x", "% sym unweighted\n1 2\n0 1\n", &auto()),
        format!(":3: {zero}")
    );
}

#[test]
fn ids_beyond_declared_n() {
    let mtx = "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 2 1.0\n4 1 2.0\n";
    assert_eq!(
        fails("x.mtx", mtx, &auto()),
        ":4: vertex ID 4 is beyond the 3 vertices declared by the size line"
    );
    let gr = "c x\np sp 3 1\na 1 9 5\n";
    assert_eq!(
        fails("x.gr", gr, &auto()),
        ":3: vertex ID 9 is beyond the 3 vertices declared by the problem line"
    );
    let konect = "% asym unweighted\n% 1 2 2\n1 3\n";
    assert_eq!(
        fails("x.konect", konect, &auto()),
        ":3: vertex ID 3 is beyond the 2 vertices declared on line 2"
    );
}

#[test]
fn too_few_columns() {
    let one = ":2: missing destination vertex ID (too few columns)";
    assert_eq!(fails("x.txt", "1 2\n7\n", &auto()), one);
    assert_eq!(fails("x.gr", "p sp 3 1\na 1\n", &auto()), one);
    let no_weight = fails("x.wel", "0 1 2.5\n1 2\n", &auto());
    assert_eq!(
        no_weight,
        ":2: missing weight (3rd column): a .wel file has `u v w` lines"
    );
    let asked = fails("x.txt", "0 1 2\n1 2\n", &weighted(FormatChoice::Auto));
    assert_eq!(
        asked,
        ":2: missing weight (3rd column): weights were asked for (--weighted)"
    );
    assert!(fails("x.el", "0 1\n", &weighted(FormatChoice::Auto)).starts_with(":1: missing weight"));
    assert!(fails("x.gr", "p sp 3 1\na 1 2\n", &auto()).starts_with(":2: missing weight"));
    let mtx = "%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 2\n";
    assert!(fails("x.mtx", mtx, &auto()).starts_with(":3: missing weight"));
    assert!(fails("x.konect", "% asym weighted\n1 2 1.5\n2 3\n", &auto()).starts_with(":3: missing weight"));
}

#[test]
fn nan_or_infinite_weight() {
    let wel = |w: &str| fails("x.wel", &format!("0 1 1.5\n1 2 {w}\n"), &auto());
    assert_eq!(wel("nan"), ":2: weight \"nan\" is NaN");
    assert_eq!(wel("NaN"), ":2: weight \"NaN\" is NaN");
    assert_eq!(wel("inf"), ":2: weight \"inf\" is infinite");
    assert_eq!(wel("-Infinity"), ":2: weight \"-Infinity\" is infinite");
    assert_eq!(wel("1e39"), ":2: weight \"1e39\" overflows a 32-bit float");
    assert_eq!(wel("-3.5e38"), ":2: weight \"-3.5e38\" overflows a 32-bit float");
    assert_eq!(wel("1e400"), ":2: weight \"1e400\" overflows a 32-bit float");
}

#[test]
fn non_numeric_weight() {
    assert_eq!(
        fails("x.wel", "0 1 abc\n", &auto()),
        ":1: weight \"abc\" is not a number"
    );
    assert_eq!(
        fails("x.gr", "p sp 2 1\na 1 2 5km\n", &auto()),
        ":2: weight \"5km\" is not a number"
    );
    assert_eq!(
        fails("x.wel", "0 1 1,5\n", &auto()),
        ":1: weight \"1,5\" is not a number"
    );
}

#[test]
fn negative_and_unusual_weights_are_fine() {
    let dir = tmp();
    let path = write(
        dir.path(),
        "w.wel",
        b"0 1 -2.5\n1 2 1e-50\n2 3 -0\n3 4 +7\n4 5 .5\n5 6 3.4028234e38\n",
    );
    let w: Vec<f32> = read_all(&path, &auto())
        .expect("weights")
        .edges
        .iter()
        .map(|e| e.weight.unwrap())
        .collect();
    assert_eq!(w, [-2.5, 0.0, 0.0, 7.0, 0.5, f32::MAX]);
}

#[test]
fn matrix_market_header_faults() {
    assert_eq!(
        fails("x.mtx", "3 3 1\n1 2\n", &auto()),
        ":1: missing Matrix Market banner: expected `%%MatrixMarket matrix coordinate pattern|integer|real \
         general|symmetric`"
    );
    assert!(fails("x.mtx", "%%MatrixMarket matrix coordinate\n", &auto()).starts_with(":1: banner has no field"));
    let complex = "%%MatrixMarket matrix coordinate complex general\n2 2 1\n1 2 1 0\n";
    assert!(fails("x.mtx", complex, &auto()).starts_with(":1: complex matrices are not supported"));
    let no_size = "%%MatrixMarket matrix coordinate pattern general\n% only comments\n";
    assert_eq!(
        fails("x.mtx", no_size, &auto()),
        ": no size line (`rows columns entries`) after the banner"
    );
    let bad_size = "%%MatrixMarket matrix coordinate pattern general\n3 3 x\n";
    assert!(fails("x.mtx", bad_size, &auto()).starts_with(":2: size line must be `rows columns entries`"));
    let square = "%%MatrixMarket matrix coordinate pattern general\n%\n2 3 1\n1 2\n";
    assert_eq!(
        fails("x.mtx", square, &auto()),
        ":3: the matrix is 2×3: a graph needs a square matrix"
    );
    let pattern = "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n";
    let message = fails("x.mtx", pattern, &weighted(FormatChoice::Auto));
    assert_eq!(
        message,
        ":1: weights were asked for (--weighted) but the matrix is `pattern` (no values)"
    );
}

#[test]
fn matrix_market_entry_count_must_match() {
    let head = "%%MatrixMarket matrix coordinate pattern symmetric\n% c\n3 3 2\n";
    let too_few = fails("x.mtx", &format!("{head}2 1\n"), &auto());
    assert_eq!(
        too_few,
        ": the size line (line 3) declares 2 entries but the file has 1"
    );
    let too_many = fails("x.mtx", &format!("{head}2 1\n3 1\n% late comment\n3 2\n"), &auto());
    assert_eq!(
        too_many,
        ":7: more entries than the 2 declared on the size line (line 3)"
    );
}

#[test]
fn dimacs_header_and_count_faults() {
    assert_eq!(
        fails("x.gr", "c only comments\n", &auto()),
        ": no problem line `p sp <nodes> <arcs>`"
    );
    assert_eq!(
        fails("x.gr", "c x\na 1 2 3\n", &auto()),
        ":2: arc before the problem line `p sp <nodes> <arcs>`"
    );
    assert!(fails("x.gr", "p max 3 1\n", &auto()).starts_with(":1: problem type must be `sp`"));
    assert!(fails("x.gr", "p sp 3\n", &auto()).starts_with(":1: problem line must be `p sp <nodes> <arcs>`"));
    assert_eq!(
        fails("x.gr", "p sp 3 2\na 1 2 1\n", &auto()),
        ": the problem line (line 1) declares 2 arcs but the file has 1"
    );
    let too_many = fails("x.gr", "p sp 3 1\na 1 2 1\na 2 3 1\n", &auto());
    assert_eq!(
        too_many,
        ":3: more arcs than the 1 declared on the problem line (line 1)"
    );
    assert_eq!(
        fails("x.gr", "p sp 3 1\np sp 3 1\n", &auto()),
        ":2: a second problem line (the first is line 1)"
    );
    assert!(fails("x.gr", "p sp 3 1\ne 1 2\n", &auto()).starts_with(":2: unknown line type \"e\""));
}

#[test]
fn konect_header_and_count_faults() {
    let bip = fails("out.x", "% bip unweighted\n1 1\n", &auto());
    assert_eq!(bip, ":1: bipartite KONECT networks (bip) are not supported");
    let header = fails("x.konect", "1 2\n", &auto());
    assert_eq!(
        header,
        ":1: KONECT header must start with `% sym` or `% asym`, found \"1 2\""
    );
    let count = fails("x.konect", "% sym unweighted\n% 3 4 4\n1 2\n% c\n2 3\n", &auto());
    assert_eq!(count, ": line 2 declares 3 edges but the file has 2 edge lines");
    let shifted = fails("x.konect", "\n% asym unweighted\n% 3 3 3\n1 2\n", &auto());
    assert_eq!(shifted, ": line 3 declares 3 edges but the file has 1 edge lines");
    let bad_counts = fails("x.konect", "% sym unweighted\n% 3 x 4\n1 2\n", &auto());
    assert!(
        bad_counts.starts_with(":2: KONECT size line must be `% edges vertices [vertices]`"),
        "{bad_counts}"
    );
    let unweighted = fails("x.konect", "% sym unweighted\n1 2\n", &weighted(FormatChoice::Auto));
    assert_eq!(
        unweighted,
        ": weights were asked for (--weighted) but the KONECT file has none"
    );
}

/// A header that declares more vertices than a graph can hold (10^12, or 2^32 + 1) is refused on
/// its line, before an import would walk every declared ID; 2^32 itself is still accepted.
#[test]
fn declared_vertex_counts_beyond_2_32_are_refused_on_the_header_line() {
    let most = "4294967296";
    for n in ["1000000000000", "4294967297", "18446744073709551615"] {
        let mtx = format!("%%MatrixMarket matrix coordinate pattern general\n{n} {n} 1\n1 2\n");
        let message = fails("x.mtx", &mtx, &auto());
        assert!(
            message.starts_with(&format!(":2: the row count {n} is more than the {most} vertices")),
            "{message}"
        );
        let message = fails("x.gr", &format!("p sp {n} 1\na 1 2 1\n"), &auto());
        assert!(
            message.starts_with(&format!(":1: the node count {n} is more than")),
            "{message}"
        );
        let message = fails("x.konect", &format!("% sym unweighted\n% 1 {n} {n}\n1 2\n"), &auto());
        assert!(
            message.starts_with(":2: KONECT size line")
                && message.contains(&format!("the vertex count {n} is more than")),
            "{message}"
        );
    }
    let mtx = format!("%%MatrixMarket matrix coordinate pattern general\n{most} {most} 1\n1 2\n");
    let dir = tmp();
    let path = write(dir.path(), "x.mtx", mtx.as_bytes());
    let parsed = read_all(&path, &auto()).expect("2^32 declared vertices is the limit, not beyond it");
    assert_eq!(parsed.info.declared_vertices, Some(1..(1 << 32) + 1));
}

/// A CSV row that never ends (an unclosed quote) is refused once it passes 64 MiB instead of
/// being gathered whole in memory; the error names the line the row starts on.
#[test]
fn csv_row_beyond_64_mib_is_refused() {
    let dir = tmp();
    let mut text = b"src,dst\n1,2\n3,\"".to_vec();
    text.resize(text.len() + (65 << 20), b'x');
    let path = write(dir.path(), "x.csv", &text);
    let message = read_all(&path, &auto())
        .map(|p| p.edges.len())
        .expect_err("row too long")
        .to_string();
    assert!(
        message.ends_with("x.csv:3: row longer than 64 MiB (an unclosed quote, or not a CSV file?)"),
        "{message}"
    );
}

#[test]
fn binary_length_not_a_multiple_of_the_record() {
    let dir = tmp();
    let path = write(dir.path(), "x.bin32", &[0u8; 8 * 3 + 5]);
    assert!(error_of(&path, &auto())
        .ends_with(": byte 24: trailing partial record of 5 bytes: the length 29 is not a multiple of 8 (u32 pairs)"));
    let path = write(dir.path(), "x.bin64", &[0u8; 16 + 8]);
    assert!(error_of(&path, &auto())
        .ends_with(": byte 16: trailing partial record of 8 bytes: the length 24 is not a multiple of 16 (u64 pairs)"));
}

#[test]
fn weight_file_faults() {
    let dir = tmp();
    let edges: Vec<u8> = [1u32, 2, 2, 3, 3, 1].iter().flat_map(|v| v.to_le_bytes()).collect();
    let path = write(dir.path(), "x.bin32", &edges);
    let with = |w: &std::path::Path| ParseOptions {
        weight_file: Some(w.to_path_buf()),
        ..auto()
    };
    let short = write(dir.path(), "short.f32", &[0u8; 8]);
    // The length faults name the weight file.
    let err = read_all(&path, &with(&short))
        .err()
        .expect("length mismatch")
        .to_string();
    assert_eq!(
        err,
        format!(
            "{}: holds 2 weights but {} has 3 edges",
            short.display(),
            path.display()
        )
    );
    let ragged = write(dir.path(), "ragged.f32", &[0u8; 13]);
    let err = read_all(&path, &with(&ragged))
        .err()
        .expect("partial weight")
        .to_string();
    assert!(err.ends_with(": byte 12: trailing partial weight of 1 bytes: the length 13 is not a multiple of 4"));
    let nan: Vec<u8> = [1.0f32, f32::NAN, 2.0].iter().flat_map(|v| v.to_le_bytes()).collect();
    let nan = write(dir.path(), "nan.f32", &nan);
    let err = read_all(&path, &with(&nan)).err().expect("NaN weight").to_string();
    assert_eq!(err, format!("{}: byte 4: weight NaN is not finite", nan.display()));
    let missing = dir.path().join("missing.f32");
    assert!(read_all(&path, &with(&missing))
        .err()
        .expect("missing")
        .to_string()
        .starts_with(&missing.display().to_string()));
    let asked = error_of(&path, &weighted(FormatChoice::Auto));
    assert!(asked.ends_with("weights were asked for (--weighted) but binary input has none: give a weight file"));
    // A weight file only goes with binary input.
    let text = write(dir.path(), "x.txt", b"1 2\n");
    let message = error_of(&text, &with(&nan));
    assert!(
        message.ends_with(": a weight file applies only to bin32/bin64 input, not snap"),
        "{message}"
    );
}

#[test]
fn generated_is_not_a_file_format() {
    let dir = tmp();
    let path = write(dir.path(), "x.txt", b"1 2\n");
    assert!(error_of(&path, &given(InputFormat::Generated)).ends_with("`generated` is not a file format"));
}

#[test]
fn binary_data_read_as_text_fails_cleanly() {
    let dir = tmp();
    let bytes: Vec<u8> = (0..100_000u32)
        .flat_map(|v| v.wrapping_mul(2654435761).to_le_bytes())
        .collect();
    let path = write(dir.path(), "x.txt", &bytes);
    let message = error_of(&path, &auto());
    assert!(
        message.contains(":1: vertex ID") || message.contains("line longer"),
        "{message}"
    );
}
