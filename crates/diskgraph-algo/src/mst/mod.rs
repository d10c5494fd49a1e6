//! Minimum spanning forest of an undirected graph: Kruskal's algorithm on the memory engine.
//!
//! The forest is that of the graph's simple undirected view: self-loops are ignored, and of
//! parallel edges (kept duplicates) the lightest counts. An unweighted graph weighs 1 per edge,
//! as in NetworkX. Negative and infinite weights are fine; a NaN weight is refused (it compares
//! with nothing), and so is a directed graph ([`AlgoError::NeedsUndirected`], as NetworkX's
//! `NetworkXNotImplemented`).
//!
//! **The answer is unique.** Edges are totally ordered by (weight, the smaller endpoint's
//! original ID, the larger endpoint's original ID) — [`Edge`]'s order, with `-0.0` equal to
//! `0.0` — and under a strict total order a graph has one minimum spanning forest, so every
//! correct method (Kruskal here, Prim on a single-threaded engine) finds the same edges. The
//! parts every variant shares live here: the order ([`Edge`], over ranks of original IDs from
//! [`IdRanks`]), the result built from the forest's edges in any order ([`Mst::from_forest`]:
//! each tree rooted at its smallest original ID, the total weight summed in the order of
//! [`Edge`], so that it is the same bits whatever found the edges) and its presentation
//! (`present`).
//!
//! The values are each vertex's parent in its tree (an original ID; a root — the smallest ID of
//! its tree, an isolated vertex too — is its own parent, which no other vertex can be, so the
//! forest's edges are `(v, parent(v))` for every `v` that is not its own parent). The values
//! are unsigned, because original IDs may exceed `i64::MAX`, and a root names itself rather
//! than a sentinel because every 64-bit value, `u64::MAX` too, may be an original ID.
//!
//! The memory variant ([`mst`]) gathers each undirected edge once (from the arc whose tail has
//! the smaller internal ID), sorts them in parallel by the order, and adds them in that order
//! across a union-find over ID ranks (path halving, union by size) until the forest has
//! `n - 1` edges or the edges run out.

use diskgraph_engine::{Cancel, Engine, MemoryGraph, Vertices};
use diskgraph_format::Csr;
use rayon::prelude::*;
use serde_json::{json, Value as Json};

use crate::descriptor::{Algorithm, Needs, On, Outcome, PerVertex, ResultKind, Run, ValueType, Values, Variant};
use crate::stop::POLL_WORK;
use crate::AlgoError;
use diskgraph_engine::sync::SyncGraph;

pub mod sync;
pub(crate) mod verify;

/// Minimum spanning forest.
pub const MST: Algorithm = Algorithm {
    name: "mst",
    help: "minimum spanning forest of an undirected graph (weight 1 per edge when unweighted): each vertex's parent, trees rooted at their smallest ID",
    options: &[],
    cluster: None,
    result: ResultKind {
        values: ValueType::Unsigned,
        name: "parent",
        help: "the parent of each vertex in the minimum spanning forest (an original ID; each tree is rooted at its smallest ID, and a root is its own parent): the forest's edges are (v, parent) for every v not its own parent; the stats' total_weight is their total weight",
    },
    variants: &[
        Variant {
            needs: Needs::WEIGHTS,
            run: &On::<MemoryGraph>(|g, run| Ok(present(mst(g)?, run))),
        },
        Variant {
            needs: Needs::WEIGHTS,
            run: &On::<SyncGraph>(|g, run| Ok(present(sync::mst(g)?, run))),
        },
    ],
    verify: verify::verify,
    memory: |_, _, _| PerVertex::BOUND,
};

