//! The options every run takes ([`RUN_OPTIONS`]: engine, budget, threads) and the options of the
//! out-of-core engines ([`ENGINE_OPTIONS`]), with their defaults, and the I/O settings they make.

use diskgraph_io::{
    BackendKind, IoConfig, DEFAULT_BLOCK_SIZE, DEFAULT_IO_THREADS, DEFAULT_MAX_GAP_BLOCKS, DEFAULT_MAX_REQUEST_BYTES,
    DEFAULT_MEMORY, DEFAULT_QUEUE_DEPTH, MAX_IO_THREADS,
};

use crate::options::{Choice, Default, Engines, OptionKind, OptionSpec, Params};
use crate::{EngineError, EngineKind};

const SELECTIVE: Engines = Engines::Only(&[EngineKind::Selective]);
const STREAM: Engines = Engines::Only(&[EngineKind::Stream]);
const SYNC: Engines = Engines::Only(&[EngineKind::Sync]);
const SHARDS: Engines = Engines::Only(&[EngineKind::Shards]);
const OUT_OF_CORE: Engines = Engines::Only(&[EngineKind::Selective, EngineKind::Stream, EngineKind::Sync]);
/// I/O sizes are u32 in the I/O layer.
const IO_SIZE: OptionKind = OptionKind::Size { max: u32::MAX as u64 };

/// Default maximum reentry times of the stream engine (`--mrt`), the CLIP paper's setting.
pub const DEFAULT_MRT: u32 = 5;

/// `--engine auto`.
const AUTO: Choice = Choice::new(
    "auto",
    "memory when the CSR the algorithm needs fits in the budget, else an out-of-core engine",
);

/// `--engine`'s names: `auto`, then every engine's, from its table.
const ENGINE_CHOICES: [Choice; EngineKind::ALL.len() + 1] = {
    let mut choices = [AUTO; EngineKind::ALL.len() + 1];
    let mut i = 0;
    while i < EngineKind::ALL.len() {
        let engine = EngineKind::ALL[i];
        choices[i + 1] = Choice::new(engine.name(), engine.help());
        i += 1;
    }
    choices
};

/// `--engine`: which engine runs the algorithm.
pub const ENGINE: OptionSpec = OptionSpec {
    name: "engine",
    kind: OptionKind::Choice(&ENGINE_CHOICES),
    default: Default::Choice("auto"),
    help: "engine: auto (memory when the CSR fits in --memory, else out of core), memory, selective, stream, sync or shards",
    engines: Engines::All,
    examples: &[],
};

/// What `--engine` asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineChoice {
    /// The engine the budget allows (see the registry).
    Auto,
    /// This engine.
    Engine(EngineKind),
}

impl std::str::FromStr for EngineChoice {
    type Err = String;

    /// Parses `auto` or an engine's name.
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "auto" => Ok(EngineChoice::Auto),
            name => name
                .parse()
                .map(EngineChoice::Engine)
                .map_err(|e: String| format!("{e} or auto")),
        }
    }
}

/// `--memory`: the budget.
pub const MEMORY: OptionSpec = OptionSpec {
    name: "memory",
    kind: OptionKind::Size { max: u64::MAX },
    default: Default::Size(DEFAULT_MEMORY),
    help: "memory budget: everything the engine holds (buffers, caches); auto compares the CSR with it",
    engines: Engines::All,
    examples: &["64MiB"],
};

/// The most worker threads a run takes (`--threads`): far more than any machine's cores, and
/// few enough to start in a moment.
pub const MAX_THREADS: u64 = 1024;

/// `--threads`: worker threads.
pub const THREADS: OptionSpec = OptionSpec {
    name: "threads",
    kind: OptionKind::Count {
        min: 1,
        max: MAX_THREADS,
    },
    default: Default::Absent,
    help: "worker threads, 1 to 1024 (default: all cores)",
    engines: Engines::All,
    examples: &["1", "3"],
};

