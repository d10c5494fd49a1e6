"""Shared helpers of the benchmark suite: running diskgraph, cgroup v1 memory limits, dropping
the page cache, holding freed memory in a virtual machine, and reading RunStats. Every number a
benchmark prints comes from a run made in the same invocation; nothing is cached between
invocations except generated graphs."""
from __future__ import annotations

import atexit
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

CGROUP_ROOT = Path("/sys/fs/cgroup/memory")
BLKIO_ROOT = Path("/sys/fs/cgroup/blkio")
# How long the guest kernel keeps a freed page before reporting it to the host (virtio-balloon
# free page reporting, where the kernel offers this knob).
PAGE_REPORTING_DELAY = Path("/sys/module/page_reporting/parameters/min_free_ms")
FREED_PAGES_HOLD_MS = 300_000  # the knob's largest value


def diskgraph_binary() -> str:
    """The CLI the suites run: `$DISKGRAPH_BIN` if set (e.g. `target/release/diskgraph` of the
    checkout), else the installed one (scripts/setup.sh installs it with the Python package)."""
    found = os.environ.get("DISKGRAPH_BIN") or shutil.which("diskgraph")
    if not found or not Path(found).exists():
        sys.exit("diskgraph is not installed: run ./scripts/setup.sh first (or set DISKGRAPH_BIN)")
    return found


def drop_caches() -> bool:
    """Flushes dirty pages and drops the page cache; False (with a note) when not permitted."""
    subprocess.run(["sync"], check=True)
    try:
        Path("/proc/sys/vm/drop_caches").write_text("3\n")
        return True
    except OSError as e:
        print(f"note: cannot drop caches ({e}); runs may be served from the page cache", file=sys.stderr)
        return False


def hold_freed_pages() -> int | None:
    """Keeps the memory that runs free (and that dropping the page cache frees) backed by the
    host for five minutes, until this process exits; returns the hold in ms, None when the
    machine offers no such knob (bare metal) or refuses it (with a note).

    A guest that reports freed pages to its host at once (min_free_ms 0) makes the next run's
    fresh memory fault back in from the host: on the development VM that cost 0.11-2.2 s per
    GiB at random, where a held page costs only its zeroing, 0.11 s (docs/BENCHMARKS.md, "Run-to-run
    variation"). Holding them measures the engine, not the host's reclaim. Two suites at once
    would restore each other's setting: run one at a time."""
    if not PAGE_REPORTING_DELAY.exists():
        return None
    try:
        before = PAGE_REPORTING_DELAY.read_text().strip()
        PAGE_REPORTING_DELAY.write_text(str(FREED_PAGES_HOLD_MS))
    except OSError as e:
        print(f"note: freed pages go back to the host at once ({e}); fresh memory may be slow", file=sys.stderr)
        return None
    atexit.register(PAGE_REPORTING_DELAY.write_text, before)
    return FREED_PAGES_HOLD_MS


class MemoryCgroup:
    """A cgroup v1 memory group with a hard limit (page cache included); processes started with
    `preexec` join it. Without permission it degrades to no limit and says so."""

    def __init__(self, name: str, limit_bytes: int) -> None:
        self.path = CGROUP_ROOT / name
        self.limit = limit_bytes
        self.active = False
        self.blkio: Path | None = None
        try:
            self.path.mkdir(exist_ok=True)
            (self.path / "memory.limit_in_bytes").write_text(str(limit_bytes))
            self.active = True
        except OSError as e:
            print(f"note: no cgroup memory limit ({e}); runs are not forced out of core", file=sys.stderr)

    def throttle_reads(self, on: Path, bytes_per_second: int) -> None:
        """Caps the group's reads from the disk holding `on` (a cgroup v1 blkio group of the same
        name), to run as on a slower device; direct I/O is throttled too."""
        st = os.stat(on)
        dev = Path(f"/sys/dev/block/{os.major(st.st_dev)}:{os.minor(st.st_dev)}")
        if (dev / "partition").exists():  # throttling applies to the whole disk
            dev = dev.resolve().parent
        blkio = BLKIO_ROOT / self.path.name
        blkio.mkdir(exist_ok=True)
        (blkio / "blkio.throttle.read_bps_device").write_text(f"{(dev / 'dev').read_text().strip()} {bytes_per_second}")
        self.blkio = blkio

    def preexec(self) -> None:
        if self.active:
            (self.path / "cgroup.procs").write_text(str(os.getpid()))
        if self.blkio:
            (self.blkio / "cgroup.procs").write_text(str(os.getpid()))

    def max_usage(self) -> int:
        try:
            return int((self.path / "memory.max_usage_in_bytes").read_text())
        except OSError:
            return 0

    def reset_max(self) -> None:
        try:
            (self.path / "memory.max_usage_in_bytes").write_text("0")
        except OSError:
            pass

    def close(self) -> None:
        for group in ([self.path] if self.active else []) + ([self.blkio] if self.blkio else []):
            try:
                group.rmdir()
            except OSError:
                pass


def run(cmd: list[str], cgroup: MemoryCgroup | None = None) -> tuple[str, float]:
    """Runs a command (inside `cgroup` if given); exits with its stderr on failure."""
    start = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, preexec_fn=cgroup.preexec if cgroup else None)
    elapsed = time.perf_counter() - start
    if p.returncode != 0:
        sys.exit(f"command failed ({p.returncode}): {' '.join(cmd)}\n{p.stderr}")
    return p.stdout, elapsed


def run_stats(cmd: list[str], stats_path: Path, cgroup: MemoryCgroup | None = None) -> dict:
    """Runs `diskgraph run ... --stats stats_path` and returns the RunStats dict plus the
    process wall time."""
    out, wall = run([*cmd, "--stats", str(stats_path)], cgroup)
    stats = json.loads(stats_path.read_text())
    stats["process_seconds"] = wall
    stats["stdout_first_line"] = out.splitlines()[0] if out else ""
    return stats


def ensure_kronecker(dg: str, path: Path, scale: int, weighted: bool, memory: str = "1GiB") -> None:
    """Generates a Kronecker graph unless a valid one is already there."""
    if (path / "manifest.json").exists():
        return
    cmd = [dg, "generate", "kronecker", "--scale", str(scale), "--memory", memory, "-o", str(path), "--force"]
    run(cmd + (["--weighted"] if weighted else []))
