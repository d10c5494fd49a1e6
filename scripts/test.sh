#!/usr/bin/env bash
# The whole test suite, Rust and Python. CI (.ci/run) runs exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

./scripts/setup.sh
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --quiet -- -D warnings
# --release: the tests reuse the release build setup.sh made (about 12 minutes in all on 2 cores,
# against about 15 with the test profile's own build).
cargo test --workspace --release --quiet
python3 -m mypy.stubtest diskgraph._native
# The package, its methods generated from the algorithm descriptors included (scipy and pyarrow
# ship no type information).
python3 -m mypy --ignore-missing-imports python/diskgraph
python3 -m pytest -q tests
# What waits (interrupts, threads on one graph, a stalled cluster worker) again beside two busy
# processes: a wait that holds on a quiet machine must also hold on a loaded one.
python3 -m pytest -q --cpu-load 2 tests/test_interrupt.py tests/test_concurrency.py tests/test_gil.py \
    tests/test_cluster.py::test_a_stalled_worker_is_restarted_and_then_an_error_naming_it
# The README's main command, at a small scale: every algorithm on a graph straight from the
# generator, each answer verified.
quickstart=$(mktemp -d)
DISKGRAPH_SETUP=skip DISKGRAPH_SCALE=14 DISKGRAPH_WORK="$quickstart" ./scripts/quickstart.sh > "$quickstart/log" 2>&1 \
    || { tail -40 "$quickstart/log"; echo "scripts/quickstart.sh failed (log: $quickstart/log)" >&2; exit 1; }
rm -rf "$quickstart"
