"""``-events=TARGET`` (repeatable): where a run's numbered event stream goes besides its output.

A path is an event log (:class:`engine.events.log.EventLog`); ``nats://HOST:PORT/SUBJECT``
publishes the stream to NATS JetStream (:mod:`engine.events.nats_sink`). Each is a recorder on the
command's event bus, opened before the command runs and closed, everything written, when it ends.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from engine.cli.args import Args, UsageError
from engine.events import stream as ev
from engine.frozen import frozen


@frozen
class EventTargets:
    """The ``-events`` targets opened for a run: its event logs and NATS sinks."""

    logs: tuple[Any, ...] = ()
    nats: tuple[Any, ...] = ()


@contextlib.asynccontextmanager
async def event_targets(a: Args, bus: ev.EventBus) -> AsyncIterator[EventTargets]:
    """The block runs with every ``-events`` target recording ``bus``'s events (given to the block,
    for a fan-out to take their place in a large run: :mod:`engine.events.fanout`)."""
    specs = a.lists.get("events", [])
    if not specs:
        yield EventTargets()
        return
    logs: list[Any] = []
    nats: list[Any] = []
    async with contextlib.AsyncExitStack() as stack:
        for spec in specs:
            if spec.startswith("nats://"):
                from engine.events.nats_sink import NatsSink

                try:
                    sink: Any = NatsSink.from_url(spec)
                except ValueError as exc:
                    raise UsageError(str(exc)) from None
                sink.has_log = any(not s.startswith("nats://") for s in specs)
                nats.append(sink)
            else:
                from engine.events.log import EventLog

                try:
                    # its lines go to the run's relay (engine.events.fanout), not to a writer of its own
                    sink = EventLog(spec, writer_after=-1)
                except OSError as exc:
                    raise UsageError(f"Failed to open the event log\nThe -events file {spec} could not be "
                                     f"opened: {exc.strerror or exc}.") from None
                stack.callback(sink.close)
                logs.append(sink)
            await stack.enter_async_context(sink.batching())
            bus.add_recorder(sink)
        bus.record(ev.Event("log_start", f"strata {ev.STRATA_VERSION} {' '.join(a.command)}",
                            {"command": a.command[:1], "parallelism": _int(a.flags.get("parallelism"), 10),
                             "provider_parallelism": _limits(a.lists.get("provider-parallelism", [])),
                             "type_parallelism": _limits(a.lists.get("type-parallelism", []))}))
        yield EventTargets(tuple(logs), tuple(nats))


def _int(raw: Any, default: int) -> int:
    try:
        return int(raw)
    except (TypeError, ValueError):
        return default


def _limits(pairs: list[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for p in pairs:
        k, _, v = p.rpartition("=")
        with contextlib.suppress(ValueError):
            out[k] = int(v)
    return out
