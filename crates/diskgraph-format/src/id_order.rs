//! Rows in ascending original-ID order. Every result is reported by ascending original ID; a
//! reordered graph's vertices are not in that order, so each run on one turns its rows around.
//! Sorting 16.8 M positions by a randomly accessed key took ~2.5 s of CPU on Kronecker 24 —
//! most of a bfs — so IDs that are distinct and dense (a generated graph, or any import whose
//! IDs are close to `0..n`) are ranked by counting instead: one pass for their range, one to
//! set their bits in a [`RankBitmap`] of it (split among the workers), and then each column is
//! scattered in parallel, row `i` straight to the rank of its ID — one random pass per column
//! where a gather through an order of positions took three (build the order, gather the
//! values, gather the IDs).

use std::borrow::Cow;

use rayon::prelude::*;

use crate::manifest::MAX_VERTICES;
use crate::rank_bitmap::RankBitmap;
use crate::shared_slice::SharedSlice;

/// Counting needs a bitmap of the IDs' span: allowed up to this many bits per ID (8 bytes, as
/// much as the IDs themselves).
const MAX_SPAN_PER_ID: u64 = 64;

/// Rows per parallel task when scattering or gathering a column. Under Miri a few, so that its
/// small test inputs are still split among tasks (the scatter's unsafe writes race only then).
const ROWS_PER_TASK: usize = if cfg!(miri) { 16 } else { 1 << 14 };

/// How rows in a graph's internal order go to ascending order of their original IDs.
pub struct IdOrder<'a> {
    ids: &'a [u64],
    how: Cow<'a, How>,
}

/// What an [`IdOrder`] knows of its IDs, computed once: a caller that puts the results of many
/// runs in order (a loaded index) keeps it, and each run's [`IdRanking::order`] costs nothing
/// (ranking 16.8 M IDs takes about 25 ms on two cores: `cargo bench --bench id_order`).
#[derive(Clone)]
pub struct IdRanking {
    rows: usize,
    how: How,
}

#[derive(Clone)]
enum How {
    /// Distinct IDs of a span at most [`MAX_SPAN_PER_ID`] times their number: row `i` goes to
    /// the rank of `ids[i] - min` among them (`ids[i] - min` itself when they fill the span).
    Ranked {
        present: RankBitmap,
        min: u64,
        fills_span: bool,
    },
    /// Anything else: `order[j]` is the row that goes to position `j` (a stable sort).
    Sorted(Vec<usize>),
}

impl IdRanking {
    /// The ranking of `ids` (one original ID per row).
    pub fn new(ids: &[u64]) -> Self {
        let how = ranked(ids).unwrap_or_else(|| {
            let mut order: Vec<usize> = (0..ids.len()).collect();
            order.par_sort_by_key(|&i| ids[i]);
            How::Sorted(order)
        });
        IdRanking { rows: ids.len(), how }
    }

    /// Bytes held: 12 per 64 IDs of the span when counted (1.5 bits per ID for dense IDs), 8
    /// per ID when sorted.
    pub fn bytes(&self) -> u64 {
        match &self.how {
            How::Ranked { present, .. } => present.memory_bytes(),
            How::Sorted(order) => (order.len() * std::mem::size_of::<usize>()) as u64,
        }
    }

    /// The order of `ids`, which must be the IDs this ranking was made from.
    ///
    /// # Panics
    /// If `ids` has another number of rows.
    pub fn order<'a>(&'a self, ids: &'a [u64]) -> IdOrder<'a> {
        assert_eq!(ids.len(), self.rows, "the IDs the ranking was made from");
        IdOrder {
            ids,
            how: Cow::Borrowed(&self.how),
        }
    }
}

impl<'a> IdOrder<'a> {
    /// The order of `ids` (one original ID per row).
    pub fn new(ids: &'a [u64]) -> Self {
        IdOrder {
            ids,
            how: Cow::Owned(IdRanking::new(ids).how),
        }
    }

    /// `column` (one value per row) in ascending order of ID; rows of equal IDs, which a valid
    /// graph never has, keep their relative order.
    ///
    /// # Panics
    /// If `column` has not one value per row.
    pub fn apply<T: Copy + Default + Send + Sync>(&self, column: &[T]) -> Vec<T> {
        let mut out = vec![T::default(); column.len()];
        self.apply_into(column, &mut out);
        out
    }

