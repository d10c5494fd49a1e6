"""The ``diskgraph`` command of the Python package (the console entry point
``diskgraph._cli:main``) behaves as the standalone binary: the same output, errors and exit
statuses, and a quiet end when its output pipe closes."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import List

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - the suite runs on 3.11
    tomllib = pytest.importorskip("tomli")

import diskgraph

REPO = Path(__file__).resolve().parent.parent
#: The package's command, run as the console script does.
ENTRY = [sys.executable, "-c", "from diskgraph._cli import main; main()"]


def binary() -> str:
    """The standalone binary: the workspace's build, else a ``diskgraph`` on PATH that is one
    (not the package's console script, which these tests compare with it)."""
    for exe in (str(REPO / "target" / "release" / "diskgraph"), shutil.which("diskgraph")):
        if exe and os.path.isfile(exe):
            with open(exe, "rb") as f:
                if f.read(4) == b"\x7fELF":
                    return exe
    pytest.fail("no standalone diskgraph binary: cargo build --release -p diskgraph-cli")


@pytest.fixture(scope="module")
def graph(tmp_path_factory: pytest.TempPathFactory, real_data: Path) -> Path:
    path = tmp_path_factory.mktemp("install") / "wiki.dg"
    diskgraph.import_file(real_data / "wiki-Vote.txt", path)
    return path


def both(args: List[str]) -> List[subprocess.CompletedProcess]:
    return [subprocess.run(cmd + args, capture_output=True, text=True) for cmd in (ENTRY, [binary()])]


def test_the_entry_point_is_declared() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert project["scripts"] == {"diskgraph": "diskgraph._cli:main"}
    assert project["readme"] == "crates/diskgraph-py/README.md"
    assert {"pandas", "pyarrow"} <= set(project["optional-dependencies"])


def test_installed_script_runs_the_package(tmp_path: Path) -> None:
    # `maturin develop` / `pip install` wrote the script; it reports the package's version.
    from importlib.metadata import entry_points

    scripts = [e for e in entry_points(group="console_scripts") if e.name == "diskgraph"]
    assert [e.value for e in scripts] == ["diskgraph._cli:main"]
    out = subprocess.run(ENTRY + ["--version"], capture_output=True, text=True, check=True)
    assert out.stdout == f"diskgraph {diskgraph.__version__}\n"


@pytest.mark.parametrize(
    "args",
    [
        ["--version"],
        ["info", "{g}", "--json"],
        ["run", "wcc", "{g}", "--threads", "1"],
        ["algorithms", "--names"],
        ["info", "{missing}"],  # an error: exit 1, one line on stderr
        ["run", "bfs"],  # a usage error: exit 2
        ["frobnicate"],
    ],
)
def test_same_output_and_status_as_the_binary(graph: Path, tmp_path: Path, args: List[str]) -> None:
    args = [a.format(g=graph, missing=tmp_path / "missing.dg") for a in args]
    package, standalone = both(args)
    assert package.returncode == standalone.returncode, (package, standalone)
    assert package.stderr == standalone.stderr
    if args[:2] == ["run", "wcc"]:  # the stats line's times differ from run to run
        assert package.stdout.splitlines()[0] == standalone.stdout.splitlines()[0]
    else:
        assert package.stdout == standalone.stdout
    assert "Traceback" not in package.stderr


def test_writes_files_as_the_binary(graph: Path, tmp_path: Path) -> None:
    for i, cmd in enumerate((ENTRY, [binary()])):
        subprocess.run(cmd + ["run", "pagerank", str(graph), "--out", str(tmp_path / f"r{i}.tsv")], check=True,
                       capture_output=True)
    assert (tmp_path / "r0.tsv").read_bytes() == (tmp_path / "r1.tsv").read_bytes()


def test_closed_pipe_ends_quietly(graph: Path) -> None:
    # `diskgraph info G --json | head -2`: the reader goes before the command writes.
    for args in (["info", str(graph), "--json"], ["run", "bfs", str(graph)]):
        child = subprocess.Popen(ENTRY + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert child.stdout is not None and child.stderr is not None
        child.stdout.close()
        stderr = child.stderr.read()
        status = child.wait()
        assert stderr == b"", stderr
        assert status in (0, -signal.SIGPIPE), status


def test_interrupt_ends_the_command(tmp_path: Path) -> None:
    # Ctrl-C stops the command promptly, as it stops the binary, even while Rust runs: exit
    # status 130 and no graph left behind.
    child = subprocess.Popen(
        ENTRY + ["generate", "kronecker", "--scale", "24", "-o", str(tmp_path / "k.dg")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=dict(os.environ, TMPDIR=str(tmp_path)),
    )
    try:
        child.wait(timeout=3)
        pytest.fail("generating a scale-24 graph should take longer than 3 s")
    except subprocess.TimeoutExpired:
        pass
    child.send_signal(signal.SIGINT)
    _, err = child.communicate(timeout=10)
    assert child.returncode == 130, err
    assert b"interrupted" in err
    assert not (tmp_path / "k.dg").exists()


#: Packages the command line must not load: numpy alone costs more than the command's own start.
HEAVY = ("numpy", "pandas", "pyarrow", "scipy", "networkx")


@pytest.mark.parametrize("args", [["--version"], ["algorithms", "--names"]])
def test_the_command_loads_neither_numpy_nor_the_python_modules(args: List[str]) -> None:
    # The console script needs only the extension module; the package's Python modules, and numpy
    # with them, load on first use of their names (PEP 562), so the command starts as fast as the
    # interpreter does. What was loaded is read when the process exits, after the command ran.
    code = (
        "import atexit, sys\n"
        f"atexit.register(lambda: print(sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY!r}"
        " or m.startswith('diskgraph')), file=sys.stderr))\n"
        "from diskgraph._cli import main\n"
        f"main({args!r})\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout
    loaded = done.stderr.strip().splitlines()[-1]
    assert loaded == str(["diskgraph", "diskgraph._cli", "diskgraph._native"]), loaded


def test_the_public_names_load_on_first_use() -> None:
    code = (
        "import sys, diskgraph\n"
        "assert 'numpy' not in sys.modules and 'diskgraph._graph' not in sys.modules\n"
        "assert set(diskgraph.__all__) <= set(dir(diskgraph))\n"
        "from diskgraph import *\n"
        "import diskgraph._graph, diskgraph._result\n"
        "assert Graph is diskgraph._graph.Graph and open is diskgraph._graph.open\n"
        "assert diskgraph.Result is diskgraph._result.Result\n"
        "assert 'numpy' in sys.modules\n"
        "try:\n"
        "    diskgraph.Grpah\n"
        "except AttributeError as e:\n"
        "    print(e)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "module 'diskgraph' has no attribute 'Grpah'\n"
    assert all(getattr(diskgraph, name) is not None for name in diskgraph.__all__)
