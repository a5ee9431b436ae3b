"""strata's own facts about each apply operation, beside terraform's event payload
(:attr:`engine.events.stream.Event.detail`): what it waited for, when it became ready, how long it
waited and ran. Computed only when a recorder (the event log, a subscriber) reads them."""

from __future__ import annotations

import time
from typing import Any

from engine.apply.graph import ApplyNode, Barrier, Node
from engine.graph.dag import Graph
from engine.graph.walker import Done


class EventDetail:
    """The detail of the operations of one walk of ``graph``, begun at ``t0`` (monotonic)."""

    def __init__(self, graph: Graph[Node], t0: float) -> None:
        self.graph = graph
        self.t0 = t0
        self._ends: dict[Node, tuple[float, ApplyNode | None]] = {}
        self._details: dict[int, tuple[Any, ...]] = {}  # by id: a node's own hash is a Python call
        self._read: set[int] | None = None
        self._deps: dict[int, Any] = {}

    def ends_read(self) -> set[int]:
        """The ids of the nodes whose end is read (:meth:`end_read` of each, at once: the executor
        looks each operation up there, without a call)."""
        read = self._read
        return self._index() if read is None else read

    def end_read(self, node: Node) -> bool:
        """Whether anything reads when ``node`` ended: an operation that depends on it, directly
        or through barriers (a barrier ends when its last dependency does). Most operations of a
        wide graph have none but their resource's barrier, on which nothing depends: their end
        is then not recorded (hot path: :meth:`timed` costs a closure and a call per operation)."""
        return id(node) in self.ends_read()

    def _index(self) -> set[int]:
        """Once, at the walk's first operation: the ids of the nodes whose end is read (each
        dependency of an operation and, through a barrier among them, the barrier's own, and so on)
        and the dependencies of each operation that has some, by id. One pass over the graph: a
        node's own hash is a Python call, and each operation would otherwise cost a look at its
        dependents and at its dependencies (a wide graph's operations have none)."""
        deps = self.graph.deps
        self._deps = {id(n): ds for n, ds in deps.items() if ds and type(n) is not Barrier}
        read: set[int] = set()
        stack = [d for ds in self._deps.values() for d in ds]
        while stack:
            d = stack.pop()
            if id(d) not in read:
                read.add(id(d))
                if type(d) is Barrier:
                    stack.extend(deps[d])
        self._read = read
        return read

    def timed(self, node: ApplyNode, done: Done) -> Done:
        """``done``, noting when ``node`` ended."""
        def timed(ok: bool) -> None:
            self._ends[node] = (time.monotonic(), node)
            done(ok)

        return timed

    def _ready(self, node: Node) -> tuple[float, ApplyNode | None]:
        """When ``node`` became ready (its last dependency ended; a barrier ends when it is
        ready), and the operation whose end made it so (None: ready from the start)."""
        best: tuple[float, ApplyNode | None] = (self.t0, None)
        for d in self.graph.deps[node]:
            end = self._ends.get(d)
            if end is None:
                if type(d) is not Barrier:
                    continue  # not ended (cannot be: the walker started node after it)
                end = self._ends[d] = self._ready(d)
            if end[0] > best[0]:
                best = end
        return best

    def _detail(self, node: ApplyNode, pname: str, started: float) -> tuple[Any, ...]:
        """The node's detail as its operation starts, a tuple of ``jsonline.DETAIL_FIELDS`` (hot
        path: no dict; computed once, its end adds ``run`` and ``call``)."""
        if self._read is None:
            self._index()
        deps = self._deps.get(id(node))
        if not deps:  # ready from the start (most nodes of a wide graph)
            ready = self.t0
            return str(node), pname, [], None, 0.0, started - ready if started > ready else 0.0
        ready, after = self._ready(node)
        return (str(node), pname, sorted(str(x) for x in deps), None if after is None else str(after),
                ready - self.t0, started - ready if started > ready else 0.0)

    def of(self, node: ApplyNode, pname: str, started: list[float], end: bool = True) -> tuple[Any, ...]:
        """The detail of ``node``'s event; at the operation's ``end``, with its ``run`` time
        (started to durable) and ``call`` (the provider's call, slot held). Given to the event's
        constructor (hot path: an event made again with its detail cost as much as the first)."""
        start = started[0]
        if not end:
            d = self._details[id(node)] = self._detail(node, pname, start)
            return d
        d = self._details.pop(id(node), ())
        if not d:
            d = self._detail(node, pname, start)
        return (*d, _monotonic() - start, (started[1] if len(started) > 1 else start) - start)


_monotonic = time.monotonic
