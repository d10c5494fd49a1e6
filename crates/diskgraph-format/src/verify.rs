//! [`verify`]: the full O(E) check of a graph directory and of every derived layout it lists.

use std::path::Path;

use crate::arc_stream::ArcStream;
use crate::atomic::lock_dir_shared;
use crate::basc_selection::verify_basc_cancellable;
use crate::cancel::{Cancel, CancelPoints};
use crate::compressed_layout::verify_compressed_cancellable;
use crate::data_file::read_range;
use crate::error::FormatError;
use crate::grid_layout::GridLayout;
use crate::grid_meta::{GridEdge, GRID_INDEX};
use crate::grid_shape::GridShape;
use crate::grid_sort::GridSort;
use crate::layout_record::LayoutRecord;
use crate::layout_versions::stale_layout_versions;
use crate::manifest::{IDS, NAMES_BIN};
use crate::read::{read_manifest, Direction, GraphDir};
use crate::shard_verify::verify_shards_cancellable;

/// What [`verify`] checked.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VerifyReport {
    /// Number of data files whose checksum and padding were checked.
    pub files_checked: usize,
    /// Number of data bytes hashed.
    pub bytes_checked: u64,
    /// Number of neighbour IDs range- and order-checked.
    pub arcs_checked: u64,
    /// Number of derived layouts checked (their files count in `files_checked`).
    pub layouts_checked: usize,
    /// Stale layout generations found: directories of earlier or unpublished generations that
    /// no reader pins, left by a writer that died (see
    /// [`stale_layout_versions`](crate::stale_layout_versions)). They do not make the graph
    /// wrong; the next `partition`, `compress` or `select` on it removes them.
    pub stale_versions: Vec<String>,
}

/// Read buffer of each file [`verify_grid`] streams from the graph's CSR.
const CHUNK: usize = 4 << 20;

/// Full check of a graph directory (O(E)): everything [`GraphDir::open`] checks, plus every
/// file's checksum and zero padding, every neighbour ID in range and each list ascending (or
/// non-descending for multigraphs), no NaN weight, original IDs strictly ascending (ordering
/// `original`) or distinct (any other ordering), and vertex names (if any) UTF-8, distinct, one
/// per vertex of original IDs `0..V`; then every derived layout the manifest lists
/// (see [`verify_grid`], [`verify_basc`](crate::verify_basc) and
/// [`verify_shards`](crate::verify_shards)).
pub fn verify(path: impl AsRef<Path>) -> Result<VerifyReport, FormatError> {
    verify_cancellable(path, &Cancel::new())
}

/// [`verify`], stopped with [`FormatError::Interrupted`] once `cancel` is set: it is polled
/// before every read of a checksum (4 MiB) and every 2^20 arcs or vertices of a pass, so a stop
/// is honoured within about one such read of work.
pub fn verify_cancellable(path: impl AsRef<Path>, cancel: &Cancel) -> Result<VerifyReport, FormatError> {
    let g = GraphDir::open(path)?;
    let mut report = VerifyReport::default();
    for (name, entry) in &g.manifest().files {
        entry.check_content(&g.file_path(name), cancel)?;
        report.files_checked += 1;
        report.bytes_checked += entry.len;
    }
    let mut directions = vec![Direction::Out];
    if g.manifest().directed {
        directions.push(Direction::In);
    }
    for dir in directions {
        report.arcs_checked += check_lists(&g, dir, cancel)?;
    }
    if g.manifest().ids_remapped {
        cancel.check()?;
        check_ids(&g)?;
    }
    if g.manifest().has_names() {
        cancel.check()?;
        check_names(&g)?;
    }
    report.stale_versions = stale_versions(g.path())?;
    for layout in g.layouts() {
        match layout {
            LayoutRecord::Grid(grid) => {
                let r = verify_grid_cancellable(&g, &grid.name, cancel)?;
                report.files_checked += r.files_checked;
                report.bytes_checked += r.bytes_checked;
            }
            LayoutRecord::Basc(basc) => {
                report.bytes_checked += verify_basc_cancellable(&g, &basc.name, cancel)?;
                report.files_checked += 1;
            }
            LayoutRecord::Shards(shards) => {
                let r = verify_shards_cancellable(&g, &shards.name, cancel)?;
                report.files_checked += r.files_checked;
                report.bytes_checked += r.bytes_checked;
            }
            LayoutRecord::Compressed(compressed) => {
                let r = verify_compressed_cancellable(&g, &compressed.name, cancel)?;
                report.files_checked += r.files_checked;
                report.bytes_checked += r.bytes_checked;
            }
        }
        report.layouts_checked += 1;
    }
    Ok(report)
}

/// The stale layout generations of the graph at `path`, judged against its manifest as of now,
/// under a shared lock on the directory so that no writer is between renaming a generation into
/// place and publishing it.
fn stale_versions(path: &Path) -> Result<Vec<String>, FormatError> {
    let _lock = lock_dir_shared(path)?;
    let manifest = read_manifest(path)?;
    Ok(stale_layout_versions(path, &manifest.layouts))
}

