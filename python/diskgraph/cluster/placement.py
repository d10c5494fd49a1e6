"""Where a cluster run's workers go: the cluster spec, the parts each node holds, and the parts
dealt to the nodes' CPU slots."""

from __future__ import annotations

from typing import Any, List, Optional, Tuple

from .. import _native


def parse_cluster(spec: str) -> Tuple[str, Optional[int]]:
    """``"local:N"`` → ``("local", N)``; ``"ray://HOST:PORT"`` → (the address, None). Anything else
    is a ``ValueError`` naming the spec."""
    if spec.startswith("local:"):
        count = spec[len("local:"):]
        if count.isdigit() and int(count) >= 1:
            return "local", int(count)
    elif spec.startswith("ray://") and ":" in spec[len("ray://"):]:
        return spec, None
    raise ValueError(f"cluster {spec!r}: expected local:N (N ≥ 1 worker processes) or ray://HOST:PORT")


def parts_here(split_path: str, routing: List[Tuple[str, str]]) -> List[int]:
    """Run on a node: the parts (indexes into ``routing``, pairs of part name and ``out.adj``
    xxh3) that lie under ``split_path`` on this node's disk with the lists the routing names,
    their manifests read by the native format reader."""
    return _native.parts_here(split_path, routing)


def place(parts: int, nodes: List[Tuple[int, List[int]]]) -> Tuple[List[Tuple[int, List[int]]], List[int]]:
    """Deals ``parts`` parts to worker slots: ``nodes`` gives each node's slots and the parts it
    holds, and each part goes, in order, to the slot with the fewest parts so far (the first of
    them) among the nodes holding it; on one node that is round robin. Returns the workers, as
    (node index, parts) for each slot given parts, and the parts no node holds."""
    slots = [node for node, (count, _) in enumerate(nodes) for _ in range(count)]
    holds = [set(found) for _, found in nodes]
    dealt: List[List[int]] = [[] for _ in slots]
    missing = []
    for i in range(parts):
        candidates = [k for k, node in enumerate(slots) if i in holds[node]]
        if not candidates:
            missing.append(i)
            continue
        dealt[min(candidates, key=lambda k: (len(dealt[k]), k))].append(i)
    return [(slots[k], d) for k, d in enumerate(dealt) if d], missing


def on(node: str) -> Any:
    """Ray's scheduling strategy that runs a task or actor on ``node`` and nowhere else."""
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    return NodeAffinitySchedulingStrategy(node_id=node, soft=False)
