//! The graph-directory fuzz target: a valid graph directory with every layout, mutated by the
//! input, then opened, verified and run on by every engine.
//!
//! Two base graphs are built once per process ([`bases`]): a directed weighted graph with sparse
//! original IDs (`ids.u64`), a grid layout, a shard layout and a BAsC selection; and an
//! undirected graph with vertex names (`names.idx`, `names.bin`), a grid and a shard layout.
//! Each grid has been replaced once, so it is a later generation (`grid-2.v1/`).
//! An input picks a base, then lists mutations of its files ([`Mutation`]): bytes overwritten,
//! a little-endian word set to a chosen value, a file truncated or extended, a number in a
//! JSON metadata file replaced, a file or layout directory replaced by a symlink out of the
//! directory. The mutations apply to the files' logical bytes (data files are re-padded to 4096
//! bytes); flags of the input then make the manifest and the layouts' metadata agree with the
//! new lengths and checksums, so a lie gets past the size and checksum checks to the deeper
//! ones. The mutated copy is opened, verified and run on (a few algorithms on each engine,
//! with a small budget); every outcome but a panic, a hang or an unbounded allocation is
//! fine.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use diskgraph_algo::registry::{self, RunRequest};
use diskgraph_engine::engine_options::{BASC, ENGINE, MEMORY, THREADS};
use diskgraph_engine::options::Value;
use diskgraph_format::{padded_len, verify, GraphDir, MANIFEST};
use diskgraph_prep::parse::{open_input, ParseOptions};
use diskgraph_prep::select::{select_graph, SelectMethod, SelectOptions};
use diskgraph_prep::{
    import, partition, partition_shards, ImportOptions, NoProgress, PartitionOptions, ShardOptions, SortOrder,
};
use serde_json::Value as Json;

use crate::Target;

/// The graph-directory targets.
pub const TARGETS: &[Target] = &[Target {
    name: "graph_dir",
    run: run_graph_dir,
}];

/// Most mutations one input applies (the rest of a longer input is ignored).
const MAX_MUTATIONS: usize = 16;
/// Most bytes one overwrite writes.
const MAX_OVERWRITE: usize = 64;
/// Most bytes one extension adds.
const MAX_EXTEND: u64 = 1 << 16;
/// The engines' budget: small, so that the out-of-core engines read in many small steps.
const BUDGET: u64 = 1 << 20;

/// Values a mutation sets most often: edges of the u32 and u64 ranges, page sizes, and small
/// counts.
const INTERESTING: &[u64] = &[
    0,
    1,
    2,
    3,
    7,
    8,
    63,
    64,
    4095,
    4096,
    4097,
    0x7fff_ffff,
    0x8000_0000,
    0xffff_fffe,
    0xffff_ffff,
    0x1_0000_0000,
    0x1_0000_0001,
    1 << 40,
    1 << 62,
    i64::MAX as u64,
    u64::MAX - 1,
    u64::MAX,
];

/// One file of a base graph directory, by its path relative to the directory.
#[derive(Clone, Debug)]
struct BaseFile {
    /// Path relative to the graph directory.
    rel: String,
    /// Logical bytes (a data file's padding stripped).
    bytes: Vec<u8>,
    /// Whether it is a JSON metadata file (else a padded data file).
    json: bool,
}

/// A base graph directory held in memory.
#[derive(Debug)]
struct Base {
    /// Its files, sorted by path.
    files: Vec<BaseFile>,
}

/// The base graphs, built once; the temporary directory that held them is gone by then.
fn bases() -> &'static [Base] {
    static BASES: OnceLock<Vec<Base>> = OnceLock::new();
    BASES.get_or_init(|| {
        let dir = tempfile::tempdir().expect("a temporary directory");
        vec![
            build_base(dir.path(), "ids", &ids_input(), "el", false, true),
            build_base(dir.path(), "names", &names_input(), "csv", true, false),
        ]
    })
}

/// A directed weighted edge list over sparse IDs (so the graph stores `ids.u64`).
fn ids_input() -> String {
    let mut text = String::new();
    let mut x = 12345u64;
    for _ in 0..160 {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let (s, d) = ((x >> 33) % 40, (x >> 13) % 40);
        let w = (x >> 50) % 9 + 1;
        text.push_str(&format!("{} {} {w}\n", 10 + 7 * s, 10 + 7 * d));
    }
    text
}

