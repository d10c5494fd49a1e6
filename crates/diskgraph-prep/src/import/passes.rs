//! The lists of one direction (`out.*` or `in.*`) from passes over the input.
//!
//! Each vertex's arc count is known first (counted during the first read, or by counting
//! passes), so the vertices can be cut into consecutive ranges whose arcs fit the placement
//! buffer. For each range the input is read again and the arcs whose key lies in the range are
//! scattered straight into their slots (a counting sort: the counts give each list its exact
//! place); the lists are then sorted and deduplicated in parallel and written in order. A
//! vertex whose list alone does not fit the buffer gets a pass of its own, its arcs sorted by
//! the external sorter.

use std::borrow::Cow;
use std::path::Path;

use anyhow::{Context, Result};
use bytemuck::Pod;

use super::ids::VertexIds;
use super::records::{weight_from_key, weight_key};
use super::replay::Input;
use super::ListOutput;
use crate::progress::{advance, Progress};
use crate::sort::ExternalSorter;
use crate::RawEdge;

/// Bytes of placement state per vertex of a range: its offset and its write cursor (u64 each;
/// the cursor then holds the list's length after deduplication).
const BYTES_PER_VERTEX: u64 = 16;

/// Lists sorted by one task of the parallel sort, at most.
const LISTS_PER_TASK: usize = 512;

/// The placement buffer's bytes: what the budget leaves beside `counters` bytes of arc counters
/// (at most half the budget by construction).
pub(crate) fn placement_budget(memory: u64, counters: u64) -> u64 {
    memory.saturating_sub(counters).max(memory / 2)
}

/// Arcs handed to the output at once from a long list's sorted stream.
const LONG_LIST_CHUNK: usize = 1 << 20;

/// Which list an arc goes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Side {
    /// Keyed by source: `out.*` (both endpoints of an undirected edge).
    Out,
    /// Keyed by target: `in.*` of a directed graph.
    In,
}

/// What becomes of the input's edges.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Shape {
    /// Each edge is stored both ways.
    pub(crate) undirected: bool,
    /// Self-loops are stored.
    pub(crate) keep_loops: bool,
    /// Duplicate arcs are stored.
    pub(crate) keep_duplicates: bool,
}

impl Shape {
    /// Calls `f(key, other, weight)` for each arc of `side` the edge `e` gives.
    #[inline]
    pub(crate) fn arcs(&self, e: &RawEdge, side: Side, mut f: impl FnMut(u64, u64, Option<f32>)) {
        if e.src == e.dst && !self.keep_loops {
            return;
        }
        match side {
            Side::Out => {
                f(e.src, e.dst, e.weight);
                if self.undirected && e.src != e.dst {
                    f(e.dst, e.src, e.weight);
                }
            }
            Side::In => f(e.dst, e.src, e.weight),
        }
    }
}

/// The error of a list that outgrows a u32 counter.
fn too_many_arcs(id: u64) -> anyhow::Error {
    anyhow::anyhow!(
        "vertex ID {id} has more than {} arcs (duplicates included): more than a list can hold",
        u32::MAX
    )
}

/// Arc counts by original ID, gathered during the first read while every ID stays below a cap
/// (so a dense input needs no counting pass).
pub(crate) struct Speculative {
    out: Vec<u32>,
    inn: Option<Vec<u32>>,
    cap: u64,
    valid: bool,
}

impl Speculative {
    /// Counts in at most `memory` bytes (4 per ID and side).
    pub(crate) fn new(memory: usize, directed: bool) -> Speculative {
        let sides = if directed { 2 } else { 1 };
        Speculative {
            out: Vec::new(),
            inn: directed.then(Vec::new),
            cap: (memory / 4 / sides) as u64,
            valid: true,
        }
    }

