"""Result.to_pandas / to_arrow / write: named columns, the CLI's --out files byte for byte (TSV)
or value for value (.npy, .parquet), refusals of unknown extensions and existing files, and the
ImportError naming the extra when pandas or pyarrow is missing."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
import numpy as np
import pytest

import diskgraph


@pytest.fixture(scope="module")
def wiki(tmp_path_factory: pytest.TempPathFactory, real_data: Path) -> diskgraph.Graph:
    out = tmp_path_factory.mktemp("wiki") / "wiki.dg"
    return diskgraph.import_file(real_data / "wiki-Vote.txt", out)


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> diskgraph.Graph:
    """Weighted, with unreached vertices (inf distances) and IDs beyond 2**63."""
    big = 2**64 - 5
    src = np.array([1, 2, 3, big, 7], dtype=np.uint64)
    dst = np.array([2, 3, 1, 1, 8], dtype=np.uint64)
    path = tmp_path_factory.mktemp("small") / "g.dg"
    return diskgraph.from_edges(src, dst, path, weights=[0.1, 1e-7, 2.5, 3e17, 1.0], vertices=[40])


def cli() -> str:
    exe = shutil.which("diskgraph")
    assert exe, "the diskgraph command is on PATH (scripts/setup.sh, or target/release)"
    return exe


def test_value_names_follow_the_descriptors(small: diskgraph.Graph) -> None:
    catalog = {a["name"]: a["result"]["name"] for a in diskgraph.algorithms()["algorithms"]}
    assert catalog["pagerank"] == "rank" and catalog["wcc"] == "component" and catalog["bfs"] == "level"
    assert small.pagerank().value_name == "rank"
    assert small.sssp(source=1).value_name == "distance"
    assert small.bfs(source=1).value_name == "level"
    assert small.bfs(source=1, parents=True).value_name == "parent"


def test_to_pandas_and_to_arrow(small: diskgraph.Graph) -> None:
    r = small.sssp(source=1)
    df = r.to_pandas()
    assert list(df.columns) == ["node", "distance"]
    assert df["node"].dtype == np.uint64
    assert df["node"].tolist() == r.vertex_ids.tolist()
    np.testing.assert_array_equal(df["distance"].to_numpy(), r.values)
    t = r.to_arrow()
    assert t.column_names == ["node", "distance"]
    assert str(t.schema.field("node").type) == "uint64"
    assert t.column("distance").to_pylist() == r.values.tolist()
    assert t.to_pandas().equals(df)


def test_apsp_columns_are_named_by_source(wiki: diskgraph.Graph) -> None:
    r = wiki.apsp(3, seed=2)
    sources = r.stats["settings"]["sources"]
    df = r.to_pandas()
    assert list(df.columns) == ["node"] + [f"hops_{s}" for s in sources]
    for i, s in enumerate(sources):
        np.testing.assert_array_equal(df[f"hops_{s}"].to_numpy(), r.values[:, i])
        assert int(df.loc[df["node"] == s, f"hops_{s}"].iloc[0]) == 0
    assert r.to_arrow().column_names == list(df.columns)


@pytest.mark.parametrize("algorithm,args", [("pagerank", []), ("bfs", ["--source", "3"]), ("wcc", [])])
def test_tsv_is_the_clis_bytes(wiki: diskgraph.Graph, tmp_path: Path, algorithm: str, args: list) -> None:
    options = {"source": 3} if args else {}
    r = wiki.run(algorithm, **options)
    r.write(tmp_path / "py.tsv")
    subprocess.run([cli(), "run", algorithm, wiki.path, *args, "--out", str(tmp_path / "cli.tsv")], check=True,
                   capture_output=True)
    assert (tmp_path / "py.tsv").read_bytes() == (tmp_path / "cli.tsv").read_bytes()


def test_tsv_floats_as_rust_prints_them(small: diskgraph.Graph, tmp_path: Path) -> None:
    # Distances 0.1, 0.1 + 1e-7 (f32 sums), inf for the unreached; exponents as Rust's {:?}.
    r = small.sssp(source=1)
    r.write(tmp_path / "py.tsv")
    subprocess.run([cli(), "run", "sssp", small.path, "--source", "1", "--out", str(tmp_path / "cli.tsv")],
                   check=True, capture_output=True)
    text = (tmp_path / "py.tsv").read_text()
    assert "\tinf\n" in text
    assert text == (tmp_path / "cli.tsv").read_text()
    floats = np.array([1e-7, 1.5e-5, 1e-4, 1e16, 3e17, 123.0, float("nan"), -0.0])
    made = diskgraph.Result("x", floats, np.arange(8, dtype=np.uint64), {"settings": {"value": "x"}}, "")
    made.write(tmp_path / "floats.tsv")
    assert [line.split("\t")[1] for line in (tmp_path / "floats.tsv").read_text().splitlines()] == [
        "1e-7", "1.5e-5", "0.0001", "1e16", "3e17", "123.0", "NaN", "-0.0",
    ]


@pytest.mark.parametrize("ext", ["npy", "parquet"])
def test_binary_files_hold_what_the_clis_hold(small: diskgraph.Graph, wiki: diskgraph.Graph, tmp_path: Path,
                                              ext: str) -> None:
    import pyarrow.parquet as pq

    cases = [
        (small, "bfs", {"source": 1, "parents": True}, ["--source", "1", "--parents"]),  # uint64 parents
        (wiki, "pagerank", {}, []),
        (wiki, "apsp", {"sources": 3, "seed": 2}, ["--sources", "3", "--seed", "2"]),
    ]
    for i, (g, algorithm, options, args) in enumerate(cases):
        mine, theirs = tmp_path / f"py{i}.{ext}", tmp_path / f"cli{i}.{ext}"
        g.run(algorithm, **options).write(mine)
        subprocess.run([cli(), "run", algorithm, g.path, *args, "--out", str(theirs)], check=True,
                       capture_output=True)
        if ext == "npy":
            a, b = np.load(mine), np.load(theirs)
            assert a.dtype == b.dtype, algorithm
            np.testing.assert_array_equal(a, b)
        else:
            a, b = pq.read_table(mine), pq.read_table(theirs)
            assert a.schema.equals(b.schema), (algorithm, a.schema, b.schema)
            assert a.equals(b), algorithm


def test_csv_and_json(small: diskgraph.Graph, tmp_path: Path) -> None:
    import pandas as pd

    r = small.sssp(source=1)
    r.write(tmp_path / "r.csv")
    df = pd.read_csv(tmp_path / "r.csv")
    assert list(df.columns) == ["vertex", "value"]
    assert df["vertex"].astype("uint64").tolist() == r.vertex_ids.tolist()
    np.testing.assert_array_equal(df["value"].to_numpy(), r.values)
    r.write(tmp_path / "r.json")
    records = json.loads((tmp_path / "r.json").read_text())
    assert [x["vertex"] for x in records] == r.vertex_ids.tolist()
    assert [x["value"] for x in records] == [v if np.isfinite(v) else None for v in r.values.tolist()]
    assert None in [x["value"] for x in records]  # the unreached vertex 40


def test_write_refuses_unknown_extensions_and_existing_files(small: diskgraph.Graph, tmp_path: Path) -> None:
    r = small.wcc()
    for name in ("r.txt", "r", "r.xlsx"):
        with pytest.raises(ValueError, match=r"unknown result format.*\.tsv, \.csv, \.json, \.npy, \.parquet"):
            r.write(tmp_path / name)
        assert not (tmp_path / name).exists()
    r.write(tmp_path / "r.tsv")
    before = (tmp_path / "r.tsv").read_text()
    with pytest.raises(diskgraph.OutputExistsError, match=r"r\.tsv exists \(pass force=True"):
        r.write(tmp_path / "r.tsv")
    small.pagerank().write(tmp_path / "r.tsv", force=True)
    assert (tmp_path / "r.tsv").read_text() != before
    with pytest.raises(FileNotFoundError, match="does not exist"):
        r.write(tmp_path / "missing" / "r.tsv")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.tsv"], "no temporary file left behind"


@pytest.mark.parametrize("module,call", [("pandas", "to_pandas"), ("pyarrow", "to_arrow"), ("pyarrow", "write")])
def test_missing_optional_dependency_names_the_extra(small: diskgraph.Graph, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch, module: str, call: str) -> None:
    for name in [k for k in sys.modules if k.startswith(module + ".")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, module, None)  # what an uninstalled package looks like to import
    r = small.wcc()
    with pytest.raises(ImportError, match=rf"Result\.{call}\(\) needs {module}: pip install 'diskgraph\[{module}\]'"):
        if call == "write":
            r.write(tmp_path / "r.parquet")
        else:
            getattr(r, call)()
    assert list(tmp_path.iterdir()) == []
