"""Unit tests of engine/walker.py with fake executors, on both anyio backends.

Coordination is by anyio Events only; ``anyio.fail_after`` turns a deadlock (the
walker not starting what it should) into a test failure instead of a hang.
"""

from __future__ import annotations

from collections.abc import Callable

import anyio
import anyio.lowlevel
import pytest

from engine.graph.dag import Graph
from engine.graph.walker import Walker
from tests.engine.graphs import graph_of

TIMEOUT = 3


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request):
    return request.param


class Recorder:
    """Records the order of start/end events and on_skip calls."""

    def __init__(self) -> None:
        self.events: list[tuple[str, str]] = []
        self.skips: list[tuple[str, str]] = []

    def on_skip(self, node: str, cause: str) -> None:
        self.skips.append((node, cause))

    def started(self) -> list[str]:
        return [n for kind, n in self.events if kind == "start"]

    def pos(self, kind: str, node: str) -> int:
        return self.events.index((kind, node))


async def walk(graph, execute, parallelism=10, fail_fast=False,
               is_passthrough: Callable[[str], bool] = lambda n: False,
               on_skip=lambda n, c: None) -> Walker:
    walker = Walker(graph, parallelism=parallelism, fail_fast=fail_fast)
    with anyio.move_on_after(TIMEOUT) as scope:
        await walker.run(execute, is_passthrough=is_passthrough, on_skip=on_skip)
    if scope.cancelled_caught:
        pytest.fail(f"the walk did not finish within {TIMEOUT}s (deadlock or lost done()): "
                    f"completed={sorted(map(str, walker.completed))} failed={sorted(map(str, walker.failed))} "
                    f"skipped={sorted(map(str, walker.skipped))} of {sorted(map(str, graph.nodes()))}")
    return walker


def simple_executor(rec: Recorder, fail: set[str] = frozenset()):
    async def execute(node, done):
        rec.events.append(("start", node))
        await anyio.sleep(0)
        rec.events.append(("end", node))
        done(node not in fail)

    return execute


# ---------------------------------------------------------------- basics


@pytest.mark.anyio
async def test_empty_graph_returns_without_executing():
    calls = []

    async def execute(node, done):
        calls.append(node)
        done(True)

    await walk(graph_of([], []), execute)
    assert calls == [], f"executed {calls} on an empty graph"


def test_parallelism_below_one_is_rejected():
    with pytest.raises(ValueError, match="parallelism"):
        Walker(graph_of(["a"], []), parallelism=0)


@pytest.mark.anyio
async def test_every_node_runs_once_after_its_dependencies():
    g = graph_of("abcde", [("b", "a"), ("c", "a"), ("d", "b"), ("d", "c"), ("e", "d")])
    rec = Recorder()
    walker = await walk(g, simple_executor(rec), parallelism=3)
    assert sorted(rec.started()) == list("abcde"), f"not every node ran exactly once: {rec.events}"
    for n, deps in g.deps.items():
        for d in deps:
            assert rec.pos("end", d) < rec.pos("start", n), f"{n} started before its dependency {d} ended: {rec.events}"
    assert walker.completed == set("abcde"), f"completed = {walker.completed}"


# ---------------------------------------------------------------- event-driven start


@pytest.mark.anyio
async def test_node_starts_when_its_own_dependencies_finish_not_level_by_level():
    # long chain l1 <- l2 <- l3 and short chain s1 <- s2; l1 is held until s2 has started.
    # A level-by-level walker would wait for l1 before starting s2 and deadlock (timeout).
    g = graph_of(["l1", "l2", "l3", "s1", "s2"], [("l2", "l1"), ("l3", "l2"), ("s2", "s1")])
    rec = Recorder()
    s2_started = anyio.Event()

    async def execute(node, done):
        rec.events.append(("start", node))
        if node == "s2":
            s2_started.set()
        if node == "l1":
            await s2_started.wait()
        await anyio.sleep(0)
        rec.events.append(("end", node))
        done(True)

    await walk(g, execute, parallelism=3)
    assert rec.pos("start", "s2") < rec.pos("end", "l1"), (
        f"s2 did not start before the long chain's first node ended: {rec.events}")