    /// Counts the arcs of `e`.
    #[inline]
    pub(crate) fn count(&mut self, e: &RawEdge, shape: &Shape) -> Result<()> {
        if !self.valid || (e.src == e.dst && !shape.keep_loops) {
            return Ok(());
        }
        if e.src.max(e.dst) >= self.cap {
            self.valid = false;
            self.out = Vec::new();
            self.inn = None;
            return Ok(());
        }
        let cap = self.cap as usize;
        bump(&mut self.out, e.src, cap)?;
        if shape.undirected && e.src != e.dst {
            bump(&mut self.out, e.dst, cap)?;
        }
        if let Some(inn) = &mut self.inn {
            bump(inn, e.dst, cap)?;
        }
        Ok(())
    }

    /// The counts by internal ID (out, and in when directed), or `None` when an ID passed the
    /// cap or the vertices do not fit it.
    pub(crate) fn into_ranked(self, ids: &VertexIds) -> Option<(Vec<u32>, Option<Vec<u32>>)> {
        if !self.valid || ids.len() > self.cap {
            return None;
        }
        let rank = |mut c: Vec<u32>| {
            let n = ids.len() as usize;
            let seen = c.len();
            c.resize(seen.max(n), 0);
            if !ids.is_identity() {
                // Ranks never exceed IDs, so moving counts down in ascending order is safe.
                ids.for_each(|r, id| c[r] = if (id as usize) < seen { c[id as usize] } else { 0 });
            }
            c.truncate(n);
            // The budget counts 4 bytes a vertex from here on: the room of IDs never seen goes.
            c.shrink_to_fit();
            c
        };
        Some((rank(self.out), self.inn.map(rank)))
    }
}

/// Counts one arc of `id` (below `cap`), growing `counts` by doubling but never past `cap`
/// entries: the budget allows `cap`, and a vector's own growth would overshoot it.
#[inline]
fn bump(counts: &mut Vec<u32>, id: u64, cap: usize) -> Result<()> {
    let i = id as usize;
    if i >= counts.len() {
        let want = (i + 1).max((2 * counts.len()).min(cap));
        counts.reserve_exact(want - counts.len());
        counts.resize(want, 0);
    }
    counts[i] = counts[i].checked_add(1).ok_or_else(|| too_many_arcs(id))?;
    Ok(())
}

/// One arc's slot in the placement buffer: the target (u32), or the target and the weight's
/// order key packed so that sorting orders by target, then by weight.
pub(crate) trait Slot: Pod + Ord + Send + Sync {
    /// Placement memory per arc: the slot, plus the unpacked copy handed to the output.
    const BYTES_PER_ARC: u64;
    /// The slot of an arc to `target`.
    fn new(target: u32, weight: Option<f32>) -> Self;
    /// The arc's target.
    fn target(&self) -> u32;
    /// The targets of `slots`, in order.
    fn targets(slots: &[Self]) -> Cow<'_, [u32]>;
    /// The weights of `slots`, in order (weighted slots only).
    fn weights(slots: &[Self]) -> Option<Vec<f32>>;
}

impl Slot for u32 {
    const BYTES_PER_ARC: u64 = 4;
    fn new(target: u32, _: Option<f32>) -> Self {
        target
    }
    fn target(&self) -> u32 {
        *self
    }
    fn targets(slots: &[Self]) -> Cow<'_, [u32]> {
        Cow::Borrowed(slots)
    }
    fn weights(_: &[Self]) -> Option<Vec<f32>> {
        None
    }
}

impl Slot for u64 {
    const BYTES_PER_ARC: u64 = 16;
    fn new(target: u32, weight: Option<f32>) -> Self {
        (u64::from(target) << 32) | u64::from(weight_key(weight.expect("weighted edge")))
    }
    fn target(&self) -> u32 {
        (*self >> 32) as u32
    }
    fn targets(slots: &[Self]) -> Cow<'_, [u32]> {
        Cow::Owned(slots.iter().map(Slot::target).collect())
    }
    fn weights(slots: &[Self]) -> Option<Vec<f32>> {
        Some(slots.iter().map(|&s| weight_from_key(s as u32)).collect())
    }
}

