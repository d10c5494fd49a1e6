"""Damaged graph directories, bad import inputs and bad arguments raise the documented
exceptions with messages naming the fault, and never crash the interpreter."""

from __future__ import annotations

import errno
import json
import re
import shutil
import struct
from pathlib import Path
from typing import Any, Dict

import numpy as np
import pytest

import diskgraph
from diskgraph import _native


@pytest.fixture()
def graph_dir(tmp_path: Path) -> Path:
    """A small directed weighted graph with remapped IDs (all file kinds present)."""
    rng = np.random.default_rng(1)
    src = rng.integers(0, 300, 3000) * 11 + 5
    dst = rng.integers(0, 300, 3000) * 11 + 5
    diskgraph.from_edges(src, dst, tmp_path / "g", weights=rng.uniform(1, 2, 3000))
    return tmp_path / "g"


def test_exception_hierarchy() -> None:
    for cls in (
        diskgraph.GraphFormatError,
        diskgraph.InputFormatError,
        diskgraph.InvalidVertex,
        diskgraph.AlgorithmError,
        diskgraph.OutputExistsError,
    ):
        assert issubclass(cls, diskgraph.DiskgraphError)
        assert cls.__module__ == "diskgraph"
    assert issubclass(diskgraph.DiskgraphError, Exception)


def test_missing_or_not_a_graph(tmp_path: Path) -> None:
    # As Python's own open(): FileNotFoundError with errno and filename, the OS text once.
    with pytest.raises(FileNotFoundError) as missing:
        diskgraph.open(tmp_path / "nope")
    assert isinstance(missing.value, diskgraph.GraphFormatError)
    assert isinstance(missing.value, diskgraph.GraphNotFoundError)
    assert missing.value.errno == errno.ENOENT and missing.value.filename == str(tmp_path / "nope")
    assert str(missing.value) == f"[Errno 2] No such file or directory: {str(tmp_path / 'nope')!r}"
    (tmp_path / "file").write_text("x")
    with pytest.raises(NotADirectoryError, match=r"file is not a diskgraph graph directory \(a file, not a directory\)$"):
        diskgraph.open(tmp_path / "file")
    (tmp_path / "empty").mkdir()
    with pytest.raises(diskgraph.NotAGraphError, match=r"empty is not a diskgraph graph directory \(no manifest\.json\)$"):
        diskgraph.open(tmp_path / "empty")
    with pytest.raises(diskgraph.GraphFormatError):
        diskgraph.open(tmp_path / "empty")
    assert diskgraph.GraphNotFoundError.__module__ == diskgraph.NotAGraphError.__module__ == "diskgraph"


def test_flipped_byte_in_adjacency_fails_verify(graph_dir: Path) -> None:
    adj = graph_dir / "out.adj"
    data = bytearray(adj.read_bytes())
    data[100] ^= 0x01
    adj.write_bytes(bytes(data))
    g = diskgraph.open(graph_dir)  # open checks sizes and indexes only (O(V))
    with pytest.raises(diskgraph.GraphFormatError, match=r"out\.adj.*checksum"):
        g.verify()


def test_out_of_range_neighbour_is_an_error_not_a_crash(graph_dir: Path) -> None:
    adj = graph_dir / "out.adj"
    data = bytearray(adj.read_bytes())
    data[40:44] = struct.pack("<I", 0xFFFFFFF0)
    adj.write_bytes(bytes(data))
    g = diskgraph.open(graph_dir)
    for algorithm in ("bfs", "sssp", "wcc", "scc", "pagerank", "kcore"):
        with pytest.raises(diskgraph.GraphFormatError, match=r"out\.adj.*vertex 4294967280"):
            g.run(algorithm)
    with pytest.raises(diskgraph.GraphFormatError):
        g.export(graph_dir.parent / "x.el")
    with pytest.raises(diskgraph.GraphFormatError):
        diskgraph.open(graph_dir).verify()


