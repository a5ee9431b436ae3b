"""A directed acyclic graph that knows nothing about resources.

Edges point from a node to what it *depends on* (Terraform's inverted
convention): ``add_edge(b, a)`` means "b waits for a". Nodes are any
hashable values; ``str(node)`` names them in cycles and DOT output.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Hashable, Iterable
from typing import Generic, TypeVar

from engine.diagnostics import CycleError

N = TypeVar("N", bound=Hashable)


class Graph(Generic[N]):
    __slots__ = ("deps", "dependents")

    def __init__(self) -> None:
        self.deps: dict[N, set[N]] = {}
        self.dependents: dict[N, set[N]] = {}

    def add(self, node: N) -> None:
        if node not in self.deps:
            self.deps[node] = set()
            self.dependents[node] = set()

    def add_edge(self, node: N, depends_on: N) -> None:
        """``node`` waits for ``depends_on``. Both must already be in the graph."""
        if node == depends_on:
            return
        self.deps[node].add(depends_on)
        self.dependents[depends_on].add(node)

    def __contains__(self, node: object) -> bool:
        return node in self.deps

    def __len__(self) -> int:
        return len(self.deps)

    def nodes(self) -> Iterable[N]:
        return self.deps.keys()

    def edge_count(self) -> int:
        return sum(len(d) for d in self.deps.values())

    def cycles(self) -> list[list[str]]:
        """Every strongly connected component with more than one node, names sorted, deterministic."""
        index: dict[N, int] = {}
        low: dict[N, int] = {}
        on_stack: set[N] = set()
        stack: list[N] = []
        out: list[list[str]] = []
        counter = 0
        for root in self.deps:
            if root in index:
                continue
            # iterative Tarjan: (node, iterator over its deps)
            work = [(root, iter(self.deps[root]))]
            index[root] = low[root] = counter
            counter += 1
            stack.append(root)
            on_stack.add(root)
            while work:
                node, it = work[-1]
                advanced = False
                for nxt in it:
                    if nxt not in index:
                        index[nxt] = low[nxt] = counter
                        counter += 1
                        stack.append(nxt)
                        on_stack.add(nxt)
                        work.append((nxt, iter(self.deps[nxt])))
                        advanced = True
                        break
                    if nxt in on_stack:
                        low[node] = min(low[node], index[nxt])
                if advanced:
                    continue
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        comp.append(w)
                        if w == node:
                            break
                    if len(comp) > 1:
                        out.append(sorted(str(c) for c in comp))
        out.sort()
        return out

    def check_acyclic(self) -> None:
        """Raise :class:`CycleError` naming every cycle; cheap (Kahn) when there is none."""
        if self._kahn_count() == len(self.deps):
            return
        cycles = self.cycles()
        if cycles:
            raise CycleError(cycles)

    def _kahn_count(self) -> int:
        remaining = {n: len(d) for n, d in self.deps.items()}
        ready = [n for n, c in remaining.items() if c == 0]
        seen = 0
        dependents = self.dependents
        while ready:
            n = ready.pop()
            seen += 1
            for m in dependents[n]:
                c = remaining[m] - 1
                remaining[m] = c
                if c == 0:
                    ready.append(m)
        return seen

    def topological_order(self) -> list[N]:
        """Dependencies before dependents (Kahn), otherwise in the order the nodes were added (a
        configuration's declaration order: the order terraform reports errors in); raises
        :class:`CycleError` on a cycle."""
        remaining = {n: len(d) for n, d in self.deps.items()}
        ready = deque(n for n, c in remaining.items() if c == 0)
        order: list[N] = []
        while ready:
            n = ready.popleft()
            order.append(n)
            for m in self.dependents[n]:
                remaining[m] -= 1
                if remaining[m] == 0:
                    ready.append(m)
        if len(order) != len(self.deps):
            self.check_acyclic()
        return order

    def to_dot(self, label: str = "strata") -> str:
        lines = [f'digraph "{label}" {{', "  rankdir = \"BT\";"]
        for n in sorted(self.deps, key=str):
            lines.append(f'  "{_esc(str(n))}";')
        for n in sorted(self.deps, key=str):
            for d in sorted(self.deps[n], key=str):
                lines.append(f'  "{_esc(str(n))}" -> "{_esc(str(d))}";')
        lines.append("}")
        return "\n".join(lines) + "\n"


def _esc(s: str) -> str:
    return s.replace("\\", "\\\\").replace('"', '\\"')
