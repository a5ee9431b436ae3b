"""The concurrent, event-driven graph walker.

A node starts the moment its last dependency completes — never level by
level. ``parallelism`` worker tasks take ready nodes from one queue, and a
worker holds its node until the node's ``done``, so at most that many
operations are in flight from start to completion (terraform's meaning of
``-parallelism``: an operation's end is its ``apply_complete``, which waits
for the state record to be durable), and ready nodes start in the order they
became ready. A node's completion is reported by ``done(ok)``, during
its execution or later. A node made ready by a ``done`` called from its own
execution, while no other node is waiting, goes to the worker running that
execution, which takes it when the execution returns: along a chain of
dependencies, the next link starts without a trip through the event loop's
run queue. A worker that finds more work waiting takes it at once too; every
few nodes taken that way it lets the other tasks run (the state writer, the
event flusher), which an operation that never suspends would otherwise not.

When a node fails, every node that (transitively) depends on it is
skipped and reported; independent branches run to completion. With
``fail_fast`` no new node starts after the first failure.

Hot path: ``_complete`` runs once per node; it is plain dict/int
bookkeeping, O(out-degree).
"""

from __future__ import annotations

import contextlib
from collections import deque
from collections.abc import Awaitable, Callable, Hashable
from typing import Generic, TypeVar

import anyio
import anyio.lowlevel

from engine.graph.dag import Graph
from engine.log import get_logger
from engine.memory import tick

N = TypeVar("N", bound=Hashable)
Done = Callable[[bool], None]

log = get_logger("strata.walker")

_CHAIN_TURN = 8
"""A worker taking nodes without waiting for them lets the other tasks run every this many."""


class Walker(Generic[N]):
    def __init__(self, graph: Graph[N], parallelism: int = 10, fail_fast: bool = False) -> None:
        if parallelism < 1:
            raise ValueError(f"parallelism must be at least 1, not {parallelism}")
        self.graph = graph
        self.parallelism = parallelism
        self.fail_fast = fail_fast
        self.failed: set[N] = set()
        self.skipped: dict[N, object] = {}  # skipped node -> the failed node (or the stop) that caused it
        self.stopped_early: set[N] = set()  # skipped by a stop (fail-fast, an interrupt), not by a failed dependency
        self.completed: set[N] = set()
        self.stop_cause: object = None
        self._stop: Callable[[object], None] = lambda cause: None

    def stop(self, cause: object) -> None:
        """Start nothing more: what is in flight finishes, everything else is skipped (reported to
        ``on_skip`` with ``cause``). Only while :meth:`run` is running; later calls do nothing."""
        self._stop(cause)

    async def run(self, execute: Callable[[N, Done], Awaitable[None]],
                  is_passthrough: Callable[[N], bool] = lambda n: False,
                  on_skip: Callable[[N, object], None] = lambda n, cause: None) -> None:
        """Run every node; ``execute(node, done)`` must call ``done(ok)`` exactly once, now or later.

        Call it as the execution's last act, or after it returned: a node it makes ready may be
        kept for this worker, which takes it only once ``execute`` has returned."""
        g = self.graph
        total = len(g)
        if total == 0:
            return
        remaining = {n: len(d) for n, d in g.deps.items()}
        dependents = g.dependents
        ready: _ReadyQueue[N] = _ReadyQueue()
        finished = 0
        stopping = False

        def is_stopping() -> bool:
            return stopping

        def finish_one() -> None:
            nonlocal finished
            finished += 1
            if finished == total:
                ready.close()

        def stop(cause: object) -> None:
            nonlocal stopping
            if stopping:
                return
            stopping = True
            self.stop_cause = cause
            # ready but not started (queued, or kept for a worker still holding its node): skipped
            # now, so a stop reports everything it skips at once, before what is in flight ends
            waiting = [n for n in kept if n is not None]
            kept[:] = [None] * len(kept)
            while (n := ready.get_nowait()) is not None:
                waiting.append(n)
            for n in waiting:
                self.stopped_early.add(n)
                self.skipped[n] = cause
                on_skip(n, cause)
                finish_one()
            self._skip_not_started(remaining, cause=cause, on_skip=on_skip, finish_one=finish_one)

        self._stop = stop

        def skip_from(cause: N, start: N) -> None:
            stack = [start]
            while stack:
                n = stack.pop()
                for m in dependents[n]:
                    if m in self.skipped or m in self.failed or m in self.completed:
                        continue
                    self.skipped[m] = cause
                    on_skip(m, cause)
                    finish_one()
                    stack.append(m)

        # the node each worker is executing now (by worker), and the node kept for it to run next
        executing: list[N | None] = [None] * self.parallelism
        kept: list[N | None] = [None] * self.parallelism
        # nodes whose execution returned before their done, by the worker waiting for it
        holding: dict[N, int] = {}
        released: list[anyio.Event | None] = [None] * self.parallelism

        def complete(node: N, ok: bool, by: int = -1) -> None:
            # by: the worker whose execution of ``node`` called done (-1: someone else, or later);
            # a node kept for it would jump the queue if others were waiting (which, in wide DAGs
            # with P below a layer's width, made the walk 2-3% longer)
            keep = by >= 0 and executing[by] is node and kept[by] is None and not ready.has_waiting()
            holder = holding.pop(node, None)
            if holder is not None:
                event = released[holder]
                if event is not None:
                    released[holder] = None
                    event.set()
            work = [(node, ok)]
            while work:
                n, good = work.pop()
                if good:
                    self.completed.add(n)
                else:
                    self.failed.add(n)
                    skip_from(n, n)
                    if self.fail_fast:
                        stop(n)
                finish_one()
                if not good:
                    continue
                for m in dependents[n]:
                    r = remaining[m] - 1
                    remaining[m] = r
                    if r == 0 and m not in self.skipped:
                        if is_passthrough(m):
                            work.append((m, True))
                        elif not stopping:
                            if keep:
                                kept[by] = m
                                keep = False
                            else:
                                ready.put(m)

        for n in [n for n, c in remaining.items() if c == 0]:
            if n not in self.completed:
                if is_passthrough(n):
                    complete(n, True)
                else:
                    ready.put(n)

        async def worker(me: int) -> None:
            chained = 0
            while True:
                node = kept[me]
                if node is not None:
                    kept[me] = None
                else:
                    node = ready.get_nowait()
                if node is not None:
                    chained += 1
                    if chained % _CHAIN_TURN == 0:
                        await anyio.lowlevel.checkpoint()
                else:
                    node = await ready.get()
                    if node is None:
                        return
                if is_stopping():
                    self.stopped_early.add(node)
                    self.skipped[node] = self.stop_cause
                    on_skip(node, self.skipped[node])
                    finish_one()
                    continue
                tick()  # the address space's headroom, checked now and then as the walk goes
                done = _once(node, complete, me)
                executing[me] = node
                holding[node] = me
                try:
                    await execute(node, done)
                except MemoryError:
                    raise  # the run ends: the command says so in one line
                except Exception:  # a bug in an executor must not hang the walk
                    with contextlib.suppress(OSError, ValueError):  # stderr closed: still fail the node
                        log.exception("executor crashed", node=str(node))
                    done(False)
                finally:
                    executing[me] = None
                if node in holding:  # done comes later (the state record's fsync): the slot waits
                    event = released[me] = anyio.Event()
                    await event.wait()

        try:
            if finished == total:
                return
            async with anyio.create_task_group() as tg:
                for i in range(min(self.parallelism, total)):
                    tg.start_soon(worker, i)
        finally:
            self._stop = lambda cause: None

    def _skip_not_started(self, remaining: dict[N, int], cause: object, on_skip: Callable[[N, object], None],
                          finish_one: Callable[[], None]) -> None:
        # a stop: anything not yet ready will never start
        for m, r in remaining.items():
            if r > 0 and m not in self.skipped and m not in self.failed and m not in self.completed:
                self.skipped[m] = cause
                self.stopped_early.add(m)
                on_skip(m, cause)
                finish_one()


