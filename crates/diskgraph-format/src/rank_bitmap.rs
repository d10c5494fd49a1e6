//! A set of small integers as a bitmap that also answers "how many members are below `k`" in
//! constant time: next to the bits it keeps, for every 64-bit word, the number of members in
//! the words before it. Import ranks original IDs with it, the selective engine finds a held
//! list's position with it, and [`crate::ascending_order`] counts IDs into order with it.
//!
//! The counts are 32-bit (12 bytes per 64 possible members, as the static cache's budget
//! accounting in [`crate::static_cache_bytes`] assumes) and wrap: ranks are exact below 2^32,
//! which covers every vertex set ([`crate::MAX_VERTICES`]); a larger set still knows its
//! [`RankBitmap::len`], so its owner can refuse it.

/// Members of `0..64 * words`, with the count of members before each word.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RankBitmap {
    bits: Vec<u64>,
    before: Vec<u32>,
    len: u64,
}

impl RankBitmap {
    /// The set whose member `k` is bit `k % 64` of `bits[k / 64]`.
    pub fn new(bits: Vec<u64>) -> Self {
        let mut len = 0u64;
        let before = bits
            .iter()
            .map(|w| {
                let here = len as u32; // wraps past 2^32 members, as the module says
                len += u64::from(w.count_ones());
                here
            })
            .collect();
        RankBitmap { bits, before, len }
    }

    /// The raw words (for scans that test many members at once).
    pub fn bits(&self) -> &[u64] {
        &self.bits
    }

    /// Number of members.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The largest member.
    pub fn max(&self) -> Option<u64> {
        let w = self.bits.iter().rposition(|&w| w != 0)?;
        Some(w as u64 * 64 + 63 - u64::from(self.bits[w].leading_zeros()))
    }

    /// Members below `k`, which must lie below `64 * words` (modulo 2^32).
    #[inline]
    pub fn rank(&self, k: u64) -> u32 {
        let w = (k / 64) as usize;
        self.before[w].wrapping_add((self.bits[w] & ((1u64 << (k % 64)) - 1)).count_ones())
    }

    /// The rank of `k` (modulo 2^32) when it is a member (any `k`, also beyond the bitmap).
    #[inline]
    pub fn position(&self, k: u64) -> Option<u32> {
        let w = usize::try_from(k / 64).ok()?;
        let word = *self.bits.get(w)?;
        let mask = 1u64 << (k % 64);
        (word & mask != 0).then(|| self.before[w].wrapping_add((word & (mask - 1)).count_ones()))
    }

    /// Members in ascending order.
    pub fn iter(&self) -> impl Iterator<Item = u64> + '_ {
        self.members_in(0..self.bits.len())
    }

    /// Members of words `words` (those in `64 * words.start .. 64 * words.end`), ascending.
    pub fn members_in(&self, words: std::ops::Range<usize>) -> impl Iterator<Item = u64> + '_ {
        let first = words.start;
        self.bits[words].iter().enumerate().flat_map(move |(k, &word)| {
            let w = first + k;
            let mut rest = word;
            std::iter::from_fn(move || {
                (rest != 0).then(|| {
                    let b = rest.trailing_zeros();
                    rest &= rest - 1;
                    w as u64 * 64 + u64::from(b)
                })
            })
        })
    }

    /// Bytes held: 8 per word and 4 per count.
    pub fn memory_bytes(&self) -> u64 {
        self.bits.len() as u64 * 12
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn of(members: &[u64], universe: u64) -> RankBitmap {
        let mut bits = vec![0u64; universe.div_ceil(64) as usize];
        for &k in members {
            bits[(k / 64) as usize] |= 1 << (k % 64);
        }
        RankBitmap::new(bits)
    }

    #[test]
    fn ranks_positions_and_members_across_words() {
        let members = [0, 63, 64, 130, 299];
        let set = of(&members, 300);
        assert_eq!((set.len(), set.max(), set.is_empty()), (5, Some(299), false));
        assert_eq!(set.iter().collect::<Vec<_>>(), members);
        for (i, &k) in members.iter().enumerate() {
            assert_eq!((set.rank(k), set.position(k)), (i as u32, Some(i as u32)));
        }
        for k in [1, 62, 65, 129, 131, 298, 300, 100_000, u64::MAX] {
            assert_eq!(set.position(k), None, "{k}");
        }
        assert_eq!(set.rank(131), 4);
        assert_eq!(set.memory_bytes(), 5 * 12);
        let empty = RankBitmap::new(Vec::new());
        assert_eq!((empty.len(), empty.max(), empty.position(0)), (0, None, None));
        assert!(of(&[], 128).is_empty());
    }

    proptest! {
        #[test]
        fn rank_counts_the_members_below(members in prop::collection::btree_set(0u64..1000, 0..200), k in 0u64..1000) {
            let set = of(&members.iter().copied().collect::<Vec<_>>(), 1000);
            prop_assert_eq!(set.rank(k), members.range(..k).count() as u32);
            prop_assert_eq!(set.position(k).is_some(), members.contains(&k));
            prop_assert_eq!(set.len(), members.len() as u64);
            prop_assert_eq!(set.iter().collect::<Vec<_>>(), members.into_iter().collect::<Vec<_>>());
        }
    }
}
