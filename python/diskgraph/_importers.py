"""Importers: files (:func:`import_file`) and numpy arrays (:func:`from_edges`), plus the shared
machinery the other converters use to stream batches into a native ``EdgeImporter``."""

from __future__ import annotations

import os
import shutil
import warnings
from typing import Any, Callable, Iterable, Optional, Union

import numpy as np

from . import _native
from ._graph import DEFAULT_MEMORY, Graph, Memory, PathLike, memory_bytes, temporary_graph_path

#: Edges converted and pushed per step, so a conversion never holds more than one chunk.
CHUNK = 1 << 20
_U64_LIMIT = 1 << 64


def as_ids(values: Any, name: str, offset: int = 0) -> np.ndarray:
    """Converts vertex IDs (any integer array-like) to a contiguous uint64 array.

    Raises TypeError for non-integer data and ValueError naming the first negative (or too
    large) entry as ``name[index]``, with ``offset`` added to the index.
    """
    arr = np.asarray(values)
    if arr.dtype.kind == "f" and not isinstance(values, np.ndarray):
        # numpy turns a list mixing IDs above 2**63 with small ones into float64; keep them exact.
        arr = np.asarray(values, dtype=object)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {arr.shape}")
    if arr.size == 0:
        return np.zeros(0, dtype=np.uint64)
    kind = arr.dtype.kind
    if kind == "O":
        return _object_ids(arr, name, offset)
    if kind not in "iu":
        raise TypeError(f"{name} must hold integer vertex IDs, got dtype {arr.dtype}")
    if kind == "i":
        negative = np.flatnonzero(arr < 0)
        if negative.size:
            i = int(negative[0])
            raise ValueError(f"{name}[{offset + i}] is {int(arr[i])}: vertex IDs must be non-negative")
    return np.ascontiguousarray(arr, dtype=np.uint64)


def _object_ids(arr: np.ndarray, name: str, offset: int) -> np.ndarray:
    out = np.empty(arr.shape[0], dtype=np.uint64)
    for i, x in enumerate(arr.tolist()):
        if isinstance(x, bool) or not isinstance(x, int):
            raise TypeError(f"{name}[{offset + i}] is {x!r}: vertex IDs must be integers")
        if not 0 <= x < _U64_LIMIT:
            raise ValueError(f"{name}[{offset + i}] is {x}: vertex IDs must be in 0 .. 2**64-1")
        out[i] = x
    return out


def as_weights(values: Any, name: str = "weights", offset: int = 0) -> np.ndarray:
    """Converts weights to a contiguous float32 array; ValueError naming the first NaN,
    infinite or float32-overflowing entry."""
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {arr.shape}")
    if arr.size == 0:
        return np.zeros(0, dtype=np.float32)
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"{name} must hold real numbers, got dtype {arr.dtype}")
    f64 = arr.astype(np.float64)
    bad = np.flatnonzero(~np.isfinite(f64))
    if bad.size:
        i = int(bad[0])
        raise ValueError(f"{name}[{offset + i}] is {f64[i]}: weights must be finite")
    with np.errstate(over="ignore"):
        f32 = f64.astype(np.float32)
    bad = np.flatnonzero(~np.isfinite(f32))
    if bad.size:
        i = int(bad[0])
        raise ValueError(f"{name}[{offset + i}] is {f64[i]}: too large for a float32 weight")
    return np.ascontiguousarray(f32)


def run_import(
    path: Optional[PathLike],
    feed: Callable[["_native.EdgeImporter"], None],
    *,
    directed: bool,
    weighted: bool,
    keep_self_loops: bool,
    keep_duplicates: bool,
    memory: Optional[Memory],
    force: bool,
    description: str,
    compress: Optional[str] = None,
    keep_plain: bool = True,
) -> Graph:
    """Starts a native importer, lets ``feed`` push into it, publishes and opens the graph,
    then compresses its lists with codec ``compress`` if given (see :func:`compressed`); with
    ``keep_plain=False`` the importer stores them only compressed instead.

    Any exception from ``feed`` (including KeyboardInterrupt) aborts the import, which then
    leaves nothing at ``path``. With ``path=None`` the graph goes to a temporary directory
    that the returned graph deletes when closed or collected.
    """
    check_codec(compress)
    target = temporary_graph_path() if path is None else os.fspath(path)
    try:
        importer = _native.EdgeImporter(
            target,
            directed=bool(directed),
            weighted=bool(weighted),
            keep_self_loops=bool(keep_self_loops),
            keep_duplicates=bool(keep_duplicates),
            memory=memory_bytes(memory),
            force=bool(force),
            description=description,
            compressed_only=None if keep_plain else compress,
        )
        try:
            feed(importer)
            summary = importer.finish()
        except BaseException:
            importer.abort()
            raise
        g = compressed(opened(target, summary), compress if keep_plain else None)
    except BaseException:
        if path is None:
            shutil.rmtree(os.path.dirname(target), ignore_errors=True)
        raise
    if path is None:
        g._own_directory(os.path.dirname(target))
    return g