    /// [`apply`](Self::apply) into `out`: a caller putting many columns in order (the rows of
    /// a distance matrix) writes them into one allocation instead of one each.
    ///
    /// # Panics
    /// If `column` or `out` has not one value per row.
    pub fn apply_into<T: Copy + Send + Sync>(&self, column: &[T], out: &mut [T]) {
        assert_eq!(column.len(), self.ids.len(), "one value per row");
        assert_eq!(out.len(), self.ids.len(), "one slot per row");
        match self.how.as_ref() {
            How::Ranked {
                fills_span: true, min, ..
            } => scatter(column, out, |i| (self.ids[i] - min) as usize),
            How::Ranked { present, min, .. } => scatter(column, out, |i| present.rank(self.ids[i] - min) as usize),
            How::Sorted(order) => out
                .par_iter_mut()
                .zip(order)
                .with_min_len(ROWS_PER_TASK)
                .for_each(|(slot, &i)| *slot = column[i]),
        }
    }

    /// The IDs themselves in ascending order.
    pub fn sorted_ids(&self) -> Vec<u64> {
        match self.how.as_ref() {
            How::Ranked {
                fills_span: true, min, ..
            } => (0..self.ids.len() as u64).into_par_iter().map(|k| min + k).collect(),
            _ => self.apply(self.ids),
        }
    }
}

/// [`How::Ranked`] for `ids`; `None` when their span is too wide for a bitmap or an ID repeats.
///
/// Each worker sets the bits of its share of the IDs in a bitmap of its own, and the bitmaps are
/// merged word by word: a bit two of them share is a repeated ID. One pass over the IDs, split
/// among the workers, where setting bits in one bitmap took a serial pass (~40 ms of every run
/// on 16.8 M IDs). There are no more bitmaps than the IDs' bytes allow, so that they take no
/// more memory than the IDs.
fn ranked(ids: &[u64]) -> Option<How> {
    let (min, max) = ids
        .par_iter()
        .map(|&id| (id, id))
        .reduce_with(|(lo, hi), (a, b)| (lo.min(a), hi.max(b)))?;
    if max - min >= MAX_SPAN_PER_ID.saturating_mul(ids.len() as u64) || ids.len() as u64 > MAX_VERTICES {
        return None;
    }
    let words = ((max - min) / 64 + 1) as usize;
    let parts = (ids.len() / words).clamp(1, rayon::current_num_threads());
    let share = ids.len().div_ceil(parts).max(ROWS_PER_TASK);
    let bitmaps: Vec<Vec<u64>> = ids
        .par_chunks(share)
        .map(|chunk| {
            let mut bits = vec![0u64; words];
            for &id in chunk {
                let k = id - min;
                let (word, mask) = (&mut bits[(k / 64) as usize], 1u64 << (k % 64));
                if *word & mask != 0 {
                    return None;
                }
                *word |= mask;
            }
            Some(bits)
        })
        .collect::<Option<_>>()?;
    let mut bitmaps = bitmaps.into_iter();
    let mut bits = bitmaps.next().expect("at least one ID");
    for other in bitmaps {
        let repeated = bits
            .par_iter_mut()
            .zip(&other)
            .with_min_len(ROWS_PER_TASK)
            .map(|(w, &o)| {
                let shared = *w & o != 0;
                *w |= o;
                shared
            })
            .reduce(|| false, |a, b| a || b);
        if repeated {
            return None;
        }
    }
    Some(How::Ranked {
        present: RankBitmap::new(bits),
        min,
        fills_span: max - min + 1 == ids.len() as u64,
    })
}