/// What the passes of one side did.
#[derive(Debug, Default)]
pub(crate) struct SideStats {
    /// Arcs before duplicates were merged.
    pub(crate) pushed: u64,
    /// Arcs written.
    pub(crate) arcs: u64,
    /// Arcs from a vertex to itself written.
    pub(crate) self_loops: u64,
    /// The most bytes of sort runs on disk at once (long lists only).
    pub(crate) peak_scratch: u64,
    /// Bytes of sort runs written.
    pub(crate) scratch_written: u64,
}

/// Reads the input again and again, numbering the passes for the progress display.
pub(crate) struct Reader<'i, 'a> {
    pub(crate) input: &'i mut Input<'a>,
    pub(crate) progress: &'i mut dyn Progress,
    /// The number of reads the import will make, when known.
    pub(crate) planned: Option<u32>,
}

impl Reader<'_, '_> {
    /// Starts the next read and hands each of its batches to `f`; cancellable per batch.
    fn pass(&mut self, what: &str, mut f: impl FnMut(&[RawEdge]) -> Result<()>) -> Result<()> {
        self.input.start_over()?;
        let i = self.input.reads();
        let label = match self.planned {
            Some(k) if k >= i => format!("pass {i} of {k}: {what}"),
            _ => format!("pass {i}: {what}"),
        };
        self.progress.phase(&label, self.input.progress().1);
        let mut batch = Vec::new();
        while self.input.next_batch(&mut batch)? {
            f(&batch)?;
            advance(self.progress, self.input.progress().0)?;
        }
        Ok(())
    }
}

/// One step of the plan of a side: a range of vertices whose arcs fit the buffer, or one
/// vertex whose list does not.
#[derive(Debug, PartialEq)]
enum Step {
    Range { first: u32, end: u32, arcs: u64 },
    Long(u32),
}

/// Cuts the vertices `first..first + counts.len()` into steps of at most `budget` bytes.
fn plan(counts: &[u32], first: u32, budget: u64, per_arc: u64) -> Vec<Step> {
    let mut steps = Vec::new();
    let (mut start, mut bytes, mut arcs) = (first, 0u64, 0u64);
    for (i, &c) in counts.iter().enumerate() {
        let v = first + i as u32;
        let cost = BYTES_PER_VERTEX + per_arc * u64::from(c);
        if cost > budget {
            if v > start {
                steps.push(Step::Range {
                    first: start,
                    end: v,
                    arcs,
                });
            }
            steps.push(Step::Long(v));
            (start, bytes, arcs) = (v + 1, 0, 0);
            continue;
        }
        if bytes + cost > budget {
            steps.push(Step::Range {
                first: start,
                end: v,
                arcs,
            });
            (start, bytes, arcs) = (v, 0, 0);
        }
        bytes += cost;
        arcs += u64::from(c);
    }
    let end = first + counts.len() as u32;
    if end > start {
        steps.push(Step::Range {
            first: start,
            end,
            arcs,
        });
    }
    steps
}

/// The number of reads the plan of `counts` takes (ranges without arcs take none).
pub(crate) fn reads_planned(counts: &[u32], budget: u64, per_arc: u64) -> u32 {
    plan(counts, 0, budget, per_arc)
        .iter()
        .filter(|s| !matches!(s, Step::Range { arcs: 0, .. }))
        .count() as u32
}

