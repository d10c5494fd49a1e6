//! Serving lists held in memory (the static cache, retained lists): the active vertices' held
//! lists go to the algorithm as whole pieces, in tasks of about [`TASK_EDGES`] edges that either
//! thread can take, while the round reads the other lists.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;

use super::frontier::bit;
use super::piece::{Compute, Piece};
use super::ranges::ListWindow;
use super::retained::Generation;
use super::{SelectiveGraph, VertexSubset};
use crate::Engine;

/// Edges a task of a round served from memory delivers, about: enough that starting a task
/// costs nothing, few enough that two threads share even a skewed round evenly.
const TASK_EDGES: u64 = 1 << 16;
/// Most lists a task of a sparse round served from memory looks up.
const TASK_LISTS: usize = 4096;

/// Boundaries `0 = c_0 < c_1 < … = len` of tasks over items `0..len` whose edge counts are
/// `edges(i)`: each task ends once it holds [`TASK_EDGES`] edges or [`TASK_LISTS`] items.
fn cuts_by_edges(len: usize, edges: impl Fn(usize) -> u64) -> Vec<usize> {
    let mut cuts = vec![0];
    let mut held = 0;
    for i in 0..len {
        held += edges(i);
        if held >= TASK_EDGES || i + 1 - cuts.last().expect("0 is there") >= TASK_LISTS {
            cuts.push(i + 1);
            held = 0;
        }
    }
    if *cuts.last().expect("0 is there") < len {
        cuts.push(len);
    }
    cuts
}

impl SelectiveGraph {
    /// Delivers the lists of `g` of the vertices in `active` (except those in `skip`) to
    /// `compute` as whole pieces, for a round reading `window` of each list (in the
    /// [`ListWindow::Head`] round of a two-round read the whole list is its head; the
    /// [`ListWindow::Tail`] round gets nothing); returns the lists and edges delivered.
    pub(crate) fn serve_lists<C: Compute>(
        &self,
        g: &Generation,
        skip: Option<&[u64]>,
        active: &VertexSubset,
        window: ListWindow,
        compute: &C,
    ) -> (u64, u64) {
        if window == ListWindow::Tail {
            return (0, 0);
        }
        let served = AtomicU64::new(0);
        let served_edges = AtomicU64::new(0);
        let deliver = |held: &mut dyn Iterator<Item = (u32, &[u32])>| {
            // A task is at most TASK_EDGES edges' work: once the run is asked to stop, the
            // tasks left deliver nothing (the round's caller checks the request).
            if self.check_cancelled().is_err() {
                return;
            }
            let mut state = compute.init();
            let (mut lists, mut edges) = (0, 0);
            for (v, list) in held {
                if skip.is_some_and(|b| bit(b, v)) {
                    continue;
                }
                lists += 1;
                edges += list.len() as u64;
                let piece = Piece {
                    start: 0,
                    degree: list.len() as u64,
                    targets: list,
                    weights: None,
                };
                compute.compute(&mut state, v, piece);
            }
            compute.flush(state);
            served.fetch_add(lists, Relaxed);
            served_edges.fetch_add(edges, Relaxed);
            self.edges_delivered.fetch_add(edges, Relaxed);
        };
        // Tasks of about TASK_EDGES edges each, every one free to go to either thread: lists are
        // stored by vertex and an ordering such as Norder puts the heaviest vertices first, so
        // tasks of equal vertex counts left one thread a round's bulk. A small sparse round looks
        // its vertices up, so a large store costs nothing to rounds that touch few of its lists;
        // a dense round walks the store's membership words.
        match active.as_sparse().filter(|list| list.len() < g.len()) {
            Some(vs) => {
                let held: Vec<(u32, u32)> = vs
                    .par_iter()
                    .filter_map(|&v| g.find(v).map(|at| (v, at as u32)))
                    .collect();
                let cuts = cuts_by_edges(held.len(), |i| g.list(held[i].1 as usize).len() as u64);
                cuts.par_windows(2).with_max_len(1).for_each(|w| {
                    deliver(&mut held[w[0]..w[1]].iter().map(|&(v, at)| (v, g.list(at as usize))));
                });
            }
            None => {
                let words = g.held.bits().len();
                let total = g.edges_before_word(words);
                let tasks = total.div_ceil(TASK_EDGES).clamp(1, words.max(1) as u64) as usize;
                // Task k starts at the first word at or after which a share k / tasks of the
                // held edges starts; the last one ends at the last word.
                let mut cuts: Vec<usize> = (0..tasks)
                    .map(|k| {
                        let target = (u128::from(total) * k as u128 / tasks as u128) as u64;
                        let (mut lo, mut hi) = (0, words);
                        while lo < hi {
                            let mid = (lo + hi) / 2;
                            if g.edges_before_word(mid) < target {
                                lo = mid + 1;
                            } else {
                                hi = mid;
                            }
                        }
                        lo
                    })
                    .collect();
                cuts.push(words);
                cuts.par_windows(2).with_max_len(1).for_each(|w| {
                    deliver(&mut g.lists_in_words(w[0]..w[1]).filter(|&(v, _)| active.contains(v)));
                });
            }
        }
        (served.into_inner(), served_edges.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tasks_end_at_their_edge_or_list_bound() {
        assert_eq!(cuts_by_edges(10_000, |_| 1), [0, 4096, 8192, 10_000]);
        let heavy = |i: usize| if i == 2 { 3 * TASK_EDGES } else { 10 };
        assert_eq!(cuts_by_edges(5, heavy), [0, 3, 5]);
        let even = cuts_by_edges(100, |_| TASK_EDGES / 4);
        assert_eq!(even, (0..=25).map(|k| 4 * k).collect::<Vec<_>>());
        assert_eq!(cuts_by_edges(0, |_| 1), [0]);
    }
}
