//! The WebGraph BVGraph reader: LAW's cnr-2000 decodes to the arc list its data README
//! publishes (sha256), random graphs written by an encoder of this test (references, blocks,
//! intervals, residuals; every code) decode to themselves, and corrupt streams are errors
//! naming the file and the node, never panics.

mod parse_support;

use std::path::{Path, PathBuf};

use diskgraph_prep::parse::{parse_format_name, FormatChoice};
use diskgraph_prep::InputFormat;
use parse_support::{auto, given, pairs, read_all, DATA};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use sha2::{Digest, Sha256};

/// sha256 of cnr-2000's arcs as `u<TAB>v<LF>` lines in node order (testdata/real/README.md).
const CNR_ARCS_SHA256: &str = "db55a42aeba48ffea2a740285d9df875112869cd8fc7d7af65867f9414d72f41";

#[test]
fn cnr_2000_decodes_to_the_published_arc_list() {
    let path = Path::new(DATA).join("cnr-2000/cnr-2000.graph");
    let parsed = read_all(&path, &auto()).expect("cnr-2000 decodes");
    let message = parsed.message.expect("auto detection says what it decided");
    assert!(message.contains("bvgraph"), "{message}");
    assert_eq!(parsed.info.declared_vertices, Some(0..325_557));
    assert_eq!(parsed.info.directed, Some(true));
    assert_eq!(parsed.edges.len(), 3_216_152);
    let mut hash = Sha256::new();
    for e in &parsed.edges {
        hash.update(format!("{}\t{}\n", e.src, e.dst));
    }
    let digest: String = hash.finalize().iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(digest, CNR_ARCS_SHA256);
}

#[test]
fn the_basename_and_the_format_name_open_it_too() {
    let base = Path::new(DATA).join("cnr-2000/cnr-2000");
    let by_base = read_all(&base, &auto()).expect("basename");
    assert_eq!(by_base.edges.len(), 3_216_152);
    let format = parse_format_name("BVGraph").unwrap();
    assert_eq!(format, FormatChoice::Given(InputFormat::BvGraph));
    let properties = base.with_extension("properties");
    assert_eq!(
        read_all(&properties, &given(InputFormat::BvGraph)).unwrap().edges.len(),
        3_216_152
    );
}

#[test]
fn gap_metis_graph_files_are_not_taken_for_bvgraphs() {
    let path = Path::new(DATA).join("gapbs-tiny/graphs/4.graph");
    let detected = diskgraph_prep::parse::open_input(&path, &auto()).map(|(s, _)| s.info().format);
    assert!(!matches!(detected, Ok(InputFormat::BvGraph)));
}

/// A bit stream written most significant bit first, as WebGraph writes it.
#[derive(Default)]
struct BitWriter {
    bytes: Vec<u8>,
    bits: u64,
}

impl BitWriter {
    fn bit(&mut self, one: bool) {
        if self.bits.is_multiple_of(8) {
            self.bytes.push(0);
        }
        if one {
            *self.bytes.last_mut().unwrap() |= 0x80 >> (self.bits % 8);
        }
        self.bits += 1;
    }

    fn number(&mut self, value: u64, width: u32) {
        for i in (0..width).rev() {
            self.bit(value >> i & 1 == 1);
        }
    }

    fn write(&mut self, code: Code, x: u64) {
        match code {
            Code::Unary => {
                (0..x).for_each(|_| self.bit(false));
                self.bit(true);
            }
            Code::Gamma => {
                let width = (x + 1).ilog2();
                self.write(Code::Unary, width as u64);
                self.number(x + 1, width);
            }
            Code::Delta => {
                let width = (x + 1).ilog2();
                self.write(Code::Gamma, width as u64);
                self.number(x + 1, width);
            }
            Code::Zeta(k) => {
                // h: the band [2^(hk), 2^((h+1)k)) that x + 1 falls in; then x + 1 - 2^(hk) in
                // minimal binary below 2^((h+1)k) - 2^(hk).
                let h = (x + 1).ilog2() / k;
                self.write(Code::Unary, h as u64);
                let low = 1u64 << (h * k);
                let bound = (low << k) - low;
                let (value, width) = (x + 1 - low, bound.ilog2());
                let limit = (2u64 << width) - bound;
                if value < limit {
                    self.number(value, width);
                } else {
                    self.number(value + limit, width + 1);
                }
            }
        }
    }
}

