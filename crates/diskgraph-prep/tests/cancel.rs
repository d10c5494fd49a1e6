//! A stop request honoured at every kind of cancellation point: each operation of the crate —
//! import, grid partition (built-in and keyed orders, compressed), shards, split, reorder
//! (norder, pagerank, gorder), select, export — is stopped at its first cancellation point, at
//! one in the middle and at its last (the one before it publishes), by a [`Progress`] that asks
//! to stop from its k-th poll on. Each time it ends with [`Interrupted`], publishes nothing,
//! leaves no temporary, and the graph is as it was and verifies.

use std::cell::Cell;
use std::path::Path;

use diskgraph_format::{verify, Codec, GraphDir};
use diskgraph_prep::export::{export, ExportFormat};
use diskgraph_prep::generate::{generator, GeneratorSpec};
use diskgraph_prep::select::{select_graph, SelectMethod, SelectOptions};
use diskgraph_prep::{
    import, partition, partition_shards, partition_with_key, reorder, split, ImportOptions, Interrupted, Method,
    NoProgress, PartitionOptions, Progress, ReorderOptions, ShardOptions, SortOrder, SplitOptions,
};
use diskgraph_testkit::listing;

/// Shows nothing, counts the polls for a stop, and asks to stop from poll `stop_at` on.
struct StopAt {
    stop_at: usize,
    polls: Cell<usize>,
}

impl StopAt {
    fn new(stop_at: usize) -> StopAt {
        StopAt {
            stop_at,
            polls: Cell::new(0),
        }
    }
}

impl Progress for StopAt {
    fn phase(&mut self, _: &str, _: Option<u64>) {}
    fn update(&mut self, _: u64) {}
    fn finish(&mut self) {}
    fn interrupted(&self) -> bool {
        let poll = self.polls.get();
        self.polls.set(poll + 1);
        poll >= self.stop_at
    }
}

/// A random weighted directed graph of 1.25M edges on 2^15 vertices (the importer's and the
/// layouts' tickers fire in it), imported into `path` with `progress`.
fn import_into(path: &Path, progress: &mut dyn Progress) -> anyhow::Result<()> {
    let spec = GeneratorSpec::ErdosRenyi {
        vertices: 1 << 15,
        edges: 5 << 18,
        seed: 47,
        directed: true,
        weighted: true,
    };
    let mut source = generator(&spec).map_err(anyhow::Error::msg)?;
    let opts = ImportOptions {
        memory: 4 << 20,
        ..ImportOptions::default()
    };
    import(source.as_mut(), path, &opts, progress).map(|_| ())
}

/// Copies the directory `from` (files only) to `to`.
fn copy_graph(from: &Path, to: &Path) {
    std::fs::create_dir(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
    }
}

/// Runs `op` (given a graph directory, an output directory and a progress) stopped at its
/// first, middle and last cancellation point, counted by a whole run on a copy of the graph:
/// each stopped run must fail with [`Interrupted`] and leave the graph and the output
/// directory as they were.
fn stopped_everywhere(
    what: &str,
    graph: &Path,
    out: &Path,
    op: impl Fn(&Path, &Path, &mut dyn Progress) -> anyhow::Result<()>,
) {
    let whole = tempfile::tempdir().unwrap();
    let (copy, copy_out) = (whole.path().join("g"), whole.path().join("out"));
    copy_graph(graph, &copy);
    std::fs::create_dir(&copy_out).unwrap();
    let mut counting = StopAt::new(usize::MAX);
    op(&copy, &copy_out, &mut counting).unwrap_or_else(|e| panic!("{what}: {e:#}"));
    let points = counting.polls.get();
    assert!(points > 0, "{what}: no cancellation point");
    let before = listing(graph);
    for stop_at in [0, points / 2, points - 1] {
        let e = op(graph, out, &mut StopAt::new(stop_at))
            .map(|()| panic!("{what}: stopped at point {stop_at} of {points}, it went on to the end"))
            .unwrap_err();
        assert!(
            e.chain().any(|c| c.is::<Interrupted>()),
            "{what}, stopped at point {stop_at} of {points}: {e:#}"
        );
        assert_eq!(
            listing(graph),
            before,
            "{what}, stopped at point {stop_at}: the graph changed"
        );
        assert_eq!(
            listing(out),
            Vec::<String>::new(),
            "{what}, stopped at point {stop_at}: output left"
        );
    }
}

