//! The MST verifier: the parents make a spanning forest of the graph's simple undirected view,
//! and no edge outside it could replace one inside (the cycle property), checked in two passes
//! over the weighted out-lists with the forest in memory.
//!
//! - **A forest**: each parent is a vertex, a root is its own parent and the smallest ID of its
//!   tree, and following parents from any vertex reaches a root without a cycle.
//! - **Of the graph**: every tree edge `(v, parent)` is an edge of the graph, weighing the least
//!   of its parallel arcs; the edge and tree counts and the total weight the run reports are the
//!   forest's (the total within `1e-9` relative, summed here in another order).
//! - **Spanning**: no arc joins two trees.
//! - **Minimum**: under the strict order of edges by (weight, smaller endpoint ID, larger
//!   endpoint ID), in which the forest is unique, every edge outside it is heavier than each
//!   tree edge on the tree path between its ends. The heaviest edge of a path comes from jump
//!   pointers (each vertex's ancestor at the last depth that is a multiple of `√depth`, and the
//!   heaviest edge up to it): `O(√depth)` steps per edge, 12 bytes per vertex.

use std::cmp::Ordering;

use diskgraph_format::Direction;

use crate::verification::{Check, Verified, VertexBits};
use crate::AlgoError;

/// Checks an MST answer.
pub(crate) fn verify(check: &Check) -> Result<Verified, AlgoError> {
    if check.directed() {
        return Err(check.wrong("a spanning forest is of an undirected graph, and this one is directed"));
    }
    let forest = Forest::of(check)?;
    let n = check.num_vertices();
    let ids = check.vertices().ids();
    let weighted = check.graph.manifest().weighted;
    // Each tree edge's weight, found with its arc: the lightest of its parallel arcs.
    let mut weight = vec![f32::INFINITY; n];
    let mut found = VertexBits::new(n);
    check.lists(Direction::Out, weighted, |u, list, weights| {
        for (i, &v) in list.iter().enumerate().filter(|&(_, &v)| v != u) {
            let w = weights.map_or(1.0, |w| w[i]);
            if w.is_nan() {
                return Err(check.wrong(format!(
                    "the edge {} -- {} has weight NaN",
                    check.label(u),
                    check.label(v)
                )));
            }
            if forest.root[u as usize] != forest.root[v as usize] {
                return Err(check.wrong(format!(
                    "the edge {} -- {} joins the trees rooted at {} and {}: the forest does not span the graph",
                    check.label(u),
                    check.label(v),
                    check.label(forest.root[u as usize]),
                    check.label(forest.root[v as usize])
                )));
            }
            for (child, parent) in [(u, v), (v, u)] {
                if forest.parent[child as usize] == parent && (!found.contains(child) || w < weight[child as usize]) {
                    weight[child as usize] = w;
                    found.insert(child);
                }
            }
        }
        Ok(())
    })?;
    if let Some(v) = (0..n as u32).find(|&v| forest.parent[v as usize] != v && !found.contains(v)) {
        let p = forest.parent[v as usize];
        return Err(check.wrong(format!(
            "the tree edge {} -- {} is no edge of the graph",
            check.label(v),
            check.label(p)
        )));
    }
    let trees = (0..n).filter(|&v| forest.parent[v] == v as u32).count();
    let edges = n - trees;
    for (name, counted) in [("trees", trees), ("forest_edges", edges)] {
        let reported = check.number_setting(name)?;
        if reported != counted as f64 {
            return Err(check.wrong(format!("the run reports {reported} {name}, the parents make {counted}")));
        }
    }
    let total = check_total(check, &forest, &weight)?;
    // The cycle property, over every edge outside the forest.
    let key = |child: u32| {
        let parent = forest.parent[child as usize];
        Key::new(weight[child as usize], ids[child as usize], ids[parent as usize])
    };
    let jumps = Jumps::new(&forest, &key);
    check.lists(Direction::Out, weighted, |u, list, weights| {
        for (i, &v) in list.iter().enumerate() {
            let tree_edge = forest.parent[u as usize] == v || forest.parent[v as usize] == u;
            if u >= v || tree_edge {
                continue;
            }
            let w = weights.map_or(1.0, |w| w[i]);
            let heaviest = jumps.heaviest(&forest, &key, u, v);
            if Key::new(w, ids[u as usize], ids[v as usize]) < key(heaviest) {
                let p = forest.parent[heaviest as usize];
                return Err(check.wrong(format!(
                    "the edge {} -- {} of weight {w} is outside the forest, yet lighter than the tree edge {} -- {} of weight {} on the tree path between its ends: swapped, the forest weighs less",
                    check.label(u),
                    check.label(v),
                    check.label(heaviest),
                    check.label(p),
                    weight[heaviest as usize]
                )));
            }
        }
        Ok(())
    })?;
    Ok(Verified(format!(
        "a minimum spanning forest of {edges} edges in {trees} trees, total weight {total}: its edges the graph's, no arc between trees, every other edge heavier than the tree path it closes ({})",
        check.passes_made()
    )))
}

