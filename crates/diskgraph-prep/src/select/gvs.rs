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
//! (their groups lose members), and of those only the groups holding a selected vertex: each
//! such group's old charge is taken back and the new one made, instead of recomputing every
//! vertex. The in-lists (`inn`) say who the in-neighbours are, a binary search finds the group
//! in a list, and a round's work is the selected vertices' in-degrees, not the lengths of
//! their in-neighbours' lists (hubs, on a power-law graph). Lists are sorted and pages grow
//! with vertex IDs, so a page's neighbours are consecutive in a list.
//!
//! A round allocates nothing of O(V): the changes are gathered per chunk of groups and added
//! in group order, and the ranking buffer and the previous selection are kept from round to
//! round. Fresh memory is costly: the kernel zeroes every page of it on first touch, and on
//! Kronecker 24 the per-worker penalty vectors a round used to fold (134 MB each) made page
//! zeroing 42% of GVS's time (K = 100: 443 s before, 124 s after; docs/BENCHMARKS.md).

use anyhow::Result;
use diskgraph_format::Csr;
use rayon::prelude::*;

use crate::progress::advance;
use crate::Progress;

/// Page groups a worker recharges at a time in a round.
const GROUPS_PER_CHUNK: usize = 1 << 12;

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

    /// Whether `u` takes charges under a selection: not selected and with out-edges.
    fn live(&self, u: u32, selected: &[bool]) -> bool {
        !selected[u as usize] && self.out.degree(u) > 0
    }

    /// `v`'s out-neighbours living in page `page`: a run of its sorted list, since pages grow
    /// with vertex IDs.
    fn group(&self, v: u32, page: u64) -> &[u32] {
        let list = self.out.neighbours(v);
        let lo = list.partition_point(|&u| self.page[u as usize] < page);
        let len = list[lo..].partition_point(|&u| self.page[u as usize] == page);
        &list[lo..lo + len]
    }

    /// Passes to `charge(u, change)` how the charges `v` makes to `group` (its neighbours in
    /// one page) change from a selection where `live_before` tells which vertices take charges
    /// to one where `live_after` does.
    fn recharge(
        &self,
        group: &[u32],
        live_before: impl Fn(u32) -> bool,
        live_after: impl Fn(u32) -> bool,
        mut charge: impl FnMut(u32, f64),
    ) {
        let (mut before, mut after) = (0u64, 0u64);
        for &u in group {
            let d = self.out.degree(u) as u64;
            before += if live_before(u) { d } else { 0 };
            after += if live_after(u) { d } else { 0 };
        }
        // The selection only grows and live vertices have out-edges, so equal sums mean the
        // same live vertices: the group's charges do not change.
        if before == after {
            return;
        }
        for &u in group {
            let share = |sum: u64| {
                let r = f64::from(self.population[u as usize]);
                1.0 / (r * sum as f64 * self.in_degree[u as usize].max(1) as f64)
            };
            if live_before(u) {
                charge(u, -share(before));
            }
            if live_after(u) {
                charge(u, share(after));
            }
        }
    }

    /// Every vertex's charges under `chosen`, in parallel.
    fn all_charges(&self, chosen: &[bool]) -> Vec<f64> {
        let n = self.out.num_vertices();
        let groups = |v: u32| {
            let list = self.out.neighbours(v);
            let mut i = 0;
            std::iter::from_fn(move || {
                let page = self.page[*list.get(i)? as usize];
                let len = list[i..].iter().take_while(|&&u| self.page[u as usize] == page).count();
                i += len;
                Some(&list[i - len..i])
            })
        };
        (0..n as u32)
            .into_par_iter()
            .fold(
                || vec![0.0; n],
                |mut t, v| {
                    for group in groups(v) {
                        self.recharge(group, |_| false, |u| self.live(u, chosen), |u, c| t[u as usize] += c);
                    }
                    t
                },
            )
            .reduce(|| vec![0.0; n], add_into)
    }
}