/// The parents as original IDs; the number of edges and trees and the total weight in the
/// summary and the settings (`total_weight`: a number, or the text `inf`, `-inf` or `NaN` when
/// it is not finite; `forest_edges`, `trees`).
pub(crate) fn present(r: Mst, run: &Run) -> Outcome {
    let ids = run.vertices.ids();
    let summary = format!(
        "minimum spanning forest of {} edges in {} trees, total weight {}",
        r.edges, r.trees, r.total_weight
    );
    let values = Values::Unsigned(r.parent.par_iter().map(|&p| ids[p as usize]).collect());
    let total = match r.total_weight.is_finite() {
        true => json!(r.total_weight),
        false => Json::String(r.total_weight.to_string()),
    };
    Outcome::new(values, summary)
        .vertex_valued()
        .edges(r.edges_processed)
        .setting("total_weight", total)
        .setting("forest_edges", json!(r.edges))
        .setting("trees", json!(r.trees))
}

/// The result of [`mst`] (and of every variant).
#[derive(Clone, Debug, PartialEq)]
pub struct Mst {
    /// The parent of each vertex (internal IDs) when each tree is rooted at its smallest
    /// original ID; a root is its own parent.
    pub parent: Vec<u32>,
    /// The sum of the forest's weights as `f64`, added in the order of [`Edge`].
    pub total_weight: f64,
    /// Number of edges in the forest (vertices less trees).
    pub edges: u64,
    /// Number of trees (connected components, isolated vertices included).
    pub trees: u64,
    /// Arcs examined.
    pub edges_processed: u64,
}

impl Mst {
    /// The result of the forest whose edges are `forest` (in any order), over the vertices that
    /// `ranks` ranks, having examined `edges_processed` arcs: each tree rooted at its smallest
    /// original ID, the weights summed in the order of [`Edge`].
    pub(crate) fn from_forest(ranks: &IdRanks, mut forest: Vec<Edge>, edges_processed: u64) -> Mst {
        forest.par_sort_unstable();
        let n = ranks.len();
        let total_weight = forest.iter().fold(0.0f64, |sum, e| sum + f64::from(e.weight()));
        // The forest's adjacency over ranks.
        let mut offsets = vec![0usize; n + 1];
        for e in &forest {
            offsets[e.lo as usize + 1] += 1;
            offsets[e.hi as usize + 1] += 1;
        }
        let mut sum = 0;
        for o in offsets.iter_mut() {
            sum += *o;
            *o = sum;
        }
        let mut next = offsets.clone();
        let mut targets = vec![0u32; offsets[n]];
        for e in &forest {
            for (a, b) in [(e.lo, e.hi), (e.hi, e.lo)] {
                targets[next[a as usize]] = b;
                next[a as usize] += 1;
            }
        }
        // Each tree from its smallest rank (ID), depth first.
        const NONE: u32 = u32::MAX;
        let mut parent_rank = vec![NONE; n];
        let mut stack = Vec::new();
        let mut trees = 0u64;
        for root in 0..n as u32 {
            if parent_rank[root as usize] != NONE {
                continue;
            }
            trees += 1;
            parent_rank[root as usize] = root;
            stack.push(root);
            while let Some(x) = stack.pop() {
                for &y in &targets[offsets[x as usize]..offsets[x as usize + 1]] {
                    if parent_rank[y as usize] == NONE {
                        parent_rank[y as usize] = x;
                        stack.push(y);
                    }
                }
            }
        }
        let parent = (0..n as u32)
            .into_par_iter()
            .map(|v| ranks.row(parent_rank[ranks.rank(v) as usize]))
            .collect();
        Mst {
            parent,
            total_weight,
            edges: forest.len() as u64,
            trees,
            edges_processed,
        }
    }
}

/// The rank of each vertex's original ID among the graph's (its position in ascending ID
/// order), and back: the space [`Edge`] names endpoints in, so that comparing ranks compares
/// original IDs.
pub(crate) struct IdRanks {
    n: usize,
    /// `(rank of each internal vertex, internal vertex of each rank)`; `None` when internal IDs
    /// ascend with the original ones (ranks are internal IDs).
    ranked: Option<(Vec<u32>, Vec<u32>)>,
}