/// An undirected CSV edge list of named vertices (so the graph stores names).
fn names_input() -> String {
    let mut text = String::from("source,target\n");
    let mut x = 777u64;
    for _ in 0..120 {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let (s, d) = ((x >> 33) % 30, (x >> 13) % 30);
        text.push_str(&format!("v{s},v{d}\n"));
    }
    text
}

/// Imports `input` (`ext` names its format) into `root/name` with a grid layout, a shard layout
/// and, if `basc`, a BAsC selection; returns its files.
fn build_base(root: &Path, name: &str, input: &str, ext: &str, undirected: bool, basc: bool) -> Base {
    let src = root.join(format!("{name}.{ext}"));
    std::fs::write(&src, input).expect("writing a fuzz base input");
    let graph = root.join(name);
    let parse = ParseOptions {
        weighted: !undirected,
        ..ParseOptions::default()
    };
    let (mut source, _) = open_input(&src, &parse).expect("the fuzz base input parses");
    let opts = ImportOptions {
        undirected,
        keep_self_loops: false,
        keep_duplicates: false,
        memory: 64 << 20,
        force: false,
        ..ImportOptions::default()
    };
    import(source.as_mut(), &graph, &opts, &mut NoProgress).expect("the fuzz base imports");
    let grid = PartitionOptions {
        grid: Some(2),
        memory: 1 << 20,
        force: false,
        compress: None,
    };
    partition(&graph, SortOrder::Grid, &grid, &mut NoProgress).expect("the fuzz base partitions");
    // Replaced once, the grid is its second generation (`grid-2.v1/`, named by the manifest's
    // `generation`), which mutations of the manifest then point elsewhere.
    let again = PartitionOptions { force: true, ..grid };
    partition(&graph, SortOrder::Grid, &again, &mut NoProgress).expect("the fuzz base partitions again");
    let shards = ShardOptions {
        shards: Some(2),
        memory: 64 << 10,
        block_bytes: Some(4096),
        force: false,
        compress: None,
    };
    partition_shards(&graph, &shards, &mut NoProgress).expect("the fuzz base shards");
    if basc {
        let select = SelectOptions {
            method: SelectMethod::Gvs { rounds: 2 },
            budget_bytes: 1024,
            page_bytes: 4096,
            name: Some("gvs".into()),
            force: false,
        };
        select_graph(&graph, &select, &mut diskgraph_prep::NoProgress).expect("the fuzz base selects");
    }
    let mut files = Vec::new();
    collect_files(&graph, &graph, &mut files);
    files.sort_by(|a, b| a.rel.cmp(&b.rel));
    // A data file's logical length is the one its manifest or metadata records.
    let lengths: BTreeMap<String, u64> = files
        .iter()
        .filter(|f| f.json)
        .flat_map(|f| {
            let dir = Path::new(&f.rel).parent().map(Path::to_path_buf).unwrap_or_default();
            let json: Json = serde_json::from_slice(&f.bytes).expect("a base's metadata is JSON");
            let entries = json["files"].as_object().cloned().unwrap_or_default();
            entries.into_iter().map(move |(file, entry)| {
                let rel = dir.join(file).to_string_lossy().into_owned();
                (rel, entry["len"].as_u64().expect("a recorded length"))
            })
        })
        .collect();
    for f in files.iter_mut().filter(|f| !f.json) {
        let len = lengths[&f.rel] as usize;
        f.bytes.truncate(len);
    }
    Base { files }
}

/// Every regular file under `dir`, relative to `root`.
fn collect_files(root: &Path, dir: &Path, out: &mut Vec<BaseFile>) {
    for entry in std::fs::read_dir(dir).expect("listing a fuzz base") {
        let path = entry.expect("listing a fuzz base").path();
        if path.is_dir() {
            collect_files(root, &path, out);
            continue;
        }
        let rel = path.strip_prefix(root).expect("under the root");
        out.push(BaseFile {
            rel: rel.to_string_lossy().into_owned(),
            bytes: std::fs::read(&path).expect("reading a fuzz base file"),
            json: path.extension().is_some_and(|e| e == "json"),
        });
    }
}

