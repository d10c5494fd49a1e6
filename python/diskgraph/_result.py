"""Algorithm results (:class:`Result`)."""

from __future__ import annotations

import functools
import importlib
import json
import math
import os
import tempfile
from typing import TYPE_CHECKING, Any, Callable, Dict, Hashable, List, Optional, Union

import numpy as np

from . import _native
from ._native import AlgorithmError

if TYPE_CHECKING:
    import pandas
    import pyarrow


class Result:
    """The answer of one algorithm run.

    Attributes:
        algorithm: The algorithm that ran (``"bfs"``, ``"pagerank"``, ...).
        values: One value per vertex, indexed like :attr:`vertex_ids`: int64 BFS levels or
            parents (original IDs), core numbers and msbfs distance sums (-1 = unreached),
            apsp's rows of hop distances (2-D, one column per source; -1 = unreached),
            uint64 component labels (the smallest original ID in the component) and random-walk
            visit counts, float64 distances (``inf`` = unreached), ranks and spmv products.
        vertex_ids: Original vertex IDs, ascending (uint64).
        nodes: The node keys of the rows: the vertex names (str) or the NetworkX nodes of a graph
            that has them, else :attr:`vertex_ids`.
        stats: What the run did and cost (the engine's ``RunStats`` as a dict): ``engine``,
            times, ``iterations``, ``edges_processed``, the I/O counters (``bytes_read``,
            ``io_requests``, ``blocks_requested``, ``blocks_after_dedup``, ``merged_runs``,
            ``io_utility``, ``io_wait_seconds``, ``io_rounds``: bytes, requests and seconds of each I/O
            round), ``peak_engine_memory``, ``memory_per_vertex``, ``memory_per_arc`` and
            ``minimum_memory`` (what the budget covers besides the engine's buffers, and the least
            ``memory`` the run takes), and ``settings``
            (threads, memory, the source(s), and for the selective engine ``io_backend``,
            ``block_size``, ``scheduler``, ...; ``engine_choice`` says why ``auto`` chose).
        summary: A one-line description of the answer.

    >>> r = g.bfs(source=1)
    >>> r.to_dict()[1]
    0
    """

    __slots__ = ("algorithm", "values", "vertex_ids", "stats", "summary", "_keys")

    def __init__(
        self,
        algorithm: str,
        values: np.ndarray,
        vertex_ids: np.ndarray,
        stats: Dict[str, Any],
        summary: str,
        keys: Optional[np.ndarray] = None,
    ) -> None:
        self.algorithm = algorithm
        self.values = values
        self.vertex_ids = vertex_ids
        self.stats = stats
        self.summary = summary
        #: The rows' node keys (an object array) when the graph has names or nodes, else None.
        self._keys = keys

    @property
    def nodes(self) -> np.ndarray:
        """The node key of each row: a vertex's name (str) or its NetworkX node when the graph
        has them, else its original ID (then the same as :attr:`vertex_ids`)."""
        return self.vertex_ids if self._keys is None else self._keys

    def to_dict(self) -> Dict[Hashable, Any]:
        """Maps each node key (see :attr:`nodes`: names or NetworkX nodes when the graph has
        them, else original vertex IDs) to its value (Python ints and floats)."""
        return dict(zip(self.nodes.tolist(), self.values.tolist()))

    @property
    def value_name(self) -> str:
        """The name of the values (``"level"``, ``"rank"``, ``"component"``, ...; ``"parent"`` for
        bfs with ``parents=True``), as the run recorded it in ``stats["settings"]["value"]``:
        the value column of :meth:`to_pandas` and :meth:`to_arrow`."""
        return str(self.stats["settings"]["value"])

    def _value_columns(self) -> List[str]:
        """The value columns' names: the value name, or for a matrix (apsp) one column per
        source, ``<name>_<source ID>``, in the order of ``stats["settings"]["sources"]``."""
        if self.values.ndim == 1:
            return [self.value_name]
        return [f"{self.value_name}_{s}" for s in self.stats["settings"]["sources"]]

    def _columns(self) -> Dict[str, np.ndarray]:
        """The ``node`` column and the value columns, as :meth:`to_pandas` has them."""
        columns = {"node": self.nodes}
        columns.update(zip(self._value_columns(), self._value_arrays()))
        return columns

    def _value_arrays(self) -> List[np.ndarray]:
        """The values as columns: one, or one per source for a matrix."""
        if self.values.ndim == 1:
            return [self.values]
        return [self.values[:, i] for i in range(self.values.shape[1])]

    def to_pandas(self) -> "pandas.DataFrame":
        """The result as a DataFrame: a ``node`` column (:attr:`nodes`: names on a graph with names, else the vertex IDs, ascending) and a value
        column named after the values (:attr:`value_name`: ``level``, ``rank``, ...). A matrix
        result (apsp) has one column per source instead, ``hops_<source ID>``, in the order of
        ``stats["settings"]["sources"]``. Needs pandas (``pip install 'diskgraph[pandas]'``).

        >>> g.pagerank().to_pandas().nlargest(1, "rank")  # doctest: +SKIP
        """
        pd = _optional("pandas", "to_pandas")
        return pd.DataFrame(self._columns())

    def to_arrow(self) -> "pyarrow.Table":
        """The result as a ``pyarrow.Table`` with the columns of :meth:`to_pandas` (``node``:
        uint64 IDs, or strings on a graph with names; then the values). Needs pyarrow (``pip install 'diskgraph[pyarrow]'``)."""
        pa = _optional("pyarrow", "to_arrow")
        return pa.table(self._columns())

    def write(self, path: Union[str, "os.PathLike[str]"], force: bool = False) -> None:
        """Writes one row per vertex to ``path``, the format chosen by its extension:

        - ``.tsv``: ``vertex<TAB>value`` (apsp: a value per source), no header — the very bytes
          ``diskgraph run --out FILE.tsv`` writes;
        - ``.npy``: a structured array of fields ``vertex`` (u64) and ``value``, as the CLI's;
        - ``.parquet``: columns ``vertex`` (uint64) and ``value`` (apsp: ``value_0``, ...), as
          the CLI's (needs pyarrow);
        - ``.csv``: the Parquet columns with a header line;
        - ``.json``: a list of ``{"vertex": ID, "value": V}`` records (apsp: a list of values),
          ``null`` for an infinite or NaN float.

        The file is written under a temporary name beside it and renamed into place.

        Raises:
            ValueError: an extension not in the list above.
            OutputExistsError: ``path`` exists and ``force`` is false.
            FileNotFoundError: the directory of ``path`` does not exist.
        """
        target = os.fspath(path)
        ext = os.path.splitext(target)[1].lower()
        writers: Dict[str, Callable[[str], None]] = {
            ".tsv": functools.partial(self._write_rows, "tsv"),
            ".csv": functools.partial(self._write_rows, "csv"),
            ".json": self._write_json,
            ".npy": functools.partial(self._write_rows, "npy"),
            ".parquet": self._write_parquet,
        }
        if ext not in writers:
            known = ", ".join(writers)
            raise ValueError(f"{target}: unknown result format {ext or '(no extension)'!r} (use {known})")
        if os.path.lexists(target) and not force:
            message = f"{target} exists (pass force=True to replace it)"
            raise _native.make_error("output_exists", message, path=target, option="force")
        directory = os.path.dirname(os.path.abspath(target))
        if not os.path.isdir(directory):
            raise FileNotFoundError(f"cannot write {target}: directory {directory} does not exist")
        fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(target)}.", suffix=".tmp", dir=directory)
        os.close(fd)
        try:
            writers[ext](tmp)
            os.replace(tmp, target)
        except BaseException:
            os.unlink(tmp)
            raise

    def _file_names(self) -> List[str]:
        """The value columns' names in the CLI's files: ``value``, or ``value_0``, ... per source."""
        if self.values.ndim == 1:
            return ["value"]
        return [f"value_{i}" for i in range(self.values.shape[1])]

    def _labels(self) -> List[str]:
        """Each row's vertex as the CLI's files name it: its name (the ``str`` of its node key)
        when the graph has names, else its original ID."""
        return [str(k) for k in self.nodes.tolist()]

    def _write_rows(self, format: str, path: str) -> None:
        """Writes the rows with the command line's own writers (``diskgraph run --out``'s TSV
        and ``.npy``, and CSV): vertices named on a graph with names, floats as Rust prints
        them."""
        labels = None if self._keys is None else self._labels()
        kind = self.values.dtype.kind
        dtype = np.float64 if kind == "f" else np.uint64 if kind == "u" else np.int64
        values = self.values.astype(dtype, copy=False)
        _native.write_rows(path, format, self.vertex_ids.astype(np.uint64, copy=False), values, labels)

    def _write_json(self, path: str) -> None:
        values = self.values.tolist()
        if self.values.dtype.kind == "f":
            values = [None if not math.isfinite(x) else x for x in values]
        vertices: List[Any] = self.vertex_ids.tolist() if self._keys is None else self._labels()
        records = [{"vertex": v, "value": x} for v, x in zip(vertices, values)]
        with open(path, "w", encoding="utf-8") as f:
            json.dump(records, f, allow_nan=False)
            f.write("\n")

    def _write_parquet(self, path: str) -> None:
        pa = _optional("pyarrow", "write")
        import pyarrow.parquet as pq

        # The vertex column holds the names when the graph has them, as the CLI's does.
        vertex = pa.array(self._labels(), pa.string()) if self._keys is not None else pa.array(self.vertex_ids)
        fields = [pa.field("vertex", vertex.type, nullable=False)]
        arrays = [vertex]
        for name, c in zip(self._file_names(), self._value_arrays()):
            # REQUIRED columns, as the CLI writes them: every vertex has a value.
            fields.append(pa.field(name, pa.from_numpy_dtype(c.dtype), nullable=False))
            arrays.append(pa.array(c))
        pq.write_table(pa.Table.from_arrays(arrays, schema=pa.schema(fields)), path)

    def __len__(self) -> int:
        return int(self.values.shape[0])

    def __repr__(self) -> str:
        return f"Result({self.algorithm!r}, {len(self)} vertices, dtype={self.values.dtype}: {self.summary})"