/// The codes a BVGraph component may be written in.
#[derive(Clone, Copy, Debug)]
enum Code {
    Unary,
    Gamma,
    Delta,
    Zeta(u32),
}

impl Code {
    fn flag(self) -> String {
        match self {
            Code::Unary => "UNARY".into(),
            Code::Gamma => "GAMMA".into(),
            Code::Delta => "DELTA".into(),
            Code::Zeta(k) => format!("ZETA{k}"),
        }
    }
}

/// How the test encoder writes a graph.
#[derive(Clone, Debug)]
struct Layout {
    window: u64,
    min_interval: u64,
    /// Codes of outdegrees, references, block count, blocks, intervals, residuals.
    codes: [Code; 6],
}

/// The natural number standing for `i` in BVGraph's signed gaps.
fn int_to_nat(i: i64) -> u64 {
    if i >= 0 {
        2 * i as u64
    } else {
        (-2 * i - 1) as u64
    }
}

/// Writes `lists` (sorted, distinct successors) as a BVGraph bit stream. Each list copies from
/// the earlier list in the window that shares most with it.
fn encode(lists: &[Vec<u64>], layout: &Layout) -> Vec<u8> {
    let [outdegrees, references, block_count, blocks, intervals, residuals] = layout.codes;
    let mut w = BitWriter::default();
    for (x, list) in lists.iter().enumerate() {
        w.write(outdegrees, list.len() as u64);
        if list.is_empty() {
            continue;
        }
        let mut extras: Vec<u64> = list.clone();
        if layout.window > 0 {
            let shared = |r: usize| lists[x - r].iter().filter(|v| list.contains(v)).count();
            let best = (1..=(layout.window as usize).min(x)).max_by_key(|&r| (shared(r), std::cmp::Reverse(r)));
            let r = best.filter(|&r| shared(r) > 0).unwrap_or(0);
            w.write(references, r as u64);
            if r > 0 {
                // Runs of copied / skipped successors of the reference, the first a copied run
                // (maybe empty); the last run is implied by the parity of the count.
                let mut runs = vec![0u64];
                for v in &lists[x - r] {
                    let copied = list.contains(v);
                    if copied != (runs.len() % 2 == 1) {
                        runs.push(0);
                    }
                    *runs.last_mut().unwrap() += 1;
                }
                runs.pop();
                w.write(block_count, runs.len() as u64);
                for (i, run) in runs.iter().enumerate() {
                    w.write(blocks, run - u64::from(i > 0));
                }
                extras.retain(|v| !lists[x - r].contains(v));
            }
        }
        if !extras.is_empty() && layout.min_interval > 0 {
            let mut runs: Vec<(u64, u64)> = Vec::new(); // (start, length) of maximal runs
            for &v in &extras {
                match runs.last_mut() {
                    Some((s, l)) if *s + *l == v => *l += 1,
                    _ => runs.push((v, 1)),
                }
            }
            runs.retain(|&(_, l)| l >= layout.min_interval);
            w.write(intervals, runs.len() as u64);
            let mut next = None;
            for &(start, len) in &runs {
                let gap = match next {
                    None => int_to_nat(start as i64 - x as i64),
                    Some(n) => start - n,
                };
                w.write(intervals, gap);
                w.write(intervals, len - layout.min_interval);
                next = Some(start + len + 1);
            }
            extras.retain(|v| !runs.iter().any(|&(s, l)| (s..s + l).contains(v)));
        }
        let mut previous = None;
        for &v in &extras {
            let gap = match previous {
                None => int_to_nat(v as i64 - x as i64),
                Some(p) => v - p - 1,
            };
            w.write(residuals, gap);
            previous = Some(v);
        }
    }
    w.bytes
}