/// `--adjacency`: the plain lists or a compressed layout (`diskgraph compress`).
pub const ADJACENCY: OptionSpec = OptionSpec {
    name: "adjacency",
    kind: OptionKind::Choice(&[
        Choice::new(
            "auto",
            "the graph's compressed lists when it has them (vbyte before zeta), else the plain lists",
        ),
        Choice::new("plain", "the plain lists (out.adj, in.adj)"),
        Choice::new("vbyte", "the lists of compressed-vbyte (Stream VByte over gaps)"),
        Choice::new(
            "zeta",
            "the lists of compressed-zeta (WebGraph's bit codes, without references)",
        ),
    ]),
    default: Default::Choice("auto"),
    help: "which copy of the lists to read: auto (compressed when the graph has them), plain, vbyte or zeta",
    engines: Engines::Only(&[EngineKind::Memory, EngineKind::Selective, EngineKind::Sync]),
    examples: &[],
};

/// `--verify`: check the answer after the run.
pub const VERIFY: OptionSpec = OptionSpec {
    name: "verify",
    kind: OptionKind::Flag,
    default: Default::Flag(false),
    help: "check the answer against the graph after the run, by the algorithm's verifier (streams the graph within the budget); a wrong answer fails naming the first violation",
    engines: Engines::All,
    examples: &[],
};

/// The options of every run.
pub const RUN_OPTIONS: &[&OptionSpec] = &[&ENGINE, &MEMORY, &THREADS, &ADJACENCY, &VERIFY];

/// `--io`: the I/O backend.
pub const IO: OptionSpec = OptionSpec {
    name: "io",
    kind: OptionKind::Choice(&[
        Choice::new("uring", "io_uring with O_DIRECT"),
        Choice::new(
            "pread",
            "pread with O_DIRECT, one read in flight per thread (the depth-1 baseline)",
        ),
        Choice {
            name: "mmap",
            help: "the kernel's page cache through mapped files (selective and sync: the baseline, and PrefEdge's own madvise scheme)",
            engines: Engines::Only(&[EngineKind::Selective, EngineKind::Sync]),
        },
    ]),
    default: Default::Absent,
    help: "I/O backend: uring, pread or mmap (selective and sync); default: uring when the kernel allows it, else pread",
    engines: OUT_OF_CORE,
    examples: &[],
};

/// `--block-size`.
pub const BLOCK_SIZE: OptionSpec = OptionSpec {
    name: "block_size",
    kind: IO_SIZE,
    default: Default::Size(DEFAULT_BLOCK_SIZE as u64),
    help: "I/O block size, a power of two from 512 B to 64 KiB",
    engines: SELECTIVE,
    examples: &["4096"],
};

/// `--max-gap`.
pub const MAX_GAP: OptionSpec = OptionSpec {
    name: "max_gap",
    kind: OptionKind::Count {
        min: 0,
        max: u32::MAX as u64,
    },
    default: Default::Count(DEFAULT_MAX_GAP_BLOCKS as u64),
    help: "largest gap, in blocks, merged into a read",
    engines: SELECTIVE,
    examples: &["0"],
};

/// `--max-request`.
pub const MAX_REQUEST: OptionSpec = OptionSpec {
    name: "max_request",
    kind: IO_SIZE,
    default: Default::Size(DEFAULT_MAX_REQUEST_BYTES as u64),
    help: "largest read; longer runs are cut",
    engines: SELECTIVE,
    examples: &["8KiB"],
};

/// `--scheduler`.
pub const SCHEDULER: OptionSpec = OptionSpec {
    name: "scheduler",
    kind: OptionKind::Choice(&[
        Choice::new(
            "bitmap",
            "one bitmap per round: global dedup, sort and merge (Graphene)",
        ),
        Choice::new(
            "pluglist",
            "batches of 16 requests sorted and merged locally (Linux's plug list; the baseline)",
        ),
    ]),
    default: Default::Choice("bitmap"),
    help: "I/O scheduler: bitmap (global dedup/sort/merge) or pluglist (the baseline)",
    engines: SELECTIVE,
    examples: &[],
};

