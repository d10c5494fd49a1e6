//! Seeded graph generators, including the nasty cases: hubs, long paths, self-loops,
//! duplicates, isolated vertices, disconnected parts, zero and integer weights.
//!
//! Every generator is deterministic in its arguments (ChaCha8 seeded with `seed`).

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::EdgeList;

fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

/// Erdős–Rényi G(n, m): `m` edges with uniformly random endpoints (so self-loops and duplicates
/// appear naturally on small graphs).
pub fn gnm(n: usize, m: usize, directed: bool, seed: u64) -> EdgeList {
    let mut r = rng(seed);
    let edges = if n == 0 {
        Vec::new()
    } else {
        (0..m)
            .map(|_| (r.gen_range(0..n as u32), r.gen_range(0..n as u32)))
            .collect()
    };
    EdgeList::new(n, directed, edges)
}

/// R-MAT with `2^scale` vertices and `m` edges (a = 0.57, b = c = 0.19): skewed degrees, a
/// giant component and many small pieces.
pub fn rmat(scale: u32, m: usize, directed: bool, seed: u64) -> EdgeList {
    let mut r = rng(seed);
    let edges = (0..m)
        .map(|_| {
            let (mut s, mut d) = (0u32, 0u32);
            for _ in 0..scale {
                let p: f64 = r.gen();
                let (bs, bd) = match p {
                    p if p < 0.57 => (0, 0),
                    p if p < 0.76 => (0, 1),
                    p if p < 0.95 => (1, 0),
                    _ => (1, 1),
                };
                s = s << 1 | bs;
                d = d << 1 | bd;
            }
            (s, d)
        })
        .collect();
    EdgeList::new(1 << scale, directed, edges)
}

/// A star: hub 0 joined to every other vertex (directed: each spoke points a random way), plus
/// `noise` random edges.
pub fn star(n: usize, noise: usize, directed: bool, seed: u64) -> EdgeList {
    let mut r = rng(seed);
    let mut edges: Vec<(u32, u32)> = (1..n as u32)
        .map(|v| if r.gen_bool(0.5) { (0, v) } else { (v, 0) })
        .collect();
    if n > 0 {
        edges.extend((0..noise).map(|_| (r.gen_range(0..n as u32), r.gen_range(0..n as u32))));
    }
    EdgeList::new(n, directed, edges)
}

/// The path `0 → 1 → … → n−1`.
pub fn path(n: usize, directed: bool) -> EdgeList {
    EdgeList::new(n, directed, (1..n as u32).map(|v| (v - 1, v)).collect())
}

/// A 2-D grid of `rows × cols` vertices, edges right and down.
pub fn grid(rows: usize, cols: usize, directed: bool) -> EdgeList {
    let id = |r: usize, c: usize| (r * cols + c) as u32;
    let mut edges = Vec::new();
    for r in 0..rows {
        for c in 0..cols {
            if c + 1 < cols {
                edges.push((id(r, c), id(r, c + 1)));
            }
            if r + 1 < rows {
                edges.push((id(r, c), id(r + 1, c)));
            }
        }
    }
    EdgeList::new(rows * cols, directed, edges)
}

/// A random DAG: `m` edges from a lower to a higher ID (every strongly connected component is a
/// single vertex).
pub fn dag(n: usize, m: usize, seed: u64) -> EdgeList {
    let mut r = rng(seed);
    let mut edges = Vec::new();
    if n >= 2 {
        for _ in 0..m {
            let a = r.gen_range(0..n as u32 - 1);
            edges.push((a, r.gen_range(a + 1..n as u32)));
        }
    }
    EdgeList::new(n, true, edges)
}

/// `count` directed cycles of `len` vertices each, with `chords` random edges inside cycles and
/// `links` random edges from a cycle to a later one: strongly connected pieces in a DAG.
pub fn cycle_chain(count: usize, len: usize, chords: usize, links: usize, seed: u64) -> EdgeList {
    let mut r = rng(seed);
    let n = count * len;
    let mut edges = Vec::new();
    for c in 0..count {
        let base = (c * len) as u32;
        for i in 0..len as u32 {
            edges.push((base + i, base + (i + 1) % len as u32));
        }
        for _ in 0..chords {
            edges.push((base + r.gen_range(0..len as u32), base + r.gen_range(0..len as u32)));
        }
    }
    if count >= 2 {
        for _ in 0..links {
            let a = r.gen_range(0..count - 1);
            let b = r.gen_range(a + 1..count);
            edges.push((
                (a * len + r.gen_range(0..len)) as u32,
                (b * len + r.gen_range(0..len)) as u32,
            ));
        }
    }
    EdgeList::new(n, true, edges)
}

