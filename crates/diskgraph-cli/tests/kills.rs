//! Kill loops: each command that writes (import of text and of gzip, partition into a grid and
//! into shards, reorder, select, and runs writing `--out`, `--stats` and `--report` on engines
//! that write scratch) is started and SIGKILLed after a seeded pseudo-random delay, spread over
//! the command's duration (measured once by an unkilled run), several times. After each kill
//! nothing partial looks valid: a graph directory is either absent or verifies, a graph that
//! existed before still verifies (with the layout either absent or whole), an output file is
//! either absent or whole. Then the rerun succeeds with the same answer as the unkilled run,
//! and leaves no temporaries behind.

mod common;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{diskgraph, ok, s};

/// Kills per command.
const KILLS: u64 = 5;

/// A tiny seeded generator (SplitMix64): the delays repeat from run to run.
struct Delays(u64);

impl Delays {
    fn next_unit(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    }

    /// The delay of kill `i` of `KILLS`: a random point of the `i`-th slice of `duration`, so
    /// the kills spread over the whole run.
    fn delay(&mut self, i: u64, duration: Duration) -> Duration {
        duration.mul_f64((i as f64 + self.next_unit()) / KILLS as f64)
    }
}

/// Runs `args` to completion and returns how long it took.
fn timed(args: &[String]) -> Duration {
    let start = Instant::now();
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    ok(&refs);
    start.elapsed()
}

/// Starts `args` and SIGKILLs it after `delay` (unless it ended first); whether it was killed.
fn run_killed(args: &[String], delay: Duration) -> bool {
    let mut child = Command::new(env!("CARGO_BIN_EXE_diskgraph"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start diskgraph");
    std::thread::sleep(delay);
    let killed = matches!(child.try_wait(), Ok(None));
    child.kill().expect("kill");
    let status = child.wait().expect("wait");
    killed && !status.success()
}

/// The temporaries (`.NAME.tmp-…`, `.NAME.old-…`) and shard scratch copies under `dir`, at any
/// depth.
fn temporaries(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return found;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let path = entry.path();
        if (name.starts_with('.') && (name.contains(".tmp-") || name.contains(".old-")))
            || name.starts_with("diskgraph-shards-")
        {
            found.push(path.clone());
        }
        if path.is_dir() {
            found.extend(temporaries(&path));
        }
    }
    found
}

/// Every file under `dir` (relative path → bytes), JSON files without their timings and with
/// the test directory `case` written `<case>` (a manifest records the graph it came from).
fn contents(dir: &Path, case: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, case: &str, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(root, &path, case, out);
            } else {
                let mut bytes = std::fs::read(&path).unwrap();
                if path.extension().is_some_and(|e| e == "json") {
                    let text = String::from_utf8(bytes).unwrap().replace(case, "<case>");
                    bytes = timeless(text.as_bytes());
                }
                out.insert(path.strip_prefix(root).unwrap().to_path_buf(), bytes);
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, s(case), &mut out);
    out
}

/// JSON metadata without its timings (fields named `*seconds*`), which differ from run to run.
fn timeless(json: &[u8]) -> Vec<u8> {
    fn strip(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Object(m) => {
                m.retain(|k, _| !k.contains("seconds"));
                m.values_mut().for_each(strip);
            }
            serde_json::Value::Array(a) => a.iter_mut().for_each(strip),
            _ => {}
        }
    }
    let mut v: serde_json::Value = serde_json::from_slice(json).expect("JSON metadata");
    strip(&mut v);
    v.to_string().into_bytes()
}

/// The names of the files on which two answers differ.
fn differing(a: &BTreeMap<PathBuf, Vec<u8>>, b: &BTreeMap<PathBuf, Vec<u8>>) -> Vec<PathBuf> {
    let mut names: Vec<PathBuf> = a.keys().chain(b.keys()).cloned().collect();
    names.sort();
    names.dedup();
    names.retain(|n| a.get(n) != b.get(n));
    names
}

/// `diskgraph verify` passes on `graph`.
fn verifies(graph: &Path) -> bool {
    diskgraph(&["verify", s(graph)]).status.success()
}

