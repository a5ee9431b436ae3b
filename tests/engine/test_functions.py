"""engine/functions.py: the built-in functions, checked against terraform 1.11's own results.

Every expected value below was produced by ``terraform console`` (terraform
1.11.4) on the same inputs; the types are terraform's too: ``tolist(...)`` is
a :class:`ListVal`, ``[...]`` a tuple, ``tomap(...)`` a :class:`MapVal`,
``{...}`` an object (``dict``).

Three tables cover every function in ``FUNCTIONS``: a normal call, a call
with an unknown argument (terraform returns a wholly unknown value), and a
call terraform rejects. Tests after the tables pin down individual
terraform behaviours.
"""

from __future__ import annotations

from typing import Any

import pytest

from engine.lang.functions import FUNCTIONS, FunctionError
from engine.lang.functions_text import TEXT_FUNCTIONS
from engine.values import UNKNOWN, ListVal, MapVal, SetVal, equal

U = UNKNOWN


def call(name: str, *args: Any) -> Any:
    return FUNCTIONS[name](*args)


def same(got: Any, expected: Any) -> bool:
    """Equal with types (tuple vs list, object vs map, number vs bool), as terraform's == is."""
    return equal(got, expected)


# --------------------------------------------------------------------------- normal calls

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


# --------------------------------------------------------------------------- unknown arguments

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


# --------------------------------------------------------------------------- errors

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


@pytest.mark.parametrize("table", ["NORMAL", "UNKNOWNS", "ERRORS"])
def test_every_function_is_covered_by_each_table(table):
    rows = globals()[table]
    covered = {r[0] for r in rows}
    # encoding, hashing, path and file functions have their own tables in test_functions_text.py
    expected = set(FUNCTIONS) - set(TEXT_FUNCTIONS) - (NO_ERROR_CASE if table == "ERRORS" else set())
    missing = sorted(expected - covered)
    assert not missing, f"functions without a {table} case: {missing}"


# --------------------------------------------------------------------------- nulls pass through conversions


@pytest.mark.parametrize("fn", ["tostring", "tonumber", "tobool", "toset", "tolist", "tomap"])
def test_type_conversion_of_null_is_null(fn):
    assert call(fn, None) is None, f"{fn}(null) is null in terraform"


# --------------------------------------------------------------------------- format


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (("%q", "hi"), '"hi"'),
        (("%q", 'a"b'), '"a\\"b"'),
        (("%v", (1, "a")), '[1,"a"]'),
        (("%t", True), "true"),
        (("%x", 255), "ff"),
        (("%X", 255), "FF"),
        (("%#x", 255), "0xff"),
        (("%o", 8), "10"),
        (("%e", 1500), "1.500000e+03"),
        (("%%",), "%"),
        (("%5s|", "ab"), "   ab|"),
        (("%-5s|", "ab"), "ab   |"),
        (("%.3s", "abcdef"), "abc"),
        (("%10.2f|", 3.14159), "      3.14|"),
        (("%+d", 5), "+5"),
        (("%d", "12"), "12"),
        (("%d", 3.0), "3"),
        (("%s", 1.5), "1.5"),
    ],
    ids=repr,
)
def test_format_verbs_match_terraform(args, expected):
    got = call("format", *args)
    assert got == expected, f"format{args!r}: terraform gives {expected!r}, strata {got!r}"


def test_format_b_verb_formats_binary():
    try:
        got = call("format", "%b", 5)
    except Exception as exc:  # noqa: BLE001 - the bug is that this escapes as a ValueError
        pytest.fail(f'format("%b", 5) is "101" in terraform; strata raised {type(exc).__name__}: {exc}')
    assert got == "101"


def test_format_t_requires_a_bool():
    with pytest.raises(FunctionError):
        got = call("format", "%t", "x")
        pytest.fail(f'format("%t", "x") is an error in terraform ("a bool is required"), strata gave {got!r}')


def test_format_d_requires_a_whole_number():
    with pytest.raises(FunctionError):
        got = call("format", "%d", 1.5)
        pytest.fail(f'format("%d", 1.5) is an error in terraform ("an integer is required"), strata gave {got!r}')


def test_format_rejects_unused_arguments():
    with pytest.raises(FunctionError):
        got = call("format", "%s", "a", "b")
        pytest.fail(f'format("%s", "a", "b") is an error in terraform ("too many arguments"), strata gave {got!r}')


# --------------------------------------------------------------------------- type conversions


def test_tolist_unifies_primitives_to_string():
    assert same(call("tolist", ("a", True)), ListVal(["a", "true"]))


def test_toset_unifies_primitives_to_string():
    assert same(call("toset", ("a", 1, True)), SetVal.of(["1", "a", "true"]))