@pytest.mark.anyio
async def test_node_starts_before_unrelated_nodes_of_its_level_finish():
    # b depends on a only; c (a root like a) is held until b has started.
    g = graph_of(["a", "c", "b"], [("b", "a")])
    rec = Recorder()
    b_started = anyio.Event()

    async def execute(node, done):
        rec.events.append(("start", node))
        if node == "b":
            b_started.set()
        if node == "c":
            await b_started.wait()
        rec.events.append(("end", node))
        done(True)

    await walk(g, execute, parallelism=2)
    assert rec.pos("start", "b") < rec.pos("end", "c"), f"b waited for the unrelated node c: {rec.events}"


# ---------------------------------------------------------------- parallelism


@pytest.mark.anyio
@pytest.mark.parametrize("parallelism", [1, 3, 7])
async def test_at_most_parallelism_executions_are_in_flight(parallelism):
    nodes = [f"n{i}" for i in range(20)]
    g = graph_of(nodes, [])
    running = 0
    peak = 0
    full = anyio.Event()

    async def execute(node, done):
        nonlocal running, peak
        running += 1
        peak = max(peak, running)
        if running == parallelism:
            full.set()
        await full.wait()  # hold the first executions until the limit is reached
        for _ in range(3):
            await anyio.sleep(0)
        running -= 1
        done(True)

    await walk(g, execute, parallelism=parallelism)
    assert peak <= parallelism, f"{peak} executions in flight with parallelism {parallelism}"


@pytest.mark.anyio
async def test_parallelism_is_actually_used():
    g = graph_of([f"n{i}" for i in range(6)], [])
    in_flight = 0
    all_in = anyio.Event()

    async def execute(node, done):
        nonlocal in_flight
        in_flight += 1
        if in_flight == 4:
            all_in.set()
        await all_in.wait()  # deadlocks (timeout) unless 4 run at once
        in_flight -= 1
        done(True)

    await walk(g, execute, parallelism=4)


@pytest.mark.anyio
async def test_deferred_done_is_honoured_and_frees_the_worker():
    # parallelism 1: the only worker runs a, whose done comes later (as a state record's fsync
    # does); the worker holds a until then, so b starts only after a completed, and c after a.
    g = graph_of(["a", "b", "c"], [("c", "a")])
    rec = Recorder()
    a_returned = anyio.Event()

    async with anyio.create_task_group() as tg:
        async def execute(node, done):
            rec.events.append(("start", node))
            if node == "a":
                async def later():
                    await a_returned.wait()
                    rec.events.append(("done", "a"))
                    done(True)
                tg.start_soon(later)
                a_returned.set()
            else:
                done(True)

        walker = await walk(g, execute, parallelism=1)
    assert walker.completed == {"a", "b", "c"}, f"completed = {walker.completed}"
    assert rec.events[:2] == [("start", "a"), ("done", "a")], rec.events


@pytest.mark.anyio
async def test_worker_holds_its_node_until_done_even_after_execute_returned():
    # -parallelism counts operations from start to done (terraform's apply_start to
    # apply_complete): at parallelism 2, a third node waits while two have returned undone.
    g = graph_of(["a", "b", "c"], [])
    started: list[str] = []
    dones: dict = {}
    two_started = anyio.Event()

    async with anyio.create_task_group() as tg:
        async def execute(node, done):
            started.append(node)
            dones[node] = done
            if len(started) == 2:
                two_started.set()
            if node == "c":
                done(True)

        async def release():
            await two_started.wait()
            for _ in range(20):  # let the workers run: c must not start while a and b are undone
                await anyio.lowlevel.checkpoint()
            assert started == ["a", "b"], started
            dones["a"](True)
            await anyio.lowlevel.checkpoint()
            dones["b"](True)
        tg.start_soon(release)
        walker = await walk(g, execute, parallelism=2)
    assert walker.completed == {"a", "b", "c"}
    assert started == ["a", "b", "c"]


