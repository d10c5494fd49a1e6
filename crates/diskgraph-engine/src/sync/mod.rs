//! The sync engine (PrefEdge, Nilakant et al., SYSTOR '14): ordinary single-threaded code asks
//! for `neighbours(v)` and gets the list from the engine's page cache, blocking on a miss,
//! while a prefetcher thread reads ahead of it along the iterators it registered.
//!
//! - **Lists** ([`ListReader`]): a list's pages are copied out of the cache ([`cache`]); pages
//!   loading are waited for; absent ones are read by the algorithm's thread itself, blocking —
//!   with `--ift 0` (no prefetcher) that is every miss: the baseline.
//! - **Iterators** ([`Sequential`], [`AheadQueue`], [`AheadHeap`]): the algorithm's loops run
//!   over them, and their state is what the prefetcher reads ahead (§3.4).
//! - **Prefetcher** (`prefetcher`): keeps `--ift` random reads in flight for the queue and
//!   heap iterators and `--ift-seq` sequential ones for sequential iterators, the innermost
//!   iterator first and iterators of one level sharing equally (§3.5). Prefetched pages stay
//!   until used or until the budget forces them out.
//! - **Backends**: the engine's own cache, read through io_uring with O_DIRECT (the default) or
//!   `pread`; or `--io mmap`, the paper's own scheme: the files are mapped, lists are copied out
//!   of the maps, and the prefetcher issues `madvise(MADV_WILLNEED)` — the kernel's page cache
//!   then holds the pages, and the budget is the cgroup's to enforce, not the engine's.
//! - **Row index**: held in memory (O(V), like every engine's vertex state), or with
//!   `--index-summary` kept on disk with every [`SUMMARY_STRIDE`]th offset in memory (§5): a
//!   list's range is read from its index page, which the prefetcher fetches alongside an
//!   interpolated range of the adjacency file.
//!
//! - **Compressed lists** (`--adjacency`, DESIGN.md "Compressed adjacency: the sync engine"):
//!   with a compressed layout the cache and the prefetcher work over the byte ranges of
//!   `out.cadj`/`in.cadj` found by the byte-offset index (`out.cidx`, whole in memory or
//!   summarised like `out.idx`), and a list is decoded on the algorithm's thread when it asks
//!   for it. Degrees and weights keep the plain arc offsets (`out.idx`, `out.wgt`).
//!
//! The budget (`--memory`) is the cache's frames; it never holds more.

pub mod ahead;
mod cache;
mod prefetcher;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::thread::JoinHandle;
use std::time::Instant;

use diskgraph_format::{CompressedLayout, Direction, FormatError, GraphDir};
use diskgraph_io::{BackendKind, PageAccess, PagedFile, PAGE_BYTES};
use serde_json::json;

pub use ahead::{AheadHeap, AheadQueue, Reads, Sequential};

use crate::contract::{Engine, EngineCore, EngineKind};
use crate::engine_options::{ADJACENCY, IFT, IFT_SEQ, INDEX_SUMMARY};
use crate::index::{vertices_of, GraphIndex};
use crate::options::Params;
use crate::request::{directions_and_weights, reads_compressed, Held, Needs, OpenEngine, OpenRequest};
use crate::AdjacencyChoice;
use crate::{Cancel, EngineError, Recorder, RunStats, Snapshot};
use ahead::Registered;
use cache::{PageCache, FRAME_BYTES};

/// Vertices per offset kept in memory under `--index-summary`.
pub const SUMMARY_STRIDE: usize = 64;

/// Fewest frames the cache works with.
const MIN_FRAMES: u64 = 16;

