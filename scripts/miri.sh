#!/usr/bin/env bash
# Runs the unit tests of the crates that hold unsafe code (diskgraph-io, diskgraph-format,
# diskgraph-engine) under Miri, which reports undefined behaviour: out-of-bounds or
# use-after-free accesses, data races, pointers used beyond their provenance (Stacked Borrows).
#
#   scripts/miri.sh                 # all three crates
#   scripts/miri.sh -p diskgraph-io # one crate (any `cargo miri test` arguments; Tree Borrows)
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
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target/miri}"
# Isolation off: the tests create and read temporary files.
stacked="-Zmiri-disable-isolation"
# rayon's crossbeam-epoch breaks the Stacked Borrows rules (crossbeam-rs/crossbeam#545, known
# upstream) and casts integers to pointers, so crates whose tests run rayon are checked under
# Tree Borrows with permissive provenance, as crossbeam's own CI does; and rayon's global pool
# threads live as long as the process, which Miri would otherwise report as leaked threads.
tree="-Zmiri-disable-isolation -Zmiri-tree-borrows -Zmiri-permissive-provenance -Zmiri-ignore-leaks"

start=$(date +%s)
if [ $# -eq 0 ]; then
    MIRIFLAGS="${MIRIFLAGS:-$stacked}" nice -n 19 cargo +nightly miri test --lib -p diskgraph-io
    MIRIFLAGS="${MIRIFLAGS:-$tree}" nice -n 19 cargo +nightly miri test --lib -p diskgraph-format -p diskgraph-engine
else
    MIRIFLAGS="${MIRIFLAGS:-$tree}" nice -n 19 cargo +nightly miri test --lib "$@"
fi
echo "miri: $(($(date +%s) - start)) s"