/// Checks the lists of direction `dir` front to back through fixed buffers ([`ArcStream`], so a
/// graph of any size verifies in bounded memory): every offset and neighbour ID in range, each
/// list ascending (non-descending for multigraphs), no NaN weight. Returns the arcs checked.
fn check_lists(g: &GraphDir, dir: Direction, cancel: &Cancel) -> Result<u64, FormatError> {
    let (_, adj, wgt) = g.files_of(dir);
    let strict = !g.manifest().multi_edges;
    let mut s = ArcStream::open(g, dir, true, CHUNK)?;
    let mut points = CancelPoints::new(cancel);
    while let Some((v, _)) = s.next_vertex()? {
        points.at(s.position() + u64::from(v))?;
        let mut prev: Option<u32> = None;
        while let Some((d, w)) = s.next_arc()? {
            let index = s.position() - 1;
            if prev.is_some_and(|p| d < p || (strict && d == p)) {
                return Err(FormatError::Unsorted {
                    path: g.file_path(adj),
                    vertex: u64::from(v),
                    index,
                });
            }
            if w.is_nan() {
                return Err(FormatError::Content {
                    path: g.file_path(wgt),
                    reason: format!("weight at entry {index} is NaN"),
                });
            }
            prev = Some(d);
        }
    }
    Ok(s.position())
}

/// `ids.u64` is strictly ascending under the original ordering, and distinct under any other
/// (checked by sorting the entries' positions by ID: 12 bytes per vertex).
fn check_ids(g: &GraphDir) -> Result<(), FormatError> {
    let ids = g.original_ids()?;
    let bad = |reason: String| FormatError::Content {
        path: g.file_path(IDS),
        reason,
    };
    if g.manifest().ids_ascending() {
        if let Some(i) = ids.windows(2).position(|w| w[1] <= w[0]) {
            return Err(bad(format!("original IDs not strictly ascending at entry {}", i + 1)));
        }
        return Ok(());
    }
    let mut by_id: Vec<u32> = (0..ids.len()).map(|i| i as u32).collect();
    by_id.sort_unstable_by_key(|&i| (ids[i as usize], i));
    if let Some(w) = by_id.windows(2).find(|w| ids[w[0] as usize] == ids[w[1] as usize]) {
        let (a, b) = (w[0], w[1]);
        return Err(bad(format!(
            "original ID {} appears at entries {a} and {b}",
            ids[a as usize]
        )));
    }
    Ok(())
}

/// The names load (offsets in bounds, every name UTF-8), are distinct, and name original IDs
/// `0..V`: with `ids.u64`, every original ID is below V (distinct IDs below V are exactly
/// `0..V`, and [`check_ids`] has checked them distinct).
fn check_names(g: &GraphDir) -> Result<(), FormatError> {
    let names = g.names()?.expect("the manifest lists names");
    if let Some((a, b)) = names.first_repeat() {
        let name = names.get(a).unwrap_or_default();
        return Err(FormatError::Content {
            path: g.file_path(NAMES_BIN),
            reason: format!("vertices {a} and {b} have the same name {name:?}"),
        });
    }
    if g.manifest().ids_remapped {
        let n = g.num_vertices();
        if let Some((i, id)) = g.original_ids()?.into_iter().enumerate().find(|&(_, id)| id >= n) {
            return Err(FormatError::Content {
                path: g.file_path(IDS),
                reason: format!("original ID {id} at entry {i} is not below {n}, but the graph has names (IDs 0..V)"),
            });
        }
    }
    Ok(())
}

/// Full check of the grid layout `name` of `g` (O(E), memory O(P²) plus fixed buffers):
/// everything [`GridLayout::open`] checks, plus each file's checksum and zero padding, every edge
/// inside its block's source and destination ranges and in the block's sort order (a
/// [`GridSort::Key`] order cannot be re-derived and is not checked), and the layout's arcs with
/// their weights equal to the graph's `out.*` as a multiset: per-block counts match and an
/// order-independent hash of (src, dst, weight bits) matches.
pub fn verify_grid(g: &GraphDir, name: &str) -> Result<VerifyReport, FormatError> {
    verify_grid_cancellable(g, name, &Cancel::new())
}

/// [`verify_grid`], polling `cancel` as [`verify_cancellable`] does.
pub(crate) fn verify_grid_cancellable(g: &GraphDir, name: &str, cancel: &Cancel) -> Result<VerifyReport, FormatError> {
    let layout = GridLayout::open(g, name)?;
    let mut report = VerifyReport::default();
    for (file, entry) in &layout.meta().files {
        entry.check_content(&layout.file_path(file), cancel)?;
        report.files_checked += 1;
        report.bytes_checked += entry.len;
    }
    let layout_hash = check_blocks(&layout, cancel)?;
    let (counts, graph_hash) = csr_blocks(g, layout.shape(), cancel)?;
    if let Some(b) = (0..layout.num_blocks()).find(|&b| layout.block_len(b) != counts[b]) {
        return Err(FormatError::Index {
            path: layout.file_path(GRID_INDEX),
            entry: b as u64,
            reason: format!(
                "block {b} holds {} arcs, the graph has {} in its ranges",
                layout.block_len(b),
                counts[b]
            ),
        });
    }
    if layout_hash != graph_hash {
        let what = if layout.weighted() { "arcs or weights" } else { "arcs" };
        return Err(FormatError::Content {
            path: layout.edges_path(),
            reason: format!("the layout's {what} differ from the graph's out.* (multiset hashes differ)"),
        });
    }
    report.arcs_checked = layout.num_arcs();
    Ok(report)
}

