//! Fuzz targets for every importer: the input bytes become a file (or the files of a BVGraph),
//! the real parser reads it to the end, and a small input that parses is imported whole, after
//! which the graph directory must open and verify.
//!
//! What a target treats as a bug (it panics, so libFuzzer reports it and the replay test fails):
//! a panic anywhere, an input that parses but does not import, an import whose edge count
//! differs from the parse, and an imported graph that fails [`diskgraph_format::verify`].
//! Hangs and huge allocations are found by libFuzzer's `-timeout`, `-rss_limit_mb` and
//! `-malloc_limit_mb`.
//!
//! Layout of the inputs (the seed corpora follow it):
//! - text formats (`import_snap`, `import_el`, `import_wel`, `import_mtx`, `import_dimacs`,
//!   `import_konect`): the whole input is the file;
//! - `import_csv`: byte 0 picks the options (bits 0-1 header auto/yes/no, bits 2-3 IDs
//!   auto/integer/name, bit 4 `weighted`, bit 5 weight column 2 by index or `weight` by name,
//!   bits 6-7 delimiter default/`,`/tab/`;`); the rest is the file;
//! - `import_bin32` / `import_bin64`: byte 0 bit 0 says whether a weight file follows and bit 1
//!   asks for weights; with a weight file, bytes 1-2 (u16 LE) are the edge file's length and the
//!   bytes after it the weight file; the rest is the edge file;
//! - `import_gzip`: byte 0 bit 0 splits the gzip stream into two members, bit 1 cuts byte 1's
//!   value of bytes off the compressed end; the rest, gzip-compressed, is the file
//!   (format detected automatically);
//! - `import_gzip_raw`: the input, with the gzip magic put in front unless it starts with it,
//!   read with automatic detection (only the first [`MAX_GZIP_RAW`] bytes: a gzip bomb
//!   expands about 1000 times);
//! - `import_bvgraph`: bytes 0-1 and 2-3 (u16 LE) are the lengths of the `.properties` and
//!   `.offsets` files cut from the front, the rest is the `.graph` bit stream.

use std::io::Write;
use std::path::{Path, PathBuf};

use diskgraph_prep::parse::{open_input, Column, CsvOptions, FormatChoice, Header, IdKind, ParseOptions};
use diskgraph_prep::{import, ImportOptions, InputFormat, NoProgress, RawEdge};
use flate2::write::GzEncoder;
use flate2::Compression;

use crate::Target;

/// The importer targets.
pub static TARGETS: &[Target] = &[
    Target {
        name: "import_snap",
        run: |data| {
            snap(data);
        },
    },
    Target {
        name: "import_el",
        run: |data| {
            el(data);
        },
    },
    Target {
        name: "import_wel",
        run: |data| {
            wel(data);
        },
    },
    Target {
        name: "import_mtx",
        run: |data| {
            mtx(data);
        },
    },
    Target {
        name: "import_dimacs",
        run: |data| {
            dimacs(data);
        },
    },
    Target {
        name: "import_konect",
        run: |data| {
            konect(data);
        },
    },
    Target {
        name: "import_csv",
        run: |data| {
            csv(data);
        },
    },
    Target {
        name: "import_bin32",
        run: |data| {
            bin32(data);
        },
    },
    Target {
        name: "import_bin64",
        run: |data| {
            bin64(data);
        },
    },
    Target {
        name: "import_gzip",
        run: |data| {
            gzip(data);
        },
    },
    Target {
        name: "import_gzip_raw",
        run: |data| {
            gzip_raw(data);
        },
    },
    Target {
        name: "import_bvgraph",
        run: |data| {
            bvgraph(data);
        },
    },
];

/// Longest input a target reads (libFuzzer's `-max_len` is smaller by default).
const MAX_INPUT: usize = 1 << 20;
/// Longest input `import_gzip_raw` reads (decompressed, at most about 1000 times more).
pub const MAX_GZIP_RAW: usize = 4 << 10;
/// Inputs with at most this many edges, and at most [`MAX_IMPORT_VERTICES`] declared vertices,
/// are imported whole after they parse.
const MAX_IMPORT_EDGES: u64 = 1 << 12;
/// See [`MAX_IMPORT_EDGES`].
const MAX_IMPORT_VERTICES: u64 = 1 << 16;
/// Largest `arcs` a BVGraph's properties may declare for the target to decode it: a list is
/// held whole in memory, and one interval code can hold billions of successors.
const MAX_BVGRAPH_ARCS: u64 = 1 << 20;

