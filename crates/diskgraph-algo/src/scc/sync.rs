//! Strongly connected components on the sync engine: trimming and colouring (label
//! propagation forward, breadth-first search backward), as PrefEdge runs SCC (Nilakant et al.,
//! SYSTOR '14, §4.1: "breadth-first label propagation occurs both in the direction and
//! reverse-direction of the edges"); the colouring method is Orzan's ("On Distributed
//! Verification and Verified Distribution", 2004), as in Slota, Rajamanickam and Madduri
//! (IPDPS 2014). Single-threaded; every loop runs over an iterator the prefetcher reads ahead of.
//!
//! 1. **Trim**, throughout: every vertex counts the arcs from and to other unassigned vertices
//!    (one sequential scan at the start). A vertex whose count either way drops to zero is a
//!    component by itself; whenever a vertex is assigned — trimmed, or found below — a FIFO
//!    queue over both its lists decrements its neighbours' counts. A DAG, a path, is trimmed
//!    entirely in O(m).
//! 2. **Colour forward**: every unassigned vertex starts with its own ID as colour; a worklist
//!    (FIFO queue, seeded in descending order) pushes the larger colour along out-edges among
//!    unassigned vertices until nothing changes. Each vertex ends with the largest vertex that
//!    reaches it; a vertex whose colour is its own ID is the root of its colour.
//! 3. **Backward**: a BFS from each root over in-edges, within the root's colour, finds exactly
//!    the root's component (the vertices of that colour reaching it). Each is labelled by its
//!    smallest vertex, then trimmed out as in 1. Steps 2–3 repeat until every vertex is
//!    assigned; every round assigns at least the component of the largest unassigned vertex.
//!
//! Directed graphs need their in-edges. For an undirected graph the strongly connected
//! components are the connected components ([`wcc`](crate::wcc::sync::wcc)).

use diskgraph_engine::sync::{AheadQueue, ListReader, Reads, Sequential, SyncGraph};
use diskgraph_engine::Engine;
use diskgraph_format::Direction;

use crate::wcc::sync::{both_ways, wcc};
use crate::{AlgoError, Components};

/// Label of a vertex not assigned to a component yet.
const UNASSIGNED: u32 = u32::MAX;

/// The assignment so far, and the trimming that follows every assignment.
struct Assigned<'g> {
    labels: Vec<u32>,
    /// Arcs from other unassigned vertices into each vertex, and out of it.
    in_count: Vec<u64>,
    out_count: Vec<u64>,
    /// Assigned vertices whose neighbours' counts are still to be decremented.
    pending: AheadQueue,
    lists: ListReader<'g>,
}

impl Assigned<'_> {
    /// Assigns `v` to the component `label`; its neighbours' counts drop at the next
    /// [`trim`](Self::trim).
    fn assign(&mut self, v: u32, label: u32) {
        self.labels[v as usize] = label;
        self.pending.push(v);
    }

    /// Decrements the counts of the neighbours of every assigned vertex pending, assigning each
    /// unassigned vertex left without arcs in or out as a component by itself.
    fn trim(&mut self) -> Result<(), AlgoError> {
        while let Some(v) = self.pending.pop() {
            for (d, count) in [(Direction::Out, 0), (Direction::In, 1)] {
                let list = self.lists.neighbours(d, v)?;
                // Out-neighbours lose an in-arc, in-neighbours an out-arc.
                let counts = if count == 0 {
                    &mut self.in_count
                } else {
                    &mut self.out_count
                };
                for &w in list {
                    if w != v && self.labels[w as usize] == UNASSIGNED {
                        counts[w as usize] -= 1;
                        if counts[w as usize] == 0 {
                            self.labels[w as usize] = w;
                            self.pending.push(w);
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

/// Strongly connected components along the edge directions; each label is the component's
/// smallest vertex.
///
/// Errors: [`EngineError::MissingInEdges`](diskgraph_engine::EngineError::MissingInEdges) for a
/// directed graph opened without its in-edges; engine failures.
pub fn scc(g: &SyncGraph) -> Result<Components, AlgoError> {
    if !g.directed() {
        return wcc(g);
    }
    let n = g.num_vertices();
    let both = Reads {
        directions: both_ways(g)?,
        weights: false,
        level: 0,
    };
    let mut a = Assigned {
        labels: vec![UNASSIGNED; n],
        in_count: vec![0; n],
        out_count: vec![0; n],
        pending: AheadQueue::new(g, n, both.clone()),
        lists: g.reader(),
    };
    // 1. The counts, without self-loops; vertices without arcs one way are trimmed.
    for v in Sequential::new(g, 0..n as u32, both) {
        let outs = a
            .lists
            .neighbours(Direction::Out, v)?
            .iter()
            .filter(|&&w| w != v)
            .count();
        let ins = a
            .lists
            .neighbours(Direction::In, v)?
            .iter()
            .filter(|&&w| w != v)
            .count();
        a.out_count[v as usize] = outs as u64;
        a.in_count[v as usize] = ins as u64;
        if outs == 0 || ins == 0 {
            a.assign(v, v);
        }
    }
    a.trim()?;
    let mut colour = vec![0u32; n];
    let mut queued = vec![false; n];
    let mut rounds = 0;
    let mut lists = g.reader();
    let mut members: Vec<u32> = Vec::new();
    while a.labels.contains(&UNASSIGNED) {
        rounds += 1;
        // 2. Colours forward: the largest vertex reaching each one.
        let mut work = AheadQueue::new(g, n, Reads::out(0));
        for v in (0..n as u32).rev() {
            if a.labels[v as usize] == UNASSIGNED {
                colour[v as usize] = v;
                queued[v as usize] = true;
                work.push(v);
            }
        }
        while let Some(u) = work.pop() {
            queued[u as usize] = false;
            let c = colour[u as usize];
            for &w in lists.neighbours(Direction::Out, u)? {
                if a.labels[w as usize] == UNASSIGNED && colour[w as usize] < c {
                    colour[w as usize] = c;
                    if !queued[w as usize] {
                        queued[w as usize] = true;
                        work.push(w);
                    }
                }
            }
        }
        drop(work);
        // 3. Backward from every root within its colour.
        let roots: Vec<u32> = (0..n as u32)
            .filter(|&v| a.labels[v as usize] == UNASSIGNED && colour[v as usize] == v)
            .collect();
        let mut bfs = AheadQueue::new(
            g,
            n,
            Reads {
                directions: vec![Direction::In],
                weights: false,
                level: 0,
            },
        );
        for root in roots {
            members.clear();
            members.push(root);
            // Marks a member by taking its colour away.
            colour[root as usize] = UNASSIGNED;
            bfs.push(root);
            while let Some(v) = bfs.pop() {
                for &u in lists.neighbours(Direction::In, v)? {
                    if a.labels[u as usize] == UNASSIGNED && colour[u as usize] == root {
                        colour[u as usize] = UNASSIGNED;
                        members.push(u);
                        bfs.push(u);
                    }
                }
            }
            let smallest = *members.iter().min().expect("the root is a member");
            for &m in &members {
                a.assign(m, smallest);
            }
        }
        drop(bfs);
        a.trim()?;
    }
    Ok(Components {
        labels: a.labels,
        iterations: 1 + rounds,
    })
}
