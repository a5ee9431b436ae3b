"""engine/lang/functions: every built-in function, checked against terraform 1.11's own results.

Every expected value below was produced by ``terraform console`` (terraform
1.11.4) on the same inputs; the types are terraform's too: ``tolist(...)`` is
a :class:`ListVal`, ``[...]`` a tuple, ``tomap(...)`` a :class:`MapVal`,
``{...}`` an object (``dict``).

Three tables cover every function in ``FUNCTIONS``: a normal call, a call
with an unknown argument (terraform returns a wholly unknown value), and a
call terraform rejects; the functions of strings, paths, files, hashes and
base64 (``TEXT_FUNCTIONS``) have tables of their own at the end. The
behaviours of single functions are pinned down in ``test_<family>.py``.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from engine.diagnostics import FunctionError
from engine.lang.functions.registry import FUNCTIONS, PARAMS
from engine.values import UNKNOWN, ListVal, MapVal, SetVal
from tests.engine.functions import cases
from tests.engine.functions.support import U, call, same

# the functions of strings, paths, files, hashes and base64 that take only strings: the tables below
# call each of them with an unknown argument and with a list
TEXT_FUNCTIONS = frozenset({
    "abspath", "base64decode", "base64encode", "basename", "chomp", "dirname", "endswith", "file", "filebase64",
    "fileexists", "filemd5", "filesha1", "filesha256", "filesha512", "md5", "pathexpand", "sha1", "sha256",
    "sha512", "startswith", "trim", "trimprefix", "trimsuffix",
})


NORMAL: list[tuple[str, str, tuple[Any, ...], Any]] = [
    # (function, terraform expression, args, terraform's result)
    ("toset", 'toset(["b","a","b"])', (("b", "a", "b"),), SetVal(("a", "b"))),
    ("tolist", 'tolist(["a",1])', (("a", 1),), ListVal(["a", "1"])),
    ("tomap", 'tomap({a=1,b="x"})', ({"a": 1, "b": "x"},), MapVal({"a": "1", "b": "x"})),
    ("tostring", "tostring(true)", (True,), "true"),
    ("tonumber", 'tonumber("42")', ("42",), 42),
    ("tobool", 'tobool("false")', ("false",), False),
    ("length", 'length("héllo")', ("héllo",), 5),
    ("format", 'format("%s-%03d", "a", 7)', ("%s-%03d", "a", 7), "a-007"),
    ("join", 'join(",", ["a"], ["b","c"])', (",", ("a",), ("b", "c")), "a,b,c"),
    ("jsonencode", "jsonencode({a=1,b=[true,null]})", ({"a": 1, "b": (True, None)},),
     '{"a":1,"b":[true,null]}'),
    ("jsondecode", 'jsondecode("{\\"a\\":[1,2]}")', ('{"a":[1,2]}',), {"a": (1, 2)}),
    ("upper", 'upper("héllo")', ("héllo",), "HÉLLO"),
    ("lower", 'lower("ÀB")', ("ÀB",), "àb"),
    ("concat", "concat([1],[2,3])", ((1,), (2, 3)), (1, 2, 3)),
    ("merge", "merge({a=1},{b=2},{a=3})", ({"a": 1}, {"b": 2}, {"a": 3}), {"a": 3, "b": 2}),
    ("keys", "keys(tomap({b=1,a=2}))", (MapVal({"b": 1, "a": 2}),), ListVal(["a", "b"])),
    ("values", "values({b=1,a=2})", ({"b": 1, "a": 2},), (2, 1)),
    ("lookup", 'lookup({a=1},"b",2)', ({"a": 1}, "b", 2), 2),
    ("element", 'element(["a","b","c"], 4)', (("a", "b", "c"), 4), "b"),
    ("range", "range(1,4)", (1, 4), ListVal([1, 2, 3])),
    ("coalesce", 'coalesce("", null, "b")', ("", None, "b"), "b"),
    ("max", "max(1, 5, 3)", (1, 5, 3), 5),
    ("min", "min(1, 5, 3)", (1, 5, 3), 1),
    ("split", 'split(",", "a,b,c")', (",", "a,b,c"), ListVal(["a", "b", "c"])),
    ("replace", 'replace("hello","/l+/","L")', ("hello", "/l+/", "L"), "heLo"),
    ("trimspace", 'trimspace("\\t\\n x \\r\\n")', ("\t\n x \r\n",), "x"),
    ("contains", 'contains(["a","b"],"a")', (("a", "b"), "a"), True),
    ("flatten", "flatten([[1,[2]],3,[]])", (((1, (2,)), 3, ()),), (1, 2, 3)),
    ("distinct", 'distinct(["a","b","a"])', (("a", "b", "a"),), ListVal(["a", "b"])),
    ("sort", "sort([3, 10, 1])", ((3, 10, 1),), ListVal(["1", "10", "3"])),
    ("substr", 'substr("hello", -3, -1)', ("hello", -3, -1), "llo"),
    ("abs", "abs(-3)", (-3,), 3),
    ("ceil", "ceil(-1.2)", (-1.2,), -1),
    ("floor", "floor(-1.2)", (-1.2,), -2),
    ("zipmap", 'zipmap(["a","b"],[1,2])', (("a", "b"), (1, 2)), {"a": 1, "b": 2}),
    # the value unchanged: the mark is followed through the configuration (engine.sensitivity)
    ("sensitive", 'sensitive("x")', ("x",), "x"),
    ("nonsensitive", 'nonsensitive("x")', ("x",), "x"),
    ("one", 'one(["x"])', (("x",),), "x"),
    ("one", "one([])", ((),), None),
]


@pytest.mark.parametrize(("fn", "tf", "args", "expected"), NORMAL, ids=[n[1] for n in NORMAL])
def test_function_normal_call_matches_terraform(fn, tf, args, expected):
    got = call(fn, *args)
    assert same(got, expected), f"{tf}: terraform gives {expected!r}, strata gave {got!r}"


UNKNOWNS: list[tuple[str, str, tuple[Any, ...]]] = [
    # (function, terraform expression with u unknown, args) — terraform's result is wholly unknown
    ("toset", "toset(u)", (U,)),
    ("tolist", "tolist(u)", (U,)),
    ("tomap", "tomap(u)", (U,)),
    ("tostring", "tostring(u)", (U,)),
    ("tonumber", "tonumber(u)", (U,)),
    ("tobool", "tobool(u)", (U,)),
    ("length", "length(u)", (U,)),
    ("format", 'format("%s", u)', ("%s", U)),
    ("format", "format(u, 1)", (U, 1)),
    ("join", 'join(",", ["a", u])', (",", ("a", U))),
    ("join", 'join(u, ["a"])', (U, ("a",))),
    ("jsonencode", "jsonencode({a=u})", ({"a": U},)),
    ("jsondecode", "jsondecode(u)", (U,)),
    ("upper", "upper(u)", (U,)),
    ("sensitive", "sensitive(u)", (U,)),
    ("nonsensitive", "nonsensitive(u)", (U,)),
    ("one", "one(u)", (U,)),
    ("lower", "lower(u)", (U,)),
    ("concat", 'concat(["a"], u)', (("a",), U)),
    ("merge", "merge({a=1}, u)", ({"a": 1}, U)),
    ("keys", "keys(u)", (U,)),
    ("values", "values(u)", (U,)),
    ("lookup", 'lookup(u, "a")', (U, "a")),
    ("lookup", "lookup({a=1}, u)", ({"a": 1}, U)),
    ("element", "element(u, 1)", (U, 1)),
    ("range", "range(u, 3)", (U, 3)),
    ("coalesce", 'coalesce(u, "a")', (U, "a")),
    ("coalesce", "coalesce(null, u)", (None, U)),
    ("max", "max(u, 1)", (U, 1)),
    ("min", "min(u, 1)", (U, 1)),
    ("split", 'split(",", u)', (",", U)),
    ("replace", 'replace(u, "a", "b")', (U, "a", "b")),
    ("replace", 'replace("a", u, "b")', ("a", U, "b")),
    ("trimspace", "trimspace(u)", (U,)),
    ("contains", 'contains(u, "a")', (U, "a")),
    ("contains", 'contains(["a"], u)', (("a",), U)),
    ("flatten", "flatten([[u], [1]])", (((U,), (1,)),)),
    ("distinct", 'distinct(["a", u])', (("a", U),)),
    ("sort", "sort(u)", (U,)),
    ("substr", "substr(u, 0, 1)", (U, 0, 1)),
    ("substr", 'substr("a", u, 1)', ("a", U, 1)),
    ("abs", "abs(u)", (U,)),
    ("ceil", "ceil(u)", (U,)),
    ("floor", "floor(u)", (U,)),
    ("zipmap", "zipmap(u, [1])", (U, (1,))),
    ("zipmap", 'zipmap(["a"], u)', (("a",), U)),
]


@pytest.mark.parametrize(("fn", "tf", "args"), UNKNOWNS, ids=[u[1] for u in UNKNOWNS])
def test_function_unknown_argument_gives_unknown(fn, tf, args):
    got = call(fn, *args)
    assert got is UNKNOWN, f"{tf} is (known after apply) in terraform, strata gave {got!r}"


ERRORS: list[tuple[str, str, tuple[Any, ...]]] = [
    ("one", "one([1, 2])", ((1, 2),)),
    ("one", 'one("a")', ("a",)),
    # (function, terraform expression, args) — terraform reports "Invalid function argument"
    ("toset", 'toset("a")', ("a",)),
    ("tolist", 'tolist("a")', ("a",)),
    ("tomap", 'tomap("a")', ("a",)),
    ("tostring", "tostring([1])", ((1,),)),
    ("tonumber", 'tonumber("abc")', ("abc",)),
    ("tonumber", "tonumber(true)", (True,)),
    ("tobool", 'tobool("yes")', ("yes",)),
    ("tobool", "tobool(1)", (1,)),
    ("length", "length(null)", (None,)),
    ("length", "length(5)", (5,)),
    ("format", 'format("%d")', ("%d",)),
    ("format", 'format("%d", "abc")', ("%d", "abc")),
    ("format", 'format("%s", [1])', ("%s", (1,))),
    ("join", 'join(",", ["a", null])', (",", ("a", None))),
    ("join", 'join(",", "a")', (",", "a")),
    ("jsondecode", 'jsondecode("{")', ("{",)),
    ("upper", "upper([1])", ((1,),)),
    ("upper", "upper(null)", (None,)),
    ("lower", "lower([1])", ((1,),)),
    ("concat", 'concat("a")', ("a",)),
    ("merge", 'merge({a=1}, "x")', ({"a": 1}, "x")),
    ("keys", 'keys("x")', ("x",)),
    ("values", 'values("x")', ("x",)),
    ("lookup", 'lookup({a=1},"b")', ({"a": 1}, "b")),
    ("lookup", 'lookup("x","a")', ("x", "a")),
    ("element", "element([], 0)", ((), 0)),
    ("element", 'element("x", 0)', ("x", 0)),
    ("range", "range(0,1,0)", (0, 1, 0)),
    ("range", 'range("a")', ("a",)),
    ("coalesce", 'coalesce(null, "")', (None, "")),
    ("max", 'max("a")', ("a",)),
    ("min", 'min("a")', ("a",)),
    ("split", 'split(",", null)', (",", None)),
    ("replace", 'replace(null,"a","b")', (None, "a", "b")),
    ("trimspace", "trimspace(null)", (None,)),
    ("contains", 'contains("a","a")', ("a", "a")),
    ("flatten", 'flatten("a")', ("a",)),
    ("distinct", 'distinct("a")', ("a",)),
    ("sort", 'sort("a")', ("a",)),
    ("sort", 'sort([["a"]])', ((("a",),),)),
    ("substr", "substr([1], 0, 1)", ((1,), 0, 1)),
    ("abs", 'abs("x")', ("x",)),
    ("ceil", 'ceil("x")', ("x",)),
    ("floor", 'floor("x")', ("x",)),
    ("zipmap", 'zipmap("a", [1])', ("a", (1,))),
    ("zipmap", "zipmap([null], [1])", ((None,), (1,))),
]


# jsonencode accepts every known value in terraform: its only failure is a wrong argument count,
# which the evaluator reports (see test_evaluate.py), so it has no FunctionError case.
NO_ERROR_CASE = {"jsonencode", "sensitive", "nonsensitive"}  # they take any value


@pytest.mark.parametrize(("fn", "tf", "args"), ERRORS, ids=[e[1] for e in ERRORS])
def test_function_bad_argument_raises_function_error(fn, tf, args):
    with pytest.raises(FunctionError):
        got = call(fn, *args)
        pytest.fail(f"{tf} is an error in terraform, strata returned {got!r}")


# the cases checked against terraform's recorded answers (test_terraform_oracle.py) count as well
_ORACLE = {"NORMAL": cases.VALUES, "UNKNOWNS": cases.UNKNOWNS, "ERRORS": cases.ERRORS}
NEVER_UNKNOWN = {"plantimestamp"}  # the plan's time is known while planning


@pytest.mark.parametrize("table", ["NORMAL", "UNKNOWNS", "ERRORS"])
def test_every_function_is_covered_by_each_table(table):
    rows = globals()[table]
    covered = {r[0] for r in rows} | {f for f in FUNCTIONS for c in _ORACLE[table] if re.search(rf"\b{f}\(", c)}
    covered |= NEVER_UNKNOWN if table == "UNKNOWNS" else set()
    # encoding, hashing, path and file functions have their own tables in test_functions_text.py
    expected = set(FUNCTIONS) - set(TEXT_FUNCTIONS) - (NO_ERROR_CASE if table == "ERRORS" else set())
    missing = sorted(expected - covered)
    assert not missing, f"functions without a {table} case: {missing}"


PARTIAL: list[tuple[str, str, tuple[Any, ...], Any]] = [
    ('keys({a=u})', "keys", ({"a": U},), ("a",)),
    ('lookup({a=u, b=1}, "b")', "lookup", ({"a": U, "b": 1}, "b"), 1),
    ('lookup({a=1}, "a", u)', "lookup", ({"a": 1}, "a", U), 1),
    ('element(["a", u], 0)', "element", (("a", U), 0), "a"),
    ('contains(["a", u], "a")', "contains", (("a", U), "a"), True),
    ("merge({a=u}, {b=1})", "merge", ({"a": U}, {"b": 1}), {"a": U, "b": 1}),
    ("concat([u], [1])", "concat", ((U,), (1,)), (U, 1)),
    ("values({a=u, b=1})", "values", ({"a": U, "b": 1},), (U, 1)),
    ('zipmap(["a"], [u])', "zipmap", (("a",), (U,)), {"a": U}),
    ('tolist(["a", u])', "tolist", (("a", U),), ListVal(["a", U])),
    ("tomap({a=u})", "tomap", ({"a": U},), MapVal({"a": U})),
]


@pytest.mark.parametrize(("tf", "fn", "args", "expected"), PARTIAL, ids=[p[0] for p in PARTIAL])
def test_known_parts_survive_a_nested_unknown(tf, fn, args, expected):
    got = call(fn, *args)
    assert same(got, expected), f"{tf} is {expected!r} in terraform (u unknown); strata gave {got!r}"


@pytest.mark.parametrize(("name", "args", "expected"), [
    ("base64encode", ("hi",), "aGk="),
    ("base64decode", ("aGk=",), "hi"),
    ("md5", ("a",), "0cc175b9c0f1b6a831c399e269772661"),
    ("sha1", ("a",), "86f7e437faa5a7fce15d1ddcb9eaeaea377667b8"),
    ("sha256", ("a",), "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb"),
    ("trimprefix", ("abc", "a"), "bc"),
    ("trimsuffix", ("abc", "c"), "ab"),
    ("trim", ("?!hello?!", "!?"), "hello"),
    ("chomp", ("x\n\n",), "x"),
    ("basename", ("a/b.txt",), "b.txt"),
    ("dirname", ("a/b.txt",), "a"),
    ("startswith", ("hello", "he"), True),
    ("endswith", ("hello", "lo"), True),
])
def test_function_matches_terraform(name: str, args: tuple, expected: object) -> None:
    assert FUNCTIONS[name](*args) == expected


def _arity(name: str) -> int:
    return len(PARAMS[name][0])


@pytest.mark.parametrize("name", sorted(TEXT_FUNCTIONS))
def test_unknown_argument_gives_unknown(name: str) -> None:
    args = (UNKNOWN,) + ("a",) * (_arity(name) - 1)
    assert FUNCTIONS[name](*args) is UNKNOWN


@pytest.mark.parametrize("name", sorted(TEXT_FUNCTIONS))
def test_a_list_where_a_string_is_needed_is_a_function_error(name: str) -> None:
    with pytest.raises(FunctionError):
        FUNCTIONS[name](*([("x",)] * _arity(name)))