def opened(path: PathLike, summary: Any) -> Graph:
    """Opens a graph just imported, attaches the import summary, and issues its warnings about
    the input (an ignored column, a rounded weight) as Python warnings."""
    g = Graph(path)
    g._import_summary = dict(summary)
    for message in g._import_summary.get("warnings", []):
        warnings.warn(message, UserWarning, stacklevel=3)
    return g


def check_codec(codec: Optional[str]) -> None:
    """Refuses a codec that is not one of :func:`diskgraph.codecs` before anything is imported."""
    if codec is not None and codec not in _native.codecs():
        raise ValueError(f"unknown codec {codec!r} for compress (known: {', '.join(_native.codecs())})")


def compressed(g: Graph, codec: Optional[str]) -> Graph:
    """``g`` with its lists compressed with ``codec`` (:meth:`Graph.compress`; the summary in
    ``g.import_summary["compressed"]``), or as it is for None."""
    if codec is not None:
        summary = g.compress(codec)
        if g._import_summary is not None:
            g._import_summary["compressed"] = summary
    return g


def push_vertices(importer: "_native.EdgeImporter", ids: Iterable[np.ndarray]) -> None:
    """Adds chunks of isolated-vertex IDs."""
    for chunk in ids:
        if chunk.size:
            importer.add_vertices(chunk)


def import_file(
    input: PathLike,
    path: PathLike,
    *,
    format: str = "auto",
    undirected: bool = False,
    weighted: bool = False,
    weight_file: Optional[PathLike] = None,
    keep_self_loops: bool = False,
    keep_duplicates: bool = False,
    memory: Memory = DEFAULT_MEMORY,
    force: bool = False,
    header: Union[str, bool] = "auto",
    delimiter: Optional[str] = None,
    source_column: Union[int, str, None] = None,
    target_column: Union[int, str, None] = None,
    weight_column: Union[int, str, None] = None,
    ids: str = "auto",
    compress: Optional[str] = None,
    keep_plain: bool = True,
) -> Graph:
    """Imports an edge-list file into a new graph directory at ``path`` and opens it.

    Exactly what ``diskgraph import`` does: SNAP/whitespace text, GAP ``.el``/``.wel``,
    KONECT, Matrix Market, DIMACS ``.gr``, raw ``bin32``/``bin64`` pairs (text gzip-compressed
    or not) and WebGraph BVGraphs (``input`` is the basename or its ``.graph`` file); IDs are kept as written. By default self-loops are dropped and duplicate edges
    merged (keeping the smallest weight).

    Args:
        input: The input file.
        path: The graph directory to create.
        format: ``"auto"`` (from the file name, then the first line) or one of ``snap``,
            ``csv``, ``konect``, ``mtx``, ``dimacs``, ``el``, ``wel``, ``bin32``, ``bin64``,
            ``bvgraph``. ``.csv`` and ``.tsv`` names, and a first line with commas, are csv.
        undirected: Store as undirected even if the input does not declare it (Matrix Market
            ``symmetric`` and KONECT ``sym`` inputs are undirected anyway).
        weighted: Read weights from the third column of text edge lists (formats that carry
            weights are weighted regardless).
        weight_file: ``bin32``/``bin64`` only: a file of little-endian float32 weights.
        keep_self_loops: Keep self-loops.
        keep_duplicates: Keep parallel edges (a multigraph).
        memory: Budget of the import (int bytes or e.g. ``"256MiB"``): a smaller one reads the
            file more times. A regular file is read again (no scratch); a pipe is copied once
            to a scratch file (8 bytes per edge, 16 with 64-bit IDs, +4 weighted).
        force: Replace an existing graph at ``path``.
        header: CSV: ``"auto"`` (the first row is a header when a column is given by name or
            its source and target are not both integers), ``"yes"``/``True`` or ``"no"``/``False``.
        delimiter: CSV: one character, or ``"tab"`` (default ``,``; a tab for ``.tsv``).
        source_column, target_column, weight_column: CSV: a column by 0-based index (int) or
            header name (str); source 0 and target 1 by default; a weight column makes the
            graph weighted (``weighted`` alone takes the header's ``weight`` column, else 2).
        ids: CSV: ``"auto"`` (integers when the first edge's are unquoted integers),
            ``"integer"`` or ``"name"``: names get IDs in order of first appearance and are
            stored as the graph's vertex names (:attr:`Graph.nodes`; results'
            :meth:`Result.to_dict` keys). Unquoted fields are trimmed of spaces; quoted ones
            are kept exactly (``""`` is the empty name).
        compress: Also compress the lists with this codec (as ``diskgraph import --compress``
            and :meth:`Graph.compress`; e.g. ``"vbyte"``): runs then read them by default. What
            it made is ``import_summary["compressed"]``.
        keep_plain: With ``compress``: ``False`` stores the lists only compressed (a
            compressed-only graph, as ``diskgraph import --compress``: no ``out.adj``, about
            1.5–2.5 bytes per arc instead of 4); every method and engine reads it.

    Warns about an ignored numeric column and about the first weight float32 rounds
    (``UserWarning``, naming file and line).

    Raises:
        InputFormatError: the input is malformed (the message names file, line and column).
        OutputExistsError: ``path`` exists and ``force`` is false.

    >>> g = diskgraph.import_file("rome99.gr", "rome99.dg")
    >>> g.num_vertices, g.num_edges
    (3353, 8859)
    """
    check_codec(compress)
    summary = _native.import_file(
        os.fspath(input),
        os.fspath(path),
        format=format,
        undirected=bool(undirected),
        weighted=bool(weighted),
        weight_file=None if weight_file is None else os.fspath(weight_file),
        keep_self_loops=bool(keep_self_loops),
        keep_duplicates=bool(keep_duplicates),
        memory=memory_bytes(memory),
        force=bool(force),
        header=_header(header),
        delimiter=delimiter,
        source_column=source_column,
        target_column=target_column,
        weight_column=weight_column,
        ids=ids,
        compressed_only=None if keep_plain else compress,
    )
    return compressed(opened(path, summary), compress if keep_plain else None)


