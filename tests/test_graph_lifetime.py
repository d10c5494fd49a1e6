"""Graphs without a path: every array importer makes a temporary graph directory when ``path``
is None, deleted on ``close()``, on leaving a ``with`` block, when the graph is collected and at
interpreter exit; a closed graph refuses use with a ValueError."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
from pathlib import Path

import networkx as nx
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import scipy.sparse

import diskgraph


def importers(tmp_path: Path) -> dict:
    table = pa.table({"src": np.array([1, 2], dtype=np.int64), "dst": np.array([2, 3], dtype=np.int64)})
    pq.write_table(table, tmp_path / "e.parquet")
    return {
        "from_edges": lambda: diskgraph.from_edges([1, 2], [2, 3]),
        "from_networkx": lambda: diskgraph.from_networkx(nx.path_graph(3)),
        "from_scipy": lambda: diskgraph.from_scipy(scipy.sparse.csr_array(np.eye(3, k=1))),
        "from_parquet": lambda: diskgraph.from_parquet(tmp_path / "e.parquet"),
    }


@pytest.mark.parametrize("name", ["from_edges", "from_networkx", "from_scipy", "from_parquet"])
def test_close_deletes_the_temporary_directory(tmp_path: Path, name: str) -> None:
    g = importers(tmp_path)[name]()
    assert g.temporary and not g.closed
    directory = Path(g.path).parent
    assert (Path(g.path) / "manifest.json").exists() and directory.name.startswith("diskgraph-")
    assert g.num_vertices == 3 and g.bfs(source=g.vertex_ids()[0]).values[0] == 0
    g.close()
    assert g.closed and not directory.exists()
    g.close()  # again: nothing to do
    assert repr(g).endswith("(closed)>")


def test_with_block_closes_and_deletes(tmp_path: Path) -> None:
    with diskgraph.from_edges(np.array([5, 6]), np.array([6, 7]), weights=[1.5, 2.0]) as g:
        path = Path(g.path)
        assert g.sssp(source=5).to_dict() == {5: 0.0, 6: 1.5, 7: 3.5}
    assert not path.parent.exists()
    with pytest.raises(ValueError, match=r"the graph .*graph\.dg is closed"):
        g.pagerank()


def test_closed_graph_refuses_every_use(tmp_path: Path) -> None:
    g = diskgraph.from_edges([1, 2], [2, 3], tmp_path / "kept.dg")
    assert not g.temporary
    g.close()
    assert (tmp_path / "kept.dg" / "manifest.json").exists(), "a graph with a path is not deleted"
    assert g.path == str(tmp_path / "kept.dg")
    for use in (lambda: g.num_vertices, g.vertex_ids, g.verify, lambda: g.run("wcc"), g.wcc, g.load_index):
        with pytest.raises(ValueError, match="is closed"):
            use()
    with diskgraph.open(tmp_path / "kept.dg") as h:
        assert h.num_edges == 2


def test_garbage_collection_deletes(tmp_path: Path) -> None:
    g = diskgraph.from_edges([1], [2])
    directory = Path(g.path).parent
    del g
    gc.collect()
    assert not directory.exists()


def test_a_failed_import_leaves_no_temporary_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr("tempfile.tempdir", None)
    with pytest.raises(ValueError, match="non-negative"):
        diskgraph.from_edges([1, -2], [2, 3])
    assert list(tmp_path.iterdir()) == []


def test_interpreter_exit_deletes(tmp_path: Path) -> None:
    code = (
        "import diskgraph\n"
        "g = diskgraph.from_edges([1, 2], [2, 3])\n"
        "h = diskgraph.from_edges([1], [2])\n"
        "print(g.path); print(h.path)\n"  # both stay referenced until the interpreter exits
    )
    env = dict(os.environ, TMPDIR=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True, env=env)
    paths = out.stdout.split()
    assert len(paths) == 2 and all(p.startswith(str(tmp_path)) for p in paths)
    assert list(tmp_path.iterdir()) == []