/// Builds the lists of one side: `counts` (by internal ID) when the first read gathered them,
/// else counting passes first. `memory` is the budget of the counters and of the placement
/// buffer; `held` bytes of it hold counters of the other side.
#[allow(clippy::too_many_arguments)] // the one entry of the passes, called twice
pub(crate) fn build_side<S: Slot>(
    reader: &mut Reader<'_, '_>,
    ids: &VertexIds,
    shape: Shape,
    side: Side,
    counts: Option<Vec<u32>>,
    memory: u64,
    held: u64,
    scratch: &Path,
    out: &mut ListOutput,
) -> Result<SideStats> {
    let n = ids.len();
    let mut stats = SideStats::default();
    let mut given = counts;
    let segment = (memory / 2 / 4).max(1);
    let mut first = 0u64;
    while first < n {
        let (counts, end) = match given.take() {
            Some(c) => (c, n),
            None => {
                let end = n.min(first + segment);
                (count_pass(reader, ids, shape, side, first as u32, end)?, end)
            }
        };
        let budget = placement_budget(memory, held + 4 * counts.len() as u64);
        for step in plan(&counts, first as u32, budget, S::BYTES_PER_ARC) {
            match step {
                Step::Range {
                    first: r0,
                    end: r1,
                    arcs,
                } => {
                    let local = (r0 as u64 - first) as usize..(r1 as u64 - first) as usize;
                    place::<S>(reader, ids, shape, side, r0..r1, &counts[local], arcs, out, &mut stats)?;
                }
                Step::Long(v) => long_list::<S>(reader, ids, shape, side, v, budget, scratch, out, &mut stats)?,
            }
        }
        first = end;
    }
    Ok(stats)
}

/// Counts the arcs of the vertices `first..end` in a pass of their own.
fn count_pass(
    reader: &mut Reader<'_, '_>,
    ids: &VertexIds,
    shape: Shape,
    side: Side,
    first: u32,
    end: u64,
) -> Result<Vec<u32>> {
    let mut counts = vec![0u32; (end - u64::from(first)) as usize];
    let (lo, hi) = (ids.id_of(first), ids.id_of((end - 1) as u32));
    let what = format!("counting the arcs of vertices {first}..{end}");
    reader.pass(&what, |batch| {
        let mut fault = None;
        for e in batch {
            shape.arcs(e, side, |k, _, _| {
                if (lo..=hi).contains(&k) {
                    let c = &mut counts[(ids.rank(k) - first) as usize];
                    match c.checked_add(1) {
                        Some(x) => *c = x,
                        None => fault = Some(k),
                    }
                }
            });
        }
        fault.map_or(Ok(()), |k| Err(too_many_arcs(k)))
    })?;
    Ok(counts)
}

/// The error of an input whose edges differ from one read to the next.
fn changed() -> anyhow::Error {
    anyhow::anyhow!(
        "the input changed between two reads (a vertex got more arcs than the first read counted): \
         the import reads its input several times, and the file must stay as it is until it ends"
    )
}

/// Places, sorts, deduplicates and writes the lists of the vertices `range`, whose arc counts
/// are `counts` (`arcs` in all).
#[allow(clippy::too_many_arguments)]
fn place<S: Slot>(
    reader: &mut Reader<'_, '_>,
    ids: &VertexIds,
    shape: Shape,
    side: Side,
    range: std::ops::Range<u32>,
    counts: &[u32],
    arcs: u64,
    out: &mut ListOutput,
    stats: &mut SideStats,
) -> Result<()> {
    let len = counts.len();
    let mut offsets = Vec::with_capacity(len + 1);
    offsets.push(0u64);
    for &c in counts {
        offsets.push(offsets.last().copied().unwrap_or(0) + u64::from(c));
    }
    if arcs > 0 {
        let mut cursor = offsets[..len].to_vec();
        let mut slots = vec![S::zeroed(); arcs as usize];
        let (r0, lo, hi) = (range.start, ids.id_of(range.start), ids.id_of(range.end - 1));
        let what = format!("placing the arcs of vertices {}..{}", range.start, range.end);
        reader.pass(&what, |batch| {
            let mut overflow = false;
            for e in batch {
                shape.arcs(e, side, |k, o, w| {
                    if (lo..=hi).contains(&k) {
                        let r = (ids.rank(k) - r0) as usize;
                        let slot = cursor[r];
                        if slot == offsets[r + 1] {
                            overflow = true;
                            return;
                        }
                        cursor[r] = slot + 1;
                        slots[slot as usize] = S::new(ids.rank(o), w);
                    }
                });
            }
            match overflow {
                true => Err(changed()),
                false => Ok(()),
            }
        })?;
        if cursor[..] != offsets[1..] {
            return Err(changed());
        }
        stats.pushed += arcs;
        stats.self_loops += sort_lists(
            &mut slots,
            &mut offsets,
            &mut cursor,
            range.start,
            !shape.keep_duplicates,
        );
        stats.arcs += slots.len() as u64;
        let weights = S::weights(&slots);
        out.write_range(range.start, &offsets, &S::targets(&slots), weights.as_deref())?;
    } else {
        out.write_range(range.start, &offsets, &[], S::weights(&[]).as_deref())?;
    }
    Ok(())
}

