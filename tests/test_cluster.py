"""Cluster runs over split directories on a local Ray cluster: pagerank, bfs, sssp, wcc and kcore over the parts equal
the single-machine engine's answers on the nasty random graphs (self-loops, duplicates, isolated
vertices, a hub, sparse 64-bit IDs, directed and undirected) and a real graph; bytes exchanged
stay within the boundary-vertex bound; damaged splits are refused; a killed worker is an error
naming its parts."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import diskgraph
from diskgraph.cluster import placement, session
from helpers import build, random_case

pytest.importorskip("ray")

REAL = Path(__file__).resolve().parent.parent / "testdata" / "real" / "wiki-Vote.txt"


@pytest.fixture(scope="module", autouse=True)
def ray_session() -> Any:
    """One local Ray session of 4 CPUs for the module: runs use it as they find it (each run
    starts its own workers), which is also how a notebook's session is used. Its workers run at
    the driver's priority, as those of a session a run starts (Ray's default niceness of 15
    starves them beside any other work: see docs/guide.md)."""
    import ray

    ray.init(
        num_cpus=4,
        include_dashboard=False,
        logging_level="ERROR",
        log_to_driver=False,
        _system_config={"worker_niceness": 0},
    )
    yield
    ray.shutdown()


def split(graph: diskgraph.Graph, parts: int, out: Path) -> diskgraph.SplitGraph:
    exe = shutil.which("diskgraph")
    assert exe, "the diskgraph command is on PATH"
    subprocess.run([exe, "split", graph.path, "--parts", str(parts), "-o", str(out)], check=True, capture_output=True)
    return diskgraph.open_split(out)


def check_runs(g: diskgraph.Graph, s: diskgraph.SplitGraph, cluster: str) -> None:
    want = g.pagerank(engine="memory")
    got = s.pagerank(cluster=cluster, engine="memory")
    assert np.array_equal(got.vertex_ids, want.vertex_ids)
    np.testing.assert_allclose(got.values, want.values, rtol=1e-9, atol=1e-15)
    steps = got.stats["supersteps"]
    assert steps and got.stats["iterations"] == len(steps)
    bound = got.stats["boundary_bytes_per_superstep"]
    assert all(st["bytes_sent"] + st["bytes_received"] <= bound for st in steps), (steps[0], bound)
    assert sum(len(w["parts"]) for w in got.stats["workers"]) == len(s.parts)
    source = int(g.vertex_ids()[np.argmax(g.out_degree())])
    levels = s.bfs(source, cluster=cluster, engine="memory")
    np.testing.assert_array_equal(levels.values, g.bfs(source=source, engine="memory").values)
    labels = s.wcc(cluster=cluster, engine="memory")
    np.testing.assert_array_equal(labels.values, g.wcc(engine="memory").values)
    assert labels.stats["supersteps"][0]["bytes_received"] <= labels.stats["boundary_bytes_per_superstep"]
    dist = s.sssp(source, cluster=cluster, engine="memory")
    np.testing.assert_array_equal(dist.values, g.sssp(source=source, engine="memory").values)
    assert {st["kind"] for st in dist.stats["supersteps"]} == {"min-plus"}
    core = s.kcore(cluster=cluster)
    np.testing.assert_array_equal(core.values, g.kcore(engine="memory").values)
    peels = [st for st in core.stats["supersteps"] if st["kind"] == "peel"]
    assert all(st["bytes_sent"] + st["bytes_received"] <= core.stats["boundary_bytes_per_superstep"] for st in peels)


@pytest.mark.parametrize("seed", [3, 8, 13, 21])
def test_cluster_runs_equal_the_single_machine(tmp_path: Any, seed: int) -> None:
    case = random_case(seed)
    g = build(case, tmp_path / "g")
    s = split(g, 4 if seed % 2 else 3, tmp_path / "g.split")
    check_runs(g, s, "local:2")


@pytest.mark.parametrize("directed", [True, False])
def test_kcore_and_sssp_on_dense_multigraphs_split_many_ways(tmp_path: Any, directed: bool) -> None:
    """Mutual arcs held by different parts, self-loops and parallel edges: kcore counts each
    simple edge once (NetworkX's core_number of the simple undirected view as the oracle), and
    sssp's minima over parts equal the single machine."""
    import networkx as nx

    rng = np.random.default_rng(7)
    n = 40
    src, dst = rng.integers(0, n, 500), rng.integers(0, n, 500)
    src, dst = np.concatenate([src, dst[:200], [5, 5]]), np.concatenate([dst, src[:200], [5, 5]])
    weights = rng.integers(1, 9, len(src)).astype(np.float32)
    g = diskgraph.from_edges(
        src, dst, tmp_path / "g", weights=weights, directed=directed, keep_self_loops=True, keep_duplicates=True
    )
    simple = nx.Graph()
    simple.add_nodes_from(range(n))
    simple.add_edges_from((int(u), int(v)) for u, v in zip(src, dst) if u != v)
    want = nx.core_number(simple)
    for parts in (1, 4, 9):
        s = split(g, parts, tmp_path / f"g{parts}.split")
        core = s.kcore(cluster="local:3")
        np.testing.assert_array_equal(core.values, [want[int(v)] for v in core.vertex_ids])
        dist = s.sssp(3, cluster="local:3", engine="selective")
        np.testing.assert_array_equal(dist.values, g.sssp(source=3, engine="memory").values)


def test_sssp_refuses_negative_weights(tmp_path: Any) -> None:
    g = diskgraph.from_edges([0, 1, 2], [1, 2, 0], tmp_path / "g", weights=[1.0, -2.0, 1.0])
    s = split(g, 2, tmp_path / "g.split")
    with pytest.raises(ValueError, match=r"non-negative weights: an edge into vertex 2 .* weighs -2"):
        s.sssp(0, cluster="local:2")


def test_a_real_graph_on_more_workers_than_cores(tmp_path: Any) -> None:
    g = diskgraph.import_file(REAL, tmp_path / "wiki")
    s = split(g, 4, tmp_path / "wiki.split")
    check_runs(g, s, "local:4")


def test_a_run_starts_and_stops_its_own_session_when_none_is_running(tmp_path: Any) -> None:
    import ray

    g = build(random_case(2), tmp_path / "g")
    s = split(g, 2, tmp_path / "g.split")
    ray.shutdown()
    try:
        r = s.pagerank(cluster="local:2", iterations=3)
        assert not ray.is_initialized()
        assert r.stats["iterations"] == 3 and len(r.stats["workers"]) == 2
        with pytest.raises(diskgraph.ClusterError, match="5 workers asked for"):
            ray.init(num_cpus=2, include_dashboard=False, logging_level="ERROR", log_to_driver=False)
            s.pagerank(cluster="local:5")
    finally:
        ray.shutdown()
        ray.init(num_cpus=4, include_dashboard=False, logging_level="ERROR", log_to_driver=False)


def test_damaged_splits_are_refused(tmp_path: Any) -> None:
    g = build(random_case(5), tmp_path / "g")
    out = tmp_path / "g.split"
    split(g, 2, out)
    meta = json.loads((out / "split.json").read_text())
    meta["parts"][1]["out_adj"] = "0" * 16
    (out / "split.json").write_text(json.dumps(meta))
    with pytest.raises(diskgraph.GraphFormatError, match="part part-0-1 has"):
        diskgraph.open_split(out)
    (out / "split.json").write_text(json.dumps({**meta, "format": "other"}))
    with pytest.raises(diskgraph.GraphFormatError, match='format "other" version 1 is not "diskgraph-split"'):
        diskgraph.open_split(out)
    with pytest.raises(ValueError, match="expected local:N"):
        placement.parse_cluster("local:0")
    assert placement.parse_cluster("ray://head:10001") == ("ray://head:10001", None)


def test_a_killed_worker_is_restarted_once_and_then_an_error_naming_its_parts(tmp_path: Any, monkeypatch: Any) -> None:
    import ray

    g = build(random_case(8), tmp_path / "g")
    s = split(g, 4, tmp_path / "g.split")
    step, peel = session.Session.superstep, session.Session.peel

    def killing(method: Any) -> Any:
        """``method``, killing worker 1 before the run's third superstep."""

        def wrapped(run: Any, *args: Any, **kw: Any) -> Any:
            if len(run.steps) == 2:
                ray.kill(run.actors[1])
            return method(run, *args, **kw)

        return wrapped

    monkeypatch.setattr(session.Session, "superstep", killing(step))
    r = s.pagerank(cluster="local:2", engine="memory")
    np.testing.assert_allclose(r.values, g.pagerank(engine="memory").values, rtol=1e-9, atol=1e-15)
    assert [(x["worker"], x["superstep"]) for x in r.stats["restarts"]] == [(1, 2)]

    # kcore's restarted worker gets its owned edges back.
    monkeypatch.setattr(session.Session, "superstep", step)
    monkeypatch.setattr(session.Session, "peel", killing(peel))
    core = s.kcore(cluster="local:2")
    np.testing.assert_array_equal(core.values, g.kcore(engine="memory").values)
    assert len(core.stats["restarts"]) == 1

    # A worker that dies again after its restart ends the run.
    restart = session.Session._restart

    def restart_and_kill(run: Any, w: int, e: Exception) -> None:
        restart(run, w, e)
        ray.kill(run.actors[w])

    monkeypatch.setattr(session.Session, "_restart", restart_and_kill)
    monkeypatch.setattr(session.Session, "superstep", killing(step))
    with pytest.raises(
        diskgraph.ClusterError,
        # `ray.kill` only asks: the retried step may finish before the death lands.
        match=r"worker 1 \(process \d+ on node \w+, parts part-0-1, part-1-1\) at superstep [23] died again after a restart",
    ):
        s.pagerank(cluster="local:2", engine="memory")


def test_a_stalled_worker_is_restarted_and_then_an_error_naming_it(tmp_path: Any) -> None:
    """A worker that does not answer in time (here stopped with SIGSTOP: a starved or stuck
    process looks the same to the driver) is replaced and its call repeated; a call that cannot
    be repeated ends the run with an error naming the worker's process, never a wait without
    end."""
    g = build(random_case(8), tmp_path / "g")
    s = split(g, 4, tmp_path / "g.split")
    x = np.random.default_rng(1).random(s.num_vertices)
    with session.Session(s, "local:2", {"engine": "memory"}, 1800.0) as run:
        want = run.superstep(x)
    with session.Session(s, "local:2", {"engine": "memory"}, timeout=10) as run:
        stopped = run.pids[1]
        os.kill(stopped, signal.SIGSTOP)
        try:
            started = time.monotonic()
            got = run.superstep(x)
            assert time.monotonic() - started < 10 + session.START_TIMEOUT
        finally:
            # The restart killed the stopped process; a failed test must not leave it behind.
            with contextlib.suppress(ProcessLookupError):
                os.kill(stopped, signal.SIGCONT)
        np.testing.assert_array_equal(got, want)
        assert [(r["worker"], r["superstep"]) for r in run.restarts] == [(1, 0)]
        assert "did not answer within 10 s" in run.restarts[0]["error"]
        assert run.pids[1] != stopped
        # kcore's join keeps state in the workers: a stalled worker there cannot be replaced.
        stopped = run.pids[0]
        os.kill(stopped, signal.SIGSTOP)
        try:
            with pytest.raises(
                diskgraph.ClusterError,
                match=rf"worker 0 \(process {stopped} on node \w+, parts part-0-0, part-1-0\) at superstep 1 "
                r"did not answer within 10 s \(stopped, starved of CPU or stuck\)",
            ):
                run.simple_view()
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.kill(stopped, signal.SIGCONT)
    with pytest.raises(ValueError, match="timeout 0: expected a positive number of seconds"):
        s.bfs(int(g.vertex_ids()[0]), cluster="local:2", timeout=0)


def test_a_part_a_worker_cannot_open_is_an_error_naming_it(tmp_path: Any) -> None:
    import ray

    g = build(random_case(8), tmp_path / "g")
    s = split(g, 2, tmp_path / "g.split")
    (tmp_path / "g.split" / "part-0-1" / "out.adj").unlink()
    with pytest.raises(diskgraph.ClusterError, match=r"worker 1 \(node \w+, parts part-0-1\) at superstep 0 died"):
        s.pagerank(cluster="local:2", engine="memory")
    assert ray.is_initialized(), "the module's session is left as it was"


def test_the_command_runs_a_split_and_leaves_it_as_it_was(tmp_path: Any) -> None:
    g = build(random_case(13), tmp_path / "g")
    out = tmp_path / "g.split"
    s = split(g, 4, out)

    def digest() -> dict:
        return {str(f.relative_to(out)): hashlib.sha256(f.read_bytes()).hexdigest() for f in out.rglob("*") if f.is_file()}

    before = digest()
    exe = shutil.which("diskgraph")
    assert exe
    source = str(int(g.vertex_ids()[0]))
    run = subprocess.run(
        [exe, "run", "sssp", str(out), "--cluster", "local:2", "--source", source, "--out", str(tmp_path / "d.npy"),
         "--stats", str(tmp_path / "stats.json")],
        capture_output=True, text=True,
    )
    assert run.returncode == 0, run.stderr
    assert "sssp on 4 parts over 2 workers" in run.stdout and "exchanged" in run.stdout
    written = np.load(tmp_path / "d.npy")
    want = g.sssp(source=int(source), engine="memory")
    np.testing.assert_array_equal(written[written.dtype.names[0]], want.vertex_ids)
    np.testing.assert_array_equal(written[written.dtype.names[1]], want.values)
    stats = json.loads((tmp_path / "stats.json").read_text())
    cluster = stats["settings"]  # the cluster's figures are the run's settings
    assert cluster["supersteps"] and all(w["seconds"] > 0 for w in cluster["workers"])
    bad = subprocess.run([exe, "run", "kcore", str(out), "--cluster", "local:0"], capture_output=True, text=True)
    assert bad.returncode == 1 and "expected local:N" in bad.stderr
    assert digest() == before, "a run writes nothing into the split"
    with pytest.raises(diskgraph.NotAGraphError, match="it is a split directory"):
        diskgraph.open(out)


def test_parts_go_to_the_nodes_that_hold_them() -> None:
    # One node: round robin over its slots.
    assert placement.place(5, [(2, [0, 1, 2, 3, 4])]) == ([(0, [0, 2, 4]), (0, [1, 3])], [])
    # Three nodes, each part on one or two of them: a part runs only where it lies, spread over
    # the slots there; slots without parts start no worker.
    workers, missing = placement.place(6, [(1, [0, 1]), (2, [2, 3, 4, 0]), (3, [5])])
    assert missing == []
    assert workers == [(0, [0, 1]), (1, [2, 4]), (1, [3]), (2, [5])]
    assert placement.place(3, [(2, [0]), (1, [2])])[1] == [1]


def test_a_part_on_no_node_is_an_error_naming_it(tmp_path: Any) -> None:
    import ray

    g = build(random_case(8), tmp_path / "g")
    out = tmp_path / "g.split"
    s = split(g, 4, out)
    assert placement.parts_here(str(out), list(zip(s.parts, s.routing.out_adj))) == [0, 1, 2, 3]
    shutil.rmtree(out / "part-1-0")
    with pytest.raises(diskgraph.ClusterError, match=r"no node of the cluster \(1 looked at\) holds part-1-0"):
        s.wcc(cluster="local:2")
    assert ray.is_initialized()


def command(*args: str) -> "subprocess.CompletedProcess[str]":
    """Runs the ``diskgraph`` console script on PATH (the package's: ``--cluster`` needs it)."""
    exe = shutil.which("diskgraph")
    assert exe
    return subprocess.run([exe, *args], capture_output=True, text=True)


def rows(path: Path) -> "tuple[np.ndarray, np.ndarray]":
    """A TSV result's IDs and values."""
    table = np.loadtxt(path, delimiter="\t", ndmin=2)
    return table[:, 0].astype(np.uint64), table[:, 1]


def test_the_command_on_a_split_writes_the_single_machines_rows(tmp_path: Any) -> None:
    """``run pagerank SPLIT --cluster local:3 --out`` writes the single machine's rows (the same
    IDs, the ranks within the guide's tolerance: relative 1e-9); an unconverged run fails as the
    single machine's does, its results written, unless --allow-unconverged; bfs takes
    ``--source max-degree`` as any run does."""
    g = build(random_case(21), tmp_path / "g")
    out = tmp_path / "g.split"
    split(g, 3, out)
    one, many = tmp_path / "one.tsv", tmp_path / "many.tsv"
    single = command("run", "pagerank", g.path, "--out", str(one))
    assert single.returncode == 0, single.stderr
    run = command("run", "pagerank", str(out), "--cluster", "local:3", "--out", str(many))
    assert run.returncode == 0, run.stderr
    (want_ids, want), (got_ids, got) = rows(one), rows(many)
    np.testing.assert_array_equal(got_ids, want_ids)
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=0)

    flags = ["--max-iterations", "2", "--force"]
    single = command("run", "pagerank", g.path, "--out", str(one), *flags)
    run = command("run", "pagerank", str(out), "--cluster", "local:3", "--out", str(one), *flags)
    assert (single.returncode, run.returncode) == (1, 1)
    assert "pagerank stopped at its iteration limit (2 iterations) without converging" in run.stderr
    assert run.stderr.split(": ", 2)[-1] == single.stderr.split(": ", 2)[-1]
    assert len(rows(one)[0]) == g.num_vertices
    allowed = command("run", "pagerank", str(out), "--cluster", "local:3", "--out", str(many), *flags, "--allow-unconverged")
    assert allowed.returncode == 0, allowed.stderr

    single = command("run", "bfs", g.path, "--source", "max-degree", "--out", str(one), "--force")
    run = command("run", "bfs", str(out), "--cluster", "local:2", "--source", "max-degree", "--out", str(many), "--force")
    assert (single.returncode, run.returncode) == (0, 0), run.stderr
    assert open(one).read() == open(many).read()


def test_the_run_command_is_one_command_with_or_without_a_cluster(tmp_path: Any) -> None:
    assert command("run", "--help").stdout == command("run", "--cluster", "local:2", "--help").stdout
    g = build(random_case(3), tmp_path / "g")
    out = tmp_path / "g.split"
    split(g, 2, out)
    plain = command("run", "wcc", g.path, "--cluster", "local:2")
    assert plain.returncode == 1 and "--cluster runs over a split directory" in plain.stderr
    bare = command("run", "wcc", str(out))
    assert bare.returncode == 1 and "is a split directory: run it on a cluster with --cluster" in bare.stderr
    refused = command("run", "bfs", str(out), "--cluster", "local:2", "--source", "0", "--parents")
    assert refused.returncode == 1 and "bfs on a cluster does not take --parents" in refused.stderr
    other = command("run", "scc", str(out), "--cluster", "local:2")
    assert other.returncode == 1 and "scc does not run on a cluster" in other.stderr