/// How to open a graph on the sync engine.
#[derive(Clone, Debug)]
pub struct SyncOptions {
    /// The budget: the cache's frames.
    pub memory: u64,
    /// Random reads kept in flight ahead (0: no random prefetching).
    pub ift: usize,
    /// Sequential reads kept in flight ahead (0: no sequential prefetching).
    pub ift_seq: usize,
    /// Keep the row index on disk and a summary in memory.
    pub index_summary: bool,
    /// The backend: uring (None: uring where the kernel allows it), pread or mmap.
    pub io: Option<BackendKind>,
    /// Open the in-edges of a directed graph.
    pub need_in: bool,
    /// Open the weights.
    pub need_weights: bool,
    /// The graph's index loaded earlier.
    pub index: Option<GraphIndex>,
    /// Which copy of the lists to read (`--adjacency`).
    pub adjacency: AdjacencyChoice,
    /// The run's stop request: the opening's loads poll it between pieces of their reads
    /// (ending with [`EngineError::Cancelled`]), and the engine's [`Recorder`] carries it.
    pub cancel: Option<Cancel>,
}

impl OpenEngine for SyncGraph {
    const KIND: EngineKind = EngineKind::Sync;
    type Options = SyncOptions;

    fn options(_: &GraphDir, req: &OpenRequest) -> Result<SyncOptions, EngineError> {
        let params = req.params;
        Ok(SyncOptions {
            memory: req.memory,
            ift: params.value::<u64>(&IFT) as usize,
            ift_seq: params.value::<u64>(&IFT_SEQ) as usize,
            index_summary: params.flag(&INDEX_SUMMARY),
            io: req.io.backend,
            need_in: req.needs.in_edges,
            need_weights: req.needs.weights,
            index: req.index.clone(),
            adjacency: params.choice_value(&ADJACENCY),
            cancel: req.cancel.clone(),
        })
    }

    fn least_budget(graph: &GraphDir, opts: &SyncOptions) -> Result<u64, EngineError> {
        Ok(SyncGraph::minimum_budget(graph, opts))
    }

    fn open_with(graph: &GraphDir, opts: &SyncOptions) -> Result<Self, EngineError> {
        SyncGraph::open(graph, opts)
    }

    /// The offsets index, 8 bytes a vertex a direction (twice for compressed lists), or every
    /// [`SUMMARY_STRIDE`]th with `--index-summary`; and a frontier bitmap.
    fn held(graph: Option<&GraphDir>, params: &Params, needs: Needs) -> Held {
        let (dirs, _) = directions_and_weights(graph, needs);
        let indexes = if reads_compressed(graph, params, needs) {
            2.0
        } else {
            1.0
        };
        let index = match params.flag(&INDEX_SUMMARY) {
            true => 8.0 / SUMMARY_STRIDE as f64,
            false => 8.0,
        };
        Held::by_vertex(index * dirs * indexes + 0.25)
    }
}

/// How a direction's entries (arc offsets, or a compressed layout's byte offsets) are found.
#[derive(Clone)]
enum Locator {
    /// The whole row index in memory.
    Offsets(Arc<Vec<u64>>),
    /// Every [`SUMMARY_STRIDE`]th offset (and the last); the index file is read through the
    /// cache.
    Summary { anchors: Vec<u64>, idx: usize },
}

/// Where a direction's lists are read from (positions in [`Shared::files`]).
#[derive(Clone)]
enum Lists {
    /// The plain `out.adj`: 4 bytes an arc, found by the side's arc offsets.
    Plain { adj: usize },
    /// A compressed layout's `out.cadj`, found by its byte offsets (`out.cidx`).
    Compressed { cadj: usize, locator: Locator },
}

/// One stored direction: its files (positions in [`Shared::files`]) and its indexes.
#[derive(Clone)]
struct Side {
    /// The arc offsets (`out.idx`): degrees, the weights and the plain lists.
    arcs: Locator,
    lists: Lists,
    wgt: Option<usize>,
}

impl Side {
    /// Whether reading a list (with its weights when `weights`) needs its arc offsets: for the
    /// plain lists and for the weights; a compressed list alone does not.
    fn needs_arcs(&self, weights: bool) -> bool {
        matches!(self.lists, Lists::Plain { .. }) || (weights && self.wgt.is_some())
    }

