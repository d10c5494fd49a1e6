//! Gorder (Wei, Yu, Lu and Lin, "Speedup Graph Processing by Graph Ordering", SIGMOD '16): the
//! slow state-of-the-art baseline Norder is measured against.
//!
//! The greedy algorithm places one vertex at a time: the next vertex is the unplaced one with
//! the highest score against the last `w` placed vertices (the window), where the score of `u`
//! against `v` counts the arcs between them (either direction) plus their common in-neighbours
//! (siblings). Scores live in a "unit heap": one doubly linked list of vertices per score, so
//! each score change is O(1) and the maximum is found by walking down from the last one; as in
//! the authors' code, decrements are applied lazily (see [`UnitHeap`]). Also as in their code,
//! in-neighbours whose out-degree exceeds √V are not used as siblings (nor as neighbours), a
//! vertex of out-degree above √V does not score its out-neighbours, the first vertex is the one
//! of highest in-degree, and ties (a window unrelated to every unplaced vertex in particular)
//! go to the vertex of highest in-degree at first.
//!
//! The whole graph (out- and, for directed graphs, in-lists) and the heap are held in memory:
//! [`gorder_memory`] bytes, which must fit in `--memory`.

use anyhow::{bail, Result};
use diskgraph_format::{Csr, Direction, GraphDir, Manifest};

use super::simple;
use crate::Progress;

/// The "no vertex" link in the unit heap.
const NIL: u32 = u32::MAX;
/// Placements between progress updates.
const PROGRESS_EVERY: usize = 1 << 16;

/// Gorder's default window for this graph: the average number of adjacency lists per 4 KiB page
/// of `out.adj` (1024 entries per page over the mean list length), at least 1 and at most V.
pub fn default_window(m: &Manifest) -> u64 {
    let n = m.num_vertices.max(1);
    if m.num_arcs == 0 {
        return n;
    }
    let per_page = (1024.0 * n as f64 / m.num_arcs as f64).round() as u64;
    per_page.clamp(1, n)
}

/// Bytes Gorder holds for this graph: each CSR direction it needs (8 bytes per offset, 4 per
/// arc; an undirected graph's `out.*` serves both directions) plus 28 bytes per vertex: 20 for
/// the heap, 4 for the order and 4 for the initial in-degree ranking.
pub fn gorder_memory(m: &Manifest) -> u64 {
    let directions = if m.directed { 2 } else { 1 };
    let csr = (m.num_vertices + 1)
        .saturating_mul(8)
        .saturating_add(m.num_arcs.saturating_mul(4));
    csr.saturating_mul(directions)
        .saturating_add(m.num_vertices.saturating_mul(28))
}

/// The Gorder ordering of `g` with window `window`, refused when [`gorder_memory`] exceeds
/// `memory`.
pub(super) fn gorder(g: &GraphDir, window: u64, memory: u64, progress: &mut dyn Progress) -> Result<Vec<u32>> {
    let m = g.manifest();
    let need = gorder_memory(m);
    if need > memory {
        let mib = |b: u64| b.div_ceil(1 << 20);
        bail!(
            "gorder keeps the whole graph and its priority queue in memory: this graph needs {} MiB, \
             more than --memory {} MiB (raise --memory, or use norder, which keeps O(V) state)",
            mib(need),
            mib(memory)
        );
    }
    if m.num_vertices > u64::from(NIL) {
        bail!(
            "gorder handles at most {NIL} vertices, the graph has {}",
            m.num_vertices
        );
    }
    let mut heap = UnitHeap::new(&simple::degree(g)?);
    let out = g.load_csr(Direction::Out, false)?;
    let inn = match m.directed {
        true => Some(g.load_csr(Direction::In, false)?),
        false => None,
    };
    let scores = Scores {
        out: &out,
        inn: inn.as_ref().unwrap_or(&out),
        huge: (m.num_vertices as f64).sqrt() as usize,
    };
    let n = m.num_vertices as usize;
    let window = usize::try_from(window).unwrap_or(usize::MAX);
    let mut order: Vec<u32> = Vec::with_capacity(n);
    progress.phase("gorder", Some(n as u64));
    for p in 0..n {
        let v = heap.pop_max().expect("an unplaced vertex remains while p < V");
        order.push(v);
        scores.relate(v, |u| heap.increment(u));
        if p >= window {
            scores.relate(order[p - window], |u| heap.decrement(u));
        }
        if (p + 1) % PROGRESS_EVERY == 0 {
            progress.update(p as u64 + 1);
        }
    }
    Ok(order)
}

/// The graph as Gorder's score function sees it.
struct Scores<'a> {
    out: &'a Csr,
    inn: &'a Csr,
    /// Out-degree above which a vertex is "huge" (√V).
    huge: usize,
}

