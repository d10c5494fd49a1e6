//! Rows in ascending original-ID order. Every result is reported by ascending original ID; a
//! reordered graph's vertices are not in that order, so each run on one turns its rows around.
//! Sorting 16.8 M positions by a randomly accessed key took ~2.5 s of CPU on Kronecker 24 —
//! most of a bfs — so IDs that are dense (a generated graph, or any import whose IDs are close
//! to `0..n`) are ranked by counting instead: one pass for their range, one to set their bits
//! in a [`RankBitmap`] of it, one to place each by its rank there.

use rayon::prelude::*;

use crate::{RankBitmap, MAX_VERTICES};

/// Counting needs a bitmap of the IDs' span: allowed up to this many bits per ID (8 bytes, as
/// much as the IDs themselves).
const MAX_SPAN_PER_ID: u64 = 64;

/// Positions of the entries of `ids` in ascending order of ID (`ids[order[0]]` is the
/// smallest; equal IDs, which a valid graph never has, keep their relative order). Distinct
/// IDs spanning at most 64 values per ID are ranked by counting; others are sorted.
pub fn ascending_order(ids: &[u64]) -> Vec<usize> {
    rank_by_counting(ids).unwrap_or_else(|| {
        let mut order: Vec<usize> = (0..ids.len()).collect();
        order.par_sort_by_key(|&i| ids[i]);
        order
    })
}

/// [`ascending_order`] from the ranks of the IDs in a bitmap of their span;
/// `None` when the span is too wide for it or an ID repeats.
fn rank_by_counting(ids: &[u64]) -> Option<Vec<usize>> {
    let (min, max) = ids.iter().fold(None, |range, &id| match range {
        None => Some((id, id)),
        Some((lo, hi)) => Some((id.min(lo), id.max(hi))),
    })?;
    if max - min >= MAX_SPAN_PER_ID.saturating_mul(ids.len() as u64) || ids.len() as u64 > MAX_VERTICES {
        return None;
    }
    let mut bits = vec![0u64; ((max - min) / 64 + 1) as usize];
    for &id in ids {
        let k = id - min;
        let (word, mask) = (&mut bits[(k / 64) as usize], 1u64 << (k % 64));
        if *word & mask != 0 {
            return None;
        }
        *word |= mask;
    }
    let present = RankBitmap::new(bits);
    let mut order = vec![0usize; ids.len()];
    for (i, &id) in ids.iter().enumerate() {
        order[present.rank(id - min) as usize] = i;
    }
    Some(order)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn sorted(ids: &[u64]) -> Vec<usize> {
        let mut order: Vec<usize> = (0..ids.len()).collect();
        order.sort_by_key(|&i| ids[i]);
        order
    }

    #[test]
    fn dense_sparse_and_repeated_ids_come_out_ascending() {
        assert_eq!(ascending_order(&[]), Vec::<usize>::new());
        assert_eq!(ascending_order(&[7]), vec![0]);
        // A permutation of 10..15: counted.
        assert!(rank_by_counting(&[12, 10, 14, 11, 13]).is_some());
        assert_eq!(ascending_order(&[12, 10, 14, 11, 13]), vec![1, 3, 0, 4, 2]);
        // Spread wider than 64 per ID: sorted.
        let wide = [u64::MAX, 0, 1 << 40];
        assert!(rank_by_counting(&wide).is_none());
        assert_eq!(ascending_order(&wide), vec![1, 2, 0]);
        // A repeat falls back to the (stable) sort.
        assert!(rank_by_counting(&[3, 1, 3]).is_none());
        assert_eq!(ascending_order(&[3, 1, 3]), vec![1, 0, 2]);
    }

    proptest! {
        #[test]
        fn equals_a_sort_by_id(ids in prop::collection::vec(0u64..400, 0..200), base in any::<u64>()) {
            let ids: Vec<u64> = ids.iter().map(|&x| x.saturating_add(base)).collect();
            prop_assert_eq!(ascending_order(&ids), sorted(&ids));
        }

        #[test]
        fn distinct_dense_ids_are_counted(
            ids in (1u64..300).prop_flat_map(|n| Just((0..n).map(|i| i * 3 + 5).collect::<Vec<u64>>()).prop_shuffle())
        ) {
            prop_assert_eq!(rank_by_counting(&ids), Some(sorted(&ids)));
        }
    }
}
