"""Every case of ``cases.py`` evaluated by strata gives what terraform 1.11 gave: the value and its
type, the known and unknown parts of a result while planning, the diagnostic's summary and detail.

terraform's answers are recorded in ``terraform_results.json`` (``oracle.py`` says how), so these
tests run without the binary; ``test_recorded_results_are_terraforms`` checks the recording against
terraform itself when it is on PATH.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from engine.lang.evaluate import EvalError, Scope, evaluate
from engine.lang.functions.timestamps import evaluation_clock
from engine.lang.hcl import parse_expression
from engine.values import UNKNOWN, equal, from_typed_json, unknown_mask, value_type
from tests.conftest import requires_terraform
from tests.engine.functions import oracle
from tests.engine.functions.cases import ERRORS, UNKNOWNS, VALUES

RECORDED = oracle.recorded()

_WHOLE_TYPES = ("cty compares whole types first (a list of string never equals a tuple, nor a list of dynamic); "
                "strata knows the whole type of fewer unknowns (not a conversion's, nor a regexall's), and "
                "says unknown where it does not")

# where strata cannot say what terraform says, and why (each still runs: it must keep failing)
KNOWN_DIFFERENCES = {
    'formatlist("%s", local.u)': "strata's unknowns carry no type: terraform knows local.u is a string, "
                                 "not a list, so the result has one element",
    "flatten([[local.u], [\"a\"]])": "strata's unknowns carry no type: terraform keeps an unknown string as an "
                                     "element, where an unknown could as well be a list to flatten",
    'toset([local.u, "a"])': "strata's unknowns carry no type: terraform knows the set holds \"a\" and an unknown "
                             "string; strata cannot tell whether the unknown would be \"a\"",
    'split(",", local.u) == tolist([null])': _WHOLE_TYPES,
    'regexall("a", local.u) == []': _WHOLE_TYPES,
    'tolist(toset(split(",", local.u))) == ["a"]': _WHOLE_TYPES,
    '(local.u == "a" ? split(",", "a") : split(",", "b")) == tolist(["x", "y"])': _WHOLE_TYPES,
    'tolist(split(",", local.u)) == ["a"]': _WHOLE_TYPES,
    "length(local.u) > -1": "strata's unknowns carry no type: terraform knows terraform_data's output is a string "
                            "(its input's type), whose length is at least 0",
    'rsadecrypt(file("files/secret.b64"), "-----BEGIN RSA PRIVATE KEY-----\\nAAAA\\n-----END RSA PRIVATE KEY-----\\n")':
        "Go's ASN.1 parser describes a malformed key in its own words",
}


class _NoResources:
    def has_resource(self, addr: Any) -> bool:
        return False

    def is_expanded(self, addr: Any) -> bool:
        return False

    def expansion(self, addr: Any) -> str:
        return "single"

    def instance_value(self, addr: Any, key: Any) -> Any:
        raise KeyError(addr)

    def resource_value(self, addr: Any) -> Any:
        raise KeyError(addr)


class _Sensitivity:
    """``var.s`` is sensitive, and whatever uses it or calls ``sensitive()``."""

    def uses(self, e: Any) -> bool:
        from engine.lang.expr import references

        text = repr(e)
        return any(r.root == "var" and r.step_name(0) == "s" for r in references(e)) or "'sensitive'" in text

    def hidden(self, *args: Any) -> bool:
        return False


def _locals(name: str, line: int) -> Any:
    return {"u": UNKNOWN, "tpl": "x=${a}"}[name]


def _scope() -> Scope:
    return Scope({"s": "secret"}, _locals, _NoResources(), sensitivity=_Sensitivity())


def strata(expr: str, applying: bool) -> Any:
    from datetime import UTC, datetime

    with evaluation_clock(datetime.now(UTC), applying):
        return evaluate(parse_expression(expr, "main.tf", 1), _scope())


@pytest.fixture(autouse=True)
def _files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    oracle.write_files(tmp_path)
    monkeypatch.chdir(tmp_path)


def _mark(case: str) -> Any:
    if case in KNOWN_DIFFERENCES:
        return pytest.param(case, marks=pytest.mark.xfail(reason=KNOWN_DIFFERENCES[case], strict=True))
    return case


@pytest.mark.parametrize("case", [_mark(c) for c in VALUES])
def test_value_and_type_match_terraform(case: str) -> None:
    want = RECORDED["values"][case]
    got = strata(case, applying=True)
    if want["type"] is None:  # terraform's null output
        assert got is None, f"{case}: terraform gives null, strata {got!r}"
        return
    expected = from_typed_json(want["value"], want["type"])
    assert equal(got, expected), f"{case}: terraform gives {expected!r}, strata {got!r}"
    assert _conforms(value_type(got), want["type"]), (
        f"{case}: terraform's type is {want['type']}, strata's {value_type(got)}")


def _mask(v: Any) -> Any:
    """terraform's after_unknown: False for a wholly known value, else the shape of its unknowns."""
    m = unknown_mask(v)
    return m if "True" in repr(m) else False