#[test]
fn every_operation_stopped_at_any_kind_of_point_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (g, out) = (dir.path().join("g"), dir.path().join("out"));
    std::fs::create_dir(&out).unwrap();
    import_into(&g, &mut NoProgress).unwrap();
    let grid = |p: u32| PartitionOptions {
        grid: Some(p),
        memory: 1 << 20,
        ..PartitionOptions::default()
    };
    let by_method = |method: Method| ReorderOptions {
        method,
        memory: 4 << 20,
        ..ReorderOptions::default()
    };
    type Op = Box<dyn Fn(&Path, &Path, &mut dyn Progress) -> anyhow::Result<()>>;
    let ops: Vec<(&str, Op)> = vec![
        ("import", Box::new(|_, out, p| import_into(&out.join("g"), p))),
        (
            "partition",
            Box::new(move |g, _, p| partition(g, SortOrder::Grid, &grid(64), p).map(|_| ())),
        ),
        (
            "partition --sort destination --compress",
            Box::new(move |g, _, p| {
                let opts = PartitionOptions {
                    compress: Some(Codec::Vbyte),
                    ..grid(64)
                };
                partition(g, SortOrder::Destination, &opts, p).map(|_| ())
            }),
        ),
        (
            "partition by a key",
            Box::new(move |g, _, p| partition_with_key(g, "w", |_, _, w| f64::from(w), &grid(16), p).map(|_| ())),
        ),
        (
            "partition --shards --compress",
            Box::new(|g, _, p| {
                let opts = ShardOptions {
                    shards: Some(64),
                    block_bytes: Some(4096),
                    compress: Some(Codec::Vbyte),
                    ..ShardOptions::default()
                };
                partition_shards(g, &opts, p).map(|_| ())
            }),
        ),
        (
            "split",
            Box::new(|g, out, p| split(g, &out.join("s"), &SplitOptions { parts: 4, force: false }, p).map(|_| ())),
        ),
        (
            "reorder norder",
            Box::new(move |g, out, p| reorder(g, &out.join("r"), &by_method(Method::Norder), p).map(|_| ())),
        ),
        (
            "reorder pagerank",
            Box::new(move |g, out, p| reorder(g, &out.join("r"), &by_method(Method::PageRank), p).map(|_| ())),
        ),
        (
            "reorder gorder",
            Box::new(|g, out, p| {
                let opts = ReorderOptions {
                    method: Method::Gorder,
                    ..ReorderOptions::default()
                };
                reorder(g, &out.join("r"), &opts, p).map(|_| ())
            }),
        ),
        (
            "select gvs",
            Box::new(|g, _, p| {
                let opts = SelectOptions {
                    method: SelectMethod::Gvs { rounds: 8 },
                    budget_bytes: 1 << 20,
                    page_bytes: 4096,
                    name: None,
                    force: false,
                };
                select_graph(g, &opts, p).map(|_| ())
            }),
        ),
        (
            "export el",
            Box::new(|g, out, p| {
                export(&GraphDir::open(g)?, &out.join("e.el"), ExportFormat::El, false, p).map(|_| ())
            }),
        ),
        (
            "export parquet",
            Box::new(|g, out, p| {
                export(
                    &GraphDir::open(g)?,
                    &out.join("e.parquet"),
                    ExportFormat::Parquet,
                    false,
                    p,
                )
                .map(|_| ())
            }),
        ),
    ];
    for (what, op) in ops {
        stopped_everywhere(what, &g, &out, op);
    }
    verify(&g).unwrap();
}
