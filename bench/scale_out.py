#!/usr/bin/env python3
"""Scale-out benchmark: a graph split into parts (`diskgraph split`) and run on a local Ray cluster,
against the single-machine engine in the same run.

For Kronecker `--scale` (generated once into `--data`) and each part count of `--parts`:

(split) the split's time, shape, bytes on disk and edge balance (largest part over the mean;
        target ≤ 1.1);
(run)   pagerank (`--iterations`) and wcc over the split on `local:--workers` with every part on
        `--engine` at `--memory`: wall time, each superstep's bytes exchanged against the
        boundary-vertex bound (one value per boundary vertex and part each way), the workers'
        bytes read and seconds; and the same pagerank on the whole graph on one machine (the
        same engine and budget), page cache dropped before each run, so the ratio says what the
        cluster costs here.
(more)  bfs and sssp from the largest out-degree vertex and kcore over the same split, each
        checked equal to the single machine's answer: wall time against the single machine's,
        supersteps and bytes exchanged in all.

Every line printed also goes into the JSON report (`--out`).

    python3 bench/scale_out.py [--data DIR] [--scale 22] [--parts 2,4,8] [--workers 2]
                               [--engine selective] [--memory 256MiB] [--iterations 10]
"""
from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

from common import diskgraph_binary, drop_caches

