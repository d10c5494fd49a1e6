//! Imports that read their input many times give the graph a single placement pass gives: a
//! gzip CSV of names (reopened, its names numbered again the same way) and generators
//! (restarted from their seed), at the smallest budget against a large one.

use std::io::Write;
use std::path::Path;

use diskgraph_prep::generate::{generator, GeneratorSpec};
use diskgraph_prep::import::MIN_MEMORY;
use diskgraph_prep::parse::{open_input, ParseOptions};
use diskgraph_prep::{import, EdgeSource, ImportOptions, ImportSummary, NoProgress};

/// The bytes of every file of the graph at `path`, by name (the manifest left out: it records
/// the tool, not the data).
fn files(path: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(path)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().unwrap().is_file() && e.file_name() != "manifest.json")
        .map(|e| (e.file_name().into_string().unwrap(), std::fs::read(e.path()).unwrap()))
        .collect();
    out.sort();
    out
}

/// A file or a generator is its own scratch: none at a large budget; at the smallest only the
/// sort runs of lists longer than the placement buffer, at most half the graph.
fn check_scratch(s: &ImportSummary, path: &Path, memory: u64) {
    let graph: u64 = files(path).iter().map(|(_, b)| b.len() as u64).sum();
    match memory {
        MIN_MEMORY => assert!(
            2 * s.peak_scratch_bytes <= graph,
            "{} > {graph} / 2",
            s.peak_scratch_bytes
        ),
        _ => assert_eq!(s.peak_scratch_bytes, 0),
    }
}

fn import_at(source: &mut dyn EdgeSource, path: &Path, memory: u64, undirected: bool) -> ImportSummary {
    let opts = ImportOptions {
        undirected,
        memory,
        ..ImportOptions::default()
    };
    import(source, path, &opts, &mut NoProgress).unwrap()
}

#[test]
fn a_gzip_csv_of_names_read_many_times_keeps_its_numbering() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::from("from,to,w\n");
    let mut x = 12345u64;
    for i in 0..30_000u64 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        // A hub named "hub", and names that first appear in a scrambled order.
        let (a, b) = if i % 4 == 0 {
            ("hub".to_string(), format!("v{}", x % 9_000))
        } else {
            (format!("v{}", x % 9_000), format!("v{}", (x >> 20) % 9_000))
        };
        text.push_str(&format!("{a},{b},{}\n", x % 13));
    }
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(text.as_bytes()).unwrap();
    let input = dir.path().join("names.csv.gz");
    std::fs::write(&input, gz.finish().unwrap()).unwrap();
    let parse = ParseOptions {
        weighted: true,
        ..ParseOptions::default()
    };
    let mut graphs = Vec::new();
    for (memory, name) in [(1u64 << 30, "large"), (MIN_MEMORY, "small")] {
        let (mut source, _) = open_input(&input, &parse).unwrap();
        assert!(source.rewindable(), "a regular file starts over");
        let path = dir.path().join(name);
        let s = import_at(source.as_mut(), &path, memory, true);
        assert!(s.names);
        check_scratch(&s, &path, memory);
        graphs.push((s.passes, files(&path)));
    }
    assert_eq!(graphs[0].0, 2, "one placement pass at 1 GiB");
    assert!(graphs[1].0 > 5, "{} passes at the smallest budget", graphs[1].0);
    assert_eq!(graphs[0].1, graphs[1].1, "the same graph, names included");
    assert!(graphs[1].1.iter().any(|(name, _)| name == "names.bin"));
}

#[test]
fn generators_restart_and_give_the_same_graph_at_any_budget() {
    let dir = tempfile::tempdir().unwrap();
    let specs = [
        GeneratorSpec::Kronecker {
            scale: 12,
            edge_factor: 16,
            seed: 3,
            weighted: true,
        },
        GeneratorSpec::BarabasiAlbert {
            vertices: 3_000,
            m: 4,
            seed: 9,
            weighted: false,
        },
        GeneratorSpec::ErdosRenyi {
            vertices: 5_000,
            edges: 40_000,
            seed: 1,
            directed: true,
            weighted: false,
        },
    ];
    for (k, spec) in specs.iter().enumerate() {
        let mut graphs = Vec::new();
        for memory in [1u64 << 30, MIN_MEMORY] {
            let mut source = generator(spec).unwrap();
            let path = dir.path().join(format!("g{k}-{memory}"));
            let s = import_at(source.as_mut(), &path, memory, false);
            check_scratch(&s, &path, memory);
            graphs.push((s.passes, s.num_arcs, files(&path)));
        }
        assert!(
            graphs[1].0 > graphs[0].0,
            "{spec:?}: more passes at the smallest budget"
        );
        assert_eq!(graphs[0].1, graphs[1].1);
        assert!(graphs[0].2 == graphs[1].2, "{spec:?}: the same files at both budgets");
    }
}
