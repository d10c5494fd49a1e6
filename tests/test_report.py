"""`diskgraph run ... --report FILE.html`: one self-contained page whose plots a browser draws.

The page is rendered in headless Chromium (installed by scripts/setup.sh): a wrapper page loads
it in a frame and, once everything is laid out, lists each plot's drawn size and the colours of
its drawn marks (elements with a non-empty box); the test reads that from `--dump-dom`. The same
check run on a copy with plots removed must name them, so a missing plot fails the test.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any, Dict, List

import pytest

# The series colours of crates/diskgraph-cli/src/report.rs, as a browser computes them.
THROUGHPUT = "rgb(31, 119, 180)"
SEQUENTIAL = "rgb(44, 160, 44)"
RANDOM = "rgb(214, 39, 40)"
ACTIVE = "rgb(255, 127, 14)"
BYTES = "rgb(148, 103, 189)"
CACHE = "rgb(23, 190, 207)"

# Lists, for each frame, every plot's rendered size and how many drawn marks have each colour.
INSPECT = """<!DOCTYPE html>
<html><body><pre id="result"></pre>
<iframe id="report" src="REPORT" width="1000" height="4000"></iframe>
<iframe id="stripped" src="STRIPPED" width="1000" height="4000"></iframe>
<script>
function inspect(frame) {
  const doc = frame.contentDocument, view = frame.contentWindow;
  const out = {};
  for (const fig of doc.querySelectorAll('figure[id^="plot-"]')) {
    const svg = fig.querySelector('svg');
    const entry = {width: 0, height: 0, marks: {}};
    if (svg) {
      const box = svg.getBoundingClientRect();
      entry.width = box.width;
      entry.height = box.height;
      for (const el of svg.querySelectorAll('polyline, path, rect, circle, line')) {
        const b = el.getBBox();
        if (b.width + b.height <= 0) continue;
        const style = view.getComputedStyle(el);
        for (const c of new Set([style.stroke, style.fill])) {
          entry.marks[c] = (entry.marks[c] || 0) + 1;
        }
      }
    }
    out[fig.id] = entry;
  }
  return out;
}
window.addEventListener('load', () => {
  document.getElementById('result').textContent = JSON.stringify({
    report: inspect(document.getElementById('report')),
    stripped: inspect(document.getElementById('stripped')),
  });
});
</script>
</body></html>
"""


def chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        exe = shutil.which(name)
        if exe:
            return exe
    raise AssertionError("no headless Chromium: scripts/setup.sh installs the Debian package chromium")


def rendered(tmp: Path, report: Path, stripped: Path) -> Dict[str, Dict[str, Any]]:
    """What Chromium drew of `report` and `stripped` (see INSPECT)."""
    page = tmp / "inspect.html"
    page.write_text(INSPECT.replace("REPORT", report.name).replace("STRIPPED", stripped.name))
    out = subprocess.run(
        [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--allow-file-access-from-files",
         "--virtual-time-budget=10000", "--dump-dom", page.as_uri()],
        capture_output=True, text=True, timeout=120,
    )
    found = re.search(r'<pre id="result">(.*?)</pre>', out.stdout, re.S)
    assert found and found.group(1), f"Chromium drew nothing: {out.stderr[-2000:]}"
    result: Dict[str, Dict[str, Any]] = json.loads(html.unescape(found.group(1)))
    return result


def missing(plots: Dict[str, Any], expected: Dict[str, List[str]]) -> List[str]:
    """The plots of `expected` (id: colours of its series) not drawn: absent, empty, or without
    a mark in one of its series' colours."""
    gone = []
    for plot, colours in expected.items():
        p = plots.get(plot)
        if p is None or p["width"] < 800 or p["height"] < 300 or any(p["marks"].get(c, 0) == 0 for c in colours):
            gone.append(plot)
    return gone


def run(*args: str) -> subprocess.CompletedProcess:
    exe = shutil.which("diskgraph")
    assert exe, "the diskgraph command is not on PATH"
    return subprocess.run([exe, *args], capture_output=True, text=True)


@pytest.fixture(scope="module")
def graph(tmp_path_factory: pytest.TempPathFactory, real_data: Path) -> Path:
    path = tmp_path_factory.mktemp("report") / "email"
    done = run("import", str(real_data / "email-Eu-core.txt"), "-o", str(path))
    assert done.returncode == 0, done.stderr
    return path


def test_the_report_is_self_contained_and_chromium_draws_every_plot(graph: Path, tmp_path: Path) -> None:
    report, stats = tmp_path / "run.html", tmp_path / "stats.json"
    done = run("run", "bfs", str(graph), "--engine", "selective", "--memory", "1MiB", "--page-size", "4096",
               "--report", str(report), "--stats", str(stats))
    assert done.returncode == 0, done.stderr
    assert f"report written to {report}" in done.stdout
    page = report.read_text()
    # Nothing to fetch and nothing to run: the plots are inline SVG.
    assert not re.search(r"<script|<link|<img|<iframe|\b(src|href)\s*=", page, re.I)
    s = json.loads(stats.read_text())
    assert f"<td>bytes_read</td><td class=\"n\">{s['bytes_read']}</td>" in page
    assert f"<td>engine</td><td>selective</td>" in page

    measured = "sequential not measured" not in page and "random not measured" not in page
    expected = {
        "plot-io": [THROUGHPUT] + ([SEQUENTIAL, RANDOM] if measured else []),
        "plot-active": [ACTIVE],
        "plot-bytes": [BYTES],
        "plot-cache": [CACHE],
    }
    # The same page with the cache plot gone and the throughput line cut out of its plot.
    stripped = tmp_path / "stripped.html"
    cut = re.sub(r'<figure id="plot-cache">.*?</figure>', "", page, flags=re.S)
    cut = re.sub(r'<polyline[^>]*stroke="#1F77B4"[^>]*/>', "", cut, flags=re.I)
    assert cut != page
    stripped.write_text(cut)

    drawn = rendered(tmp_path, report, stripped)
    assert missing(drawn["report"], expected) == [], drawn["report"]
    assert missing(drawn["stripped"], expected) == ["plot-io", "plot-cache"], drawn["stripped"]