def test_tomap_unifies_primitives_to_string():
    assert same(call("tomap", {"a": "x", "b": True}), MapVal({"a": "x", "b": "true"}))


def test_tomap_keeps_uniform_element_types():
    assert same(call("tomap", {"a": (1,), "b": (2,)}), MapVal({"a": (1,), "b": (2,)}))


def test_toset_of_number_and_bool_is_an_error():
    # cty unifies number and bool only through string, and no element is a string
    with pytest.raises(FunctionError):
        got = call("toset", (1, True))
        pytest.fail(f"toset([1, true]) is an error in terraform (no single type), strata gave {got!r}")


def test_tolist_of_number_and_bool_is_an_error():
    with pytest.raises(FunctionError):
        got = call("tolist", (1, True))
        pytest.fail(f"tolist([1, true]) is an error in terraform (no single type), strata gave {got!r}")


def test_tomap_of_number_and_bool_is_an_error():
    with pytest.raises(FunctionError):
        got = call("tomap", {"a": True, "b": 1})
        pytest.fail(f"tomap({{a=true, b=1}}) is an error in terraform (no single type), strata gave {got!r}")


def test_tolist_of_tuple_and_string_is_an_error():
    with pytest.raises(FunctionError):
        got = call("tolist", (("a",), "b"))
        pytest.fail(f'tolist([["a"], "b"]) is an error in terraform (no single type), strata gave {got!r}')


def test_tomap_of_tuple_and_string_is_an_error():
    with pytest.raises(FunctionError):
        got = call("tomap", {"a": (1,), "b": "x"})
        pytest.fail(f'tomap({{a=[1], b="x"}}) is an error in terraform (no single type), strata gave {got!r}')


def test_toset_keeps_null_elements():
    got = call("toset", (None, "a"))
    assert len(got) == 2 and None in tuple(got), "toset([null, \"a\"]) keeps the null element in terraform"


def test_tostring_of_large_whole_number_has_no_exponent():
    got = call("tostring", 1e20)
    assert got == "100000000000000000000", f'tostring(1e20) is "100000000000000000000" in terraform, got {got!r}'


def test_tonumber_rejects_surrounding_whitespace():
    with pytest.raises(FunctionError):
        got = call("tonumber", " 1")
        pytest.fail(f'tonumber(" 1") is an error in terraform (not a decimal number), strata gave {got!r}')


def test_tonumber_exponent_string_gives_whole_number():
    got = call("jsonencode", call("tonumber", "1e3"))
    assert got == "1000", f'jsonencode(tonumber("1e3")) is "1000" in terraform, strata gave {got!r}'


def test_tobool_is_case_sensitive():
    with pytest.raises(FunctionError):
        call("tobool", "True")


# --------------------------------------------------------------------------- collections


def test_length_counts_elements_not_unknowns():
    assert call("length", (U, 1)) == 2, "length([u, 1]) is 2 in terraform: the count is known"


def test_length_of_set_counts_unique_elements():
    assert call("length", SetVal.of(["a", "a"])) == 1


def test_join_accepts_numbers_and_bools():
    assert call("join", ",", (1, True)) == "1,true"


def test_join_of_set_uses_set_order():
    assert call("join", "-", SetVal.of(["b", "a"])) == "a-b"


def test_join_requires_at_least_one_list():
    with pytest.raises(FunctionError):
        got = call("join", ",")
        pytest.fail(f'join(",") is an error in terraform ("at least one list is required"), strata gave {got!r}')


def test_concat_of_tuples_is_tuple():
    assert same(call("concat", (1,), ("a",)), (1, "a"))


def test_concat_of_lists_is_list():
    got = call("concat", ListVal(["a"]), ListVal(["b"]))
    assert same(got, ListVal(["a", "b"])), f'concat(tolist(["a"]), tolist(["b"])) is a list in terraform, got {got!r}'


def test_concat_requires_an_argument():
    with pytest.raises(FunctionError):
        got = call("concat")
        pytest.fail(f"concat() is an error in terraform, strata gave {got!r}")


def test_concat_rejects_sets():
    with pytest.raises(FunctionError):
        got = call("concat", SetVal.of(["a"]), (1,))
        pytest.fail(f'concat(toset(["a"]), [1]) is an error in terraform (lists or tuples only), got {got!r}')


def test_merge_ignores_null_arguments():
    assert same(call("merge", {"a": 1}, None), {"a": 1})


def test_merge_replaces_nested_objects_whole():
    assert same(call("merge", {"a": {"x": 1}}, {"a": {"y": 2}}), {"a": {"y": 2}})


def test_merge_of_nothing_is_empty_object():
    assert same(call("merge"), {})


