"""Concurrency and rate limits on top of the global ``-parallelism``, and retry policy.

Terraform has one knob, ``-parallelism`` (hashicorp/terraform#14258, #28152,
#31094). strata adds, per provider configuration and per resource type:

* a concurrency limit — at most N operations in flight (a capacity limiter);
* a rate limit — at most R operations started per second (a token bucket,
  bursting up to R);
* retries with exponential backoff for errors the provider marks retryable.

Set on the command line (``-provider-parallelism=sim=5``,
``-type-parallelism=sim_object=2``, ``-rate-limit=sim=50``, ``-retries=3``)
or in a ``strata`` block inside a provider block::

    provider "sim" {
      ledger = "cloud.jsonl"
      strata {
        parallelism      = 5
        rate_limit       = 50
        type_parallelism = { sim_object = 2 }
        retries          = 3
      }
    }
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import anyio


class TokenBucket:
    """At most ``rate`` acquisitions per second on average, with bursts up to ``burst``."""

    def __init__(self, rate: float, burst: float | None = None) -> None:
        if rate <= 0:
            raise ValueError("rate must be positive")
        self.rate = rate
        self.burst = burst if burst is not None else max(1.0, rate)
        self.tokens = self.burst
        self.updated = time.monotonic()
        self._lock = anyio.Lock()

    async def take(self) -> None:
        async with self._lock:  # FIFO: waiters are served in order
            now = time.monotonic()
            self.tokens = min(self.burst, self.tokens + (now - self.updated) * self.rate)
            self.updated = now
            if self.tokens < 1:
                wait = (1 - self.tokens) / self.rate
                await anyio.sleep(wait)
                self.tokens = 1.0
                self.updated = time.monotonic()
            self.tokens -= 1


@dataclass
class RetryPolicy:
    retries: int = 3
    base_delay: float = 0.2
    max_delay: float = 10.0

    def delay(self, attempt: int) -> float:
        """Exponential backoff with full jitter, for attempt 1, 2, ..."""
        cap = min(self.max_delay, self.base_delay * (2 ** (attempt - 1)))
        import random  # only when a provider asks to back off

        return random.uniform(cap / 2, cap)


@dataclass
class Limits:
    """Named limits. Keys of ``provider_*`` are provider configurations (``sim``, ``aws.west``)."""

    provider_parallelism: dict[str, int] = field(default_factory=dict)
    type_parallelism: dict[str, int] = field(default_factory=dict)
    provider_rate: dict[str, float] = field(default_factory=dict)
    type_rate: dict[str, float] = field(default_factory=dict)
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    provider_retries: dict[str, int] = field(default_factory=dict)
    _limiters: dict[str, anyio.CapacityLimiter] = field(default_factory=dict, repr=False)
    _buckets: dict[str, TokenBucket] = field(default_factory=dict, repr=False)

    def merge(self, other: Limits) -> None:
        """Add ``other``'s settings where this one has none (command line wins over configuration)."""
        pairs: list[tuple[dict[str, Any], dict[str, Any]]] = [
            (self.provider_parallelism, other.provider_parallelism),
            (self.type_parallelism, other.type_parallelism),
            (self.provider_rate, other.provider_rate),
            (self.type_rate, other.type_rate),
            (self.provider_retries, other.provider_retries),
        ]
        for mine, theirs in pairs:
            for k, v in theirs.items():
                mine.setdefault(k, v)

    def retries_for(self, provider: str) -> int:
        return self.provider_retries.get(provider, self.retry.retries)

    def _limiter(self, key: str, n: int) -> anyio.CapacityLimiter:
        lim = self._limiters.get(key)
        if lim is None:
            lim = self._limiters[key] = anyio.CapacityLimiter(n)
        return lim

    def _bucket(self, key: str, rate: float) -> TokenBucket:
        b = self._buckets.get(key)
        if b is None:
            b = self._buckets[key] = TokenBucket(rate)
        return b

    def active(self) -> bool:
        return bool(self.provider_parallelism or self.type_parallelism or self.provider_rate or self.type_rate)

    @contextlib.asynccontextmanager
    async def slot(self, provider: str, type_name: str) -> AsyncIterator[None]:
        """Hold a place under every limit that applies to one operation."""
        async with contextlib.AsyncExitStack() as stack:
            n = self.provider_parallelism.get(provider)
            if n:
                await stack.enter_async_context(self._limiter("p:" + provider, n))
            n = self.type_parallelism.get(type_name)
            if n:
                await stack.enter_async_context(self._limiter("t:" + type_name, n))
            r = self.provider_rate.get(provider)
            if r:
                await self._bucket("p:" + provider, r).take()
            r = self.type_rate.get(type_name)
            if r:
                await self._bucket("t:" + type_name, r).take()
            yield


def parse_pairs(items: list[str], flag: str, kind: type = int) -> dict[str, float]:
    """``["sim=5", "aws.west=2"]`` → ``{"sim": 5, "aws.west": 2}``; ValueError names the flag."""
    out: dict[str, float] = {}
    for item in items:
        name, sep, value = item.partition("=")
        try:
            if not sep or not name:
                raise ValueError
            v = kind(value)
            if v <= 0 or (isinstance(v, float) and math.isinf(v)):
                raise ValueError
        except ValueError:
            raise ValueError(f'Invalid -{flag} value "{item}": expected NAME=NUMBER with a positive '
                             "number.") from None
        out[name] = v
    return out
