//! Graph orderings: `diskgraph reorder` relabels a graph into a new graph directory whose
//! internal ID `i` is the `i`-th vertex of an ordering (Lee et al., ATC '19, §4; Wei et al.,
//! SIGMOD '16).
//!
//! | method | order | state |
//! | --- | --- | --- |
//! | `original` | ascending original ID (the identity on an imported graph) | O(V) |
//! | `random` | a permutation drawn from `--seed` (ChaCha8, Fisher–Yates) | O(V) |
//! | `degree` | descending in-degree, ties by input ID | O(V) |
//! | `pagerank` | descending PageRank (10 power iterations, alpha 0.85, unweighted), ties by input ID | O(V) |
//! | `norder` | Neighborhood Ordering: seeds by descending in-degree, each unplaced seed starts a BFS along out-edges bounded at depth 2 that takes consecutive IDs, neighbours by the same ranking | O(V), plus the out-lists when they fit in `--memory` |
//! | `gorder` | Gorder's greedy window ordering (window `--window`) | O(V + E), checked against `--memory` |
//!
//! "Input ID" is the vertex's internal ID in the input graph; in-degree is the out-degree of an
//! undirected graph. Every method but Gorder keeps O(V) vertex state (semi-external, as
//! design.md defines it) and reads the CSR: sequentially (`simple.rs`) or one adjacency list at a
//! time (`norder.rs`, which loads the out-lists instead when the budget holds them). Gorder loads
//! the whole graph (`gorder.rs`).
//!
//! Writing (`write.rs`) works for graphs larger than memory: every arc goes through the external
//! sorter as (new source, new target, weight) under `--memory`, and the sorted stream becomes the
//! new `out.*` (and, for directed graphs, `in.*` from the input's transpose). Lists come out
//! ascending; weights, self-loops and duplicate arcs are kept exactly. `ids.u64` maps each new
//! internal ID to its original ID; the manifest's `ordering` names the method. The output is
//! built in a temporary directory and published atomically, so a failure leaves nothing.

mod gorder;
mod lists;
mod norder;
mod simple;
mod write;

use diskgraph_io::spelling::option;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Result};
use diskgraph_format::{GraphBuilder, GraphDir, Manifest, OutputPaths};

use crate::Progress;

pub use gorder::{default_window, gorder_memory, GorderCheckpoint, GorderSuspended};

/// An ordering method of `diskgraph reorder`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// Ascending original ID: the identity on an imported graph, and undoes any reordering.
    Original,
    /// A seeded uniformly random permutation.
    Random,
    /// Descending in-degree, ties by input ID.
    Degree,
    /// Descending PageRank (10 iterations), ties by input ID.
    PageRank,
    /// Neighborhood Ordering (Norder, Lee et al. ATC '19): depth-2 BFS blocks from the unplaced
    /// vertex of highest in-degree.
    Norder,
    /// Gorder (Wei et al. SIGMOD '16): greedy sliding-window ordering; needs O(V + E) memory.
    Gorder,
}

impl Method {
    /// Every method, in the order the command's help lists them.
    pub const ALL: [Method; 6] = [
        Method::Norder,
        Method::Degree,
        Method::Random,
        Method::PageRank,
        Method::Gorder,
        Method::Original,
    ];

    /// The method's name: its `--method` value and the manifest's `ordering`.
    pub fn name(self) -> &'static str {
        match self {
            Method::Original => "original",
            Method::Random => "random",
            Method::Degree => "degree",
            Method::PageRank => "pagerank",
            Method::Norder => "norder",
            Method::Gorder => "gorder",
        }
    }
}

impl std::fmt::Display for Method {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Method {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        Method::ALL.into_iter().find(|m| m.name() == s).ok_or_else(|| {
            let names: Vec<&str> = Method::ALL.iter().map(|m| m.name()).collect();
            format!("unknown ordering method {s:?} (one of {})", names.join(", "))
        })
    }
}

/// The page size of Gorder's default window: the engine's usual page-cache page.
pub const DEFAULT_PAGE_BYTES: u64 = 4096;