/// Checks the run's `total_weight` against the forest's; returns it.
fn check_total(check: &Check, forest: &Forest, weight: &[f32]) -> Result<f64, AlgoError> {
    let tree_weights = || {
        (0..forest.parent.len())
            .filter(|&v| forest.parent[v] != v as u32)
            .map(|v| f64::from(weight[v]))
    };
    let total: f64 = tree_weights().sum();
    let magnitude: f64 = tree_weights().map(f64::abs).sum();
    let reported = match check.setting("total_weight") {
        Some(serde_json::Value::String(text)) => text.parse::<f64>().ok(),
        Some(value) => value.as_f64(),
        None => None,
    }
    .ok_or_else(|| check.wrong("the run recorded no total_weight"))?;
    let equal = match total.is_finite() {
        true => (reported - total).abs() <= 1e-9 * magnitude.max(1.0),
        false => reported.to_string() == total.to_string(),
    };
    if !equal {
        return Err(check.wrong(format!(
            "the run reports a total weight of {reported}, the forest's edges weigh {total}"
        )));
    }
    Ok(total)
}

/// An edge's place in the strict order the forest is unique under: weight (`-0.0` as `0.0`),
/// then the smaller endpoint's original ID, then the larger's.
#[derive(Clone, Copy, Debug)]
struct Key {
    weight: f32,
    lo: u64,
    hi: u64,
}

impl Key {
    fn new(weight: f32, a: u64, b: u64) -> Key {
        Key {
            weight: if weight == 0.0 { 0.0 } else { weight },
            lo: a.min(b),
            hi: a.max(b),
        }
    }
}

