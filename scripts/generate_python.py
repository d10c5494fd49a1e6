#!/usr/bin/env python3
"""Writes python/diskgraph/_algorithms.py — the typed algorithm methods of ``diskgraph.Graph``
and the engines' option dicts — from the algorithm descriptors, as the installed extension
reports them: ``diskgraph algorithms --json``, the same data as ``diskgraph.algorithms()``.

    python3 scripts/generate_python.py          # rewrite the file
    python3 scripts/generate_python.py --check  # exit 1 if the file is out of date

Run it after changing a descriptor and building the command (``cargo build --release -p
diskgraph-cli``, or ./scripts/setup.sh); the test suite fails while the file is out of date.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any, Dict, List

REPO = Path(__file__).resolve().parent.parent
TARGET = REPO / "python" / "diskgraph" / "_algorithms.py"

HEADER = '''"""The algorithm methods of :class:`diskgraph.Graph` and the out-of-core engines' settings.

Generated from the algorithm descriptors by ``python3 scripts/generate_python.py``; do not edit
by hand (the test suite checks it is up to date).
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any, Hashable, Literal, Optional, Sequence, TypedDict, Union

import numpy as np
import numpy.typing as npt

from ._native import StaticCache
from ._progress import Progress
from ._result import Result

if TYPE_CHECKING:
    if sys.version_info >= (3, 11):
        from typing import Unpack
    else:
        from typing_extensions import Unpack

