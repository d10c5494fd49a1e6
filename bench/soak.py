"""Soak: back-to-back mixed runs (every engine, several algorithms) on a Kronecker graph with
small budgets, (a) in one process through the Python API, (b) as separate `diskgraph run`
processes. Checks that nothing accumulates:

- Python: the process's RSS after the first pass (every job run once) and at the end (within
  --rss-slack, 10%), its open descriptors (/proc/self/fd) and threads (/proc/self/task) after
  the first pass and at the end;
- CLI: each run's peak RSS (wait4), each job's first run after the first pass against its last
  run (within the slack), and the driver's descriptors and threads after the first pass and at
  the end;
- both: no file left in the scratch directory (the shards engine's scratch copies, mapped vertex
  state, the temporary directory of the CLI runs) and no temporary in the graph directory.

The baseline is taken once every job has run once, not earlier: what a job allocates on its
first run and keeps (thread pools, caches, lazily loaded code, the page cache's copy of the
graph) is then in it, so it neither looks like a leak nor hides one.

Prints a table and exits non-zero when a bound is broken.

    python3 bench/soak.py                  # 1000 runs each way on Kronecker 18
    python3 bench/soak.py --runs 100 --mode python
"""
from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Tuple

# (algorithm, engine, options): every engine, several algorithms; each a short run.
JOBS: List[Tuple[str, str, Dict[str, str]]] = [
    ("pagerank", "memory", {"iterations": "5"}),
    ("bfs", "selective", {}),
    ("wcc", "stream", {}),
    ("pagerank", "sync", {"iterations": "2"}),
    ("pagerank", "shards", {"iterations": "1"}),
    ("bfs", "memory", {}),
    ("pagerank", "selective", {"iterations": "3"}),
    ("pagerank", "stream", {"iterations": "3"}),
    ("bfs", "sync", {}),
    ("pagerank", "shards", {"iterations": "2"}),
    ("kcore", "selective", {}),
    ("wcc", "memory", {}),
    ("bfs", "stream", {}),
    ("wcc", "sync", {}),
    ("wcc", "selective", {}),
    ("kcore", "memory", {}),
]

# Small budgets: the memory engine needs the whole CSR (about 32 MiB at scale 18), the shards
# engine its largest interval.
BUDGET = {"memory": "96MiB", "shards": "64MiB"}
SMALL = "24MiB"


@dataclass
class Soak:
    """What one way of running measured."""

    runs: int
    # Python: this process's RSS after the first pass over the jobs and at the end; CLI: the
    # runs' peaks, each job's first run after the first pass and its last, averaged over the
    # jobs (KiB).
    rss_baseline_kib: int
    rss_end_kib: int
    # Before the first run, after the first pass over the jobs (pools and caches made once are
    # there by then), at the end.
    fds: Tuple[int, int, int]
    threads: Tuple[int, int, int]
    left: List[str]
    seconds: float
    # CLI: the largest growth of one job's peak RSS from its first run after the first pass to its last.
    rss_growth_per_job: Optional[float] = None
    failures: List[str] = field(default_factory=list)


def budget(engine: str) -> str:
    return BUDGET.get(engine, SMALL)


