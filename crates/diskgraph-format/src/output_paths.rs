//! [`OutputPaths`]: the paths one command reads and writes, checked before it starts, so that
//! no output is another output of the same command, and none lies inside (or holds) a graph or
//! split directory the command reads (a `--stats` file named `manifest.json` inside the graph
//! would replace the graph's manifest).
//!
//! Paths are compared canonicalised: a path that exists is resolved through its symlinks; an
//! output that does not exist yet (or a file, which is replaced by a rename and so is never
//! written through a symlink) by its directory's canonical path and its own name.

use std::path::{Path, PathBuf};

use crate::error::FormatError;

/// One path of a command: the option that names it, as given, and resolved.
#[derive(Clone, Debug)]
struct Place {
    option: String,
    given: PathBuf,
    resolved: PathBuf,
    /// Whether the command writes inside the directory and leaves it in place (a scratch
    /// directory), rather than replacing the path whole.
    container: bool,
}

impl Place {
    /// `option path`, as a message names it.
    fn shown(&self) -> String {
        format!("{} {}", self.option, self.given.display())
    }
}

/// The paths one command reads and writes (see the module doc).
#[derive(Clone, Debug, Default)]
pub struct OutputPaths {
    reads: Vec<Place>,
    writes: Vec<Place>,
}

impl OutputPaths {
    /// No paths yet.
    pub fn new() -> OutputPaths {
        OutputPaths::default()
    }

    /// Records the directory (or file) `path`, named by `option`, that the command reads. A
    /// path that does not resolve is left to the command to report when it opens it.
    pub fn reads(&mut self, option: &str, path: &Path) -> &mut OutputPaths {
        if let Ok(resolved) = std::fs::canonicalize(path) {
            self.reads.push(Place {
                option: option.to_string(),
                given: path.to_path_buf(),
                resolved,
                container: false,
            });
        }
        self
    }

    /// Checks `path`, named by `option`, which the command writes (a file, or a directory it
    /// replaces whole), against the paths recorded so far, and records it.
    pub fn writes(&mut self, option: &str, path: &Path) -> Result<&mut OutputPaths, FormatError> {
        self.add_output(option, path, false)
    }

    /// Checks the directory `path`, named by `option`, which the command writes files inside
    /// and leaves in place (a scratch directory), and records it.
    pub fn writes_inside(&mut self, option: &str, path: &Path) -> Result<&mut OutputPaths, FormatError> {
        self.add_output(option, path, true)
    }

    fn add_output(&mut self, option: &str, path: &Path, container: bool) -> Result<&mut OutputPaths, FormatError> {
        let new = Place {
            option: option.to_string(),
            given: path.to_path_buf(),
            resolved: resolve_output(path),
            container,
        };
        let refuse = |reason: String| FormatError::OutputClash {
            output: new.shown(),
            reason,
        };
        for read in &self.reads {
            if new.resolved.starts_with(&read.resolved) {
                return Err(refuse(format!(
                    "lies inside {}, which this command reads: write it elsewhere",
                    read.shown()
                )));
            }
            if !container && read.resolved.starts_with(&new.resolved) {
                return Err(refuse(format!(
                    "holds {}, which this command reads: write it elsewhere",
                    read.shown()
                )));
            }
        }
        for other in &self.writes {
            if new.resolved == other.resolved {
                return Err(refuse(format!(
                    "is also {}: give each output a path of its own",
                    other.shown()
                )));
            }
            let inside = |outer: &Place, inner: &Place| !outer.container && inner.resolved.starts_with(&outer.resolved);
            if inside(other, &new) {
                return Err(refuse(format!(
                    "lies inside {}, which this command replaces: write it elsewhere",
                    other.shown()
                )));
            }
            if inside(&new, other) {
                return Err(refuse(format!(
                    "holds {}, another output of this command: write it elsewhere",
                    other.shown()
                )));
            }
        }
        self.writes.push(new);
        Ok(self)
    }
}

/// Where an output at `path` lands: an existing directory through its symlinks, anything else
/// by its nearest existing ancestor's canonical path and the rest of it as given (a file is
/// replaced by a rename, so its own name is never followed).
fn resolve_output(path: &Path) -> PathBuf {
    if path.is_dir() {
        if let Ok(resolved) = std::fs::canonicalize(path) {
            return resolved;
        }
    }
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut rest = Vec::new();
    let mut ancestor = absolute.as_path();
    while let (Some(parent), Some(name)) = (ancestor.parent(), ancestor.file_name()) {
        rest.push(name);
        if let Ok(resolved) = std::fs::canonicalize(parent) {
            return rest.iter().rev().fold(resolved, |p, name| p.join(name));
        }
        ancestor = parent;
    }
    absolute
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_output_named_twice_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path().join("r.tsv");
        let mut paths = OutputPaths::new();
        paths.writes("--out", &r).unwrap();
        // The same file by another spelling.
        let again = dir.path().join(".").join("r.tsv");
        let e = paths.writes("--stats", &again).unwrap_err().to_string();
        assert_eq!(
            e,
            format!(
                "--stats {} is also --out {}: give each output a path of its own",
                again.display(),
                r.display()
            )
        );
        paths.writes("--report", &dir.path().join("r.html")).unwrap();
    }

    #[test]
    fn an_output_inside_or_holding_a_directory_read_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let graph = dir.path().join("g");
        std::fs::create_dir(&graph).unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&graph, &link).unwrap();
        let mut paths = OutputPaths::new();
        paths.reads("GRAPH", &link);
        let e = paths
            .writes("--stats", &graph.join("manifest.json"))
            .unwrap_err()
            .to_string();
        assert!(
            e.ends_with(&format!(
                "lies inside GRAPH {}, which this command reads: write it elsewhere",
                link.display()
            )),
            "{e}"
        );
        let e = paths.writes("-o", dir.path()).unwrap_err().to_string();
        assert!(e.contains("holds GRAPH"), "{e}");
        let e = paths.writes("-o", &graph).unwrap_err().to_string();
        assert!(e.contains("lies inside GRAPH"), "{e}");
        // A scratch directory may hold the graph (it is only written inside), not lie in it.
        paths.writes_inside("--scratch", dir.path()).unwrap();
        assert!(paths.writes_inside("--scratch", &graph.join("tmp")).is_err());
        paths.writes("--out", &dir.path().join("r.tsv")).unwrap();
    }

    #[test]
    fn an_output_inside_a_replaced_directory_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("new.dg");
        let mut paths = OutputPaths::new();
        paths.writes("-o", &out).unwrap();
        let e = paths
            .writes("--checkpoint", &out.join("gorder.ckpt"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("lies inside -o"), "{e}");
        paths.writes("--checkpoint", &dir.path().join("gorder.ckpt")).unwrap();
    }
}
