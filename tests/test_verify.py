"""``verify=True`` and ``diskgraph.graph500`` from Python: a verified run says what was checked
and what it cost, every generated method takes ``verify``, and the Graph500 benchmark returns
the reference implementation's fields with every search validated."""

from __future__ import annotations

from pathlib import Path

import pytest

import diskgraph


@pytest.fixture(scope="module")
def wiki(tmp_path_factory: pytest.TempPathFactory, real_data: Path) -> diskgraph.Graph:
    out = tmp_path_factory.mktemp("verify") / "wiki.dg"
    diskgraph.import_file(real_data / "wiki-Vote.txt", out)
    return diskgraph.open(out)


@pytest.mark.parametrize(
    "name, options",
    [
        ("bfs", {"source": 3, "engine": "selective"}),
        ("bfs", {"source": 3, "parents": True, "engine": "memory"}),
        ("sssp", {"source": 3, "engine": "sync"}),
        ("scc", {"engine": "selective"}),
        ("pagerank", {"engine": "selective"}),
        ("kcore", {}),
        ("triangles", {}),
    ],
)
def test_a_verified_run_says_what_it_checked(wiki: diskgraph.Graph, name: str, options: dict) -> None:
    r = getattr(wiki, name)(memory="4MiB", verify=True, **options)
    assert r.stats["verified"], r.stats
    assert r.stats["verify_seconds"] > 0
    assert r.stats["verify_bytes_read"] > 0
    assert "\nverified: " in r.summary
    unverified = wiki.run(name, memory="4MiB", **options)
    assert "verified" not in unverified.stats
    assert "verified" not in unverified.summary


def test_verification_error_is_an_algorithm_error() -> None:
    assert issubclass(diskgraph.VerificationError, diskgraph.AlgorithmError)
    assert issubclass(diskgraph.VerificationError, diskgraph.DiskgraphError)
    assert "VerificationError" in diskgraph.__all__


def test_graph500_validates_every_search(tmp_path: Path) -> None:
    g = tmp_path / "g500"
    report = diskgraph.graph500(scale=9, graph=g, roots=4, memory="512KiB", engine="selective")
    assert report["scale"] == 9 and report["nbfs"] == 4 and len(report["roots"]) == 4
    assert report["construction_time"] > 0
    for kernel in ("bfs", "sssp"):
        k = report[kernel]
        assert k["validated"] == 4
        assert k["engine"] == "selective"
        assert k["teps"]["min"] <= k["harmonic_mean_teps"] <= k["teps"]["max"]
        assert 0 < k["nedge"]["max"] <= 16 * 2**9
    again = diskgraph.graph500(graph=g, roots=2, engine="memory", bfs_only=True)
    assert again["construction_time"] is None
    assert again["bfs"]["validated"] == 2
    assert again["sssp"] is None


def test_graph500_refuses_a_directed_graph(tmp_path: Path) -> None:
    g = diskgraph.from_edges([0, 1, 2], [1, 2, 0], tmp_path / "d")
    with pytest.raises(diskgraph.DiskgraphError, match="is directed"):
        diskgraph.graph500(graph=g.path, roots=1)
    with pytest.raises(ValueError, match="warp"):
        diskgraph.graph500(scale=9, graph=tmp_path / "never", engine="warp")
    assert not (tmp_path / "never").exists()
