//! k-core decomposition: Batagelj–Zaversnik bucket peeling on the simple undirected view.
//!
//! The core number of a vertex is the largest `k` such that it belongs to a subgraph where
//! every vertex has degree at least `k` (NetworkX's `core_number` of the simple undirected
//! graph). Direction is ignored, duplicate edges and the two directions of an edge count once,
//! and self-loops are dropped: the simple view. For an undirected graph that is already simple
//! the CSR is used as is; otherwise the view is built in parallel, merging each vertex's sorted
//! out-list with its sorted in-list (directed graphs; without a loaded in-CSR the transpose is
//! built first).
//!
//! The peeling is Batagelj and Zaversnik's O(m) algorithm ("An O(m) Algorithm for Cores
//! Decomposition of Networks", 2003): vertices sorted by degree in an array with bucket
//! boundaries; taking vertices in that order, each one's core is its current degree, and every
//! neighbour of higher degree loses one and moves down one bucket by a swap. It is sequential.

use std::borrow::Cow;

use diskgraph_engine::MemoryGraph;
use diskgraph_format::Csr;
use rayon::prelude::*;

use crate::in_edges;

/// Vertices per block when building the simple view in parallel.
const BLOCK: usize = 4096;

/// The result of [`kcore`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KCore {
    /// Core number of every vertex.
    pub core: Vec<u32>,
    /// The largest core number (0 for an empty graph).
    pub max_core: u32,
}

/// Core numbers on the simple undirected view of `g` (see the module doc). A directed graph
/// loaded without in-edges gets its transpose built first (O(E) more memory).
pub fn kcore(g: &MemoryGraph) -> KCore {
    let view = simple_view(g);
    let core = peel(&view);
    let max_core = core.par_iter().copied().max().unwrap_or(0);
    KCore { core, max_core }
}

/// The simple undirected view of `g`: borrowed when the graph already is one.
fn simple_view(g: &MemoryGraph) -> Cow<'_, Csr> {
    let out = g.out();
    let n = g.num_vertices();
    let transpose;
    let inn = if g.directed() {
        Some(match in_edges(g) {
            Some(inn) => inn,
            None => {
                transpose = transposed(out);
                &transpose
            }
        })
    } else {
        let simple = (0..n as u32).into_par_iter().with_min_len(1024).all(|v| {
            let nb = out.neighbours(v);
            nb.windows(2).all(|w| w[0] < w[1]) && nb.binary_search(&v).is_err()
        });
        if simple {
            return Cow::Borrowed(out);
        }
        None
    };
    let blocks: Vec<(Vec<u64>, Vec<u32>)> = (0..n.div_ceil(BLOCK))
        .into_par_iter()
        .map(|b| {
            let (mut degrees, mut targets) = (Vec::new(), Vec::new());
            for v in (b * BLOCK..((b + 1) * BLOCK).min(n)).map(|v| v as u32) {
                let before = targets.len();
                merge_simple(v, out.neighbours(v), inn.map_or(&[][..], |i| i.neighbours(v)), &mut targets);
                degrees.push((targets.len() - before) as u64);
            }
            (degrees, targets)
        })
        .collect();
    let mut offsets = Vec::with_capacity(n + 1);
    offsets.push(0u64);
    let mut total = 0;
    for (degrees, _) in &blocks {
        for d in degrees {
            total += d;
            offsets.push(total);
        }
    }
    let targets = blocks.into_iter().flat_map(|(_, t)| t).collect();
    Cow::Owned(Csr {
        offsets,
        targets,
        weights: None,
    })
}

/// The transpose of `out` (no weights), each list ascending.
fn transposed(out: &Csr) -> Csr {
    let n = out.num_vertices();
    let mut offsets = vec![0u64; n + 1];
    for &t in &out.targets {
        offsets[t as usize + 1] += 1;
    }
    for v in 0..n {
        offsets[v + 1] += offsets[v];
    }
    let mut fill = offsets.clone();
    let mut targets = vec![0u32; out.num_arcs()];
    for u in 0..n as u32 {
        for &v in out.neighbours(u) {
            targets[fill[v as usize] as usize] = u;
            fill[v as usize] += 1;
        }
    }
    Csr {
        offsets,
        targets,
        weights: None,
    }
}

/// Appends to `into` the union of the sorted lists `a` and `b`, without duplicates or `v`.
fn merge_simple(v: u32, a: &[u32], b: &[u32], into: &mut Vec<u32>) {
    let (mut i, mut j) = (0, 0);
    let mut last = None;
    while i < a.len() || j < b.len() {
        let x = if j == b.len() || (i < a.len() && a[i] <= b[j]) {
            i += 1;
            a[i - 1]
        } else {
            j += 1;
            b[j - 1]
        };
        if x != v && last != Some(x) {
            into.push(x);
            last = Some(x);
        }
    }
}

/// Batagelj–Zaversnik peeling of a simple symmetric CSR: the core number of every vertex.
fn peel(g: &Csr) -> Vec<u32> {
    let n = g.num_vertices();
    let mut deg: Vec<u32> = (0..n as u32).into_par_iter().map(|v| g.degree(v) as u32).collect();
    let max_deg = deg.iter().copied().max().unwrap_or(0) as usize;
    // bin[d]: where the vertices of degree d start in `vert`.
    let mut bin = vec![0usize; max_deg + 2];
    for &d in &deg {
        bin[d as usize + 1] += 1;
    }
    for d in 1..bin.len() {
        bin[d] += bin[d - 1];
    }
    let mut vert = vec![0u32; n];
    let mut pos = vec![0usize; n];
    {
        let mut fill = bin.clone();
        for v in 0..n {
            let d = deg[v] as usize;
            pos[v] = fill[d];
            vert[fill[d]] = v as u32;
            fill[d] += 1;
        }
    }
    for i in 0..n {
        let v = vert[i] as usize;
        let dv = deg[v];
        for &u in g.neighbours(v as u32) {
            let u = u as usize;
            let du = deg[u];
            if du > dv {
                // Swap u with the first vertex of its bucket, then shrink the bucket past it.
                let (pu, pw) = (pos[u], bin[du as usize]);
                let w = vert[pw] as usize;
                if u != w {
                    pos[u] = pw;
                    vert[pu] = w as u32;
                    pos[w] = pu;
                    vert[pw] = u as u32;
                }
                bin[du as usize] += 1;
                deg[u] = du - 1;
            }
        }
    }
    deg
}