/// Sorts each list of `slots` (list `i` at `offsets[i]..offsets[i + 1]`, of vertex `first + i`),
/// merges duplicates when `dedup` (the first, smallest weight stays), and closes the gaps,
/// updating `offsets`; `lengths` (one per list) is scratch. Returns the number of self-loops
/// left.
fn sort_lists<S: Slot>(slots: &mut Vec<S>, offsets: &mut [u64], lengths: &mut [u64], first: u32, dedup: bool) -> u64 {
    let len = offsets.len() - 1;
    let loops = sort_each(slots, &offsets[..], &mut lengths[..len], first, dedup);
    let mut write = 0usize;
    for i in 0..len {
        let (start, k) = (offsets[i] as usize, lengths[i] as usize);
        slots.copy_within(start..start + k, write);
        offsets[i] = write as u64;
        write += k;
    }
    offsets[len] = write as u64;
    slots.truncate(write);
    loops
}

/// Sorts and deduplicates the lists of `slots` (list `i` at `offsets[i] - offsets[0] ..`, of
/// vertex `first + i`) in parallel, halving the lists until a task has few; writes each list's
/// new length to `lengths` and returns the self-loops.
fn sort_each<S: Slot>(slots: &mut [S], offsets: &[u64], lengths: &mut [u64], first: u32, dedup: bool) -> u64 {
    let lists = lengths.len();
    if lists > LISTS_PER_TASK {
        let mid = lists / 2;
        let (left, right) = slots.split_at_mut((offsets[mid] - offsets[0]) as usize);
        let (len_left, len_right) = lengths.split_at_mut(mid);
        let (a, b) = rayon::join(
            || sort_each(left, &offsets[..=mid], len_left, first, dedup),
            || sort_each(right, &offsets[mid..], len_right, first + mid as u32, dedup),
        );
        return a + b;
    }
    let mut loops = 0;
    for i in 0..lists {
        let list = &mut slots[(offsets[i] - offsets[0]) as usize..(offsets[i + 1] - offsets[0]) as usize];
        list.sort_unstable();
        let mut k = list.len();
        if dedup && k > 1 {
            k = 1;
            for j in 1..list.len() {
                if list[j].target() != list[k - 1].target() {
                    list[k] = list[j];
                    k += 1;
                }
            }
        }
        let v = first + i as u32;
        loops += list[..k].iter().filter(|s| s.target() == v).count() as u64;
        lengths[i] = k as u64;
    }
    loops
}

