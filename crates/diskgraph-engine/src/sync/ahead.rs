//! The iterators an algorithm registers with the sync engine, whose future the prefetcher reads
//! (PrefEdge §3.4): a sequential cursor over vertex IDs ([`Sequential`]), a FIFO queue
//! ([`AheadQueue`], a BFS queue — also an array walked in order, as Batagelj–Zaversnik's
//! vertex order is), and a binary heap ([`AheadHeap`], Dijkstra's or Prim's priority queue,
//! whose top entries in array order are taken as the next ones, the paper's approximation).
//!
//! Their state lives in arrays of atomics shared with the prefetcher thread, written by the
//! algorithm with relaxed stores and read by the prefetcher without any lock: the prefetcher
//! may see a slightly stale snapshot, which costs at most a useless prefetch, never a wrong
//! answer (§5: "PrefEdge tolerates approximations to the read-ahead function").

use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering::Relaxed};
use std::sync::Arc;

use diskgraph_format::Direction;

use super::SyncGraph;
use crate::Engine;

/// What the prefetcher reads ahead for an iterator's vertices.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reads {
    /// The directions whose lists the algorithm reads for each vertex.
    pub directions: Vec<Direction>,
    /// Whether it reads their weights too (a second file, at the same level: the quota is split
    /// between the two, PrefEdge §3.5).
    pub weights: bool,
    /// Nesting depth: the innermost iterator (highest level) is served first, leftovers go to
    /// the next outer one, and iterators of one level share equally (§3.5).
    pub level: u32,
}

impl Reads {
    /// The out-lists, at `level`.
    pub fn out(level: u32) -> Reads {
        Reads {
            directions: vec![Direction::Out],
            weights: false,
            level,
        }
    }
}

/// An iterator's position and future, as the prefetcher reads it.
pub(crate) enum Cursor {
    /// Vertices `next..end` in order.
    Sequential { next: AtomicU32, end: u32 },
    /// Queue positions `head..tail` (slot = position mod capacity).
    Queue {
        slots: Box<[AtomicU32]>,
        head: AtomicUsize,
        tail: AtomicUsize,
    },
    /// A binary heap's array, `len` entries.
    Heap { slots: Box<[AtomicU32]>, len: AtomicUsize },
}

impl Cursor {
    /// Calls `f` on the next vertices in the iterator's order, up to `limit` of them, until it
    /// returns false.
    pub(crate) fn ahead(&self, limit: usize, mut f: impl FnMut(u32) -> bool) {
        match self {
            Cursor::Sequential { next, end } => {
                let from = next.load(Relaxed);
                for v in from..(*end).min(from.saturating_add(limit as u32)) {
                    if !f(v) {
                        return;
                    }
                }
            }
            Cursor::Queue { slots, head, tail } => {
                let (h, t) = (head.load(Relaxed), tail.load(Relaxed));
                for pos in h..t.min(h + limit) {
                    if !f(slots[pos % slots.len()].load(Relaxed)) {
                        return;
                    }
                }
            }
            Cursor::Heap { slots, len } => {
                for slot in slots.iter().take(len.load(Relaxed).min(limit)) {
                    if !f(slot.load(Relaxed)) {
                        return;
                    }
                }
            }
        }
    }

    /// The next vertex of a sequential cursor (the prefetcher reads ahead by bytes from it).
    pub(crate) fn sequential_from(&self) -> Option<(u32, u32)> {
        match self {
            Cursor::Sequential { next, end } => Some((next.load(Relaxed), *end)),
            _ => None,
        }
    }
}

/// A registered iterator: its cursor and what to read for its vertices.
pub(crate) struct Registered {
    pub cursor: Cursor,
    pub reads: Reads,
}

/// Registers `cursor` with `g`'s prefetcher until the returned handle is dropped. An outermost
/// iterator (level 0) starts a pass: the engine's step so far ends.
fn register(g: &SyncGraph, cursor: Cursor, reads: Reads) -> Registration {
    if reads.level == 0 {
        g.step(None);
    }
    let it = Arc::new(Registered { cursor, reads });
    g.shared.register(Arc::clone(&it));
    Registration {
        it,
        shared: Arc::clone(&g.shared),
    }
}