/// A scratch directory for one input, in memory when `/dev/shm` exists.
fn scratch() -> tempfile::TempDir {
    let shm = Path::new("/dev/shm");
    let dir = match shm.is_dir() {
        true => tempfile::Builder::new().prefix("dgfuzz").tempdir_in(shm),
        false => tempfile::Builder::new().prefix("dgfuzz").tempdir(),
    };
    dir.expect("creating a scratch directory for a fuzz input")
}

/// Writes `bytes` to `dir/name`.
fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("writing a fuzz input");
    path
}

/// Options reading `format` (weights asked for when `weighted`).
fn given(format: InputFormat, weighted: bool) -> ParseOptions {
    ParseOptions {
        format: FormatChoice::Given(format),
        weighted,
        ..ParseOptions::default()
    }
}

/// Reads `path` to the end with `opts`: the edge count when it parses, `None` when the input is
/// refused (an error is the right answer to bad input; a panic is not).
fn parse(path: &Path, opts: &ParseOptions) -> Option<u64> {
    let (mut source, _) = open_input(path, opts).ok()?;
    let mut batch: Vec<RawEdge> = Vec::new();
    let mut edges = 0u64;
    loop {
        match source.next_batch(&mut batch) {
            Ok(true) => {
                assert!(
                    !batch.is_empty(),
                    "{}: a batch reported as non-empty is empty",
                    path.display()
                );
                for e in &batch {
                    assert!(
                        e.weight.is_none_or(f32::is_finite),
                        "{}: a parser passed on a weight that is not finite",
                        path.display()
                    );
                }
                edges += batch.len() as u64;
            }
            Ok(false) => break,
            Err(_) => return None,
        }
        let _ = source.warnings();
        let _ = source.extra_vertices();
    }
    Some(edges)
}

/// Parses `path` with `opts` and, when it parses and is small, imports it: the import must
/// succeed, read as many edges as the parse did, and give a graph that opens and verifies.
/// Returns whether the input was imported (and so checked whole).
fn parse_and_import(dir: &Path, path: &Path, opts: &ParseOptions) -> bool {
    let Some(edges) = parse(path, opts) else {
        return false;
    };
    if edges > MAX_IMPORT_EDGES {
        return false;
    }
    let (mut source, _) = open_input(path, opts).expect("an input that parsed once opens again");
    let declared = source.info().declared_vertices.clone().unwrap_or(0..0);
    if declared.end - declared.start > MAX_IMPORT_VERTICES {
        return false;
    }
    let graph = dir.join("graph");
    let options = ImportOptions {
        memory: 1 << 20,
        force: true,
        ..ImportOptions::default()
    };
    let summary = match import(&mut *source, &graph, &options, &mut NoProgress) {
        Ok(summary) => summary,
        Err(e) => panic!("{}: parses ({edges} edges) but does not import: {e:#}", path.display()),
    };
    assert_eq!(
        summary.input_edges,
        edges,
        "{}: the import read a different edge count",
        path.display()
    );
    diskgraph_format::GraphDir::open(&graph)
        .unwrap_or_else(|e| panic!("{}: the imported graph does not open: {e}", path.display()));
    diskgraph_format::verify(&graph)
        .unwrap_or_else(|e| panic!("{}: the imported graph does not verify: {e}", path.display()));
    true
}

/// A text format: the input is the file, read unweighted (imported when small) and weighted.
/// Each target body returns whether the input was imported (see [`parse_and_import`]).
fn text(data: &[u8], format: InputFormat, name: &str) -> bool {
    if data.len() > MAX_INPUT {
        return false;
    }
    let dir = scratch();
    let path = write(dir.path(), name, data);
    let imported = parse_and_import(dir.path(), &path, &given(format, false));
    parse(&path, &given(format, true));
    imported
}

/// SNAP / whitespace edge lists.
fn snap(data: &[u8]) -> bool {
    text(data, InputFormat::Snap, "input.txt")
}

/// GAP `.el`.
fn el(data: &[u8]) -> bool {
    text(data, InputFormat::El, "input.el")
}

/// GAP `.wel`.
fn wel(data: &[u8]) -> bool {
    text(data, InputFormat::Wel, "input.wel")
}

/// Matrix Market.
fn mtx(data: &[u8]) -> bool {
    text(data, InputFormat::Mtx, "input.mtx")
}

