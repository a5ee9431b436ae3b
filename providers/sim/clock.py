"""Simulated latency that ends when it should: a Linux ``timerfd`` per waiting operation.

An event loop's own timers (trio's and asyncio's) wait in ``epoll`` with
millisecond granularity, rounded up, so ``sleep(0.050)`` takes 50.5 to 52 ms:
an error of 1 to 4 % that a scheduling benchmark would charge to the
scheduler. A real cloud API's reply wakes the loop the moment its socket
becomes readable. A timerfd is a file descriptor that becomes readable at a
chosen instant (microsecond precision), so waiting on one makes simulated
latency as exact as a network reply. Where there is no timerfd (not Linux, or
out of file descriptors) this falls back to ``anyio.sleep``.

Descriptors are pooled: at most one per operation waiting at the same moment.
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


_spec = _Itimerspec()  # reused: filled in and handed to the kernel, which copies it
_spec_ref = ctypes.byref(_spec)


def _arm(fd: int, deadline: float) -> bool:
    """Fire at ``deadline`` (CLOCK_MONOTONIC seconds); 0 disarms."""
    assert _libc is not None
    sec = int(deadline)
    _spec.it_value.tv_sec = sec
    _spec.it_value.tv_nsec = int((deadline - sec) * 1e9)
    return bool(_libc.timerfd_settime(fd, _TFD_TIMER_ABSTIME, _spec_ref, None) == 0)


async def precise_sleep(seconds: float) -> None:
    """Wait ``seconds`` (a checkpoint when zero or less), ending within microseconds of the deadline."""
    if seconds <= 0:
        await anyio.lowlevel.checkpoint()
        return
    deadline = time.monotonic() + seconds
    fd = _take()
    if fd < 0:
        await anyio.sleep(seconds)
        return
    if not _arm(fd, deadline):
        os.close(fd)
        await anyio.sleep(seconds)
        return
    try:
        while True:
            await anyio.wait_readable(fd)
            try:
                os.read(fd, 8)  # the expiration count; reading it makes the fd unreadable again
                break
            except BlockingIOError:
                continue
    except BaseException:
        # cancelled: disarm (re-arming later also resets any expiration not read)
        _arm(fd, 0.0)
        _pool.append(fd)
        raise
    _pool.append(fd)
