//! Helpers shared by the parser integration tests (each test binary uses a subset).
#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};

use diskgraph_prep::parse::{open_input, FormatChoice, ParseOptions};
use diskgraph_prep::{InputError, InputFormat, InputInfo, RawEdge};

/// The real datasets shipped in `testdata/real`.
pub const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/real");
/// The parser fixtures of this repository.
pub const INPUTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/inputs");

/// Everything an input yields: its info, all edges, and the auto-detection message.
pub struct Parsed {
    pub info: InputInfo,
    pub edges: Vec<RawEdge>,
    pub message: Option<String>,
}

/// Options with automatic format detection.
pub fn auto() -> ParseOptions {
    ParseOptions::default()
}

/// Options for a given format.
pub fn given(format: InputFormat) -> ParseOptions {
    ParseOptions {
        format: FormatChoice::Given(format),
        ..ParseOptions::default()
    }
}

/// Options for a given format, asking for weights.
pub fn weighted(format: FormatChoice) -> ParseOptions {
    ParseOptions {
        format,
        weighted: true,
        ..ParseOptions::default()
    }
}

/// Opens and reads a whole input, checking the batch protocol and progress on the way.
pub fn read_all(path: &Path, opts: &ParseOptions) -> Result<Parsed, InputError> {
    let (mut source, message) = open_input(path, opts)?;
    let mut edges = Vec::new();
    let mut batch = Vec::new();
    let mut last_done = 0;
    while source.next_batch(&mut batch)? {
        assert!(!batch.is_empty(), "a batch reported as non-empty is empty");
        edges.extend_from_slice(&batch);
        let (done, total) = source.progress();
        assert!(done >= last_done, "progress went backwards");
        assert!(total.is_some_and(|t| done <= t), "progress beyond the file size");
        last_done = done;
    }
    assert!(batch.is_empty(), "the final batch must be empty");
    let (done, total) = source.progress();
    assert_eq!(Some(done), total, "progress must reach the file size at the end");
    assert!(!source.next_batch(&mut batch)?, "an exhausted source stays exhausted");
    Ok(Parsed {
        info: source.info().clone(),
        edges,
        message,
    })
}

/// The error an input gives, whether at open or while reading; its message must name the file.
pub fn error_of(path: &Path, opts: &ParseOptions) -> String {
    match read_all(path, opts) {
        Ok(p) => panic!("{} parsed ({} edges) but should fail", path.display(), p.edges.len()),
        Err(e) => {
            let message = e.to_string();
            assert!(
                message.starts_with(&path.display().to_string()),
                "error does not name the file: {message}"
            );
            assert!(!message.contains('\n'), "error is not one line: {message}");
            message
        }
    }
}

/// Writes `bytes` to `dir/name` and returns the path.
pub fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("write fixture");
    path
}

/// Gzip-compresses `bytes` (one member).
pub fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(bytes).expect("compress");
    enc.finish().expect("compress")
}

/// `(src, dst)` pairs of edges.
pub fn pairs(edges: &[RawEdge]) -> Vec<(u64, u64)> {
    edges.iter().map(|e| (e.src, e.dst)).collect()
}

/// `(src, dst, weight)` triples of edges.
pub fn triples(edges: &[RawEdge]) -> Vec<(u64, u64, Option<f32>)> {
    edges.iter().map(|e| (e.src, e.dst, e.weight)).collect()
}