def test_keys_of_object_is_a_tuple():
    got = call("keys", {"b": 1, "a": 2})
    assert same(got, ("a", "b")), f'keys({{b=1,a=2}}) is the tuple ["a","b"] in terraform (so == ["a","b"] holds), got {got!r}'


def test_values_of_map_is_a_list():
    got = call("values", MapVal({"b": 1, "a": 2}))
    assert same(got, ListVal([2, 1])), f"values(tomap({{b=1,a=2}})) is tolist([2,1]) in terraform, got {got!r}"


def test_lookup_returns_null_value_present_in_map():
    assert call("lookup", {"a": None}, "a", "d") is None


def test_element_wraps_index_around():
    assert call("element", ("a", "b", "c"), 4) == "b"


def test_element_converts_string_index():
    assert call("element", (1, 2, 3), "1") == 2


def test_element_rejects_fractional_index():
    with pytest.raises(FunctionError):
        got = call("element", (1, 2, 3), 1.9)
        pytest.fail(f"element([1,2,3], 1.9) is an error in terraform (whole number required), strata gave {got!r}")


def test_element_rejects_sets():
    with pytest.raises(FunctionError):
        got = call("element", SetVal.of(["b", "a"]), 0)
        pytest.fail(f'element(toset(["b","a"]), 0) is an error in terraform, strata gave {got!r}')


def test_range_counts_down_when_start_is_above_limit():
    assert same(call("range", 4, 1), ListVal([4, 3, 2]))


def test_range_with_fractional_step():
    assert same(call("range", 0, 1, 0.25), ListVal([0, 0.25, 0.5, 0.75]))


def test_range_single_negative_limit_counts_down_from_zero():
    got = call("range", -3)
    assert same(got, ListVal([0, -1, -2])), f"range(-3) is [0, -1, -2] in terraform, strata gave {got!r}"


def test_range_without_arguments_is_a_function_error():
    try:
        got = call("range")
    except FunctionError:
        return
    except Exception as exc:  # noqa: BLE001
        pytest.fail(f"range() must raise FunctionError (terraform: must have one, two, or three arguments); "
                    f"strata raised {type(exc).__name__}: {exc}")
    pytest.fail(f"range() is an error in terraform, strata gave {got!r}")


@pytest.mark.parametrize("fn", ["max", "min"])
def test_max_min_without_arguments_is_a_function_error(fn):
    try:
        got = call(fn)
    except FunctionError:
        return
    except Exception as exc:  # noqa: BLE001
        pytest.fail(f"{fn}() must raise FunctionError (terraform: must pass at least one number); "
                    f"strata raised {type(exc).__name__}: {exc}")
    pytest.fail(f"{fn}() is an error in terraform, strata gave {got!r}")


def test_max_converts_numeric_strings():
    assert call("max", "10", "9") == 10


def test_coalesce_skips_only_null_and_empty_string():
    assert call("coalesce", False, True) is False
    assert call("coalesce", 0, 1) == 0


def test_coalesce_unifies_result_to_string():
    got = call("coalesce", 1, "a")
    assert got == "1", f'coalesce(1, "a") is "1" in terraform (arguments unify to string), strata gave {got!r}'


def test_coalesce_returns_first_known_before_unknown():
    assert call("coalesce", "a", U) == "a"


def test_split_keeps_empty_string():
    assert same(call("split", ",", ""), ListVal([""]))


def test_split_on_empty_separator_splits_characters():
    try:
        got = call("split", "", "abc")
    except Exception as exc:  # noqa: BLE001
        pytest.fail(f'split("", "abc") is ["a","b","c"] in terraform; strata raised {type(exc).__name__}: {exc}')
    assert same(got, ListVal(["a", "b", "c"]))


def test_replace_substitutes_numbered_groups():
    assert call("replace", "a-b", "/(\\w)-(\\w)/", "$2-$1") == "b-a"


def test_replace_substitutes_braced_numbered_groups():
    assert call("replace", "abc", "/(b)/", "[${1}]") == "a[b]c"


def test_replace_substitutes_named_groups():
    got = call("replace", "abc", "/(?P<x>b)/", "[${x}]")
    assert got == "a[b]c", f'replace("abc", "/(?P<x>b)/", "[$${{x}}]") is "a[b]c" in terraform, got {got!r}'


def test_replace_plain_substring_is_literal():
    assert call("replace", "a.b", ".", "-") == "a-b"


def test_replace_with_invalid_regex_is_a_function_error():
    try:
        got = call("replace", "a", "/(/", "b")
    except FunctionError:
        return
    except Exception as exc:  # noqa: BLE001
        pytest.fail(f'replace("a", "/(/", "b") must raise FunctionError (terraform: error parsing regexp); '
                    f"strata raised {type(exc).__name__}: {exc}")
    pytest.fail(f"an invalid regex is an error in terraform, strata gave {got!r}")


