"""providers/sim/clock.py: simulated latency ends at its deadline, on trio and asyncio, and a
cancelled wait leaves nothing behind."""

from __future__ import annotations

import time

import anyio
import pytest

from providers.sim import clock


@pytest.mark.parametrize("backend", ["trio", "asyncio"])
def test_precise_sleep_waits_its_time_and_not_much_longer(backend: str) -> None:
    async def main() -> list[float]:
        took = []
        for _ in range(20):
            t = time.monotonic()
            await clock.precise_sleep(0.01)
            took.append(time.monotonic() - t)
        return took

    took = anyio.run(main, backend=backend)
    assert min(took) >= 0.01
    # an event loop's own timer rounds up to the millisecond; a shared, noisy machine can stall
    # any single wait, so only the median is held to the precision
    assert sorted(took)[len(took) // 2] < 0.0109


@pytest.mark.skipif(clock._libc is None, reason="no timerfd on this platform")
def test_many_concurrent_waits_share_a_pool_of_descriptors() -> None:
    async def main() -> None:
        async with anyio.create_task_group() as tg:
            for i in range(50):
                tg.start_soon(clock.precise_sleep, 0.005 + i * 0.0001)

    clock._pool.clear()
    anyio.run(main, backend="trio")
    assert 1 <= len(clock._pool) <= 50
    before = len(clock._pool)
    anyio.run(main, backend="trio")
    assert len(clock._pool) == before  # reused, none leaked


@pytest.mark.parametrize("backend", ["trio", "asyncio"])
def test_a_cancelled_wait_returns_its_descriptor_disarmed(backend: str) -> None:
    async def main() -> None:
        with anyio.move_on_after(0.01):
            await clock.precise_sleep(10)
        t = time.monotonic()
        await clock.precise_sleep(0.01)  # takes the same descriptor: the old deadline must not fire it
        assert 0.01 <= time.monotonic() - t < 1

    anyio.run(main, backend=backend)


def test_zero_or_negative_is_only_a_checkpoint() -> None:
    async def main() -> float:
        t = time.monotonic()
        await clock.precise_sleep(0)
        await clock.precise_sleep(-1)
        return time.monotonic() - t

    assert anyio.run(main, backend="trio") < 0.05


def test_without_a_timerfd_it_falls_back_to_the_loop_timer(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(clock, "_libc", None)
    monkeypatch.setattr(clock, "_pool", [])

    async def main() -> float:
        t = time.monotonic()
        await clock.precise_sleep(0.01)
        return time.monotonic() - t

    assert 0.01 <= anyio.run(main, backend="trio") < 1


def test_an_endless_or_enormous_wait_uses_the_loop_timer_and_keeps_no_descriptor() -> None:
    async def main() -> None:
        for seconds in (float("inf"), 2.0**64, 10.0**9):
            with anyio.move_on_after(0.02) as scope:
                await clock.precise_sleep(seconds)
            assert scope.cancelled_caught  # it waited: it did not return at once

    clock._pool.clear()
    anyio.run(main, backend="trio")
    assert clock._pool == []


@pytest.mark.skipif(clock._libc is None, reason="no timerfd on this platform")
def test_the_pool_keeps_at_most_its_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(clock, "_POOL_MAX", 5)

    async def main() -> None:
        async with anyio.create_task_group() as tg:
            for _ in range(20):
                tg.start_soon(clock.precise_sleep, 0.005)

    clock._pool.clear()
    anyio.run(main, backend="trio")
    assert len(clock._pool) == 5