/// A command under a kill loop: how to set up its starting state in a fresh directory, its
/// arguments there, what must hold after a kill, and the answer of a finished run.
trait Case {
    /// Prepares the starting state in `dir`.
    fn setup(&self, dir: &Path);
    /// The command's arguments in `dir`.
    fn args(&self, dir: &Path) -> Vec<String>;
    /// Checks what a kill left in `dir`: nothing partial may look valid.
    fn after_kill(&self, dir: &Path);
    /// The answer of a finished run in `dir` (compared with an unkilled run's).
    fn answer(&self, dir: &Path) -> BTreeMap<PathBuf, Vec<u8>>;
}

/// The kill loop: measures the command once, then kills it `KILLS` times at spread delays,
/// checking what each kill left and that the rerun gives the unkilled answer with no
/// temporaries left.
fn kill_loop(case: &dyn Case, seed: u64) {
    let root = tempfile::tempdir().unwrap();
    let reference = root.path().join("reference");
    std::fs::create_dir(&reference).unwrap();
    case.setup(&reference);
    let duration = timed(&case.args(&reference));
    let want = case.answer(&reference);
    let mut delays = Delays(seed);
    let mut killed = 0;
    for i in 0..KILLS {
        let dir = root.path().join(format!("kill-{i}"));
        std::fs::create_dir(&dir).unwrap();
        case.setup(&dir);
        let args = case.args(&dir);
        let delay = delays.delay(i, duration);
        killed += u64::from(run_killed(&args, delay));
        case.after_kill(&dir);
        timed(&args);
        let got = case.answer(&dir);
        assert!(
            got == want,
            "kill {i} after {delay:?}: the rerun's answer differs in {:?}",
            differing(&got, &want)
        );
        assert_eq!(temporaries(&dir), Vec::<PathBuf>::new(), "kill {i} after {delay:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
    eprintln!("{killed} of {KILLS} runs killed midway (the command takes {duration:?})");
    assert!(
        killed > 0,
        "no run was killed midway: the command ends too fast ({duration:?})"
    );
}

/// An edge list of `m` pseudo-random edges on `n` vertices, as text.
fn edge_text(n: u64, m: u64) -> Vec<u8> {
    let mut r = Delays(7);
    let mut text = Vec::with_capacity(m as usize * 14);
    for _ in 0..m {
        let u = (r.next_unit() * n as f64) as u64;
        let v = (r.next_unit() * r.next_unit() * n as f64) as u64;
        writeln!(text, "{u}\t{v}").unwrap();
    }
    text
}

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|a| a.to_string()).collect()
}

/// A command writing a new graph directory `g` from `input` (made by `make_input`).
struct NewGraph {
    input: &'static str,
    make_input: fn(&Path),
    command: fn(&Path, &Path) -> Vec<String>,
}

impl Case for NewGraph {
    fn setup(&self, dir: &Path) {
        (self.make_input)(&dir.join(self.input));
    }

    fn args(&self, dir: &Path) -> Vec<String> {
        (self.command)(&dir.join(self.input), &dir.join("g"))
    }

    fn after_kill(&self, dir: &Path) {
        let g = dir.join("g");
        assert!(
            !g.exists() || verifies(&g),
            "a killed run left {} not verifying",
            g.display()
        );
        if g.exists() {
            // Finished before the kill: the rerun replaces it.
            std::fs::remove_dir_all(&g).unwrap();
        }
    }

    fn answer(&self, dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
        assert!(verifies(&dir.join("g")));
        contents(&dir.join("g"), dir)
    }
}

/// A text edge list of 400k edges.
fn text_input(path: &Path) {
    std::fs::write(path, edge_text(100_000, 400_000)).unwrap();
}

/// The same, gzip-compressed.
fn gzip_input(path: &Path) {
    let mut z = flate2::write::GzEncoder::new(std::fs::File::create(path).unwrap(), flate2::Compression::fast());
    z.write_all(&edge_text(100_000, 400_000)).unwrap();
    z.finish().unwrap();
}

/// A Kronecker graph `g` (scale 14), made once per directory.
fn kronecker(dir: &Path) {
    ok(&["generate", "kronecker", "--scale", "14", "-o", s(&dir.join("g"))]);
}