/// The input, read front to back; past its end every read gives zeros.
struct Reader<'a> {
    data: &'a [u8],
}

impl Reader<'_> {
    fn done(&self) -> bool {
        self.data.is_empty()
    }

    fn bytes(&mut self, n: usize) -> &[u8] {
        let (head, tail) = self.data.split_at(n.min(self.data.len()));
        self.data = tail;
        head
    }

    fn u8(&mut self) -> u8 {
        self.bytes(1).first().copied().unwrap_or(0)
    }

    fn u16(&mut self) -> u16 {
        u16::from(self.u8()) | u16::from(self.u8()) << 8
    }

    fn u32(&mut self) -> u32 {
        u32::from(self.u16()) | u32::from(self.u16()) << 16
    }

    /// A value: one of [`INTERESTING`] (byte below its length), else 8 raw bytes.
    fn value(&mut self) -> u64 {
        let pick = self.u8() as usize;
        match INTERESTING.get(pick) {
            Some(&v) => v,
            None => u64::from(self.u32()) | u64::from(self.u32()) << 32,
        }
    }
}

/// One change to a file of the base.
#[derive(Debug)]
enum Mutation {
    /// Bytes written at an offset (the file grows if they pass its end).
    Overwrite { file: usize, at: usize, bytes: Vec<u8> },
    /// A little-endian word of `width` bytes set, at word `index` (modulo the file's words).
    Word {
        file: usize,
        width: usize,
        index: usize,
        value: u64,
    },
    /// The file cut to `len` (modulo its length + 1).
    Truncate { file: usize, len: usize },
    /// `extra` bytes of `fill` appended.
    Extend { file: usize, extra: usize, fill: u8 },
    /// The `leaf`-th number of a JSON file (modulo their count) set to `value`.
    JsonNumber { file: usize, leaf: usize, value: u64 },
    /// The file replaced by a symlink to a copy of it outside the directory (its directory,
    /// for a layout's file when `whole_dir`).
    Symlink { file: usize, whole_dir: bool },
}

fn read_mutation(r: &mut Reader<'_>, num_files: usize) -> Mutation {
    let op = r.u8();
    let file = r.u8() as usize % num_files;
    match op % 6 {
        0 => {
            let at = r.u32() as usize;
            let n = r.u8() as usize % (MAX_OVERWRITE + 1);
            Mutation::Overwrite {
                file,
                at,
                bytes: r.bytes(n).to_vec(),
            }
        }
        1 => {
            let width = if op & 0x80 == 0 { 4 } else { 8 };
            Mutation::Word {
                file,
                width,
                index: r.u32() as usize,
                value: r.value(),
            }
        }
        2 => Mutation::Truncate {
            file,
            len: r.u32() as usize,
        },
        3 => Mutation::Extend {
            file,
            extra: r.u16() as usize % (MAX_EXTEND as usize + 1),
            fill: r.u8(),
        },
        4 => Mutation::JsonNumber {
            file,
            leaf: r.u16() as usize,
            value: r.value(),
        },
        _ => Mutation::Symlink {
            file,
            whole_dir: op & 0x80 != 0,
        },
    }
}

/// Applies `m` to `files` (symlinks are only noted, in `links`: they are made on writing).
fn apply(m: &Mutation, files: &mut [BaseFile], links: &mut Vec<(usize, bool)>) {
    match *m {
        Mutation::Overwrite { file, ref bytes, at } => {
            let f = &mut files[file].bytes;
            let at = at % (f.len() + 1);
            if f.len() < at + bytes.len() {
                f.resize(at + bytes.len(), 0);
            }
            f[at..at + bytes.len()].copy_from_slice(bytes);
        }
        Mutation::Word {
            file,
            width,
            index,
            value,
        } => {
            let f = &mut files[file].bytes;
            let words = f.len() / width;
            if words > 0 {
                let at = index % words * width;
                f[at..at + width].copy_from_slice(&value.to_le_bytes()[..width]);
            }
        }
        Mutation::Truncate { file, len } => {
            let f = &mut files[file].bytes;
            f.truncate(len % (f.len() + 1));
        }
        Mutation::Extend { file, extra, fill } => {
            let f = &mut files[file].bytes;
            f.resize(f.len() + extra, fill);
        }
        Mutation::JsonNumber { file, leaf, value } => {
            let f = &mut files[file];
            if !f.json {
                return;
            }
            let Ok(mut json) = serde_json::from_slice::<Json>(&f.bytes) else {
                return;
            };
            let mut leaves = Vec::new();
            number_leaves(&mut json, &mut leaves);
            if !leaves.is_empty() {
                let n = leaves.len();
                *leaves.swap_remove(leaf % n) = Json::from(value);
                f.bytes = serde_json::to_vec(&json).expect("JSON serialises");
            }
        }
        Mutation::Symlink { file, whole_dir } => links.push((file, whole_dir)),
    }
}

