//! Gorder's unit heap: unplaced vertices bucketed by score, with the authors' lazy decrements.

use super::NIL;

/// One vertex's entry in the [`UnitHeap`]: its stored score and its neighbours in that score's
/// list, kept together so that moving a vertex touches one cache line per vertex involved.
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C, align(16))]
pub(super) struct Node {
    pub(super) key: u64,
    pub(super) prev: u32,
    pub(super) next: u32,
}

/// The pending count of a placed vertex: far enough from zero that the at most window-many
/// unit changes still outstanding against it never bring it back to zero, so that increments
/// and decrements of placed vertices cost one add and nothing else.
pub(super) const PLACED: i32 = i32::MAX / 2;

/// Unplaced vertices by score: a doubly linked list per score value, as in the authors' code.
///
/// Decrements are lazy: they only count down the vertex's `pending` entry, and an increment
/// of a vertex with decrements pending cancels one of them instead of moving it. A vertex's
/// stored key is therefore never below its true score (`key + pending`), and [`Self::pop_max`]
/// settles the pending decrements of the top candidate until the top one has none: its score
/// is then exact and at least every other vertex's stored key, so it is a true maximum.
pub(super) struct UnitHeap {
    pub(super) nodes: Vec<Node>,
    /// Decrements not yet applied to `nodes[v].key` (≤ 0), or about [`PLACED`] once placed.
    pub(super) pending: Vec<i32>,
    /// First vertex of each score's list.
    pub(super) head: Vec<u32>,
    /// No list above this score is non-empty.
    pub(super) top: usize,
}

impl UnitHeap {
    /// Every vertex at score 0, listed in the order of `initial` (a permutation of `0..V`).
    pub(super) fn new(initial: &[u32]) -> UnitHeap {
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
    pub(super) fn increment(&mut self, v: u32) {
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
    pub(super) fn decrement(&mut self, v: u32) {
        self.pending[v as usize] -= 1;
    }

    /// Removes and returns an unplaced vertex of the highest score, marking it placed.
    pub(super) fn pop_max(&mut self) -> Option<u32> {
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