def test_contains_compares_with_types():
    assert call("contains", (1,), "1") is False, 'contains([1], "1") is false in terraform'


def test_contains_finds_structural_values():
    assert call("contains", ((1,),), (1,)) is True


def test_flatten_keeps_null_elements():
    assert same(call("flatten", (1, None)), (1, None))


def test_flatten_descends_into_lists_and_sets():
    assert same(call("flatten", (SetVal.of(["a"]), (("b",),))), ("a", "b"))


def test_distinct_keeps_first_occurrence_order():
    assert same(call("distinct", ListVal([3, 1, 3])), ListVal([3, 1]))


def test_distinct_unifies_element_types_first():
    got = call("distinct", (1, "1"))
    assert same(got, ListVal(["1"])), f'distinct([1, "1"]) is tolist(["1"]) in terraform, strata gave {got!r}'


def test_sort_is_lexical_by_bytes():
    assert same(call("sort", ("b", "B", "a")), ListVal(["B", "a", "b"]))


def test_substr_counts_characters_not_bytes():
    assert call("substr", "héllo", 0, 2) == "hé"


def test_substr_past_the_end_is_empty():
    assert call("substr", "hello", 10, 1) == ""


def test_zipmap_later_duplicate_key_wins():
    assert same(call("zipmap", ("a", "a"), (1, 2)), {"a": 2})


def test_zipmap_converts_keys_to_strings():
    assert same(call("zipmap", (1, 2), ("x", "y")), {"1": "x", "2": "y"})


def test_zipmap_with_fewer_values_than_keys_is_an_error():
    with pytest.raises(FunctionError):
        got = call("zipmap", ("a", "b"), (1,))
        pytest.fail(f'zipmap(["a","b"], [1]) is an error in terraform (2 keys, 1 value), strata gave {got!r}')


def test_zipmap_with_more_values_than_keys_is_an_error():
    with pytest.raises(FunctionError):
        got = call("zipmap", ("a",), ("x", "y"))
        pytest.fail(f'zipmap(["a"], ["x","y"]) is an error in terraform (1 key, 2 values), strata gave {got!r}')


# --------------------------------------------------------------------------- JSON


def test_jsonencode_sorts_object_keys():
    got = call("jsonencode", {"b": 1, "a": 2})
    assert got == '{"a":2,"b":1}', f'jsonencode({{b=1,a=2}}) is {{"a":2,"b":1}} in terraform, strata gave {got!r}'


def test_format_v_of_object_sorts_keys():
    got = call("format", "%v", {"b": 1, "a": 2})
    assert got == '{"a":2,"b":1}', f"format(\"%v\", {{b=1,a=2}}) is {{\"a\":2,\"b\":1}} in terraform, got {got!r}"


def test_jsonencode_escapes_html_characters():
    got = call("jsonencode", "<>&")
    assert got == '"\\u003c\\u003e\\u0026"', f'jsonencode("<>&") escapes <, > and & in terraform, got {got!r}'


def test_jsonencode_large_whole_number_has_no_exponent():
    got = call("jsonencode", 1e20)
    assert got == "100000000000000000000", f"jsonencode(1e20) is 100000000000000000000 in terraform, got {got!r}"


def test_jsonencode_integer_beyond_64_bits():
    try:
        got = call("jsonencode", 10**20)
    except Exception as exc:  # noqa: BLE001 - orjson's TypeError escapes
        pytest.fail(f"jsonencode(100000000000000000000) is \"100000000000000000000\" in terraform; "
                    f"strata raised {type(exc).__name__}: {exc}")
    assert got == "100000000000000000000"


def test_jsonencode_set_in_set_order():
    assert call("jsonencode", SetVal.of(["b", "a"])) == '["a","b"]'


def test_jsondecode_arrays_become_tuples():
    got = call("jsondecode", '[1,"a",null,true,{"b":2}]')
    assert same(got, (1, "a", None, True, {"b": 2}))


def test_jsondecode_whole_float_is_a_whole_number():
    got = call("jsonencode", call("jsondecode", "1.0"))
    assert got == "1", f'jsonencode(jsondecode("1.0")) is "1" in terraform, strata gave {got!r}'


def test_jsondecode_accepts_a_number_argument():
    try:
        got = call("jsondecode", 1)
    except FunctionError as exc:
        pytest.fail(f"jsondecode(1) is 1 in terraform (the number converts to the string \"1\"); strata: {exc}")
    assert got == 1


# --------------------------------------------------------------------------- partially known arguments
#
# terraform keeps the known parts of a result when only some elements are
# unknown; these are (terraform expression, call, terraform's result).

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