/// Every number in `json`, in document order.
fn number_leaves<'a>(json: &'a mut Json, out: &mut Vec<&'a mut Json>) {
    match json {
        Json::Number(_) => out.push(json),
        Json::Array(items) => items.iter_mut().for_each(|v| number_leaves(v, out)),
        Json::Object(map) => map.values_mut().for_each(|v| number_leaves(v, out)),
        _ => {}
    }
}

/// Makes every metadata file's `files` entries agree with the files: their lengths when
/// `lengths`, their checksums (and the layouts' `graph_out_adj`) when `checksums`.
fn fix_metadata(files: &mut [BaseFile], lengths: bool, checksums: bool) {
    let data: BTreeMap<String, (u64, String)> = files
        .iter()
        .filter(|f| !f.json)
        .map(|f| {
            let hash = format!("{:016x}", xxhash_rust::xxh3::xxh3_64(&f.bytes));
            (f.rel.clone(), (f.bytes.len() as u64, hash))
        })
        .collect();
    let out_adj = data.get("out.adj").map(|(_, h)| h.clone());
    for f in files.iter_mut().filter(|f| f.json) {
        let Ok(mut json) = serde_json::from_slice::<Json>(&f.bytes) else {
            continue;
        };
        let dir = Path::new(&f.rel).parent().map(Path::to_path_buf).unwrap_or_default();
        if let Some(entries) = json.get_mut("files").and_then(Json::as_object_mut) {
            for (name, entry) in entries.iter_mut() {
                let Some((len, hash)) = data.get(dir.join(name).to_string_lossy().as_ref()) else {
                    continue;
                };
                if lengths {
                    entry["len"] = Json::from(*len);
                }
                if checksums {
                    entry["xxh3"] = Json::from(hash.clone());
                }
            }
        }
        if let (true, Some(hash), Some(field)) = (checksums, &out_adj, json.get_mut("graph_out_adj")) {
            *field = Json::from(hash.clone());
        }
        f.bytes = serde_json::to_vec(&json).expect("JSON serialises");
    }
}

/// Writes `files` as a graph directory at `root/graph` (data files padded to 4096 bytes with
/// zeros); each of `links` becomes a symlink to a copy under `root/outside`.
fn write_dir(root: &Path, files: &[BaseFile], links: &[(usize, bool)]) -> PathBuf {
    let graph = root.join("graph");
    let outside = root.join("outside");
    for f in files {
        let path = graph.join(&f.rel);
        std::fs::create_dir_all(path.parent().expect("a file has a parent")).expect("making a directory");
        let mut bytes = f.bytes.clone();
        if !f.json {
            bytes.resize(padded_len(bytes.len() as u64) as usize, 0);
        }
        std::fs::write(&path, bytes).expect("writing a mutated file");
    }
    for &(file, whole_dir) in links {
        let rel = Path::new(&files[file].rel);
        let rel = match (whole_dir, rel.parent()) {
            (true, Some(dir)) if dir != Path::new("") => dir,
            _ => rel,
        };
        let (inside, copy) = (graph.join(rel), outside.join(rel));
        if copy.exists() || std::fs::symlink_metadata(&inside).is_err() {
            continue;
        }
        std::fs::create_dir_all(copy.parent().expect("a parent")).expect("making a directory");
        std::fs::rename(&inside, &copy).expect("moving a file out");
        std::os::unix::fs::symlink(&copy, &inside).expect("making a symlink");
    }
    graph
}

