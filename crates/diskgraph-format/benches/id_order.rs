//! Putting a run's results in ascending original-ID order on a reordered Kronecker 24 graph
//! (IDs a random permutation of `0..2^24`, one 8-byte value and the ID per row), as every run
//! on a reordered graph does: [`IdOrder`] (counted ranks, parallel scatter) against the sort by
//! key and gathers it replaced. `cargo bench -p diskgraph-format --bench id_order` prints the
//! best of three runs of each and their ratio, and how long ranking the IDs takes on its own
//! (what a loaded index saves each run).

use std::time::Instant;

use diskgraph_format::{IdOrder, IdRanking};
use rayon::prelude::*;

fn best_of_three(mut f: impl FnMut() -> (Vec<u64>, Vec<u64>)) -> (f64, (Vec<u64>, Vec<u64>)) {
    let mut best = f64::INFINITY;
    let mut out = Default::default();
    for _ in 0..3 {
        let t = Instant::now();
        out = f();
        best = best.min(t.elapsed().as_secs_f64());
    }
    (best, out)
}

fn main() {
    let n: u64 = 1 << 24;
    // A fixed pseudo-random permutation, so runs are comparable: multiplying by an odd constant
    // and xoring with a right shift are each bijections modulo 2^24.
    let mix = |mut x: u64| {
        for c in [0x9E37_79B9u64, 0x85EB_CA6B] {
            x = x.wrapping_mul(c) & (n - 1);
            x ^= x >> 12;
        }
        x
    };
    let ids: Vec<u64> = (0..n).map(mix).collect();
    let values: Vec<u64> = (0..n).map(|i| i * 3).collect();
    let (counted, a) = best_of_three(|| {
        let order = IdOrder::new(&ids);
        (order.apply(&values), order.sorted_ids())
    });
    let (sorted, b) = best_of_three(|| {
        let mut order: Vec<usize> = (0..ids.len()).collect();
        order.par_sort_unstable_by_key(|&i| ids[i]);
        (
            order.iter().map(|&i| values[i]).collect(),
            order.iter().map(|&i| ids[i]).collect(),
        )
    });
    assert!(a == b, "both give the same rows");
    let (ranking, _) = best_of_three(|| {
        IdRanking::new(&ids);
        Default::default()
    });
    println!(
        "{n} rows by ID: IdOrder {counted:.3} s, sort by key and gather {sorted:.3} s: ×{:.1} faster; \
         ranking the IDs alone {ranking:.3} s",
        sorted / counted
    );
}
