//! Greedy Vertex Selection (GVS), Algorithm 1 of Kim et al. (ATC '19), with the incremental
//! recomputation of Section 3.2.
//!
//! Pages are `page_bytes`-sized pieces of `out.adj`; a vertex lives in the page holding the
//! first edge of its list. For every vertex `v` and every out-neighbour `u1` not selected, the
//! penalty `1 / (r(u1) · t · d_i(u1))` is charged to `u1`, where `r(u1)` is the number of
//! vertices (with out-edges) living in `u1`'s page, `d_i(u1)` its in-degree, and `t` the summed
//! out-degree of `v`'s unselected neighbours living in that page (the page's expected use when
//! `v`'s neighbours are read together). Each of the `K` rounds then selects the unselected
//! vertices with the highest penalty per edge of their list until the selection holds
//! `k · M / K` bytes (each list costing [`list_cost`](super::list_cost)), stopping at the first
//! that does not fit. (Algorithm 1's line 13 reads
//! "minimum", its text "highest normalized penalty"; the text is what makes sense — a vertex
//! whose page serves few requests is the one to cache — and is what this does.)
//!
//! Incremental rounds: selecting `S` changes only the charges made by the in-neighbours of `S`
//! (their groups lose members). Those vertices' charges are taken back under the old selection
//! and made again under the new one, instead of recomputing every vertex; the in-lists
//! (`inn`) say who they are. Neighbours are grouped by page in one pass over a list: lists are
//! sorted and pages grow with vertex IDs, so a page's neighbours are consecutive.

use diskgraph_format::Csr;
use rayon::prelude::*;

/// Penalty model of one graph: pages, page populations and in-degrees.
struct Model<'a> {
    out: &'a Csr,
    /// Page of each vertex's first edge.
    page: Vec<u64>,
    /// Vertices with out-edges living in each vertex's page (`r`), per vertex.
    population: Vec<u32>,
    in_degree: Vec<u64>,
}

impl<'a> Model<'a> {
    fn new(out: &'a Csr, inn: &Csr, page_bytes: u64) -> Self {
        let n = out.num_vertices();
        let page: Vec<u64> = (0..n).map(|v| out.offsets[v] * 4 / page_bytes.max(4)).collect();
        let mut population = vec![0u32; n];
        let mut start = 0;
        while start < n {
            let mut end = start;
            while end < n && page[end] == page[start] {
                end += 1;
            }
            let r = (start..end).filter(|&v| out.degree(v as u32) > 0).count() as u32;
            population[start..end].iter_mut().for_each(|p| *p = r.max(1));
            start = end;
        }
        let in_degree = (0..n as u32).map(|v| inn.degree(v) as u64).collect();
        Model {
            out,
            page,
            population,
            in_degree,
        }
    }

    /// Adds `sign` × the charges `v` makes (see the module doc) to `t`, given `chosen`.
    fn charge(&self, v: u32, chosen: &[bool], sign: f64, t: &mut [f64]) {
        let live = |u: u32| !chosen[u as usize] && self.out.degree(u) > 0;
        let list = self.out.neighbours(v);
        let mut i = 0;
        while i < list.len() {
            let page = self.page[list[i] as usize];
            let mut j = i;
            let mut sum = 0u64;
            while j < list.len() && self.page[list[j] as usize] == page {
                if live(list[j]) {
                    sum += self.out.degree(list[j]) as u64;
                }
                j += 1;
            }
            if sum > 0 {
                for &u in list[i..j].iter().filter(|&&u| live(u)) {
                    let r = f64::from(self.population[u as usize]);
                    t[u as usize] += sign / (r * sum as f64 * self.in_degree[u as usize].max(1) as f64);
                }
            }
            i = j;
        }
    }

    /// Every vertex's charges under `chosen`, in parallel.
    fn all_charges(&self, chosen: &[bool]) -> Vec<f64> {
        let n = self.out.num_vertices();
        (0..n as u32)
            .into_par_iter()
            .fold(
                || vec![0.0; n],
                |mut t, v| {
                    self.charge(v, chosen, 1.0, &mut t);
                    t
                },
            )
            .reduce(
                || vec![0.0; n],
                |mut a, b| {
                    a.iter_mut().zip(&b).for_each(|(x, y)| *x += y);
                    a
                },
            )
    }
}

/// The penalty GVS charges each vertex when `chosen` are selected (a full recomputation; what
/// the incremental rounds maintain).
pub fn penalties(out: &Csr, inn: &Csr, chosen: &[bool], page_bytes: u64) -> Vec<f64> {
    Model::new(out, inn, page_bytes).all_charges(chosen)
}

/// Where GVS stands after some rounds (for tests and progress).
#[derive(Clone, Debug, PartialEq)]
pub struct GvsState {
    /// Selected so far, one flag per vertex.
    pub chosen: Vec<bool>,
    /// Penalties under `chosen`, maintained incrementally.
    pub penalty: Vec<f64>,
    /// Bytes selected so far (see [`list_cost`](super::list_cost)).
    pub bytes: u64,
}

/// GVS: selects vertices whose lists cost at most `budget` bytes, in `rounds` rounds (see
/// the module doc). Returns them in selection order.
pub fn gvs(out: &Csr, inn: &Csr, budget: u64, rounds: usize, page_bytes: u64) -> Vec<u32> {
    let mut selected = Vec::new();
    gvs_rounds(out, inn, budget, rounds, page_bytes, |_, round| {
        selected.extend_from_slice(round)
    });
    selected
}