/// The body of `graph_dir`: see the module documentation for the input's layout.
fn run_graph_dir(data: &[u8]) {
    let bases = bases();
    let mut r = Reader { data };
    let base = &bases[r.u8() as usize % bases.len()];
    let flags = r.u8();
    let mut files = base.files.clone();
    let mut links = Vec::new();
    for _ in 0..MAX_MUTATIONS {
        if r.done() {
            break;
        }
        let m = read_mutation(&mut r, files.len());
        apply(&m, &mut files, &mut links);
    }
    if flags & 3 != 0 {
        fix_metadata(&mut files, flags & 1 != 0, flags & 2 != 0);
    }
    let dir = tempfile::tempdir().expect("a temporary directory");
    let graph = write_dir(dir.path(), &files, &links);
    exercise(&graph);
}

/// Opens, verifies and runs on `path`; every error is fine.
fn exercise(path: &Path) {
    let Ok(g) = GraphDir::open(path) else {
        return;
    };
    let _ = verify(path);
    let _ = g.names();
    let _ = g.original_ids();
    let _ = std::fs::metadata(path.join(MANIFEST));
    let runs: &[(&str, &[&str])] = &[
        ("wcc", &["memory", "selective", "stream", "sync", "shards"]),
        ("pagerank", &["memory", "selective", "stream", "sync", "shards"]),
        ("bfs", &["memory", "selective", "stream", "sync"]),
        ("sssp", &["memory", "selective", "sync"]),
    ];
    for &(algorithm, engines) in runs {
        for &engine in engines {
            let Ok(alg) = registry::find(algorithm) else {
                continue;
            };
            let mut req = RunRequest::new(algorithm)
                .with(&ENGINE, Value::Choice(engine))
                .with(&MEMORY, Value::Size(BUDGET))
                .with(&THREADS, Value::Count(1));
            if algorithm == "pagerank" {
                if let Ok(spec) = registry::option(alg, "iterations") {
                    req = req.with(spec, Value::Count(3));
                }
            }
            if engine == "selective" && g.layout("basc-gvs").is_some() {
                req = req.with(&BASC, Value::Text("gvs".into()));
            }
            let _ = registry::run(&g, &req);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_unmutated_bases_open_verify_and_run() {
        for (i, base) in bases().iter().enumerate() {
            let dir = tempfile::tempdir().unwrap();
            let graph = write_dir(dir.path(), &base.files, &[]);
            let g = GraphDir::open(&graph).unwrap_or_else(|e| panic!("base {i}: {e}"));
            let report = verify(&graph).unwrap_or_else(|e| panic!("base {i}: {e}"));
            assert_eq!(report.stale_versions, Vec::<String>::new(), "base {i}");
            assert_eq!(g.layouts().len(), if i == 0 { 3 } else { 2 });
            assert_eq!(g.layout("grid-2").map(|l| l.dir_name()).as_deref(), Some("grid-2.v1"));
            assert!(
                base.files.iter().all(|f| !f.rel.starts_with("grid-2/")),
                "base {i}: grid-2/ left"
            );
            for engine in ["memory", "selective", "stream", "sync", "shards"] {
                let req = RunRequest::new("wcc")
                    .with(&ENGINE, Value::Choice(engine))
                    .with(&MEMORY, Value::Size(BUDGET))
                    .with(&THREADS, Value::Count(1));
                registry::run(&g, &req).unwrap_or_else(|e| panic!("base {i}, {engine}: {e}"));
            }
        }
    }

    #[test]
    fn fixing_the_metadata_lets_a_lie_reach_the_deeper_checks() {
        // A neighbour ID of u32::MAX in out.adj, lengths and checksums made to agree.
        let base = &bases()[0];
        let out_adj = base.files.iter().position(|f| f.rel == "out.adj").unwrap();
        let mut files = base.files.clone();
        let m = Mutation::Word {
            file: out_adj,
            width: 4,
            index: 3,
            value: 0xffff_ffff,
        };
        apply(&m, &mut files, &mut Vec::new());
        fix_metadata(&mut files, true, true);
        let dir = tempfile::tempdir().unwrap();
        let graph = write_dir(dir.path(), &files, &[]);
        GraphDir::open(&graph).unwrap();
        let err = verify(&graph).unwrap_err().to_string();
        assert!(err.contains("out.adj") && err.contains("4294967295"), "{err}");
    }
}
