"""The results of provider-defined function calls, recorded while planning and checked when the
plan is applied, as terraform 1.11 does (its ``providers.FunctionResults``).

A provider function must be pure: the same arguments give the same result. Planning records, for
each call, a digest of the provider, the function and its arguments with a digest of its result;
the plan carries the digests (:attr:`engine.plans.plan.Plan.function_results`), and apply starts
from them. A call whose result differs from the one recorded for the same arguments fails with
terraform's "provider function returned an inconsistent result" (with both results, when the
earlier one was seen in this run). An unknown result is not recorded.

The table of the evaluation in progress is :data:`RESULTS` (None: nothing is checked, as in
``console`` or ``validate``).
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from engine.diagnostics import FunctionError
from engine.values import UNKNOWN, ListVal, MapVal, SetVal, is_wholly_known

FunctionHash = tuple[str, str]
"""(digest of provider, function and arguments; digest of the result), both hexadecimal."""


def _digest(value: Any) -> bytes:
    """A value's digest: cty's ``GoString`` of it (its kind, keys sorted), as terraform's, so equal
    values agree (numbers of any size)."""
    return go_string(value).encode()


class FunctionResults:
    """The results seen so far (preloaded from a plan's digests): ``check`` each call's result."""

    def __init__(self, hashes: Iterable[FunctionHash] = ()) -> None:
        self._lock = threading.Lock()
        # call digest -> (result digest, the result when this run saw it, else UNKNOWN)
        self._results: dict[str, tuple[str, Any]] = {k: (r, UNKNOWN) for k, r in hashes}

    def check(self, provider: str, name: str, args: Iterable[Any], result: Any) -> None:
        """Record ``result`` of ``name(args...)`` of ``provider``, or raise FunctionError when
        another result was recorded for the same call."""
        if not is_wholly_known(result):
            return
        call = hashlib.sha256(f"{provider}|{name}".encode())
        for a in args:
            call.update(b"|" + _digest(a))
        key = call.hexdigest()
        got = hashlib.sha256(_digest(result)).hexdigest()
        with self._lock:
            prior = self._results.setdefault(key, (got, result))
        if prior[0] == got:
            return
        if prior[1] is UNKNOWN:
            raise FunctionError("provider function returned an inconsistent result")
        raise FunctionError(f"provider function returned an inconsistent result,\nwas: {go_string(prior[1])},\n"
                            f"now: {go_string(result)}")

    def hashes(self) -> tuple[FunctionHash, ...]:
        """The digests to record in the plan, in a stable order."""
        with self._lock:
            return tuple(sorted((k, r) for k, (r, _) in self._results.items()))


RESULTS: ContextVar[FunctionResults | None] = ContextVar("RESULTS", default=None)
"""The table of the evaluation in progress."""


@contextmanager
def checking_function_results(hashes: Iterable[FunctionHash] = ()) -> Iterator[FunctionResults]:
    """Inside the ``with``, provider function results are recorded in (and checked against) a
    table preloaded with ``hashes``."""
    table = FunctionResults(hashes)
    token = RESULTS.set(table)
    try:
        yield table
    finally:
        RESULTS.reset(token)


def check_result(provider: str, name: str, args: Iterable[Any], result: Any) -> None:
    """:meth:`FunctionResults.check` on the table in use, if any."""
    table = RESULTS.get()
    if table is not None and provider:
        table.check(provider, name, args, result)


def go_string(v: Any) -> str:
    """``v`` as cty's ``GoString`` writes a value (``cty.StringVal("a")``), for the message."""
    from engine.lang.quote import go_quote

    if v is None:
        return "cty.NullVal(cty.DynamicPseudoType)"
    if v is True or v is False:
        return "cty.True" if v else "cty.False"
    if isinstance(v, int):
        return f"cty.NumberIntVal({v})"
    if isinstance(v, float):
        return f"cty.NumberFloatVal({v!r})"
    if isinstance(v, str):
        return f"cty.StringVal({go_quote(v)})"
    if isinstance(v, dict):
        kind = "MapVal" if isinstance(v, MapVal) else "ObjectVal"
        body = ", ".join(f"{go_quote(k)}:{go_string(v[k])}" for k in sorted(v))
        return f"cty.{kind}(map[string]cty.Value{{{body}}})"
    if isinstance(v, tuple):
        kind = "ListVal" if isinstance(v, ListVal) else "SetVal" if isinstance(v, SetVal) else "TupleVal"
        return f"cty.{kind}([]cty.Value{{{', '.join(go_string(x) for x in v)}}})"
    return "cty.DynamicVal"
