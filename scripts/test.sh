#!/usr/bin/env bash
# The whole test suite, Rust and Python. CI (.ci/run) runs exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

./scripts/setup.sh
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --quiet -- -D warnings
cargo test --workspace --quiet
python3 -m mypy.stubtest diskgraph._native
python3 -m pytest -q tests
