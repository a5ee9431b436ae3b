"""In-process subscribers through the documented API (:class:`engine.api.Workspace`): a slow one
never stalls the apply and is told what it missed, which the event log gives back; a hundred
see every event; one that raises is detached while the apply and the others go on. Each test
checks the apply's wall time and that every event reached every subscriber or was announced as
missed."""

from __future__ import annotations

import textwrap
from pathlib import Path

import anyio
import pytest

from engine.api import Lagged, Sequenced, Workspace
from engine.events.log import read_log

N = 30
LATENCY_MS = 40


def _config(tmp_path: Path) -> Workspace:
    (tmp_path / "main.tf").write_text(textwrap.dedent(f"""
        provider "sim" {{
          ledger     = "{tmp_path / 'cloud.jsonl'}"
          latency_ms = {LATENCY_MS}
        }}

        resource "sim_object" "o" {{
          count = {N}
          name  = "obj-${{count.index}}"
        }}
    """))
    return Workspace(str(tmp_path), state=str(tmp_path / "terraform.tfstate"), fsync=False)


def _covers_every_event(items: list[Sequenced | Lagged], last: int) -> None:
    """The events and the lagged ranges cover 1..last, each number once, in order."""
    seen: list[int] = []
    for item in items:
        if isinstance(item, Sequenced):
            seen.append(item.seq)
        else:
            seen.extend(range(item.first, item.last + 1))
    assert seen == list(range(1, last + 1)), "events lost, duplicated or out of order"


SLEEP = 0.2
STALL = N * 3 * SLEEP  # what a subscriber sleeping SLEEP per event would take for the whole stream
# the apply alone: N creates of LATENCY_MS at parallelism 10, in 3 waves, plus planning: well under
# a second; STALL / 3 leaves room for a loaded machine


@pytest.mark.parametrize("backend", ["trio", "asyncio"])
def test_a_subscriber_that_sleeps_never_stalls_the_apply_and_can_resume_from_the_log(
        tmp_path: Path, backend: str) -> None:
    ws = _config(tmp_path)
    log = str(tmp_path / "events.jsonl")
    got: list[Sequenced | Lagged] = []

    async def sleepy(item: Sequenced | Lagged) -> None:
        got.append(item)
        await anyio.sleep(SLEEP)

    async def main() -> None:
        run = ws.apply(events_log=log, drain=STALL)
        run.subscribe(sleepy, buffer=4)
        outcome = await run.result()
        assert outcome.ok and outcome.add == N
        assert outcome.wall < STALL / 3, f"the apply took {outcome.wall:.2f}s: it waited for its subscriber"
        _covers_every_event(got, outcome.events)
        lagged = [i for i in got if isinstance(i, Lagged)]
        assert lagged, "a subscriber SLEEP behind per event with a 4-event buffer was never told it lagged"
        # what it missed is in the event log, by sequence number
        gap = lagged[0]
        missed = [e for e in read_log(log, after=gap.first - 1) if e.seq <= gap.last]
        assert [e.seq for e in missed] == list(range(gap.first, gap.last + 1))

    anyio.run(main, backend=backend)


def test_a_hundred_subscribers_each_see_every_event(tmp_path: Path) -> None:
    ws = _config(tmp_path)
    seen: list[list[int]] = [[] for _ in range(100)]

    def collector(i: int):  # type: ignore[no-untyped-def]
        async def collect(item: Sequenced | Lagged) -> None:
            assert isinstance(item, Sequenced)
            seen[i].append(item.seq)
        return collect

    async def main() -> None:
        run = ws.apply()
        for i in range(100):
            run.subscribe(collector(i), buffer=10_000)
        outcome = await run.result()
        assert outcome.ok and outcome.add == N and not outcome.subscriber_errors
        assert outcome.wall < STALL / 3
        for s in seen:
            assert s == list(range(1, outcome.events + 1))

    anyio.run(main, backend="trio")


def test_a_subscriber_that_raises_is_detached_and_the_apply_goes_on(tmp_path: Path) -> None:
    ws = _config(tmp_path)
    good: list[Sequenced | Lagged] = []
    calls = 0

    async def bad(item: Sequenced | Lagged) -> None:
        nonlocal calls
        calls += 1
        if calls == 3:
            raise RuntimeError("the subscriber's own bug")

    async def ok(item: Sequenced | Lagged) -> None:
        good.append(item)

    async def main() -> None:
        run = ws.apply()
        run.subscribe(bad)
        run.subscribe(ok)
        outcome = await run.result()
        assert outcome.ok and outcome.add == N
        assert outcome.wall < STALL / 3
        assert [str(e) for e in outcome.subscriber_errors] == ["the subscriber's own bug"]
        assert calls == 3, "the failed subscriber was called again"
        _covers_every_event(good, outcome.events)
        assert not any(isinstance(i, Lagged) for i in good)
        assert await ws.addresses() == tuple(f"sim_object.o[{i}]" for i in range(N))

    anyio.run(main, backend="asyncio")


def test_events_iterated_in_the_callers_task(tmp_path: Path) -> None:
    ws = _config(tmp_path)

    async def main() -> None:
        run = ws.apply()
        events = run.events(buffer=100_000)
        types: list[str] = []

        async def watch() -> None:
            async for item in events:
                assert isinstance(item, Sequenced)
                types.append(item.event.type)

        async with anyio.create_task_group() as tg:
            tg.start_soon(watch)
            outcome = await run.result()
        assert outcome.ok
        assert types.count("apply_complete") == N and types[-1] == "change_summary"
        with pytest.raises(RuntimeError, match="before the run starts"):
            run.events()

    anyio.run(main, backend="trio")