    /// The anchors around `v` under a summary: offsets of the sampled vertices before and after.
    fn anchors(anchors: &[u64], v: u32) -> (u64, u64) {
        let i = v as usize / SUMMARY_STRIDE;
        (anchors[i], anchors[(i + 1).min(anchors.len() - 1)])
    }
}

/// What the algorithm's thread and the prefetcher share.
pub(crate) struct Shared {
    files: Vec<Arc<PagedFile>>,
    /// `[out, in]`.
    sides: [Option<Side>; 2],
    /// The engine's cache (`None` under mmap).
    cache: Option<PageCache>,
    iterators: Mutex<Vec<Arc<Registered>>>,
    ift: usize,
    ift_seq: usize,
    stop: AtomicBool,
    /// The prefetcher is parked waiting for work.
    sleeping: AtomicBool,
    prefetcher: OnceLock<std::thread::Thread>,
    /// The prefetcher's counters: bytes read, requests, seconds reading.
    prefetch_bytes: AtomicU64,
    prefetch_requests: AtomicU64,
    prefetch_busy_nanos: AtomicU64,
}

impl Shared {
    fn side(&self, d: Direction) -> Option<&Side> {
        self.sides[d as usize].as_ref()
    }

    pub(crate) fn register(&self, it: Arc<Registered>) {
        let mut its = self.iterators.lock().unwrap_or_else(PoisonError::into_inner);
        its.push(it);
        // Innermost first.
        its.sort_by_key(|i| std::cmp::Reverse(i.reads.level));
        drop(its);
        self.wake();
    }

    pub(crate) fn unregister(&self, it: &Arc<Registered>) {
        self.iterators
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .retain(|i| !Arc::ptr_eq(i, it));
    }

    /// Wakes the prefetcher if it waits for work.
    fn wake(&self) {
        if self.sleeping.load(Relaxed) {
            if let Some(t) = self.prefetcher.get() {
                t.unpark();
            }
        }
    }

    /// Appends bytes `range` of file `file` to `out`.
    fn read_bytes(&self, file: usize, range: std::ops::Range<u64>, out: &mut Vec<u8>) -> Result<(), EngineError> {
        let f = &self.files[file];
        match &self.cache {
            Some(cache) => cache.copy_out(file, range, out, |first, frames| f.read(first, frames))?,
            None => {
                out.extend_from_slice(&f.mapped().unwrap_or(&[])[range.start as usize..range.end as usize]);
                // A page that could not be read was copied as zeros: fail instead.
                f.check_mapped()?;
            }
        }
        Ok(())
    }
}

/// A graph open on the sync engine (see the module doc).
pub struct SyncGraph {
    pub(crate) shared: Arc<Shared>,
    prefetcher: Mutex<Option<JoinHandle<()>>>,
    /// The counts, IDs and budget; the log, a step per outermost pass.
    pub(crate) core: EngineCore,
    max_degree_vertex: u32,
    backend: BackendKind,
    index_summary: bool,
    /// The compressed layout the lists are read from (`None`: the plain lists).
    compressed: Option<CompressedLayout>,
    /// Bytes of the row index held in memory (whole or summary).
    index_bytes: u64,
    /// Bytes of the cache's page tables.
    table_bytes: u64,
    /// Edges handed out, and bytes copied out of the cache.
    edges: AtomicU64,
    bytes_used: AtomicU64,
    /// Time the algorithm's thread spent getting lists under mmap (page faults included).
    mapped_nanos: AtomicU64,
    /// `/proc/self/io` `read_bytes` at open (mmap: what the kernel read for the run).
    proc_read_bytes: u64,
}

