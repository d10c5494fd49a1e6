//! `ascending_order` against the sort it replaced, on the IDs of a reordered Kronecker 24 graph
//! (a random permutation of `0..2^24`): `cargo bench -p diskgraph-format --bench id_order`.
//! Prints the best of three runs of each and their ratio.

use std::time::Instant;

use rayon::prelude::*;

fn best_of_three(mut f: impl FnMut() -> Vec<usize>) -> (f64, Vec<usize>) {
    let mut best = f64::INFINITY;
    let mut out = Vec::new();
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
    let (counted, a) = best_of_three(|| diskgraph_format::ascending_order(&ids));
    let (sorted, b) = best_of_three(|| {
        let mut order: Vec<usize> = (0..ids.len()).collect();
        order.par_sort_unstable_by_key(|&i| ids[i]);
        order
    });
    assert_eq!(a, b, "both give the same order");
    println!(
        "{n} IDs: ascending_order {counted:.3} s, sort by key {sorted:.3} s: ×{:.1} faster",
        sorted / counted
    );
}