# ---------------------------------------------------------------- deferred done


@pytest.mark.anyio
async def test_deferred_done_releases_dependents_only_when_called():
    g = graph_of(["a", "b", "c"], [("b", "a")])  # b waits for a; c independent
    rec = Recorder()
    a_returned = anyio.Event()
    pending: list = []

    async def execute(node, done):
        rec.events.append(("start", node))
        if node == "a":
            pending.append(done)  # durability callback later
            a_returned.set()
            return
        done(True)

    async with anyio.create_task_group() as tg:
        async def durability():
            await a_returned.wait()
            for _ in range(20):  # plenty of chances for the walker to (wrongly) start b
                await anyio.sleep(0)
            assert "b" not in rec.started(), f"b started before a's done() was called: {rec.events}"
            rec.events.append(("done", "a"))
            pending[0](True)

        tg.start_soon(durability)
        await walk(g, execute, parallelism=2)
    assert rec.pos("done", "a") < rec.pos("start", "b"), f"b did not wait for a's done(): {rec.events}"


@pytest.mark.anyio
async def test_deferred_done_false_skips_dependents():
    g = graph_of(["a", "b"], [("b", "a")])
    rec = Recorder()

    async with anyio.create_task_group() as tg:
        async def execute(node, done):
            rec.events.append(("start", node))

            async def later():
                await anyio.sleep(0)
                done(False)
            tg.start_soon(later)

        walker = await walk(g, execute, on_skip=rec.on_skip)
    assert rec.started() == ["a"], f"b ran although a failed later: {rec.events}"
    assert rec.skips == [("b", "a")], f"on_skip calls: {rec.skips}"
    assert walker.failed == {"a"}


@pytest.mark.anyio
async def test_second_done_call_is_ignored():
    g = graph_of(["a", "b", "c"], [("c", "a"), ("c", "b")])
    rec = Recorder()
    b_go = anyio.Event()

    async def execute(node, done):
        rec.events.append(("start", node))
        if node == "a":
            done(True)
            done(True)  # must not count twice towards c's two dependencies
            done(False)
        elif node == "b":
            await b_go.wait()
            rec.events.append(("end", "b"))
            done(True)
        else:
            done(True)

    async with anyio.create_task_group() as tg:
        async def release():
            for _ in range(20):
                await anyio.sleep(0)
            b_go.set()
        tg.start_soon(release)
        walker = await walk(g, execute)
    assert rec.pos("end", "b") < rec.pos("start", "c"), f"c started before b ended: {rec.events}"
    assert walker.completed == {"a", "b", "c"} and not walker.failed, (
        f"completed {walker.completed}, failed {walker.failed}")


# ---------------------------------------------------------------- failures


@pytest.mark.anyio
async def test_failed_node_dependents_are_skipped_while_independent_branch_completes():
    # a <- b <- c fails at a; d <- e is independent
    g = graph_of(["a", "b", "c", "d", "e"], [("b", "a"), ("c", "b"), ("e", "d")])
    rec = Recorder()
    walker = await walk(g, simple_executor(rec, fail={"a"}), on_skip=rec.on_skip)
    assert sorted(rec.skips) == [("b", "a"), ("c", "a")], f"on_skip calls: {rec.skips}"
    assert sorted(rec.started()) == ["a", "d", "e"], f"started: {rec.started()}"
    assert walker.failed == {"a"}, f"failed = {walker.failed}"
    assert walker.completed == {"d", "e"}, f"independent branch did not complete: {walker.completed}"
    assert walker.skipped == {"b": "a", "c": "a"}, f"skipped = {walker.skipped}"


@pytest.mark.anyio
async def test_skipped_node_reachable_by_two_paths_is_reported_once():
    g = graph_of("abcd", [("b", "a"), ("c", "a"), ("d", "b"), ("d", "c")])
    rec = Recorder()
    await walk(g, simple_executor(rec, fail={"a"}), on_skip=rec.on_skip)
    assert sorted(rec.skips) == [("b", "a"), ("c", "a"), ("d", "a")], f"on_skip calls: {rec.skips}"


