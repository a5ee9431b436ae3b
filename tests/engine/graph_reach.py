"""What the apply-graph tests ask of a built graph: does one node wait for another."""

from __future__ import annotations

from engine.graph.dag import Graph


def waits(g: Graph, a: object, b: object) -> bool:  # type: ignore[type-arg]
    """Whether ``a`` waits (transitively) for ``b``."""
    seen, todo = set(), [a]
    while todo:
        for d in g.deps[todo.pop()]:
            if d == b:
                return True
            if d not in seen:
                seen.add(d)
                todo.append(d)
    return False
