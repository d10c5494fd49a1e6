//! Writing the relabelled graph under a memory budget.
//!
//! Each CSR direction is streamed once: every arc `v → u` (with its weight) is pushed to the
//! external sorter as (rank of `v`, rank of `u`, weight), and the sorted stream is written
//! straight into the new CSR. Sorting by (source, target, weight in `f32::total_cmp` order)
//! gives ascending lists and orders the copies of a duplicate arc by weight, as import does;
//! self-loops and duplicates pass through untouched. A directed graph's `in.*` is relabelled
//! from the input's own `in.*`. `ids.u64` is written from the order and the input's IDs in
//! chunks, and omitted when the new internal IDs equal the original IDs. Vertex names, indexed
//! by original ID, are copied unchanged.
//!
//! Memory: three read buffers of [`read_buffer`] bytes (index, lists, weights) and the sorter's
//! buffer, the rest of the budget (at least 16 KiB); the merge reads each run through a buffer
//! of at least 64 KiB. The rank of every vertex (4 bytes) is O(V) vertex state.

use anyhow::{Context, Result};
use bytemuck::{Pod, Zeroable};
use diskgraph_format::{ArcStream, Direction, FileEntry, GraphBuilder, GraphDir, IDS};

use crate::progress::Ticker;
use crate::sort::ExternalSorter;
use crate::Progress;

/// Smallest CSR read buffer.
const MIN_READ: u64 = 16 << 10;
/// Largest CSR read buffer.
const MAX_READ: u64 = 4 << 20;
/// Smallest sort buffer.
const MIN_SORT: u64 = 16 << 10;
/// Original IDs written per chunk.
const ID_CHUNK: usize = 1 << 16;

/// Bytes of each CSR read buffer under a budget of `memory` bytes: a sixteenth of it, clamped
/// to 16 KiB … 4 MiB.
pub(super) fn read_buffer(memory: u64) -> usize {
    (memory / 16).clamp(MIN_READ, MAX_READ) as usize
}

/// Bytes of the sort buffer under a budget of `memory` bytes.
fn sort_buffer(memory: u64) -> usize {
    memory.saturating_sub(3 * read_buffer(memory) as u64).max(MIN_SORT) as usize
}

/// What [`write_relabelled`] wrote into the builder.
pub(super) struct Written {
    /// The data files, with their manifest entries.
    pub files: Vec<(String, FileEntry)>,
    /// Whether `ids.u64` was written.
    pub ids_remapped: bool,
    /// Bytes of the sort buffer.
    pub sort_buffer_bytes: u64,
    /// Bytes of scratch runs the sorts spilled.
    pub scratch_bytes: u64,
}

/// Writes `g` relabelled by `order` (`order[i]` becomes vertex `i`) into `builder`.
///
/// # Panics
/// If `order` is not a permutation of `0..V` (a bug of the ordering, not bad input).
pub(super) fn write_relabelled(
    g: &GraphDir,
    builder: &GraphBuilder,
    order: &[u32],
    memory: u64,
    progress: &mut dyn Progress,
) -> Result<Written> {
    let rank = invert(order);
    let scratch = builder.dir().join("scratch");
    let plan = Plan {
        rank: &rank,
        read: read_buffer(memory),
        sort: sort_buffer(memory),
        scratch: &scratch,
        destination: builder.destination(),
    };
    std::fs::create_dir(&scratch).with_context(|| plan.scratch_err())?;
    let mut files = Vec::new();
    let mut scratch_bytes = 0;
    let mut directions = vec![(Direction::Out, "out")];
    if g.manifest().directed {
        directions.push((Direction::In, "in"));
    }
    for (dir, prefix) in directions {
        let (written, spilled) = match g.manifest().weighted {
            true => plan.direction::<Weighted>(g, builder, dir, prefix, progress)?,
            false => plan.direction::<Plain>(g, builder, dir, prefix, progress)?,
        };
        files.extend(written);
        scratch_bytes += spilled;
    }
    std::fs::remove_dir_all(&scratch).with_context(|| plan.scratch_err())?;
    let ids_remapped = write_ids(g, builder, order, &mut files)?;
    // Names follow original IDs, which a reordering keeps: they are copied as they are.
    if let Some(names) = g.names()? {
        files.extend(builder.names(&names)?);
    }
    Ok(Written {
        files,
        ids_remapped,
        sort_buffer_bytes: plan.sort as u64,
        scratch_bytes,
    })
}

/// `rank[v]` = position of `v` in `order`.
fn invert(order: &[u32]) -> Vec<u32> {
    let mut rank = vec![0u32; order.len()];
    let mut seen = vec![false; order.len()];
    for (i, &v) in order.iter().enumerate() {
        assert!(!seen[v as usize], "ordering places vertex {v} twice");
        seen[v as usize] = true;
        rank[v as usize] = i as u32;
    }
    rank
}

