"""Simulated latency that ends when it should: one Linux ``timerfd`` per event loop.

An event loop's own timers (trio's and asyncio's) wait in ``epoll`` with
millisecond granularity, rounded up, so ``sleep(0.050)`` takes 50.5 to 52 ms:
an error of 1 to 4 % that a scheduling benchmark would charge to the
scheduler. A real cloud API's reply wakes the loop the moment its socket
becomes readable. A timerfd is a file descriptor that becomes readable at a
chosen instant (microsecond precision), so waiting on one makes simulated
latency as exact as a network reply.

Every wait in one event loop shares one timerfd (:class:`_Timers`): the
deadlines sit in a heap, the descriptor is armed for the earliest, and one
task (a trio system task, an asyncio task) waits for it to become readable and
wakes every wait that is due. A wait therefore costs a heap push and a
wake-up, not a descriptor of its own armed and registered with epoll and
read: a system call or three per simulated operation, which at thousands of
operations a second was a tenth of the apply's CPU. Waits due together wake
together, in deadline order.

Where there is no timerfd (not Linux, or out of file descriptors) or the loop
is neither trio nor asyncio, this falls back to ``anyio.sleep``.
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import heapq
import itertools
import os
import time
import weakref
from collections.abc import Callable
from typing import Any

import anyio
import anyio.lowlevel
import sniffio
import trio

_CLOCK_MONOTONIC = 1  # time.monotonic() reads this clock on Linux
_TFD_TIMER_ABSTIME = 1


class _Timespec(ctypes.Structure):
    _fields_ = [("tv_sec", ctypes.c_long), ("tv_nsec", ctypes.c_long)]


class _Itimerspec(ctypes.Structure):
    _fields_ = [("it_interval", _Timespec), ("it_value", _Timespec)]


def _load() -> ctypes.CDLL | None:
    if not hasattr(os, "O_NONBLOCK") or not os.uname().sysname == "Linux":
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
        libc.timerfd_create.argtypes = [ctypes.c_int, ctypes.c_int]
        libc.timerfd_settime.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.POINTER(_Itimerspec),
                                         ctypes.c_void_p]
    except (OSError, AttributeError):
        return None
    return libc


_libc = _load()
_LONGEST = 86_400.0  # a wait longer than a day (or infinite) needs no precision: the loop's timer

_SPEC = _Itimerspec()  # filled in by each _arm (one thread: the event loop's): no ctypes objects per arm
_VALUE = _SPEC.it_value
_SPEC_REF = ctypes.byref(_SPEC)


def _arm(fd: int, deadline: float) -> None:
    """Fire at ``deadline`` (CLOCK_MONOTONIC seconds). A failure is raised: a wait that was never
    armed would never end."""
    assert _libc is not None
    sec = int(deadline)
    _VALUE.tv_sec = sec
    _VALUE.tv_nsec = int((deadline - sec) * 1e9)
    if _libc.timerfd_settime(fd, _TFD_TIMER_ABSTIME, _SPEC_REF, None) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"timerfd_settime: {os.strerror(err)}")


class _Timers:
    """The waits of one event loop: a heap of ``[deadline, seq, wake]`` entries (``wake`` is None
    once the wait was cancelled) and the timerfd, armed for the earliest deadline."""

    __slots__ = ("fd", "heap", "armed", "_seq")

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.heap: list[list[Any]] = []
        self.armed = float("inf")  # the deadline the descriptor is armed for
        self._seq = itertools.count()

    def add(self, deadline: float, wake: Callable[[], None]) -> list[Any]:
        if deadline < self.armed:  # rare: deadlines mostly arrive in order
            _arm(self.fd, deadline)  # first: a wait it raises for is not left in the heap
            self.armed = deadline
        entry = [deadline, next(self._seq), wake]
        heapq.heappush(self.heap, entry)
        return entry

    def fire(self) -> None:
        """Wake every wait that is due, and arm for the next deadline."""
        heap = self.heap
        now = time.monotonic()
        while heap and heap[0][0] <= now:
            wake = heapq.heappop(heap)[2]
            if wake is not None:
                wake()
        self.armed = heap[0][0] if heap else float("inf")
        if heap:
            _arm(self.fd, self.armed)


async def _drive(timers: _Timers) -> None:
    """Wait for the descriptor, wake what is due, again; until the event loop ends."""
    try:
        while True:
            await anyio.wait_readable(timers.fd)
            try:
                os.read(timers.fd, 8)  # the expiration count; reading it makes the fd unreadable
            except BlockingIOError:
                continue
            timers.fire()
    finally:
        os.close(timers.fd)


# this loop's timers: looked up once per wait, so by each loop's own cheap means (anyio's RunVar
# costs a microsecond and a half, a tenth of the whole wait)
_TRIO_TIMERS: trio.lowlevel.RunVar[_Timers | None] = trio.lowlevel.RunVar("sim_clock_timers")
_ASYNCIO_TIMERS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Timers] = weakref.WeakKeyDictionary()
_KEEP: set[asyncio.Task[None]] = set()  # an asyncio loop keeps only a weak reference to its tasks


def _new_timers() -> _Timers | None:
    if _libc is None:
        return None
    fd: int = _libc.timerfd_create(_CLOCK_MONOTONIC, os.O_NONBLOCK | os.O_CLOEXEC)
    if fd < 0:  # EMFILE, ...: this wait uses the loop's timer, a later one tries again
        return None
    return _Timers(fd)


async def precise_sleep(seconds: float) -> None:
    """Wait ``seconds`` (a checkpoint when zero or less), ending within microseconds of the deadline."""
    if seconds <= 0:
        await anyio.lowlevel.checkpoint()
        return
    if not seconds < _LONGEST:  # also NaN and infinity
        await anyio.sleep(seconds)
        return
    deadline = time.monotonic() + seconds
    library = sniffio.current_async_library()
    if library == "trio":
        timers = _TRIO_TIMERS.get(None)
        if timers is None and (timers := _new_timers()) is not None:
            # a system task: cancelled when the run's main task ends, like the loop's own machinery
            trio.lowlevel.spawn_system_task(_drive, timers, name="sim clock")
            _TRIO_TIMERS.set(timers)
        if timers is not None:
            await _wait_trio(timers, deadline)
            return
    elif library == "asyncio":
        loop = asyncio.get_running_loop()
        timers = _ASYNCIO_TIMERS.get(loop)
        if timers is None and (timers := _new_timers()) is not None:
            # asyncio.run (and anyio.run) cancel the tasks left when the main one returns
            task = loop.create_task(_drive(timers), name="sim clock")
            _KEEP.add(task)
            task.add_done_callback(_KEEP.discard)
            _ASYNCIO_TIMERS[loop] = timers
        if timers is not None:
            await _wait_asyncio(timers, deadline)
            return
    await anyio.sleep(seconds)


async def _wait_trio(timers: _Timers, deadline: float) -> None:
    lowlevel = trio.lowlevel
    task = lowlevel.current_task()
    entry = timers.add(deadline, lambda: lowlevel.reschedule(task))

    def abort(_: Any) -> Any:
        entry[2] = None  # cancelled: the entry stays in the heap, inert
        return lowlevel.Abort.SUCCEEDED

    await lowlevel.wait_task_rescheduled(abort)


async def _wait_asyncio(timers: _Timers, deadline: float) -> None:
    fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def wake() -> None:
        if not fut.done():  # cancelled meanwhile
            fut.set_result(None)

    entry = timers.add(deadline, wake)
    try:
        await fut
    except BaseException:
        entry[2] = None
        raise