#: A memory budget: bytes as an int, or a string such as ``"256MiB"`` or ``"1.5G"``.
Memory = Union[int, str]
#: A traversal source: a node key (an original vertex ID; on a graph with names, a name or the
#: NetworkX node, see :attr:`Graph.nodes`), ``"smallest"`` (the smallest ID) or ``"max-degree"``
#: (the vertex with the most out-edges, the smallest ID among equals).
SourceSpec = Hashable
#: Sources: a count K (K distinct vertices sampled with ``seed``) or a sequence (or numpy array)
#: of node keys (original vertex IDs, or names / NetworkX nodes on a graph with names).
SourcesSpec = Union[int, Sequence[Hashable], "npt.NDArray[np.integer[Any]]"]
'''

WIDTH = 100


def python_text(text: str) -> str:
    """Help written for the command line, for Python: ``--max-gap`` becomes ``max_gap``."""
    return re.sub(r"--([a-z][a-z-]*)", lambda m: "``" + m.group(1).replace("-", "_") + "``", text)


def wrap(text: str, indent: str, first: str = "", hang: bool = True) -> List[str]:
    """`first` + `text` wrapped at WIDTH; continuation lines indented by `indent`, plus four
    spaces when `hang`."""
    later = indent + ("    " if hang else "")
    lines = textwrap.wrap(first + text, width=WIDTH, initial_indent=indent, subsequent_indent=later, break_on_hyphens=False)
    return lines or [indent + first.rstrip()]


def py(value: Any) -> str:
    """A Python literal, strings in double quotes."""
    return json.dumps(value) if isinstance(value, str) else repr(value)


def literal(names: List[str]) -> str:
    return "Literal[" + ", ".join(py(n) for n in names) + "]"


def annotation(option: Dict[str, Any]) -> str:
    """The Python type of an option."""
    kind = option["kind"]
    base = {
        "flag": "bool",
        "count": "int",
        "float": "float",
        "size": "Union[int, str]",
        "text": "str",
        "source": "SourceSpec",
        "sources": "SourcesSpec",
        "vector": '"npt.ArrayLike"',
    }.get(kind)
    if kind == "choice":
        base = literal([c["name"] for c in option["choices"]])
    assert base is not None, kind
    return base if option["default"] is not None and kind != "vector" else f"Optional[{base}]"


def default_repr(option: Dict[str, Any]) -> str:
    return py(option["default"])


def describe_default(option: Dict[str, Any]) -> str:
    default = option.get("documented_default", option["default"])
    if default is None:
        return ""
    if option["kind"] == "size" and isinstance(default, int):
        return f" (default {size_text(default)})"
    return f" (default ``{py(default)}``)"


def size_text(n: int) -> str:
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift} {unit}"
    return f"{n} bytes"


def choices_text(option: Dict[str, Any]) -> str:
    names = [f'``"{c["name"]}"``' for c in option.get("choices", [])]
    return ", ".join(names[:-1]) + (" or " if len(names) > 1 else "") + names[-1] if names else ""


def method(algorithm: Dict[str, Any]) -> List[str]:
    """The method of one algorithm. An option only some of its engines honour defaults to None
    (not given), so that asking for another engine by name does not pass it."""
    name = algorithm["name"]
    options = [dict(o) for o in algorithm["options"]]
    for o in options:
        if o["engines"] != algorithm["engines"]:
            o["documented_default"], o["default"] = o["default"], None
    positional = [o for o in options[:1] if o["kind"] in ("source", "sources", "vector")]
    keyword = [o for o in options if o not in positional]
    engines = ["auto"] + algorithm["engines"]
    params = ["self"]
    params += [f"{o['name']}: {annotation(o)} = {default_repr(o)}" for o in positional]
    params.append("*")
    params += [f"{o['name']}: {annotation(o)} = {default_repr(o)}" for o in keyword]
    params += [
        f'engine: {literal(engines)} = "auto"',
        "memory: Optional[Memory] = None",
        "threads: Optional[int] = None",
        "verify: bool = False",
        "progress: Progress = None",
        'report: Union[str, "os.PathLike[str]", None] = None',
        "**io: Unpack[IoOptions]",
    ]
    lines = [f"    def {name}(", *[f"        {p}," for p in params], '    ) -> Result:']
    doc = wrap(python_text(algorithm["help"][0].upper() + algorithm["help"][1:]) + ".", "        ", '"""', hang=False)
    doc.append("")
    result = algorithm["result"]
    dtype = result["dtype"] + (", 2-D" if result["matrix"] else "")
    doc += wrap(python_text(result["help"]) + ".", "        ", f"Values ({dtype}): ", hang=False)
    doc += ["", "        Args:"]
    for o in options:
        text = python_text(o["help"])
        if o["kind"] == "choice":
            text += f": {choices_text(o)}"
        only = [e for e in algorithm["engines"] if e not in o["engines"]]
        if only:
            text += f" (the {', '.join(o['engines'])} engine only)"
        doc += wrap(text + describe_default(o) + ".", "            ", f"{o['name']}: ")
    engine_names = ", ".join(f'``"{e}"``' for e in engines[1:])
    doc += wrap(
        f'``"auto"`` (the default) or one of {engine_names}; ``memory``, ``threads``, ``verify``, ``progress``, '
        f"``report`` and the engines' settings ``**io`` as in :meth:`Graph.run`.",
        "            ",
        "engine: ",
    )
    doc.append('        """')
    lines += doc
    call = [f'"{name}"'] + [f"{o['name']}={o['name']}" for o in options]
    call += ["engine=engine", "memory=memory", "threads=threads", "verify=verify", "progress=progress", "report=report", "**io"]
    one_line = f"        return self.run({', '.join(call)})"
    if len(one_line) <= WIDTH + 20:
        lines.append(one_line)
    else:
        lines += ["        return self.run(", *[f"            {c}," for c in call], "        )"]
    return lines


def typed_dict(name: str, base: str, doc: str, options: List[Dict[str, Any]]) -> List[str]:
    lines = [f"class {name}({base}, total=False):"]
    lines += wrap(doc, "    ", '"""', hang=False)
    lines += ["", "    Keys:"]
    for o in options:
        text = python_text(o["help"])
        if o["kind"] == "choice":
            text += f": {choices_text(o)}"
        engines = ", ".join(o["engines"])
        lines += wrap(f"{engines}: {text}{describe_default(o)}.", "        ", f"{o['name']}: ")
    lines += ['    """', ""]
    lines += [f"    {o['name']}: {annotation(o)}" for o in options]
    return lines


def generate(catalog: Dict[str, Any]) -> str:
    engine_options = catalog["engine_options"]
    reading = [o for o in engine_options if o["name"] in catalog["read_options"]]
    others = [o for o in engine_options if o["name"] not in catalog["read_options"]]
    # Run options the methods do not take as parameters (adjacency) are passed like the engines'.
    others += [o for o in catalog["run_options"] if o["name"] not in ("engine", "memory", "threads", "verify")]
    for o in engine_options + others:
        # A setting left out is the engine's default: every key may be None.
        o["default"] = None
    out = [HEADER.rstrip(), "", ""]
    out += typed_dict(
        "ReadOptions",
        "TypedDict",
        "How the out-of-core engines read, accepted by :meth:`Graph.load_static_cache` and, as part of "
        ":class:`IoOptions`, by every run. A key left out (or None) takes the engine's default.",
        reading,
    )
    out += ["", ""]
    out += typed_dict(
        "IoOptions",
        "ReadOptions",
        "The out-of-core engines' settings, accepted by :meth:`Graph.run` and every algorithm method: "
        "those of :class:`ReadOptions` and these. A key left out (or None) takes the engine's default; "
        "``basc`` also takes a :class:`StaticCache` loaded by :meth:`Graph.load_static_cache`.",
        others,
    )
    out += ["", ""]
    out += [
        "class AlgorithmMethods:",
        '    """The algorithms, one method each; each calls :meth:`Graph.run` with its options."""',
        "",
        "    __slots__ = ()",
        "",
        '    def run(self, algorithm: str, **options: Any) -> Result:',
        '        raise NotImplementedError',
    ]
    for a in catalog["algorithms"]:
        out += [""] + method(a)
    text = "\n".join(out) + "\n"
    # basc also takes a loaded StaticCache.
    text = text.replace("    basc: Optional[str]\n", "    basc: Union[str, StaticCache, None]\n")
    return text


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the file is out of date")
    parser.add_argument("--cli", help="the diskgraph command (default: the release build, else the one on PATH)")
    args = parser.parse_args()
    built = REPO / "target" / "release" / "diskgraph"
    cli = args.cli or (str(built) if built.exists() else shutil.which("diskgraph") or "diskgraph")
    catalog = json.loads(subprocess.run([cli, "algorithms", "--json"], check=True, capture_output=True, text=True).stdout)
    text = generate(catalog)
    if args.check:
        current = TARGET.read_text() if TARGET.exists() else ""
        if current != text:
            print(f"{TARGET} is out of date: run python3 scripts/generate_python.py", file=sys.stderr)
            return 1
        return 0
    TARGET.write_text(text)
    print(f"wrote {TARGET}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