/// Writes `ids.u64` (original ID of each new vertex) unless it is the identity; returns whether
/// it was written.
fn write_ids(
    g: &GraphDir,
    builder: &GraphBuilder,
    order: &[u32],
    files: &mut Vec<(String, FileEntry)>,
) -> Result<bool> {
    let ids = g.original_ids()?;
    let original = |i: usize| ids[order[i] as usize];
    if (0..order.len()).all(|i| original(i) == i as u64) {
        return Ok(false);
    }
    let mut w = builder.file(IDS)?;
    let mut chunk = Vec::with_capacity(ID_CHUNK.min(order.len()));
    for start in (0..order.len()).step_by(ID_CHUNK) {
        chunk.clear();
        chunk.extend((start..(start + ID_CHUNK).min(order.len())).map(original));
        w.write_u64s(&chunk)?;
    }
    files.push(w.finish()?);
    Ok(true)
}

/// The relabelling and the buffers of one run.
struct Plan<'a> {
    rank: &'a [u32],
    read: usize,
    sort: usize,
    scratch: &'a std::path::Path,
    /// The graph being written, which errors name (the scratch directory's name is a
    /// temporary one).
    destination: &'a std::path::Path,
}

impl Plan<'_> {
    /// The context of a scratch file's error.
    fn scratch_err(&self) -> String {
        format!("the sort's scratch files for {}", self.destination.display())
    }

    /// Relabels, sorts and writes direction `dir` of `g` as the new `{prefix}.*` files; returns
    /// them with the bytes of scratch runs spilled.
    fn direction<R: ArcRecord>(
        &self,
        g: &GraphDir,
        builder: &GraphBuilder,
        dir: Direction,
        prefix: &str,
        progress: &mut dyn Progress,
    ) -> Result<(Vec<(String, FileEntry)>, u64)> {
        let m = g.manifest();
        let scratch_err = || self.scratch_err();
        let mut sorter = ExternalSorter::<R>::new(self.scratch, prefix, self.sort, None);
        let mut s = ArcStream::open(g, dir, true, self.read)?;
        progress.phase(&format!("relabelling {prefix}-edges"), Some(m.num_arcs));
        let mut ticker = Ticker::new();
        while let Some((v, _)) = s.next_vertex()? {
            let src = self.rank[v as usize];
            while let Some((u, w)) = s.next_arc()? {
                sorter
                    .push(R::new(src, self.rank[u as usize], w))
                    .with_context(scratch_err)?;
            }
            ticker.tick(progress, s.position())?;
        }
        let mut sorted = sorter.finish().with_context(scratch_err)?;
        let mut csr = builder.csr(prefix, m.num_vertices, m.weighted)?;
        progress.phase(&format!("writing {prefix}-edges"), Some(m.num_arcs));
        let mut ticker = Ticker::new();
        while let Some(r) = sorted.next().with_context(scratch_err)? {
            let (src, dst, weight) = r.parts();
            csr.push(src, dst, weight)?;
            ticker.tick(progress, csr.num_edges())?;
        }
        Ok((csr.finish()?, sorted.bytes_written()))
    }
}

/// A relabelled arc as the sorter orders it: by source, target, then weight.
trait ArcRecord: Pod + Ord + Send {
    /// The arc `src → dst` with `weight` (ignored by unweighted records).
    fn new(src: u32, dst: u32, weight: f32) -> Self;
    /// Source, target and (weighted records only) weight.
    fn parts(&self) -> (u32, u32, Option<f32>);
}

/// An unweighted arc.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Pod, Zeroable)]
struct Plain {
    src: u32,
    dst: u32,
}

impl ArcRecord for Plain {
    fn new(src: u32, dst: u32, _: f32) -> Self {
        Plain { src, dst }
    }
    fn parts(&self) -> (u32, u32, Option<f32>) {
        (self.src, self.dst, None)
    }
}

/// A weighted arc; the weight is kept as its bits and compared with `f32::total_cmp` (equal
/// exactly when the bits are, so the derived equality agrees with the order).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Pod, Zeroable)]
struct Weighted {
    src: u32,
    dst: u32,
    weight: u32,
}

impl ArcRecord for Weighted {
    fn new(src: u32, dst: u32, weight: f32) -> Self {
        Weighted {
            src,
            dst,
            weight: weight.to_bits(),
        }
    }
    fn parts(&self) -> (u32, u32, Option<f32>) {
        (self.src, self.dst, Some(f32::from_bits(self.weight)))
    }
}

impl Ord for Weighted {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.src, self.dst)
            .cmp(&(other.src, other.dst))
            .then_with(|| f32::from_bits(self.weight).total_cmp(&f32::from_bits(other.weight)))
    }
}

impl PartialOrd for Weighted {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