impl PartialEq for Key {
    fn eq(&self, other: &Key) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Key {}

impl PartialOrd for Key {
    fn partial_cmp(&self, other: &Key) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Key {
    fn cmp(&self, other: &Key) -> Ordering {
        self.weight
            .total_cmp(&other.weight)
            .then(self.lo.cmp(&other.lo))
            .then(self.hi.cmp(&other.hi))
    }
}

/// The answer's forest: each vertex's parent, root and depth.
struct Forest {
    parent: Vec<u32>,
    root: Vec<u32>,
    depth: Vec<u32>,
}

impl Forest {
    /// The forest the answer's parents make, checked to be one: parents are vertices, chains
    /// end at roots without cycles, each root the smallest ID of its tree.
    fn of(check: &Check) -> Result<Forest, AlgoError> {
        const UNKNOWN: u32 = u32::MAX;
        let values = check.unsigned()?;
        let n = check.num_vertices();
        if values.len() != n {
            return Err(check.wrong(format!("{} parents for {n} vertices", values.len())));
        }
        let resolver = check.resolver();
        let parent: Vec<u32> = values
            .iter()
            .enumerate()
            .map(|(v, &id)| {
                resolver.get(id).ok_or_else(|| {
                    check.wrong(format!(
                        "vertex {} has parent {id}, which is no vertex's ID",
                        check.label(v as u32)
                    ))
                })
            })
            .collect::<Result<_, _>>()?;
        let (mut root, mut depth) = (vec![UNKNOWN; n], vec![UNKNOWN; n]);
        let mut chain = Vec::new();
        for start in 0..n as u32 {
            let mut v = start;
            while root[v as usize] == UNKNOWN && parent[v as usize] != v {
                chain.push(v);
                if chain.len() > n {
                    return Err(check.wrong(format!("the parents of vertex {} form a cycle", check.label(start))));
                }
                v = parent[v as usize];
            }
            if root[v as usize] == UNKNOWN {
                (root[v as usize], depth[v as usize]) = (v, 0);
            }
            let (r, mut d) = (root[v as usize], depth[v as usize]);
            while let Some(c) = chain.pop() {
                d += 1;
                (root[c as usize], depth[c as usize]) = (r, d);
            }
        }
        let ids = check.vertices().ids();
        if let Some(v) = (0..n).find(|&v| ids[v] < ids[root[v] as usize]) {
            return Err(check.wrong(format!(
                "the tree of vertex {} is rooted at {}, not at its smallest ID",
                check.label(v as u32),
                check.label(root[v])
            )));
        }
        Ok(Forest { parent, root, depth })
    }
}

/// Jump pointers over a forest: each vertex's nearest proper ancestor at a depth that is a
/// multiple of `step`, and the child end of the heaviest tree edge on the way there.
struct Jumps {
    up: Vec<u32>,
    heaviest: Vec<u32>,
}

impl Jumps {
    fn new(forest: &Forest, key: &impl Fn(u32) -> Key) -> Jumps {
        let n = forest.parent.len();
        let deepest = forest.depth.iter().copied().max().unwrap_or(0);
        let step = ((deepest as f64).sqrt().ceil() as u32).max(1);
        // Vertices by depth (counting sort), so parents come before children.
        let mut start = vec![0usize; deepest as usize + 2];
        for &d in &forest.depth {
            start[d as usize + 1] += 1;
        }
        for d in 1..start.len() {
            start[d] += start[d - 1];
        }
        let mut order = vec![0u32; n];
        for v in 0..n as u32 {
            let d = forest.depth[v as usize] as usize;
            order[start[d]] = v;
            start[d] += 1;
        }
        let (mut up, mut heaviest) = (vec![0u32; n], vec![0u32; n]);
        for &v in &order {
            let p = forest.parent[v as usize];
            if p == v {
                (up[v as usize], heaviest[v as usize]) = (v, v);
            } else if forest.depth[p as usize].is_multiple_of(step) {
                (up[v as usize], heaviest[v as usize]) = (p, v);
            } else {
                let h = heaviest[p as usize];
                up[v as usize] = up[p as usize];
                heaviest[v as usize] = if key(v) > key(h) { v } else { h };
            }
        }
        Jumps { up, heaviest }
    }

    /// The child end of the heaviest tree edge on the path between `a` and `b` (same tree,
    /// distinct).
    fn heaviest(&self, forest: &Forest, key: &impl Fn(u32) -> Key, mut a: u32, mut b: u32) -> u32 {
        let mut best: Option<u32> = None;
        let mut take = |c: u32| {
            if best.is_none_or(|h| key(c) > key(h)) {
                best = Some(c);
            }
        };
        let depth = |v: u32| forest.depth[v as usize];
        // Jump while the two sit below different jump targets: the meeting point is above the
        // deeper target (see the module doc).
        while self.up[a as usize] != self.up[b as usize] {
            let (ja, jb) = (self.up[a as usize], self.up[b as usize]);
            if depth(ja) >= depth(jb) {
                take(self.heaviest[a as usize]);
                a = ja;
            }
            if depth(jb) >= depth(ja) {
                take(self.heaviest[b as usize]);
                b = jb;
            }
        }
        while a != b {
            if depth(a) >= depth(b) {
                take(a);
                a = forest.parent[a as usize];
            } else {
                take(b);
                b = forest.parent[b as usize];
            }
        }
        best.expect("distinct ends have a path between them")
    }
}
