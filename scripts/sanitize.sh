#!/usr/bin/env bash
# Builds the workspace with AddressSanitizer and ThreadSanitizer (nightly, std rebuilt with the
# same instrumentation) and runs, under each, the tests of the crates that hold unsafe code
# (diskgraph-io and diskgraph-engine, unit and integration tests) and the test harness
# (diskgraph-testkit: every algorithm on every engine against the oracles).
#
#   scripts/sanitize.sh                  # address, then thread
#   scripts/sanitize.sh thread           # one of them
#   SANITIZE_HARNESS='' scripts/sanitize.sh   # the whole harness (default: a reduced set)
#
# ASan finds out-of-bounds accesses, use after free and leaks in the native code as it runs;
# TSan finds data races between threads (the I/O pipeline's buffer hand-overs, the crews, the
# engines' shared arrays). Each builds in target/sanitize/<name>, so the normal build is not
# invalidated; needs the nightly toolchain with rust-src.
#
# The harness runs a reduced set by default (SANITIZE_HARNESS, a test-name filter: the option
# sets on the nasty graphs, which cover every algorithm × engine pair, plus the random-graph
# property test at PROPTEST_CASES cases): the whole harness under TSan would take hours on two
# cores. Suppressions, each with its reason, are in scripts/sanitize/<name>.supp.
set -euo pipefail
cd "$(dirname "$0")/.."

target=x86_64-unknown-linux-gnu
harness="${SANITIZE_HARNESS-every_option_set_on_nasty_graphs every_engine_on_random_graphs every_descriptor_has}"
export PROPTEST_CASES="${PROPTEST_CASES:-8}"
supp="$PWD/scripts/sanitize"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:suppressions=$supp/address.supp}"
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$supp/leak.supp}"
export TSAN_OPTIONS="${TSAN_OPTIONS:-halt_on_error=1:suppressions=$supp/thread.supp}"

for san in "${@:-address thread}"; do
    for s in $san; do
        echo "== $s"
        start=$(date +%s)
        export RUSTFLAGS="-Zsanitizer=$s"
        export RUSTDOCFLAGS="-Zsanitizer=$s"
        export CARGO_TARGET_DIR="target/sanitize/$s"
        build=(nice -n 19 cargo +nightly test -Zbuild-std --target "$target")
        "${build[@]}" -p diskgraph-io -p diskgraph-engine
        # shellcheck disable=SC2086 # the filter is a list of test names
        "${build[@]}" -p diskgraph-testkit --test harness -- $harness
        echo "$s: $(($(date +%s) - start)) s"
    done
done
