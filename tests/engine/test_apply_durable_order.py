"""An object's ``apply_complete`` is emitted, and its dependents start, only once it is durable.

engine/apply.py hands each finished object to the state writer and waits for the writer to say
the journal record is fsync'd before it reports the object complete and lets what depends on it
start. These tests slow the journal's fsync down and check both: no reader saw a completion
before it was on disk, and no dependent's provider call began before its dependency's record was.
"""

from __future__ import annotations

import textwrap
import time
from pathlib import Path

import anyio
import pytest

import engine.state.fsync as fsync
import engine.state.store as statestore
from engine.backend.operations import Options, apply_planned, make_plan
from engine.events.stream import Event
from engine.state.store import StateWriteError

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
    monkeypatch.setattr(fsync, "DataSync", SlowSync)  # the store imports it where it opens a journal
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
async def test_a_dependent_starts_only_once_its_dependency_is_durable_and_reported(
        tmp_path: Path, slow_disk: type[SlowSync]) -> None:
    got: list[tuple[float, Event]] = []
    result = await _apply(tmp_path, got)
    assert result.ok
    a_complete, a_written, _ = _find(got, "apply_complete", "terraform_data.a")
    b_start, _, b_event = _find(got, "apply_start", "terraform_data.b")
    first_durable = slow_disk.ended[0]
    # nobody was told of a before its record was durable
    assert a_written >= first_durable, (a_written, first_durable)
    # and b's provider call began only after that, and was reported after a's completion
    assert b_event.timestamp >= first_durable, (b_event.timestamp, first_durable)
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


@pytest.mark.anyio
async def test_a_record_that_cannot_be_made_fails_its_object_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the state writer refuses one object (a value it cannot encode): that object fails, is never
    # reported complete, and the rest of the apply goes on
    real_put = statestore.StateWriter.put

    def put(self, addr, provider, obj, deposed=None, on_durable=None):  # type: ignore[no-untyped-def]
        if str(addr) == "terraform_data.a" and obj is not None:
            raise TypeError("Integer exceeds 64-bit range")
        return real_put(self, addr, provider, obj, deposed, on_durable)

    monkeypatch.setattr(statestore.StateWriter, "put", put)
    (tmp_path / "main.tf").write_text('resource "terraform_data" "a" {}\nresource "terraform_data" "c" {}\n')
    opts = Options(chdir=str(tmp_path), parallelism=10)
    planned = await make_plan(opts, lambda e: None)
    got: list[Event] = []
    result = await apply_planned(planned, opts, got.append)
    assert not result.ok
    completed = [e.payload["hook"]["resource"]["addr"] for e in got if e.type == "apply_complete"]
    assert completed == ["terraform_data.c"], completed
    assert "diagnostic" in [e.type for e in got]
    assert result.counts["add"] == 1, result.counts
