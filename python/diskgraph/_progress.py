"""Watching a run: ``progress=`` and ``report=`` of :meth:`diskgraph.Graph.run` and every
algorithm method.

A ``progress`` callable is called with each engine step's record as the step ends (see
:data:`Progress`); ``True`` shows a tqdm bar when tqdm is installed (``pip install tqdm``), else a
line on stderr. ``report`` names the HTML report written after the run.
"""

from __future__ import annotations

import os
import sys
from typing import Any, Callable, Dict, Optional, Tuple, Union

#: ``progress=``: None or False (nothing), True (a tqdm bar, or a line on stderr without tqdm),
#: or a callable taking each engine step's record as the step ends — a dict with ``step`` (its
#: index: 0 is opening the graph), ``steps`` (steps it covers), ``active`` (its active vertices,
#: or None where the engine does not know them), ``bytes_read``, ``edges_processed``,
#: ``seconds``, ``end_seconds`` (since the run started) and ``cache_hit_ratio`` (so far, by cache).
#: The callable runs on the engine's thread, holding the GIL; an exception it raises stops the
#: calls and is raised when the run ends.
Progress = Union[bool, Callable[[Dict[str, Any]], Any], None]


def check_report(path: "Union[str, os.PathLike[str]]") -> None:
    """Refuses, before the run, a report path whose directory does not exist."""
    parent = os.path.dirname(os.path.abspath(os.fspath(path)))
    if not os.path.isdir(parent):
        raise FileNotFoundError(f"cannot write the report {os.fspath(path)}: directory {parent} does not exist")


def describe(record: Dict[str, Any]) -> str:
    """One line on a step: its active vertices, bytes read and their rate, edges."""
    seconds = record["seconds"]
    rate = record["bytes_read"] / seconds / 1e6 if seconds > 0 else 0.0
    active = "" if record["active"] is None else f"{record['active']} active, "
    return f"{active}{record['bytes_read'] / 1e6:.2f} MB read ({rate:.1f} MB/s), {record['edges_processed']} edges"


class _Line:
    """A line on stderr rewritten at each step (progress=True without tqdm)."""

    def __init__(self, algorithm: str) -> None:
        self.algorithm = algorithm
        self.width = 0

    def __call__(self, record: Dict[str, Any]) -> None:
        text = f"{self.algorithm} step {record['step']}: {describe(record)}"
        sys.stderr.write("\r" + text.ljust(self.width))
        sys.stderr.flush()
        self.width = len(text)

    def close(self) -> None:
        if self.width:
            sys.stderr.write("\n")
            sys.stderr.flush()


class _Tqdm:
    """A tqdm bar counting steps, with the last step's figures beside it."""

    def __init__(self, algorithm: str) -> None:
        from tqdm import tqdm

        self.bar = tqdm(desc=algorithm, unit="step")

    def __call__(self, record: Dict[str, Any]) -> None:
        self.bar.set_postfix_str(describe(record), refresh=False)
        self.bar.update(record["steps"])

    def close(self) -> None:
        self.bar.close()


def callback(progress: Progress, algorithm: str) -> Tuple[Optional[Callable[[Dict[str, Any]], Any]], Callable[[], None]]:
    """The callable the native run takes for ``progress`` (None for none), and what ends it."""
    if progress is None or progress is False:
        return None, lambda: None
    if progress is True:
        try:
            shown: Union[_Tqdm, _Line] = _Tqdm(algorithm)
        except ImportError:
            shown = _Line(algorithm)
        return shown, shown.close
    if not callable(progress):
        raise TypeError(f"progress must be True, False, None or a callable, got {type(progress).__name__}")
    return progress, lambda: None
