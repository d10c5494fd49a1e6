//! [`RowIds`]: the original ID of each row of a run's output, held only when the graph remapped
//! its IDs (on a graph that names each vertex by itself, row `i` is vertex `i`: 8 bytes a vertex
//! that a billion-vertex run does not spend).

use std::ops::Range;

/// The original ID of each row of a run's output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RowIds {
    /// Row `i` is the vertex with ID `i`, for `i` in `0..n`: no table is held.
    Identity(usize),
    /// Row `i` is the vertex with ID `ids[i]`.
    Listed(Vec<u64>),
}

impl Default for RowIds {
    /// No rows.
    fn default() -> Self {
        RowIds::Listed(Vec::new())
    }
}

impl RowIds {
    /// Number of rows.
    pub fn len(&self) -> usize {
        match self {
            RowIds::Identity(n) => *n,
            RowIds::Listed(ids) => ids.len(),
        }
    }

    /// Whether there are no rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The original ID of row `i`.
    ///
    /// # Panics
    /// If `i` is not below [`len`](Self::len).
    #[inline]
    pub fn get(&self, i: usize) -> u64 {
        match self {
            RowIds::Identity(n) => {
                assert!(i < *n, "row {i} of {n}");
                i as u64
            }
            RowIds::Listed(ids) => ids[i],
        }
    }

    /// The IDs of the rows `rows`, in order.
    pub fn range(&self, rows: Range<usize>) -> impl Iterator<Item = u64> + '_ {
        rows.map(move |i| self.get(i))
    }

    /// The IDs of every row, in order.
    pub fn iter(&self) -> impl Iterator<Item = u64> + '_ {
        self.range(0..self.len())
    }

    /// The IDs as a vector (made for a graph that names each vertex by itself).
    pub fn into_vec(self) -> Vec<u64> {
        match self {
            RowIds::Identity(n) => (0..n as u64).collect(),
            RowIds::Listed(ids) => ids,
        }
    }
}

impl PartialEq<Vec<u64>> for RowIds {
    fn eq(&self, other: &Vec<u64>) -> bool {
        self.len() == other.len() && self.iter().zip(other).all(|(a, &b)| a == b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identity_rows_read_as_the_listed_ids_they_stand_for() {
        let identity = RowIds::Identity(4);
        let listed = RowIds::Listed(vec![0, 1, 2, 3]);
        assert_eq!(identity.iter().collect::<Vec<_>>(), listed.iter().collect::<Vec<_>>());
        assert_eq!(identity.range(1..3).collect::<Vec<_>>(), vec![1, 2]);
        assert!(identity == vec![0, 1, 2, 3] && identity != vec![0, 1, 3, 2] && identity != vec![0, 1, 2]);
        assert_eq!(identity.clone().into_vec(), listed.clone().into_vec());
        assert_eq!((RowIds::default().len(), RowIds::Listed(vec![7, 9]).get(1)), (0, 9));
    }

    #[test]
    #[should_panic(expected = "row 4 of 4")]
    fn a_row_past_the_end_is_refused() {
        RowIds::Identity(4).get(4);
    }
}
