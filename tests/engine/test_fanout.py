"""engine/events/fanout.py in process: the relay takes the outputs' place as soon as it runs, even
while the event loop does not run (a large plan emits its events without a checkpoint), and the
lines are those each output writes itself."""

from __future__ import annotations

import time
from pathlib import Path

import anyio
import orjson
import pytest

from engine.events import stream as ev
from engine.events.fanout import Fanout
from engine.events.log import EventLog, log_line

pytestmark = pytest.mark.anyio


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def _event(i: int) -> ev.Event:
    return ev.Event("planned_change", f"x[{i}]: Plan to create", {"change": {"i": i}}, timestamp=1.5 + i)


async def _run(path: Path, block: bool) -> tuple[Fanout, int | None]:
    """Emit 2,000 events in one go (no checkpoint) once the relay was started; ``block``: wait for it
    to run first without letting the loop run. The sequence number the relay took over at."""
    bus = ev.EventBus()
    log = EventLog(str(path), writer_after=-1)
    taken_at: int | None = None
    try:
        async with log.batching():
            bus.add_recorder(log)
            fanout = Fanout(bus, None, [log])
            async with fanout.running():
                for _ in range(3):  # the fan-out's task runs up to its first wait: the relay is spawned
                    await anyio.sleep(0)
                assert fanout._starting is not None, "the relay should be starting"
                if block:
                    time.sleep(3)  # the relay says it runs meanwhile; the loop does not look
                for i in range(2000):
                    bus.emit(_event(i))
                    if taken_at is None and bus.relay is fanout:
                        taken_at = bus.seq
    finally:
        log.close()
    return fanout, taken_at


async def test_the_relay_takes_over_between_events_while_the_loop_does_not_run(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    fanout, taken_at = await _run(path, block=True)
    # looked at before every 256th event: the relay had the rest of the 2,000
    assert taken_at is not None and taken_at <= 256, taken_at
    assert fanout._seq_from == taken_at - 1
    expected = [log_line(seq, 0.0, _event(seq - 1)) for seq in range(1, 2001)]
    got = path.read_bytes().splitlines(keepends=True)
    assert len(got) == 2000
    for line, want in zip(got, expected, strict=True):  # the same line but for the monotonic time
        a, b = orjson.loads(line), orjson.loads(want)
        a.pop("monotonic")
        b.pop("monotonic")
        assert a == b
    assert [orjson.loads(x)["seq"] for x in got] == list(range(1, 2001))


async def test_without_a_wait_the_outputs_write_their_own_lines_until_the_relay_runs(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    _, taken_at = await _run(path, block=False)
    got = [orjson.loads(x) for x in path.read_bytes().splitlines()]
    assert [e["seq"] for e in got] == list(range(1, 2001))
    assert taken_at is None or taken_at > 1


class _PipeWriter:
    """The relay's end as the fan-out sees it, on a pipe this test reads (non-blocking, small)."""

    def __init__(self) -> None:
        import fcntl
        import os

        self.read, self.pipe = os.pipe()
        os.set_blocking(self.pipe, False)
        fcntl.fcntl(self.pipe, 1031, 4096)  # F_SETPIPE_SZ: one page

    def send(self, buf: bytearray, block: bool) -> bool:
        from engine.events import jsonline

        return jsonline.send(self.pipe, buf, block)


@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_what_the_pipe_does_not_take_waits_in_order(anyio_backend: str) -> None:
    """A batch goes straight into the relay's pipe; what the pipe does not take then waits, and
    goes first, before any later batch."""
    import os

    from engine.events.fanout import _encoded

    fanout = Fanout(ev.EventBus(), None)
    writer = _PipeWriter()
    fanout._writer = writer  # type: ignore[assignment]
    try:
        entries = [(1, i + 1, 0.5, _event(i)[:]) for i in range(200)]
        fanout.batch = list(entries[:100])
        fanout.flush()
        first = os.read(writer.read, 1 << 20)
        assert 0 < len(first) < len(_encoded(entries[:100])), "the pipe should have taken a part"
        fanout.batch = list(entries[100:])
        fanout.flush()  # the rest of the first batch goes first
        got = first
        while fanout._buf or fanout.batch:
            got += os.read(writer.read, 1 << 20)
            fanout.flush()
        got += os.read(writer.read, 1 << 20)
        assert got == _encoded(entries[:100]) + _encoded(entries[100:])
    finally:
        os.close(writer.read)
        os.close(writer.pipe)