def _optional(module: str, method: str) -> Any:
    """Imports an optional dependency, or raises ImportError naming the extra that installs it
    (each extra is named after its package)."""
    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise ImportError(
            f"Result.{method}() needs {module}: pip install 'diskgraph[{module}]' (or pip install {module})"
        ) from e


class ConvergenceError(AlgorithmError):
    """An iterative run (pagerank) reached its iteration limit (``max_iterations``) before
    converging, and ``allow_unconverged=True`` was not given. As NetworkX raises
    ``PowerIterationFailedConvergence``, but the values are not lost: :attr:`result` holds the
    run's :class:`Result` as it stood, its ``stats["converged"]`` False.

    >>> try:
    ...     r = g.pagerank(max_iterations=2)
    ... except diskgraph.ConvergenceError as e:
    ...     r = e.result
    """

    def __init__(self, message: str, result: Result) -> None:
        super().__init__(message)
        #: The run's result as it stood at the iteration limit.
        self.result = result


ConvergenceError.__module__ = "diskgraph"


def check_converged(result: Result, allowed: bool) -> Result:
    """``result``, unless it stopped at its iteration limit without converging and that is not
    ``allowed``: then :class:`ConvergenceError` holding it."""
    if result.stats.get("converged") is False and not allowed:
        raise ConvergenceError(
            f"{result.algorithm} stopped at its iteration limit ({result.stats['iterations']} iterations) "
            "without converging; raise max_iterations, or pass allow_unconverged=True to accept such a "
            "result (this exception holds it as .result)",
            result,
        )
    return result
