"""The NATS sink's two ends without a broker: the event encoded once for every recorder that sends
it, the publisher's messages (whole log lines, their sequence numbers in the header, bounded in
size), and the sink's one line when its publisher cannot run."""

from __future__ import annotations

import os
import subprocess
from typing import Any

import anyio
import orjson
import pytest

from engine.events import json_sink, jsonline, log, nats_publisher, nats_sink
from engine.events import stream as ev
from engine.events.log import log_line, wire_line

HUGE = ev.Event("x", "big", {"n": 2**70}, timestamp=1.5)  # beyond orjson: formatted by strata


def _event(i: int) -> ev.Event:
    return ev.Event("apply_start", f"x[{i}]: Creating...", {"hook": {"n": i}}, timestamp=1700000000.25,
                    detail=("x", "p", [], None, 0.5, 0.25))


def test_an_event_is_encoded_once_for_every_recorder() -> None:
    e = _event(1)
    assert wire_line(7, 2.5, e) is wire_line(7, 2.5, e)
    assert wire_line(8, 2.5, e) == orjson.dumps([8, 2.5, *e[:5], list(e[5])], option=orjson.OPT_APPEND_NEWLINE)
    assert wire_line(9, 2.5, _event(1)) != wire_line(9, 2.5, _event(2))


def test_an_event_the_json_stream_encoded_is_not_encoded_again_for_the_log(monkeypatch: pytest.MonkeyPatch) -> None:
    e = _event(3)
    expected = wire_line(11, 2.5, e)
    monkeypatch.setattr(json_sink, "LAST_ARRAY", [e, orjson.dumps(e[:5], option=orjson.OPT_APPEND_NEWLINE)])
    monkeypatch.setattr(log, "LAST_ARRAY", json_sink.LAST_ARRAY)
    assert wire_line(12, 2.5, e) == expected.replace(b"[11,", b"[12,", 1)


def test_an_event_orjson_cannot_encode_travels_as_its_formatted_line() -> None:
    assert wire_line(3, 1.0, HUGE) == log_line(3, 1.0, HUGE)


def test_messages_hold_whole_log_lines_and_name_their_sequence_numbers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(nats_publisher, "BATCH", 2000)
    events = [(seq, 0.5 * seq, _event(seq)) for seq in range(1, 40)] + [(40, 20.0, HUGE)]
    data = b"".join(wire_line(*x) for x in events)
    messages = nats_publisher.batches(data)
    assert len(messages) > 1
    assert all(len(m) <= 2000 for _, _, m in messages)
    assert b"".join(m for _, _, m in messages) == b"".join(log_line(*x) for x in events)
    for first, last, m in messages:
        assert [orjson.loads(x)["seq"] for x in m.splitlines()] == list(range(first, last + 1))


def test_formatted_lines_are_cut_into_the_same_messages_without_a_look_at_each(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # the relay's lines, formatted already: cut where the loop over lines would cut them
    monkeypatch.setattr(nats_publisher, "BATCH", 2000)
    events = [(seq, 0.5 * seq, _event(seq)) for seq in range(1, 40)]
    data = b"".join(log_line(*x) for x in events)
    data += log_line(40, 20.0, ev.Event("x", "m" * 3000, {}, timestamp=1.5))  # longer than a message
    data += log_line(41, 20.5, _event(41))
    messages = nats_publisher.batches(data)
    assert messages[-2][:2] == (40, 40) and messages[-1][:2] == (41, 41)
    monkeypatch.setattr(nats_publisher, "_SEQ", b"never")  # the loop over lines
    assert nats_publisher.batches(data) == messages


def test_a_publisher_that_cannot_start_drops_everything_and_says_so_once(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    def no_process(*args: Any, **kwargs: Any) -> Any:
        raise OSError(24, "Too many open files")

    monkeypatch.setattr(subprocess, "Popen", no_process)
    sink = nats_sink.NatsSink(nats_sink.NatsTarget.parse("nats://127.0.0.1:1/s"))

    async def run() -> None:
        async with sink.batching():
            for seq in range(1, 6):
                sink(seq, 0.0, _event(seq))

    anyio.run(run)
    err = capsys.readouterr().err.splitlines()
    assert err == ["strata: NATS nats://127.0.0.1:1/s: dropped 5 of 5 events, from seq 1: its publisher could "
                   "not start (Too many open files); the run went on."]


def test_the_report_names_the_first_gap(capsys: pytest.CaptureFixture[str]) -> None:
    sink = nats_sink.NatsSink(nats_sink.NatsTarget.parse("nats://127.0.0.1:1/s"))
    sink.recorded, sink.first_seq, sink.confirmed, sink.failure = 10, 1, [(4, 6), (1, 3), (8, 10)], "why"
    sink._report()
    assert "dropped 1 of 10 events, from seq 7: why;" in capsys.readouterr().err


def test_the_publisher_runs_at_a_lower_cpu_priority_than_strata() -> None:
    sink = nats_sink.NatsSink(nats_sink.NatsTarget.parse("nats://127.0.0.1:1/s"))
    sink._start()
    proc = sink._process
    assert proc is not None
    try:
        own = os.getpriority(os.PRIO_PROCESS, 0)
        assert os.getpriority(os.PRIO_PROCESS, proc.pid) == min(19, own + jsonline.HELPER_NICENESS)
    finally:
        proc.kill()
        proc.wait()
        os.close(sink._pipe)
