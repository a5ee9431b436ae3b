"""Simulated latency that ends when it should: a Linux ``timerfd`` per waiting operation.

An event loop's own timers (trio's and asyncio's) wait in ``epoll`` with
millisecond granularity, rounded up, so ``sleep(0.050)`` takes 50.5 to 52 ms:
an error of 1 to 4 % that a scheduling benchmark would charge to the
scheduler. A real cloud API's reply wakes the loop the moment its socket
becomes readable. A timerfd is a file descriptor that becomes readable at a
chosen instant (microsecond precision), so waiting on one makes simulated
latency as exact as a network reply. Where there is no timerfd (not Linux, or
out of file descriptors) this falls back to ``anyio.sleep``.

Descriptors are pooled (up to 256): one per operation waiting at the same moment.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import time

import anyio
import anyio.lowlevel

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
_pool: list[int] = []


def _take() -> int:
    """A timerfd from the pool, a new one, or -1 when there can be none."""
    if _pool:
        return _pool.pop()
    if _libc is None:
        return -1
    fd: int = _libc.timerfd_create(_CLOCK_MONOTONIC, os.O_NONBLOCK | os.O_CLOEXEC)
    return fd  # -1 on failure (EMFILE, ...)


_POOL_MAX = 256  # descriptors kept for reuse; more concurrent waits open (and close) their own
_LONGEST = 86_400.0  # a wait longer than a day (or infinite) needs no precision: the loop's timer


_SPEC = _Itimerspec()  # filled in by each _arm (one thread: the event loop's): no ctypes objects per wait
_VALUE = _SPEC.it_value
_SPEC_REF = ctypes.byref(_SPEC)


def _arm(fd: int, deadline: float) -> bool:
    """Fire at ``deadline`` (CLOCK_MONOTONIC seconds); 0 disarms."""
    assert _libc is not None
    sec = int(deadline)
    _VALUE.tv_sec = sec
    _VALUE.tv_nsec = int((deadline - sec) * 1e9)
    return bool(_libc.timerfd_settime(fd, _TFD_TIMER_ABSTIME, _SPEC_REF, None) == 0)


def _give_back(fd: int) -> None:
    if len(_pool) < _POOL_MAX:
        _pool.append(fd)
    else:
        os.close(fd)


async def precise_sleep(seconds: float) -> None:
    """Wait ``seconds`` (a checkpoint when zero or less), ending within microseconds of the deadline."""
    if seconds <= 0:
        await anyio.lowlevel.checkpoint()
        return
    if not seconds < _LONGEST:  # also NaN and infinity
        await anyio.sleep(seconds)
        return
    fd = _take()
    if fd < 0:
        await anyio.sleep(seconds)
        return
    try:
        if not _arm(fd, time.monotonic() + seconds):
            os.close(fd)
            fd = -1
            await anyio.sleep(seconds)
            return
        while True:
            await anyio.wait_readable(fd)
            try:
                os.read(fd, 8)  # the expiration count; reading it makes the fd unreadable again
                break
            except BlockingIOError:
                continue
    except BaseException:
        # cancelled: disarm (re-arming later also resets any expiration not read)
        if fd >= 0:
            _arm(fd, 0.0)
            _give_back(fd)
        raise
    _give_back(fd)
