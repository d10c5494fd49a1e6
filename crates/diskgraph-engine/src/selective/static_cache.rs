//! The BAsC static cache (Kim et al., ATC '19): the out-lists of a selection of vertices
//! (`diskgraph select`, a `basc-<name>/` layout of the graph, which keeps a copy of those lists
//! one after another), loaded once when the graph is opened into a fraction of the budget and
//! never evicted. Rounds consult it before anything else: its lists are delivered from memory
//! and left out of the reads. Loading time and the hit ratio (lists served / non-empty lists
//! asked for) are reported.
//!
//! A static cache never changes, so one load can serve many runs: [`LoadedStatic`] is the
//! loaded lists, handed out by [`SelectiveGraph::loaded_static`] and given back to later opens
//! of the same graph through [`BascOptions::preloaded`], which then read nothing to fill their
//! static cache (a session running several algorithms — the deployment the paper's figures,
//! which leave the loading out, assume).

use std::fmt;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::Instant;

use diskgraph_format::{BascSelection, Direction, FileEntry, FormatError, GraphDir, SharedSlice};

use super::retained::Generation;
use super::words::as_u32s;
use super::{EngineError, SelectiveGraph};

/// Which selection to load and how much of the budget it gets.
#[derive(Clone, Debug, PartialEq)]
pub struct BascOptions {
    /// The selection's layout name (`basc-<name>`).
    pub layout: String,
    /// Fraction of `--memory` given to the static cache (0 < F < 1).
    pub fraction: f64,
    /// The selection's lists as an earlier open of this graph loaded them: used instead of
    /// reading them again (they must be of `layout`, of a graph with the same out-lists, and fit
    /// the share).
    pub preloaded: Option<LoadedStatic>,
}

/// A static cache's lists once loaded; clones share them. See the [module docs](self).
#[derive(Clone)]
pub struct LoadedStatic {
    lists: Arc<Generation>,
    layout: String,
    /// The manifest entry (length, checksum) of the out-lists they were copied from, and the
    /// vertex count: a graph with both equal has the same lists.
    adjacency: FileEntry,
    num_vertices: usize,
    load_seconds: f64,
    load_bytes: u64,
}

impl LoadedStatic {
    /// The selection's layout name (`basc-<name>`).
    pub fn layout(&self) -> &str {
        &self.layout
    }

    /// Number of lists held.
    pub fn lists(&self) -> usize {
        self.lists.len()
    }

    /// Bytes held (lists and their index), what a static cache share must hold.
    pub fn bytes(&self) -> u64 {
        self.lists.bytes()
    }

    /// Seconds the load took.
    pub fn load_seconds(&self) -> f64 {
        self.load_seconds
    }

    /// Bytes the load read.
    pub fn load_bytes(&self) -> u64 {
        self.load_bytes
    }
}

impl fmt::Debug for LoadedStatic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LoadedStatic")
            .field("layout", &self.layout)
            .field("lists", &self.lists())
            .field("bytes", &self.bytes())
            .finish()
    }
}

impl PartialEq for LoadedStatic {
    /// The same load.
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.lists, &other.lists)
    }
}

/// The static cache of one open graph: shared lists plus this open's counters.
pub(crate) struct StaticCache {
    pub(crate) loaded: LoadedStatic,
    pub(crate) share: u64,
    /// Seconds this open spent loading (near zero when the lists were preloaded).
    pub(crate) load_seconds: f64,
    /// Bytes this open read to load it (part of the run's `bytes_read`; 0 when preloaded).
    pub(crate) load_bytes: u64,
    /// Whether the lists came preloaded.
    pub(crate) preloaded: bool,
    /// Non-empty lists asked for by rounds over the cached direction.
    pub(crate) requests: AtomicU64,
    /// Of those, served from the cache.
    pub(crate) hits: AtomicU64,
}

