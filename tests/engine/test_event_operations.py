"""EventBus.operation: an apply operation's start and end. While the relay formats every output
and nothing in strata's process reads those events, the bus hands the relay their parts, not an
Event (the relay words them: tests/engine/test_relay.py checks its lines are the Event's); any
reader of them (a sink, a recorder, a capture, a typed sink) gets the Event itself."""

from __future__ import annotations

from typing import Any

from engine.addrs import parse_instance_addr
from engine.events import stream as ev
from engine.events.heartbeat import Heartbeats

A = parse_instance_addr("terraform_data.x[3]")
DETAIL = ("terraform_data.x[3] (create)", 'provider["p"]', [], None, 0.0, 0.0)


class FakeRelay:
    def __init__(self) -> None:
        self.batch: list[tuple[Any, ...]] = []
        self.told: list[str] = []

    def add(self, seq: int, t: float, event: ev.Event, flags: int) -> None:
        self.batch.append((flags, seq, t, event[:]))

    def added(self, type_: str) -> None:
        self.told.append(type_)


def _relayed() -> tuple[ev.EventBus, FakeRelay]:
    bus = ev.EventBus()
    relay = FakeRelay()
    bus.relay = relay
    return bus, relay


def test_with_nothing_reading_them_the_relay_gets_the_operations_parts() -> None:
    bus, relay = _relayed()
    beats = Heartbeats(lambda e: None)
    bus.add_watcher(beats)
    bus.operation(False, A, "update", 0.0, "id", 42, None, DETAIL)
    assert beats.next_due() is not None  # the watcher saw it start
    bus.operation(True, A, "update", 1.5, "id", 42, None, (*DETAIL, 1.0, 0.5))
    assert beats.next_due() is None  # and end
    (start, end) = relay.batch
    assert start[0] == ev.OPERATION_STARTED and end[0] == ev.OPERATION_ENDED
    assert [start[1], end[1]] == [1, 2] and bus.seq == 2  # numbered as the events would be
    resource = ev.resource_json(A)
    assert start[4:] == ("terraform_data.x[3]", resource, "update", 0.0, "id", "42", None, DETAIL)
    assert end[4:] == ("terraform_data.x[3]", resource, "update", 1.5, "id", "42", None, (*DETAIL, 1.0, 0.5))
    assert relay.told == ["apply_start"]  # the first of a batch


def test_whatever_reads_the_events_gets_them_and_the_relay_too() -> None:
    got: list[ev.Event] = []
    cases = {
        "sink": lambda bus: bus.sinks.append(got.append),
        "recorder": lambda bus: bus.add_recorder(lambda seq, t, e: got.append(e)),
        "typed sink": lambda bus: bus.add_sink_for(("apply_complete",), got.append),
    }
    for name, attach in cases.items():
        got.clear()
        bus, relay = _relayed()
        attach(bus)
        bus.operation(False, A, "create", 0.0, None, None, None, None)
        bus.operation(True, A, "create", 0.0, "id", "abc", None, None)
        assert [e.type for e in got][-1] == "apply_complete", name
        assert [entry[0] for entry in relay.batch] == [1, 1], name  # as events
        assert relay.batch[1][3][:3] == ev.apply_complete(A, "create", 0.0, "id", "abc")[:3], name


def test_a_capture_gets_the_events() -> None:
    bus, relay = _relayed()
    with ev.capture_events() as got:
        bus.operation(False, A, "delete", 0.0, "id", "abc", "0a1b", None)
    assert [(e.type, e.message) for e in got] == [
        ("apply_start", "terraform_data.x[3] (deposed object 0a1b): Destroying... [id=abc]")]


def test_a_watcher_alone_does_not_make_the_bus_build_events() -> None:
    bus, relay = _relayed()
    bus.add_watcher(Heartbeats(lambda e: None))
    bus.add_sink_for(("outputs",), lambda e: None)
    bus.operation(False, A, "create", 0.0, None, None, None, None)
    assert relay.batch[0][0] == ev.OPERATION_STARTED


def test_without_a_bus_the_operations_are_events_given_to_the_function() -> None:
    got: list[ev.Event] = []
    op = ev.operations_of(got.append)
    op(False, A, "create", 0.0, None, None, None, None)
    op(True, A, "create", 61.0, "id", "abc", None, None)
    assert [e.message for e in got] == ["terraform_data.x[3]: Creating...",
                                       "terraform_data.x[3]: Creation complete after 1m1s [id=abc]"]
    bus = ev.EventBus()
    assert ev.operations_of(bus.emit) == bus.operation


def test_a_plain_planned_change_goes_to_the_relay_as_its_parts() -> None:
    from engine.plans.plan import Action

    bus, relay = _relayed()
    bus.add_watcher(Heartbeats(lambda e: None))  # reads operations, not planned changes
    bus.planned(A, Action.DELETE_THEN_CREATE, None, None, None, None, "")
    assert relay.batch == [(ev.PLANNED, 1, relay.batch[0][2], relay.batch[0][3], "terraform_data.x[3]",
                            ev.resource_json(A), "replace")]
    assert ev.plain_planned_change(ev.resource_json(A), "replace", 1.0)[:3] == ev.planned_change(
        A, Action.DELETE_THEN_CREATE)[:3]


def test_a_planned_change_with_more_to_say_is_an_event() -> None:
    from engine.plans.plan import Action

    b = parse_instance_addr("terraform_data.y")
    cases = [(Action.DELETE_THEN_CREATE, "replace_because_tainted", None, None, None, ""),
             (Action.DELETE, None, "0a1b", None, None, ""),
             (Action.NOOP, None, None, b, None, ""),
             (Action.NOOP, None, None, None, "abc", ""),
             (Action.CREATE, None, None, None, "abc", 'resource "x" "y" {}')]
    for case in cases:
        bus, relay = _relayed()
        bus.planned(A, *case)
        assert relay.batch[0][0] == 1 and relay.batch[0][3][:3] == ev.planned_change(A, *case)[:3], case
    bus, relay = _relayed()
    got: list[ev.Event] = []
    bus.add_sink_for(("planned_change",), got.append)
    bus.planned(A, Action.CREATE, None, None, None, None, "")
    assert [e.message for e in got] == ["terraform_data.x[3]: Plan to create"]
