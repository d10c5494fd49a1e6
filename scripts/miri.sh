#!/usr/bin/env bash
# Runs the unit tests of the crates that hold unsafe code (diskgraph-io, diskgraph-format,
# diskgraph-engine) under Miri, which reports undefined behaviour: out-of-bounds or
# use-after-free accesses, data races, pointers used beyond their provenance (Stacked Borrows).
#
#   scripts/miri.sh                 # all three crates
#   scripts/miri.sh -p diskgraph-io # one crate (any `cargo miri test` arguments)
#
# Needs the nightly toolchain with the miri and rust-src components
# (`rustup +nightly component add miri rust-src`). Builds in target/miri, so the normal build
# is not invalidated.
#
# What Miri cannot run is marked `#[cfg_attr(miri, ignore = "why")]` in the tests themselves;
# the rest of the I/O layer runs through its fallbacks: DISKGRAPH_IO_SIMULATE makes io_uring
# and O_DIRECT fail their probes (Miri has neither) and skips explicit hugepages, so files are
# read buffered with pread. Property tests run 4 cases each (PROPTEST_CASES) — Miri is some
# thousand times slower than native code; what it checks is the unsafe code's behaviour, which
# a handful of cases exercises as well as hundreds.
set -euo pipefail
cd "$(dirname "$0")/.."

export DISKGRAPH_IO_SIMULATE=no-uring,no-direct,no-hugetlb
export PROPTEST_CASES="${PROPTEST_CASES:-4}"
# Isolation off: the tests create and read temporary files.
export MIRIFLAGS="${MIRIFLAGS:--Zmiri-disable-isolation}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target/miri}"

if [ $# -eq 0 ]; then
    set -- -p diskgraph-io -p diskgraph-format -p diskgraph-engine
fi
start=$(date +%s)
nice -n 19 cargo +nightly miri test --lib "$@"
echo "miri: $(($(date +%s) - start)) s"