def test_truncated_file(graph_dir: Path) -> None:
    path = graph_dir / "in.adj"
    data = path.read_bytes()
    path.write_bytes(data[: len(data) - 4096])
    with pytest.raises(diskgraph.GraphFormatError, match=r"in\.adj: size is"):
        diskgraph.open(graph_dir)


def test_truncated_after_open(graph_dir: Path) -> None:
    g = diskgraph.open(graph_dir)
    (graph_dir / "out.wgt").write_bytes(b"")
    (graph_dir / "out.adj").write_bytes(b"\0" * 7)
    with pytest.raises(diskgraph.GraphFormatError, match="out"):
        g.sssp()
    with pytest.raises(diskgraph.GraphFormatError):
        g.verify()


def test_non_monotone_index(graph_dir: Path) -> None:
    idx = graph_dir / "out.idx"
    data = bytearray(idx.read_bytes())
    data[8 * 5 : 8 * 6] = struct.pack("<Q", 10**9)
    idx.write_bytes(bytes(data))
    with pytest.raises(diskgraph.GraphFormatError, match=r"out\.idx: entry"):
        diskgraph.open(graph_dir)


@pytest.mark.parametrize(
    "manifest",
    [
        b"garbage{",
        b"",
        b"\xff\xfe\x00binary",
        json.dumps({"format": "diskgraph"}).encode(),
        json.dumps([1, 2, 3]).encode(),
    ],
)
def test_garbage_manifest(graph_dir: Path, manifest: bytes) -> None:
    (graph_dir / "manifest.json").write_bytes(manifest)
    with pytest.raises(diskgraph.GraphFormatError, match="bad manifest"):
        diskgraph.open(graph_dir)


def test_manifest_with_impossible_counts(graph_dir: Path) -> None:
    m = json.loads((graph_dir / "manifest.json").read_text())
    m["num_arcs"] += 1
    (graph_dir / "manifest.json").write_text(json.dumps(m))
    with pytest.raises(diskgraph.GraphFormatError):
        diskgraph.open(graph_dir)


