//! Running the `diskgraph` binary from integration tests.

use std::path::Path;
use std::process::{Command, Output};

/// Runs the binary with `args`.
pub fn diskgraph(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_diskgraph"))
        .args(args)
        .output()
        .expect("run diskgraph")
}

/// Runs a command that must succeed and returns its stdout.
pub fn ok(args: &[&str]) -> String {
    let out = diskgraph(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "diskgraph {args:?} failed: {stderr}");
    String::from_utf8(out.stdout).unwrap()
}

/// Runs a command that must fail and returns its single error line (informational lines such as
/// `format auto: ...` and `diskgraph-io: ...` fallback notes aside).
#[allow(dead_code)] // not every test binary expects a failure (the kill loops do not)
pub fn fails(args: &[&str]) -> String {
    let out = diskgraph(args);
    assert!(!out.status.success(), "diskgraph {args:?} should fail");
    let stderr = String::from_utf8(out.stderr).unwrap();
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|l| !l.starts_with("format auto:") && !l.starts_with("diskgraph-io:"))
        .collect();
    assert_eq!(lines.len(), 1, "expected a one-line error, got {stderr:?}");
    assert!(lines[0].starts_with("diskgraph: error: "), "{stderr}");
    lines[0].to_string()
}

/// A path as `&str`.
pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The directory holding layout `name` of graph `g` now: `g/name`, or `g/name.vG` once it was
/// replaced (generation G in the manifest's record).
#[allow(dead_code)] // each test binary compiles this module; not all of them replace layouts
pub fn layout_dir(g: &Path, name: &str) -> std::path::PathBuf {
    let manifest: serde_json::Value = serde_json::from_slice(&std::fs::read(g.join("manifest.json")).unwrap()).unwrap();
    let layouts = manifest["layouts"].as_array().unwrap();
    let record = layouts
        .iter()
        .find(|l| l["name"] == name)
        .expect("the layout is listed");
    match record["generation"].as_u64() {
        None => g.join(name),
        Some(generation) => g.join(format!("{name}.v{generation}")),
    }
}

/// Flips the lowest bit of byte `at` of the file at `path`; returns the file's new bytes.
#[allow(dead_code)] // each test binary compiles this module; not all of them damage files
pub fn flip_byte(path: &Path, at: usize) -> Vec<u8> {
    let mut bytes = std::fs::read(path).unwrap();
    bytes[at] ^= 1;
    std::fs::write(path, &bytes).unwrap();
    bytes
}

#[allow(unused_imports)] // each test binary compiles this module; not all of them list directories
pub use diskgraph_testkit::listing;
