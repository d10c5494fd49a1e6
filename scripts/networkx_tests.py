#!/usr/bin/env python3
"""Runs NetworkX's own test suite against the diskgraph backend and prints the counts.

    python3 scripts/networkx_tests.py           # the test modules of the backend's functions
    python3 scripts/networkx_tests.py --all     # the whole NetworkX suite
    python3 scripts/networkx_tests.py -- -x -k pagerank   # extra pytest arguments

Every call of a function the backend implements converts its graphs to the backend and runs
there (``NETWORKX_TEST_BACKEND=diskgraph``); a call whose arguments the backend cannot honour
runs NetworkX's own code (``NETWORKX_FALLBACK_TO_NX=True``). Needs the ``diskgraph`` package
(``maturin develop``) and pytest in the running interpreter. Exits non-zero if any test failed.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from typing import Dict, List

#: The NetworkX test modules of the functions the backend implements.
MODULES = [
    "networkx.algorithms.link_analysis.tests.test_pagerank",
    "networkx.algorithms.components.tests.test_connected",
    "networkx.algorithms.components.tests.test_weakly_connected",
    "networkx.algorithms.components.tests.test_strongly_connected",
    "networkx.algorithms.shortest_paths.tests.test_unweighted",
    "networkx.algorithms.shortest_paths.tests.test_weighted",
    "networkx.algorithms.traversal.tests.test_bfs",
    "networkx.algorithms.tests.test_core",
    "networkx.algorithms.centrality.tests.test_betweenness_centrality",
    "networkx.algorithms.tests.test_cluster",
    "networkx.algorithms.tests.test_mis",
    "networkx.algorithms.tree.tests.test_mst",
    "networkx.algorithms.tests.test_distance_measures",
]

OUTCOMES = ("passed", "failed", "errors", "skipped", "xfailed", "xpassed")


def counts(summary: str) -> Dict[str, int]:
    """The outcome counts of pytest's last summary line (``3 passed, 1 failed in 2.0s``)."""
    found = {outcome: 0 for outcome in OUTCOMES}
    for number, outcome in re.findall(r"(\d+) (passed|failed|errors?|skipped|xfailed|xpassed)", summary):
        found["errors" if outcome.startswith("error") else outcome] += int(number)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--all", action="store_true", help="the whole NetworkX suite")
    parser.add_argument("pytest_args", nargs="*", help="extra pytest arguments (after --)")
    args = parser.parse_args()
    targets: List[str] = ["networkx"] if args.all else MODULES
    env = dict(os.environ, NETWORKX_TEST_BACKEND="diskgraph", NETWORKX_FALLBACK_TO_NX="True")
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--pyargs", *targets, *args.pytest_args]
    start = time.monotonic()
    run = subprocess.run(command, env=env, capture_output=True, text=True)
    seconds = time.monotonic() - start
    lines = [line for line in run.stdout.splitlines() if line.strip()]
    failures = [line for line in lines if line.startswith(("FAILED", "ERROR"))]
    if not lines or run.returncode not in (0, 1):
        sys.stdout.write(run.stdout[-4000:])
        sys.stderr.write(run.stderr[-4000:])
        print(f"pytest exited with {run.returncode}", file=sys.stderr)
        return run.returncode or 1
    found = counts(lines[-1])
    for line in failures:
        print(line)
    print(f"networkx tests with the diskgraph backend ({'whole suite' if args.all else f'{len(MODULES)} modules'}):")
    print("  " + ", ".join(f"{found[o]} {o}" for o in OUTCOMES) + f" in {seconds:.0f} s")
    return 0 if found["failed"] == 0 and found["errors"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