def _conforms(ours: Any, theirs: Any) -> bool:
    """Our type is terraform's, but where ours says dynamic (an empty collection's element type, a null)."""
    if ours == theirs or ours == "dynamic":
        return True
    if isinstance(ours, list) and isinstance(theirs, list) and ours[0] == theirs[0]:
        if ours[0] == "object":
            return ours[1].keys() == theirs[1].keys() and all(_conforms(ours[1][k], theirs[1][k]) for k in ours[1])
        if ours[0] == "tuple":
            return len(ours[1]) == len(theirs[1]) and all(_conforms(a, b) for a, b in zip(ours[1], theirs[1],
                                                                                         strict=True))
        return _conforms(ours[1], theirs[1])
    return False


@pytest.mark.parametrize("case", [_mark(c) for c in UNKNOWNS])
def test_unknown_parts_match_terraform_plan(case: str) -> None:
    want = RECORDED["unknowns"][case]
    got = strata(case, applying=False)
    mask = _mask(got)
    assert mask == want["after_unknown"], (
        f"{case}: terraform's plan has after_unknown {want['after_unknown']!r}, strata's result is {got!r}")
    if want["after_unknown"] is False:
        expected = want["after"]
        assert equal(got, from_typed_json(expected, value_type(got))) or got == expected, (
            f"{case}: terraform plans {expected!r}, strata {got!r}")


@pytest.mark.parametrize("case", [_mark(c) for c in ERRORS])
def test_error_matches_terraform(case: str) -> None:
    want = RECORDED["errors"][case]
    with pytest.raises(EvalError) as info:
        got = strata(case, applying=False)
        pytest.fail(f"{case}: terraform refuses it ({want['detail']}), strata gives {got!r}")
    assert (info.value.summary, info.value.detail) == (want["summary"], want["detail"]), (
        f"{case}: terraform says {want['summary']!r}: {want['detail']!r}")


def test_every_terraform_function_is_implemented() -> None:
    from engine.lang.functions.registry import FUNCTIONS, PARAMS
    from engine.lang.functions.terraform_signatures import TERRAFORM_FUNCTIONS

    expression_functions = {"try", "can"}  # the evaluator's own (engine.lang.calls)
    missing = sorted(set(TERRAFORM_FUNCTIONS) - set(FUNCTIONS) - expression_functions)
    assert not missing, f"terraform 1.11 functions strata lacks: {missing}"
    for name, (params, variadic, _result) in TERRAFORM_FUNCTIONS.items():
        ours = PARAMS[name]
        theirs = (tuple(p[0] for p in params), variadic[0] if variadic else None)
        assert ours == theirs, f"{name}: terraform's parameters are {theirs}, strata declares {ours}"


@requires_terraform
def test_recorded_results_are_terraforms() -> None:
    assert oracle.record() == RECORDED, "terraform's answers changed: record them again (python -m " \
                                        "tests.engine.functions.oracle)"
