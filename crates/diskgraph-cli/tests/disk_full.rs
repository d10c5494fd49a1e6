//! Full disks: import, partition (grid and shards), reorder, select and `run --out`, `--stats`
//! and `--scratch` into a small tmpfs with too little room. Each fails with a one-line error
//! naming a file (and "No space left on device"), leaves nothing half-written that looks valid
//! and no temporaries, and a graph that was there before still verifies. Mounting needs root:
//! without it, each test says so on stderr and returns.

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::{diskgraph, fails, ok, s};

/// A tmpfs mounted on a fresh directory, unmounted when dropped.
struct Tmpfs {
    dir: tempfile::TempDir,
}

impl Tmpfs {
    /// Mounts a tmpfs of `size` (as `mount -o size=` takes it), or says why not and gives
    /// `None` when not running as root.
    fn mount(size: &str) -> Option<Tmpfs> {
        let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
        let root = status
            .lines()
            .find(|l| l.starts_with("Uid:"))
            .is_some_and(|l| l.split_whitespace().nth(2) == Some("0"));
        if !root {
            eprintln!("SKIPPING: mounting a tmpfs needs root");
            return None;
        }
        let dir = tempfile::tempdir().unwrap();
        let out = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs", s(dir.path())])
            .output()
            .expect("run mount");
        assert!(out.status.success(), "mount: {}", String::from_utf8_lossy(&out.stderr));
        Some(Tmpfs { dir })
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Fills the file system, then frees `bytes` of it (rounded to pages by tmpfs).
    fn leave_free(&self, bytes: u64) {
        let filler = self.path().join("filler");
        let mut f = std::fs::File::create(&filler).unwrap();
        let block = vec![0u8; 64 << 10];
        let mut written = 0u64;
        loop {
            match f.write(&block) {
                Ok(n) => written += n as u64,
                Err(e) if e.raw_os_error() == Some(28) => break,
                Err(e) => panic!("filling the tmpfs: {e}"),
            }
        }
        f.set_len(written.saturating_sub(bytes)).unwrap();
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.path()).status();
    }
}

/// The entries of `dir` other than the filler, at any depth.
fn entries(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if entry.file_name() == "filler" {
            continue;
        }
        if path.is_dir() {
            found.extend(entries(&path));
        }
        found.push(path);
    }
    found.sort();
    found
}

/// Temporaries (`.NAME.tmp-…`, `.NAME.old-…`) and shard scratch copies among `paths`.
fn temporaries(paths: &[PathBuf]) -> Vec<&PathBuf> {
    paths
        .iter()
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            name.starts_with('.') || name.starts_with("diskgraph-shards-")
        })
        .collect()
}

/// Checks a full-disk error: one line, naming a file under `within`, saying the disk is full.
fn names_a_full_file(error: &str, within: &Path) {
    assert!(error.contains("No space left on device"), "{error}");
    assert!(
        error.contains(s(within)),
        "the error names no file under {}: {error}",
        within.display()
    );
}

/// A Kronecker graph of scale 14 (1.8 MiB) in `dir/g`.
fn kronecker(dir: &Path) -> PathBuf {
    let g = dir.join("g");
    ok(&["generate", "kronecker", "--scale", "14", "-o", s(&g)]);
    g
}

#[test]
fn import_and_reorder_into_a_full_disk_leave_nothing() {
    let Some(fs) = Tmpfs::mount("1m") else { return };
    let work = tempfile::tempdir().unwrap();
    let g = kronecker(work.path());
    let text = work.path().join("edges.txt");
    ok(&["export", s(&g), "-o", s(&text), "--format", "el"]);
    let new = fs.path().join("new");
    for args in [
        vec!["import", s(&text), "-o", s(&new)],
        vec!["reorder", s(&g), "-o", s(&new), "--method", "degree"],
        vec!["generate", "kronecker", "--scale", "14", "-o", s(&new)],
    ] {
        names_a_full_file(&fails(&args), &new);
        assert_eq!(entries(fs.path()), Vec::<PathBuf>::new(), "{args:?} left files behind");
    }
    // With room, the same import succeeds (nothing left in the way).
    drop(fs);
    let big = Tmpfs::mount("16m").unwrap();
    ok(&["import", s(&text), "-o", s(&big.path().join("new"))]);
    ok(&["verify", s(&big.path().join("new"))]);
}

/// A graph on a tmpfs with `free` bytes left, and the graph's entries before anything ran.
fn full_graph(free: u64) -> Option<(Tmpfs, PathBuf, Vec<PathBuf>)> {
    let fs = Tmpfs::mount("8m")?;
    let g = kronecker(fs.path());
    fs.leave_free(free);
    let before = entries(fs.path());
    Some((fs, g, before))
}

#[test]
fn layouts_that_do_not_fit_leave_the_graph_as_it_was() {
    for (layout, args) in [
        ("grid-8", vec!["partition", "--grid", "8"]),
        ("shards-4", vec!["partition", "--shards", "4", "--block-size", "4KiB"]),
        ("basc-gvs", vec!["select", "--method", "gvs", "--size", "0.9"]),
    ] {
        let Some((fs, g, before)) = full_graph(256 << 10) else {
            return;
        };
        let mut args: Vec<&str> = args;
        args.insert(1, s(&g));
        names_a_full_file(&fails(&args), &g);
        assert_eq!(entries(fs.path()), before, "{args:?} left files behind");
        assert!(temporaries(&entries(fs.path())).is_empty());
        ok(&["verify", s(&g)]);
        let info = ok(&["info", s(&g), "--json"]);
        assert!(!info.contains(layout), "{layout} is listed after {args:?} failed");
    }
}

#[test]
fn results_that_do_not_fit_are_not_written() {
    let Some(fs) = Tmpfs::mount("64k") else { return };
    let work = tempfile::tempdir().unwrap();
    let g = kronecker(work.path());
    for out in ["wcc.tsv", "wcc.npy", "wcc.parquet"] {
        let out = fs.path().join(out);
        let error = fails(&["run", "wcc", s(&g), "--out", s(&out)]);
        names_a_full_file(&error, &out);
        assert_eq!(
            entries(fs.path()),
            Vec::<PathBuf>::new(),
            "{} left files behind",
            out.display()
        );
    }
    // --stats and --report alone fit in 64 KiB; behind a full disk they fail whole too.
    fs.leave_free(0);
    for (flag, name) in [("--stats", "stats.json"), ("--report", "report.html")] {
        let out = fs.path().join(name);
        names_a_full_file(&fails(&["run", "wcc", s(&g), flag, s(&out)]), &out);
        assert_eq!(entries(fs.path()), Vec::<PathBuf>::new(), "{flag} left files behind");
    }
}

#[test]
fn a_scratch_copy_that_does_not_fit_fails_and_is_removed() {
    let Some(fs) = Tmpfs::mount("64k") else { return };
    let work = tempfile::tempdir().unwrap();
    let g = kronecker(work.path());
    ok(&["partition", s(&g), "--shards", "4", "--block-size", "4KiB"]);
    let out = diskgraph(&[
        "run",
        "wcc",
        s(&g),
        "--engine",
        "shards",
        "--memory",
        "4MiB",
        "--scratch",
        s(fs.path()),
    ]);
    assert!(!out.status.success(), "the run needs more scratch than there is");
    let stderr = String::from_utf8_lossy(&out.stderr);
    names_a_full_file(&stderr, fs.path());
    assert_eq!(entries(fs.path()), Vec::<PathBuf>::new());
    ok(&["verify", s(&g)]);
}