/// Writes the list of vertex `v`, too long for the placement buffer, from a pass of its own
/// through the external sorter.
#[allow(clippy::too_many_arguments)]
fn long_list<S: Slot>(
    reader: &mut Reader<'_, '_>,
    ids: &VertexIds,
    shape: Shape,
    side: Side,
    v: u32,
    budget: u64,
    scratch: &Path,
    out: &mut ListOutput,
    stats: &mut SideStats,
) -> Result<()> {
    fn same<S: Slot>(a: &S, b: &S) -> bool {
        a.target() == b.target()
    }
    let dedup = !shape.keep_duplicates;
    let mut sorter = ExternalSorter::<S>::new(scratch, "long", budget as usize, dedup.then_some(same::<S>));
    let key = ids.id_of(v);
    let scratch_err = || format!("the sort's scratch files in {}", scratch.display());
    let mut pushed = 0u64;
    reader.pass(&format!("sorting the long list of vertex {v}"), |batch| {
        let mut fault = None;
        for e in batch {
            shape.arcs(e, side, |k, o, w| {
                if k == key && fault.is_none() {
                    pushed += 1;
                    fault = sorter.push(S::new(ids.rank(o), w)).err();
                }
            });
        }
        fault.map_or(Ok(()), |e| Err(e).with_context(scratch_err))
    })?;
    let mut sorted = sorter.finish().with_context(scratch_err)?;
    let written = sorted.bytes_written();
    stats.peak_scratch = stats.peak_scratch.max(written);
    stats.scratch_written += written;
    stats.pushed += pushed;
    let mut chunk: Vec<S> = Vec::new();
    let mut previous: Option<u32> = None;
    let flush = |chunk: &mut Vec<S>, out: &mut ListOutput| -> Result<()> {
        let weights = S::weights(chunk);
        out.write_part(v, &S::targets(chunk), weights.as_deref())?;
        chunk.clear();
        Ok(())
    };
    while let Some(s) = sorted.next().with_context(scratch_err)? {
        if dedup && previous == Some(s.target()) {
            continue;
        }
        previous = Some(s.target());
        stats.arcs += 1;
        stats.self_loops += u64::from(s.target() == v);
        chunk.push(s);
        if chunk.len() == LONG_LIST_CHUNK {
            flush(&mut chunk, out)?;
        }
    }
    flush(&mut chunk, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_cut_at_the_budget_and_isolate_long_lists() {
        // 16 bytes per vertex + 4 per arc, 50 bytes per step.
        let steps = plan(&[1, 2, 0, 30, 5, 5], 10, 50, 4);
        assert_eq!(
            steps,
            vec![
                Step::Range {
                    first: 10,
                    end: 12,
                    arcs: 3
                },
                Step::Range {
                    first: 12,
                    end: 13,
                    arcs: 0
                },
                Step::Long(13),
                Step::Range {
                    first: 14,
                    end: 15,
                    arcs: 5
                },
                Step::Range {
                    first: 15,
                    end: 16,
                    arcs: 5
                },
            ]
        );
        assert_eq!(reads_planned(&[1, 2, 0, 30, 5, 5], 50, 4), 4);
    }

    #[test]
    fn speculative_counts_stay_within_their_cap_and_shrink_to_the_vertices() {
        let shape = Shape {
            undirected: true,
            keep_loops: false,
            keep_duplicates: false,
        };
        // Room for 1000 IDs: doubling from the first ID's 601 entries would reach 1202.
        let mut counts = Speculative::new(4 * 1000, false);
        let dir = tempfile::tempdir().unwrap();
        let mut ids = super::super::ids::IdCollector::new(dir.path(), 1 << 20);
        for (src, dst) in [(3, 600), (700, 999), (3, 999)] {
            counts.count(&RawEdge { src, dst, weight: None }, &shape).unwrap();
            ids.insert(src).unwrap();
            ids.insert(dst).unwrap();
        }
        assert!(counts.out.capacity() <= 1000, "{} entries held", counts.out.capacity());
        let ids = ids.finish(None).unwrap();
        let (ranked, inn) = counts.into_ranked(&ids).unwrap();
        assert_eq!((ranked, inn), (vec![2, 1, 1, 2], None));
    }

    #[test]
    fn sorted_lists_merge_duplicates_keeping_the_smallest_weight() {
        let w = |t: u32, x: f32| <u64 as Slot>::new(t, Some(x));
        let mut slots = vec![w(3, 2.0), w(1, 5.0), w(3, 0.5), w(0, 1.0), w(2, 1.0), w(2, 1.0)];
        let mut offsets = vec![0, 4, 4, 6];
        let loops = sort_lists(&mut slots, &mut offsets, &mut [0; 3], 0, true);
        assert_eq!(offsets, vec![0, 3, 3, 4]);
        assert_eq!(<u64 as Slot>::targets(&slots).to_vec(), vec![0, 1, 3, 2]);
        assert_eq!(<u64 as Slot>::weights(&slots).unwrap(), vec![1.0, 5.0, 0.5, 1.0]);
        assert_eq!(loops, 2, "0 -> 0 and 2 -> 2");
    }
}
