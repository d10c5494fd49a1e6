"""Type stubs for the diskgraph._native extension module (crates/diskgraph-py)."""

import os
import pathlib
from typing import Any, Dict, Optional, Tuple, Union, final

import numpy as np
import numpy.typing as npt

_Path = Union[str, os.PathLike[str]]

__all__ = [
    "AlgorithmError",
    "DiskgraphError",
    "EdgeImporter",
    "Graph",
    "GraphFormatError",
    "InputFormatError",
    "InvalidVertex",
    "OutputExistsError",
    "StaticCache",
    "Suspended",
    "algorithms",
    "import_file",
    "parse_size",
    "__version__",
]

__version__: str

class DiskgraphError(Exception): ...
class GraphFormatError(DiskgraphError): ...
class InputFormatError(DiskgraphError): ...
class InvalidVertex(DiskgraphError): ...
class AlgorithmError(DiskgraphError): ...
class OutputExistsError(DiskgraphError): ...
class Suspended(DiskgraphError): ...

def parse_size(size: str) -> int: ...
def algorithms() -> Dict[str, Any]: ...
def import_file(
    input: _Path,
    output: _Path,
    *,
    format: str = "auto",
    undirected: bool = False,
    weighted: bool = False,
    weight_file: Optional[_Path] = None,
    keep_self_loops: bool = False,
    keep_duplicates: bool = False,
    memory: int = 1073741824,
    force: bool = False,
) -> Dict[str, Any]: ...

@final
class Graph:
    def __new__(cls, path: _Path) -> Graph: ...
    @property
    def num_vertices(self) -> int: ...
    @property
    def num_edges(self) -> int: ...
    @property
    def num_arcs(self) -> int: ...
    @property
    def directed(self) -> bool: ...
    @property
    def weighted(self) -> bool: ...
    @property
    def path(self) -> pathlib.Path: ...
    @property
    def manifest(self) -> Dict[str, Any]: ...
    def vertex_ids(self) -> npt.NDArray[np.uint64]: ...
    def out_degree(self) -> npt.NDArray[np.int64]: ...
    def in_degree(self) -> npt.NDArray[np.int64]: ...
    def verify(self) -> Dict[str, int]: ...
    def export(self, output: _Path, format: str = "el", force: bool = False) -> int: ...
    def partition(
        self,
        grid: Optional[int] = None,
        sort: str = "grid",
        memory: int = 1073741824,
        force: bool = False,
    ) -> Dict[str, Any]: ...
    def select(
        self,
        method: str,
        budget: int,
        k: int = 100,
        page_size: int = 4096,
        seed: int = 1,
        name: Optional[str] = None,
        force: bool = False,
    ) -> Dict[str, Any]: ...
    def cost(self) -> Dict[str, Any]: ...
    def reorder(
        self,
        output: _Path,
        method: str = "norder",
        window: Optional[int] = None,
        seed: Optional[int] = None,
        memory: int = 1073741824,
        force: bool = False,
        checkpoint: Optional[_Path] = None,
        checkpoint_every: float = 600.0,
        time_limit: Optional[float] = None,
        page_size: Optional[int] = None,
    ) -> Dict[str, Any]: ...
    def run(
        self, algorithm: str, options: Dict[str, Any]
    ) -> Tuple[npt.NDArray[Any], npt.NDArray[np.uint64], Dict[str, Any], str]: ...
    def reopen(self) -> Graph: ...
    def load_index(self) -> int: ...
    def load_static_cache(self, basc: str, options: Dict[str, Any]) -> StaticCache: ...

@final
class StaticCache:
    @property
    def layout(self) -> str: ...
    @property
    def lists(self) -> int: ...
    @property
    def bytes(self) -> int: ...
    @property
    def load_seconds(self) -> float: ...
    @property
    def load_bytes(self) -> int: ...
    @property
    def memory(self) -> int: ...
    @property
    def basc_fraction(self) -> float: ...

@final
class EdgeImporter:
    def __new__(
        cls,
        output: _Path,
        *,
        directed: bool = True,
        weighted: bool = False,
        keep_self_loops: bool = False,
        keep_duplicates: bool = False,
        memory: int = 1073741824,
        force: bool = False,
        description: str = "python",
    ) -> EdgeImporter: ...
    def push(
        self,
        src: npt.NDArray[np.uint64],
        dst: npt.NDArray[np.uint64],
        weights: Optional[npt.NDArray[np.float32]] = None,
    ) -> None: ...
    def add_vertices(self, ids: npt.NDArray[np.uint64]) -> None: ...
    def finish(self) -> Dict[str, Any]: ...
    def abort(self) -> None: ...
    @property
    def closed(self) -> bool: ...
    @property
    def weighted(self) -> bool: ...
