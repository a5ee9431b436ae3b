"""Per-provider / per-type concurrency limits, rate limits, retries with backoff, fail-fast."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import anyio
import pytest

from engine import (
    ApplyResourceChangeRequest,
    ApplyResourceChangeResponse,
    AttributeSchema,
    DiagnosticsError,
    MockProvider,
    ReadResourceRequest,
    ReadResourceResponse,
    error,
)
from engine.backend.operations import Options, apply_planned, make_plan
from engine.config.module import load_module
from engine.graph.limits import Limits, RetryPolicy, TokenBucket, parse_pairs
from engine.provider.registry import Providers


class Counting(MockProvider):
    """The mock provider, recording how many applies are in flight; optionally failing the first
    attempts."""

    def __init__(self, fail_first: int = 0, retryable: bool = True) -> None:
        super().__init__({"count_thing": {"id": AttributeSchema("string", computed=True),
                                          "n": AttributeSchema("number", required=True)}},
                         source="example.com/test/count", apply_resource_change=self._apply)
        self.in_flight = 0
        self.peak = 0
        self.applies = 0
        self.fail_first = fail_first
        self.retryable = retryable

    async def _apply(self, req: ApplyResourceChangeRequest) -> ApplyResourceChangeResponse:
        self.applies += 1
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)
        try:
            for _ in range(3):
                await anyio.sleep(0)
            if self.applies <= self.fail_first:
                return ApplyResourceChangeResponse(None, (error("throttled", retryable=self.retryable),))
        finally:
            self.in_flight -= 1
        if req.planned_state is None:
            return ApplyResourceChangeResponse(None)
        return ApplyResourceChangeResponse({**req.planned_state, "id": f"x{req.planned_state['n']}"})


def _opts(tmp_path: Path, text: str, **kw: Any) -> Options:
    (tmp_path / "main.tf").write_text(textwrap.dedent(text))
    return Options(chdir=str(tmp_path), fsync=False, **kw)


async def _apply(opts: Options, provider: Counting) -> Any:
    providers = Providers({"count": provider})
    planned = await make_plan(opts, lambda e: None, providers=providers)
    return await apply_planned(planned, opts, lambda e: None)


MANY = """
resource "count_thing" "x" {
  count = 30
  n     = count.index
}
"""


@pytest.mark.trio
async def test_provider_parallelism_caps_operations_in_flight(tmp_path: Path) -> None:
    provider = Counting()
    opts = _opts(tmp_path, MANY, parallelism=20, limits=Limits(provider_parallelism={"count": 3}))
    result = await _apply(opts, provider)
    assert result.ok
    assert provider.peak == 3, f"expected at most 3 in flight (and the cap reached), saw {provider.peak}"


@pytest.mark.trio
async def test_type_parallelism_caps_operations_in_flight(tmp_path: Path) -> None:
    provider = Counting()
    opts = _opts(tmp_path, MANY, parallelism=20, limits=Limits(type_parallelism={"count_thing": 2}))
    assert (await _apply(opts, provider)).ok
    assert provider.peak == 2


@pytest.mark.trio
async def test_global_parallelism_still_applies_without_other_limits(tmp_path: Path) -> None:
    provider = Counting()
    assert (await _apply(_opts(tmp_path, MANY, parallelism=4), provider)).ok
    assert provider.peak == 4


class CountingReads(Counting):
    """Counting, and how many ReadResource calls (refresh) are in flight."""

    def __init__(self) -> None:
        super().__init__()
        self.reads_in_flight = 0
        self.reads_peak = 0
        self.set("read_resource", self._read)

    async def _read(self, req: ReadResourceRequest) -> ReadResourceResponse:
        self.reads_in_flight += 1
        self.reads_peak = max(self.reads_peak, self.reads_in_flight)
        try:
            for _ in range(3):
                await anyio.sleep(0)
        finally:
            self.reads_in_flight -= 1
        return ReadResourceResponse(req.current_state)


@pytest.mark.trio
@pytest.mark.parametrize("where", ["command line", "provider block"])
async def test_refresh_reads_are_held_to_the_same_limits_as_applies(tmp_path: Path, where: str) -> None:
    # a large refresh is what meets a cloud API's throttling first
    provider = CountingReads()
    assert (await _apply(_opts(tmp_path, MANY, parallelism=20), provider)).ok
    if where == "command line":
        opts = _opts(tmp_path, MANY, parallelism=20, limits=Limits(provider_parallelism={"count": 3}))
    else:
        opts = _opts(tmp_path, MANY + 'provider "count" {\n  strata {\n    parallelism = 3\n  }\n}\n',
                     parallelism=20)
    await make_plan(opts, lambda e: None, providers=Providers({"count": provider}))
    assert provider.reads_peak == 3, f"expected at most 3 reads in flight (and the cap reached), saw {provider.reads_peak}"


@pytest.mark.trio
async def test_strata_block_in_provider_sets_limits(tmp_path: Path) -> None:
    provider = Counting()
    opts = _opts(tmp_path, MANY + 'provider "count" {\n  strata {\n    parallelism = 2\n  }\n}\n',
                 parallelism=20)
    assert (await _apply(opts, provider)).ok
    assert provider.peak == 2


def test_strata_block_rejects_unknown_settings(tmp_path: Path) -> None:
    (tmp_path / "main.tf").write_text('provider "count" {\n  strata {\n    speed = 2\n  }\n}\n')
    from engine import DiagnosticsError

    with pytest.raises(DiagnosticsError) as exc:
        load_module(str(tmp_path))
    assert "main.tf:3" in str(exc.value) and "speed" in str(exc.value)


@pytest.mark.trio
async def test_retryable_errors_are_retried_until_success(tmp_path: Path) -> None:
    provider = Counting(fail_first=2)
    limits = Limits(retry=RetryPolicy(retries=3, base_delay=0.001))
    result = await _apply(_opts(tmp_path, 'resource "count_thing" "x" { n = 1 }', limits=limits), provider)
    assert result.ok, result.diagnostics
    assert provider.applies == 3


@pytest.mark.trio
async def test_retries_give_up_after_the_limit(tmp_path: Path) -> None:
    provider = Counting(fail_first=10)
    limits = Limits(retry=RetryPolicy(retries=2, base_delay=0.001))
    result = await _apply(_opts(tmp_path, 'resource "count_thing" "x" { n = 1 }', limits=limits), provider)
    assert not result.ok
    assert provider.applies == 3


@pytest.mark.trio
async def test_non_retryable_errors_are_not_retried(tmp_path: Path) -> None:
    provider = Counting(fail_first=1, retryable=False)
    limits = Limits(retry=RetryPolicy(retries=3, base_delay=0.001))
    result = await _apply(_opts(tmp_path, 'resource "count_thing" "x" { n = 1 }', limits=limits), provider)
    assert not result.ok and provider.applies == 1


@pytest.mark.trio
async def test_fail_fast_starts_nothing_after_the_first_failure(tmp_path: Path) -> None:
    provider = Counting(fail_first=1, retryable=False)
    result = await _apply(_opts(tmp_path, MANY, parallelism=1, fail_fast=True), provider)
    assert not result.ok
    assert provider.applies == 1, f"fail-fast should stop after the first failure, saw {provider.applies} calls"
    assert result.skipped == 29


@pytest.mark.trio
async def test_token_bucket_spaces_out_acquisitions() -> None:
    bucket = TokenBucket(rate=200, burst=1)
    start = anyio.current_time()
    for _ in range(5):
        await bucket.take()
    # 4 waits of 1/200 s after the first token: not a timing assertion on speed, a lower bound
    assert anyio.current_time() - start >= 4 / 200 * 0.9


def test_parse_pairs_rejects_malformed_values() -> None:
    assert parse_pairs(["sim=5", "aws.west=2"], "x") == {"sim": 5, "aws.west": 2}
    for bad in ("sim", "=3", "sim=0", "sim=abc"):
        with pytest.raises(ValueError, match="-x"):
            parse_pairs([bad], "x")


@pytest.mark.trio
async def test_a_typo_in_a_limit_name_is_an_error(tmp_path: Path) -> None:
    from engine import DiagnosticsError

    opts = _opts(tmp_path, MANY, limits=Limits(type_parallelism={"count_thng": 2}))
    with pytest.raises(DiagnosticsError) as exc:
        await make_plan(opts, lambda e: None, providers=Providers({"count": Counting()}))
    assert "count_thng" in str(exc.value) and "count_thing" in str(exc.value)


@pytest.mark.trio
async def test_apply_start_is_emitted_once_a_slot_is_held_not_while_waiting_for_one(tmp_path: Path) -> None:
    # "Creating..." must mean in flight: with a cap of 3, never more than 3 operations may have
    # started (by the event stream) without their provider call having returned
    provider = Counting()
    opts = _opts(tmp_path, MANY, parallelism=20, limits=Limits(provider_parallelism={"count": 3}))
    returned = 0
    original = provider.apply_resource_change

    async def counted(req: ApplyResourceChangeRequest) -> ApplyResourceChangeResponse:
        nonlocal returned
        try:
            return await original(req)
        finally:
            returned += 1

    provider.apply_resource_change = counted  # type: ignore[method-assign]
    started = 0
    worst = 0

    def emit(e: Any) -> None:
        nonlocal started, worst
        if e.type == "apply_start":
            started += 1
            worst = max(worst, started - returned)

    providers = Providers({"count": provider})
    planned = await make_plan(opts, lambda e: None, providers=providers)
    result = await apply_planned(planned, opts, emit)
    assert result.ok and started == 30
    assert worst <= 3, f"{worst} operations were reported started while only 3 may be in flight"


class ThrottledReads(CountingReads):
    """Reads fail with a retryable error the first ``fail_reads`` times."""

    def __init__(self, fail_reads: int, retryable: bool = True) -> None:
        super().__init__()
        self.fail_reads = fail_reads
        self.read_calls = 0
        self.read_retryable = retryable
        self.set("read_resource", self._throttled)

    def _throttled(self, req: ReadResourceRequest) -> ReadResourceResponse:
        self.read_calls += 1
        if self.read_calls <= self.fail_reads:
            return ReadResourceResponse(None, (error("throttled", retryable=self.read_retryable),))
        return ReadResourceResponse(req.current_state)


ONE = 'resource "count_thing" "x" {\n  n = 1\n}\n'


@pytest.mark.trio
async def test_a_retryable_read_error_during_refresh_is_retried_as_an_apply_s_would_be(tmp_path: Path) -> None:
    provider = ThrottledReads(fail_reads=2)
    assert (await _apply(_opts(tmp_path, ONE), provider)).ok
    opts = _opts(tmp_path, ONE, limits=Limits(retry=RetryPolicy(retries=3, base_delay=0.001)))
    planned = await make_plan(opts, lambda e: None, providers=Providers({"count": provider}))
    assert not planned.plan.has_changes()
    assert provider.read_calls == 3


@pytest.mark.trio
async def test_a_read_error_not_marked_retryable_fails_the_plan_at_once(tmp_path: Path) -> None:
    provider = ThrottledReads(fail_reads=1, retryable=False)
    assert (await _apply(_opts(tmp_path, ONE), provider)).ok
    opts = _opts(tmp_path, ONE, limits=Limits(retry=RetryPolicy(retries=3, base_delay=0.001)))
    with pytest.raises(DiagnosticsError):
        await make_plan(opts, lambda e: None, providers=Providers({"count": provider}))
    assert provider.read_calls == 1
