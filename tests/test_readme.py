"""The README's worked example, exactly as documented: every ``$`` command of its ``console``
blocks in order, in a scratch directory that sees the repository's ``testdata``, each output
line the README shows checked against what the command printed; then its ``pycon`` blocks as
doctests in the same directory, one namespace for all of them (as a reader runs them).

The step that opens a run report in a browser (``$ xdg-open run.html`` or
``$ python3 -m webbrowser run.html``) is not run: the page is rendered in headless Chromium
instead (tests/test_report.py's harness), and the step fails unless every plot is drawn.

An output line is checked with its decimal figures (times, rates, sizes) as wildcards, since
they vary from run to run; counts, IDs and words must match. A line ``...`` stands for lines the
README leaves out; the lines shown must appear in order.
"""

from __future__ import annotations

import doctest
import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Tuple

import pytest

from conftest import REPO
from test_report import ACTIVE, BYTES, CACHE, RANDOM, SEQUENTIAL, THROUGHPUT, missing, rendered

README = REPO / "README.md"
DECIMAL = re.compile(r"\d+\.\d+")
#: A step opening a report in the browser; its one group is the page's path.
OPEN = re.compile(r"(?:xdg-open|python3 -m webbrowser) (\S+\.html)")


@dataclass
class Command:
    """One ``$`` line of a console block and the output lines the README shows after it."""

    line: str
    shown: List[str] = field(default_factory=list)


def fenced_blocks(text: str, language: str) -> List[str]:
    """The bodies of the README's fenced blocks of ``language``, in order."""
    return re.findall(rf"^```{language}\n(.*?)^```$", text, flags=re.S | re.M)


def console_commands(text: str) -> List[Command]:
    """Every ``$`` command of the console blocks with the output the README shows for it."""
    commands: List[Command] = []
    for block in fenced_blocks(text, "console"):
        for line in block.splitlines():
            if line.startswith("$ "):
                commands.append(Command(line[2:]))
            elif commands and line.strip():
                commands[-1].shown.append(line)
    return commands


def pattern(shown: str) -> "re.Pattern[str]":
    """A shown output line as a pattern: its decimal figures match any decimal figure."""
    parts = DECIMAL.split(shown)
    return re.compile(r"\d+\.\d+".join(re.escape(p) for p in parts) + r"\s*$")


def check_output(command: Command, printed: str) -> None:
    """Each shown line (``...`` skipped) matches a printed line, in order."""
    lines = printed.splitlines()
    at = 0
    for shown in command.shown:
        if shown.strip() == "...":
            continue
        want = pattern(shown)
        while at < len(lines) and not want.match(lines[at]):
            at += 1
        assert at < len(lines), (
            f"README shows {shown!r} after `$ {command.line}`, but it printed:\n{printed}"
        )
        at += 1


def expected_plots(page: str) -> Dict[str, List[str]]:
    """The plots a report page must draw, each with the colours of its series: the I/O
    throughput (with the device's rates unless the page says they were not measured), the
    active vertices unless the page says the engine does not report them, the bytes per step,
    and the caches' hit ratios when the page has them (the run had a cache)."""
    measured = "sequential not measured" not in page and "random not measured" not in page
    expected = {"plot-io": [THROUGHPUT] + ([SEQUENTIAL, RANDOM] if measured else [])}
    if "does not report active vertices per step" not in page:
        expected["plot-active"] = [ACTIVE]
    expected["plot-bytes"] = [BYTES]
    if 'id="plot-cache"' in page:
        expected["plot-cache"] = [CACHE]
    return expected


def open_report(report: Path, work: Path) -> Tuple[int, str]:
    """The README's "open the report" step, headless: Chromium renders ``report`` and a copy
    without its figures (which must come out all missing, or the check could not see a plot
    go). Returns status 1 and what is wrong, or 0 and the plots drawn."""
    if not report.is_file():
        return 1, f"{report.name}: no such file"
    page = report.read_text()
    expected = expected_plots(page)
    work.mkdir(exist_ok=True)
    shown, stripped = work / report.name, work / f"stripped-{report.name}"
    shown.write_text(page)
    stripped.write_text(re.sub(r'<figure id="plot-[a-z]+">.*?</figure>', "", page, flags=re.S))
    drawn = rendered(work, shown, stripped)
    gone = missing(drawn["report"], expected)
    if gone:
        return 1, f"Chromium did not draw {gone} of {report.name}: {drawn['report']}"
    if missing(drawn["stripped"], expected) != list(expected):
        return 1, f"the plot check saw plots in a copy without figures: {drawn['stripped']}"
    return 0, f"Chromium drew {sorted(expected)}"


@dataclass
class Ran:
    """A command as run: its exit code and what it printed (stdout and stderr, interleaved as a
    terminal shows them)."""

    command: Command
    returncode: int
    printed: str


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory where the README's relative paths (``testdata/...``) resolve."""
    d = tmp_path_factory.mktemp("readme")
    (d / "testdata").symlink_to(REPO / "testdata")
    return d


@pytest.fixture(scope="module")
def console_run(scratch: Path) -> List[Ran]:
    """The README's console commands run in order in ``scratch``, up to the first failure."""
    if shutil.which("diskgraph") is None:
        pytest.fail("the diskgraph command is not on PATH: run ./scripts/setup.sh")
    ran: List[Ran] = []
    for command in console_commands(README.read_text()):
        opened = OPEN.fullmatch(command.line)
        if opened:
            ran.append(Ran(command, *open_report(scratch / opened.group(1), scratch / "opened")))
            if ran[-1].returncode != 0:
                break
            continue
        done = subprocess.run(
            ["bash", "-o", "pipefail", "-c", command.line],
            cwd=scratch,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=600,
        )
        ran.append(Ran(command, done.returncode, done.stdout))
        if done.returncode != 0:
            break
    return ran


def test_readme_has_a_worked_example() -> None:
    text = README.read_text()
    assert any("wiki-Vote" in c.line for c in console_commands(text))
    assert fenced_blocks(text, "pycon"), "the README shows Python as doctest (pycon) blocks"


def test_readme_opens_a_report_it_made() -> None:
    commands = console_commands(README.read_text())
    opened = [(i, m.group(1)) for i, c in enumerate(commands) if (m := OPEN.fullmatch(c.line))]
    assert opened, "the README shows opening a run report (`$ xdg-open run.html`)"
    for i, name in opened:
        assert any(f"--report {name}" in c.line for c in commands[:i]), f"no run writes {name} before it opens"


def test_readme_commands_run_as_shown(console_run: List[Ran]) -> None:
    for r in console_run:
        assert r.returncode == 0, f"`$ {r.command.line}` exited {r.returncode}:\n{r.printed}"
        check_output(r.command, r.printed)
    assert len(console_run) == len(console_commands(README.read_text()))


def test_readme_python_runs_as_shown(scratch: Path, console_run: List[Ran]) -> None:
    # The console example made the graph the Python example opens.
    assert all(r.returncode == 0 for r in console_run)
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    cwd = Path.cwd()
    os.chdir(scratch)
    globs: Dict[str, object] = {}
    try:
        for i, block in enumerate(fenced_blocks(README.read_text(), "pycon")):
            test = parser.get_doctest(block, globs, f"README pycon block {i + 1}", str(README), 0)
            runner.run(test, clear_globs=False)
            globs = test.globs
    finally:
        os.chdir(cwd)
    failed, attempted = runner.summarize(verbose=False)
    assert attempted > 0
    assert failed == 0, f"{failed} of {attempted} README Python examples failed (output above)"
