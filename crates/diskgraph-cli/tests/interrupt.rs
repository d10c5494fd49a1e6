//! Ctrl-C (SIGINT) to `diskgraph run` on every engine, to `threshold`, to `import`, to
//! `partition` and to the other commands that write or check graphs (`reorder`, `select`,
//! `compress`, `export`, `verify`): the command stops within 2 s of the signal, exits with 130
//! and leaves nothing behind — no scratch directory, no temporaries in the graph directory, no
//! `--out`, `--stats` or `--report` file, no half layout, half graph or half export — and the
//! graph still verifies.

#[allow(dead_code)] // the helpers this test does not use
mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{listing, ok, s};

/// The longest a command may take to stop after SIGINT.
const PROMPT: Duration = Duration::from_secs(2);

/// Starts the binary with `args`, its temporary directory `tmp` (where the shards engine puts
/// its scratch copy by default).
fn start(args: &[&str], tmp: &Path) -> Child {
    Command::new(env!("CARGO_BIN_EXE_diskgraph"))
        .args(args)
        .env("TMPDIR", tmp)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start diskgraph")
}

/// Sends `signal` to `child`.
fn signal(child: &Child, signal: i32) {
    // SAFETY: kill(2) with the pid of a child this test started and has not waited for.
    let rc = unsafe { libc::kill(child.id() as libc::pid_t, signal) };
    assert_eq!(rc, 0, "kill {}", child.id());
}

/// Sends SIGINT to `child` and waits for it: it must exit with 130 within [`PROMPT`], saying
/// it was interrupted. Returns the time it took.
fn interrupt(mut child: Child, what: &str) -> Duration {
    signal(&child, libc::SIGINT);
    let sent = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if sent.elapsed() > PROMPT + Duration::from_secs(10) {
            let _ = child.kill();
            panic!("{what}: still running {:?} after SIGINT", sent.elapsed());
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let took = sent.elapsed();
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(status.code(), Some(130), "{what}: {status:?}, stderr {stderr}");
    assert!(stderr.contains("diskgraph: interrupted"), "{what}: {stderr}");
    assert!(took < PROMPT, "{what}: stopped {took:?} after SIGINT");
    took
}

/// A scale-16 Kronecker graph with a grid layout and 4 shards, and an empty temporary
/// directory.
fn graph(dir: &Path) -> (PathBuf, PathBuf) {
    let g = dir.join("k16");
    ok(&["generate", "kronecker", "--scale", "16", "-o", s(&g)]);
    ok(&["partition", s(&g), "--memory", "4MiB"]);
    ok(&["partition", s(&g), "--shards", "4"]);
    let tmp = dir.join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    (g, tmp)
}

#[test]
fn ctrl_c_stops_a_run_on_every_engine_and_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (g, tmp) = graph(dir.path());
    let outputs = dir.path().join("out");
    std::fs::create_dir(&outputs).unwrap();
    let before = listing(&g);
    for engine in ["memory", "selective", "stream", "sync", "shards"] {
        let (out, stats, report) = (outputs.join("r.tsv"), outputs.join("s.json"), outputs.join("r.html"));
        // Far more iterations than the test waits for: minutes on any engine.
        let args = [
            "run",
            "pagerank",
            s(&g),
            "--engine",
            engine,
            "--memory",
            "64MiB",
            "--iterations",
            "10000000",
            "--out",
            s(&out),
            "--stats",
            s(&stats),
            "--report",
            s(&report),
        ];
        let mut child = start(&args, &tmp);
        // Long enough to be well into the iterations (the shards engine's scratch copy made).
        std::thread::sleep(Duration::from_millis(700));
        if engine == "shards" {
            assert_eq!(
                listing(&tmp).len(),
                1,
                "the shards engine's scratch directory while it runs"
            );
        }
        assert!(child_running(&mut child), "{engine}: ended before the signal");
        interrupt(child, engine);
        assert_eq!(listing(&outputs), Vec::<String>::new(), "{engine}: outputs left behind");
        assert_eq!(listing(&tmp), Vec::<String>::new(), "{engine}: scratch left behind");
        assert_eq!(listing(&g), before, "{engine}: the graph directory changed");
    }
}

