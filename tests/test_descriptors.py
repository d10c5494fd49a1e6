"""Every algorithm descriptor reaches Python as the command line sees it: ``diskgraph.algorithms()``
is ``diskgraph algorithms --json``, the generated methods are up to date, each has the
descriptor's options with its defaults, and every (algorithm, engine) pair runs through its
method on a directed and an undirected graph. (``_native.pyi`` is checked by ``mypy.stubtest``,
the generated methods by mypy, both in scripts/test.sh; the Rust harness runs every pair against
the oracles.)"""

from __future__ import annotations

import importlib.util
import inspect
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict

import numpy as np
import pytest

import diskgraph

REPO = Path(__file__).resolve().parent.parent


def load_generator() -> Any:
    spec = importlib.util.spec_from_file_location("generate_python", REPO / "scripts" / "generate_python.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["generate_python"] = module
    spec.loader.exec_module(module)
    return module


CATALOG = diskgraph.algorithms()
ALGORITHMS = {a["name"]: a for a in CATALOG["algorithms"]}


def test_the_catalogue_is_the_command_lines() -> None:
    cli = shutil.which("diskgraph")
    assert cli is not None, "the diskgraph command is installed (scripts/setup.sh)"
    printed = json.loads(subprocess.run([cli, "algorithms", "--json"], check=True, capture_output=True, text=True).stdout)
    assert printed == CATALOG


def test_the_generated_methods_are_up_to_date() -> None:
    generated = load_generator().generate(diskgraph.algorithms())
    current = (REPO / "python" / "diskgraph" / "_algorithms.py").read_text()
    assert current == generated, "run python3 scripts/generate_python.py"


@pytest.mark.parametrize("name", sorted(ALGORITHMS))
def test_each_method_has_the_descriptors_options_and_defaults(name: str) -> None:
    algorithm = ALGORITHMS[name]
    method = getattr(diskgraph.Graph, name)
    params = inspect.signature(method).parameters
    for option in algorithm["options"]:
        assert option["name"] in params, (name, option["name"])
        default = params[option["name"]].default
        only_some_engines = option["engines"] != algorithm["engines"]
        assert default == (None if only_some_engines else option["default"]), (name, option["name"])
    engines = ", ".join(repr(e) for e in ["auto", *algorithm["engines"]])
    assert params["engine"].annotation == f"Literal[{engines}]", name
    assert params["engine"].default == "auto" and params["memory"].default is None
    assert algorithm["help"].split(" ")[0].lower() in (method.__doc__ or "").lower(), name


def random_graph(path: Path, directed: bool) -> diskgraph.Graph:
    rng = np.random.default_rng(5)
    src, dst = rng.integers(0, 100, 400), rng.integers(0, 100, 400)
    g = diskgraph.from_edges(src, dst, path, weights=rng.random(400), directed=directed)
    g.partition(grid=2)
    g.partition(grid=2, sort="source")
    g.partition_shards(shards=2, block_size="4KiB")
    return g


@pytest.fixture(scope="module")
def graph(tmp_path_factory: pytest.TempPathFactory) -> diskgraph.Graph:
    return random_graph(tmp_path_factory.mktemp("g") / "g", directed=True)


@pytest.fixture(scope="module")
def undirected_graph(tmp_path_factory: pytest.TempPathFactory) -> diskgraph.Graph:
    return random_graph(tmp_path_factory.mktemp("u") / "g", directed=False)


@pytest.mark.parametrize(
    "name, engine", [(a["name"], e) for a in CATALOG["algorithms"] for e in a["engines"]]
)
def test_every_pair_runs_through_its_method(
    graph: diskgraph.Graph, undirected_graph: diskgraph.Graph, name: str, engine: str
) -> None:
    for g in (graph, undirected_graph):
        try:
            r: diskgraph.Result = getattr(g, name)(engine=engine, memory="4MiB")
        except diskgraph.AlgorithmError as e:
            # Algorithms of undirected graphs (mst) refuse the directed one.
            assert g.directed and "needs an undirected graph" in str(e), (name, str(e))
            continue
        assert r.stats["engine"] == engine and r.algorithm == name
        assert len(r) == g.num_vertices
        assert r.values.dtype == np.dtype(ALGORITHMS[name]["result"]["dtype"])


def test_options_that_do_not_apply_are_refused(graph: diskgraph.Graph) -> None:
    with pytest.raises(TypeError, match="unexpected keyword argument 'parents'"):
        graph.run("wcc", parents=True)
    with pytest.raises(ValueError, match="option mrt is for the stream engine"):
        graph.bfs(engine="memory", mrt=3)
    with pytest.raises(ValueError, match="wcc's option method applies to the stream engine"):
        graph.wcc(method="label-propagation", engine="selective")
    # Under auto an engine's settings are accepted, as auto may pick that engine.
    assert graph.bfs(mrt=3, block_size="4KiB").stats["engine"] == "memory"


def test_defaults_are_written_once(graph: diskgraph.Graph) -> None:
    # A run with no option and one with every default spelled out are the same run.
    pagerank = ALGORITHMS["pagerank"]
    spelled: Dict[str, Any] = {o["name"]: o["default"] for o in pagerank["options"]}
    a, b = graph.pagerank(), graph.run("pagerank", **spelled)
    assert np.array_equal(a.values, b.values)
    assert a.stats["settings"]["tolerance"] == b.stats["settings"]["tolerance"] == spelled["tolerance"]
