//! Retained lists: whole adjacency lists that a pull round read and that the next round will
//! read again, kept in memory (from the budget) so that it does not.
//!
//! A bottom-up BFS level reads the lists of every unvisited vertex; the vertices it does not
//! reach are the candidates of the next level and their lists are read again, and on an
//! undirected graph the vertices it does reach are the next frontier, whose lists a top-down
//! level reads again. Late levels of a BFS on a power-law graph consist of many tiny lists
//! spread over the whole file: reading them costs nearly a full scan for a few megabytes of
//! edges. Keeping them costs those few megabytes.
//!
//! A [`Stash`] collects lists during a round (workers fill [`LocalStash`]es and hand them over
//! when their read is done), refusing lists once its capacity is used; [`Stash::finish`] turns
//! it into a [`Generation`], which replaces the previous one. The previous generation is held
//! while the next is collected and copied into place, so a stash charges each list for its
//! worker's copy, its place in the generation and the bookkeeping between them, and gets only
//! the part of the retention share that leaves room for the previous generation
//! ([`stash_capacity`]): both together stay within the share. Rounds consult the current
//! generation first: its lists are delivered from memory and left out of the reads. Only whole
//! lists are kept, keyed by physical adjacency file, and only for rounds without weights.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;

use diskgraph_format::{Direction, RankBitmap};
use rayon::prelude::*;

/// Whole lists of one adjacency file kept in memory.
pub(crate) struct Generation {
    /// The (physical) direction whose lists these are.
    pub(crate) dir: Direction,
    /// Membership, one bit per vertex; a held vertex's rank in it is its list's position, so
    /// [`Self::find`] is a rank query rather than a search.
    pub(crate) held: RankBitmap,
    /// `edges[starts.get(i)..starts.get(i + 1)]` is the list at position `i`.
    starts: ListStarts,
    edges: Vec<u32>,
}

/// Where each list starts in the edge array, in a little over 4 bytes per list: the start of
/// every 64th list in full, and each list's distance from the start of its group of 64.
/// Small lists are what a static cache mostly holds (on Kronecker 22, GVS's 20% holds 2.1 M
/// lists of 9 edges on average), so a full 8-byte start and a 4-byte vertex per list would take
/// a quarter of its memory.
struct ListStarts {
    groups: Vec<u64>,
    within: Vec<u32>,
}

impl ListStarts {
    /// The index of `starts` (one per list and the end, ascending); `None` when 64 consecutive
    /// lists hold 2^32 edges or more.
    fn new(starts: &[u64]) -> Option<Self> {
        let groups: Vec<u64> = starts.iter().step_by(64).copied().collect();
        let within = starts
            .iter()
            .enumerate()
            .map(|(i, &s)| u32::try_from(s - groups[i / 64]).ok())
            .collect::<Option<_>>()?;
        Some(ListStarts { groups, within })
    }

    /// Where the list at position `i` starts (`i` up to the number of lists: the end).
    #[inline]
    fn get(&self, i: usize) -> usize {
        (self.groups[i / 64] + u64::from(self.within[i])) as usize
    }

    /// Number of lists.
    fn lists(&self) -> usize {
        self.within.len() - 1
    }

    fn bytes(&self) -> u64 {
        (self.groups.len() * 8 + self.within.len() * 4) as u64
    }
}

impl Generation {
    /// Bytes a generation of `lists` lists holding `edges` edges takes on `n` vertices.
    pub(crate) fn bytes_for(n: usize, lists: usize, edges: u64) -> u64 {
        diskgraph_format::static_cache_bytes(n, lists as u64, edges)
    }