@pytest.mark.anyio
async def test_node_with_a_failed_and_a_successful_dependency_is_skipped():
    g = graph_of(["bad", "good", "both"], [("both", "bad"), ("both", "good")])
    rec = Recorder()
    walker = await walk(g, simple_executor(rec, fail={"bad"}), on_skip=rec.on_skip)
    assert "both" not in rec.started(), f"'both' ran although 'bad' failed: {rec.events}"
    assert rec.skips == [("both", "bad")], f"on_skip calls: {rec.skips}"
    assert walker.completed == {"good"}


@pytest.mark.anyio
async def test_executor_exception_counts_as_failure():
    g = graph_of(["a", "b"], [("b", "a")])
    rec = Recorder()

    async def execute(node, done):
        rec.events.append(("start", node))
        raise RuntimeError("provider bug")

    walker = await walk(g, execute, on_skip=rec.on_skip)
    assert walker.failed == {"a"}, f"failed = {walker.failed}"
    assert rec.skips == [("b", "a")], f"on_skip calls: {rec.skips}"


@pytest.mark.anyio
async def test_executor_exception_is_logged_to_stderr_with_its_traceback(capsys):
    async def execute(node, done):
        raise RuntimeError("provider bug")

    await walk(graph_of(["a"], []), execute)
    err = capsys.readouterr().err
    assert "executor crashed" in err and "node=a" in err and "RuntimeError: provider bug" in err, err


# ---------------------------------------------------------------- passthrough (barrier) nodes


def is_barrier(n: str) -> bool:
    return n.startswith("bar")


@pytest.mark.anyio
async def test_passthrough_nodes_are_never_executed():
    g = graph_of(["a", "bar", "c"], [("bar", "a"), ("c", "bar")])
    rec = Recorder()
    walker = await walk(g, simple_executor(rec), is_passthrough=is_barrier)
    assert rec.started() == ["a", "c"], f"executed: {rec.started()}"
    assert walker.completed == {"a", "bar", "c"}, f"completed = {walker.completed}"


@pytest.mark.anyio
async def test_passthrough_waits_for_all_its_dependencies():
    g = graph_of(["a1", "a2", "bar", "c"], [("bar", "a1"), ("bar", "a2"), ("c", "bar")])
    rec = Recorder()
    a2_go = anyio.Event()

    async def execute(node, done):
        rec.events.append(("start", node))
        if node == "a2":
            await a2_go.wait()
        rec.events.append(("end", node))
        done(True)

    async with anyio.create_task_group() as tg:
        async def release():
            for _ in range(20):
                await anyio.sleep(0)
            a2_go.set()
        tg.start_soon(release)
        await walk(g, execute, is_passthrough=is_barrier)
    assert rec.pos("end", "a1") < rec.pos("start", "c"), f"c ran before a1 ended: {rec.events}"
    assert rec.pos("end", "a2") < rec.pos("start", "c"), f"c ran before a2 ended: {rec.events}"


@pytest.mark.anyio
async def test_chained_passthroughs_release_dependents():
    g = graph_of(["a", "bar1", "bar2", "c"], [("bar1", "a"), ("bar2", "bar1"), ("c", "bar2")])
    rec = Recorder()
    walker = await walk(g, simple_executor(rec), is_passthrough=is_barrier)
    assert rec.started() == ["a", "c"], f"executed: {rec.started()}"
    assert walker.completed == {"a", "bar1", "bar2", "c"}


@pytest.mark.anyio
async def test_graph_of_only_passthroughs_completes():
    g = graph_of(["bar1", "bar2"], [("bar2", "bar1")])
    walker = await walk(g, simple_executor(Recorder()), is_passthrough=is_barrier)
    assert walker.completed == {"bar1", "bar2"}, f"completed = {walker.completed}"


