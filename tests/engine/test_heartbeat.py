"""terraform's heartbeat (engine/events/heartbeat.py) and the human lines of an operation
(engine/render/text.py's HumanLines), decided by a clock's readings: no waiting."""

from __future__ import annotations

import pytest

from engine.addrs import parse_instance_addr
from engine.events import stream as ev
from engine.events.heartbeat import Heartbeats
from engine.render.text import HumanLines

A = parse_instance_addr("sim_object.a")


class Clock:
    def __init__(self) -> None:
        self.now = 100.3

    def __call__(self) -> float:
        return self.now


def started(action: str = "create", id_value: str | None = None) -> tuple[Heartbeats, Clock]:
    clock = Clock()
    beats = Heartbeats(lambda e: None, clock=clock)
    beats(ev.apply_start(A, action, "id" if id_value else None, id_value))
    return beats, clock


def messages(beats: Heartbeats, at: float) -> list[str]:
    return [e.message for e in beats.due(at)]


def test_an_operation_shorter_than_ten_seconds_has_no_heartbeat() -> None:
    beats, clock = started()
    assert messages(beats, clock.now + 9.9) == []
    beats(ev.apply_complete(A, "create", 9.9))
    assert beats.next_due() is None and messages(beats, clock.now + 30) == []


def test_a_heartbeat_every_ten_seconds_in_gos_duration_format() -> None:
    beats, clock = started()
    t0 = clock.now
    got = [m for k in range(1, 8) for m in messages(beats, t0 + 10 * k)]
    assert got == [f"sim_object.a: Still creating... [{s} elapsed]"
                   for s in ("10s", "20s", "30s", "40s", "50s", "1m0s", "1m10s")]


def test_the_next_heartbeat_is_ten_seconds_after_the_last() -> None:
    beats, clock = started("update")
    assert messages(beats, clock.now + 12) == ["sim_object.a: Still modifying... [12s elapsed]"]
    assert messages(beats, clock.now + 21.9) == []
    assert beats.next_due() == clock.now + 22


@pytest.mark.parametrize(("action", "verb"), [("delete", "Still destroying..."), ("read", "Still refreshing...")])
def test_each_action_has_terraforms_json_verb(action: str, verb: str) -> None:
    beats, clock = started(action)
    (e,) = beats.due(clock.now + 10)
    assert e.message == f"sim_object.a: {verb} [10s elapsed]"
    assert e.payload["hook"] == {"resource": ev.resource_json(A), "action": action, "elapsed_seconds": 10}


@pytest.mark.parametrize(("seconds", "text"), [(0, "0s"), (59.9, "59s"), (60, "1m0s"), (3723, "1h2m3s")])
def test_elapsed_time_is_printed_as_go_prints_a_duration(seconds: float, text: str) -> None:
    assert ev.go_duration(seconds) == text


def test_a_human_heartbeat_names_the_object_as_terraform_does() -> None:
    lines = HumanLines()
    lines.line(ev.apply_start(A, "delete", "id", "sim-1"))
    assert lines.line(ev.apply_progress(A, "delete", 70)) == "sim_object.a: Still destroying... [id=sim-1, 1m10s elapsed]"
    lines.line(ev.apply_start(A, "create"))
    assert lines.line(ev.apply_progress(A, "create", 10)) == "sim_object.a: Still creating... [10s elapsed]"


def test_a_long_id_is_shortened_in_the_middle() -> None:
    lines = HumanLines()
    lines.line(ev.apply_start(A, "update", "id", "x" * 50 + "y" * 50))
    text = lines.line(ev.apply_progress(A, "update", 10))
    assert text == f"sim_object.a: Still modifying... [id={'x' * 39}...{'y' * 38}, 10s elapsed]"


def test_a_data_source_is_read_in_terraforms_human_words() -> None:
    lines = HumanLines()
    d = parse_instance_addr("data.null_data_source.d")
    assert lines.line(ev.apply_start(d, "read")) == "data.null_data_source.d: Reading..."
    assert lines.line(ev.apply_progress(d, "read", 20)) == "data.null_data_source.d: Still reading... [20s elapsed]"
    assert (lines.line(ev.apply_complete(d, "read", 0.2, "id", "static"))
            == "data.null_data_source.d: Read complete after 0s [id=static]")


def test_a_providers_progress_message_is_not_terraforms_text_but_a_retry_is_said() -> None:
    lines = HumanLines()
    assert lines.line(ev.apply_progress(A, "create", 0, "simulated create latency: 0.9s left")) is None
    retry = ev.apply_progress(A, "create", 0, "retrying after a retryable error (attempt 2 of 4): boom")
    assert lines.line(retry) == retry.message


def test_a_failed_operation_has_no_line_of_its_own() -> None:
    lines = HumanLines()
    lines.line(ev.apply_start(A, "create"))
    assert lines.line(ev.apply_errored(A, "create", 3)) is None


def test_the_bus_gives_a_typed_sink_only_its_types() -> None:
    got: list[str] = []
    bus = ev.EventBus()
    bus.add_sink_for(ev.WATCHED, lambda e: got.append(e.type))
    bus.emit(ev.planned_change(A, "create"))
    bus.emit(ev.apply_start(A, "create"))
    bus.emit(ev.apply_progress(A, "create", 10))
    bus.emit(ev.apply_complete(A, "create", 10))
    assert got == ["apply_start", "apply_complete"]