/// Whether `child` has not exited yet.
fn child_running(child: &mut Child) -> bool {
    child.try_wait().unwrap().is_none()
}

#[test]
fn ctrl_c_stops_an_import_and_leaves_no_graph() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("edges.fifo");
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(made.success());
    let out = dir.path().join("g");
    let tmp = dir.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let mut child = start(&["import", s(&fifo), "-o", s(&out), "--format", "snap"], &tmp);
    // An endless edge list: the import only ever ends by the signal.
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            let mut f = std::io::BufWriter::new(std::fs::OpenOptions::new().write(true).open(fifo).unwrap());
            let mut i = 0u64;
            // Ends when the import closes the pipe (EPIPE).
            while writeln!(f, "{} {}", i % 100_003, (i * 7919) % 100_003).is_ok() {
                i += 1;
            }
            i
        })
    };
    std::thread::sleep(Duration::from_millis(700));
    assert!(child_running(&mut child), "the import ended before the signal");
    interrupt(child, "import");
    let written = writer.join().unwrap();
    assert!(written > 10_000, "the import read only {written} edges");
    assert!(!out.exists(), "a half-imported graph was left at {}", out.display());
    let mut left = listing(dir.path());
    left.retain(|n| n != "edges.fifo" && n != "tmp");
    assert_eq!(left, Vec::<String>::new(), "temporaries left beside the output");
    assert_eq!(listing(&tmp), Vec::<String>::new());
}

#[test]
fn ctrl_c_stops_a_partition_and_publishes_no_layout() {
    let dir = tempfile::tempdir().unwrap();
    let g = dir.path().join("k16");
    ok(&["generate", "kronecker", "--scale", "16", "-o", s(&g)]);
    let tmp = dir.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let before = listing(&g);
    for args in [
        vec!["partition", s(&g), "--memory", "1MiB"],
        vec!["partition", s(&g), "--shards", "16", "--block-size", "4KiB"],
    ] {
        let mut child = start(&args, &tmp);
        // A partition takes a fraction of a second here: catch it while it writes its layout
        // (a temporary in the graph directory), freeze it, and deliver the signal as it resumes.
        let started = Instant::now();
        while !listing(&g).iter().any(|n| n.starts_with('.')) {
            if let Some(status) = child.try_wait().unwrap() {
                panic!("{args:?} ended ({status:?}) before it was seen writing");
            }
            assert!(started.elapsed() < Duration::from_secs(30), "{args:?} never wrote");
            std::thread::sleep(Duration::from_micros(200));
        }
        signal(&child, libc::SIGSTOP);
        signal(&child, libc::SIGINT);
        signal(&child, libc::SIGCONT);
        if let Some(status) = child.try_wait().unwrap() {
            panic!("{args:?} ended ({status:?}) at once");
        }
        let sent = Instant::now();
        let status = child.wait().unwrap();
        let mut err = String::new();
        std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
        assert_eq!(status.code(), Some(130), "{args:?}: {status:?} {err}");
        assert!(
            sent.elapsed() < PROMPT,
            "{args:?}: stopped {:?} after SIGINT",
            sent.elapsed()
        );
        assert_eq!(listing(&g), before, "{args:?}: a layout or temporary was left");
        assert_eq!(listing(&tmp), Vec::<String>::new());
    }
}

/// Whether `child` has a file under `dir` open (it is reading or writing the graph there).
fn has_open_file_in(child: &Child, dir: &Path) -> bool {
    let Ok(fds) = std::fs::read_dir(format!("/proc/{}/fd", child.id())) else {
        return false;
    };
    fds.flatten()
        .filter_map(|fd| std::fs::read_link(fd.path()).ok())
        .any(|target| target.starts_with(dir))
}