    /// The lists of `vertices` (ascending), `edges[starts[i]..starts[i + 1]]` being the list of
    /// `vertices[i]`; `None` when 64 consecutive lists hold 2^32 edges or more.
    pub(crate) fn from_parts(
        dir: Direction,
        n: usize,
        vertices: &[u32],
        starts: &[u64],
        edges: Vec<u32>,
    ) -> Option<Self> {
        debug_assert_eq!(starts.len(), vertices.len() + 1);
        let mut bits = vec![0u64; n.div_ceil(64)];
        for &v in vertices {
            bits[v as usize / 64] |= 1 << (v % 64);
        }
        Some(Generation {
            dir,
            held: RankBitmap::new(bits),
            starts: ListStarts::new(starts)?,
            edges,
        })
    }

    /// The edge array, to fill in place (the static cache reads its lists straight into it).
    pub(crate) fn edges_mut(&mut self) -> &mut [u32] {
        &mut self.edges
    }

    /// Bytes held.
    pub(crate) fn bytes(&self) -> u64 {
        self.held.memory_bytes() + self.starts.bytes() + self.edges.len() as u64 * 4
    }

    /// Number of lists held.
    pub(crate) fn len(&self) -> usize {
        self.starts.lists()
    }

    /// Position of `v`'s list, if held.
    pub(crate) fn find(&self, v: u32) -> Option<usize> {
        self.held.position(u64::from(v)).map(|i| i as usize)
    }

    /// The list at position `i`.
    pub(crate) fn list(&self, i: usize) -> &[u32] {
        &self.edges[self.starts.get(i)..self.starts.get(i + 1)]
    }

    /// Edges held by the lists of the vertices below `64 * word` (`word` up to the number of
    /// words of [`Self::held`]).
    pub(crate) fn edges_before_word(&self, word: usize) -> u64 {
        let lists = if word < self.held.bits().len() {
            self.held.rank(word as u64 * 64) as usize
        } else {
            self.len()
        };
        self.starts.get(lists) as u64
    }

    /// The held lists of the vertices in `64 * words.start .. 64 * words.end`, ascending, with
    /// their vertices.
    pub(crate) fn lists_in_words(&self, words: std::ops::Range<usize>) -> impl Iterator<Item = (u32, &[u32])> + '_ {
        // Members are in position order, so the first one's rank numbers them all.
        let first = if words.is_empty() {
            0
        } else {
            self.held.rank(words.start as u64 * 64) as usize
        };
        self.held
            .members_in(words)
            .zip(first..)
            .map(|(v, at)| (v as u32, self.list(at)))
    }
}

/// Lists collected during one round, up to a capacity in bytes.
pub(crate) struct Stash {
    dir: Direction,
    n: usize,
    capacity: u64,
    used: AtomicU64,
    parts: Mutex<Vec<LocalStash>>,
}

/// One worker's share of a [`Stash`].
#[derive(Default)]
pub(crate) struct LocalStash {
    vertices: Vec<u32>,
    lens: Vec<u32>,
    edges: Vec<u32>,
}

/// Bytes a kept list costs besides its edges (the static cache's and retained lists' store is
/// the same [`Generation`]).
const PER_LIST_BYTES: u64 = diskgraph_format::STATIC_LIST_OVERHEAD_BYTES;

/// Bytes a stash charges a kept list besides twice its edges (the worker's copy and the
/// generation's): its vertex and length in the worker's stash (8), its entry in the sort of
/// [`Stash::finish`] (24), the vertex and start handed to the generation (12) and the
/// generation's own per-list bytes.
const KEPT_LIST_BYTES: u64 = 44 + PER_LIST_BYTES;

/// The capacity of a stash when `retain` bytes are to hold it and the previous generation at
/// once. A generation takes at most half of what its stash charged beyond the membership
/// bitmap (every list is charged twice its edges and more than twice its own bytes), so a
/// stash of `S` beside a generation of at most `b + (S - b) / 2` (`b` the bitmap) stays within
/// `retain` when `S = (retain - b / 2) * 2 / 3`.
pub(crate) fn stash_capacity(retain: u64, n: usize) -> u64 {
    retain.saturating_sub(Generation::bytes_for(n, 0, 0) / 2) / 3 * 2
}