/// Edges read per chunk when checking a layout.
const EDGE_CHUNK: u64 = 1 << 19;

/// Checks every block's ranges and order; returns the multiset hash of the layout's arcs.
/// Polls `cancel` before each block and each chunk.
fn check_blocks(layout: &GridLayout, cancel: &Cancel) -> Result<u64, FormatError> {
    let mut hash = 0u64;
    for b in 0..layout.num_blocks() {
        cancel.check()?;
        let range = layout.block_edges(b);
        if layout.compressed().is_some() {
            // A compressed block decodes whole: it is checked in one piece.
            let bytes: Vec<u8> = read_range(&layout.edges_path(), layout.block_bytes(b))?;
            let mut edges = vec![GridEdge::default(); layout.block_len(b) as usize];
            layout.decode_block(b, &bytes, &mut edges, &mut Vec::new())?;
            let weights = match layout.weighted() {
                true => Some(layout.read_weights(range.clone())?),
                false => None,
            };
            check_chunk(layout, b, range.start, None, &edges)?;
            for (i, e) in edges.iter().enumerate() {
                hash = hash.wrapping_add(arc_hash(e.src, e.dst, weights.as_ref().map(|w| w[i])));
            }
            continue;
        }
        let mut prev: Option<GridEdge> = None;
        let mut start = range.start;
        while start < range.end {
            cancel.check()?;
            let end = (start + EDGE_CHUNK).min(range.end);
            let edges = layout.read_edges(start..end)?;
            let weights = match layout.weighted() {
                true => Some(layout.read_weights(start..end)?),
                false => None,
            };
            check_chunk(layout, b, start, prev, &edges)?;
            for (i, e) in edges.iter().enumerate() {
                hash = hash.wrapping_add(arc_hash(e.src, e.dst, weights.as_ref().map(|w| w[i])));
            }
            prev = edges.last().copied();
            start = end;
        }
    }
    Ok(hash)
}

/// Checks edges `first..` of block `b` (the one before them being `prev`).
fn check_chunk(
    layout: &GridLayout,
    b: usize,
    first: u64,
    prev: Option<GridEdge>,
    edges: &[GridEdge],
) -> Result<(), FormatError> {
    let (rows, cols) = (layout.source_range(b), layout.destination_range(b));
    let key = |e: &GridEdge| match layout.sort() {
        GridSort::Destination => Some((e.dst, e.src)),
        GridSort::Grid | GridSort::Source => Some((e.src, e.dst)),
        GridSort::Key(_) => None,
    };
    let bad = |i: usize, what: String| {
        let e = edges[i];
        let reason = format!("edge {} ({} -> {}) of block {b} {what}", first + i as u64, e.src, e.dst);
        Err(FormatError::Content {
            path: layout.edges_path(),
            reason,
        })
    };
    let mut last = prev.and_then(|e| key(&e));
    for (i, e) in edges.iter().enumerate() {
        if !rows.contains(&u64::from(e.src)) || !cols.contains(&u64::from(e.dst)) {
            return bad(
                i,
                format!("lies outside its ranges (sources {rows:?}, destinations {cols:?})"),
            );
        }
        let k = key(e);
        if k.is_some() && last > k {
            return bad(i, format!("breaks the block's {} order", layout.sort()));
        }
        last = k;
    }
    Ok(())
}

/// Per-block arc counts of the graph's `out.*` under `shape`, and their multiset hash.
fn csr_blocks(g: &GraphDir, shape: &GridShape, cancel: &Cancel) -> Result<(Vec<u64>, u64), FormatError> {
    let mut counts = vec![0u64; shape.num_blocks()];
    let mut hash = 0u64;
    let weighted = g.manifest().weighted;
    let mut s = ArcStream::open(g, Direction::Out, true, CHUNK)?;
    let mut points = CancelPoints::new(cancel);
    while let Some((v, _)) = s.next_vertex()? {
        points.at(s.position() + u64::from(v))?;
        let row = shape.row_of(v);
        while let Some((d, w)) = s.next_arc()? {
            counts[shape.block(row, shape.col_of(d))] += 1;
            hash = hash.wrapping_add(arc_hash(v, d, weighted.then_some(w)));
        }
    }
    Ok((counts, hash))
}

/// Hash of one arc for an order-independent multiset hash (a wrapping sum of these).
fn arc_hash(src: u32, dst: u32, weight: Option<f32>) -> u64 {
    let w = weight.map_or(0, |w| u64::from(w.to_bits()) | 1 << 32);
    mix(mix(u64::from(src) << 32 | u64::from(dst)) ^ w)
}

/// The splitmix64 finaliser.
fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}
