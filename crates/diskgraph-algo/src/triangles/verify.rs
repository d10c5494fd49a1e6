//! The triangles verifier: the per-vertex counts sum to three times the total the run reports,
//! and a sample of vertices — 63 drawn with a fixed seed, and the vertex in most triangles —
//! has its count recomputed by a second method, in two passes over the simple undirected view.
//! The kernels orient edges by degree and intersect oriented lists; here a vertex's triangles
//! are the edges among its neighbours: the first pass marks, for every vertex, which sampled
//! vertices it neighbours (a bit each in a word per vertex), the second counts, for every edge
//! `u — w`, the sampled vertices both ends neighbour — each edge seen from both ends.

use crate::verification::{Check, Verified};
use crate::AlgoError;

/// Sampled vertices besides the one in most triangles.
const SAMPLE: usize = 63;
/// The sample's seed.
const SEED: u64 = 0x7121_a9e5;

/// Checks a triangle-count answer.
pub(crate) fn verify(check: &Check) -> Result<Verified, AlgoError> {
    let counts = check.unsigned()?;
    let n = check.num_vertices();
    if counts.len() != n {
        return Err(check.wrong(format!("{} counts for {n} vertices", counts.len())));
    }
    let total = check.number_setting("triangles")?;
    let sum: u128 = counts.iter().map(|&c| u128::from(c)).sum();
    if sum as f64 != 3.0 * total {
        return Err(check.wrong(format!(
            "the counts per vertex sum to {sum}, not three times the {total} triangles reported"
        )));
    }
    let mut sample = check.vertices().sample(SAMPLE.min(n), SEED);
    if let Some(most) = (0..n as u32).max_by_key(|&v| counts[v as usize]) {
        sample.push(most);
    }
    sample.sort_unstable();
    sample.dedup();
    // Bit i of near[v]: v neighbours sample[i].
    let mut near = vec![0u64; n];
    check.simple_lists(|v, neighbours| {
        if let Ok(i) = sample.binary_search(&v) {
            neighbours.iter().for_each(|&w| near[w as usize] |= 1 << i);
        }
        Ok(())
    })?;
    let mut twice = vec![0u64; sample.len()];
    check.simple_lists(|u, neighbours| {
        let mine = near[u as usize];
        if mine != 0 {
            for &w in neighbours {
                let mut both = mine & near[w as usize];
                while both != 0 {
                    twice[both.trailing_zeros() as usize] += 1;
                    both &= both - 1;
                }
            }
        }
        Ok(())
    })?;
    for (i, &s) in sample.iter().enumerate() {
        if twice[i] / 2 != counts[s as usize] {
            return Err(check.wrong(format!(
                "vertex {} has {} triangles, yet {} edges join its neighbours",
                check.label(s),
                counts[s as usize],
                twice[i] / 2
            )));
        }
    }
    Ok(Verified(format!(
        "{total} triangles, the counts summing to three times that; {} sampled vertices' counts (seed {SEED:#x}, the vertex in most triangles among them) equal to the edges among their neighbours, counted again ({})",
        sample.len(),
        check.passes_made()
    )))
}