/// `--queue-depth`.
pub const QUEUE_DEPTH: OptionSpec = OptionSpec {
    name: "queue_depth",
    kind: OptionKind::POSITIVE,
    default: Default::Count(DEFAULT_QUEUE_DEPTH as u64),
    help: "reads in flight per I/O thread",
    engines: OUT_OF_CORE,
    examples: &["1"],
};

/// `--io-threads`.
pub const IO_THREADS: OptionSpec = OptionSpec {
    name: "io_threads",
    kind: OptionKind::Count {
        min: 1,
        max: MAX_IO_THREADS as u64,
    },
    default: Default::Count(DEFAULT_IO_THREADS as u64),
    help: "dedicated I/O threads, 1 to 64",
    engines: SELECTIVE,
    examples: &["2"],
};

/// `--retain-lists`.
pub const RETAIN_LISTS: OptionSpec = OptionSpec {
    name: "retain_lists",
    kind: OptionKind::Flag,
    default: Default::Flag(true),
    help: "keep the small lists a bottom-up (pull) round read that the next round reads again, in the budget the buffers leave (false: the baseline)",
    engines: SELECTIVE,
    examples: &[],
};

/// `--basc`.
pub const BASC: OptionSpec = OptionSpec {
    name: "basc",
    kind: OptionKind::Text,
    default: Default::Absent,
    help: "load BAsC selection NAME (diskgraph select) into a static cache",
    engines: SELECTIVE,
    examples: &[],
};

/// `--basc-fraction`.
pub const BASC_FRACTION: OptionSpec = OptionSpec {
    name: "basc_fraction",
    kind: OptionKind::Float { above: 0.0, below: 1.0 },
    default: Default::Float(0.5),
    help: "share of the budget given to the static cache",
    engines: SELECTIVE,
    examples: &["0.25"],
};

/// `--page-size`.
pub const PAGE_SIZE: OptionSpec = OptionSpec {
    name: "page_size",
    kind: IO_SIZE,
    default: Default::Absent,
    help: "read through a page cache of pages of this size, holding what the budget leaves after the static cache and the I/O buffers",
    engines: SELECTIVE,
    examples: &["4096"],
};

/// `--page-policy`.
pub const PAGE_POLICY: OptionSpec = OptionSpec {
    name: "page_policy",
    kind: OptionKind::Choice(&[
        Choice::new("clock", "CLOCK (second chance)"),
        Choice::new("lru", "least recently used"),
    ]),
    default: Default::Choice("clock"),
    help: "the page cache's replacement: clock or lru",
    engines: SELECTIVE,
    examples: &[],
};

/// `--track-utilization`.
pub const TRACK_UTILIZATION: OptionSpec = OptionSpec {
    name: "track_utilization",
    kind: OptionKind::Flag,
    default: Default::Flag(false),
    help: "track page utilisation (64-byte units touched while resident)",
    engines: SELECTIVE,
    examples: &[],
};

/// `--mrt`.
pub const MRT: OptionSpec = OptionSpec {
    name: "mrt",
    kind: OptionKind::POSITIVE,
    default: Default::Count(DEFAULT_MRT as u64),
    help: "maximum reentry times: passes over each loaded block (1 is GridGraph's one pass)",
    engines: STREAM,
    examples: &["1"],
};

/// `--vertex-state`.
pub const VERTEX_STATE: OptionSpec = OptionSpec {
    name: "vertex_state",
    kind: OptionKind::Choice(&[
        Choice::new("memory", "in memory"),
        Choice::new("mmap", "a mapped scratch file next to the graph, so it may exceed RAM"),
    ]),
    default: Default::Choice("memory"),
    help: "where vertex state lives: memory or mmap (a mapped scratch file next to the graph)",
    engines: STREAM,
    examples: &[],
};

