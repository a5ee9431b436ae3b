"""Headroom under the address-space limit (``ulimit -v``), checked as a run grows.

When a process reaches its ``RLIMIT_AS``, allocations fail wherever they happen to be: in the
middle of the event loop's bookkeeping, or while CPython builds the exception that reports the
failure. Unwinding from there can crash the interpreter itself (a segmentation fault in the loop's
``close``, "Cannot recover from MemoryErrors while normalizing exceptions"). So the loops whose
size a configuration decides (a ``count``'s instances, the plan walk, the apply walk) call
:func:`tick` once per item, and every 1,024 items the process's size is compared with its limit:
within :data:`HEADROOM` of it, :class:`AddressSpaceExhausted` is raised while memory is still there
to unwind with. The command reports it as it reports any MemoryError, in one line.

Without a limit (the default; the kernel's out-of-memory killer then ends a process without
warning, which nothing in a process can report) :func:`tick` costs a counter's increment.
"""

from __future__ import annotations

import os
import resource

from engine.diagnostics import StrataError

HEADROOM = 128 << 20
"""Bytes kept free under the limit: what 1,024 items of any loop allocate, many times over, and
what unwinding the run needs."""

_EVERY = 1024
_count = 0
_limit: int | None = -1  # -1: not read yet; None: no limit
_PAGE = os.sysconf("SC_PAGE_SIZE")


class AddressSpaceExhausted(StrataError, MemoryError):
    """The process came within :data:`HEADROOM` of its address-space limit (a MemoryError, raised
    before allocations begin to fail). ``size`` and ``limit`` in bytes."""

    def __init__(self, size: int, limit: int) -> None:
        self.size = size
        self.limit = limit
        super().__init__(f"address space {size >> 20} MB of the {limit >> 20} MB limit in use")


def tick() -> None:
    """Count one item of a growing loop; every 1,024th, check the headroom (hot path)."""
    global _count
    _count += 1
    if _count % _EVERY == 0:
        check()


def check() -> None:
    """Raise :class:`AddressSpaceExhausted` if the process is within :data:`HEADROOM` of its limit."""
    global _limit
    if _limit == -1:
        soft = resource.getrlimit(resource.RLIMIT_AS)[0]
        _limit = None if soft == resource.RLIM_INFINITY else soft
    if _limit is None:
        return
    try:
        with open("/proc/self/statm", "rb") as f:
            size = int(f.read().split()[0]) * _PAGE
    except (OSError, ValueError, IndexError):
        return
    if size >= _limit - HEADROOM:
        raise AddressSpaceExhausted(size, _limit)


def reset() -> None:
    """Read the limit again at the next check (a program that changed it)."""
    global _limit
    _limit = -1