impl SyncGraph {
    /// Opens `g` as `opts` says.
    ///
    /// Errors: a damaged graph, a budget under 16 frames (64 KiB) plus the page tables, an I/O
    /// failure.
    pub fn open(g: &GraphDir, opts: &SyncOptions) -> Result<SyncGraph, EngineError> {
        let m = g.manifest();
        let cancel = opts.cancel.clone().unwrap_or_default();
        let stop = cancel.flag();
        cancel.check()?;
        let vertices = vertices_of(g, opts.index.as_ref(), stop)?;
        let compressed = opts.adjacency.open(g)?;
        let n = m.num_vertices as usize;
        let directed = m.directed;
        let weighted = opts.need_weights && m.weighted;
        let mmap = opts.io == Some(BackendKind::Mmap);
        let access = if mmap { PageAccess::Mapped } else { PageAccess::Direct };
        let mut files: Vec<Arc<PagedFile>> = Vec::new();
        let mut open_file = |path: &std::path::Path, len: u64| -> Result<usize, EngineError> {
            files.push(Arc::new(PagedFile::open(path, len, access)?));
            Ok(files.len() - 1)
        };
        let mut sides: [Option<Side>; 2] = [None, None];
        let mut max_degree_vertex = 0;
        let mut index_bytes = 0;
        let dirs: &[Direction] = if directed && opts.need_in {
            &[Direction::Out, Direction::In]
        } else {
            &[Direction::Out]
        };
        for &d in dirs {
            let (idx_name, adj_name, wgt_name) = g.files_of(d);
            let lists = match &compressed {
                None => Lists::Plain {
                    adj: open_file(&g.file_path(adj_name), 4 * m.num_arcs)?,
                },
                Some(layout) => {
                    let (cidx_path, cadj_path) = layout.files_of(d);
                    let cadj = open_file(&cadj_path, layout.lists_len(d))?;
                    let bytes = layout.load_offsets_stoppable(d, stop)?;
                    let locator = if opts.index_summary {
                        let anchors = summary(&bytes);
                        index_bytes += 8 * anchors.len() as u64;
                        let idx = open_file(&cidx_path, 8 * (n as u64 + 1))?;
                        Locator::Summary { anchors, idx }
                    } else {
                        index_bytes += 8 * bytes.len() as u64;
                        Locator::Offsets(Arc::new(bytes))
                    };
                    Lists::Compressed { cadj, locator }
                }
            };
            let wgt = if weighted {
                Some(open_file(&g.file_path(wgt_name), 4 * m.num_arcs)?)
            } else {
                None
            };
            let loaded = opts.index.as_ref().and_then(|i| i.offsets().get(d).cloned());
            let offsets = match loaded {
                Some(o) => o,
                None => Arc::new(g.load_offsets_stoppable(d, stop)?),
            };
            if d == Direction::Out {
                max_degree_vertex = vertices.max_degree(&offsets);
            }
            let arcs = if opts.index_summary {
                let anchors = summary(&offsets);
                index_bytes += 8 * anchors.len() as u64;
                let idx = open_file(&g.file_path(idx_name), 8 * (n as u64 + 1))?;
                Locator::Summary { anchors, idx }
            } else {
                index_bytes += 8 * offsets.len() as u64;
                Locator::Offsets(offsets)
            };
            sides[d as usize] = Some(Side { arcs, lists, wgt });
        }
        if !directed {
            // An undirected graph's in-lists are its out-lists.
            sides[Direction::In as usize] = sides[Direction::Out as usize].clone();
        }
        let pages: Vec<u64> = files.iter().map(|f| f.pages()).collect();
        let tables: u64 = pages.iter().map(|p| 4 * p).sum();
        let cache = if mmap {
            None
        } else {
            let minimum = MIN_FRAMES * FRAME_BYTES + tables;
            if opts.memory < minimum {
                return Err(EngineError::budget(
                    opts.memory,
                    format!("the sync engine's cache ({MIN_FRAMES} pages and the page tables)"),
                    minimum,
                ));
            }
            Some(PageCache::new(((opts.memory - tables) / FRAME_BYTES) as usize, &pages))
        };
        let backend = match (mmap, opts.io) {
            (true, _) => BackendKind::Mmap,
            (false, Some(BackendKind::Pread)) => BackendKind::Pread,
            _ => BackendKind::Uring,
        };
        let shared = Arc::new(Shared {
            files,
            sides,
            cache,
            iterators: Mutex::new(Vec::new()),
            ift: opts.ift,
            ift_seq: opts.ift_seq,
            stop: AtomicBool::new(false),
            sleeping: AtomicBool::new(false),
            prefetcher: OnceLock::new(),
            prefetch_bytes: AtomicU64::new(0),
            prefetch_requests: AtomicU64::new(0),
            prefetch_busy_nanos: AtomicU64::new(0),
        });
        let handle = if opts.ift + opts.ift_seq > 0 {
            let s = Arc::clone(&shared);
            let uring = backend == BackendKind::Uring;
            let h = std::thread::Builder::new()
                .name("diskgraph-prefetch".into())
                .spawn(move || prefetcher::run(&s, uring))
                .map_err(|e| EngineError::Setting(format!("cannot start the prefetcher thread: {e}")))?;
            let _ = shared.prefetcher.set(h.thread().clone());
            Some(h)
        } else {
            None
        };
        Ok(SyncGraph {
            shared,
            prefetcher: Mutex::new(handle),
            core: EngineCore {
                kind: <Self as OpenEngine>::KIND,
                vertices,
                num_arcs: m.num_arcs,
                directed,
                weighted,
                budget: opts.memory,
                recorder: Recorder::with_cancel(opts.cancel.as_ref()),
            },
            max_degree_vertex,
            backend,
            index_summary: opts.index_summary,
            compressed,
            index_bytes,
            table_bytes: if mmap { 0 } else { tables },
            edges: AtomicU64::new(0),
            bytes_used: AtomicU64::new(0),
            mapped_nanos: AtomicU64::new(0),
            proc_read_bytes: proc_read_bytes(),
        })
    }