impl Scores<'_> {
    /// Calls `f(u)` once per unit of score between `v` and `u`: for each out-neighbour `u` of
    /// `v` (unless `v` is huge); for each in-neighbour `x` of `v` that is not huge, `x` itself
    /// and every out-neighbour of `x` (a sibling of `v`, `v` itself included: it is placed).
    fn relate(&self, v: u32, mut f: impl FnMut(u32)) {
        if self.out.degree(v) <= self.huge {
            self.out.neighbours(v).iter().for_each(|&u| f(u));
        }
        for &x in self.inn.neighbours(v) {
            let degree = self.out.degree(x);
            if degree <= self.huge {
                f(x);
                if degree > 1 {
                    self.out.neighbours(x).iter().for_each(|&u| f(u));
                }
            }
        }
    }
}

/// One vertex's entry in the [`UnitHeap`]: its stored score and its neighbours in that score's
/// list, kept together so that moving a vertex touches one cache line per vertex involved.
#[derive(Clone, Copy)]
#[repr(align(16))]
struct Node {
    key: u64,
    prev: u32,
    next: u32,
}

/// The pending count of a placed vertex: far enough from zero that the at most window-many
/// unit changes still outstanding against it never bring it back to zero, so that increments
/// and decrements of placed vertices cost one add and nothing else.
const PLACED: i32 = i32::MAX / 2;

/// Unplaced vertices by score: a doubly linked list per score value, as in the authors' code.
///
/// Decrements are lazy: they only count down the vertex's `pending` entry, and an increment
/// of a vertex with decrements pending cancels one of them instead of moving it. A vertex's
/// stored key is therefore never below its true score (`key + pending`), and [`Self::pop_max`]
/// settles the pending decrements of the top candidate until the top one has none: its score
/// is then exact and at least every other vertex's stored key, so it is a true maximum.
struct UnitHeap {
    nodes: Vec<Node>,
    /// Decrements not yet applied to `nodes[v].key` (≤ 0), or about [`PLACED`] once placed.
    pending: Vec<i32>,
    /// First vertex of each score's list.
    head: Vec<u32>,
    /// No list above this score is non-empty.
    top: usize,
}

impl UnitHeap {
    /// Every vertex at score 0, listed in the order of `initial` (a permutation of `0..V`).
    fn new(initial: &[u32]) -> UnitHeap {
        let unlinked = Node {
            key: 0,
            prev: NIL,
            next: NIL,
        };
        let mut nodes = vec![unlinked; initial.len()];
        for w in initial.windows(2) {
            nodes[w[0] as usize].next = w[1];
            nodes[w[1] as usize].prev = w[0];
        }
        UnitHeap {
            nodes,
            pending: vec![0; initial.len()],
            head: vec![initial.first().copied().unwrap_or(NIL)],
            top: 0,
        }
    }

    fn unlink(&mut self, v: u32) {
        let Node { key, prev, next } = self.nodes[v as usize];
        match prev {
            NIL => self.head[key as usize] = next,
            p => self.nodes[p as usize].next = next,
        }
        if next != NIL {
            self.nodes[next as usize].prev = prev;
        }
    }

    fn link(&mut self, v: u32) {
        let k = self.nodes[v as usize].key as usize;
        if k >= self.head.len() {
            self.head.resize(k + 1, NIL);
        }
        let h = self.head[k];
        let node = &mut self.nodes[v as usize];
        node.prev = NIL;
        node.next = h;
        if h != NIL {
            self.nodes[h as usize].prev = v;
        }
        self.head[k] = v;
    }

    /// Raises a vertex's score by one: cancels a pending decrement if it has one (or just
    /// counts, if placed), otherwise moves it up a list.
    fn increment(&mut self, v: u32) {
        let pending = &mut self.pending[v as usize];
        if *pending != 0 {
            *pending += 1;
            return;
        }
        self.unlink(v);
        self.nodes[v as usize].key += 1;
        self.link(v);
        self.top = self.top.max(self.nodes[v as usize].key as usize);
    }

    /// Lowers a vertex's score by one, lazily. Every decrement undoes an earlier increment, so
    /// scores never go below zero.
    fn decrement(&mut self, v: u32) {
        self.pending[v as usize] -= 1;
    }

    /// Removes and returns an unplaced vertex of the highest score, marking it placed.
    fn pop_max(&mut self) -> Option<u32> {
        loop {
            let v = self.head[self.top];
            if v == NIL {
                if self.top == 0 {
                    return None;
                }
                self.top -= 1;
                continue;
            }
            let pending = std::mem::take(&mut self.pending[v as usize]);
            self.unlink(v);
            if pending == 0 {
                self.pending[v as usize] = PLACED;
                return Some(v);
            }
            let node = &mut self.nodes[v as usize];
            node.key = node
                .key
                .checked_add_signed(pending.into())
                .expect("scores stay non-negative");
            self.link(v);
        }
    }
}
