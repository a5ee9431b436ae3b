"""An object's dependents start once it is recorded; its ``apply_complete`` waits for durability.

engine/apply.py hands each finished object to the state writer and lets what depends on it start
at once, while the journal record is still being fsync'd; engine/events.py's DurableOrder keeps
the ``apply_complete`` (and every event after it) back until the record is durable. These tests
slow the journal's fsync down and check both halves: the dependent did not wait for the disk, and
no reader saw a completion before it was on disk, or in another order than it happened.
"""

from __future__ import annotations

import textwrap
import time
from pathlib import Path

import anyio
import pytest

import engine.statestore as statestore
from engine.events import DurableOrder, Event
from engine.operations import Options, apply_planned, make_plan
from engine.statestore import StateWriteError

SYNC_SECONDS = 0.3

CHAIN = """
resource "terraform_data" "a" {
  input = "a"
}
resource "terraform_data" "b" {
  input = terraform_data.a.id
}
"""


class SlowSync:
    """The journal's fsync, taking SYNC_SECONDS (or failing); records when each one ended."""

    ended: list[float] = []
    fail = False

    def __init__(self, fd: int, native: bool = True) -> None:
        self.fd = fd

    async def __call__(self) -> None:
        await anyio.sleep(SYNC_SECONDS)
        if SlowSync.fail:
            raise OSError(5, "Input/output error")
        SlowSync.ended.append(time.time())

    def close(self) -> None:
        pass


@pytest.fixture
def slow_disk(monkeypatch: pytest.MonkeyPatch) -> type[SlowSync]:
    SlowSync.ended = []
    SlowSync.fail = False
    monkeypatch.setattr(statestore, "DataSync", SlowSync)
    return SlowSync


async def _apply(path: Path, sink: list[tuple[float, Event]]) -> object:
    (path / "main.tf").write_text(textwrap.dedent(CHAIN))
    opts = Options(chdir=str(path), parallelism=10)

    def emit(e: Event) -> None:
        sink.append((time.time(), e))

    planned = await make_plan(opts, lambda e: None)
    return await apply_planned(planned, opts, emit)


def _find(events: list[tuple[float, Event]], kind: str, addr: str) -> tuple[int, float, Event]:
    for i, (at, e) in enumerate(events):
        if e.type == kind and e.payload["hook"]["resource"]["addr"] == addr:
            return i, at, e
    raise AssertionError(f"no {kind} for {addr} in {[e.type for _, e in events]}")


@pytest.mark.anyio
async def test_a_dependent_starts_before_its_dependency_is_durable_yet_is_reported_after_it(
        tmp_path: Path, slow_disk: type[SlowSync]) -> None:
    got: list[tuple[float, Event]] = []
    result = await _apply(tmp_path, got)
    assert result.ok
    a_complete, a_written, _ = _find(got, "apply_complete", "terraform_data.a")
    b_start, _, b_event = _find(got, "apply_start", "terraform_data.b")
    first_durable = slow_disk.ended[0]
    # the dependent's provider call began while a's record was still on its way to the disk
    assert b_event.timestamp < first_durable - SYNC_SECONDS / 2, (b_event.timestamp, first_durable)
    # ... but nobody was told of either before a's record was durable, and in the order they happened
    assert a_written >= first_durable
    assert a_complete < b_start


@pytest.mark.anyio
async def test_a_completion_the_disk_never_took_is_never_reported(tmp_path: Path,
                                                                  slow_disk: type[SlowSync]) -> None:
    slow_disk.fail = True
    got: list[tuple[float, Event]] = []
    with pytest.raises(StateWriteError):
        await _apply(tmp_path, got)
    assert not [e for _, e in got if e.type == "apply_complete"], [e.type for _, e in got]
    # what happened without claiming durability is still told, in order: a started
    assert _find(got, "apply_start", "terraform_data.a")


