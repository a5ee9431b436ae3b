"""Interrupting an apply, as terraform's: a first SIGINT or SIGTERM stops it gracefully (the
operations in flight finish and are recorded, nothing new starts), a second one at once."""

from __future__ import annotations

import contextlib
import signal
import sys
from collections.abc import Callable

import anyio

INTERRUPT = "interrupt"  # what the walker is told stopped it (compared by identity)
INTERRUPT_TEXT = ("\nInterrupt received.\nPlease wait for strata to exit or data loss may occur: the "
                  "operations in flight finish and are recorded, nothing new starts.\nGracefully shutting "
                  "down... (interrupt again to stop at once)\n")


class StopNow(BaseException):
    """A second interrupt: the apply stops at once, cancelling what is in flight. The command
    reports it as it reports Ctrl-C. Not a KeyboardInterrupt: asyncio lets one raised in a task
    escape its loop and leave the run's main task to die noisily at shutdown, while any other
    BaseException unwinds through the task groups as trio's does."""


async def on_signals(interrupted: Callable[[], bool], gracefully: Callable[[], None],
                     at_once: Callable[[], None]) -> None:
    """Wait for SIGINT and SIGTERM until cancelled: the first is said on standard error and calls
    ``gracefully``; one after it (``interrupted()`` true) calls ``at_once`` and raises
    :class:`StopNow`."""
    with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async for _ in signals:
            if interrupted():  # the second one: stop now, cancelling what is in flight
                at_once()
                raise StopNow
            with contextlib.suppress(OSError, ValueError):
                sys.stderr.write(INTERRUPT_TEXT)
                sys.stderr.flush()
            gracefully()
