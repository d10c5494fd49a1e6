#!/usr/bin/env bash
# The main job on an embedded default: build and install diskgraph, generate a Graph500
# Kronecker graph (scale 20, weighted), import it, give it a grid layout, and run every
# algorithm `diskgraph algorithms` lists with a small memory budget (so `auto` takes the
# out-of-core engines), printing results and I/O figures. Work files go to $DISKGRAPH_WORK
# (default ./work).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
./scripts/setup.sh

work=${DISKGRAPH_WORK:-$PWD/work}
mkdir -p "$work"
graph=$work/kronecker-20
budget=64MiB

echo "== generate + import: Kronecker scale 20, edge factor 16, weighted"
diskgraph generate kronecker --scale 20 --weighted --seed 1 --memory 256MiB -o "$graph" --force
echo; echo "== info"
diskgraph info "$graph"
echo; echo "== verify"
diskgraph verify "$graph"
echo; echo "== partition: a grid layout for the stream engine"
diskgraph partition "$graph" --memory "$budget" --force
echo; echo "== algorithms"
diskgraph algorithms
# Each algorithm's options beyond the defaults: sources from the vertex of most out-edges (a
# Kronecker graph's small IDs are mostly isolated), and sampled sources where a traversal per
# vertex would take hours.
declare -A options=(
    [bfs]="--source max-degree" [sssp]="--source max-degree" [sp]="--source max-degree"
    [diameter]="--source max-degree --rounds 2" [msbfs]="--sources 16" [apsp]="--sources 4"
    [bc]="--samples 4" [pagerank]="--iterations 10"
)
for algo in $(diskgraph algorithms --json | python3 -c 'import json, sys; print(" ".join(a["name"] for a in json.load(sys.stdin)["algorithms"]))'); do
    echo; echo "== run $algo (--memory $budget)"
    # shellcheck disable=SC2086 # the options are words
    diskgraph run "$algo" "$graph" --memory "$budget" ${options[$algo]:-} --out "$work/$algo.tsv" --force --stats "$work/$algo.stats.json"
done
echo; echo "== the same graph from Python"
python3 - "$graph" <<'PY'
import sys
import diskgraph

g = diskgraph.open(sys.argv[1])
r = g.bfs(source="max-degree", memory="64MiB")
print(f"{g.num_vertices} vertices, {g.num_edges} edges; bfs: {r.summary}; {r.stats['compute_seconds']:.3f} s compute")
PY
