"""The ``diskgraph`` command as a console entry point: ``pip install`` writes a ``diskgraph``
script that calls :func:`main`, which runs the command line compiled into the extension
module — the standalone binary's own code — so the wheel needs no Rust toolchain. ``diskgraph
run ALGO SPLIT --cluster SPEC`` is that command too: it hands the supersteps to the package's Ray
orchestrator (:mod:`diskgraph.cluster`)."""

from __future__ import annotations

import signal
import sys
from typing import List, Optional

from . import _native


def main(argv: Optional[List[str]] = None) -> None:
    """Runs ``diskgraph`` with ``argv`` (default: this process's arguments) and exits with its
    status. As for the binary, output into a closed pipe (``diskgraph info G --json | head -2``)
    and Ctrl-C end the process quietly: SIGPIPE and SIGINT get their default actions back from
    Python, which would otherwise turn the first into an error and hold the second until the
    command finished."""
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    args = sys.argv[1:] if argv is None else argv
    sys.exit(_native.cli_main(["diskgraph", *args]))


if __name__ == "__main__":
    main()
