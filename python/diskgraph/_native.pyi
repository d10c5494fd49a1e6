"""Type stubs for the diskgraph._native extension module (crates/diskgraph-py)."""

import os
import pathlib
from typing import Any, Dict, List, Optional, Tuple, Union, final

import numpy as np
import numpy.typing as npt

_Path = Union[str, os.PathLike[str]]

__all__ = [
    "AlgorithmError",
    "DiskgraphError",
    "EdgeImporter",
    "Graph",
    "GraphFormatError",
    "GraphNotFoundError",
    "InputFormatError",
    "InputNotFoundError",
    "InvalidVertex",
    "NotAGraphError",
    "OutputExistsError",
    "StaticCache",
    "Suspended",
    "SyncGraph",
    "SyncQueue",
    "VerificationError",
    "algorithms",
    "check_outputs",
    "codecs",
    "error_kinds",
    "make_error",
    "cli_main",
    "graph500",
    "import_file",
    "parse_size",
    "read_metadata",
    "read_names",
    "write_report",
    "write_rows",
    "__version__",
    "DEFAULT_MEMORY",
]

__version__: str
#: The default memory budget in bytes (the `memory` run option's declared default).
DEFAULT_MEMORY: int

class DiskgraphError(Exception): ...
class GraphFormatError(DiskgraphError): ...
class InputFormatError(DiskgraphError): ...
class InvalidVertex(DiskgraphError): ...
class AlgorithmError(DiskgraphError): ...
class OutputExistsError(DiskgraphError): ...
class VerificationError(AlgorithmError): ...
class Suspended(DiskgraphError): ...
class GraphNotFoundError(GraphFormatError, FileNotFoundError): ...
class NotAGraphError(GraphFormatError, NotADirectoryError): ...
class InputNotFoundError(InputFormatError, FileNotFoundError): ...

def parse_size(size: Union[int, str], name: str = ...) -> int: ...
def read_metadata(path: _Path) -> str: ...
def check_outputs(
    reads: List[Tuple[str, _Path]], writes: List[Tuple[str, _Path]], scratch: List[Tuple[str, _Path]] = ...
) -> None: ...
def cli_main(argv: List[str]) -> int: ...
def graph500(
    scale: Optional[int],
    graph: Optional[str],
    edgefactor: int,
    seed: int,
    roots: int,
    engine: str,
    memory: int,
    threads: Optional[int],
    force: bool,
    bfs_only: bool,
) -> Dict[str, Any]: ...
def algorithms() -> Dict[str, Any]: ...
def codecs() -> List[str]: ...
def error_kinds() -> Dict[str, type]: ...
def make_error(kind: str, message: str, **fields: Union[int, float, str, _Path]) -> BaseException: ...
def write_report(path: _Path, graph: _Path, summary: str, stats: str) -> None: ...
def write_rows(
    path: _Path,
    format: str,
    vertex_ids: npt.NDArray[np.uint64],
    values: np.ndarray,
    labels: Optional[List[str]] = None,
) -> None: ...
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
    memory: Optional[int] = None,
    force: bool = False,
    header: str = "auto",
    delimiter: Optional[str] = None,
    source_column: Union[int, str, None] = None,
    target_column: Union[int, str, None] = None,
    weight_column: Union[int, str, None] = None,
    ids: str = "auto",
    compressed_only: Optional[str] = None,
) -> Dict[str, Any]: ...
def read_names(path: _Path) -> Optional[List[str]]: ...

@final
class SyncQueue:
    def push(self, v: int) -> None: ...
    def pop(self) -> Optional[int]: ...
    def __len__(self) -> int: ...

@final
class SyncGraph:
    @property
    def num_vertices(self) -> int: ...
    def neighbors(self, v: int, direction: str = "out") -> npt.NDArray[np.uint64]: ...
    def weights(self, v: int, direction: str = "out") -> npt.NDArray[np.float32]: ...
    def degree(self, v: int, direction: str = "out") -> int: ...
    def queue(self, directions: List[str] = ..., level: int = 0) -> SyncQueue: ...
    def stats(self) -> Dict[str, Any]: ...

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
    def neighbors(self, v: int, direction: str = "out") -> npt.NDArray[np.uint64]: ...
    def csr(
        self, direction: str = "out"
    ) -> Tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint32], Optional[npt.NDArray[np.float32]]]: ...
    def verify(self) -> Dict[str, int]: ...
    def export(self, output: _Path, format: str = "el", force: bool = False) -> int: ...
    def partition_shards(
        self,
        shards: Optional[int],
        memory: int,
        block_size: Optional[int],
        force: bool,
        compress: Optional[str],
    ) -> Dict[str, Any]: ...
    def partition(
        self,
        grid: Optional[int] = None,
        sort: str = "grid",
        memory: Optional[int] = None,
        force: bool = False,
        compress: Optional[str] = None,
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
        memory: Optional[int] = None,
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
    def sync(self, options: Dict[str, Any]) -> SyncGraph: ...
    def compress(self, codec: str = "vbyte", force: bool = False) -> Dict[str, Any]: ...
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
        memory: Optional[int] = None,
        force: bool = False,
        description: str = "python",
        compressed_only: Optional[str] = None,
    ) -> EdgeImporter: ...
    def push(
        self,
        src: npt.NDArray[np.uint64],
        dst: npt.NDArray[np.uint64],
        weights: Optional[npt.NDArray[np.float32]] = None,
    ) -> None: ...
    def add_vertices(self, ids: npt.NDArray[np.uint64]) -> None: ...
    def add_names(self, names: List[str]) -> None: ...
    def finish(self) -> Dict[str, Any]: ...
    def abort(self) -> None: ...
    @property
    def closed(self) -> bool: ...
    @property
    def weighted(self) -> bool: ...