    /// The smallest budget `opts` open `g` with: 16 frames and the page tables of the files
    /// read through the cache (4 bytes per page); 0 under mmap, where the kernel holds the pages.
    /// With a compressed layout its metadata gives the lists' lengths (a layout that does not
    /// open is counted as the plain lists: the open reports what is wrong with it).
    pub fn minimum_budget(g: &GraphDir, opts: &SyncOptions) -> u64 {
        if opts.io == Some(BackendKind::Mmap) {
            return 0;
        }
        let m = g.manifest();
        let layout = opts.adjacency.open(g).ok().flatten();
        let pages = |bytes: u64| bytes.div_ceil(PAGE_BYTES as u64);
        let dirs: &[Direction] = if m.directed && opts.need_in {
            &[Direction::Out, Direction::In]
        } else {
            &[Direction::Out]
        };
        let index = pages(8 * (m.num_vertices + 1));
        let mut tables = 0;
        for &d in dirs {
            let mut p = match &layout {
                None => pages(4 * m.num_arcs),
                Some(l) => pages(l.lists_len(d)) + if opts.index_summary { index } else { 0 },
            };
            if opts.need_weights && m.weighted {
                p += pages(4 * m.num_arcs);
            }
            if opts.index_summary {
                p += index;
            }
            tables += 4 * p;
        }
        MIN_FRAMES * FRAME_BYTES + tables
    }

    /// Whether direction `d`'s lists were opened.
    pub fn has(&self, d: Direction) -> bool {
        self.shared.side(d).is_some()
    }