@pytest.mark.anyio
async def test_dependent_of_a_root_passthrough_runs_exactly_once():
    # bar is a root passthrough added before its dependent x
    g = graph_of(["bar", "x"], [("x", "bar")])
    rec = Recorder()
    await walk(g, simple_executor(rec), is_passthrough=is_barrier)
    assert rec.started() == ["x"], f"x should run exactly once, executions: {rec.started()}"


@pytest.mark.anyio
async def test_dependent_of_a_root_passthrough_releases_its_own_dependents_once():
    # y waits for x (behind root passthrough bar) and for the slow z
    g = graph_of(["bar", "x", "z", "y"], [("x", "bar"), ("y", "x"), ("y", "z")])
    rec = Recorder()
    z_go = anyio.Event()

    async def execute(node, done):
        rec.events.append(("start", node))
        if node == "z":
            await z_go.wait()
        rec.events.append(("end", node))
        done(True)

    async with anyio.create_task_group() as tg:
        async def release():
            for _ in range(20):
                await anyio.sleep(0)
            z_go.set()
        tg.start_soon(release)
        await walk(g, execute, is_passthrough=is_barrier)
    assert rec.pos("end", "z") < rec.pos("start", "y"), f"y started before its dependency z ended: {rec.events}"


@pytest.mark.anyio
async def test_failure_is_propagated_through_a_passthrough():
    g = graph_of(["a", "bar", "c"], [("bar", "a"), ("c", "bar")])
    rec = Recorder()
    walker = await walk(g, simple_executor(rec, fail={"a"}), is_passthrough=is_barrier, on_skip=rec.on_skip)
    assert rec.started() == ["a"], f"executed: {rec.started()}"
    assert sorted(rec.skips) == [("bar", "a"), ("c", "a")], f"on_skip calls: {rec.skips}"
    assert walker.completed == set(), f"completed = {walker.completed}"


# ---------------------------------------------------------------- fail_fast


@pytest.mark.anyio
async def test_fail_fast_does_not_start_queued_ready_nodes():
    # parallelism 1: f runs first and fails; the ready roots q1, q2 must never start
    g = graph_of(["f", "q1", "q2"], [])
    rec = Recorder()
    walker = await walk(g, simple_executor(rec, fail={"f"}), parallelism=1, fail_fast=True,
                        on_skip=rec.on_skip)
    assert rec.started() == ["f"], f"nodes started after the failure: {rec.started()}"
    assert sorted(rec.skips) == [("q1", "f"), ("q2", "f")], f"on_skip calls: {rec.skips}"
    assert walker.failed == {"f"}


@pytest.mark.anyio
async def test_fail_fast_does_not_start_dependents_of_nodes_finishing_after_the_failure():
    # f and r run together; f fails while r is in flight; r then succeeds, but its
    # dependent n must not start. Without fail_fast n would run (independent of f).
    g = graph_of(["f", "r", "n", "fd"], [("n", "r"), ("fd", "f")])
    rec = Recorder()
    r_started = anyio.Event()
    f_failed = anyio.Event()

    async def execute(node, done):
        rec.events.append(("start", node))
        if node == "f":
            await r_started.wait()
            done(False)
            f_failed.set()
        elif node == "r":
            r_started.set()
            await f_failed.wait()
            done(True)
        else:
            done(True)

    walker = await walk(g, execute, parallelism=2, fail_fast=True, on_skip=rec.on_skip)
    assert sorted(rec.started()) == ["f", "r"], f"nodes started after the failure: {rec.started()}"
    assert sorted(rec.skips) == [("fd", "f"), ("n", "f")], f"on_skip calls: {rec.skips}"
    assert walker.completed == {"r"}, f"the in-flight node did not complete: {walker.completed}"


@pytest.mark.anyio
async def test_without_fail_fast_independent_nodes_keep_starting():
    g = graph_of(["f", "q1", "q2"], [])
    rec = Recorder()
    walker = await walk(g, simple_executor(rec, fail={"f"}), parallelism=1, on_skip=rec.on_skip)
    assert rec.started() == ["f", "q1", "q2"], f"started: {rec.started()}"
    assert rec.skips == [], f"on_skip calls: {rec.skips}"
    assert walker.completed == {"q1", "q2"}