/// Randomly renumbers the vertices (keeps the structure, breaks ID locality).
pub fn relabel(mut g: EdgeList, seed: u64) -> EdgeList {
    let mut perm: Vec<u32> = (0..g.num_vertices as u32).collect();
    perm.shuffle(&mut rng(seed));
    for e in &mut g.edges {
        *e = (perm[e.0 as usize], perm[e.1 as usize]);
    }
    g
}

/// The disjoint union: `b`'s vertices are numbered after `a`'s.
///
/// # Panics
/// If one is directed and the other not, or only one is weighted.
pub fn union(mut a: EdgeList, b: EdgeList) -> EdgeList {
    assert_eq!(a.directed, b.directed, "union of directed and undirected");
    assert_eq!(
        a.weights.is_some(),
        b.weights.is_some(),
        "union of weighted and unweighted"
    );
    let off = a.num_vertices as u32;
    a.edges.extend(b.edges.iter().map(|&(s, d)| (s + off, d + off)));
    if let (Some(wa), Some(wb)) = (&mut a.weights, b.weights) {
        wa.extend(wb);
    }
    a.num_vertices += b.num_vertices;
    a
}

/// Adds `k` isolated vertices, numbered after the others (relabel to spread them).
pub fn add_isolated(mut g: EdgeList, k: usize) -> EdgeList {
    g.num_vertices += k;
    g
}

/// Adds `k` random self-loops.
pub fn add_self_loops(mut g: EdgeList, k: usize, seed: u64) -> EdgeList {
    let mut r = rng(seed);
    if g.num_vertices > 0 {
        for _ in 0..k {
            let v = r.gen_range(0..g.num_vertices as u32);
            g.edges.push((v, v));
            if let Some(w) = &mut g.weights {
                w.push(r.gen_range(0.0..2.0));
            }
        }
    }
    g
}

/// Repeats `k` random existing edges (a repeat of a weighted edge gets a fresh weight).
pub fn add_duplicates(mut g: EdgeList, k: usize, seed: u64) -> EdgeList {
    let mut r = rng(seed);
    if !g.edges.is_empty() {
        for _ in 0..k {
            let i = r.gen_range(0..g.edges.len());
            g.edges.push(g.edges[i]);
            if let Some(w) = &mut g.weights {
                let x = w[i];
                w.push(if r.gen_bool(0.5) {
                    x
                } else {
                    x * r.gen_range(0.5f32..2.0)
                });
            }
        }
    }
    g
}

/// How [`with_weights`] draws weights.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Weights {
    /// Uniform in `[lo, hi)`.
    Uniform(f32, f32),
    /// Integers `0..=max` (many equal-length paths).
    Integer(u32),
    /// All zero.
    Zero,
    /// A mix of zeros, tiny, ordinary, huge and (rarely) infinite values.
    Mixed,
    /// Uniform in `[-1, 1)`: negative weights, which SSSP must refuse.
    WithNegative,
}

/// Gives every edge a weight drawn as `kind` says.
pub fn with_weights(mut g: EdgeList, kind: Weights, seed: u64) -> EdgeList {
    let mut r = rng(seed);
    let w = (0..g.edges.len())
        .map(|_| match kind {
            Weights::Uniform(lo, hi) => r.gen_range(lo..hi),
            Weights::Integer(max) => r.gen_range(0..=max) as f32,
            Weights::Zero => 0.0,
            Weights::Mixed => match r.gen_range(0..41) {
                0..=9 => 0.0,
                10..=19 => r.gen_range(0.0..1e-6),
                20..=29 => r.gen_range(0.0..10.0),
                30..=39 => r.gen_range(1e6..1e9),
                _ => f32::INFINITY,
            },
            Weights::WithNegative => r.gen_range(-1.0..1.0),
        })
        .collect();
    g.weights = Some(w);
    g
}
