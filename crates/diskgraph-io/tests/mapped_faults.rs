//! A mapped page that cannot be read — here a file cut short while mapped, which faults with
//! SIGBUS exactly as a device error under the mapping does — fails the read with an error naming
//! the file, and the process lives on: through the mmap backend's rounds and through mapped page
//! reads. Each case runs in a child process (this test binary, run again on [`child`]), so that
//! a SIGBUS that still kills shows as a failed test rather than a dead test runner; an unguarded
//! mapping cut short the same way shows the children really fault.

use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::Command;
use std::sync::Once;

use diskgraph_io::{BackendKind, IoConfig, IoContext, IoError, MappedScratch, PageAccess, PagedFile};

/// Names the case a child process runs.
const CASE_ENV: &str = "DISKGRAPH_MAPPED_FAULT_CASE";
/// Bytes of the file each case maps.
const LEN: usize = 64 * 4096;

/// Cuts `path` to nothing: its mapped pages now fault.
fn cut(path: &Path) {
    std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .unwrap()
        .set_len(0)
        .unwrap();
}

/// A file of `LEN` bytes in `dir`.
fn data_file(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("out.adj");
    std::fs::write(&path, vec![7u8; LEN]).unwrap();
    path
}

/// One round over the whole file through the mmap backend, the file cut short inside the first
/// `consume` before it reads its chunk.
fn mmap_round(dir: &Path) -> Result<u64, IoError> {
    let path = data_file(dir);
    let ctx = IoContext::new(IoConfig {
        backend: Some(BackendKind::Mmap),
        compute_threads: 2,
        ..IoConfig::default()
    })?;
    let set = ctx.open(&[&path])?;
    let once = Once::new();
    let sum = std::sync::atomic::AtomicU64::new(0);
    let mut ranges = (0..LEN as u64).step_by(8192).map(|a| (a, a + 100));
    ctx.read_round(&set, &mut ranges, &|c| {
        once.call_once(|| cut(&path));
        let s: u64 = c.data[0].iter().map(|&b| u64::from(b)).sum();
        sum.fetch_add(s, std::sync::atomic::Ordering::Relaxed);
    })?;
    Ok(sum.into_inner())
}

/// A mapped page file read after the file was cut short.
fn paged_read(dir: &Path) -> Result<u64, IoError> {
    let path = data_file(dir);
    let f = PagedFile::open(&path, LEN as u64, PageAccess::Mapped)?;
    cut(&path);
    let sum = f.mapped().unwrap().iter().map(|&b| u64::from(b)).sum();
    f.check_mapped()?;
    Ok(sum)
}

/// A write to a mapped scratch file after the file was cut short (reached through
/// `/proc/self/map_files`, the file having no name).
fn scratch_write(dir: &Path) -> Result<u64, IoError> {
    let scratch = MappedScratch::create(dir, LEN as u64).unwrap();
    let start = scratch.as_mut_ptr() as usize;
    // Opening a mapping's file there needs CAP_SYS_ADMIN (the tests run as root).
    let mapping = format!("/proc/self/map_files/{start:x}-{:x}", start + scratch.len());
    cut(Path::new(&mapping));
    // SAFETY: the mapping is `len` writable bytes, alive while `scratch` is.
    unsafe { scratch.as_mut_ptr().add(3 * 4096 + 5).write_volatile(1) };
    scratch.check()?;
    Ok(0)
}

/// The same fault without a guard: reading a plain mapping of a file cut short.
fn unguarded(dir: &Path) -> Result<u64, IoError> {
    let path = data_file(dir);
    let file = std::fs::File::open(&path).unwrap();
    // SAFETY: deliberately unsound use in a child process, to show the fault kills it.
    let map = unsafe { memmap2::Mmap::map(&file) }.unwrap();
    cut(&path);
    Ok(map.iter().map(|&b| u64::from(b)).sum())
}

/// Runs the case [`CASE_ENV`] names and prints its outcome; does nothing in the parent run.
#[test]
fn child() {
    let Ok(case) = std::env::var(CASE_ENV) else { return };
    let dir = tempfile::tempdir().unwrap();
    let outcome = match case.as_str() {
        "mmap-round" => mmap_round(dir.path()),
        "paged-read" => paged_read(dir.path()),
        "scratch-write" => scratch_write(dir.path()),
        _ => unguarded(dir.path()),
    };
    match outcome {
        Ok(sum) => println!("OUTCOME read {sum}"),
        Err(e) => println!("OUTCOME error {e}"),
    }
}

/// Runs `case` in a child process: its exit status and output.
fn run_child(case: &str) -> (std::process::ExitStatus, String) {
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "child", "--nocapture", "--test-threads=1"])
        .env(CASE_ENV, case)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status, text)
}

/// The child lived and its read failed with an error naming the mapped file and the byte.
fn fails_naming_the_file(case: &str) {
    let (status, text) = run_child(case);
    assert!(
        status.success(),
        "{case}: the child died (signal {:?}): {text}",
        status.signal()
    );
    let line = text
        .split("OUTCOME")
        .nth(1)
        .and_then(|rest| rest.lines().next())
        .unwrap_or_default();
    assert!(line.starts_with(" error "), "{case}: {text}");
    assert!(line.contains("out.adj: the mapped page at byte "), "{case}: {line}");
    assert!(line.contains("cut short"), "{case}: {line}");
}

#[test]
fn a_file_cut_short_during_an_mmap_round_fails_the_round() {
    fails_naming_the_file("mmap-round");
}

#[test]
fn a_mapped_page_file_cut_short_fails_its_check() {
    fails_naming_the_file("paged-read");
}

#[test]
fn a_scratch_file_cut_short_fails_its_check() {
    let (status, text) = run_child("scratch-write");
    assert!(
        status.success(),
        "the child died (signal {:?}): {text}",
        status.signal()
    );
    assert!(
        text.contains("(unnamed vertex-state scratch file): the mapped page at byte 12293"),
        "{text}"
    );
}

#[test]
fn an_unguarded_mapping_cut_short_kills_the_process() {
    let (status, text) = run_child("unguarded");
    assert_eq!(status.signal(), Some(libc::SIGBUS), "{text}");
}