def _header(header: Union[str, bool]) -> str:
    """``header`` as the native importer spells it."""
    if isinstance(header, bool):
        return "yes" if header else "no"
    return str(header)


def from_edges(
    src: Any,
    dst: Any,
    path: Optional[PathLike] = None,
    weights: Any = None,
    directed: bool = True,
    vertices: Any = None,
    *,
    keep_self_loops: bool = False,
    keep_duplicates: bool = False,
    memory: Memory = DEFAULT_MEMORY,
    force: bool = False,
    compress: Optional[str] = None,
    keep_plain: bool = True,
) -> Graph:
    """Builds a graph directory from edge arrays ``src[i] -> dst[i]`` and opens it.

    Args:
        src, dst: Vertex IDs (any integer dtype or sequence of ints, non-negative, below 2**64),
            of equal length.
        path: The graph directory to create; ``None`` makes a temporary graph, deleted when
            it is closed (see :class:`Graph`).
        weights: Optional edge weights (finite reals, stored as float32); the graph is weighted
            iff given.
        directed: ``False`` stores each edge both ways.
        vertices: Extra vertex IDs that exist even if no edge touches them (isolated vertices).
        keep_self_loops, keep_duplicates, memory, force, compress, keep_plain: as in
            :func:`import_file`.

    Raises:
        ValueError: lengths differ, or an ID is negative or a weight NaN/infinite (naming the
            index), or there is no vertex at all.
        TypeError: the IDs are not integers.

    >>> g = diskgraph.from_edges(np.array([1, 2]), np.array([2, 3]), "g.dg", vertices=[7])
    >>> g.vertex_ids()
    array([1, 2, 3, 7], dtype=uint64)
    """
    s = np.asarray(src)
    d = np.asarray(dst)
    if s.ndim != 1 or d.ndim != 1:
        raise ValueError(f"src and dst must be one-dimensional, got shapes {s.shape} and {d.shape}")
    if s.shape[0] != d.shape[0]:
        raise ValueError(f"src and dst differ in length ({s.shape[0]} and {d.shape[0]})")
    n = int(s.shape[0])
    w = None
    if weights is not None:
        w = np.asarray(weights)
        if w.ndim != 1 or w.shape[0] != n:
            raise ValueError(f"weights must be one-dimensional with the length of src ({n}), got shape {w.shape}")
    extra = None if vertices is None else as_ids(vertices, "vertices")
    if n == 0 and (extra is None or extra.size == 0):
        raise ValueError("no edges and no vertices: a graph needs at least one vertex")
    def feed(importer: "_native.EdgeImporter") -> None:
        for start in range(0, n, CHUNK):
            end = min(start + CHUNK, n)
            ws = None if w is None else as_weights(w[start:end], "weights", start)
            importer.push(as_ids(s[start:end], "src", start), as_ids(d[start:end], "dst", start), ws)
        if extra is not None:
            push_vertices(importer, (extra[i : i + CHUNK] for i in range(0, extra.size, CHUNK)))

    return run_import(
        path,
        feed,
        directed=directed,
        weighted=w is not None,
        keep_self_loops=keep_self_loops,
        keep_duplicates=keep_duplicates,
        memory=memory,
        force=force,
        description=f"numpy arrays ({n} edges)",
        compress=compress,
        keep_plain=keep_plain,
    )