def recording() -> tuple[list[str], DurableOrder]:
    """A DurableOrder and the types of the events it has written, in order."""
    out: list[str] = []
    return out, DurableOrder(lambda e: out.append(e.type))


def test_durable_order_passes_events_through_while_nothing_is_held() -> None:
    out, order = recording()
    order.emit(Event("one", ""))
    release = order.hold(Event("held", ""))
    order.emit(Event("after", ""))
    assert out == ["one"]
    release()
    assert out == ["one", "held", "after"]
    order.emit(Event("later", ""))
    assert out == ["one", "held", "after", "later"]


def test_durable_order_writes_each_release_up_to_the_next_hold() -> None:
    out, order = recording()
    first = order.hold(Event("first", ""))
    order.emit(Event("between", ""))
    second = order.hold(Event("second", ""))
    order.emit(Event("after", ""))
    assert out == []
    first()
    assert out == ["first", "between"]
    second()
    assert out == ["first", "between", "second", "after"]


def test_durable_order_releases_in_the_order_held_whatever_the_order_of_releases() -> None:
    out, order = recording()
    first = order.hold(Event("first", ""))
    second = order.hold(Event("second", ""))
    order.emit(Event("after", ""))
    second()
    assert out == []
    first()
    assert out == ["first", "second", "after"]
    first()  # a second call changes nothing
    assert out == ["first", "second", "after"]


def test_durable_order_finish_drops_what_was_never_released_and_writes_the_rest() -> None:
    out, order = recording()
    release = order.hold(Event("durable", ""))
    order.hold(Event("never durable", ""))
    order.emit(Event("diagnostic", ""))
    release()
    assert out == ["durable"]
    order.finish()
    assert out == ["durable", "diagnostic"]
    order.emit(Event("next", ""))
    assert out == ["durable", "diagnostic", "next"]


def test_durable_order_withdraw_takes_back_the_latest_hold_and_lets_the_rest_through() -> None:
    out, order = recording()
    first = order.hold(Event("first", ""))
    order.emit(Event("between", ""))
    order.hold(Event("unrecorded", ""))
    order.withdraw()
    order.emit(Event("diagnostic", ""))
    assert out == []
    first()
    assert out == ["first", "between", "diagnostic"]
    order.hold(Event("unrecorded", ""))
    order.withdraw()
    order.emit(Event("next", ""))
    assert out == ["first", "between", "diagnostic", "next"]


@pytest.mark.anyio
async def test_a_record_that_cannot_be_made_holds_nothing_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the state writer refuses one object (a value it cannot encode): that object fails, and the
    # events after it are not held back behind a completion that will never be durable
    real_put = statestore.StateWriter.put

    def put(self, addr, provider, obj, deposed=None, on_durable=None):  # type: ignore[no-untyped-def]
        if str(addr) == "terraform_data.a" and obj is not None:
            raise TypeError("Integer exceeds 64-bit range")
        return real_put(self, addr, provider, obj, deposed, on_durable)

    monkeypatch.setattr(statestore.StateWriter, "put", put)
    pending_at_end: list[int] = []
    real_finish = DurableOrder.finish

    def finish(self: DurableOrder) -> None:
        pending_at_end.append(len(self._pending))
        real_finish(self)

    monkeypatch.setattr(DurableOrder, "finish", finish)
    (tmp_path / "main.tf").write_text('resource "terraform_data" "a" {}\nresource "terraform_data" "c" {}\n')
    opts = Options(chdir=str(tmp_path), parallelism=10)
    planned = await make_plan(opts, lambda e: None)
    got: list[Event] = []
    result = await apply_planned(planned, opts, got.append)
    assert not result.ok
    completed = [e.payload["hook"]["resource"]["addr"] for e in got if e.type == "apply_complete"]
    assert completed == ["terraform_data.c"], completed
    assert "diagnostic" in [e.type for e in got]
    # nothing was left waiting for a record that was never made (it would have held every later
    # event back until the end of the apply)
    assert pending_at_end == [0]
    assert result.counts["add"] == 1, result.counts
