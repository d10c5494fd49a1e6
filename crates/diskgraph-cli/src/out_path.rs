//! Checking an output file before any work starts, so that a run of hours does not end on a
//! typo: its format is known by its extension, its directory exists, and it is replaced only
//! with `--force`. Errors name the path as the user gave it.

use std::path::Path;

use anyhow::{bail, Result};

/// The lowercase extension of `path` (empty when it has none).
pub fn extension(path: &Path) -> String {
    path.extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase()
}

/// `.a`, `.b` or `.c`: the known extensions, for messages.
pub fn listed(known: &[&str]) -> String {
    let dotted: Vec<String> = known.iter().map(|e| format!(".{e}")).collect();
    match dotted.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}

/// Checks output file `path` (of option `flag`) before the work that writes it: its extension
/// is one of `known` (unless `known` is empty), its directory exists, and it is not a
/// directory, nor an existing file unless `force`.
pub fn check_output(path: &Path, flag: &str, known: &[&str], force: bool) -> Result<()> {
    let shown = path.display();
    let ext = extension(path);
    if !known.is_empty() && !known.contains(&ext.as_str()) {
        let what = match ext.as_str() {
            "" => "has no extension".to_string(),
            other => format!("has an unknown extension .{other}"),
        };
        bail!("{flag} {shown} {what}: name it {} to choose its format", listed(known));
    }
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if !parent.is_dir() {
        bail!("cannot write {shown}: directory {} does not exist", parent.display());
    }
    if path.is_dir() {
        bail!("cannot write {shown}: it is a directory");
    }
    if !force && path.symlink_metadata().is_ok() {
        bail!("{shown}: output already exists (use --force to replace it)");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extensions_are_listed() {
        assert_eq!(listed(&["tsv", "npy", "parquet"]), ".tsv, .npy or .parquet");
        assert_eq!(listed(&["tsv"]), ".tsv");
        assert_eq!(extension(Path::new("a/b.TSV")), "tsv");
        assert_eq!(extension(Path::new("a/b")), "");
    }

    #[test]
    fn outputs_are_checked() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("r.tsv");
        check_output(&p, "--out", &["tsv"], false).unwrap();
        let e = check_output(&dir.path().join("r.xlsx"), "--out", &["tsv", "npy"], false).unwrap_err();
        assert!(
            e.to_string().contains("unknown extension .xlsx: name it .tsv or .npy"),
            "{e}"
        );
        let missing = dir.path().join("nope").join("r.tsv");
        let e = check_output(&missing, "--out", &["tsv"], false)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(&missing.display().to_string()) && e.contains("does not exist"),
            "{e}"
        );
        std::fs::write(&p, "x").unwrap();
        let e = check_output(&p, "--out", &["tsv"], false).unwrap_err().to_string();
        assert!(e.contains("already exists") && e.contains("--force"), "{e}");
        check_output(&p, "--out", &["tsv"], true).unwrap();
        let e = check_output(dir.path(), "--stats", &[], true).unwrap_err().to_string();
        assert!(e.contains("is a directory"), "{e}");
    }
}