/// `column` with row `i` moved to row `dest(i)` of `out`, in parallel. `dest` must map the
/// rows one to one onto themselves (the ranks of distinct IDs do).
fn scatter<T: Copy + Send + Sync>(column: &[T], out: &mut [T], dest: impl Fn(usize) -> usize + Sync) {
    let slots = SharedSlice::new(out);
    column
        .par_iter()
        .enumerate()
        .with_min_len(ROWS_PER_TASK)
        .for_each(|(i, &value)| {
            // SAFETY: `dest` is one to one (the callers' ranks of distinct IDs), so no two rows
            // write the same slot; `set` checks the bounds.
            unsafe { slots.set(dest(i), value) }
        });
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// Rows' positions in ascending order of ID, by a plain stable sort.
    fn sorted(ids: &[u64]) -> Vec<usize> {
        let mut order: Vec<usize> = (0..ids.len()).collect();
        order.sort_by_key(|&i| ids[i]);
        order
    }

    /// The same through an [`IdOrder`], and whether it ranked by counting.
    fn ordered(ids: &[u64]) -> (Vec<usize>, bool) {
        let order = IdOrder::new(ids);
        let rows = order.apply(&(0..ids.len()).collect::<Vec<_>>());
        let mut ascending = ids.to_vec();
        ascending.sort_unstable();
        assert_eq!(order.sorted_ids(), ascending);
        (rows, matches!(*order.how, How::Ranked { .. }))
    }

    #[test]
    fn dense_sparse_and_repeated_ids_come_out_ascending() {
        assert_eq!(ordered(&[]), (vec![], false));
        assert_eq!(ordered(&[7]), (vec![0], true));
        // A permutation of 10..15: counted, and filling its span.
        assert_eq!(ordered(&[12, 10, 14, 11, 13]), (vec![1, 3, 0, 4, 2], true));
        // Gaps within 64 per ID: counted.
        assert_eq!(ordered(&[40, 3, 17]), (vec![1, 2, 0], true));
        // A span ending at the largest ID.
        assert_eq!(ordered(&[u64::MAX, u64::MAX - 1]), (vec![1, 0], true));
        // Spread wider than 64 per ID: sorted.
        assert_eq!(ordered(&[u64::MAX, 0, 1 << 40]), (vec![1, 2, 0], false));
        // A repeat falls back to the (stable) sort.
        assert_eq!(ordered(&[3, 1, 3]), (vec![1, 0, 2], false));
    }

    #[test]
    #[should_panic(expected = "one value per row")]
    fn a_column_of_another_length_is_refused() {
        IdOrder::new(&[2, 1]).apply(&[1.0]);
    }

    proptest! {
        #[test]
        fn equals_a_sort_by_id(ids in prop::collection::vec(0u64..400, 0..200), base in any::<u64>()) {
            let ids: Vec<u64> = ids.iter().map(|&x| x.saturating_add(base)).collect();
            prop_assert_eq!(ordered(&ids).0, sorted(&ids));
        }

        #[test]
        fn distinct_spread_ids_are_counted(
            ids in (1u64..300).prop_flat_map(|n| Just((0..n).map(|i| i * 3 + 5).collect::<Vec<u64>>()).prop_shuffle())
        ) {
            prop_assert_eq!(ordered(&ids), (sorted(&ids), true));
        }

        #[test]
        fn a_kept_ranking_orders_as_a_new_one(ids in prop::collection::vec(0u64..400, 0..200)) {
            let ranking = IdRanking::new(&ids);
            let rows: Vec<usize> = (0..ids.len()).collect();
            prop_assert_eq!(ranking.order(&ids).apply(&rows), sorted(&ids));
            prop_assert_eq!(ranking.order(&ids).sorted_ids(), IdOrder::new(&ids).sorted_ids());
        }

        #[test]
        #[cfg_attr(miri, ignore = "tens of thousands of rows: too slow under Miri, where ROWS_PER_TASK splits small inputs")]
        fn a_repeat_in_another_workers_share_is_found(n in 40_000usize..70_000, from in 0usize..1000) {
            // The repeat lies in the last rows and its first occurrence in the first ones: two
            // workers' bitmaps (two tasks' shares at least) hold them.
            let mut ids: Vec<u64> = (0..n as u64).map(|i| (i * 7919) % n as u64).collect();
            ids[n - 1 - from % 7] = ids[from];
            prop_assert_eq!(ordered(&ids), (sorted(&ids), false));
        }

        #[test]
        #[cfg_attr(miri, ignore = "tens of thousands of rows: too slow under Miri, where ROWS_PER_TASK splits small inputs")]
        fn large_permutations_scatter_in_parallel(n in 40_000usize..70_000, seed in any::<u64>()) {
            // More rows than one parallel task takes, so several tasks write the column.
            let ids: Vec<u64> = (0..n as u64).map(|i| (i * 7919 + seed) % n as u64).collect();
            if ids.iter().collect::<std::collections::HashSet<_>>().len() == n {
                prop_assert_eq!(ordered(&ids), (sorted(&ids), true));
            }
        }
    }
}