impl IdRanks {
    /// The ranks of `vertices`' original IDs.
    pub(crate) fn new(vertices: &Vertices) -> IdRanks {
        let n = vertices.len();
        let ranked = vertices.ranking().map(|ranking| {
            let rows: Vec<u32> = (0..n as u32).collect();
            let by_rank = ranking.order(vertices.ids()).apply(&rows);
            let mut rank = vec![0u32; n];
            for (r, &row) in by_rank.iter().enumerate() {
                rank[row as usize] = r as u32;
            }
            (rank, by_rank)
        });
        IdRanks { n, ranked }
    }

    /// Number of vertices.
    pub(crate) fn len(&self) -> usize {
        self.n
    }

    /// The rank of internal vertex `v`'s original ID.
    pub(crate) fn rank(&self, v: u32) -> u32 {
        self.ranked.as_ref().map_or(v, |(rank, _)| rank[v as usize])
    }

    /// The internal vertex whose original ID has rank `r`.
    pub(crate) fn row(&self, r: u32) -> u32 {
        self.ranked.as_ref().map_or(r, |(_, row)| row[r as usize])
    }
}

/// An undirected edge in the forest's total order: by weight (`-0.0` equal to `0.0`), then the
/// smaller endpoint's ID rank, then the larger's (the derived order, field by field). Endpoints
/// are [`IdRanks`] ranks, so the order is that of original IDs whatever the internal order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Edge {
    /// The weight as a key whose unsigned order is the weights' numeric order.
    key: u32,
    /// The smaller endpoint's rank.
    pub(crate) lo: u32,
    /// The larger endpoint's rank.
    pub(crate) hi: u32,
}

impl Edge {
    /// The edge between ranks `a` and `b` (distinct, either order) of weight `weight` (not
    /// NaN).
    pub(crate) fn new(weight: f32, a: u32, b: u32) -> Edge {
        debug_assert!(!weight.is_nan() && a != b);
        let bits = if weight == 0.0 { 0 } else { weight.to_bits() };
        // Flip negatives entirely and set the sign of the others: unsigned order is then
        // numeric order.
        let key = if bits >> 31 == 1 { !bits } else { bits | 1 << 31 };
        Edge {
            key,
            lo: a.min(b),
            hi: a.max(b),
        }
    }

    /// Its weight (`0.0` for a `-0.0` given).
    pub(crate) fn weight(&self) -> f32 {
        match self.key >> 31 {
            1 => f32::from_bits(self.key & !(1 << 31)),
            _ => f32::from_bits(!self.key),
        }
    }
}

/// The minimum spanning forest of `g`, an undirected graph, by Kruskal's algorithm: edges
/// gathered once each, sorted by [`Edge`]'s order in parallel, and joined across a union-find.
/// Weights are 1 when the graph is unweighted (or its weights were not loaded).
///
/// Errors: [`AlgoError::NeedsUndirected`] for a directed graph; [`AlgoError::NanWeight`]
/// naming the first edge (in CSR order, self-loops aside) whose weight is NaN.
pub fn mst(g: &MemoryGraph) -> Result<Mst, AlgoError> {
    if g.directed() {
        return Err(AlgoError::NeedsUndirected(MST.name));
    }
    let out = g.out();
    let n = g.num_vertices();
    let cancel = g.cancel();
    check_weights(out, g.vertices().ids(), &cancel)?;
    let ranks = IdRanks::new(g.vertices());
    let weight = |i: usize| out.weights.as_ref().map_or(1.0, |w| w[i]);
    // Gathered a block of vertices at a time, the stop request polled per block.
    let mut edges: Vec<Edge> = (0..n.div_ceil(VERTEX_BLOCK))
        .into_par_iter()
        .flat_map_iter(|block| {
            let stopped = cancel.is_cancelled();
            let (ranks, weight) = (&ranks, &weight);
            vertex_block(block, n).filter(move |_| !stopped).flat_map(move |u| {
                let (a, b) = (out.offsets[u as usize] as usize, out.offsets[u as usize + 1] as usize);
                (a..b)
                    .filter(move |&i| u < out.targets[i])
                    .map(move |i| Edge::new(weight(i), ranks.rank(u), ranks.rank(out.targets[i])))
            })
        })
        .collect();
    cancel.check()?;
    // One step the stop request cannot enter: polled before and after.
    edges.par_sort_unstable();
    cancel.check()?;
    let mut sets = DisjointSets::new(n);
    let mut forest = Vec::with_capacity(n.saturating_sub(1));
    for piece in edges.chunks(POLL_WORK as usize) {
        if forest.len() == n.saturating_sub(1) {
            break;
        }
        cancel.check()?;
        for &e in piece {
            if forest.len() == n.saturating_sub(1) {
                break;
            }
            if sets.union(e.lo, e.hi) {
                forest.push(e);
            }
        }
    }
    Ok(Mst::from_forest(&ranks, forest, out.num_arcs() as u64))
}