/// Catches `child` at work — once `at_work` holds — freezes it, sends SIGINT and lets it go on:
/// however quick the command, the signal arrives while it works, with every cancellation point
/// after the moment `at_work` saw still ahead of it. It must then exit with 130, saying it was
/// interrupted, within [`PROMPT`] of resuming.
fn interrupt_at_work(mut child: Child, what: &str, at_work: impl Fn(&Child) -> bool) {
    let started = Instant::now();
    while !at_work(&child) {
        if let Some(status) = child.try_wait().unwrap() {
            let out = child.wait_with_output().unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            panic!("{what}: ended ({status:?}) before it was seen at work: {stderr}");
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "{what}: never seen at work"
        );
        std::thread::sleep(Duration::from_micros(200));
    }
    signal(&child, libc::SIGSTOP);
    signal(&child, libc::SIGINT);
    signal(&child, libc::SIGCONT);
    let resumed = Instant::now();
    let out = child.wait_with_output().unwrap();
    let took = resumed.elapsed();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(130),
        "{what}: {:?}, stderr {stderr}",
        out.status
    );
    assert!(stderr.contains("diskgraph: interrupted"), "{what}: {stderr}");
    assert!(took < PROMPT, "{what}: stopped {took:?} after SIGINT");
}

#[test]
fn ctrl_c_stops_the_commands_that_write_or_check_graphs_and_leaves_the_graph_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    // Scale 18 (4M edges): every command below works on it for a good part of a second at least.
    let g = dir.path().join("k18");
    ok(&["generate", "kronecker", "--scale", "18", "-o", s(&g)]);
    let g = g.canonicalize().unwrap();
    let out = dir.path().join("out");
    let tmp = dir.path().join("tmp");
    std::fs::create_dir(&out).unwrap();
    std::fs::create_dir(&tmp).unwrap();
    let before = listing(&g);
    let (copy, edges) = (out.join("reordered"), out.join("edges.el"));
    let commands: [(&str, Vec<&str>); 7] = [
        ("verify", vec!["verify", s(&g)]),
        (
            "reorder norder",
            vec!["reorder", s(&g), "-o", s(&copy), "--method", "norder"],
        ),
        (
            "reorder pagerank",
            vec![
                "reorder",
                s(&g),
                "-o",
                s(&copy),
                "--method",
                "pagerank",
                "--memory",
                "4MiB",
            ],
        ),
        ("select gvs", vec!["select", s(&g), "--size", "0.2", "--k", "1000"]),
        (
            "select highd",
            vec!["select", s(&g), "--size", "0.5", "--method", "highd"],
        ),
        ("compress", vec!["compress", s(&g)]),
        ("export", vec!["export", s(&g), "-o", s(&edges)]),
    ];
    for (what, args) in commands {
        let child = start(&args, &tmp);
        interrupt_at_work(child, what, |c| has_open_file_in(c, &g) || !listing(&out).is_empty());
        assert_eq!(
            listing(&g),
            before,
            "{what}: a layout or temporary was left in the graph"
        );
        assert_eq!(
            listing(&out),
            Vec::<String>::new(),
            "{what}: an output or temporary was left"
        );
        assert_eq!(listing(&tmp), Vec::<String>::new(), "{what}: scratch left behind");
    }
    ok(&["verify", s(&g)]);
}

#[test]
fn ctrl_c_stops_a_threshold_curve_and_leaves_no_scratch() {
    let dir = tempfile::tempdir().unwrap();
    let (g, tmp) = graph(dir.path());
    let before = listing(&g);
    // Each of the curve's runs makes the shards engine's scratch copy in the temporary directory.
    let args = ["threshold", s(&g), "--algo", "pagerank", "--set", "iterations=1000"];
    let child = start(&args, &tmp);
    interrupt_at_work(child, "threshold", |_| !listing(&tmp).is_empty());
    assert_eq!(
        listing(&tmp),
        Vec::<String>::new(),
        "the shards engine's scratch left behind"
    );
    assert_eq!(listing(&g), before);
}