def rss_kib() -> int:
    """This process's resident set, in KiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS in /proc/self/status")


def count(path: str) -> int:
    return len(os.listdir(path))


def leftovers(scratch: Path, graph: Path) -> List[str]:
    """Files in the scratch directory and temporaries in the graph directory."""
    left = [str(p.relative_to(scratch)) for p in scratch.rglob("*")]
    left += [p.name for p in graph.iterdir() if p.name.startswith(".")]
    return left


def prepare(binary: str, scale: int, work: Path) -> Path:
    graph = work / f"kron{scale}"
    if not (graph / "manifest.json").exists():
        subprocess.run(
            [binary, "generate", "kronecker", "--scale", str(scale), "-o", str(graph), "--memory", "256MiB", "--force"],
            check=True,
            stdout=subprocess.DEVNULL,
        )
    layouts = {p.name for p in graph.iterdir()}
    if not any(n.startswith("grid-") for n in layouts):
        subprocess.run([binary, "partition", str(graph), "--memory", SMALL], check=True, stdout=subprocess.DEVNULL)
    if not any(n.startswith("shards-") for n in layouts):
        subprocess.run(
            [binary, "partition", str(graph), "--shards", "auto", "--memory", SMALL],
            check=True,
            stdout=subprocess.DEVNULL,
        )
    return graph


def soak_python(graph: Path, scratch: Path, runs: int) -> Soak:
    import diskgraph

    g = diskgraph.open(str(graph))
    fds0, threads0 = count("/proc/self/fd"), count("/proc/self/task")
    rss_base, fds_base, threads_base = 0, 0, 0
    t0 = time.perf_counter()
    for i in range(runs):
        algorithm, engine, options = JOBS[i % len(JOBS)]
        opts: Dict[str, object] = {k: int(v) for k, v in options.items()}
        if engine == "shards":
            opts["scratch"] = str(scratch)
        g.run(algorithm, engine=engine, memory=budget(engine), **opts)
        if (i + 1) % 100 == 0:
            print(f"python: {i + 1} runs, RSS {rss_kib()} KiB", file=sys.stderr, flush=True)
        if i == len(JOBS) - 1:
            rss_base = rss_kib()
            fds_base, threads_base = count("/proc/self/fd"), count("/proc/self/task")
    return Soak(
        runs=runs,
        rss_baseline_kib=rss_base,
        rss_end_kib=rss_kib(),
        fds=(fds0, fds_base, count("/proc/self/fd")),
        threads=(threads0, threads_base, count("/proc/self/task")),
        left=leftovers(scratch, graph),
        seconds=time.perf_counter() - t0,
    )


def soak_cli(binary: str, graph: Path, scratch: Path, runs: int) -> Soak:
    fds0, threads0 = count("/proc/self/fd"), count("/proc/self/task")
    env = dict(os.environ, TMPDIR=str(scratch))
    fds_base, threads_base = fds0, threads0
    first: Dict[int, int] = {}
    last: Dict[int, int] = {}
    failures: List[str] = []
    t0 = time.perf_counter()
    for i in range(runs):
        j = i % len(JOBS)
        algorithm, engine, options = JOBS[j]
        args = [binary, "run", algorithm, str(graph), "--engine", engine, "--memory", budget(engine)]
        for k, v in options.items():
            args += [f"--{k.replace('_', '-')}", v]
        p = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        assert p.stderr is not None
        err = p.stderr.read()
        p.stderr.close()
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        if p.returncode != 0:
            failures.append(f"{' '.join(args[1:])}: exit {p.returncode}: {err.decode(errors='replace').strip()}")
        peak = usage.ru_maxrss  # KiB
        if i >= len(JOBS):
            first.setdefault(j, peak)
        last[j] = peak
        if i == len(JOBS) - 1:
            fds_base, threads_base = count("/proc/self/fd"), count("/proc/self/task")
    return Soak(
        runs=runs,
        rss_baseline_kib=sum(first.values()) // len(first),
        rss_end_kib=sum(last.values()) // len(last),
        fds=(fds0, fds_base, count("/proc/self/fd")),
        threads=(threads0, threads_base, count("/proc/self/task")),
        left=leftovers(scratch, graph),
        seconds=time.perf_counter() - t0,
        rss_growth_per_job=max(last[j] / first[j] for j in first),
        failures=failures,
    )


def check(name: str, r: Soak, slack: float) -> List[str]:
    """The bounds `r` breaks."""
    broken = []
    if r.rss_end_kib > r.rss_baseline_kib * (1 + slack):
        broken.append(
            f"{name}: RSS grew from {r.rss_baseline_kib} KiB after the first pass over the jobs to {r.rss_end_kib} KiB"
        )
    growth = r.rss_growth_per_job
    if growth is not None and growth > 1 + slack:
        broken.append(f"{name}: a job's peak RSS grew {growth:.2f}x from its first run after the first pass to its last")
    if r.fds[2] > r.fds[1]:
        broken.append(f"{name}: {r.fds[2] - r.fds[1]} descriptors leaked")
    if r.threads[2] > r.threads[1]:
        broken.append(f"{name}: {r.threads[2] - r.threads[1]} threads left")
    if r.left:
        broken.append(f"{name}: left behind: {r.left}")
    broken += [f"{name}: run failed: {f}" for f in r.failures]
    return broken


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=1000, help="runs each way (default 1000)")
    ap.add_argument("--scale", type=int, default=18, help="Kronecker scale (default 18)")
    ap.add_argument("--mode", choices=["python", "cli", "both"], default="both")
    ap.add_argument("--work", type=Path, default=None, help="directory for the graph (default: a temporary one)")
    ap.add_argument("--rss-slack", type=float, default=0.10, help="allowed RSS growth (default 0.10)")
    ap.add_argument("--binary", default=None, help="the diskgraph binary (default: on PATH)")
    a = ap.parse_args()
    if a.runs < 2 * len(JOBS):
        ap.error(
            f"--runs must be at least {2 * len(JOBS)}: the baseline is taken after the first pass over the "
            f"{len(JOBS)} jobs, and each job runs again after it"
        )
    binary = a.binary or "diskgraph"
    work = a.work or Path(tempfile.mkdtemp(prefix="diskgraph-soak-"))
    work.mkdir(parents=True, exist_ok=True)
    graph = prepare(binary, a.scale, work)
    results: Dict[str, Soak] = {}
    # The CLI first: a child's peak RSS counts from its parent's at fork, which the Python runs
    # would raise.
    for mode in ["cli", "python"] if a.mode == "both" else [a.mode]:
        scratch = work / f"scratch-{mode}"
        scratch.mkdir(exist_ok=True)
        if mode == "python":
            results[mode] = soak_python(graph, scratch, a.runs)
        else:
            results[mode] = soak_cli(binary, graph, scratch, a.runs)
    print(f"soak: {a.runs} runs each way on Kronecker {a.scale} ({graph}), {len(JOBS)} jobs in turn")
    print(f"{'mode':8} {'runs':>6} {'RSS@base KiB':>13} {'RSS end KiB':>12} {'fds':>12} {'threads':>12} {'left':>5} {'seconds':>8}")
    broken: List[str] = []
    for mode, r in results.items():
        fds, threads = "/".join(map(str, r.fds)), "/".join(map(str, r.threads))
        print(
            f"{mode:8} {r.runs:>6} {r.rss_baseline_kib:>13} {r.rss_end_kib:>12} "
            f"{fds:>12} {threads:>12} {len(r.left):>5} {r.seconds:>8.1f}"
        )
        broken += check(mode, r, a.rss_slack)
    cli = results.get("cli")
    if cli is not None and cli.rss_growth_per_job is not None:
        print(
            "cli: RSS columns are runs' peaks, the mean over the jobs of each job's first run after the first pass "
            "and its last; "
            f"largest first-to-last growth of one job {cli.rss_growth_per_job:.3f}x"
        )
    print("fds, threads: before the first run / after the first pass over the jobs (the baseline) / at the end")
    print(f"peak RSS of this process: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss} KiB")
    for b in broken:
        print(f"BROKEN {b}")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