/// Vertices per block of the memory variant's passes over the lists: the stop request is
/// polled once per block.
const VERTEX_BLOCK: usize = 1024;

/// The vertices of block `block` of `n` (see [`VERTEX_BLOCK`]).
fn vertex_block(block: usize, n: usize) -> std::ops::Range<u32> {
    (block * VERTEX_BLOCK) as u32..((block + 1) * VERTEX_BLOCK).min(n) as u32
}

/// Fails on the first arc (in CSR order) between distinct vertices whose weight is NaN;
/// polls `cancel` once per block of vertices.
fn check_weights(out: &Csr, ids: &[u64], cancel: &Cancel) -> Result<(), AlgoError> {
    let Some(w) = &out.weights else { return Ok(()) };
    let n = out.num_vertices();
    let bad = (0..n.div_ceil(VERTEX_BLOCK)).into_par_iter().find_map_first(|block| {
        if cancel.is_cancelled() {
            return None;
        }
        vertex_block(block, n).find_map(|u| {
            let (a, b) = (out.offsets[u as usize] as usize, out.offsets[u as usize + 1] as usize);
            (a..b)
                .find(|&i| w[i].is_nan() && out.targets[i] != u)
                .map(|i| (u, out.targets[i]))
        })
    });
    cancel.check()?;
    match bad {
        Some((u, v)) => Err(AlgoError::NanWeight {
            algorithm: MST.name,
            src: ids[u as usize],
            dst: ids[v as usize],
        }),
        None => Ok(()),
    }
}

/// Union-find over `0..n` with path halving and union by size.
struct DisjointSets {
    parent: Vec<u32>,
    size: Vec<u32>,
}

impl DisjointSets {
    fn new(n: usize) -> Self {
        DisjointSets {
            parent: (0..n as u32).collect(),
            size: vec![1; n],
        }
    }

    fn find(&mut self, mut x: u32) -> u32 {
        while self.parent[x as usize] != x {
            let up = self.parent[self.parent[x as usize] as usize];
            self.parent[x as usize] = up;
            x = up;
        }
        x
    }

    /// Joins the sets of `a` and `b`; false when they were one already.
    fn union(&mut self, a: u32, b: u32) -> bool {
        let (mut a, mut b) = (self.find(a), self.find(b));
        if a == b {
            return false;
        }
        if self.size[a as usize] < self.size[b as usize] {
            std::mem::swap(&mut a, &mut b);
        }
        self.parent[b as usize] = a;
        self.size[a as usize] += self.size[b as usize];
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_weight_key_orders_numerically_and_decodes() {
        let ws = [
            f32::NEG_INFINITY,
            -1e30,
            -1.5,
            -f32::MIN_POSITIVE,
            0.0,
            f32::MIN_POSITIVE,
            1.0,
            1.5,
            1e30,
            f32::INFINITY,
        ];
        for pair in ws.windows(2) {
            assert!(Edge::new(pair[0], 0, 1) < Edge::new(pair[1], 0, 1), "{pair:?}");
        }
        for w in ws {
            assert_eq!(Edge::new(w, 0, 1).weight(), w);
        }
        assert_eq!(Edge::new(-0.0, 3, 2), Edge::new(0.0, 2, 3));
        assert!(Edge::new(1.0, 0, 5) < Edge::new(1.0, 1, 2));
        assert!(Edge::new(1.0, 1, 2) < Edge::new(1.0, 1, 3));
    }
}