/// The properties file of a graph written with `layout`.
fn properties(nodes: usize, arcs: usize, layout: &Layout) -> String {
    let names = [
        "OUTDEGREES",
        "REFERENCES",
        "BLOCK_COUNT",
        "BLOCKS",
        "INTERVALS",
        "RESIDUALS",
    ];
    let flags: Vec<String> = names
        .iter()
        .zip(layout.codes)
        .map(|(n, c)| format!("{n}_{}", c.flag()))
        .collect();
    format!(
        "#BVGraph properties\ngraphclass=it.unimi.dsi.webgraph.BVGraph\nversion=0\nnodes={nodes}\narcs={arcs}\n\
         windowsize={}\nminintervallength={}\ncompressionflags={}\n",
        layout.window,
        layout.min_interval,
        flags.join("|")
    )
}

/// Writes `dir/g.properties` and `dir/g.graph`; returns the `.graph` path.
fn write_graph(dir: &Path, properties: &str, stream: &[u8]) -> PathBuf {
    std::fs::write(dir.join("g.properties"), properties).unwrap();
    let graph = dir.join("g.graph");
    std::fs::write(&graph, stream).unwrap();
    graph
}

/// A random graph whose lists share successors with their predecessors (so references and
/// blocks are used) and hold runs of consecutive IDs (so intervals are).
fn random_lists(seed: u64, nodes: u64) -> Vec<Vec<u64>> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut lists: Vec<Vec<u64>> = Vec::new();
    for x in 0..nodes {
        let mut list: Vec<u64> = match lists.last() {
            Some(prev) if rng.gen_bool(0.5) => prev.iter().copied().filter(|_| rng.gen_bool(0.7)).collect(),
            _ => Vec::new(),
        };
        for _ in 0..rng.gen_range(0..8) {
            list.push(rng.gen_range(0..nodes));
        }
        if rng.gen_bool(0.3) {
            let start = rng.gen_range(0..nodes);
            list.extend(start..(start + rng.gen_range(1..9)).min(nodes));
        }
        if x == nodes / 2 {
            list.clear(); // an isolated-looking node in the middle
        }
        list.sort_unstable();
        list.dedup();
        lists.push(list);
    }
    lists
}

fn arcs(lists: &[Vec<u64>]) -> Vec<(u64, u64)> {
    (0..lists.len() as u64)
        .flat_map(|x| lists[x as usize].iter().map(move |&v| (x, v)))
        .collect()
}

fn code() -> impl Strategy<Value = Code> {
    prop_oneof![
        Just(Code::Unary),
        Just(Code::Gamma),
        Just(Code::Delta),
        (1u32..=7).prop_map(Code::Zeta)
    ]
}

