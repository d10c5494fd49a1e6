"""``from_parquet``: edge columns of a Parquet file or dataset, streamed batch by batch."""

from __future__ import annotations

import os
from typing import Any, Dict, List, Optional

import numpy as np

from ._graph import DEFAULT_MEMORY, Graph, Memory, PathLike
from ._importers import as_ids, as_weights, run_import


def _column(batch: Any, index: int, name: str, offset: int) -> np.ndarray:
    col = batch.column(index)
    if col.null_count:
        nulls = np.flatnonzero(col.is_null().to_numpy(zero_copy_only=False))
        raise ValueError(f"column {name!r} is null in row {offset + int(nulls[0])}")
    values: np.ndarray = col.to_numpy(zero_copy_only=False)
    return values


def from_parquet(
    source: Any,
    path: Optional[PathLike] = None,
    src: str = "src",
    dst: str = "dst",
    weight: Optional[str] = None,
    directed: bool = True,
    *,
    vertices: Any = None,
    batch_size: Optional[int] = None,
    keep_self_loops: bool = False,
    keep_duplicates: bool = False,
    memory: Memory = DEFAULT_MEMORY,
    force: bool = False,
) -> Graph:
    """Builds a graph directory from edge columns of Parquet data and opens it.

    Record batches stream through ``pyarrow.dataset`` (only the named columns are read), so the
    table is never loaded whole: memory stays at a few batches plus the import's budget.

    Args:
        source: A Parquet file, a directory of them, a list of files, or a
            ``pyarrow.dataset.Dataset``.
        path: The graph directory to create; ``None`` makes a temporary graph, deleted when
            it is closed (see :class:`Graph`).
        src, dst: Columns of source and target IDs (integer, non-negative, no nulls).
        weight: Column of weights (finite reals), or ``None`` for an unweighted graph.
        directed: ``False`` stores each edge both ways.
        vertices: Extra vertex IDs that exist even if no edge touches them.
        batch_size: Rows per record batch read (pyarrow's default if ``None``).
        keep_self_loops, keep_duplicates, memory, force: as in :func:`import_file`.

    Raises:
        ValueError: a column is missing (naming it), holds a null, a negative ID or a
            non-finite weight (naming the row).

    >>> g = diskgraph.from_parquet("edges.parquet", "g.dg", src="from", dst="to")
    """
    import pyarrow.dataset as ds

    if isinstance(source, ds.Dataset):
        dataset = source
        label = "dataset"
    else:
        if isinstance(source, (str, os.PathLike)):
            source = os.fspath(source)
        dataset = ds.dataset(source, format="parquet")
        label = str(source)
    names = list(dataset.schema.names)
    columns: List[str] = [src, dst] + ([weight] if weight is not None else [])
    for role, col in zip(("src", "dst", "weight"), columns):
        if col not in names:
            raise ValueError(f"{role} column {col!r} not found in {label} (its columns: {', '.join(names)})")
    extra = None if vertices is None else as_ids(vertices, "vertices")
    kwargs: Dict[str, Any] = {"columns": columns}
    if batch_size is not None:
        kwargs["batch_size"] = int(batch_size)

    def feed(importer: Any) -> None:
        offset = 0
        for batch in dataset.to_batches(**kwargs):
            rows = batch.num_rows
            if rows:
                s = as_ids(_column(batch, 0, src, offset), src, offset)
                d = as_ids(_column(batch, 1, dst, offset), dst, offset)
                w = as_weights(_column(batch, 2, weight, offset), weight, offset) if weight is not None else None
                importer.push(s, d, w)
            offset += rows
        if extra is not None and extra.size:
            importer.add_vertices(extra)

    return run_import(
        path,
        feed,
        directed=directed,
        weighted=weight is not None,
        keep_self_loops=keep_self_loops,
        keep_duplicates=keep_duplicates,
        memory=memory,
        force=force,
        description=f"parquet {label}",
    )