/// How to reorder.
#[derive(Clone, Debug)]
pub struct ReorderOptions {
    /// The ordering.
    pub method: Method,
    /// Gorder's window (gorder only); `None` takes [`default_window`] for `page_bytes`.
    pub window: Option<u64>,
    /// Gorder only: the page size whose average number of lists is the default window; `None`
    /// means [`DEFAULT_PAGE_BYTES`].
    pub page_bytes: Option<u64>,
    /// Seed of the random permutation (random only); `None` means 0.
    pub seed: Option<u64>,
    /// Memory budget in bytes: the external sort's buffers, the limit Gorder must fit in, and
    /// whether Norder may load the out-lists.
    pub memory: u64,
    /// Replace an existing output.
    pub force: bool,
    /// Gorder only: save its state there and resume from it (see [`GorderCheckpoint`]).
    pub checkpoint: Option<GorderCheckpoint>,
}

impl Default for ReorderOptions {
    fn default() -> Self {
        ReorderOptions {
            method: Method::Norder,
            window: None,
            page_bytes: None,
            seed: None,
            memory: diskgraph_io::DEFAULT_MEMORY,
            force: false,
            checkpoint: None,
        }
    }
}

/// An ordering of a graph's vertices.
#[derive(Clone, Debug, PartialEq)]
pub struct VertexOrder {
    /// `order[i]` is the input vertex that becomes internal vertex `i`: a permutation of `0..V`.
    pub order: Vec<u32>,
    /// Gorder's window, when the method has one.
    pub window: Option<u64>,
    /// Bytes of vertex (and, for Gorder, edge) state the computation holds at its peak, as
    /// planned from the counts (read buffers aside).
    pub state_bytes: u64,
    /// Seconds earlier runs spent on this ordering (Gorder resumed from a checkpoint), else 0.
    pub earlier_seconds: f64,
}

/// What a reorder run did.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct ReorderSummary {
    /// The published graph directory.
    pub path: PathBuf,
    /// The method's name (the new manifest's `ordering`).
    pub method: String,
    /// Gorder's window.
    pub window: Option<u64>,
    /// Vertices.
    pub num_vertices: u64,
    /// Stored arcs (of `out.*`).
    pub num_arcs: u64,
    /// Whether the new graph has `ids.u64` (its internal IDs are not the original IDs).
    pub ids_remapped: bool,
    /// Seconds spent computing the ordering (the paper's Table 3 figure), over every run of a
    /// resumed Gorder.
    pub order_seconds: f64,
    /// Of those, the seconds of the runs before the last resume.
    pub order_seconds_before_resume: f64,
    /// Seconds spent relabelling, sorting and writing the new graph.
    pub write_seconds: f64,
    /// Bytes of state the ordering held at its peak.
    pub order_state_bytes: u64,
    /// Bytes of the external sorter's buffer (from `--memory`).
    pub sort_buffer_bytes: u64,
    /// Bytes of scratch sort runs written (zero when every sort fitted in memory).
    pub scratch_bytes: u64,
    /// Bytes of the new graph's data files on disk (padded).
    pub bytes_written: u64,
}

/// Computes `opts.method`'s ordering of `g` (see the module documentation).
pub fn compute_order(g: &GraphDir, opts: &ReorderOptions, progress: &mut dyn Progress) -> Result<VertexOrder> {
    check_options(opts)?;
    let n = g.num_vertices();
    let vertex_bytes = |per_vertex: u64| n.saturating_mul(per_vertex);
    let read = write::read_buffer(opts.memory);
    let simple = |order: Vec<u32>, per_vertex: u64| VertexOrder {
        order,
        window: None,
        state_bytes: vertex_bytes(per_vertex),
        earlier_seconds: 0.0,
    };
    let ordering = match opts.method {
        Method::Original => {
            let sorts_ids = !g.manifest().ids_ascending();
            simple(simple::original(g)?, if sorts_ids { 12 } else { 4 })
        }
        Method::Random => simple(simple::random(n, opts.seed.unwrap_or(0)), 4),
        Method::Degree => simple(simple::degree(g)?, 12),
        Method::PageRank => simple(simple::pagerank(g, read, progress)?, 20),
        Method::Norder => norder::norder(g, opts.memory, read, progress)?,
        Method::Gorder => {
            let page_bytes = opts.page_bytes.unwrap_or(DEFAULT_PAGE_BYTES);
            let window = opts.window.unwrap_or_else(|| default_window(g.manifest(), page_bytes));
            let done = gorder::gorder(g, window, opts.memory, opts.checkpoint.as_ref(), progress)?;
            VertexOrder {
                order: done.order,
                window: Some(window),
                state_bytes: gorder_memory(g.manifest()),
                earlier_seconds: done.earlier_seconds,
            }
        }
    };
    debug_assert_eq!(ordering.order.len() as u64, n);
    Ok(ordering)
}

