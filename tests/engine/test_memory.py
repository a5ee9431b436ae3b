"""engine.memory: the address space's headroom is checked every 1,024 items, and running short of
it raises a MemoryError that is also one of strata's errors, while memory is left to unwind."""

from __future__ import annotations

import pytest

import engine.memory as memory
from engine.diagnostics import StrataError


def _size() -> int:
    with open("/proc/self/statm", "rb") as f:
        return int(f.read().split()[0]) * memory._PAGE


def test_within_the_headroom_of_the_limit_raises(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(memory, "_limit", _size() + memory.HEADROOM // 2)
    with pytest.raises(AddressSpaceExhaustedError) as got:
        memory.check()
    assert isinstance(got.value, MemoryError) and isinstance(got.value, StrataError)
    assert got.value.limit == memory._limit and got.value.size >= got.value.limit - memory.HEADROOM


def test_with_room_to_spare_nothing_happens(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(memory, "_limit", _size() + 4 * memory.HEADROOM)
    memory.check()


def test_without_a_limit_nothing_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(memory, "_limit", None)
    monkeypatch.setattr("builtins.open", lambda *a, **k: pytest.fail("read /proc without a limit"))
    memory.check()


def test_tick_checks_every_1024th_item(monkeypatch: pytest.MonkeyPatch) -> None:
    checks: list[int] = []
    monkeypatch.setattr(memory, "check", lambda: checks.append(memory._count))
    monkeypatch.setattr(memory, "_count", 0)
    for _ in range(3 * 1024 + 5):
        memory.tick()
    assert checks == [1024, 2048, 3072]


AddressSpaceExhaustedError = memory.AddressSpaceExhausted