def _once(node: N, complete: Callable[[N, bool, int], None], by: int) -> Done:
    """A ``done`` callback for one node, run by worker ``by``: the first call counts, later calls
    are ignored."""
    called = False

    def done(ok: bool) -> None:
        nonlocal called
        if not called:
            called = True
            complete(node, ok, by)

    return done


class _Waiter(Generic[N]):
    __slots__ = ("event", "node")

    def __init__(self) -> None:
        self.event = anyio.Event()
        self.node: N | None = None


class _ReadyQueue(Generic[N]):
    """The nodes ready to run (never None), handed to idle workers in the order they became ready.

    In place of an anyio memory stream (hot path: once per node): a node that becomes ready
    while a worker is idle goes straight to that worker, with no receiver object and no second
    checkpoint.
    """

    def __init__(self) -> None:
        self._nodes: deque[N] = deque()
        self._idle: deque[_Waiter[N]] = deque()
        self._closed = False

    def put(self, node: N) -> None:
        if self._idle:
            w = self._idle.popleft()
            w.node = node
            w.event.set()
        else:
            self._nodes.append(node)

    def close(self) -> None:
        """No more nodes: every idle worker, and every later :meth:`get`, gets None."""
        self._closed = True
        for w in self._idle:
            w.event.set()
        self._idle.clear()

    def has_waiting(self) -> bool:
        return bool(self._nodes)

    def get_nowait(self) -> N | None:
        return self._nodes.popleft() if self._nodes else None

    async def get(self) -> N | None:
        """The next node, waiting for one; None once the queue is closed and empty."""
        if self._nodes:
            return self._nodes.popleft()
        if self._closed:
            return None
        w: _Waiter[N] = _Waiter()
        self._idle.append(w)
        try:
            await w.event.wait()
        except BaseException:
            # cancelled: a node handed over meanwhile goes to another idle worker, or back to
            # the front of the queue
            if w.node is not None:
                if self._idle:
                    self.put(w.node)
                else:
                    self._nodes.appendleft(w.node)
            elif w in self._idle:
                self._idle.remove(w)
            raise
        return w.node
