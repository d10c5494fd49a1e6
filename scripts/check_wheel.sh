#!/usr/bin/env bash
# Checks that the diskgraph wheel installs and works on a machine without Rust: builds the wheel
# (maturin), makes a fresh virtualenv (no system site packages), and with a PATH that holds no
# cargo or rustc installs the wheel and runs `diskgraph --version`, `diskgraph import` and
# `diskgraph run` on testdata/real/wiki-Vote.txt, and a Python one-liner. Prints each command
# and its output; exits non-zero at the first failure.
#
#   ./scripts/check_wheel.sh            # PYTHON=python3.12 ./scripts/check_wheel.sh for another
#
# Needs maturin (>= 1.9.4) in $PYTHON and network access (or a pip find-links directory) for the
# wheel's one dependency, numpy.
set -euo pipefail
cd "$(dirname "$0")/.."

python=${PYTHON:-python3}
# The interpreter itself, not a shim in front of it (pyenv's need pyenv on PATH).
interpreter=$("$python" -c 'import sys; print(sys.executable)')
work=$(mktemp -d "${TMPDIR:-/tmp}/diskgraph-wheel.XXXXXX")
trap 'rm -rf "$work"' EXIT

echo "== build the wheel"
"$python" -m maturin build --quiet --release --out "$work/wheels"
wheel=$(ls "$work"/wheels/diskgraph-*.whl)
echo "$(basename "$wheel"): $(du -h "$wheel" | cut -f1)"

echo "== a fresh virtualenv, and a PATH without Rust"
"$interpreter" -m venv "$work/venv"
export PATH="$work/venv/bin:/usr/local/bin:/usr/bin:/bin"
unset CARGO_HOME RUSTUP_HOME VIRTUAL_ENV PYTHONPATH
for tool in cargo rustc; do
    if found=$(command -v "$tool"); then
        echo "error: $tool is on PATH ($found): the check must run without Rust" >&2
        exit 1
    fi
done
echo "PATH=$PATH (no cargo, no rustc)"

run() {
    echo "\$ $*"
    "$@"
}

echo "== install"
run pip install --quiet --disable-pip-version-check "$wheel"
run pip list --disable-pip-version-check --format=freeze

echo "== the command"
run command -v diskgraph
run diskgraph --version
run diskgraph import testdata/real/wiki-Vote.txt -o "$work/wiki.dg"
run diskgraph run pagerank "$work/wiki.dg" --out "$work/ranks.tsv"
run diskgraph run bfs "$work/wiki.dg" --source 3
echo "ranks.tsv: $(wc -l <"$work/ranks.tsv") lines"

echo "== Python"
run python -c "import diskgraph; g = diskgraph.open('$work/wiki.dg'); r = g.wcc(); print(diskgraph.__version__, g.num_vertices, g.num_edges, r.summary)"
echo "== ok: the wheel works without Rust"
