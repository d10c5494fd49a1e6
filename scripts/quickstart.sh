#!/usr/bin/env bash
# The main job on an embedded default: build and install diskgraph, generate a Graph500
# Kronecker graph (scale 20, weighted), import it, and run every algorithm with a small
# memory budget, printing results and I/O figures. Work files go to $DISKGRAPH_WORK
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
for algo in bfs sssp wcc scc pagerank kcore; do
    echo; echo "== run $algo (--memory $budget)"
    diskgraph run "$algo" "$graph" --memory "$budget" --source max-degree --out "$work/$algo.tsv" --stats "$work/$algo.stats.json"
done
echo; echo "== the same graph from Python"
python3 - "$graph" <<'PY'
import sys
import diskgraph

g = diskgraph.open(sys.argv[1])
r = g.bfs(source="max-degree", memory="64MiB")
print(f"{g.num_vertices} vertices, {g.num_edges} edges; bfs: {r.summary}; {r.stats['compute_seconds']:.3f} s compute")
PY