impl StaticCache {
    /// The cached lists.
    pub(crate) fn lists(&self) -> &Generation {
        &self.loaded.lists
    }

    /// Served / asked for (0 before any request).
    pub(crate) fn hit_ratio(&self) -> f64 {
        let r = self.requests.load(Relaxed);
        if r == 0 {
            0.0
        } else {
            self.hits.load(Relaxed) as f64 / r as f64
        }
    }
}

impl SelectiveGraph {
    /// Fills the static cache of `share` bytes with selection `opts.layout`: its preloaded
    /// lists when given (after checking they are this selection's, of this graph, and fit),
    /// else by reading them.
    pub(crate) fn load_static(&mut self, dir: &GraphDir, opts: &BascOptions, share: u64) -> Result<(), EngineError> {
        let started = Instant::now();
        let adjacency = out_lists_entry(dir)?;
        let (loaded, preloaded) = match &opts.preloaded {
            Some(p) => {
                self.check_preloaded(p, opts, &adjacency, share)?;
                (p.clone(), true)
            }
            None => (self.read_selection(dir, opts, adjacency, share)?, false),
        };
        self.static_cache = Some(StaticCache {
            load_seconds: started.elapsed().as_secs_f64(),
            load_bytes: if preloaded { 0 } else { loaded.load_bytes },
            loaded,
            share,
            preloaded,
            requests: AtomicU64::new(0),
            hits: AtomicU64::new(0),
        });
        Ok(())
    }

    /// The static cache's lists, to give to later opens of this graph
    /// ([`BascOptions::preloaded`]); `None` without a static cache.
    pub fn loaded_static(&self) -> Option<LoadedStatic> {
        self.static_cache.as_ref().map(|s| s.loaded.clone())
    }

    /// Refuses preloaded lists of another selection or graph, or larger than the share.
    fn check_preloaded(
        &self,
        p: &LoadedStatic,
        opts: &BascOptions,
        adjacency: &FileEntry,
        share: u64,
    ) -> Result<(), EngineError> {
        let mismatch = |reason: String| EngineError::PreloadedMismatch {
            layout: p.layout.clone(),
            reason,
        };
        if p.layout != opts.layout {
            return Err(mismatch(format!("this run asks for selection {}", opts.layout)));
        }
        if p.num_vertices != self.core.vertices.len() || p.adjacency != *adjacency {
            return Err(mismatch(
                "it was loaded from a graph whose out-lists differ from this one's".into(),
            ));
        }
        self.check_share(opts, share, "the loaded selection", p.lists(), p.bytes())
    }

    /// Refuses a static cache of `lists` lists in `needed` bytes (`what`: which selection) that
    /// does not fit `share`.
    fn check_share(
        &self,
        opts: &BascOptions,
        share: u64,
        what: &str,
        lists: usize,
        needed: u64,
    ) -> Result<(), EngineError> {
        if needed <= share {
            return Ok(());
        }
        // The share is this fraction of the budget: the budget that makes it hold `needed`.
        let minimum = ((needed as f64 / opts.fraction).ceil() as u64).max(self.min_budget());
        Err(EngineError::budget(
            self.core.budget,
            format!(
                "the static cache share ({share} bytes, {}) to hold {what} {} ({lists} lists, {needed} bytes)",
                diskgraph_io::spelling::setting("basc_fraction", opts.fraction),
                opts.layout
            ),
            minimum,
        ))
    }