# --------------------------------------------------------------------------- the ready queue

@pytest.mark.anyio
async def test_ready_queue_hands_each_node_to_one_idle_worker_and_queues_the_rest():
    from engine.graph.walker import _ReadyQueue

    q: _ReadyQueue[str] = _ReadyQueue()
    got: list[tuple[int, str | None]] = []

    async def worker(i: int) -> None:
        got.append((i, await q.get()))

    with anyio.fail_after(TIMEOUT):
        async with anyio.create_task_group() as tg:
            for i in range(2):
                tg.start_soon(worker, i)
            await anyio.wait_all_tasks_blocked()
            q.put("a")
            q.put("b")
            q.put("c")  # no idle worker left: waits in the queue
    assert sorted(n for _, n in got) == ["a", "b"] and {i for i, _ in got} == {0, 1}
    assert q.get_nowait() == "c" and q.get_nowait() is None


@pytest.mark.anyio
async def test_ready_queue_close_releases_idle_workers_and_later_gets():
    from engine.graph.walker import _ReadyQueue

    q: _ReadyQueue[str] = _ReadyQueue()
    got: list[str | None] = []

    async def worker() -> None:
        got.append(await q.get())

    with anyio.fail_after(TIMEOUT):
        async with anyio.create_task_group() as tg:
            tg.start_soon(worker)
            await anyio.wait_all_tasks_blocked()
            q.close()
        assert got == [None] and await q.get() is None


@pytest.mark.anyio
async def test_ready_queue_passes_over_a_worker_cancelled_while_idle():
    from engine.graph.walker import _ReadyQueue

    q: _ReadyQueue[str] = _ReadyQueue()
    with anyio.fail_after(TIMEOUT):
        async with anyio.create_task_group() as tg:
            tg.start_soon(q.get)
            await anyio.wait_all_tasks_blocked()
            tg.cancel_scope.cancel()  # idle when cancelled: it must not be handed anything later
        q.put("a")
        assert await q.get() == "a"


@pytest.mark.anyio
async def test_workers_give_others_a_turn_between_operations_that_never_suspend():
    # a provider whose apply returns without awaiting anything must not let one worker run the
    # whole walk in one go: the state writer and the event flusher would wait until the end
    w, seen = await completed_before_another_task_ran(graph_of([f"n{i}" for i in range(50)], []), 1)
    assert seen and seen[0] < 50, f"the walk ran {seen} of 50 operations before anything else got a turn"


async def completed_before_another_task_ran(g: Graph[str], parallelism: int) -> tuple[Walker[str], list[int]]:
    """Walk ``g`` with operations that never suspend; returns the walker and how many of them had
    completed when another task first got a turn."""
    w: Walker[str] = Walker(g, parallelism=parallelism)
    seen: list[int] = []

    async def execute(node: str, done: Callable[[bool], None]) -> None:
        done(True)

    async def observer() -> None:
        while not w.completed:
            await anyio.lowlevel.checkpoint()
        seen.append(len(w.completed))

    with anyio.fail_after(TIMEOUT):
        async with anyio.create_task_group() as tg:
            tg.start_soon(w.run, execute)
            tg.start_soon(observer)
    return w, seen


def test_ready_queue_a_node_handed_to_a_cancelled_worker_goes_to_another_idle_worker():
    # asyncio can cancel a task after its wait has been satisfied but before it runs again:
    # Task.cancel() right after put() does exactly that, deterministically
    import asyncio

    from engine.graph.walker import _ReadyQueue

    async def main() -> tuple[list[str | None], bool]:
        q: _ReadyQueue[str] = _ReadyQueue()
        a = asyncio.ensure_future(q.get())
        b = asyncio.ensure_future(q.get())
        await asyncio.sleep(0)  # both idle, "a" first
        q.put("x")  # handed to "a" ...
        a.cancel()  # ... cancelled before it runs: "x" must go to "b"
        got = await asyncio.wait_for(b, TIMEOUT)
        return [got], a.cancelled()

    got, a_cancelled = asyncio.run(main())
    assert a_cancelled and got == ["x"]


