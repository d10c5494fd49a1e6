#!/bin/bash
# Paired bc runs of two diskgraph binaries (e.g. before and after a change), alternating, on
# Kronecker 22 Norder and Gorder with a 25% page cache (4 KiB pages), 32 sampled sources, page
# cache dropped before each run (needs root). Prints wall time, bytes read and the batch width
# of each run, then the largest relative difference between the two binaries' values.
#
#   bench/bc_pair.sh BEFORE_BINARY AFTER_BINARY [WORK_DIR=/work/bench] [REPEATS=2]
#
# WORK_DIR must hold kron22-norder and kron22-gorder (bench/caches.py --scales 22 --only c
# makes them).
set -euo pipefail
before=$1 after=$2 work=${3:-/work/bench} repeats=${4:-2}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for rep in $(seq "$repeats"); do
  for g in kron22-norder kron22-gorder; do
    for tag in before after; do
      bin=$before; [ "$tag" = after ] && bin=$after
      sync; echo 3 > /proc/sys/vm/drop_caches
      rm -f "$out/$tag-$g.npy" # run refuses to replace an output without --force
      "$bin" run bc "$work/$g" --engine selective --memory 128309998 --retain-lists false \
        --page-size 4KiB --samples 32 --stats "$out/stats.json" --out "$out/$tag-$g.npy" > /dev/null
      python3 - "$out/stats.json" "$rep $g $tag" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
print(sys.argv[2], f"{s['wall_seconds']:.2f} s", f"{s['bytes_read'] / 2**30:.2f} GiB",
      f"io_wait {s['io_wait_seconds']:.2f} s", "batch", s["settings"].get("batch", 1))
PY
    done
  done
done
python3 - "$out" <<'PY'
import sys
import numpy as np
for g in ("kron22-norder", "kron22-gorder"):
    a, b = (np.load(f"{sys.argv[1]}/{t}-{g}.npy") for t in ("before", "after"))
    assert (a["vertex"] == b["vertex"]).all()
    x, y = a["value"], b["value"]
    big = np.abs(x) > 1e-12
    print(g, "largest relative difference", float(np.max(np.abs(x - y)[big] / np.abs(x[big]))))
PY