def test_missing_and_reordered_ids(graph_dir: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(graph_dir, copy)
    (graph_dir / "ids.u64").unlink()
    with pytest.raises(diskgraph.GraphFormatError, match=r"ids\.u64"):
        diskgraph.open(graph_dir)
    ids = bytearray((copy / "ids.u64").read_bytes())
    ids[0:8], ids[8:16] = ids[8:16], ids[0:8]
    (copy / "ids.u64").write_bytes(bytes(ids))
    with pytest.raises(diskgraph.GraphFormatError, match=r"ids\.u64"):
        diskgraph.open(copy).verify()


# ----- import_file errors -------------------------------------------------------------------


def test_bad_text_input_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "edges.txt"
    path.write_text("# comment\n1 2\n2 x3\n")
    with pytest.raises(diskgraph.InputFormatError, match=r"edges\.txt:3"):
        diskgraph.import_file(path, tmp_path / "g")
    path.write_text("1 2\n-3 4\n")
    with pytest.raises(diskgraph.InputFormatError, match=r"edges\.txt:2"):
        diskgraph.import_file(path, tmp_path / "g")
    path.write_text("1 2\n2 3\n")
    with pytest.raises(diskgraph.InputFormatError, match=r"edges\.txt:1"):
        diskgraph.import_file(path, tmp_path / "g", weighted=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["edges.txt"]


def test_bad_matrix_market_files(real_data: Path, tmp_path: Path) -> None:
    for name in ("mangled1.mtx", "mangled10.mtx", "mangled13.mtx"):
        with pytest.raises(diskgraph.InputFormatError, match=name):
            diskgraph.import_file(real_data / "bad" / name, tmp_path / name)
    assert list(tmp_path.iterdir()) == []


def test_import_file_arguments(tmp_path: Path) -> None:
    path = tmp_path / "e.txt"
    path.write_text("1 2\n")
    with pytest.raises(ValueError, match="unknown input format"):
        diskgraph.import_file(path, tmp_path / "g", format="graphml")
    with pytest.raises(FileNotFoundError) as missing:
        diskgraph.import_file(tmp_path / "missing.txt", tmp_path / "g")
    assert isinstance(missing.value, diskgraph.InputFormatError)
    assert isinstance(missing.value, diskgraph.InputNotFoundError)
    assert missing.value.filename == str(tmp_path / "missing.txt")
    assert str(missing.value) == f"[Errno 2] No such file or directory: {str(tmp_path / 'missing.txt')!r}"
    assert not (tmp_path / "g").exists()
    g = diskgraph.import_file(path, tmp_path / "g", format="snap")
    with pytest.raises(diskgraph.OutputExistsError, match="already exists"):
        diskgraph.import_file(path, tmp_path / "g")
    assert g.import_summary is not None and g.import_summary["input_edges"] == 1
    assert diskgraph.import_file(path, tmp_path / "g", force=True, undirected=True).directed is False


# ----- run arguments ------------------------------------------------------------------------


def test_source_not_in_graph(graph_dir: Path) -> None:
    g = diskgraph.open(graph_dir)
    ids = g.vertex_ids()
    for bad in (0, 6, 2**64 - 1, -1, 2**70):
        with pytest.raises(diskgraph.InvalidVertex, match=f"source vertex {bad} is not a vertex"):
            g.bfs(bad)
        with pytest.raises(diskgraph.InvalidVertex):
            g.sssp(source=bad)
    assert g.bfs(int(ids[3])).to_dict()[int(ids[3])] == 0
    assert g.bfs(np.uint64(ids[3])).values.max() >= 0
    with pytest.raises(TypeError):
        g.bfs(1.5)  # type: ignore[arg-type]


def test_negative_weights_refuse_sssp(tmp_path: Path) -> None:
    g = diskgraph.from_edges([1, 2], [2, 3], tmp_path / "g", weights=[1.0, -2.0])
    with pytest.raises(diskgraph.AlgorithmError, match="negative"):
        g.sssp(1)
    assert g.bfs(1).to_dict() == {1: 0, 2: 1, 3: 2}


def test_run_arguments(graph_dir: Path) -> None:
    g = diskgraph.open(graph_dir)
    with pytest.raises(ValueError, match="unknown algorithm"):
        g.run("cliques")
    with pytest.raises(ValueError, match="unknown engine"):
        g.bfs(engine="gpu")
    with pytest.raises(TypeError, match=r"^bfs\(\) got an unexpected keyword argument 'sourc' \(valid: .*\bsource\b"):
        g.run("bfs", sourc=5)
    with pytest.raises(ValueError, match="threads must be at least 1"):
        g.wcc(threads=0)
    with pytest.raises(ValueError, match="tolerance"):
        g.pagerank(tolerance=-1)
    with pytest.raises(ValueError, match="invalid size"):
        g.wcc(memory="lots")
    with pytest.raises(ValueError, match="positive"):
        g.wcc(memory=0)
    with pytest.raises(TypeError, match="memory"):
        g.wcc(memory=1.5)  # type: ignore[arg-type]
    r = g.wcc(memory="256MiB", threads=1, engine="memory")
    assert r.stats["settings"]["memory"] == 256 << 20
    assert r.stats["settings"]["threads"] == 1
    assert r.stats["engine"] == "memory"
    assert diskgraph.parse_size("1.5G") == 3 << 29
    fixed = g.pagerank(iterations=3)
    assert fixed.stats["iterations"] == 3


def test_source_rules(tmp_path: Path) -> None:
    g = diskgraph.from_edges([5, 9, 9, 9, 7], [9, 5, 7, 8, 5], tmp_path / "g")
    assert g.bfs("smallest").to_dict() == g.bfs().to_dict() == {5: 0, 7: 2, 8: 2, 9: 1}
    assert g.bfs("max-degree").to_dict() == {5: 1, 7: 1, 8: 1, 9: 0}
    assert g.sssp(source="max-degree").stats["settings"]["source"] == 9
    with pytest.raises(ValueError, match="'largest'"):
        g.bfs("largest")


# ----- messages as Python users expect them ------------------------------------------------


def test_unknown_keyword_names_the_valid_ones(graph_dir: Path) -> None:
    g = diskgraph.open(graph_dir)
    with pytest.raises(TypeError) as e:
        g.pagerank(alpah=0.9)  # type: ignore[call-arg]
    text = str(e.value)
    assert text.startswith("pagerank() got an unexpected keyword argument 'alpah' (valid: ")
    for name in ("tolerance", "max_iterations", "engine", "memory", "threads", "block_size"):
        assert f" {name}," in text or f" {name})" in text, name
    with pytest.raises(TypeError, match=r"^load_static_cache\(\) got an unexpected keyword argument 'pag_size' \(valid: .*basc_fraction"):
        g.load_static_cache("gvs", pag_size="4KiB")  # type: ignore[call-arg]


def test_no_command_line_flags_in_python_messages(graph_dir: Path, tmp_path: Path, real_data: Path) -> None:
    g = diskgraph.open(graph_dir)
    messages = []
    with pytest.raises(ValueError) as small:
        g.bfs(memory=4096)
    messages.append(str(small.value))
    assert "cannot run within memory=4KiB" in messages[-1] and "; give memory=" in messages[-1], messages[-1]
    g.export(tmp_path / "x.el")
    with pytest.raises(diskgraph.OutputExistsError) as exists:
        g.export(tmp_path / "x.el")
    messages.append(str(exists.value))
    assert "force=True" in messages[-1], messages[-1]
    with pytest.raises(diskgraph.OutputExistsError) as exists:
        diskgraph.from_edges([1], [2], graph_dir)
    messages.append(str(exists.value))
    assert "force=True" in messages[-1], messages[-1]
    (tmp_path / "p.mtx").write_text("%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n")
    with pytest.raises(diskgraph.InputFormatError) as pattern:
        diskgraph.import_file(tmp_path / "p.mtx", tmp_path / "p.dg", weighted=True)
    messages.append(str(pattern.value))
    assert "(weighted=True)" in messages[-1], messages[-1]
    with pytest.raises(diskgraph.DiskgraphError) as window:
        g.reorder(tmp_path / "r.dg", "degree", window=4)
    messages.append(str(window.value))
    assert messages[-1].startswith("window applies to gorder only"), messages[-1]
    for text in messages:
        assert "--" not in re.sub(r"`diskgraph [^`]*`", "", text), text  # shell commands keep theirs


def test_shell_commands_keep_their_flags(graph_dir: Path) -> None:
    # A command to run in the shell keeps its flags; the prose around it speaks Python.
    g = diskgraph.open(graph_dir)
    with pytest.raises(ValueError) as e:
        g.pagerank(engine="shards")
    assert "diskgraph partition" in str(e.value) and "--shards" in str(e.value), str(e.value)


def test_no_duplicated_os_text(tmp_path: Path) -> None:
    with pytest.raises(diskgraph.DiskgraphError) as e:
        diskgraph.from_edges([1], [2], tmp_path / "missing" / "g.dg")
    text = str(e.value)
    assert text.count("No such file or directory") <= 1, text
    assert "does not exist" in text or "No such file or directory" in text, text
    assert str(tmp_path / "missing") in text, text


def test_sizes_are_exact_and_bounded(graph_dir: Path) -> None:
    odd = 2**53 + 1
    assert diskgraph.parse_size(str(odd)) == odd
    assert diskgraph.parse_size(odd) == odd
    assert diskgraph.parse_size("1.5KiB") == 1536
    with pytest.raises(ValueError, match="not a whole number of bytes"):
        diskgraph.parse_size("1.3KiB")
    for too_large in (2**64, str(2**64)):
        with pytest.raises(ValueError, match=r"is out of range \(1 to 18446744073709551615 bytes\)"):
            diskgraph.parse_size(too_large)
    g = diskgraph.open(graph_dir)
    with pytest.raises(ValueError, match=r"memory: size 18446744073709551616 is out of range"):
        g.wcc(memory=2**64)
    with pytest.raises(ValueError, match=r"block_size: size 18446744073709551616 is out of range"):
        g.wcc(engine="selective", block_size=2**64)
    assert g.wcc(memory=odd, engine="memory").stats["settings"]["memory"] == odd


def test_thread_counts_are_bounded(graph_dir: Path) -> None:
    g = diskgraph.open(graph_dir)
    with pytest.raises(ValueError, match="threads must be at most 1024, got 1025"):
        g.wcc(threads=1025)
    with pytest.raises(ValueError, match="io_threads must be at most 64, got 65"):
        g.wcc(engine="selective", io_threads=65)
    with pytest.raises(ValueError, match="threads must be at most 1024, got 100000"):
        diskgraph.graph500(graph=graph_dir, roots=1, threads=100000)


def test_outputs_are_not_inputs(graph_dir: Path, tmp_path: Path) -> None:
    g = diskgraph.open(graph_dir)
    manifest = graph_dir / "manifest.json"
    before = manifest.read_bytes()
    with pytest.raises(ValueError, match=r"report .*manifest.json lies inside graph .*, which this command reads"):
        g.wcc(report=manifest)
    with pytest.raises(ValueError, match=r"scratch .* lies inside graph"):
        g.pagerank(engine="shards", scratch=str(graph_dir / "tmp"))
    with pytest.raises(ValueError, match=r"output .*edges.el lies inside graph"):
        g.export(graph_dir / "edges.el")
    with pytest.raises(ValueError, match=r"output .* holds graph"):
        g.reorder(tmp_path, "degree", force=True)
    with pytest.raises(ValueError, match=r"checkpoint .* is also output"):
        g.reorder(tmp_path / "r.dg", "gorder", checkpoint=tmp_path / "r.dg")
    assert manifest.read_bytes() == before
    assert diskgraph.open(graph_dir).verify()["files_checked"] > 0
    assert not (graph_dir / "edges.el").exists()


def test_split_metadata_that_is_a_fifo_is_refused_at_once(tmp_path: Path) -> None:
    import os
    import queue
    import threading

    split = tmp_path / "s"
    split.mkdir()
    os.mkfifo(split / "split.json")
    done: "queue.Queue[BaseException]" = queue.Queue()

    def open_it() -> None:
        try:
            diskgraph.open_split(split)
        except BaseException as e:  # noqa: BLE001 - handed to the test thread
            done.put(e)

    threading.Thread(target=open_it, daemon=True).start()
    e = done.get(timeout=10)
    # The split's routing is read by the format crate: a damaged split, as a graph would be.
    assert isinstance(e, diskgraph.GraphFormatError), repr(e)
    assert str(e) == f"{split / 'split.json'}: is a FIFO, not a regular file"


def test_cluster_outputs_naming_the_same_file_are_refused(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    r = tmp_path / "r.tsv"
    argv = ["diskgraph", "run", "pagerank", str(tmp_path / "s"), "--cluster", "local:1", "--out", str(r), "--stats", str(r)]
    assert diskgraph._native.cli_main(argv) == 1
    assert f"--stats {r} is also --out {r}: give each output a path of its own" in capfd.readouterr().err
    assert not r.exists()


# ----- typed errors: one class per kind, fields as attributes --------------------------------

#: The exception class each error kind must become, with the OS class it also is, if any.
EXPECTED = {
    "graph_not_found": (diskgraph.GraphNotFoundError, FileNotFoundError),
    "not_a_graph": (diskgraph.NotAGraphError, NotADirectoryError),
    "graph_format": (diskgraph.GraphFormatError, None),
    "output_exists": (diskgraph.OutputExistsError, None),
    "input_not_found": (diskgraph.InputNotFoundError, FileNotFoundError),
    "input_format": (diskgraph.InputFormatError, None),
    "invalid_vertex": (diskgraph.InvalidVertex, None),
    "algorithm": (diskgraph.AlgorithmError, None),
    "wrong_answer": (diskgraph.VerificationError, None),
    "setting": (ValueError, None),
    "suspended": (diskgraph.Suspended, None),
    "interrupted": (KeyboardInterrupt, None),
    "other": (diskgraph.DiskgraphError, None),
}


def test_every_error_kind_maps_to_its_class() -> None:
    kinds = _native.error_kinds()
    assert set(kinds) == set(EXPECTED)
    for kind, cls in kinds.items():
        expected, also = EXPECTED[kind]
        assert cls is expected, kind
        fields: Dict[str, Any] = {"path": "/no/such/g.dg", "vertex": 7, "minimum": 1 << 20, "option": "memory"}
        if also is not None:
            fields["errno"] = 2
        made = _native.make_error(kind, "what went wrong", **fields)
        assert type(made) is cls, kind
        assert also is None or isinstance(made, also), kind
        e: Any = made
        assert e.kind == kind
        assert (e.path, e.vertex, e.minimum, e.option) == ("/no/such/g.dg", 7, 1 << 20, "memory")
        if also is not None:
            assert (e.errno, e.strerror, e.filename) == (2, "what went wrong", "/no/such/g.dg")
        else:
            assert str(e) == "what went wrong"


def test_errors_carry_their_fields(tmp_path: Path) -> None:
    g = diskgraph.from_edges([1, 2], [2, 3], tmp_path / "g")
    with pytest.raises(diskgraph.InvalidVertex) as vertex:
        g.bfs(source=99)
    v: Any = vertex.value
    assert (v.kind, v.vertex) == ("invalid_vertex", 99)
    with pytest.raises(diskgraph.OutputExistsError) as exists:
        diskgraph.from_edges([1], [2], tmp_path / "g")
    e: Any = exists.value
    assert (e.kind, e.option, e.path) == ("output_exists", "force", str(tmp_path / "g"))
    assert str(e) == f"{tmp_path / 'g'}: output already exists (pass force=True to replace it)"
    with pytest.raises(diskgraph.GraphNotFoundError) as missing:
        diskgraph.open(tmp_path / "none")
    m: Any = missing.value
    assert (m.kind, m.filename) == ("graph_not_found", str(tmp_path / "none"))


def test_quoted_shell_commands_keep_their_flags(graph_dir: Path) -> None:
    # `diskgraph compress` is a command for the shell: its flags stay as the shell spells them
    # (the list of subcommands comes from the command line's own parser).
    g = diskgraph.open(graph_dir)
    with pytest.raises(ValueError) as e:
        g.bfs(adjacency="vbyte")
    assert f"`diskgraph compress {graph_dir} --codec vbyte`" in str(e.value), str(e.value)


def test_python_side_refusals_are_typed_too(tmp_path: Path) -> None:
    g = diskgraph.from_edges([1, 2], [2, 3], tmp_path / "g")
    r = g.bfs(source=1)
    r.write(tmp_path / "r.tsv")
    with pytest.raises(diskgraph.OutputExistsError) as exists:
        r.write(tmp_path / "r.tsv")
    e: Any = exists.value
    assert (e.kind, e.option, e.path) == ("output_exists", "force", str(tmp_path / "r.tsv"))
    (tmp_path / "named.tsv").write_text("a\tb\nb\tc\n")
    named = diskgraph.import_file(tmp_path / "named.tsv", tmp_path / "named.dg")
    with pytest.raises(diskgraph.InvalidVertex) as vertex:
        named.neighbors("nope")
    assert getattr(vertex.value, "kind") == "invalid_vertex"
