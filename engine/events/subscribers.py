"""In-process subscribers to a run's events, that never stall it.

A :class:`Subscription` is a recorder (:meth:`engine.events.stream.EventBus.add_recorder`) with a
bounded buffer of its own, which its consumer empties at its own pace (``async for item in
sub``). Emitting never waits for a consumer: when the buffer is full, events are dropped *for
that subscriber only*, and once there is room again it is told so by a :class:`Lagged` notice
naming the sequence numbers it missed, which it can read from the event log
(:func:`engine.events.log.read_log` with ``after=notice.first - 1``). So a subscriber sees every
event, either in order from its buffer or as a gap it can fill, whatever it does:

* one that sleeps falls behind and gets gaps; the apply does not wait for it;
* a hundred cost the apply one deque append each per event;
* one that raises (:func:`deliver` runs a callback) is detached with the error kept; the others
  and the apply go on.

Invariants: the items a subscription yields are :class:`Sequenced` events in increasing ``seq``
order and :class:`Lagged` notices; the ``seq`` numbers of the events and the ranges of the
notices together cover 1..the last sequence number recorded while it was open, each once.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Awaitable, Callable

import anyio

from engine.events.stream import Event
from engine.frozen import frozen


@frozen
class Sequenced:
    """An event with its sequence number and the monotonic time it was emitted at."""

    seq: int
    monotonic: float
    event: Event


@frozen
class Lagged:
    """The subscriber's buffer was full: the events ``first``..``last`` (sequence numbers,
    inclusive) were dropped for it. They are in the event log, if the run writes one."""

    first: int
    last: int

    @property
    def missed(self) -> int:
        return self.last - self.first + 1


Item = Sequenced | Lagged


class Subscription:
    """A bounded buffer of a run's events for one consumer (``buffer`` items at most, a
    :class:`Lagged` notice aside). Open until :meth:`close`; then iteration ends once what is
    buffered is consumed."""

    def __init__(self, buffer: int = 1024) -> None:
        if buffer < 1:
            raise ValueError(f"a subscription's buffer holds at least 1 event, not {buffer}")
        self.buffer = buffer
        self._items: deque[Item] = deque()
        self._lag_first = 0  # the first sequence number dropped since the last notice (0: none)
        self._lag_last = 0
        self._wake: anyio.Event | None = None
        self.closed = False
        self.error: BaseException | None = None
        """What the callback :func:`deliver` ran raised (the subscription was closed then)."""
        self.delivered = 0
        self.dropped = 0

    def __call__(self, seq: int, t: float, event: Event) -> None:
        """The recorder: never waits, never raises (hot path, once per subscriber per event)."""
        if self.closed:
            return
        items = self._items
        if len(items) >= self.buffer:
            if not self._lag_first:
                self._lag_first = seq
            self._lag_last = seq
            self.dropped += 1
            return
        if self._lag_first:
            items.append(Lagged(self._lag_first, self._lag_last))
            self._lag_first = 0
        items.append(Sequenced(seq, t, event))
        if self._wake is not None:
            self._wake.set()

    def close(self) -> None:
        """No more events: the consumer gets what is buffered (and a last notice of what was
        dropped), then the iteration ends."""
        if self.closed:
            return
        self.closed = True
        if self._lag_first:
            self._items.append(Lagged(self._lag_first, self._lag_last))
            self._lag_first = 0
        if self._wake is not None:
            self._wake.set()

    def __aiter__(self) -> Subscription:
        return self

    async def __anext__(self) -> Item:
        while not self._items:
            if self.closed:
                raise StopAsyncIteration
            self._wake = anyio.Event()
            await self._wake.wait()
            self._wake = None
        self.delivered += 1
        return self._items.popleft()


Callback = Callable[[Item], Awaitable[None]]


async def deliver(sub: Subscription, callback: Callback) -> None:
    """Await ``callback(item)`` for each item of ``sub``, in order, until it is closed and drained.
    When the callback raises, the subscription is closed with the error kept in ``sub.error``, and
    this returns: a subscriber's failure is its own. Cancelled (the run's drain time is over),
    what is still buffered is counted as dropped."""
    try:
        async for item in sub:
            await callback(item)
    except Exception as exc:  # the subscriber's own failure: kept, and it stops here
        sub.error = exc
        sub.close()
    finally:
        sub.dropped += len(sub._items)
        sub._items.clear()