#[test]
fn import_of_text_survives_kills() {
    kill_loop(
        &NewGraph {
            input: "edges.txt",
            make_input: text_input,
            command: |input, g| strings(&["import", s(input), "-o", s(g), "--memory", "4MiB"]),
        },
        1,
    );
}

#[test]
fn import_of_gzip_survives_kills() {
    kill_loop(
        &NewGraph {
            input: "edges.txt.gz",
            make_input: gzip_input,
            command: |input, g| strings(&["import", s(input), "-o", s(g), "--memory", "4MiB", "--undirected"]),
        },
        2,
    );
}

#[test]
fn reorder_survives_kills() {
    kill_loop(
        &NewGraph {
            input: "base",
            make_input: |base| {
                ok(&["generate", "kronecker", "--scale", "15", "-o", s(base)]);
            },
            command: |base, g| strings(&["reorder", s(base), "-o", s(g), "--method", "norder", "--memory", "4MiB"]),
        },
        3,
    );
}

/// A command publishing layout `layout` inside an existing graph `g`.
struct NewLayout {
    layout: &'static str,
    command: fn(&Path) -> Vec<String>,
}

impl Case for NewLayout {
    fn setup(&self, dir: &Path) {
        kronecker(dir);
    }

    fn args(&self, dir: &Path) -> Vec<String> {
        (self.command)(&dir.join("g"))
    }

    fn after_kill(&self, dir: &Path) {
        let g = dir.join("g");
        assert!(verifies(&g), "a killed run left {} not verifying", g.display());
        let info: serde_json::Value = serde_json::from_str(&ok(&["info", s(&g), "--json"])).unwrap();
        let listed = info.to_string().contains(&format!("\"{}\"", self.layout));
        if listed {
            // Finished before the kill (and verified whole): start again without it.
            std::fs::remove_dir_all(dir).unwrap();
            std::fs::create_dir(dir).unwrap();
            self.setup(dir);
        }
        // Killed between the rename into place and the manifest's rewrite, the layout's
        // directory is there unlisted: no reader sees it, and the rerun replaces it.
    }

    fn answer(&self, dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
        let g = dir.join("g");
        assert!(verifies(&g));
        contents(&g.join(self.layout), dir)
    }
}

#[test]
fn partition_into_a_grid_survives_kills() {
    kill_loop(
        &NewLayout {
            layout: "grid-8",
            command: |g| strings(&["partition", s(g), "--grid", "8", "--memory", "2MiB"]),
        },
        4,
    );
}

#[test]
fn partition_into_shards_survives_kills() {
    kill_loop(
        &NewLayout {
            layout: "shards-4",
            command: |g| {
                strings(&[
                    "partition",
                    s(g),
                    "--shards",
                    "4",
                    "--block-size",
                    "4KiB",
                    "--memory",
                    "2MiB",
                ])
            },
        },
        5,
    );
}

#[test]
fn select_survives_kills() {
    kill_loop(
        &NewLayout {
            layout: "basc-gvs",
            command: |g| strings(&["select", s(g), "--method", "gvs", "--size", "0.3"]),
        },
        6,
    );
}

/// A run writing results into files beside a graph, with its scratch in `scratch/`.
struct Outputs {
    /// Makes the graph `g` in the directory (with the layout the engine needs).
    make: fn(&Path),
    /// The run's arguments on graph `g`, scratch dir, and output prefix.
    command: fn(&Path, &Path, &Path) -> Vec<String>,
    /// Output files (in the directory) compared byte for byte with the unkilled run's.
    compared: &'static [&'static str],
    /// Output files checked whole by their ending.
    ended: &'static [(&'static str, &'static [u8])],
}

impl Case for Outputs {
    fn setup(&self, dir: &Path) {
        (self.make)(dir);
        std::fs::create_dir(dir.join("scratch")).unwrap();
        std::fs::create_dir(dir.join("out")).unwrap();
    }

    fn args(&self, dir: &Path) -> Vec<String> {
        (self.command)(&dir.join("g"), &dir.join("scratch"), &dir.join("out"))
    }