impl Stash {
    /// A stash for lists of direction `dir` of a graph of `n` vertices; `capacity` bytes
    /// include the membership bitmap.
    pub(crate) fn new(dir: Direction, n: usize, capacity: u64) -> Self {
        Stash {
            dir,
            n,
            capacity: capacity.saturating_sub(Generation::bytes_for(n, 0, 0)),
            used: AtomicU64::new(0),
            parts: Mutex::new(Vec::new()),
        }
    }

    /// Bytes the lists may take.
    pub(crate) fn capacity(&self) -> u64 {
        self.capacity
    }

    /// Bytes charged so far.
    pub(crate) fn charged(&self) -> u64 {
        self.used.load(Relaxed)
    }

    /// Bytes a list of `len` edges is charged.
    pub(crate) fn cost(len: u64) -> u64 {
        len * 8 + KEPT_LIST_BYTES
    }

    /// Keeps `v`'s whole list in `local` when the capacity allows; false when it is full.
    pub(crate) fn keep(&self, local: &mut LocalStash, v: u32, list: &[u32]) -> bool {
        let cost = Self::cost(list.len() as u64);
        if self.used.fetch_add(cost, Relaxed) + cost > self.capacity {
            self.used.fetch_sub(cost, Relaxed);
            return false;
        }
        local.vertices.push(v);
        local.lens.push(list.len() as u32);
        local.edges.extend_from_slice(list);
        true
    }

    /// Hands a worker's lists over.
    pub(crate) fn merge(&self, local: LocalStash) {
        if !local.vertices.is_empty() {
            self.parts.lock().unwrap_or_else(|e| e.into_inner()).push(local);
        }
    }

    /// The lists kept, sorted by vertex (`None` when nothing was kept). A vertex kept twice
    /// (its list delivered from two places) is kept once.
    pub(crate) fn finish(self) -> Option<Generation> {
        let parts = self.parts.into_inner().unwrap_or_else(|e| e.into_inner());
        let mut index: Vec<(u32, usize, u64, u32)> = Vec::new();
        for (p, part) in parts.iter().enumerate() {
            let mut at = 0u64;
            for (&v, &len) in part.vertices.iter().zip(&part.lens) {
                index.push((v, p, at, len));
                at += u64::from(len);
            }
        }
        if index.is_empty() {
            return None;
        }
        index.par_sort_unstable_by_key(|e| e.0);
        index.dedup_by_key(|e| e.0);
        let total: u64 = index.iter().map(|e| u64::from(e.3)).sum();
        let mut vertices = Vec::with_capacity(index.len());
        let mut starts = Vec::with_capacity(index.len() + 1);
        let mut edges = Vec::with_capacity(total as usize);
        starts.push(0);
        for (v, p, at, len) in index {
            vertices.push(v);
            edges.extend_from_slice(&parts[p].edges[at as usize..at as usize + len as usize]);
            starts.push(edges.len() as u64);
        }
        // Lists too long to index are a round's loss, not an error: they are read again.
        Generation::from_parts(self.dir, self.n, &vertices, &starts, edges)
    }
}

#[cfg(test)]
mod tests {
    use super::super::frontier::bit;
    use super::*;

    #[test]
    fn find_is_the_rank_of_a_held_vertex_across_words() {
        let vertices = [0, 63, 64, 130, 299];
        let starts: Vec<u64> = (0..=5).map(|i| i * 2).collect();
        let edges: Vec<u32> = (0..10).collect();
        let g = Generation::from_parts(Direction::Out, 300, &vertices, &starts, edges).unwrap();
        for (i, &v) in vertices.iter().enumerate() {
            assert_eq!(g.find(v), Some(i));
            assert_eq!(g.list(i), [2 * i as u32, 2 * i as u32 + 1]);
        }
        for v in [1, 62, 65, 129, 131, 298, 300, 100_000] {
            assert_eq!(g.find(v), None, "{v}");
        }
    }

