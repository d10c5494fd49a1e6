//! Property tests of both schedulers.

use std::collections::BTreeSet;

use diskgraph_io::{BitmapScheduler, PluglistScheduler, Run, PLUG_BATCH};
use proptest::prelude::*;

#[derive(Debug, Clone)]
struct Case {
    file_len: u64,
    block_size: u32,
    max_gap: u32,
    max_request: u32,
    ranges: Vec<(u64, u64)>,
}

fn case() -> impl Strategy<Value = Case> {
    (
        1u64..200_000,
        prop::sample::select(vec![512u32, 1024, 4096]),
        0u32..20,
        1u32..40,
        0u32..4096,
    )
        .prop_flat_map(|(file_len, block_size, max_gap, blocks, extra)| {
            // max_request: any number of bytes ≥ one block, not always a multiple of it.
            let max_request = blocks * block_size + extra % block_size;
            let range = (0..file_len, 0u64..30_000).prop_map(move |(a, l)| (a, (a + l).min(file_len)));
            prop::collection::vec(range, 0..120).prop_map(move |ranges| Case {
                file_len,
                block_size,
                max_gap,
                max_request,
                ranges,
            })
        })
}

fn blocks_of(c: &Case, ranges: &[(u64, u64)]) -> BTreeSet<u64> {
    let bs = u64::from(c.block_size);
    ranges
        .iter()
        .filter(|(a, b)| b > a)
        .flat_map(|&(a, b)| a / bs..=(b - 1) / bs)
        .collect()
}

/// Rules every run obeys with respect to the requested blocks `req` it was built from.
fn check_run(c: &Case, r: &Run, req: &BTreeSet<u64>) -> Result<(), TestCaseError> {
    prop_assert!(r.num_blocks >= 1);
    prop_assert!(
        r.num_blocks * u64::from(c.block_size) <= u64::from(c.max_request),
        "run {r:?} too long"
    );
    prop_assert!(req.contains(&r.first_block), "first block of {r:?} not requested");
    prop_assert!(req.contains(&(r.end_block() - 1)), "last block of {r:?} not requested");
    let mut gap = 0;
    for b in r.first_block..r.end_block() {
        if req.contains(&b) {
            gap = 0;
        } else {
            gap += 1;
            prop_assert!(gap <= c.max_gap, "gap of more than {} blocks in {r:?}", c.max_gap);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn bitmap_runs_cover_each_requested_block_once(c in case()) {
        let mut s = BitmapScheduler::new(c.file_len, c.block_size, c.max_gap, c.max_request);
        for &(a, b) in &c.ranges {
            s.add(a, b);
        }
        let sched = s.finish();
        let req = blocks_of(&c, &c.ranges);
        let mut covered = BTreeSet::new();
        for w in sched.runs.windows(2) {
            prop_assert!(w[0].end_block() <= w[1].first_block, "runs {:?} and {:?} unsorted or overlapping", w[0], w[1]);
        }
        for r in &sched.runs {
            check_run(&c, r, &req)?;
            for b in r.first_block..r.end_block() {
                prop_assert!(covered.insert(b), "block {b} covered twice");
            }
        }
        prop_assert!(req.is_subset(&covered), "a requested block is not covered");
        prop_assert_eq!(sched.blocks_after_dedup, req.len() as u64);
        prop_assert_eq!(sched.blocks_read(), covered.len() as u64);
        let bs = u64::from(c.block_size);
        let requested: u64 = c.ranges.iter().filter(|(a, b)| b > a).map(|&(a, b)| (b - 1) / bs - a / bs + 1).sum();
        prop_assert_eq!(sched.blocks_requested, requested);
        // Drained: the scheduler is empty and reusable.
        prop_assert!(s.finish().runs.is_empty());
        if let Some(&(a, b)) = c.ranges.first() {
            s.add(a, b);
            prop_assert_eq!(s.finish().blocks_after_dedup, blocks_of(&c, &[(a, b)]).len() as u64);
        }
    }

    #[test]
    fn pluglist_batches_are_sorted_merged_and_cover(c in case()) {
        let mut s = PluglistScheduler::new(c.file_len, c.block_size, c.max_gap, c.max_request);
        for &(a, b) in &c.ranges {
            s.add(a, b);
        }
        let batches = s.drain_batches();
        let requests: Vec<(u64, u64)> = c.ranges.iter().copied().filter(|(a, b)| b > a).collect();
        prop_assert_eq!(batches.len(), requests.len().div_ceil(PLUG_BATCH));
        let mut covered = BTreeSet::new();
        for (batch, runs) in requests.chunks(PLUG_BATCH).zip(&batches) {
            let req = blocks_of(&c, batch);
            for w in runs.windows(2) {
                prop_assert!(w[0].end_block() <= w[1].first_block, "batch runs {:?} {:?} unsorted or overlapping", w[0], w[1]);
            }
            let mut in_batch = BTreeSet::new();
            for r in runs {
                check_run(&c, r, &req)?;
                in_batch.extend(r.first_block..r.end_block());
            }
            prop_assert!(req.is_subset(&in_batch), "a block of the batch is not covered by the batch");
            covered.extend(in_batch);
        }
        prop_assert!(blocks_of(&c, &c.ranges).is_subset(&covered));
        // finish() agrees with drain_batches().
        let mut pluglist = PluglistScheduler::new(c.file_len, c.block_size, c.max_gap, c.max_request);
        for &(a, b) in &c.ranges {
            pluglist.add(a, b);
        }
        let sched = pluglist.finish();
        prop_assert_eq!(&sched.runs, &batches.concat());
        let per_batch: u64 = requests.chunks(PLUG_BATCH).map(|b| blocks_of(&c, b).len() as u64).sum();
        prop_assert_eq!(sched.blocks_after_dedup, per_batch);
    }
}
