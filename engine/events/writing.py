"""Writing output that a reader may stop reading: all of it through a non-blocking pipe
(:func:`write_all`), within a bounded delay when gathered into large writes (:class:`FlushWithin`),
and, when it cannot be written, said once while the run goes on (:func:`stream_failed`,
:data:`OUTPUT_FAILED`). Knows nothing of events: :mod:`engine.events.stream`'s sinks use it."""

from __future__ import annotations

import contextlib
import functools
import io
import select
import sys
import time
from collections.abc import AsyncIterator, Callable
from typing import IO, Any, TypeVar

import anyio

from engine.events import jsonline


class FlushWithin:
    """Calls ``flush`` at most ``max_delay`` seconds after the first :meth:`mark` since the last
    flush, from a background task while :meth:`running`; once more when the block ends.

    What lets a sink gather its output into few large writes while a program (or a person)
    reading it through a pipe still sees each line within ``max_delay``.
    """

    def __init__(self, flush: Callable[[], None], max_delay: float = 0.02) -> None:
        self._flush = flush
        self.max_delay = max_delay
        self._dirty = False
        self._wake: anyio.Event | None = None

    def mark(self) -> None:
        """Something was written that must reach the reader within ``max_delay``."""
        if not self._dirty:
            self._dirty = True
            if self._wake is not None:
                self._wake.set()

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        async def flusher() -> None:
            while True:
                self._wake = anyio.Event()
                if not self._dirty:
                    await self._wake.wait()
                await anyio.sleep(self.max_delay)
                self._dirty = False
                self._flush()

        failed: BaseException | None = None
        try:
            async with anyio.create_task_group() as tg:
                tg.start_soon(flusher)
                try:
                    yield
                except BaseException as exc:
                    # raised again below, outside the task group: the caller gets its own
                    # exception (an error, Ctrl-C, a cancellation), not a group around it
                    failed = exc
                finally:
                    tg.cancel_scope.cancel()
        finally:
            self._wake = None
            self._dirty = False
            try:
                self._flush()
            finally:
                if failed is not None:
                    # replaces a Cancelled the task group's exit may raise meanwhile
                    raise failed


def write_all(stream: IO[bytes], data: bytes | bytearray) -> None:
    """Write all of ``data``: an unbuffered stream (``PYTHONUNBUFFERED``) may take part of it, or,
    on a non-blocking pipe, none (``None``) until the reader catches up."""
    view = memoryview(data)
    while view:
        n = stream.write(view)
        if n is None:
            _wait_writable(stream)
            continue
        view = view[n:]


def _wait_writable(stream: IO[bytes]) -> None:
    try:
        jsonline.wait(stream.fileno(), select.POLLOUT)
    except (OSError, ValueError, io.UnsupportedOperation):
        time.sleep(0.001)


OUTPUT_FAILED: list[BaseException] = []
"""Why output could not be written this run (not a closed pipe): the command then exits 1."""


def stream_failed(exc: BaseException, what: str) -> None:
    """Say once, on stderr, why a sink stopped writing; a closed pipe (``| head``) is no news."""
    if isinstance(exc, BrokenPipeError | ValueError):
        return
    OUTPUT_FAILED.append(exc)
    jsonline.say_cannot_write(what, exc)


def process_ended(status: int, what: str, process: str) -> bool:
    """A writing process (a ``-json`` writer, the relay) ended with ``status``: whether it failed,
    recorded for the exit status (an output it could not write: it said which), or said here."""
    if status == jsonline.OUTPUT_FAILED_STATUS:
        OUTPUT_FAILED.append(OSError(f"the {what} could not be written"))
        return True
    if status != 0:
        stream_failed(RuntimeError(f"its {process} process exited with status {status}"), what)
        return True
    return False


_F = TypeVar("_F", bound=Callable[..., Any])


def _ki_protected(fn: _F) -> _F:
    """``trio.lowlevel.enable_ki_protection(fn)``, made on the first call under trio: trio raises
    KeyboardInterrupt anywhere outside protected code, and importing it here would cost the
    asyncio backend its start-up (asyncio turns a Ctrl-C into a cancellation at an ``await``)."""
    protected: Callable[..., Any] | None = None

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        nonlocal protected
        if protected is None:
            if "trio" not in sys.modules:
                return fn(*args, **kwargs)
            from trio.lowlevel import enable_ki_protection

            protected = enable_ki_protection(fn)
        return protected(*args, **kwargs)

    return call  # type: ignore[return-value]
