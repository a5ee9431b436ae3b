"""Dependencies that reach through resources with no node in the apply graph.

terraform orders an apply by *transitive* dependencies: its state records them transitively and
its graph keeps a node for every resource, changed or not, so "a waits for z" holds through an
``m`` in between that has nothing to do. strata's graph has nodes for changes only and the state
records direct dependencies, so an edge that would pass through such an ``m`` must be added
explicitly. Which resources an edge may pass through depends on the rule: an edge composes
through an intermediate resource only when that resource has, for every instance, the node the
rule chains through (a create/update chains creates; a destroy chains destroys). Where it has
not, the rule reaches on to the intermediate's own dependencies.

Reaching is computed per resource, not per instance, and each closure keeps only the resources
a rule can use (those with a node of the role it waits for), so its size is bounded by the
changed resources, and a plan without destroys or pass-through resources costs nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from engine.addrs import ResourceAddr

Deps = Mapping[ResourceAddr, frozenset[ResourceAddr]]


class Reach:
    """Closures of one rule: over ``deps``, passing through resources for which ``through`` holds,
    keeping the resources in ``wanted``."""

    __slots__ = ("deps", "through", "wanted", "memo")

    def __init__(self, deps: Deps, through: Callable[[ResourceAddr], bool], wanted: Iterable[ResourceAddr]) -> None:
        self.deps = deps
        self.through = through
        self.wanted = frozenset(wanted)
        self.memo: dict[ResourceAddr, frozenset[ResourceAddr]] = {}

    def beyond(self, direct: Iterable[ResourceAddr]) -> set[ResourceAddr]:
        """The wanted resources reached from the ``direct`` dependencies of a node by passing
        through at least one of them (the direct ones themselves are the caller's business)."""
        out: set[ResourceAddr] = set()
        if not self.wanted:
            return out
        for d in direct:
            if self.through(d):
                out |= self.closure(d)
        return out

    def closure(self, root: ResourceAddr) -> frozenset[ResourceAddr]:
        """The wanted resources ``root`` depends on, directly or through pass-through resources.
        Iterative (dependency chains can be thousands deep). Resources can depend on each other in
        a cycle (instance keys can make that legal, and a dependency reversed in configuration
        makes one with the state's): every resource of a cycle reaches what the others reach, so
        their closures are completed together, when the first of them entered is left (Tarjan's
        strongly connected components), and none is remembered half done."""
        memo = self.memo
        hit = memo.get(root)
        if hit is not None:
            return hit
        wanted, through, deps = self.wanted, self.through, self.deps
        empty: frozenset[ResourceAddr] = frozenset()
        index = {root: 0}
        low = {root: 0}
        acc: dict[ResourceAddr, set[ResourceAddr]] = {root: set()}
        parked: dict[ResourceAddr, int] = {}  # left before their cycle was: its entry's index
        pending: list[ResourceAddr] = []
        stack = [(root, iter(deps.get(root, empty)))]
        while stack:
            node, it = stack[-1]
            mine = acc[node]
            for e in it:
                if e == node:
                    continue
                if e in wanted:
                    mine.add(e)
                if not through(e):
                    continue
                done = memo.get(e)
                if done is not None:
                    mine |= done
                elif e in acc:  # entered and not left: a cycle back to it
                    low[node] = min(low[node], index[e])
                elif e in parked:
                    low[node] = min(low[node], parked[e])
                else:
                    index[e] = low[e] = len(index)
                    acc[e] = set()
                    stack.append((e, iter(deps.get(e, empty))))
                    break
            else:
                stack.pop()
                found = acc.pop(node)
                if low[node] < index[node]:
                    parked[node] = low[node]
                    pending.append(node)
                else:
                    result = frozenset(found)
                    memo[node] = result
                    while pending and index[pending[-1]] > index[node]:
                        memo[pending.pop()] = result
                if stack:
                    parent = stack[-1][0]
                    acc[parent] |= found
                    low[parent] = min(low[parent], low[node])
        return memo[root]