/// `--window` is Gorder's and at least 1; `--page-size` is Gorder's, at least 4 bytes and not
/// with `--window`; `--seed` is the random ordering's; a checkpoint is Gorder's.
fn check_options(opts: &ReorderOptions) -> Result<()> {
    if opts.checkpoint.is_some() && opts.method != Method::Gorder {
        bail!("{} applies to gorder only, not {}", option("checkpoint"), opts.method);
    }
    if let Some(page_bytes) = opts.page_bytes {
        if opts.method != Method::Gorder {
            bail!("{} applies to gorder only, not {}", option("page_size"), opts.method);
        }
        if opts.window.is_some() {
            bail!(
                "{} sets the default window: give it or {}, not both",
                option("page_size"),
                option("window")
            );
        }
        if page_bytes < 4 {
            bail!("{} must be at least 4 bytes", option("page_size"));
        }
    }
    match (opts.method, opts.window) {
        (Method::Gorder, Some(0)) => bail!("{} must be at least 1", option("window")),
        (Method::Gorder, _) | (_, None) => {}
        (m, Some(_)) => bail!("{} applies to gorder only, not {m}", option("window")),
    }
    if opts.seed.is_some() && opts.method != Method::Random {
        bail!("{} applies to random only, not {}", option("seed"), opts.method);
    }
    Ok(())
}

/// Writes the graph at `input` relabelled by `opts.method` as a new graph directory at `output`.
pub fn reorder(
    input: &Path,
    output: &Path,
    opts: &ReorderOptions,
    progress: &mut dyn Progress,
) -> Result<ReorderSummary> {
    check_options(opts)?;
    let mut paths = OutputPaths::new();
    paths.reads("graph", input).writes("output", output)?;
    if let Some(checkpoint) = &opts.checkpoint {
        paths.writes("checkpoint", &checkpoint.path)?;
    }
    let g = GraphDir::open(input)?;
    let builder = GraphBuilder::create(output, opts.force)?;
    let start = Instant::now();
    let ordering = compute_order(&g, opts, progress)?;
    let order_seconds = start.elapsed().as_secs_f64() + ordering.earlier_seconds;
    let start = Instant::now();
    let written = write::write_relabelled(&g, &builder, &ordering.order, opts.memory, progress)?;
    let m = g.manifest();
    let mut source = m.source.clone();
    source.retain(|k, _| !k.starts_with("reorder"));
    source.extend(provenance(input, opts, ordering.window));
    let manifest = Manifest {
        ordering: opts.method.name().to_string(),
        ids_remapped: written.ids_remapped,
        files: written.files.into_iter().collect(),
        layouts: Vec::new(),
        tool: diskgraph_format::TOOL.to_string(),
        source,
        ..m.clone()
    };
    let bytes_written = manifest.bytes_on_disk();
    crate::progress::stop_point(progress)?;
    let path = builder.publish(&manifest)?;
    progress.finish();
    Ok(ReorderSummary {
        path,
        method: opts.method.name().to_string(),
        window: ordering.window,
        num_vertices: m.num_vertices,
        num_arcs: m.num_arcs,
        ids_remapped: manifest.ids_remapped,
        order_seconds,
        order_seconds_before_resume: ordering.earlier_seconds,
        write_seconds: start.elapsed().as_secs_f64(),
        order_state_bytes: ordering.state_bytes,
        sort_buffer_bytes: written.sort_buffer_bytes,
        scratch_bytes: written.scratch_bytes,
        bytes_written,
    })
}

/// The manifest `source` entries a reorder adds.
fn provenance(input: &Path, opts: &ReorderOptions, window: Option<u64>) -> BTreeMap<String, String> {
    let mut p = BTreeMap::new();
    p.insert("reordered_from".to_string(), input.display().to_string());
    p.insert("reorder_method".to_string(), opts.method.name().to_string());
    if let Some(w) = window {
        p.insert("reorder_window".to_string(), w.to_string());
    }
    if opts.method == Method::Random {
        p.insert("reorder_seed".to_string(), opts.seed.unwrap_or(0).to_string());
    }
    p
}
