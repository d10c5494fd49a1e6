#!/usr/bin/env bash
# Installs what diskgraph needs on a fresh machine (Rust toolchain present, CPython 3 with pip):
# the Python dependencies, the `diskgraph` CLI (into ~/.cargo/bin), and the `diskgraph` Python
# package (a wheel built by maturin). Safe to run again: it rebuilds only what changed.
set -euo pipefail
cd "$(dirname "$0")/.."

python3 -m pip install --quiet --disable-pip-version-check \
    "maturin>=1.9.4,<2" numpy scipy networkx pyarrow pytest mypy 2>&1 | grep -v "Running pip as the 'root' user" || true
rustup component add clippy rustfmt >/dev/null 2>&1 || true
# Headless Chromium renders the run report in its test (tests/test_report.py).
command -v chromium >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null; }

cargo install --quiet --locked --force --path crates/diskgraph-cli --target-dir target
rm -rf target/wheels
python3 -m maturin build --quiet --release --out target/wheels
python3 -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps target/wheels/diskgraph-*.whl \
    2>&1 | grep -v "Running pip as the 'root' user" || true

command -v diskgraph >/dev/null || echo "note: add $HOME/.cargo/bin to PATH to use the diskgraph command" >&2