/// DIMACS `.gr`.
fn dimacs(data: &[u8]) -> bool {
    text(data, InputFormat::Dimacs, "input.gr")
}

/// KONECT `out.*`.
fn konect(data: &[u8]) -> bool {
    text(data, InputFormat::Konect, "out.input")
}

/// CSV / TSV with the options byte 0 picks (see the module docs).
fn csv(data: &[u8]) -> bool {
    let Some((&options, rest)) = data.split_first() else {
        return false;
    };
    if rest.len() > MAX_INPUT {
        return false;
    }
    let header = [Header::Auto, Header::Yes, Header::No, Header::Auto][usize::from(options & 3)];
    let ids = [IdKind::Auto, IdKind::Integer, IdKind::Name, IdKind::Auto][usize::from((options >> 2) & 3)];
    let weighted = options & 0x10 != 0;
    let weight = weighted.then(|| match options & 0x20 {
        0 => Column::Index(2),
        _ => Column::Name("weight".into()),
    });
    let delimiter = [None, Some(b','), Some(b'\t'), Some(b';')][usize::from(options >> 6)];
    let opts = ParseOptions {
        format: FormatChoice::Given(InputFormat::Csv),
        weighted,
        csv: CsvOptions {
            header,
            delimiter,
            weight,
            ids,
            ..CsvOptions::default()
        },
        ..ParseOptions::default()
    };
    let dir = scratch();
    let path = write(dir.path(), "input.csv", rest);
    parse_and_import(dir.path(), &path, &opts)
}

/// bin32 / bin64, with or without a weight file (see the module docs).
fn binary(data: &[u8], format: InputFormat, name: &str) -> bool {
    let Some((&options, rest)) = data.split_first() else {
        return false;
    };
    if rest.len() > MAX_INPUT {
        return false;
    }
    let dir = scratch();
    let (edges, weights) = match (options & 1, rest) {
        (1, [a, b, rest @ ..]) => {
            let split = usize::from(u16::from_le_bytes([*a, *b])).min(rest.len());
            let (edges, weights) = rest.split_at(split);
            (edges, Some(write(dir.path(), "weights.f32", weights)))
        }
        _ => (rest, None),
    };
    let path = write(dir.path(), name, edges);
    let opts = ParseOptions {
        weight_file: weights,
        ..given(format, options & 2 != 0)
    };
    parse_and_import(dir.path(), &path, &opts)
}

/// Raw little-endian u32 pairs.
fn bin32(data: &[u8]) -> bool {
    binary(data, InputFormat::Bin32, "input.bin32")
}

/// Raw little-endian u64 pairs.
fn bin64(data: &[u8]) -> bool {
    binary(data, InputFormat::Bin64, "input.bin64")
}

/// `bytes` gzip-compressed.
fn compress(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = GzEncoder::new(Vec::new(), Compression::fast());
    encoder.write_all(bytes).expect("compressing in memory");
    encoder.finish().expect("compressing in memory")
}

/// Any text input, gzip-compressed (in one or two members, possibly cut short) and read with
/// automatic format detection.
fn gzip(data: &[u8]) -> bool {
    let [options, cut, rest @ ..] = data else {
        return false;
    };
    if rest.len() > MAX_INPUT {
        return false;
    }
    let mut gz = match options & 1 {
        0 => compress(rest),
        _ => {
            let (a, b) = rest.split_at(rest.len() / 2);
            let mut two = compress(a);
            two.extend(compress(b));
            two
        }
    };
    if options & 2 != 0 {
        gz.truncate(gz.len().saturating_sub(usize::from(*cut)));
    }
    let dir = scratch();
    let path = write(dir.path(), "input.gz", &gz);
    parse_and_import(dir.path(), &path, &ParseOptions::default())
}

/// Raw bytes behind the gzip magic, read with automatic format detection.
fn gzip_raw(data: &[u8]) -> bool {
    let data = &data[..data.len().min(MAX_GZIP_RAW)];
    let mut bytes = Vec::with_capacity(data.len() + 2);
    if !data.starts_with(&[0x1f, 0x8b]) {
        bytes.extend_from_slice(&[0x1f, 0x8b]);
    }
    bytes.extend_from_slice(data);
    let dir = scratch();
    let path = write(dir.path(), "input", &bytes);
    parse_and_import(dir.path(), &path, &ParseOptions::default())
}

