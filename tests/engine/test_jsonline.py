"""engine/jsonline.py and the sink's writer process: a large run's -json lines are formatted and
written by a second process, byte for byte as strata itself would write them, in order, all of
them by the end of the batch; a failed output is reported as the sink reports it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from engine.events import json_sink, jsonline, writing
from engine.events import stream as ev
from tests.engine.test_events import _every_kind_of_event

HUGE = ev.Event("x", "big", {"n": 2**70}, timestamp=1.5)  # beyond orjson: formatted by strata


def test_the_writer_formats_an_event_array_as_the_sink_formats_the_event() -> None:
    for e in _every_kind_of_event():
        assert jsonline.format_lines(orjson.dumps(e[:]) + b"\n") == jsonline.json_line(e)


def test_a_line_that_is_not_an_array_passes_through() -> None:
    assert jsonline.format_lines(b'{"a":1}\n') == b'{"a":1}\n'


def run_writer(data: bytes, stdout: int | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-P", jsonline.__file__], input=data, timeout=60,
                          stdout=stdout if stdout is not None else subprocess.PIPE, stderr=subprocess.PIPE)


def test_the_writer_process_writes_every_line_in_order_when_its_input_ends() -> None:
    events = _every_kind_of_event() * 2000
    data = b"".join(orjson.dumps(e[:], option=orjson.OPT_APPEND_NEWLINE) for e in events)
    res = run_writer(data + b'{"passed":"through"}\n')
    assert res.returncode == 0, res.stderr
    assert res.stdout == b"".join(jsonline.json_line(e) for e in events) + b'{"passed":"through"}\n'


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_the_writer_says_once_why_its_output_failed_and_exits_with_its_status() -> None:
    with open("/dev/full", "wb") as full:
        res = run_writer(orjson.dumps(ev.Event("x", "m")[:]) + b"\n", stdout=full.fileno())
    assert res.returncode == jsonline.OUTPUT_FAILED_STATUS
    assert res.stderr.decode().count("No space left on device") == 1


async def sink_run(stream_path: Path, events: list[ev.Event], writer_after: int) -> tuple[json_sink.JsonSink, bool]:
    with open(stream_path, "wb") as f:
        sink = json_sink.JsonSink(f, writer_after=writer_after)
        async with sink.batching():
            for e in events:
                sink(e)
            had_writer = sink._writer is not None
        sink(ev.Event("after", "the batch", timestamp=3.0))  # written by this process again
    return sink, had_writer


@pytest.mark.trio
@pytest.mark.parametrize("writer_after", [0, 3])
async def test_a_sink_with_a_writer_writes_what_a_sink_without_one_writes(tmp_path: Path,
                                                                          writer_after: int) -> None:
    events = [*_every_kind_of_event(), HUGE] * 50
    with_writer, had = await sink_run(tmp_path / "a", events, writer_after)
    _, had_none = await sink_run(tmp_path / "b", events, -1)
    assert had and not had_none
    assert with_writer._writer is None and not with_writer.closed  # the writer is gone, the sink open
    assert (tmp_path / "a").read_bytes() == (tmp_path / "b").read_bytes()


@pytest.mark.trio
@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
async def test_a_writer_that_could_not_write_fails_the_run_as_the_sink_would(tmp_path: Path) -> None:
    before = len(ev.OUTPUT_FAILED)
    try:
        with open("/dev/full", "wb", buffering=0) as full:
            sink = json_sink.JsonSink(full, writer_after=0)  # every line goes through the writer
            async with sink.batching():
                for e in _every_kind_of_event() * 100:
                    sink(e)
        assert sink.closed and len(ev.OUTPUT_FAILED) == before + 1
    finally:
        del ev.OUTPUT_FAILED[before:]


def test_the_writer_is_started_only_for_this_process_standard_output_unless_asked(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import io

    monkeypatch.setenv("STRATA_JSON_WRITER_AFTER", "7")  # read when the sink is made
    assert json_sink.JsonSink()._writer_after == 7
    assert json_sink.JsonSink(io.BytesIO())._writer_after == -1
    monkeypatch.setenv("STRATA_JSON_WRITER_AFTER", "nonsense")
    assert json_sink.JsonSink()._writer_after == 5000


@pytest.mark.trio
async def test_a_writer_that_cannot_start_leaves_the_stream_to_the_sink(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # an interpreter whose writer exits at once (here: `false`), as one without orjson would
    monkeypatch.setattr(json_sink.sys, "executable", "/bin/false")
    events = [*_every_kind_of_event(), HUGE] * 5
    sink, had = await sink_run(tmp_path / "a", events, 0)
    await sink_run(tmp_path / "b", events, -1)
    assert not had and not sink.closed
    assert (tmp_path / "a").read_bytes() == (tmp_path / "b").read_bytes()


@pytest.mark.trio
async def test_a_writer_whose_reader_is_slow_gets_every_line_in_order(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # the writer's output is a pipe read slowly, so the writer blocks, the sink's pipe to it
    # fills, lines wait in the sink, and past the (here small) backlog the sink waits for it
    import threading
    import time

    monkeypatch.setattr(json_sink, "_PIPE_BACKLOG", 2 << 20)
    events = [*_every_kind_of_event(), HUGE] * 2500  # ~6 MB of lines
    r, w = os.pipe()
    got = bytearray()

    def slow_reader() -> None:
        while chunk := os.read(r, 1 << 16):
            got.extend(chunk)
            time.sleep(0.001)

    reader = threading.Thread(target=slow_reader)
    reader.start()
    try:
        with open(w, "wb", buffering=0, closefd=True) as out:
            sink = json_sink.JsonSink(out, writer_after=0)
            async with sink.batching():
                for e in events:
                    sink(e)
                waited = len(sink._buf) > 0 or sink._flush_at > (1 << 20)
                assert sink._writer is not None
    finally:
        reader.join(timeout=60)
        os.close(r)
    assert waited, "the writer's pipe never filled: this test did not test what it says"
    assert bytes(got) == b"".join(json_sink._line_here(e) for e in events)


@pytest.mark.trio
async def test_the_sinks_hand_over_is_protected_from_keyboard_interrupt_under_trio() -> None:
    import trio

    @writing._ki_protected
    def inside() -> bool:
        return trio.lowlevel.currently_ki_protected()

    assert inside() and not trio.lowlevel.currently_ki_protected()
    for name in ("flush", "_start_writer", "_stop_writer"):
        assert getattr(json_sink.JsonSink, name).__wrapped__ is not None  # decorated


def test_importing_the_events_does_not_import_trio() -> None:
    # the asyncio backend must not pay for trio's import at start-up
    code = "import sys, engine.events; print('trio' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parents[2]).stdout.strip()
    assert out == "False"


def _niceness(pid: int) -> int:
    return os.getpriority(os.PRIO_PROCESS, pid)


def test_the_writer_runs_at_a_lower_cpu_priority_than_strata() -> None:
    with open(os.devnull, "wb") as out:
        writer = jsonline.Writer.start(out.fileno())
        assert writer is not None
        try:
            own = _niceness(0)
            assert _niceness(writer.process.pid) == min(19, own + jsonline.HELPER_NICENESS)
        finally:
            assert writer.stop() == 0