fn layout() -> impl Strategy<Value = Layout> {
    (
        0u64..=4,
        prop_oneof![Just(0u64), 1u64..=4],
        [code(), code(), code(), code(), code(), code()],
    )
        .prop_map(|(window, min_interval, codes)| Layout {
            window,
            min_interval,
            codes,
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn random_graphs_decode_to_themselves(seed: u64, nodes in 1u64..120, layout in layout()) {
        let lists = random_lists(seed, nodes);
        let stream = encode(&lists, &layout);
        let dir = tempfile::tempdir().unwrap();
        let path = write_graph(dir.path(), &properties(lists.len(), arcs(&lists).len(), &layout), &stream);
        let parsed = read_all(&path, &auto()).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(pairs(&parsed.edges), arcs(&lists));
        prop_assert_eq!(parsed.info.declared_vertices, Some(0..nodes));
    }

    #[test]
    fn corrupt_streams_are_errors_or_valid_graphs_never_panics(
        seed: u64,
        layout in layout(),
        flips in proptest::collection::vec((any::<prop::sample::Index>(), 0u8..8), 1..6),
    ) {
        let lists = random_lists(seed, 60);
        let mut stream = encode(&lists, &layout);
        for (at, bit) in flips {
            let i = at.index(stream.len());
            stream[i] ^= 1 << bit;
        }
        let dir = tempfile::tempdir().unwrap();
        let path = write_graph(dir.path(), &properties(lists.len(), arcs(&lists).len(), &layout), &stream);
        match read_all(&path, &auto()) {
            Ok(parsed) => prop_assert!(parsed.edges.iter().all(|e| e.src < 60 && e.dst < 60)),
            Err(e) => {
                let message = e.to_string();
                prop_assert!(message.contains("g.graph"), "{}", message);
            }
        }
    }
}

/// The error reading `stream` under `properties` gives.
fn error(properties: &str, stream: &[u8]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = write_graph(dir.path(), properties, stream);
    let message = read_all(&path, &auto())
        .map(|p| p.edges.len())
        .expect_err("must fail")
        .to_string();
    assert!(message.contains(&dir.path().display().to_string()), "{message}");
    message
}

#[test]
fn faults_name_the_byte_and_the_node() {
    let layout = Layout {
        window: 3,
        min_interval: 2,
        codes: [
            Code::Gamma,
            Code::Unary,
            Code::Gamma,
            Code::Gamma,
            Code::Gamma,
            Code::Zeta(3),
        ],
    };
    let lists = random_lists(7, 200);
    let stream = encode(&lists, &layout);
    let props = properties(lists.len(), arcs(&lists).len(), &layout);

    let truncated = error(&props, &stream[..stream.len() / 2]);
    assert!(
        truncated.contains("g.graph: byte ") && truncated.contains("the stream ends inside its"),
        "{truncated}"
    );

    let miscounted = properties(lists.len(), arcs(&lists).len() + 1, &layout);
    let message = error(&miscounted, &stream);
    assert!(message.contains("but its properties say arcs="), "{message}");

    let mut trailing = stream.clone();
    trailing.extend_from_slice(&[0xff; 9]);
    let message = error(&props, &trailing);
    assert!(message.contains("data follows the last node's list"), "{message}");

    // One node, whose first residual points past the last node.
    let mut w = BitWriter::default();
    w.write(Code::Gamma, 1);
    w.write(Code::Gamma, 5);
    let one = Layout {
        window: 0,
        min_interval: 0,
        codes: [Code::Gamma; 6],
    };
    let message = error(&properties(2, 1, &one), &w.bytes);
    assert!(
        message.contains("node 0: a successor lies outside the 2 nodes"),
        "{message}"
    );

    // One node whose single interval claims 10^9 successors under arcs=1: refused before the
    // list is built (it would take 8 GB); and nodes beyond 2^32 are refused by the properties.
    let mut w = BitWriter::default();
    w.write(Code::Gamma, 1_000_000_000);
    w.write(Code::Gamma, 1);
    w.write(Code::Gamma, 0);
    w.write(Code::Gamma, 1_000_000_000 - 2);
    let huge = Layout {
        window: 0,
        min_interval: 2,
        codes: [Code::Gamma; 6],
    };
    let message = error(&properties(1 << 32, 1, &huge), &w.bytes);
    assert!(
        message.contains("node 0: outdegree 1000000000 exceeds the 1 arcs left of the arcs=1"),
        "{message}"
    );
    let message = error(&properties((1 << 32) + 1, 1, &huge), &w.bytes);
    assert!(
        message.contains("nodes=4294967297: more than the 4294967296 vertices"),
        "{message}"
    );

    let dir = tempfile::tempdir().unwrap();
    let path = write_graph(dir.path(), &props, &stream);
    let opts = parse_support::weighted(FormatChoice::Auto);
    let message = read_all(&path, &opts)
        .map(|p| p.edges.len())
        .expect_err("weights")
        .to_string();
    assert!(message.contains("a BVGraph has none"), "{message}");
}