/// The largest `arcs` a properties text may declare, read leniently (`arcs=N`, `arcs: N`,
/// `arcs N`, on any line).
fn declared_arcs(properties: &[u8]) -> Option<u64> {
    String::from_utf8_lossy(properties)
        .lines()
        .filter_map(|line| {
            let rest = line.trim().strip_prefix("arcs")?;
            let value = rest.trim_start().trim_start_matches(['=', ':']).trim();
            value.parse().ok()
        })
        .max()
}

/// A BVGraph whose `.properties`, `.offsets` and `.graph` files are cut from the input (see the
/// module docs).
fn bvgraph(data: &[u8]) -> bool {
    let [p0, p1, o0, o1, rest @ ..] = data else {
        return false;
    };
    if rest.len() > MAX_INPUT {
        return false;
    }
    let (properties, rest) = rest.split_at(usize::from(u16::from_le_bytes([*p0, *p1])).min(rest.len()));
    let (offsets, graph) = rest.split_at(usize::from(u16::from_le_bytes([*o0, *o1])).min(rest.len()));
    // The harness's cap, not the parser's: an honest BVGraph may declare any arc count.
    if declared_arcs(properties).is_none_or(|arcs| arcs > MAX_BVGRAPH_ARCS) {
        return false;
    }
    let dir = scratch();
    write(dir.path(), "g.properties", properties);
    write(dir.path(), "g.offsets", offsets);
    write(dir.path(), "g.graph", graph);
    let base = dir.path().join("g");
    let imported = parse_and_import(dir.path(), &base, &given(InputFormat::BvGraph, false));
    parse(&dir.path().join("g.graph"), &ParseOptions::default());
    imported
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The harness is not vacuous: a valid input of every kind gets imported and verified.
    #[test]
    fn valid_inputs_of_every_target_are_imported() {
        assert!(snap(b"# c\n0 1\n1 2\n2 0\n"));
        assert!(el(b"0 1\n1 1\n"));
        assert!(wel(b"0 1 2.5\n1 0 1\n"));
        assert!(mtx(
            b"%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n2 1 1.5\n3 2 2\n"
        ));
        assert!(dimacs(b"c x\np sp 3 2\na 1 2 4\na 2 3 5\n"));
        assert!(konect(b"% asym unweighted\n% 2 3 3\n1 2\n2 3\n"));
        assert!(csv(b"\x00from,to\nalice,bob\nbob,carol\n"));
        assert!(csv(b"\x12a,b,3\nb,c,4\n"));
        let mut bin = vec![1u8, 16, 0];
        bin.extend(
            [0u32, 1, 1, 2, 2, 0, 0, 2]
                .iter()
                .flat_map(|v| v.to_le_bytes())
                .take(16),
        );
        bin.extend([1.0f32, 2.0].iter().flat_map(|w| w.to_le_bytes()));
        assert!(bin32(&bin));
        let mut bin = vec![0u8];
        bin.extend([5u64, 7, 7, 1 << 40].iter().flat_map(|v| v.to_le_bytes()));
        assert!(bin64(&bin));
        assert!(gzip(
            b"\x01\x00%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n"
        ));
        assert!(gzip_raw(&compress(b"0 1\n1 2\n")));
        // nodes=2, arcs=1, γ codes: node 0 has successor 1 (outdegree γ(1) = 010, first
        // residual γ(2) = 011), node 1 none (γ(0) = 1): 0100111 and a zero pad bit.
        let props = b"nodes=2\narcs=1\nwindowsize=0\nminintervallength=0\ncompressionflags=RESIDUALS_GAMMA\n";
        let mut bv = vec![props.len() as u8, 0, 0, 0];
        bv.extend_from_slice(props);
        bv.push(0b0100_1110);
        assert!(bvgraph(&bv));
    }

    /// Bad inputs are refused (not imported) and do not panic.
    #[test]
    fn bad_inputs_are_refused() {
        assert!(!snap(b"0 x\n"));
        assert!(!mtx(b"%%MatrixMarket matrix coordinate pattern general\n2 2 2\n1 2\n"));
        assert!(!bin32(b"\x00\x01\x02\x03"));
        assert!(!gzip_raw(b"\x1f\x8bnot really gzip"));
        let mut bv = vec![0u8; 4];
        bv.extend_from_slice(&[0xff; 8]);
        assert!(!bvgraph(&bv));
    }
}
