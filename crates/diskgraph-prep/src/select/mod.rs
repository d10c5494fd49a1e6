//! Vertex selection for the BAsC static cache (Kim et al., ATC '19): which vertices' out-lists
//! to keep in memory for the whole run, within a budget of bytes of the static cache.
//!
//! - [`SelectMethod::Gvs`]: Greedy Vertex Selection, the paper's Algorithm 1 (see [`gvs`]);
//! - [`SelectMethod::HighDegree`], [`SelectMethod::LowDegree`], [`SelectMethod::Random`]: the
//!   paper's baselines HighD, LowD and Rand.
//!
//! A selection costs what the static cache will hold: 4 bytes per edge of each selected out-list
//! plus [`STATIC_LIST_OVERHEAD_BYTES`] per list, plus a membership bitmap with prefix counts
//! (12 bytes per 64 vertices) taken from the budget up front ([`list_cost`], [`fixed_cost`],
//! [`static_cache_bytes`]); vertices without out-edges are
//! never selected. The simple methods take vertices in their
//! order and skip one that no longer fits; GVS stops each round at the first that does not fit,
//! as the paper does.

mod gvs;
mod publish;

use std::time::Instant;

use anyhow::Result;
use diskgraph_format::{static_cache_bytes, Csr, STATIC_LIST_OVERHEAD_BYTES};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::Progress;

pub use gvs::{gvs, penalties, GvsState};
pub use publish::{select_graph, SelectOptions, SelectSummary};

/// How to choose the vertices.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SelectMethod {
    /// Greedy Vertex Selection in `rounds` rounds (the paper's K).
    Gvs {
        /// Rounds (K ≥ 1): each selects about `budget / K` bytes after recomputing penalties.
        rounds: usize,
    },
    /// Highest out-degree first (HighD).
    HighDegree,
    /// Lowest out-degree first (LowD).
    LowDegree,
    /// A seeded random order (Rand).
    Random {
        /// Seed of the order.
        seed: u64,
    },
}

impl SelectMethod {
    /// The method's name as the CLI spells it (`gvs`, `highd`, `lowd`, `random`).
    pub fn name(&self) -> &'static str {
        match self {
            SelectMethod::Gvs { .. } => "gvs",
            SelectMethod::HighDegree => "highd",
            SelectMethod::LowDegree => "lowd",
            SelectMethod::Random { .. } => "random",
        }
    }
}

/// A selection: the chosen vertices and what they cost.
#[derive(Clone, Debug, PartialEq)]
pub struct Selection {
    /// Selected vertices, ascending.
    pub vertices: Vec<u32>,
    /// Their out-edges in total.
    pub edges: u64,
    /// What the static cache needs for them (at most the budget): [`fixed_cost`] plus each
    /// list's [`list_cost`].
    pub bytes: u64,
    /// Seconds the selection took.
    pub seconds: f64,
}

/// Bytes a static cache spends on a list of `degree` edges (see [`static_cache_bytes`]).
pub fn list_cost(degree: u64) -> u64 {
    4 * degree + STATIC_LIST_OVERHEAD_BYTES
}

/// Bytes a static cache spends whatever it holds, on a graph of `n` vertices (see
/// [`static_cache_bytes`]).
pub fn fixed_cost(n: usize) -> u64 {
    static_cache_bytes(n, 0, 0)
}

