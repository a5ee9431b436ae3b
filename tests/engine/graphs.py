"""Graphs written out for tests."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from engine.graph.dag import Graph


def graph_of(nodes: Iterable[Any], edges: Iterable[tuple[Any, Any]]) -> Graph[Any]:
    """A graph with ``nodes`` (in that insertion order) and ``edges`` as (node, depends_on) pairs."""
    g: Graph[Any] = Graph()
    for n in nodes:
        g.add(n)
    for n, d in edges:
        g.add_edge(n, d)
    return g