/// `a += b`, element by element; returns `a`.
fn add_into(mut a: Vec<f64>, b: Vec<f64>) -> Vec<f64> {
    a.iter_mut().zip(&b).for_each(|(x, y)| *x += y);
    a
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
/// the module doc). Returns them in selection order. Each round passes progress on (phase
/// `gvs`, in rounds) and is a cancellation point.
///
/// Errors: [`Interrupted`](crate::Interrupted) when `progress` asks to stop.
pub fn gvs(
    out: &Csr,
    inn: &Csr,
    budget: u64,
    rounds: usize,
    page_bytes: u64,
    progress: &mut dyn Progress,
) -> Result<Vec<u32>> {
    let mut selected = Vec::new();
    progress.phase("gvs", Some(rounds as u64));
    let mut done = 0;
    gvs_rounds(out, inn, budget, rounds, page_bytes, |_, round| {
        selected.extend_from_slice(round);
        done += 1;
        advance(progress, done)
    })?;
    Ok(selected)
}

/// GVS calling `after(state, selected_this_round)` after each round; stops with the first
/// error `after` returns.
pub(crate) fn gvs_rounds(
    out: &Csr,
    inn: &Csr,
    budget: u64,
    rounds: usize,
    page_bytes: u64,
    mut after: impl FnMut(&GvsState, &[u32]) -> Result<()>,
) -> Result<()> {
    let model = Model::new(out, inn, page_bytes);
    let n = out.num_vertices();
    let mut state = GvsState {
        chosen: vec![false; n],
        penalty: model.all_charges(&vec![false; n]),
        bytes: 0,
    };
    let rounds = rounds.max(1) as u128;
    let mut ranking = Vec::new();
    let mut chosen_before = Vec::new();
    for k in 1..=rounds {
        let target = (u128::from(budget) * k / rounds) as u64;
        let round = pick(out, &state, target, &mut ranking);
        if !round.is_empty() {
            chosen_before.clone_from(&state.chosen);
            update(&model, inn, &mut state, &chosen_before, &round);
        }
        after(&state, &round)?;
    }
    Ok(())
}

/// The unselected vertices with the highest penalty per edge, while the total stays within
/// `target` (stopping at the first that does not fit). `ranking` is scratch space of one entry
/// per vertex, kept between rounds.
fn pick(out: &Csr, state: &GvsState, target: u64, ranking: &mut Vec<(f64, u32)>) -> Vec<u32> {
    let deg = |v: u32| out.degree(v) as u64;
    let cost = |v: u32| super::list_cost(deg(v));
    let candidate = |v: u32| !state.chosen[v as usize] && deg(v) > 0;
    // Every vertex gets an entry; those that are no candidates rank below all others.
    ranking.resize(out.num_vertices(), (0.0, 0));
    let candidates: usize = ranking
        .par_iter_mut()
        .enumerate()
        .map(|(v, entry)| {
            let v = v as u32;
            let is_candidate = candidate(v);
            let score = if is_candidate {
                state.penalty[v as usize] / deg(v) as f64
            } else {
                f64::NEG_INFINITY
            };
            *entry = (score, v);
            usize::from(is_candidate)
        })
        .sum();
    let order = |a: &(f64, u32), b: &(f64, u32)| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1));
    // Sort only as much of the front as the round can take: grow the front until its cost
    // exceeds what is left, or it is every candidate.
    let left = target.saturating_sub(state.bytes);
    let mut front = 1024.min(candidates);
    loop {
        if front < ranking.len() {
            ranking.select_nth_unstable_by(front, order);
        }
        ranking[..front].par_sort_unstable_by(order);
        let bytes: u64 = ranking[..front].iter().map(|&(_, v)| cost(v)).sum();
        if bytes > left || front == candidates {
            break;
        }
        front = (front * 4).min(candidates);
    }
    let mut used = state.bytes;
    let mut round = Vec::new();
    for &(_, v) in &ranking[..front] {
        if used + cost(v) > target {
            break;
        }
        used += cost(v);
        round.push(v);
    }
    round
}

/// Selects `round` (`chosen_before`: the selection before it, equal to `state.chosen`). Only
/// the page groups that lose a member change their charges: for each selected `s` and each
/// in-neighbour `v` of `s`, `v`'s group in `s`'s page. Each such group (found by binary search
/// in `v`'s list) is recharged once; chunks of groups are recharged in parallel and their
/// changes added in group order.
fn update(model: &Model<'_>, inn: &Csr, state: &mut GvsState, chosen_before: &[bool], round: &[u32]) {
    let mut groups: Vec<(u32, u64)> = round
        .par_iter()
        .flat_map_iter(|&s| inn.neighbours(s).iter().map(move |&v| (v, model.page[s as usize])))
        .collect();
    groups.par_sort_unstable();
    groups.dedup();
    for &s in round {
        state.chosen[s as usize] = true;
        state.bytes += super::list_cost(model.out.degree(s) as u64);
    }
    let after = &state.chosen;
    let live_before = |u: u32| model.live(u, chosen_before);
    let live_after = |u: u32| model.live(u, after);
    let changes: Vec<Vec<(u32, f64)>> = groups
        .par_chunks(GROUPS_PER_CHUNK)
        .map(|chunk| {
            let mut changes = Vec::new();
            for &(v, page) in chunk {
                let group = model.group(v, page);
                model.recharge(group, live_before, live_after, |u, c| changes.push((u, c)));
            }
            changes
        })
        .collect();
    for (u, c) in changes.into_iter().flatten() {
        state.penalty[u as usize] += c;
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
            Ok(())
        })
        .unwrap();
        assert_eq!(rounds, 10);
    }
}