    #[test]
    fn list_starts_span_groups_and_refuse_what_they_cannot_address() {
        let starts: Vec<u64> = (0..=200u64).map(|i| i * i * 1000).collect();
        let index = ListStarts::new(&starts).unwrap();
        assert_eq!(index.lists(), 200);
        for (i, &s) in starts.iter().enumerate() {
            assert_eq!(index.get(i) as u64, s);
        }
        // A list may be as long as it likes when it is its group's last: the next group's
        // start is held in full.
        let far: Vec<u64> = (0..64).chain([1 << 33, (1 << 33) + 5]).collect();
        let index = ListStarts::new(&far).unwrap();
        assert_eq!(
            (index.get(63), index.get(64), index.get(65)),
            (63, 1 << 33, (1 << 33) + 5)
        );
        assert!(ListStarts::new(&[0, 1, 1 << 32]).is_none());
    }

    #[test]
    fn stash_keeps_sorted_deduplicated_lists_within_capacity() {
        let stash = Stash::new(Direction::Out, 100, 1 << 20);
        let (mut a, mut b) = (LocalStash::default(), LocalStash::default());
        assert!(stash.keep(&mut a, 7, &[1, 2, 3]));
        assert!(stash.keep(&mut b, 3, &[9]));
        assert!(stash.keep(&mut b, 7, &[1, 2, 3]));
        assert!(stash.keep(&mut a, 50, &[]));
        stash.merge(a);
        stash.merge(b);
        let g = stash.finish().expect("lists kept");
        assert_eq!(g.len(), 3);
        let held: Vec<(u32, &[u32])> = g.lists_in_words(0..2).collect();
        assert_eq!(held, [(3, &[9][..]), (7, &[1, 2, 3][..]), (50, &[][..])]);
        assert!(bit(g.held.bits(), 7) && bit(g.held.bits(), 50) && !bit(g.held.bits(), 8));
        assert_eq!((g.find(3), g.find(7), g.find(50)), (Some(0), Some(1), Some(2)));
        assert_eq!((g.find(8), g.find(1000)), (None, None));
        // Words 0 (vertices 0..64: lists of 3 and 7) and 1 (50 is in word 0 too).
        assert_eq!(
            (g.edges_before_word(0), g.edges_before_word(1), g.edges_before_word(2)),
            (0, 4, 4)
        );
    }

    #[test]
    fn a_stash_beside_the_previous_generation_stays_within_the_share() {
        let (n, retain) = (100_000, 1u64 << 20);
        let mut held = 0;
        for round in 0..4u32 {
            let stash = Stash::new(Direction::Out, n, stash_capacity(retain, n));
            let mut local = LocalStash::default();
            let list: Vec<u32> = (0..64).collect();
            let mut v = 0;
            while v < n as u32 && stash.keep(&mut local, v, &list[..((v + round) % 65) as usize]) {
                v += 1;
            }
            assert!(v < n as u32, "the stash filled up");
            stash.merge(local);
            assert!(
                held + stash.charged() <= retain,
                "round {round}: {held} + {}",
                stash.charged()
            );
            held = stash.finish().expect("kept").bytes();
        }
    }

    #[test]
    fn a_full_stash_refuses_lists() {
        let fixed = Generation::bytes_for(100, 0, 0);
        let stash = Stash::new(Direction::Out, 100, fixed + 2 * Stash::cost(2));
        let mut a = LocalStash::default();
        assert!(stash.keep(&mut a, 1, &[1, 2]));
        assert!(stash.keep(&mut a, 2, &[1, 2]));
        assert!(!stash.keep(&mut a, 3, &[1]));
        stash.merge(a);
        assert_eq!(stash.finish().expect("kept").len(), 2);
        assert!(Stash::new(Direction::Out, 10, 0).finish().is_none());
    }
}