def test_a_run_without_a_cache_has_no_cache_plot_and_says_what_the_engine_does_not_report(
    graph: Path, tmp_path: Path
) -> None:
    report = tmp_path / "run.html"
    done = run("run", "pagerank", str(graph), "--engine", "memory", "--report", str(report))
    assert done.returncode == 0, done.stderr
    page = report.read_text()
    ids = re.findall(r'<figure id="([a-z-]+)"', page)
    assert ids == ["plot-io", "plot-bytes"], ids
    assert "The memory engine does not report active vertices per step." in page


def test_a_report_into_a_missing_directory_is_refused_before_the_run(graph: Path, tmp_path: Path) -> None:
    target = tmp_path / "no" / "run.html"
    done = run("run", "bfs", str(graph), "--report", str(target))
    assert done.returncode != 0
    assert f"directory {target.parent} does not exist" in done.stderr
    assert "reached" not in done.stdout


def test_run_shows_its_steps_on_a_terminal_and_nothing_otherwise(graph: Path) -> None:
    import os
    import pty
    import select

    exe = shutil.which("diskgraph")
    assert exe
    args = [exe, "run", "pagerank", str(graph), "--engine", "selective", "--memory", "1MiB"]
    main, side = pty.openpty()
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=side)
    os.close(side)
    shown = b""
    while select.select([main], [], [], 30)[0]:
        try:
            chunk = os.read(main, 1 << 16)
        except OSError:  # the run ended and closed the terminal
            break
        if not chunk:
            break
        shown += chunk
    os.close(main)
    stdout = proc.communicate(timeout=60)[0].decode()
    assert proc.returncode == 0
    text = shown.decode(errors="replace")
    assert re.search(r"step \d+, \d+ active: [\d.]+\w*B read \([\d.]+ MB/s\), \d+ edges; [\d.]+\w*B read in all", text), text
    assert "step" not in stdout
    # Piped, stderr stays clean.
    piped = subprocess.run(args, capture_output=True, text=True)
    assert piped.returncode == 0 and piped.stderr == "", piped.stderr


def test_python_progress_callback_sees_every_step_as_it_ends(graph: Path) -> None:
    import diskgraph

    g = diskgraph.open(graph)
    seen: List[Dict[str, Any]] = []
    r = g.pagerank(engine="selective", memory="1MiB", progress=seen.append)
    assert seen == r.stats["steps"]
    assert [s["step"] for s in seen] == list(range(len(seen)))
    assert sum(s["bytes_read"] for s in seen) == r.stats["bytes_read"]
    assert any(s["active"] for s in seen)
    # Through Graph.run too, and a run's other steps are its own.
    again: List[Dict[str, Any]] = []
    g.run("bfs", engine="memory", progress=again.append)
    assert [s["step"] for s in again] == [0, 1]


def test_python_progress_true_shows_a_line_without_tqdm(
    graph: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import sys

    import diskgraph

    monkeypatch.setitem(sys.modules, "tqdm", None)  # as if tqdm were not installed
    diskgraph.open(graph).bfs(engine="selective", memory="1MiB", progress=True)
    err = capsys.readouterr().err
    assert re.search(r"bfs step \d+: \d+ active, [\d.]+ MB read \([\d.]+ MB/s\), \d+ edges", err), err
    assert err.endswith("\n")


def test_python_progress_true_uses_tqdm_when_installed(graph: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("tqdm")
    import diskgraph

    diskgraph.open(graph).bfs(engine="selective", memory="1MiB", progress=True)
    err = capsys.readouterr().err
    assert re.search(r"bfs: .*step", err), err


def test_python_progress_errors(graph: Path) -> None:
    import diskgraph

    g = diskgraph.open(graph)
    calls: List[int] = []

    def fail(record: Dict[str, Any]) -> None:
        calls.append(record["step"])
        raise KeyError("stop")

    with pytest.raises(KeyError, match="stop"):
        g.pagerank(engine="selective", memory="1MiB", progress=fail)
    assert calls == [0]
    with pytest.raises(TypeError, match="progress must be True, False, None or a callable, got str"):
        g.bfs(progress="yes")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="progress must be callable"):
        g._g.run("bfs", {"progress": 3})


def test_python_report_is_the_cli_s_page(graph: Path, tmp_path: Path) -> None:
    import diskgraph

    g = diskgraph.open(graph)
    path = tmp_path / "py.html"
    r = g.bfs(engine="selective", memory="1MiB", page_size=4096, report=path)
    page = path.read_text()
    assert re.findall(r'<figure id="([a-z-]+)"', page) == ["plot-io", "plot-active", "plot-bytes", "plot-cache"]
    assert f"<td>bytes_read</td><td class=\"n\">{r.stats['bytes_read']}</td>" in page
    assert r.summary in html.unescape(page)
    g.run("pagerank", engine="memory", report=str(tmp_path / "run.html"))
    assert (tmp_path / "run.html").exists()
    with pytest.raises(FileNotFoundError, match="directory .*no does not exist"):
        g.bfs(report=tmp_path / "no" / "r.html")
