"""Any node IDs: NetworkX graphs of arbitrary hashable nodes, vertex names kept beside the graph,
node keys in results and as sources, and a CSV of string IDs through the CLI and import_file."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import networkx as nx
import numpy as np
import pytest

import diskgraph


def test_les_miserables_pagerank_keys_are_networkx_nodes(tmp_path: Path) -> None:
    G = nx.les_miserables_graph()
    g = diskgraph.from_networkx(G, tmp_path / "les")
    assert g.nodes.tolist() == list(G)
    r = g.pagerank(tolerance=1e-12)
    got = r.to_dict()
    want = nx.pagerank(G, tol=1e-12, weight=None)  # diskgraph's pagerank ignores weights
    assert set(got) == set(want)
    assert max(got, key=got.__getitem__) == "Valjean"
    for node, rank in want.items():
        assert got[node] == pytest.approx(rank, abs=1e-9)
    assert r.nodes.tolist() == list(G)
    # A source given as a node; the summary names vertices.
    hops = g.bfs(source="Myriel").to_dict()
    assert hops == nx.single_source_shortest_path_length(G, "Myriel")
    assert "Valjean" in r.summary
    # Back to NetworkX with the same nodes and edges.
    back = g.to_networkx()
    assert set(back.nodes) == set(G.nodes) and set(map(frozenset, back.edges)) == set(map(frozenset, G.edges))
    # Reopened, the names are strings.
    again = diskgraph.open(tmp_path / "les")
    assert again.nodes.tolist() == list(G)
    assert again.pagerank(tolerance=1e-12).to_dict().keys() == want.keys()
    assert again.verify()["files_checked"] > 0


def test_arbitrary_hashable_nodes_are_kept(tmp_path: Path) -> None:
    G = nx.DiGraph()
    nodes: list[Any] = [(0, 1), "b", 2.5, frozenset({3}), b"raw", -1, 2**64]
    for a, b in zip(nodes, nodes[1:]):
        G.add_edge(a, b)
    g = diskgraph.from_networkx(G, tmp_path / "g")
    assert g.nodes.tolist() == nodes
    r = g.sssp(source=(0, 1))
    assert r.to_dict() == {n: float(i) for i, n in enumerate(nodes)}
    assert g.msbfs(sources=["b", b"raw"]).to_dict()[2**64] == 5 + 2
    with pytest.raises(diskgraph.InvalidVertex, match="'nowhere' is not a node"):
        g.bfs(source="nowhere")
    reopened = diskgraph.open(tmp_path / "g")
    assert reopened.nodes.tolist() == [str(n) for n in nodes]
    # A reordered copy keeps the nodes, and its answers per node.
    reordered = g.reorder(tmp_path / "r", "degree")
    assert reordered.nodes.tolist() == nodes
    assert reordered.sssp(source=(0, 1)).to_dict() == r.to_dict()
    csv = tmp_path / "g.csv"
    assert reordered.export(csv, "csv") == len(nodes) - 1
    lines = csv.read_text().splitlines()
    assert lines[0] == "source,target" and '"(0, 1)",b' in lines
    # Integer nodes stay IDs.
    ints = diskgraph.from_networkx(nx.path_graph([5, 9, 12]), tmp_path / "ints")
    assert ints.nodes.dtype == np.uint64 and ints.nodes.tolist() == [5, 9, 12]
    assert ints.bfs(source=9).to_dict() == {5: 1, 9: 0, 12: 1}


def test_nodes_with_the_same_name_are_refused(tmp_path: Path) -> None:
    G = nx.Graph([(1, "1")])
    with pytest.raises(ValueError, match=r"nodes 1 and '1' have the same name '1'"):
        diskgraph.from_networkx(G, tmp_path / "g")
    assert not (tmp_path / "g").exists()


PEOPLE = 'source,target,weight\nalice,bob,1.5\nbob,"carol, jr",2\n"carol, jr",alice,0.5\ndave,alice,3\n'


def test_string_ids_round_trip_through_the_cli(tmp_path: Path) -> None:
    exe = shutil.which("diskgraph")
    assert exe, "the diskgraph command is on PATH"
    csv = tmp_path / "people.csv"
    csv.write_text(PEOPLE)
    graph = tmp_path / "p.dg"
    subprocess.run([exe, "import", str(csv), "-o", str(graph), "--weighted"], check=True, capture_output=True)
    out = tmp_path / "d.tsv"
    subprocess.run(
        [exe, "run", "sssp", str(graph), "--source", "dave", "--out", str(out)], check=True, capture_output=True
    )
    rows = dict(line.split("\t") for line in out.read_text().splitlines())
    g = diskgraph.open(graph)
    assert g.nodes.tolist() == ["alice", "bob", "carol, jr", "dave"]
    r = g.sssp(source="dave")
    py = r.to_dict()
    r.write(tmp_path / "py.tsv")
    assert (tmp_path / "py.tsv").read_bytes() == out.read_bytes(), "Result.write names rows as the CLI does"
    assert {k: float(v) for k, v in rows.items()} == py == {"alice": 3.0, "bob": 4.5, "carol, jr": 6.5, "dave": 0.0}
    exported = tmp_path / "out.csv"
    subprocess.run(
        [exe, "export", str(graph), "-o", str(exported), "--format", "csv"], check=True, capture_output=True
    )
    back = diskgraph.import_file(exported, tmp_path / "back.dg", weighted=True)
    assert back.sssp(source="dave").to_dict() == py


def test_import_file_takes_the_csv_options(tmp_path: Path) -> None:
    path = tmp_path / "e.txt"
    path.write_text("w|to|from\n0.5|x|y\n0.25|y|z\n")
    g = diskgraph.import_file(
        path,
        tmp_path / "g",
        format="csv",
        delimiter="|",
        source_column="from",
        target_column=1,
        weight_column=0,
    )
    assert g.weighted and g.nodes.tolist() == ["y", "x", "z"]
    assert g.sssp(source="z").to_dict() == {"y": 0.25, "x": 0.75, "z": 0.0}
    assert "header row [w, to, from]" in (g.import_summary or {})["format_detected"]
    headerless = tmp_path / "h.csv"
    headerless.write_text("a,b\nb,c\n")
    h = diskgraph.import_file(headerless, tmp_path / "h", header=False)
    assert h.nodes.tolist() == ["a", "b", "c"]
    with pytest.raises(diskgraph.InputFormatError, match=r"h.csv:1: column 0: vertex ID \"a\" is not a non-negative integer"):
        diskgraph.import_file(headerless, tmp_path / "i", header=False, ids="integer")
    with pytest.warns(UserWarning, match=r"w.txt:1: a third column is ignored"):
        (tmp_path / "w.txt").write_text("0 1 5\n1 2 6\n")
        diskgraph.import_file(tmp_path / "w.txt", tmp_path / "w")