/// Selects vertices whose out-lists (`out`) fit in a static cache of `budget_bytes`. `inn` is the
/// transpose (the out-CSR again for an undirected graph): GVS needs in-degrees and, for its
/// incremental rounds, the in-lists; `page_bytes` is the page size GVS models (see [`gvs`]).
///
/// Errors: [`Interrupted`](crate::Interrupted) when `progress` asks to stop (between GVS's
/// rounds).
pub fn select(
    out: &Csr,
    inn: &Csr,
    method: &SelectMethod,
    budget_bytes: u64,
    page_bytes: u64,
    progress: &mut dyn Progress,
) -> Result<Selection> {
    let started = Instant::now();
    let n = out.num_vertices() as u32;
    let deg = |v: u32| out.degree(v) as u64;
    let fixed = fixed_cost(n as usize);
    let budget = budget_bytes.saturating_sub(fixed);
    let mut vertices = match method {
        SelectMethod::Gvs { rounds } => gvs(out, inn, budget, (*rounds).max(1), page_bytes, progress)?,
        simple => {
            let mut order: Vec<u32> = (0..n).filter(|&v| deg(v) > 0).collect();
            match simple {
                SelectMethod::HighDegree => order.sort_by_key(|&v| (std::cmp::Reverse(deg(v)), v)),
                SelectMethod::LowDegree => order.sort_by_key(|&v| (deg(v), v)),
                SelectMethod::Random { seed } => order.shuffle(&mut ChaCha8Rng::seed_from_u64(*seed)),
                SelectMethod::Gvs { .. } => unreachable!("handled above"),
            }
            fill(order, budget, |v| list_cost(deg(v)))
        }
    };
    vertices.sort_unstable();
    let edges = vertices.iter().map(|&v| deg(v)).sum();
    let bytes = if vertices.is_empty() {
        0
    } else {
        fixed + vertices.iter().map(|&v| list_cost(deg(v))).sum::<u64>()
    };
    Ok(Selection {
        vertices,
        edges,
        bytes,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// Takes vertices in `order` while they fit, skipping those that do not.
fn fill(order: Vec<u32>, budget: u64, cost: impl Fn(u32) -> u64) -> Vec<u32> {
    let mut used = 0;
    order
        .into_iter()
        .filter(|&v| {
            let fits = used + cost(v) <= budget;
            if fits {
                used += cost(v);
            }
            fits
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NoProgress;

    #[test]
    fn costs_add_up_to_the_static_cache_size() {
        let degrees = [0u64, 1, 7, 1000];
        let listed: u64 = fixed_cost(1000) + degrees.iter().map(|&d| list_cost(d)).sum::<u64>();
        assert_eq!(listed, static_cache_bytes(1000, 4, 1008));
    }

    /// A star 0 → 1..=8, plus 1 → 2 and 3 → 4 (degrees 8, 1, 0, 1, 0...).
    fn star() -> Csr {
        let mut lists: Vec<Vec<u32>> = vec![(1..=8).collect(), vec![2], vec![], vec![4]];
        lists.resize(9, Vec::new());
        let mut offsets = vec![0u64];
        let mut targets = Vec::new();
        for l in lists {
            targets.extend(l);
            offsets.push(targets.len() as u64);
        }
        Csr {
            offsets,
            targets,
            weights: None,
        }
    }

    #[test]
    fn every_method_respects_the_budget_and_skips_empty_lists() {
        let g = star();
        // Nine vertices: 24 fixed bytes; lists of 0, 1 and 3 cost 37, 9 and 9 bytes.
        assert_eq!((fixed_cost(9), list_cost(8), list_cost(1)), (24, 37, 9));
        for method in [
            SelectMethod::Gvs { rounds: 3 },
            SelectMethod::HighDegree,
            SelectMethod::LowDegree,
            SelectMethod::Random { seed: 5 },
        ] {
            for budget in [0, 24, 32, 33, 60, 61, 78, 79, 1000] {
                let s = select(&g, &g, &method, budget, 16, &mut NoProgress).unwrap();
                assert!(s.bytes <= budget, "{method:?} {budget}: {s:?}");
                assert!(s.vertices.windows(2).all(|w| w[0] < w[1]));
                assert!(s.vertices.iter().all(|&v| g.degree(v) > 0), "{method:?}: {s:?}");
                if budget >= 79 {
                    assert_eq!(s.vertices, vec![0, 1, 3], "{method:?}: everything fits");
                    assert_eq!((s.edges, s.bytes), (10, 79));
                }
            }
        }
        let chosen =
            |method: SelectMethod, budget: u64| select(&g, &g, &method, budget, 16, &mut NoProgress).unwrap().vertices;
        assert_eq!(chosen(SelectMethod::HighDegree, 65), vec![0]);
        assert_eq!(chosen(SelectMethod::LowDegree, 65), vec![1, 3]);
        assert_eq!(chosen(SelectMethod::HighDegree, 60), vec![1, 3], "0 does not fit");
    }
}