/// `--layout`.
pub const LAYOUT: OptionSpec = OptionSpec {
    name: "layout",
    kind: OptionKind::Text,
    default: Default::Absent,
    help: "the layout to run over: a grid layout (stream) or a shards layout (shards); default: the one the engine prefers among the graph's layouts",
    engines: Engines::Only(&[EngineKind::Stream, EngineKind::Shards]),
    examples: &[],
};

/// Default random in-flight target of the sync engine's prefetcher (`--ift`): on this machine's
/// SSD a single-threaded wcc kept getting faster up to 256 reads in flight (bench/sync.py (b),
/// docs/BENCHMARKS.md), the device delivering its random 4 KiB rate at depth 64 and beyond.
pub const DEFAULT_IFT: u64 = 256;

/// `--ift`: random reads the sync engine's prefetcher keeps in flight.
pub const IFT: OptionSpec = OptionSpec {
    name: "ift",
    kind: OptionKind::Count { min: 0, max: 4096 },
    default: Default::Count(DEFAULT_IFT),
    help: "sync: random reads the prefetcher keeps in flight ahead of the algorithm (0: no prefetching, the baseline)",
    engines: SYNC,
    examples: &["0", "3"],
};

/// `--ift-seq`: sequential reads the sync engine's prefetcher keeps in flight.
pub const IFT_SEQ: OptionSpec = OptionSpec {
    name: "ift_seq",
    kind: OptionKind::Count { min: 0, max: 1024 },
    default: Default::Count(8),
    help: "sync: sequential reads (of up to 128 KiB) the prefetcher keeps in flight ahead of a sequential iterator (0: none)",
    engines: SYNC,
    examples: &["0", "1"],
};

/// `--index-summary`: keep the row index on disk, a sample of it in memory.
pub const INDEX_SUMMARY: OptionSpec = OptionSpec {
    name: "index_summary",
    kind: OptionKind::Flag,
    default: Default::Flag(false),
    help: "sync: keep the O(V) row index on disk and every 64th offset in memory; a list is found by reading its index page alongside an interpolated range of the adjacency",
    engines: SYNC,
    examples: &[],
};

/// `--gsc`: Greedy Shard Caching.
pub const GSC: OptionSpec = OptionSpec {
    name: "gsc",
    kind: OptionKind::Flag,
    default: Default::Flag(true),
    help: "shards: keep loaded blocks between intervals while twice the average shard is free (Greedy Shard Caching); false writes back and drops them after every interval, as GraphChi does",
    engines: SHARDS,
    examples: &["false"],
};

/// `--deterministic`: one thread, updates in ID order.
pub const DETERMINISTIC: OptionSpec = OptionSpec {
    name: "deterministic",
    kind: OptionKind::Flag,
    default: Default::Flag(false),
    help: "shards: run every update on one thread in ID order (the default runs updates that share no edge in parallel, with the same results)",
    engines: SHARDS,
    examples: &["true"],
};

/// `--scratch`: where the shard engine's scratch copy of the edge values goes.
pub const SCRATCH: OptionSpec = OptionSpec {
    name: "scratch",
    kind: OptionKind::Text,
    default: Default::Absent,
    help: "shards: directory for the run's scratch copy of the edge values (default: the system's temporary directory)",
    engines: SHARDS,
    examples: &[],
};

/// The options of the out-of-core engines, in the order of `--help`.
pub const ENGINE_OPTIONS: &[&OptionSpec] = &[
    &IO,
    &BLOCK_SIZE,
    &MAX_GAP,
    &MAX_REQUEST,
    &SCHEDULER,
    &QUEUE_DEPTH,
    &IO_THREADS,
    &RETAIN_LISTS,
    &BASC,
    &BASC_FRACTION,
    &PAGE_SIZE,
    &PAGE_POLICY,
    &TRACK_UTILIZATION,
    &MRT,
    &VERTEX_STATE,
    &LAYOUT,
    &IFT,
    &IFT_SEQ,
    &INDEX_SUMMARY,
    &GSC,
    &DETERMINISTIC,
    &SCRATCH,
];

