//! Row-column balanced partitions (Graphene, §4.1), for one device.
//!
//! **Rows.** The vertex range is cut into `R` contiguous row partitions holding equal amounts of
//! data, computed from the offsets index alone: partition `p` starts at the first vertex `v` with
//! `offsets[v] + v >= p · (E + V) / R`. Each vertex weighs its edges plus one, so the cut is by
//! edges when `E ≫ V` (Graphene's rule) and still spreads vertex-only work (isolated vertices,
//! per-vertex updates) when it is not. Since vertices and their lists are laid out in the same
//! order, a row partition is also one contiguous byte range of `*.adj`.
//!
//! **Columns.** Graphene then cuts every row partition by destination into `C` parts of equal
//! edges and puts each part on its own SSD, so every SSD's I/O thread and compute thread get
//! the same amount of data. With one device and one file per direction, a column cut would only
//! fragment reads, so the column dimension is realised by the I/O instead: the scheduler cuts
//! every run at `max_request` bytes and every completed read is one unit of compute work, so a
//! row's data — a hub's list included — reaches the workers in pieces of equal size that they
//! take as they come (work stealing at chunk granularity).
//!
//! **Use.** A round hands the I/O its byte ranges in ascending vertex order, i.e. partition by
//! partition; all vertex-parallel phases of the engine and the algorithms (building frontiers,
//! choosing pull candidates, per-vertex updates) run one task per partition, so tasks carry
//! equal edge weight however skewed the degrees are.

use std::ops::Range;

use super::Offsets;

/// Contiguous vertex ranges of (nearly) equal weight `edges + vertices`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Partitions {
    /// `bounds[p]..bounds[p + 1]` is partition `p`; `bounds[0] = 0`, `bounds[R] = n`.
    bounds: Vec<u32>,
}

impl Partitions {
    /// `parts` row partitions (at least one) of the vertices of an offsets index (length `n+1`).
    pub fn balanced(offsets: &Offsets, parts: usize) -> Self {
        let n = offsets.len().saturating_sub(1);
        let parts = parts.max(1);
        let total = offsets.last() + n as u64;
        let weight = |v: usize| offsets.get(v) + v as u64;
        let mut bounds = Vec::with_capacity(parts + 1);
        bounds.push(0u32);
        for p in 1..parts {
            let target = (total as u128 * p as u128 / parts as u128) as u64;
            // First vertex whose cumulative weight reaches the target.
            let (mut lo, mut hi) = (0usize, n);
            while lo < hi {
                let mid = (lo + hi) / 2;
                if weight(mid) < target {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            let last = *bounds.last().expect("starts with 0") as usize;
            bounds.push(lo.max(last) as u32);
        }
        bounds.push(n as u32);
        Partitions { bounds }
    }

    /// Number of partitions.
    pub fn len(&self) -> usize {
        self.bounds.len() - 1
    }

    /// Whether there are no partitions (never: there is always at least one).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The vertices of partition `p`.
    pub fn range(&self, p: usize) -> Range<u32> {
        self.bounds[p]..self.bounds[p + 1]
    }

    /// All partitions, in order.
    pub fn ranges(&self) -> impl ExactSizeIterator<Item = Range<u32>> + '_ {
        self.bounds.windows(2).map(|w| w[0]..w[1])
    }

    /// The partition holding vertex `v`.
    pub fn of_vertex(&self, v: u32) -> usize {
        self.bounds
            .partition_point(|&b| b <= v)
            .saturating_sub(1)
            .min(self.len() - 1)
    }

    /// Runs `f` on every partition's vertex range in parallel (one rayon task each) and returns
    /// the results in partition order.
    pub fn map<T: Send>(&self, f: impl Fn(Range<u32>) -> T + Sync + Send) -> Vec<T> {
        use rayon::prelude::*;
        self.bounds.par_windows(2).map(|w| f(w[0]..w[1])).collect()
    }

    /// Runs `f(v)` for every vertex, in parallel by partition.
    pub fn for_each_vertex(&self, f: impl Fn(u32) + Sync + Send) {
        self.map(|r| r.for_each(&f));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_edges_per_partition() {
        // A hub with 1000 edges followed by 1000 vertices of degree 1.
        let mut offsets = vec![0u64, 1000];
        for _ in 0..1000 {
            offsets.push(offsets.last().unwrap() + 1);
        }
        let p = Partitions::balanced(&Offsets::pack(&offsets), 4);
        assert_eq!(p.len(), 4);
        assert_eq!(p.range(0), 0..1);
        let weight = |r: Range<u32>| offsets[r.end as usize] - offsets[r.start as usize] + u64::from(r.end - r.start);
        // Cut points are at multiples of (E + V) / 4 = 750: the hub's part takes the first
        // 1001, the next the rest up to 1500, the others 750 each.
        let w: Vec<u64> = p.ranges().map(weight).collect();
        assert_eq!(w.iter().sum::<u64>(), 3001);
        assert_eq!(w[0], 1001);
        assert!(
            w[1].abs_diff(500) <= 2 && w[2].abs_diff(750) <= 2 && w[3].abs_diff(750) <= 2,
            "{w:?}"
        );
        assert_eq!(p.of_vertex(0), 0);
        assert_eq!(p.of_vertex(1000), 3);
        let covered: u32 = p.map(|r| r.end - r.start).iter().sum();
        assert_eq!(covered, 1001);
        // Degenerate inputs.
        assert_eq!(
            Partitions::balanced(&Offsets::pack(&[0]), 3)
                .ranges()
                .collect::<Vec<_>>(),
            vec![0..0, 0..0, 0..0]
        );
        assert_eq!(Partitions::balanced(&Offsets::pack(&[0, 0, 0]), 0).len(), 1);
    }
}