/// GVS calling `after(state, selected_this_round)` after each round.
pub(crate) fn gvs_rounds(
    out: &Csr,
    inn: &Csr,
    budget: u64,
    rounds: usize,
    page_bytes: u64,
    mut after: impl FnMut(&GvsState, &[u32]),
) {
    let model = Model::new(out, inn, page_bytes);
    let n = out.num_vertices();
    let mut state = GvsState {
        chosen: vec![false; n],
        penalty: model.all_charges(&vec![false; n]),
        bytes: 0,
    };
    let rounds = rounds.max(1) as u128;
    for k in 1..=rounds {
        let target = (u128::from(budget) * k / rounds) as u64;
        let round = pick(out, &state, target);
        if !round.is_empty() {
            update(&model, inn, &mut state, &round);
        }
        after(&state, &round);
    }
}

/// The unselected vertices with the highest penalty per edge, while the total stays within
/// `target` (stopping at the first that does not fit).
fn pick(out: &Csr, state: &GvsState, target: u64) -> Vec<u32> {
    let deg = |v: u32| out.degree(v) as u64;
    let cost = |v: u32| super::list_cost(deg(v));
    let mut candidates: Vec<(f64, u32)> = (0..out.num_vertices() as u32)
        .into_par_iter()
        .filter(|&v| !state.chosen[v as usize] && deg(v) > 0)
        .map(|v| (state.penalty[v as usize] / deg(v) as f64, v))
        .collect();
    let order = |a: &(f64, u32), b: &(f64, u32)| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1));
    // Sort only as much of the front as the round can take: grow the front until its cost
    // exceeds what is left, or it is everything.
    let left = target.saturating_sub(state.bytes);
    let mut front = 1024.min(candidates.len());
    loop {
        if front < candidates.len() {
            candidates.select_nth_unstable_by(front, order);
        }
        candidates[..front].par_sort_unstable_by(order);
        let bytes: u64 = candidates[..front].iter().map(|&(_, v)| cost(v)).sum();
        if bytes > left || front == candidates.len() {
            break;
        }
        front = (front * 4).min(candidates.len());
    }
    let mut used = state.bytes;
    let mut round = Vec::new();
    for &(_, v) in &candidates[..front] {
        if used + cost(v) > target {
            break;
        }
        used += cost(v);
        round.push(v);
    }
    round
}

/// Selects `round`: takes back the charges of the in-neighbours of `round` under the old
/// selection and makes them again under the new one.
fn update(model: &Model<'_>, inn: &Csr, state: &mut GvsState, round: &[u32]) {
    let mut affected: Vec<u32> = round.iter().flat_map(|&s| inn.neighbours(s).iter().copied()).collect();
    affected.par_sort_unstable();
    affected.dedup();
    for &v in &affected {
        model.charge(v, &state.chosen, -1.0, &mut state.penalty);
    }
    for &s in round {
        state.chosen[s as usize] = true;
        state.bytes += super::list_cost(model.out.degree(s) as u64);
    }
    for &v in &affected {
        model.charge(v, &state.chosen, 1.0, &mut state.penalty);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn csr(n: usize, arcs: &[(u32, u32)]) -> Csr {
        let mut lists = vec![Vec::new(); n];
        for &(a, b) in arcs {
            lists[a as usize].push(b);
        }
        let mut offsets = vec![0u64];
        let mut targets = Vec::new();
        for mut l in lists {
            l.sort_unstable();
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
    fn charges_follow_the_formula() {
        // 0 -> {1, 2}, 1 -> {2}, 2 -> {0}; pages of 8 bytes (2 edges): vertex 0's list starts
        // in page 0, 1's and 2's in page 1.
        let out = csr(3, &[(0, 1), (0, 2), (1, 2), (2, 0)]);
        let inn = csr(3, &[(1, 0), (2, 0), (2, 1), (0, 2)]);
        let t = penalties(&out, &inn, &[false; 3], 8);
        // From 0: page 1 holds 1 and 2 (t = 1 + 1, r = 2, d_i(1) = 1, d_i(2) = 2).
        // From 1: 2 alone in page 1 (t = 1). From 2: 0 alone in page 0 (t = 2, r = 1, d_i = 1).
        let want = [
            1.0 / 2.0,
            1.0 / (2.0 * 2.0),
            1.0 / (2.0 * 2.0 * 2.0) + 1.0 / (2.0 * 2.0),
        ];
        for (a, b) in t.iter().zip(want) {
            assert!((a - b).abs() < 1e-12, "{t:?}");
        }
    }

    #[test]
    fn incremental_rounds_keep_the_full_recomputation() {
        let mut arcs = Vec::new();
        let mut x = 7u64;
        for _ in 0..600 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let (a, b) = ((x >> 40) as u32 % 90, (x >> 20) as u32 % 90);
            arcs.push((a, b));
            arcs.push((b, a));
        }
        let out = csr(90, &arcs);
        let mut rounds = 0;
        gvs_rounds(&out, &out, 400, 10, 64, |state, round| {
            rounds += 1;
            let full = penalties(&out, &out, &state.chosen, 64);
            for (v, (a, b)) in state.penalty.iter().zip(&full).enumerate() {
                assert!((a - b).abs() < 1e-9, "round {rounds}, vertex {v}: {a} vs {b}");
            }
            assert!(state.bytes <= 400 * rounds / 10);
            assert!(round.iter().all(|&v| state.chosen[v as usize]));
        });
        assert_eq!(rounds, 10);
    }
}
