//! The sort-by-a-score orderings: original IDs, a random permutation, in-degree and PageRank.
//! Each keeps O(V) state and reads the CSR sequentially (PageRank) or only its offset index.

use anyhow::Result;
use diskgraph_format::{ArcStream, Direction, GraphDir};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::slice::ParallelSliceMut;

use crate::progress::{advance, Ticker};
use crate::Progress;

/// PageRank power iterations for the `pagerank` ordering.
const PAGERANK_ITERATIONS: usize = 10;
/// PageRank damping factor.
const ALPHA: f64 = 0.85;

/// Ascending original ID: the identity when `ids.u64` is already ascending.
pub(super) fn original(g: &GraphDir) -> Result<Vec<u32>> {
    let n = g.num_vertices() as usize;
    let mut order: Vec<u32> = (0..n).map(|v| v as u32).collect();
    if !g.manifest().ids_ascending() {
        let ids = g.original_ids()?;
        order.par_sort_unstable_by_key(|&v| ids[v as usize]);
    }
    Ok(order)
}

/// A uniformly random permutation of `0..n` drawn from `seed` (ChaCha8, Fisher–Yates).
pub(super) fn random(n: u64, seed: u64) -> Vec<u32> {
    let mut order: Vec<u32> = (0..n).map(|v| v as u32).collect();
    order.shuffle(&mut ChaCha8Rng::seed_from_u64(seed));
    order
}

/// In-degree of every vertex (out-degree of an undirected graph), from the offset index.
pub(super) fn in_degrees(g: &GraphDir) -> Result<Vec<u64>> {
    let offsets = g.load_offsets(Direction::In)?;
    Ok(offsets.windows(2).map(|w| w[1] - w[0]).collect())
}

/// The vertices by descending in-degree, ties by ascending ID.
pub(super) fn degree(g: &GraphDir) -> Result<Vec<u32>> {
    let degrees = in_degrees(g)?;
    let mut order: Vec<u32> = (0..degrees.len()).map(|v| v as u32).collect();
    order.par_sort_unstable_by_key(|&v| (std::cmp::Reverse(degrees[v as usize]), v));
    Ok(order)
}

/// The vertices by descending PageRank after [`PAGERANK_ITERATIONS`] power iterations from the
/// uniform vector (alpha 0.85, dangling mass spread uniformly, edge weights ignored, duplicate
/// arcs counted), ties by ascending ID. Each iteration streams `out.*` once through a buffer of
/// `buffer_bytes`.
pub(super) fn pagerank(g: &GraphDir, buffer_bytes: usize, progress: &mut dyn Progress) -> Result<Vec<u32>> {
    let n = g.num_vertices() as usize;
    let mut rank = vec![1.0 / n as f64; n];
    let mut next = vec![0.0f64; n];
    progress.phase("pagerank", Some(PAGERANK_ITERATIONS as u64));
    for iteration in 0..PAGERANK_ITERATIONS {
        let mut dangling = 0.0;
        let mut s = ArcStream::open(g, Direction::Out, false, buffer_bytes)?;
        let mut stops = Ticker::new();
        while let Some((v, degree)) = s.next_vertex()? {
            stops.poll(progress, s.position() + u64::from(v))?;
            if degree == 0 {
                dangling += rank[v as usize];
                continue;
            }
            let share = ALPHA * rank[v as usize] / degree as f64;
            while let Some((u, _)) = s.next_arc()? {
                next[u as usize] += share;
            }
        }
        let base = (1.0 - ALPHA + ALPHA * dangling) / n as f64;
        next.iter_mut().for_each(|x| *x += base);
        std::mem::swap(&mut rank, &mut next);
        next.iter_mut().for_each(|x| *x = 0.0);
        advance(progress, iteration as u64 + 1)?;
    }
    let mut order: Vec<u32> = (0..n).map(|v| v as u32).collect();
    order.par_sort_unstable_by(|&a, &b| rank[b as usize].total_cmp(&rank[a as usize]).then(a.cmp(&b)));
    Ok(order)
}
