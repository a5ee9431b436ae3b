"""What a recorded event log (``-events=FILE``) says about an apply: pure functions of its lines.

* :class:`Operation`: one provider operation, from its ``apply_start`` to its ``apply_complete``
  (or ``apply_errored``), with the times the log's ``detail`` gives (ready, wait, run) and its
  dependencies;
* the **critical path**: the chain of operations that decided the wall time. It ends at the
  operation that ended last; each step back is the dependency whose end made the operation
  ready (``detail.after``), until one that was ready from the start. Every second of the walk is
  on it, as a wait (for a slot: the parallelism limit) or a run;
* **parallelism** over time (operations in flight, started and not yet durable), against the
  ``-parallelism`` limit the log's ``log_start`` records, and per provider;
* latency percentiles per resource type; retries and errors.

Times are seconds since the walk began (:attr:`Analysis.t0`, on the monotonic clock).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import field

from engine.events.log import LoggedEvent, read_log
from engine.frozen import frozen


@frozen
class Operation:
    """One provider operation. ``ready``, ``start`` and ``end`` are seconds since the walk began:
    ready (its dependencies ended), started (its provider call began), ended (durable, or failed)."""

    node: str
    address: str
    action: str
    resource_type: str
    provider: str
    ready: float
    start: float
    end: float
    deps: tuple[str, ...]
    after: str | None
    ok: bool
    retries: int = 0
    call: float = 0.0
    """Seconds of the provider's call (its concurrency slot held); the rest of ``run`` is the
    wait for the state to make the result durable, slot free."""

    @property
    def call_end(self) -> float:
        return self.start + self.call

    @property
    def wait(self) -> float:
        return self.start - self.ready

    @property
    def run(self) -> float:
        return self.end - self.start


@frozen
class Step:
    """A point of a step function: from ``t`` on, ``value`` operations were in flight."""

    t: float
    value: int


@frozen
class Latency:
    resource_type: str
    count: int
    p50: float
    p90: float
    p99: float
    max: float


@frozen
class Problem:
    """A retry or an error: ``kind`` is ``retry`` or ``error``; ``address`` may be empty (an
    error about no resource)."""

    kind: str
    address: str
    message: str
    at: float


@frozen
class Analysis:
    operations: tuple[Operation, ...]
    """In the order they started."""
    critical_path: tuple[Operation, ...]
    """From the first operation of the chain to the last that ended."""
    wall: float
    """From the walk's start to the last operation's end."""
    limit: int | None
    """``-parallelism``, as the log records it."""
    parallelism: tuple[Step, ...]
    by_provider: dict[str, tuple[Step, ...]] = field(default_factory=dict)
    provider_limits: dict[str, int] = field(default_factory=dict)
    latencies: tuple[Latency, ...] = ()
    problems: tuple[Problem, ...] = ()
    t0: float = 0.0
    events: int = 0

    @property
    def peak(self) -> int:
        return max((s.value for s in self.parallelism), default=0)

    def mean_parallelism(self) -> float:
        """Operations in flight on average over the walk (the area under the step function)."""
        if self.wall <= 0:
            return 0.0
        return sum(o.call for o in self.operations) / self.wall


_ENDS = frozenset({"apply_complete", "apply_errored"})


def analyse_file(path: str) -> Analysis:
    return analyse(read_log(path))


def analyse(events: Iterable[LoggedEvent]) -> Analysis:
    """The analysis of a log's events (those of apply operations need their ``detail``: a log
    written by ``-events=FILE``)."""
    starts: dict[str, tuple[LoggedEvent, dict[str, object]]] = {}
    ops: list[Operation] = []
    retries: dict[str, int] = defaultdict(int)
    problems: list[Problem] = []
    limit: int | None = None
    provider_limits: dict[str, int] = {}
    t0: float | None = None
    count = 0
    pending_errors: list[tuple[str, str, float]] = []
    for e in events:
        count += 1
        t = e.type
        d = e.detail
        if t == "log_start":
            raw = e.line.get("parallelism")
            limit = raw if isinstance(raw, int) else None
            pl = e.line.get("provider_parallelism")
            if isinstance(pl, dict):
                provider_limits = {str(k): int(v) for k, v in pl.items() if isinstance(v, int)}
        elif t == "apply_start" and d is not None:
            node = str(d["node"])
            starts[node] = (e, d)
            if t0 is None:
                t0 = e.monotonic - float(d.get("wait", 0.0)) - float(d.get("ready", 0.0))
        elif t in _ENDS and d is not None:
            node = str(d["node"])
            begun = starts.pop(node, None)
            if begun is None:
                continue
            s, sd = begun
            hook = e.line.get("hook", {})
            res = hook.get("resource", {}) if isinstance(hook, dict) else {}
            # the executor's own clock readings, relative to the walk's start: not the moments
            # the events were emitted, which come a little later
            ready = float(sd.get("ready", 0.0))  # type: ignore[arg-type]
            start = ready + float(sd.get("wait", 0.0))  # type: ignore[arg-type]
            run = float(d.get("run", e.monotonic - s.monotonic))
            ops.append(Operation(
                node=node, address=str(res.get("addr", "")), action=str(hook.get("action", "")),
                resource_type=str(res.get("resource_type", "")), provider=str(sd.get("provider", "")),
                ready=ready, start=start, end=start + run,
                deps=tuple(str(x) for x in sd.get("deps", ()) or ()),  # type: ignore[attr-defined]
                after=None if sd.get("after") is None else str(sd.get("after")), ok=t == "apply_complete",
                retries=retries.get(node, 0), call=float(d.get("call", run))))
        elif t == "apply_progress" and d is not None and "retry" in d:
            retries[str(d["node"])] += 1
            hook = e.line.get("hook", {})
            addr = str(hook.get("resource", {}).get("addr", "")) if isinstance(hook, dict) else ""
            problems.append(Problem("retry", addr, str(e.line.get("@message", "")), e.monotonic))
        elif t == "diagnostic" and e.line.get("@level") == "error":
            diag = e.line.get("diagnostic", {})
            addr = str(diag.get("address", "")) if isinstance(diag, dict) else ""
            summary = str(diag.get("summary", "")) if isinstance(diag, dict) else ""
            pending_errors.append((addr, summary, e.monotonic))
    base = t0 if t0 is not None else 0.0
    ops.sort(key=lambda o: (o.start, o.node))
    problems = [Problem(p.kind, p.address, p.message, p.at - base) for p in problems]
    problems += [Problem("error", a, m, at - base) for a, m, at in pending_errors]
    problems.sort(key=lambda p: p.at)
    wall = max((o.end for o in ops), default=0.0)
    return Analysis(tuple(ops), critical_path(ops), wall, limit, _in_flight(ops),
                    {p: _in_flight([o for o in ops if o.provider == p]) for p in sorted({o.provider for o in ops})},
                    provider_limits, latencies(ops), tuple(problems), base, count)


def critical_path(ops: list[Operation]) -> tuple[Operation, ...]:
    """The chain of operations that decided the wall time (see the module's docstring)."""
    if not ops:
        return ()
    by_node = {o.node: o for o in ops}
    last = max(ops, key=lambda o: (o.end, o.node))
    chain = [last]
    seen = {last.node}
    while chain[-1].after is not None:
        prev = by_node.get(chain[-1].after)
        if prev is None or prev.node in seen:
            break
        seen.add(prev.node)
        chain.append(prev)
    return tuple(reversed(chain))


def _in_flight(ops: list[Operation]) -> tuple[Step, ...]:
    """Operations in flight over time, as the parallelism limits count them (a slot is held for
    the provider's call): a step at each start (+1) and call's end (-1)."""
    deltas: list[tuple[float, int]] = [(o.start, 1) for o in ops] + [(o.call_end, -1) for o in ops]
    deltas.sort(key=lambda d: (d[0], d[1]))  # an end before a start at the same instant
    steps: list[Step] = [Step(0.0, 0)]
    n = 0
    for t, dv in deltas:
        n += dv
        if steps[-1].t == t:
            steps[-1] = Step(t, n)
        else:
            steps.append(Step(t, n))
    return tuple(steps)


def percentile(sorted_values: list[float], q: float) -> float:
    """The ``q``-th percentile (0..100) by linear interpolation between closest ranks."""
    if not sorted_values:
        return 0.0
    k = (len(sorted_values) - 1) * q / 100
    lo = int(k)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (k - lo)


def latencies(ops: list[Operation]) -> tuple[Latency, ...]:
    """Run-time percentiles per resource type."""
    runs: dict[str, list[float]] = defaultdict(list)
    for o in ops:
        runs[o.resource_type].append(o.run)
    out = []
    for rtype, vals in sorted(runs.items()):
        vals.sort()
        out.append(Latency(rtype, len(vals), percentile(vals, 50), percentile(vals, 90), percentile(vals, 99),
                           vals[-1]))
    return tuple(out)


def in_flight_at(steps: tuple[Step, ...], t: float) -> int:
    """The step function's value at ``t``."""
    value = 0
    for s in steps:
        if s.t > t:
            break
        value = s.value
    return value


def chart_rows(a: Analysis, max_rows: int) -> tuple[list[Operation], bool]:
    """The operations a chart shows, in the order they started: all of them, or, past
    ``max_rows``, the critical path and the slowest others (True: some were left out)."""
    if len(a.operations) <= max_rows:
        return list(a.operations), False
    keep = {o.node for o in a.critical_path}
    for o in sorted(a.operations, key=lambda o: (-o.run, o.node)):
        if len(keep) >= max_rows:
            break
        keep.add(o.node)
    return [o for o in a.operations if o.node in keep], True