    /// A reader of lists, for the algorithm's thread (each reader keeps its own buffers).
    pub fn reader(&self) -> ListReader<'_> {
        ListReader {
            g: self,
            bytes: Vec::new(),
            ids: Vec::new(),
            weights: Vec::new(),
        }
    }

    /// The side of direction `d`.
    fn side(&self, d: Direction) -> Result<&Side, EngineError> {
        self.shared.side(d).ok_or(EngineError::MissingInEdges)
    }

    /// The arcs `[lo, hi)` of `v`'s list in direction `d`.
    fn range(&self, d: Direction, v: u32, bytes: &mut Vec<u8>) -> Result<(u64, u64), EngineError> {
        self.check_vertex(v)?;
        self.locate(&self.side(d)?.arcs, v, bytes)
    }

    /// The entries `[lo, hi)` of `v` by `locator` (arcs, or a compressed layout's bytes);
    /// `bytes` is scratch space.
    fn locate(&self, locator: &Locator, v: u32, bytes: &mut Vec<u8>) -> Result<(u64, u64), EngineError> {
        match locator {
            Locator::Offsets(o) => Ok((o[v as usize], o[v as usize + 1])),
            Locator::Summary { anchors, idx } => {
                bytes.clear();
                let at = 8 * u64::from(v);
                self.shared.read_bytes(*idx, at..at + 16, bytes)?;
                let lo = u64::from_le_bytes(bytes[..8].try_into().expect("8 bytes"));
                let hi = u64::from_le_bytes(bytes[8..16].try_into().expect("8 bytes"));
                let (a, b) = Side::anchors(anchors, v);
                if !(a <= lo && lo <= hi && hi <= b) {
                    return Err(FormatError::Index {
                        path: self.shared.files[*idx].path().to_path_buf(),
                        entry: u64::from(v),
                        reason: format!(
                            "offsets {lo}..{hi} are not within {a}..{b}, the offsets of vertices {} and {} (changed since the graph was opened?)",
                            v as usize / SUMMARY_STRIDE * SUMMARY_STRIDE,
                            ((v as usize / SUMMARY_STRIDE + 1) * SUMMARY_STRIDE).min(self.num_vertices())
                        ),
                    }
                    .into());
                }
                Ok((lo, hi))
            }
        }
    }

    /// Stops and joins the prefetcher.
    fn stop(&self) {
        self.shared.stop.store(true, Relaxed);
        if let Some(t) = self.shared.prefetcher.get() {
            t.unpark();
        }
        if let Some(h) = self.prefetcher.lock().unwrap_or_else(PoisonError::into_inner).take() {
            let _ = h.join();
        }
    }
}

impl Drop for SyncGraph {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Every [`SUMMARY_STRIDE`]th of `offsets`, and the last.
fn summary(offsets: &[u64]) -> Vec<u64> {
    let mut anchors: Vec<u64> = offsets.iter().step_by(SUMMARY_STRIDE).copied().collect();
    if !(offsets.len() - 1).is_multiple_of(SUMMARY_STRIDE) {
        anchors.push(offsets[offsets.len() - 1]);
    }
    anchors
}

/// `read_bytes` of `/proc/self/io`: bytes this process caused to be fetched from storage (0
/// where the file is not there).
fn proc_read_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/io")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("read_bytes: ").and_then(|v| v.trim().parse().ok()))
        })
        .unwrap_or(0)
}

/// Replaces `out` with the little-endian 4-byte values of `bytes`.
fn decode<T>(bytes: &[u8], out: &mut Vec<T>, value: fn([u8; 4]) -> T) {
    out.clear();
    out.extend(bytes.chunks_exact(4).map(|c| value(c.try_into().expect("4 bytes"))));
}

/// Reads lists for the algorithm's thread; the slices it returns live until the next call.
pub struct ListReader<'g> {
    g: &'g SyncGraph,
    bytes: Vec<u8>,
    ids: Vec<u32>,
    weights: Vec<f32>,
}