    /// Reads selection `opts.layout`'s lists from its `lists.u32` (one round of large sequential
    /// reads) straight into place. Errors when the selection does not fit the share, or when
    /// its lists do not match the graph (length, or a target that is no vertex).
    fn read_selection(
        &self,
        dir: &GraphDir,
        opts: &BascOptions,
        adjacency: FileEntry,
        share: u64,
    ) -> Result<LoadedStatic, EngineError> {
        let started = Instant::now();
        let selection = BascSelection::open(dir, &opts.layout)?;
        let lists_path = selection.lists_path();
        let corrupt = |reason: String| {
            EngineError::Format(FormatError::Content {
                path: lists_path.clone(),
                reason,
            })
        };
        let vertices = selection.vertices();
        let offsets = self.offsets(Direction::Out);
        let mut starts = Vec::with_capacity(vertices.len() + 1);
        starts.push(0u64);
        for &v in vertices {
            let d = offsets.degree(v as usize);
            starts.push(starts.last().expect("started") + d);
        }
        let edges = *starts.last().expect("started");
        if edges != selection.meta().edges {
            return Err(corrupt(format!(
                "{} edges, the selected vertices' lists hold {edges}",
                selection.meta().edges
            )));
        }
        let needed = Generation::bytes_for(self.core.vertices.len(), vertices.len(), edges);
        self.check_share(opts, share, "selection", vertices.len(), needed)?;
        // The index first: a selection it cannot address is refused before anything is read.
        let mut lists = Generation::from_parts(
            self.physical(Direction::Out),
            self.core.vertices.len(),
            vertices,
            &starts,
            vec![0; edges as usize],
        )
        .ok_or_else(|| EngineError::ListsTooLong {
            layout: opts.layout.clone(),
        })?;
        drop(starts);
        let read_before = self.io.stats().bytes_read;
        let bytes = edges * 4;
        let highest = AtomicU32::new(0);
        let file = self.io.open(&[lists_path.as_path()])?;
        let shared = SharedSlice::new(lists.edges_mut());
        self.io.read_round(&file, &mut std::iter::once((0, bytes)), &|chunk| {
            let end = chunk.end().min(bytes);
            if chunk.offset >= end {
                return; // the file's padding
            }
            let targets = as_u32s(&chunk.data[0][..(end - chunk.offset) as usize]);
            highest.fetch_max(targets.iter().copied().max().unwrap_or(0), Relaxed);
            // SAFETY: a round of one range delivers each of its bytes once (with either
            // scheduler), so chunks write disjoint parts of the edge array.
            unsafe { shared.write(chunk.offset as usize / 4, &targets) };
        })?;
        let highest = highest.into_inner();
        if bytes > 0 && u64::from(highest) >= self.core.vertices.len() as u64 {
            return Err(corrupt(format!(
                "target {highest} out of range (V = {})",
                self.core.vertices.len()
            )));
        }
        Ok(LoadedStatic {
            lists: Arc::new(lists),
            layout: opts.layout.clone(),
            adjacency,
            num_vertices: self.core.vertices.len(),
            load_seconds: started.elapsed().as_secs_f64(),
            load_bytes: self.io.stats().bytes_read - read_before,
        })
    }

    /// The static cache, when it holds lists of direction `d`.
    pub(crate) fn static_lists(&self, d: Direction) -> Option<&StaticCache> {
        self.static_cache.as_ref().filter(|s| s.lists().dir == self.physical(d))
    }

    /// Whether `v`'s list of direction `d` is in the static cache.
    pub(crate) fn is_static(&self, d: Direction, v: u32) -> bool {
        self.static_lists(d)
            .is_some_and(|s| super::frontier::bit(s.lists().held.bits(), v))
    }
}

/// The manifest entry of the graph's out-lists, which a static cache copies (for a
/// compressed-only graph, the `out.adj` its lists decode to: their length and checksum).
fn out_lists_entry(dir: &GraphDir) -> Result<FileEntry, EngineError> {
    let (_, adj, _) = dir.files_of(Direction::Out);
    let m = dir.manifest();
    let decoded = m.lists_tie().map(|tie| FileEntry {
        len: m.num_arcs * 4,
        xxh3: tie.to_string(),
    });
    m.files.get(adj).cloned().or(decoded).ok_or_else(|| {
        EngineError::Format(FormatError::Content {
            path: dir.file_path("manifest.json"),
            reason: format!("no entry for {adj}"),
        })
    })
}
