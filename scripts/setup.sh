#!/usr/bin/env bash
# Installs what diskgraph needs on a fresh machine (Rust toolchain present, CPython 3 with pip):
# the Python dependencies and the `diskgraph` package, a wheel built by maturin, which also
# gives the `diskgraph` command (a console script running the command line compiled into the
# package). Safe to run again: it rebuilds only what changed.
set -euo pipefail
cd "$(dirname "$0")/.."

python3 -m pip install --quiet --disable-pip-version-check \
    "maturin>=1.9.4,<2" numpy scipy networkx pyarrow pandas tqdm pytest pytest-timeout mypy "ray>=2.9" 2>&1 | grep -v "Running pip as the 'root' user" || true
rustup component add clippy rustfmt >/dev/null 2>&1 || true
# Headless Chromium renders the run report in its test (tests/test_report.py).
command -v chromium >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null; }

# Earlier versions installed the command with `cargo install` into ~/.cargo/bin, which comes
# first on PATH (scripts/test.sh puts it there): remove that copy, so the package's command runs.
if [ -x "$HOME/.cargo/bin/diskgraph" ]; then
    cargo uninstall --quiet diskgraph-cli >/dev/null 2>&1 || rm -f "$HOME/.cargo/bin/diskgraph"
fi
rm -rf target/wheels
python3 -m maturin build --quiet --release --out target/wheels
python3 -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps target/wheels/diskgraph-*.whl \
    2>&1 | grep -v "Running pip as the 'root' user" || true
# pyenv reaches a new console script through a shim it makes on rehash.
if command -v pyenv >/dev/null; then pyenv rehash; fi

scripts=$(python3 -c 'import sysconfig; print(sysconfig.get_path("scripts"))')
command -v diskgraph >/dev/null || echo "note: add $scripts to PATH to use the diskgraph command" >&2