impl ListReader<'_> {
    /// The neighbours of `v` in direction `d`, ascending.
    ///
    /// Errors: `v` out of range, a direction not opened, an I/O failure, a neighbour ID out of
    /// range or an index entry that disagrees with its summary.
    pub fn neighbours(&mut self, d: Direction, v: u32) -> Result<&[u32], EngineError> {
        self.read(d, v, false)?;
        Ok(&self.ids)
    }

    /// The neighbours of `v` in direction `d` with their weights.
    ///
    /// Errors: as [`neighbours`](Self::neighbours); weights not opened.
    pub fn edges(&mut self, d: Direction, v: u32) -> Result<(&[u32], &[f32]), EngineError> {
        self.read(d, v, true)?;
        Ok((&self.ids, &self.weights))
    }

    /// The number of stored arcs of `v` in direction `d`.
    ///
    /// Errors: as [`neighbours`](Self::neighbours), without reading the list.
    pub fn degree(&mut self, d: Direction, v: u32) -> Result<u64, EngineError> {
        let (lo, hi) = self.g.range(d, v, &mut self.bytes)?;
        Ok(hi - lo)
    }

    fn read(&mut self, d: Direction, v: u32, weights: bool) -> Result<(), EngineError> {
        let g = self.g;
        g.check_cancelled()?;
        g.check_vertex(v)?;
        let t = Instant::now();
        let side = g.side(d)?;
        let shared = &g.shared;
        let arcs = match side.needs_arcs(weights) {
            true => Some(g.locate(&side.arcs, v, &mut self.bytes)?),
            false => None,
        };
        self.bytes.clear();
        match (&side.lists, arcs) {
            (Lists::Plain { adj }, arcs) => {
                let (lo, hi) = arcs.expect("plain lists are found by their arc offsets");
                shared.read_bytes(*adj, 4 * lo..4 * hi, &mut self.bytes)?;
                decode(&self.bytes, &mut self.ids, u32::from_le_bytes);
                let n = g.num_vertices();
                if let Some(k) = self.ids.iter().position(|&x| x as usize >= n) {
                    return Err(FormatError::NeighbourOutOfRange {
                        path: shared.files[*adj].path().to_path_buf(),
                        index: lo + k as u64,
                        value: self.ids[k],
                        num_vertices: n as u64,
                    }
                    .into());
                }
            }
            (Lists::Compressed { cadj, locator }, arcs) => {
                let (lo, hi) = g.locate(locator, v, &mut self.bytes)?;
                self.bytes.clear();
                shared.read_bytes(*cadj, lo..hi, &mut self.bytes)?;
                let layout = g.compressed.as_ref().expect("compressed lists have their layout");
                match arcs {
                    Some((a, b)) => layout.decode_expecting(d, v, lo, &self.bytes, b - a, &mut self.ids)?,
                    None => layout.decode(d, v, lo, &self.bytes, &mut self.ids)?,
                }
            }
        }
        let mut used = self.bytes.len() as u64;
        if weights {
            let wgt = side
                .wgt
                .ok_or_else(|| EngineError::Setting("the weights were not opened".into()))?;
            let (lo, hi) = arcs.expect("weights need their arc offsets");
            self.bytes.clear();
            shared.read_bytes(wgt, 4 * lo..4 * hi, &mut self.bytes)?;
            decode(&self.bytes, &mut self.weights, f32::from_le_bytes);
            used += self.bytes.len() as u64;
        }
        if shared.cache.is_none() {
            g.mapped_nanos.fetch_add(t.elapsed().as_nanos() as u64, Relaxed);
        }
        g.edges.fetch_add(self.ids.len() as u64, Relaxed);
        g.bytes_used.fetch_add(used, Relaxed);
        shared.wake();
        Ok(())
    }
}

impl Engine for SyncGraph {
    fn core(&self) -> &EngineCore {
        &self.core
    }

    fn max_degree_vertex(&self) -> Result<u32, EngineError> {
        Ok(self.max_degree_vertex)
    }

