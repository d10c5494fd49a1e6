"""The README's worked example, exactly as documented: every ``$`` command of its ``console``
blocks in order, in a scratch directory that sees the repository's ``testdata``, each output
line the README shows checked against what the command printed; then its ``pycon`` blocks as
doctests in the same directory.

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
from typing import List

import pytest

from conftest import REPO

README = REPO / "README.md"
DECIMAL = re.compile(r"\d+\.\d+")


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


def test_readme_commands_run_as_shown(console_run: List[Ran]) -> None:
    assert len(console_run) == len(console_commands(README.read_text()))
    for r in console_run:
        assert r.returncode == 0, f"`$ {r.command.line}` exited {r.returncode}:\n{r.printed}"
        check_output(r.command, r.printed)


def test_readme_python_runs_as_shown(scratch: Path, console_run: List[Ran]) -> None:
    # The console example made the graph the Python example opens.
    assert all(r.returncode == 0 for r in console_run)
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    cwd = Path.cwd()
    os.chdir(scratch)
    try:
        for i, block in enumerate(fenced_blocks(README.read_text(), "pycon")):
            test = parser.get_doctest(block, {}, f"README pycon block {i + 1}", str(README), 0)
            runner.run(test)
    finally:
        os.chdir(cwd)
    failed, attempted = runner.summarize(verbose=False)
    assert attempted > 0
    assert failed == 0, f"{failed} of {attempted} README Python examples failed (output above)"