    fn after_kill(&self, dir: &Path) {
        assert!(verifies(&dir.join("g")));
        let out = dir.join("out");
        for name in self.compared {
            let p = out.join(name);
            if p.exists() {
                // Whole (compared with the rerun's below): the rerun replaces it.
                let whole = std::fs::read(&p).unwrap();
                std::fs::remove_file(&p).unwrap();
                std::fs::write(dir.join(format!("killed-{name}")), whole).unwrap();
            }
        }
        for (name, end) in self.ended {
            let p = out.join(name);
            if p.exists() {
                assert!(std::fs::read(&p).unwrap().ends_with(end), "{} is a prefix", p.display());
                std::fs::remove_file(&p).unwrap();
            }
        }
    }

    fn answer(&self, dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
        let out = dir.join("out");
        for (name, end) in self.ended {
            assert!(std::fs::read(out.join(name)).unwrap().ends_with(end));
        }
        let mut answer = BTreeMap::new();
        for name in self.compared {
            let bytes = std::fs::read(out.join(name)).unwrap();
            // An output a killed run finished must equal the rerun's.
            let killed = dir.join(format!("killed-{name}"));
            if killed.exists() {
                assert_eq!(
                    std::fs::read(&killed).unwrap(),
                    bytes,
                    "a killed run left a partial {name}"
                );
                std::fs::remove_file(killed).unwrap();
            }
            answer.insert(PathBuf::from(name), bytes);
        }
        answer
    }
}

#[test]
fn runs_on_the_shard_engine_writing_results_survive_kills() {
    kill_loop(
        &Outputs {
            make: |dir| {
                kronecker(dir);
                let g = dir.join("g");
                ok(&["partition", s(&g), "--shards", "4", "--block-size", "4KiB"]);
            },
            command: |g, scratch, out| {
                strings(&[
                    "run",
                    "wcc",
                    s(g),
                    "--engine",
                    "shards",
                    "--memory",
                    "4MiB",
                    "--scratch",
                    s(scratch),
                    "--out",
                    s(&out.join("wcc.tsv")),
                    "--stats",
                    s(&out.join("stats.json")),
                    "--report",
                    s(&out.join("report.html")),
                ])
            },
            compared: &["wcc.tsv"],
            ended: &[("stats.json", b"}\n"), ("report.html", b"</html>\n")],
        },
        7,
    );
}

#[test]
fn runs_on_the_stream_engine_writing_results_survive_kills() {
    kill_loop(
        &Outputs {
            make: |dir| {
                kronecker(dir);
                ok(&["partition", s(&dir.join("g")), "--grid", "4"]);
            },
            command: |g, _scratch, out| {
                strings(&[
                    "run",
                    "bfs",
                    s(g),
                    "--engine",
                    "stream",
                    "--vertex-state",
                    "mmap",
                    "--memory",
                    "2MiB",
                    "--out",
                    s(&out.join("bfs.npy")),
                    "--stats",
                    s(&out.join("stats.json")),
                ])
            },
            compared: &["bfs.npy"],
            ended: &[("stats.json", b"}\n")],
        },
        8,
    );
}

#[test]
fn a_replace_killed_between_its_renames_keeps_the_old_graph() {
    // `import --force` moves the old graph aside, then renames the new one in; killed in
    // between, the old one is put back by the next writer of the name.
    let dir = tempfile::tempdir().unwrap();
    kronecker(dir.path());
    let g = dir.path().join("g");
    let before = contents(&g, dir.path());
    // No process has a pid this high: the writer is gone.
    std::fs::rename(&g, dir.path().join(".g.old-4294967295-1")).unwrap();
    let text = dir.path().join("edges.txt");
    text_input(&text);
    let out = diskgraph(&["import", s(&text), "-o", s(&g)]);
    assert!(
        !out.status.success(),
        "the old graph is back: replacing it needs --force"
    );
    assert!(verifies(&g));
    assert_eq!(contents(&g, dir.path()), before);
    ok(&["import", s(&text), "-o", s(&g), "--force"]);
    assert!(verifies(&g));
    assert_eq!(temporaries(dir.path()), Vec::<PathBuf>::new());
}
