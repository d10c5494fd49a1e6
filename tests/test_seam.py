"""The seam between Rust and Python passes typed values, not text: no Python code of the package
parses a run's summary or rewrites an error's message (the error kinds' classes and fields are
tested in test_errors.py)."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import pytest

import diskgraph

PACKAGE = Path(diskgraph.__file__).resolve().parent

#: Texts that only a parser of a summary or a message would look for.
_TELLTALES = ("NOT converged",)


def _is_re_call(node: ast.AST) -> bool:
    """Whether ``node`` calls a function of ``re`` (``re.sub(...)``, ``re.search(...)``, ...)."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "re"
    )


def _text_of_exception(node: ast.AST, names: List[str]) -> bool:
    """Whether ``node`` is the text of a caught exception: ``str(e)``, ``repr(e)``, ``e.args``
    or ``e.args[i]`` for ``e`` in ``names``."""
    if isinstance(node, ast.Subscript):
        node = node.value
    if isinstance(node, ast.Attribute) and node.attr == "args":
        return isinstance(node.value, ast.Name) and node.value.id in names
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in ("str", "repr", "format")
        and len(node.args) == 1
        and isinstance(node.args[0], ast.Name)
        and node.args[0].id in names
    )


def _parsed(node: ast.AST, parent: Optional[ast.AST]) -> bool:
    """Whether the text ``node`` is read by ``parent`` rather than passed on: a method of it
    called (``.replace``, ``.split``, ...), compared or searched (``in``, ``==``), indexed, or
    given to ``re``."""
    if isinstance(parent, ast.Attribute) and parent.value is node:
        return True
    if isinstance(parent, (ast.Compare, ast.Subscript)):
        return True
    return parent is not None and _is_re_call(parent)


def offences(source: str, filename: str = "<source>") -> List[str]:
    """Where ``source`` parses a summary or rewrites an error message, as ``file:line: what``."""
    tree = ast.parse(source, filename)
    parents: Dict[ast.AST, ast.AST] = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[child] = node
    caught: List[Tuple[ast.ExceptHandler, str]] = [
        (h, h.name) for h in ast.walk(tree) if isinstance(h, ast.ExceptHandler) and h.name
    ]
    found = []
    for node in ast.walk(tree):
        where = f"{filename}:{getattr(node, 'lineno', '?')}"
        parent = parents.get(node)
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            found += [f"{where}: the text {t!r}" for t in _TELLTALES if t in node.value]
        if isinstance(node, ast.Attribute) and node.attr == "summary" and isinstance(node.ctx, ast.Load):
            if _parsed(node, parent):
                found.append(f"{where}: a summary read as text")
        for handler, name in caught:
            inside = any(node is n for stmt in handler.body for n in ast.walk(stmt))
            if inside and _text_of_exception(node, [name]) and _parsed(node, parent):
                found.append(f"{where}: the message of {name} read or rewritten")
    return found


def test_no_python_code_parses_summaries_or_messages() -> None:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        found += offences(path.read_text(encoding="utf-8"), str(path.relative_to(PACKAGE)))
    assert found == []


@pytest.mark.parametrize(
    "source",
    [
        # The NetworkX backend's convergence check before issue 49.
        'def _converged(result):\n    return "NOT converged" not in result.summary\n',
        "def f(r):\n    return r.summary.split(';')[0]\n",
        "import re\ndef f(r):\n    return re.search('x', r.summary)\n",
        "import re\ntry:\n    pass\nexcept ValueError as e:\n    raise ValueError(re.sub('--', '', str(e)))\n",
        "try:\n    pass\nexcept ValueError as e:\n    raise ValueError(str(e).replace('--memory', 'memory='))\n",
        "try:\n    pass\nexcept ValueError as e:\n    if 'budget' in e.args[0]:\n        raise\n",
    ],
)
def test_the_scan_finds_parsing(source: str) -> None:
    assert offences(source) != []


@pytest.mark.parametrize(
    "source",
    [
        "def f(r):\n    print(r.summary)\n",
        "def f(r):\n    return f'Result({r.summary})'\n",
        "class R:\n    def __init__(self, summary):\n        self.summary = summary\n",
        "try:\n    pass\nexcept ValueError as e:\n    raise KeyError(f'cannot: {e}') from e\n",
    ],
)
def test_the_scan_lets_passing_on_be(source: str) -> None:
    assert offences(source) == []