/// Keeps an iterator registered; unregisters it when dropped.
struct Registration {
    it: Arc<Registered>,
    shared: Arc<super::Shared>,
}

impl Drop for Registration {
    fn drop(&mut self) {
        self.shared.unregister(&self.it);
    }
}

/// Vertex IDs `start..end` in order, read ahead sequentially (`--ift-seq`).
pub struct Sequential {
    reg: Registration,
}

impl Sequential {
    /// Vertices `range` in order on `g`, reading ahead what `reads` says.
    pub fn new(g: &SyncGraph, range: std::ops::Range<u32>, reads: Reads) -> Sequential {
        let cursor = Cursor::Sequential {
            next: AtomicU32::new(range.start),
            end: range.end,
        };
        Sequential {
            reg: register(g, cursor, reads),
        }
    }
}

impl Iterator for Sequential {
    type Item = u32;

    fn next(&mut self) -> Option<u32> {
        let Cursor::Sequential { next, end } = &self.reg.it.cursor else {
            unreachable!("a sequential iterator's cursor")
        };
        let v = next.load(Relaxed);
        (v < *end).then(|| {
            next.store(v + 1, Relaxed);
            v
        })
    }
}

/// A FIFO queue of up to `capacity` vertices at once, read ahead from its head (`--ift`); also
/// an array walked in order whose entries ahead may be rewritten ([`get`](Self::get),
/// [`set`](Self::set) by absolute position).
pub struct AheadQueue {
    reg: Registration,
}

impl AheadQueue {
    /// An empty queue on `g` holding up to `capacity` vertices at once.
    pub fn new(g: &SyncGraph, capacity: usize, reads: Reads) -> AheadQueue {
        let cursor = Cursor::Queue {
            slots: (0..capacity.max(1)).map(|_| AtomicU32::new(0)).collect(),
            head: AtomicUsize::new(0),
            tail: AtomicUsize::new(0),
        };
        AheadQueue {
            reg: register(g, cursor, reads),
        }
    }

    fn parts(&self) -> (&[AtomicU32], &AtomicUsize, &AtomicUsize) {
        match &self.reg.it.cursor {
            Cursor::Queue { slots, head, tail } => (slots, head, tail),
            _ => unreachable!("a queue's cursor"),
        }
    }

    /// Appends `v`.
    ///
    /// # Panics
    /// If the queue holds `capacity` vertices.
    pub fn push(&mut self, v: u32) {
        let (slots, head, tail) = self.parts();
        let t = tail.load(Relaxed);
        assert!(t - head.load(Relaxed) < slots.len(), "queue over its capacity");
        slots[t % slots.len()].store(v, Relaxed);
        tail.store(t + 1, Relaxed);
    }

    /// Takes the vertex at the head.
    pub fn pop(&mut self) -> Option<u32> {
        let (slots, head, tail) = self.parts();
        let h = head.load(Relaxed);
        (h < tail.load(Relaxed)).then(|| {
            head.store(h + 1, Relaxed);
            slots[h % slots.len()].load(Relaxed)
        })
    }

    /// Number of vertices queued.
    pub fn len(&self) -> usize {
        let (_, head, tail) = self.parts();
        tail.load(Relaxed) - head.load(Relaxed)
    }

    /// Whether the queue is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The absolute position of the head (positions count every push since creation).
    pub fn head(&self) -> usize {
        self.parts().1.load(Relaxed)
    }

    /// The vertex at absolute position `pos` (`head() <= pos < head() + len()`).
    pub fn get(&self, pos: usize) -> u32 {
        let (slots, head, tail) = self.parts();
        debug_assert!(head.load(Relaxed) <= pos && pos < tail.load(Relaxed));
        slots[pos % slots.len()].load(Relaxed)
    }

    /// Rewrites the vertex at absolute position `pos` (`head() <= pos < head() + len()`).
    pub fn set(&mut self, pos: usize, v: u32) {
        let (slots, head, tail) = self.parts();
        debug_assert!(head.load(Relaxed) <= pos && pos < tail.load(Relaxed));
        slots[pos % slots.len()].store(v, Relaxed);
    }
}