import diskgraph


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=Path("/work/bench-data"))
    ap.add_argument("--scale", type=int, default=22)
    ap.add_argument("--parts", default="2,4,8")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--engine", default="selective")
    ap.add_argument("--memory", default="256MiB")
    ap.add_argument("--iterations", type=int, default=10)
    ap.add_argument("--out", type=Path, default=Path(__file__).parent / "out" / "scale_out.json")
    a = ap.parse_args()
    dg = diskgraph_binary()
    lines: list[str] = []
    report: dict = {"runs": []}

    def say(line: str = "") -> None:
        print(line, flush=True)
        lines.append(line)

    g_path = a.data / f"kron{a.scale}"
    if not g_path.exists():
        subprocess.run([dg, "generate", "kronecker", "--scale", str(a.scale), "-o", str(g_path)], check=True)
    g = diskgraph.open(g_path)
    say(f"# bench/scale_out.py — kron{a.scale}: {g.num_vertices} vertices, {g.num_arcs} arcs; "
        f"pagerank {a.iterations} iterations, engine {a.engine} at {a.memory} per part, local:{a.workers}")
    drop_caches()
    t = time.perf_counter()
    single = g.pagerank(iterations=a.iterations, engine=a.engine, memory=a.memory)
    single_s = time.perf_counter() - t
    say(f"single machine: {single_s:.2f} s, {single.stats.get('bytes_read', 0) / 2**20:.0f} MiB read")
    report["single_seconds"] = single_s
    drop_caches()
    t = time.perf_counter()
    single_wcc = g.wcc(engine=a.engine, memory=a.memory)
    single_wcc_s = time.perf_counter() - t
    say(f"single machine wcc: {single_wcc_s:.2f} s")
    report["single_wcc_seconds"] = single_wcc_s
    source = int(g.vertex_ids()[g.out_degree().argmax()])
    more = {
        "bfs": (lambda: g.bfs(source=source, engine=a.engine, memory=a.memory),
                lambda s: s.bfs(source, cluster=f"local:{a.workers}", engine=a.engine, memory=a.memory)),
        "sssp": (lambda: g.sssp(source=source, engine=a.engine, memory=a.memory),
                 lambda s: s.sssp(source, cluster=f"local:{a.workers}", engine=a.engine, memory=a.memory)),
        "kcore": (lambda: g.kcore(engine=a.engine, memory=a.memory), lambda s: s.kcore(cluster=f"local:{a.workers}")),
    }
    singles = {}
    for name, (one, _) in more.items():
        drop_caches()
        t = time.perf_counter()
        singles[name] = (one(), time.perf_counter() - t)
        say(f"single machine {name}: {singles[name][1]:.2f} s")
    report["single_more_seconds"] = {name: sec for name, (_, sec) in singles.items()}
    more_lines: list[str] = []
    say("")
    say("| parts | R×C | split s | balance (max/mean) | parts on disk MiB | run s | × single | MiB exchanged per superstep "
        "| boundary bound MiB | workers' MiB read | max |Δ| vs single | wcc s | wcc × single | wcc MiB received |")
    say("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for n in [int(x) for x in a.parts.split(",")]:
        out = a.data / f"kron{a.scale}.split{n}"
        t = time.perf_counter()
        subprocess.run([dg, "split", str(g_path), "--parts", str(n), "-o", str(out), "--force"], check=True,
                       capture_output=True)
        split_s = time.perf_counter() - t
        meta = json.loads((out / "split.json").read_text())
        arcs = [p["num_arcs"] for p in meta["parts"]]
        balance = max(arcs) / (sum(arcs) / len(arcs))
        on_disk = sum(f.stat().st_size for f in out.rglob("*") if f.is_file())
        s = diskgraph.open_split(out)
        drop_caches()
        t = time.perf_counter()
        r = s.pagerank(cluster=f"local:{a.workers}", iterations=a.iterations, engine=a.engine, memory=a.memory)
        run_s = time.perf_counter() - t
        steps = r.stats["supersteps"]
        per_step = sum(st["bytes_sent"] + st["bytes_received"] for st in steps) / len(steps)
        bound = r.stats["boundary_bytes_per_superstep"]
        read = r.stats["bytes_read"]
        diff = float(abs(r.values - single.values).max())
        drop_caches()
        t = time.perf_counter()
        w = s.wcc(cluster=f"local:{a.workers}", engine=a.engine, memory=a.memory)
        wcc_s = time.perf_counter() - t
        if not (w.values == single_wcc.values).all():
            sys.exit(f"{n} parts: wcc labels differ from the single machine's")
        wcc_bytes = w.stats["supersteps"][0]["bytes_received"]
        say(f"| {n} | {meta['rows']}×{meta['cols']} | {split_s:.1f} | {balance:.4f} | {on_disk / 2**20:.0f} | {run_s:.1f} | "
            f"{single_s / run_s:.2f} | {per_step / 2**20:.1f} | {bound / 2**20:.1f} | {read / 2**20:.0f} | {diff:.1e} | "
            f"{wcc_s:.1f} | {single_wcc_s / wcc_s:.2f} | {wcc_bytes / 2**20:.1f} |")
        report["runs"].append({"parts": n, "rows": meta["rows"], "cols": meta["cols"], "split_seconds": split_s,
                               "balance": balance, "bytes_on_disk": on_disk, "run_seconds": run_s,
                               "bytes_per_superstep": per_step, "boundary_bound": bound, "workers": r.stats["workers"],
                               "supersteps": steps, "max_abs_diff": diff, "wcc_seconds": wcc_s,
                               "wcc_bytes_received": wcc_bytes})
        for name, (_, on_split) in more.items():
            drop_caches()
            t = time.perf_counter()
            r = on_split(s)
            sec = time.perf_counter() - t
            if not (r.values == singles[name][0].values).all():
                sys.exit(f"{n} parts: {name} differs from the single machine's")
            steps = r.stats["supersteps"]
            moved = sum(st["bytes_sent"] + st["bytes_received"] for st in steps)
            more_lines.append(f"| {n} | {name} | {sec:.1f} | {singles[name][1] / sec:.2f} | {len(steps)} | "
                              f"{moved / 2**20:.0f} |")
            report["runs"][-1][name] = {"seconds": sec, "supersteps": len(steps), "bytes_exchanged": moved}
        shutil.rmtree(out)
    say("")
    say("| parts | algorithm | run s | × single | supersteps | MiB exchanged in all |")
    say("|---:|---|---:|---:|---:|---:|")
    for line in more_lines:
        say(line)
    say("")
    say("× single: the single-machine run's time over the cluster run's (below 1 is slower). Exchanged: bytes "
        "sent to and received from the parts per superstep (float64 values of boundary vertices), against the "
        "bound of one value per boundary vertex and part each way.")
    report["lines"] = lines
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"JSON: {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
