//! The BAsC static cache (Kim et al., ATC '19): the out-lists of a selection of vertices
//! (`diskgraph select`, a `basc-<name>/` layout of the graph, which keeps a copy of those lists
//! one after another), loaded once when the graph is opened into a fraction of the budget and
//! never evicted. Rounds consult it before anything else: its lists are delivered from memory
//! and left out of the reads. Loading time and the hit ratio (lists served / non-empty lists
//! asked for) are reported.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};
use std::time::Instant;

use diskgraph_format::{BascSelection, Direction, FormatError, GraphDir};

use super::io_iterator::{as_u32s, SharedSlice};
use super::retained::Generation;
use super::{EngineError, SelectiveGraph};

/// Which selection to load and how much of the budget it gets.
#[derive(Clone, Debug, PartialEq)]
pub struct BascOptions {
    /// The selection's layout name (`basc-<name>`).
    pub layout: String,
    /// Fraction of `--memory` given to the static cache (0 < F < 1).
    pub fraction: f64,
}

/// A loaded static cache.
pub(crate) struct StaticCache {
    pub(crate) lists: Generation,
    pub(crate) layout: String,
    pub(crate) share: u64,
    pub(crate) load_seconds: f64,
    /// Bytes read to load it (part of the run's `bytes_read`).
    pub(crate) load_bytes: u64,
    /// Non-empty lists asked for by rounds over the cached direction.
    pub(crate) requests: AtomicU64,
    /// Of those, served from the cache.
    pub(crate) hits: AtomicU64,
}

impl StaticCache {
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
    /// Loads selection `opts.layout` into a static cache of `share` bytes: the selected
    /// vertices' lists are read from the selection's `lists.u32` (one round of large sequential
    /// reads) straight into place. Errors when the selection does not fit the share, or when
    /// its lists do not match the graph (length, or a target that is no vertex).
    pub(crate) fn load_static(&mut self, dir: &GraphDir, opts: &BascOptions, share: u64) -> Result<(), EngineError> {
        let started = Instant::now();
        let selection = BascSelection::open(dir, &opts.layout)?;
        let lists_path = selection.lists_path(dir);
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
            let d = offsets[v as usize + 1] - offsets[v as usize];
            starts.push(starts.last().expect("started") + d);
        }
        let edges = *starts.last().expect("started");
        if edges != selection.meta().edges {
            return Err(corrupt(format!(
                "{} edges, the selected vertices' lists hold {edges}",
                selection.meta().edges
            )));
        }
        let needed = Generation::bytes_for(self.n, vertices.len(), edges);
        if needed > share {
            return Err(EngineError::BudgetTooSmall {
                budget: self.budget,
                what: format!(
                    "the static cache share ({share} bytes, --basc-fraction {}) for selection {} ({} lists)",
                    opts.fraction,
                    opts.layout,
                    vertices.len()
                ),
                needed,
            });
        }
        // The index first: a selection it cannot address is refused before anything is read.
        let mut lists = Generation::from_parts(
            self.physical(Direction::Out),
            self.n,
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
        if bytes > 0 && u64::from(highest) >= self.n as u64 {
            return Err(corrupt(format!("target {highest} out of range (V = {})", self.n)));
        }
        self.static_cache = Some(StaticCache {
            lists,
            layout: opts.layout.clone(),
            share,
            load_seconds: started.elapsed().as_secs_f64(),
            load_bytes: self.io.stats().bytes_read - read_before,
            requests: AtomicU64::new(0),
            hits: AtomicU64::new(0),
        });
        Ok(())
    }

    /// The static cache, when it holds lists of direction `d`.
    pub(crate) fn static_lists(&self, d: Direction) -> Option<&StaticCache> {
        self.static_cache.as_ref().filter(|s| s.lists.dir == self.physical(d))
    }

    /// Whether `v`'s list of direction `d` is in the static cache.
    pub(crate) fn is_static(&self, d: Direction, v: u32) -> bool {
        self.static_lists(d)
            .is_some_and(|s| super::frontier::bit(s.lists.held.bits(), v))
    }
}