/// An indexed binary min-heap of vertices by key (decrease-key in place), read ahead from the
/// top of its array (`--ift`).
pub struct AheadHeap<K> {
    reg: Registration,
    /// Each vertex's key, while queued or once popped.
    keys: Vec<K>,
    /// Each vertex's position in the heap array, [`NOT_QUEUED`] when not in it.
    pos: Vec<u32>,
}

const NOT_QUEUED: u32 = u32::MAX;

impl<K: Copy + PartialOrd> AheadHeap<K> {
    /// An empty heap over vertices `0..n` of `g`, keys starting at `init`.
    pub fn new(g: &SyncGraph, n: usize, init: K, reads: Reads) -> AheadHeap<K> {
        let cursor = Cursor::Heap {
            slots: (0..n.max(1)).map(|_| AtomicU32::new(0)).collect(),
            len: AtomicUsize::new(0),
        };
        AheadHeap {
            reg: register(g, cursor, reads),
            keys: vec![init; n],
            pos: vec![NOT_QUEUED; n],
        }
    }

    fn parts(&self) -> (&[AtomicU32], &AtomicUsize) {
        match &self.reg.it.cursor {
            Cursor::Heap { slots, len } => (slots, len),
            _ => unreachable!("a heap's cursor"),
        }
    }

    /// Whether no vertex is queued.
    pub fn is_empty(&self) -> bool {
        self.parts().1.load(Relaxed) == 0
    }

    /// `v`'s key (its last, once popped).
    pub fn key(&self, v: u32) -> K {
        self.keys[v as usize]
    }

    /// Whether `v` is queued.
    pub fn contains(&self, v: u32) -> bool {
        self.pos[v as usize] != NOT_QUEUED
    }

    /// Queues `v` with `key`, or lowers its key to `key` if queued with a larger one. Returns
    /// whether anything changed.
    pub fn push_or_decrease(&mut self, v: u32, key: K) -> bool {
        let p = self.pos[v as usize];
        if p == NOT_QUEUED {
            let (slots, len) = self.parts();
            let at = len.load(Relaxed);
            slots[at].store(v, Relaxed);
            len.store(at + 1, Relaxed);
            self.pos[v as usize] = at as u32;
        } else if self.keys[v as usize].partial_cmp(&key) != Some(std::cmp::Ordering::Greater) {
            return false;
        }
        self.keys[v as usize] = key;
        self.sift_up(self.pos[v as usize] as usize);
        true
    }

    /// Takes the vertex with the smallest key, with its key.
    pub fn pop(&mut self) -> Option<(u32, K)> {
        let (slots, len) = self.parts();
        let n = len.load(Relaxed);
        if n == 0 {
            return None;
        }
        let top = slots[0].load(Relaxed);
        let last = slots[n - 1].load(Relaxed);
        len.store(n - 1, Relaxed);
        self.pos[top as usize] = NOT_QUEUED;
        if n > 1 {
            self.place(0, last);
            self.sift_down(0);
        }
        Some((top, self.keys[top as usize]))
    }

    fn at(&self, i: usize) -> u32 {
        self.parts().0[i].load(Relaxed)
    }

    fn place(&mut self, i: usize, v: u32) {
        self.parts().0[i].store(v, Relaxed);
        self.pos[v as usize] = i as u32;
    }

    fn less(&self, a: u32, b: u32) -> bool {
        self.keys[a as usize] < self.keys[b as usize]
    }

    fn sift_up(&mut self, mut i: usize) {
        let v = self.at(i);
        while i > 0 {
            let parent = (i - 1) / 2;
            let p = self.at(parent);
            if !self.less(v, p) {
                break;
            }
            self.place(i, p);
            i = parent;
        }
        self.place(i, v);
    }

    fn sift_down(&mut self, mut i: usize) {
        let n = self.parts().1.load(Relaxed);
        let v = self.at(i);
        loop {
            let mut child = 2 * i + 1;
            if child >= n {
                break;
            }
            if child + 1 < n && self.less(self.at(child + 1), self.at(child)) {
                child += 1;
            }
            let c = self.at(child);
            if !self.less(c, v) {
                break;
            }
            self.place(i, c);
            i = child;
        }
        self.place(i, v);
    }
}