/// The options that say how the out-of-core engines read (what loading a static cache takes).
pub const READ_OPTIONS: &[&OptionSpec] = &[
    &IO,
    &BLOCK_SIZE,
    &MAX_GAP,
    &MAX_REQUEST,
    &SCHEDULER,
    &QUEUE_DEPTH,
    &IO_THREADS,
];

impl EngineKind {
    /// The options this engine honours, besides [`RUN_OPTIONS`].
    pub fn options(self) -> impl Iterator<Item = &'static OptionSpec> {
        ENGINE_OPTIONS.iter().copied().filter(move |o| o.engines.contains(self))
    }
}

/// The I/O settings of `params` with `compute_threads` workers, checked (a bad I/O setting is an
/// error on every engine, even where it would go unused).
pub fn io_config(params: &Params, compute_threads: usize) -> Result<IoConfig, EngineError> {
    let narrow = |n: u64| n.min(u64::from(u32::MAX)) as u32;
    let config = IoConfig {
        backend: params.chosen::<BackendKind>(&IO),
        block_size: narrow(params.value(&BLOCK_SIZE)),
        max_gap_blocks: narrow(params.value(&MAX_GAP)),
        max_request_bytes: narrow(params.value(&MAX_REQUEST)),
        scheduler: params.choice_value(&SCHEDULER),
        queue_depth: narrow(params.value(&QUEUE_DEPTH)),
        io_threads: params.value::<u64>(&IO_THREADS) as usize,
        compute_threads: compute_threads.max(1),
        ..IoConfig::default()
    };
    config.validate()?;
    Ok(config)
}

/// The budget of `params`, in bytes.
pub fn memory(params: &Params) -> u64 {
    params.value(&MEMORY)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_io_layers() {
        let c = io_config(&Params::new(), 3).unwrap();
        let d = IoConfig::default();
        assert_eq!(
            (
                c.backend,
                c.block_size,
                c.max_gap_blocks,
                c.max_request_bytes,
                c.scheduler
            ),
            (
                d.backend,
                d.block_size,
                d.max_gap_blocks,
                d.max_request_bytes,
                d.scheduler
            )
        );
        assert_eq!(
            (c.queue_depth, c.io_threads, c.compute_threads),
            (d.queue_depth, d.io_threads, 3)
        );
    }

    #[test]
    fn every_engine_option_is_honoured_by_an_out_of_core_engine() {
        for o in ENGINE_OPTIONS {
            let engines: Vec<EngineKind> = EngineKind::ALL.into_iter().filter(|e| o.engines.contains(*e)).collect();
            assert!(
                !engines.is_empty() && !engines.contains(&EngineKind::Memory),
                "{}",
                o.name
            );
            assert!(o.default_value().is_none_or(|v| o.check(&v).is_ok()), "{}", o.name);
        }
    }

    #[test]
    fn every_choice_parses_into_its_type() {
        use crate::options::parses_every_choice;
        assert!(parses_every_choice::<EngineChoice>(&ENGINE));
        assert!(parses_every_choice::<BackendKind>(&IO));
        assert!(parses_every_choice::<diskgraph_io::SchedulerKind>(&SCHEDULER));
        assert!(parses_every_choice::<crate::stream::VertexStateKind>(&VERTEX_STATE));
        assert!(parses_every_choice::<diskgraph_cache::Replacement>(&PAGE_POLICY));
        assert!(parses_every_choice::<crate::AdjacencyChoice>(&ADJACENCY));
        let names: Vec<&str> = match ENGINE.kind {
            OptionKind::Choice(c) => c.iter().map(|c| c.name).collect(),
            _ => unreachable!(),
        };
        assert_eq!(names, ["auto", "memory", "selective", "stream", "sync", "shards"]);
    }

    #[test]
    fn a_bad_io_setting_is_refused() {
        let p = Params::new().with(&BLOCK_SIZE, crate::options::Value::Size(1000));
        assert!(io_config(&p, 1).unwrap_err().to_string().contains("power of two"));
    }
}