@pytest.mark.anyio
async def test_stop_lets_what_is_in_flight_finish_and_skips_everything_else():
    # a -> b, and c, d independent; one worker: a runs, the stop comes while it is in flight
    g = graph_of(["a", "b", "c", "d"], [("b", "a")])
    w: Walker[str] = Walker(g, parallelism=1)
    ran: list[str] = []
    skips: list[tuple[str, object]] = []

    async def execute(node: str, done: Callable[[bool], None]) -> None:
        ran.append(node)
        w.stop("interrupt")
        await anyio.sleep(0)
        done(True)

    with anyio.fail_after(TIMEOUT):
        await w.run(execute, on_skip=lambda n, cause: skips.append((n, cause)))
    assert len(ran) == 1 and ran[0] in w.completed
    assert sorted(n for n, _ in skips) == sorted({"a", "b", "c", "d"} - set(ran))
    assert all(cause == "interrupt" for _, cause in skips) and w.stop_cause == "interrupt"
    w.stop("later")  # after the walk: nothing happens
    assert w.stop_cause == "interrupt"


@pytest.mark.anyio
async def test_a_node_made_ready_by_its_dependency_runs_on_the_same_worker_next():
    # along a chain, the worker that completes a link runs the next one itself: no trip through
    # the run queue to wake another worker per link
    chain = [f"c{i}" for i in range(6)]
    g = graph_of(chain, list(zip(chain[1:], chain[:-1], strict=False)))
    ran_by: dict[str, object] = {}

    async def execute(node: str, done: Callable[[bool], None]) -> None:
        await anyio.sleep(0)
        ran_by[node] = anyio.get_current_task().id
        done(True)

    await walk(g, execute, parallelism=4)
    assert len(set(ran_by.values())) == 1, f"the chain hopped between workers: {ran_by}"


@pytest.mark.anyio
async def test_a_chain_of_operations_that_never_suspend_still_gives_others_a_turn():
    chain = [f"c{i}" for i in range(50)]
    g = graph_of(chain, list(zip(chain[1:], chain[:-1], strict=False)))
    w, seen = await completed_before_another_task_ran(g, 2)
    assert w.completed == set(chain)
    assert seen and seen[0] < 50, f"the chain ran {seen} of 50 operations before anything else got a turn"


@pytest.mark.anyio
async def test_a_done_called_later_hands_the_dependent_to_any_idle_worker():
    # done called after execute returned (the worker has moved on): the dependent is not kept for
    # the worker that ran the node, nor for the one calling done, which may be busy for long,
    # but goes to an idle one
    g = graph_of(["a", "slow", "b"], [("b", "a")])
    later: list[Callable[[bool], None]] = []
    a_returned = anyio.Event()
    b_ran = anyio.Event()

    async def execute(node: str, done: Callable[[bool], None]) -> None:
        if node == "a":
            later.append(done)
            a_returned.set()
            return
        if node == "slow":
            await a_returned.wait()
            await anyio.sleep(0.01)  # "a" has returned; its worker waits for work
            later[0](True)
            await b_ran.wait()  # b must run elsewhere while this worker is busy
        if node == "b":
            b_ran.set()
        done(True)

    w = await walk(g, execute, parallelism=2)
    assert w.completed == {"a", "slow", "b"}


@pytest.mark.anyio
async def test_a_node_made_ready_by_its_dependency_does_not_jump_the_queue():
    # older ready nodes go first: a newly ready dependent is not kept for its dependency's worker
    # while others wait
    g = graph_of(["a", "x1", "x2", "b"], [("b", "a")])
    order: list[str] = []

    async def execute(node: str, done: Callable[[bool], None]) -> None:
        order.append(node)
        await anyio.sleep(0)
        done(True)

    await walk(g, execute, parallelism=1)
    assert order == ["a", "x1", "x2", "b"]