    fn for_each_degree(&self, d: Direction, mut f: impl FnMut(u32, u64)) -> Result<(), EngineError> {
        let side = self.side(d)?;
        match &side.arcs {
            Locator::Offsets(o) => {
                for (v, w) in o.windows(2).enumerate() {
                    f(v as u32, w[1] - w[0]);
                }
            }
            Locator::Summary { .. } => {
                let mut r = self.reader();
                for v in 0..self.num_vertices() as u32 {
                    f(v, r.degree(d, v)?);
                }
            }
        }
        Ok(())
    }

    fn edges_counted(&self) -> Option<u64> {
        Some(self.edges.load(Relaxed))
    }

    /// Bytes read (counted per read: the prefetcher's and the demand reads, or under mmap what
    /// the kernel read), edges handed out, the cache's hit ratio.
    fn snapshot(&self) -> Snapshot {
        let s = &self.shared;
        let mut cache_hit_ratio = std::collections::BTreeMap::new();
        let bytes_read = match &s.cache {
            Some(cache) => {
                let c = cache.counters();
                let lookups = c.hits + c.misses + c.waits;
                if lookups > 0 {
                    cache_hit_ratio.insert("pages".into(), c.hits as f64 / lookups as f64);
                }
                s.prefetch_bytes.load(Relaxed) + c.demand_bytes
            }
            None => proc_read_bytes().saturating_sub(self.proc_read_bytes),
        };
        Snapshot {
            bytes_read,
            edges: self.edges_counted(),
            cache_hit_ratio,
            bytes_live: true,
        }
    }

    /// The cache's and the prefetcher's counters.
    fn record(&self, stats: &mut RunStats) {
        let s = &self.shared;
        let prefetched_bytes = s.prefetch_bytes.load(Relaxed);
        let used = self.bytes_used.load(Relaxed);
        let adjacency = self.compressed.as_ref().map_or("plain", |l| l.name());
        let mut settings = vec![
            ("adjacency", json!(adjacency)),
            ("io", json!(self.backend)),
            ("ift", json!(s.ift)),
            ("ift_seq", json!(s.ift_seq)),
            ("index_summary", json!(self.index_summary)),
            ("index_bytes", json!(self.index_bytes)),
        ];
        match &s.cache {
            Some(cache) => {
                let c = cache.counters();
                stats.bytes_read = prefetched_bytes + c.demand_bytes;
                stats.io_requests = s.prefetch_requests.load(Relaxed) + c.demand_reads;
                stats.io_wait_seconds = c.wait_seconds;
                stats.peak_engine_memory = cache.frames() as u64 * FRAME_BYTES + self.table_bytes;
                let lookups = c.hits + c.misses + c.waits;
                if lookups > 0 {
                    stats
                        .cache_hit_ratio
                        .insert("pages".into(), c.hits as f64 / lookups as f64);
                }
                let busy = s.prefetch_busy_nanos.load(Relaxed) as f64 * 1e-9;
                settings.extend([
                    ("frames", json!(cache.frames())),
                    ("pages_prefetched", json!(c.prefetched)),
                    ("pages_prefetched_used", json!(c.prefetch_hits)),
                    ("pages_prefetched_wasted", json!(c.wasted)),
                    ("pages_waited_for", json!(c.waits)),
                    ("pages_missed", json!(c.misses)),
                    ("pages_evicted", json!(c.evictions)),
                    ("prefetch_busy_seconds", json!(busy)),
                ]);
            }
            None => {
                stats.bytes_read = proc_read_bytes().saturating_sub(self.proc_read_bytes);
                stats.io_requests = s.prefetch_requests.load(Relaxed);
                stats.io_wait_seconds = self.mapped_nanos.load(Relaxed) as f64 * 1e-9;
                settings.push(("madvise_calls", json!(s.prefetch_requests.load(Relaxed))));
            }
        }
        stats
            .settings
            .extend(settings.into_iter().map(|(k, v)| (k.to_string(), v)));
        if stats.bytes_read > 0 {
            stats.io_utility = (used as f64 / stats.bytes_read as f64).min(1.0);
        }
    }
}
