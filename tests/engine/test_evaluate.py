"""engine/evaluate.py: expression values in a scope, with a fake ResourceResolver.

Expected values are what ``terraform console`` (1.11.4) gives for the same
expression; ``u`` stands for a value known only after apply.
"""

from __future__ import annotations

from typing import Any

import pytest

from engine.addrs import ResourceAddr
from engine.lang.evaluate import EvalError, Scope, evaluate
from engine.lang.hcl import parse_expression, parse_hcl
from engine.values import UNKNOWN, ListVal, MapVal, SetVal, equal

A = ResourceAddr("terraform_data", "a")  # count = 2
B = ResourceAddr("terraform_data", "b")  # for_each over {x, y}
S = ResourceAddr("terraform_data", "s")  # single


class FakeResources:
    """A ResourceResolver over fixed instance values; records what the evaluator asks for."""

    def __init__(self) -> None:
        self.kinds = {A: "count", B: "for_each", S: "single"}
        self.values: dict[ResourceAddr, dict[Any, Any]] = {
            A: {0: {"id": "a0", "output": "A0"}, 1: {"id": "a1", "output": "A1"}},
            B: {"y": {"id": "by", "output": "BY"}, "x": {"id": "bx", "output": "BX"}},
            S: {None: {"id": "s", "output": {"k": "v"}, "pending": UNKNOWN}},
        }
        self.calls: list[tuple[str, str, Any]] = []

    def has_resource(self, addr: ResourceAddr) -> bool:
        return addr in self.kinds

    def is_expanded(self, addr: ResourceAddr) -> bool:
        return self.kinds[addr] != "single"

    def expansion(self, addr: ResourceAddr) -> str:
        return self.kinds[addr]

    def instance_value(self, addr: ResourceAddr, key: Any) -> Any:
        self.calls.append(("instance", str(addr), key))
        return self.values[addr][key]

    def resource_value(self, addr: ResourceAddr) -> Any:
        self.calls.append(("whole", str(addr), None))
        vals = self.values[addr]
        kind = self.kinds[addr]
        if kind == "count":
            return tuple(vals[k] for k in sorted(vals))
        if kind == "for_each":
            return {k: vals[k] for k in sorted(vals)}
        return vals[None]


LOCALS = {"name": "net", "u": UNKNOWN, "n": None, "list": ("a", "b")}
VARS = {"env": "dev", "count": 3, "m": {"k": "v"}, "u": UNKNOWN}


def local_value(name: str, line: int) -> Any:
    if name not in LOCALS:
        raise EvalError("Reference to undeclared local value", f'No local "{name}".', line)
    return LOCALS[name]


def scope(count_index: int | None = None, each: tuple[Any, Any] | None = None,
          resources: FakeResources | None = None) -> Scope:
    return Scope(dict(VARS), local_value, resources or FakeResources(), count_index, each)


def ev(src: str, sc: Scope | None = None) -> Any:
    return evaluate(parse_expression(src, "main.tf", 1), sc or scope())


def ev_error(src: str, sc: Scope | None = None) -> EvalError:
    with pytest.raises(EvalError) as ei:
        got = ev(src, sc)
        pytest.fail(f"{src} must fail to evaluate, gave {got!r}")
    return ei.value


# --------------------------------------------------------------------------- arithmetic


@pytest.mark.parametrize(
    ("src", "expected"),
    [
        ("1 + 2 * 3", 7),
        ('"1" + 2', 3),
        ("5 / 2", 2.5),
        ("4 / 2", 2),
        ("7 % 3", 1),
        ("-2 * -3", 6),
        ("2 - -1", 3),
        ('-"3"', -3),
        ("10000000000000000000000 + 1", 10000000000000000000001),
    ],
    ids=repr,
)
def test_arithmetic(src, expected):
    got = ev(src)
    assert equal(got, expected), f"{src} is {expected!r} in terraform, got {got!r}"


def test_whole_division_result_is_a_whole_number():
    got = ev("4 / 2")
    assert isinstance(got, int), f"4 / 2 should be the number 2 (rendered \"2\"), got {got!r}"


def test_modulo_takes_the_sign_of_the_dividend():
    got = ev("-7 % 3")
    assert got == -1, f"-7 % 3 is -1 in terraform (truncated modulo), strata gave {got!r}"


def test_modulo_with_negative_divisor():
    got = ev("7 % -3")
    assert got == 1, f"7 % -3 is 1 in terraform (truncated modulo), strata gave {got!r}"


def test_decimal_arithmetic_is_exact_in_templates():
    got = ev('"x${0.1 + 0.2}"')
    assert got == "x0.3", f'"x${{0.1 + 0.2}}" is "x0.3" in terraform (arbitrary precision), strata gave {got!r}'


def test_arithmetic_on_bool_is_an_error():
    assert ev_error("true + 1").summary == "Invalid operand"


def test_arithmetic_on_non_numeric_string_is_an_error():
    assert ev_error('"a" + 1').summary == "Invalid operand"


# --------------------------------------------------------------------------- comparisons


@pytest.mark.parametrize(
    ("src", "expected"),
    [
        ("1 == 1.0", True),
        ('"1" == 1', False),
        ("[1] == tolist([1])", False),
        ("tolist([1]) == tolist([1])", True),
        ("{a = 1} == tomap({a = 1})", False),
        ('toset(["a", "b"]) == toset(["b", "a"])', True),
        ('true == "true"', False),
        ("null == null", True),
        ("1 != 2", True),
        ('1 < "2"', True),
        ("2 >= 2", True),
        ("3 <= 2", False),
        ("3 > 2", True),
    ],
    ids=repr,
)
def test_comparisons(src, expected):
    assert ev(src) is expected, f"{src} is {expected} in terraform"


def test_ordering_strings_is_an_error():
    assert ev_error('"a" < "b"').summary == "Invalid operand"


# --------------------------------------------------------------------------- logic


@pytest.mark.parametrize(
    ("src", "expected"),
    [
        ("true && false || true", True),
        ("false || true && false", False),
        ("!true", False),
        ("1 + 2 == 3 && !false", True),
    ],
    ids=repr,
)
def test_logic_operators(src, expected):
    assert ev(src) is expected


def test_logic_operand_must_be_bool():
    assert ev_error("1 && true").summary == "Invalid operand"


def test_not_of_number_is_an_error():
    assert ev_error("!1").summary == "Invalid operand"


def test_not_converts_bool_strings():
    try:
        got = ev('!"true"')
    except EvalError as exc:
        pytest.fail(f'!"true" is false in terraform ("true" converts to bool); strata: {exc}')
    assert got is False


# --------------------------------------------------------------------------- conditionals


def test_conditional_picks_a_branch():
    assert ev('1 == 1 ? "y" : "n"') == "y"


def test_conditional_does_not_evaluate_the_other_branch():
    assert ev("false ? local.u : 2") == 2
    assert ev("true ? 1 : var.nope") == 1, "the untaken branch must not be evaluated"


def test_conditional_accepts_bool_strings():
    assert ev('"true" ? 1 : 2') == 1


def test_conditional_rejects_non_bool():
    assert ev_error('"a" ? 1 : 2').summary == "Incorrect condition type"
    assert ev_error("1 ? 1 : 2").summary == "Incorrect condition type"


def test_conditional_on_null_is_an_error():
    ev_error("null ? 1 : 2")


# --------------------------------------------------------------------------- unknown propagation


@pytest.mark.parametrize(
    "src",
    [
        "local.u + 1",
        "1 - local.u",
        "local.u == 1",
        "local.u == null",
        "local.u != 1",
        "local.u < 1",
        "true && local.u",
        "false && local.u",
        "true || local.u",
        "local.u || true",
        "!local.u",
        "-local.u",
        "local.u ? 1 : 2",
        "true ? local.u : 2",
        '"x-${local.u}"',
        '"${local.u}"',
        "[for x in local.u : x]",
        "{for k, v in {a = 1} : local.u => v}",
        "[for x in [1, 2] : x if local.u]",
        "local.u[0]",
        "local.u.a",
        "[1, 2][local.u]",
        "{a = 1}[local.u]",
        "local.u[*].a",
        "{(local.u) = 1}",
        "upper(local.u)",
        "max(local.u...)",
        "max(1, [2, local.u]...)",
        "var.u.anything",
        "terraform_data.s.pending.deeper",
    ],
    ids=repr,
)
def test_unknown_propagates(src):
    got = ev(src)
    assert got is UNKNOWN, f"{src} is (known after apply) in terraform, strata gave {got!r}"


def test_unknown_stays_in_its_place_inside_a_tuple():
    got = ev("[local.u, 1]")
    assert got[1] == 1 and got[0] is UNKNOWN, f"[u, 1] keeps its known element in terraform, got {got!r}"


def test_unknown_stays_in_its_place_inside_an_object():
    got = ev("{a = local.u, b = 1}")
    assert got["a"] is UNKNOWN and got["b"] == 1


def test_unknown_element_of_for_expression_stays_in_place():
    got = ev("[for x in [1, local.u] : x]")
    assert got[0] == 1 and got[1] is UNKNOWN


def test_unknown_value_in_object_for_stays_in_place():
    got = ev("{for k, v in {a = 1} : k => local.u}")
    assert set(got) == {"a"} and got["a"] is UNKNOWN


def test_length_of_tuple_with_unknown_is_known():
    assert ev("length([local.u, 1])") == 2


# --------------------------------------------------------------------------- templates


def test_template_of_null_is_an_error():
    err = ev_error('"a${local.n}"')
    assert err.summary == "Invalid template interpolation value"
    assert "null" in err.detail


def test_template_of_null_is_an_error_even_beside_an_unknown():
    assert ev_error('"a${local.u}b${local.n}"').summary == "Invalid template interpolation value"


def test_template_of_tuple_is_an_error():
    assert ev_error('"a${[1]}"').summary == "Invalid template interpolation value"


def test_template_converts_numbers_and_bools():
    assert ev('"a${1.5}${true}"') == "a1.5true"


def test_interpolation_alone_of_null_is_null():
    assert ev('"${local.n}"') is None


# --------------------------------------------------------------------------- count and each


def test_count_index():
    assert ev('"n-${count.index}"', scope(count_index=2)) == "n-2"


def test_count_index_without_count_is_an_error():
    assert "non-counted" in ev_error("count.index").summary


def test_count_has_only_index():
    assert ev_error("count.other", scope(count_index=0)).summary == 'Invalid "count" attribute'


def test_each_key_and_value():
    sc = scope(each=("k1", {"v": 1}))
    assert ev("each.key", sc) == "k1"
    assert ev("each.value.v", sc) == 1


def test_each_without_for_each_is_an_error():
    assert "without for_each" in ev_error("each.key").summary


def test_each_has_only_key_and_value():
    assert ev_error("each.other", scope(each=("k", "v"))).summary == 'Invalid "each" attribute'


# --------------------------------------------------------------------------- var and local


def test_var_lookup():
    assert ev('"net-${var.env}"') == "net-dev"
    assert ev("var.m.k") == "v"


def test_undeclared_var_is_an_error():
    assert ev_error("var.nope").summary == "Reference to undeclared input variable"


def test_local_lookup_passes_name_and_line():
    seen = []

    def lv(name, line):
        seen.append((name, line))
        return "x"

    sc = Scope({}, lv, FakeResources())
    assert evaluate(parse_expression("local.name", "main.tf", 7), sc) == "x"
    assert seen == [("name", 7)], "local_value must get the local's name and the referring line"


def test_for_variable_shadows_nothing_outside():
    assert ev("[for var in [1] : var]") == (1,)


# --------------------------------------------------------------------------- for expressions


def test_for_over_object_iterates_in_key_order():
    got = ev("[for k, v in {b = 1, a = 2} : k]")
    assert got == ("a", "b"), f"terraform iterates objects and maps in lexical key order: [\"a\",\"b\"], got {got!r}"


def test_for_over_set_iterates_in_set_order():
    assert ev('[for x in toset(["b", "a"]) : x]') == ("a", "b")


def test_for_over_tuple_binds_index_and_value():
    assert ev('[for i, x in ["a", "b"] : "${i}${x}"]') == ("0a", "1b")


def test_for_with_filter():
    assert ev("[for x in [1, 2, 3] : x * 2 if x > 1]") == (4, 6)


def test_object_for_with_duplicate_key_is_an_error():
    assert ev_error('{for x in ["a", "a"] : x => x}').summary == "Duplicate object key"


def test_object_for_grouping():
    assert ev('{for x in ["a", "b", "a"] : x => x...}') == {"a": ("a", "a"), "b": ("b",)}


def test_for_over_null_is_an_error():
    assert ev_error("[for x in null : x]").summary == "Iteration over null value"


def test_for_over_number_is_an_error():
    assert ev_error("[for x in 1 : x]").summary == "Iteration over non-iterable value"


# --------------------------------------------------------------------------- index, attribute, splat


def test_index_converts_string_to_number():
    assert ev('[1, 2]["1"]') == 2


def test_index_out_of_range_is_an_error():
    assert ev_error("[1, 2][2]").summary == "Invalid index"


def test_index_of_set_is_an_error():
    assert ev_error("toset([1])[0]").summary == "Invalid index"


def test_missing_map_key_is_an_error():
    assert ev_error('{a = 1}["b"]').summary == "Invalid index"


def test_missing_attribute_is_an_error():
    assert ev_error("{a = 1}.b").summary == "Unsupported attribute"


def test_attribute_of_null_is_an_error():
    assert ev_error("local.n.a").summary == "Attempt to get attribute from null value"


def test_index_of_null_is_an_error():
    assert ev_error("local.n[0]").summary == "Attempt to index null value"


def test_splat_of_list_is_a_list():
    assert equal(ev("tolist([{a = 1}, {a = 2}])[*].a"), ListVal([1, 2]))


def test_splat_of_tuple_is_a_tuple():
    assert equal(ev("[{a = 1}, {a = 2}][*].a"), (1, 2))


def test_splat_of_null_is_empty():
    assert ev("local.n[*]") == ()


def test_splat_of_single_value_wraps_it():
    assert ev('"x"[*]') == ("x",)


# --------------------------------------------------------------------------- function calls


def test_unknown_function_is_an_error():
    assert ev_error("nosuch(1)").summary == "Call to unknown function"


def test_wrong_argument_count_is_an_error():
    err = ev_error("jsonencode()")
    assert (err.summary, err.detail) == ("Not enough function arguments",
                                         'Function "jsonencode" expects 1 argument(s). Missing value for "val".')
    err = ev_error('upper("a", "b")')
    assert (err.summary, err.detail) == ("Too many function arguments", 'Function "upper" expects only 1 argument(s).')
    assert err.values == ("while calling upper(str)",)


def test_function_error_becomes_eval_error():
    err = ev_error('tonumber("abc")')
    assert err.summary == "Invalid function argument"
    assert err.detail.startswith('Invalid value for "v" parameter: cannot convert "abc" to number'), err.detail
    err = ev_error('join(",")')
    assert (err.summary, err.detail) == ("Error in function call",
                                         'Call to function "join" failed: at least one list is required.')


def test_expansion_of_non_sequence_is_an_error():
    assert ev_error("max(1...)").summary == "Invalid expanding argument value"


# --------------------------------------------------------------------------- resources


def test_single_resource_attribute():
    res = FakeResources()
    assert ev("terraform_data.s.id", scope(resources=res)) == "s"
    assert res.calls == [("instance", "terraform_data.s", None)]


def test_instance_reference_looks_up_only_that_instance():
    res = FakeResources()
    got = ev("terraform_data.a[count.index].id", scope(count_index=1, resources=res))
    assert got == "a1"
    assert res.calls == [("instance", "terraform_data.a", 1)], \
        f"a[count.index] must be resolved lazily, one instance only; resolver saw {res.calls}"


def test_for_each_instance_reference_by_key():
    res = FakeResources()
    assert ev('terraform_data.b["x"].output', scope(resources=res)) == "BX"
    assert res.calls == [("instance", "terraform_data.b", "x")]


def test_whole_counted_resource_is_a_tuple_of_instances():
    got = ev("terraform_data.a")
    assert isinstance(got, tuple) and [o["id"] for o in got] == ["a0", "a1"]


def test_whole_for_each_resource_is_an_object_of_instances():
    got = ev("terraform_data.b")
    assert isinstance(got, dict) and {k: o["id"] for k, o in got.items()} == {"x": "bx", "y": "by"}


def test_splat_over_counted_resource():
    assert ev("terraform_data.a[*].id") == ("a0", "a1")


def test_for_over_for_each_resource():
    assert ev("[for k, o in terraform_data.b : o.id]") == ("bx", "by")


def test_length_of_counted_resource():
    assert ev("length(terraform_data.a)") == 2


def test_attribute_of_expanded_resource_without_key_is_an_error():
    err = ev_error("terraform_data.a.id")
    assert err.summary == "Missing resource instance key"
    assert err.detail.endswith("use:\n    terraform_data.a[count.index]"), err.detail
    assert ev_error("terraform_data.b.id").detail.endswith("[each.key]")


def test_an_index_on_a_resource_without_count_or_for_each_is_an_error():
    err = ev_error("terraform_data.s[0]")
    assert err.summary == "Unexpected resource instance key"


def test_missing_instance_is_an_invalid_index():
    assert ev_error("terraform_data.a[5]").summary == "Invalid index"


def test_unknown_instance_key_gives_unknown():
    assert ev("terraform_data.a[local.u].id") is UNKNOWN


def test_undeclared_resource_is_an_error():
    assert ev_error("terraform_data.nope.id").summary == "Reference to undeclared resource"


def test_bare_resource_type_is_an_error():
    assert ev_error("terraform_data").summary == "Invalid reference"


# --------------------------------------------------------------------------- error lines


def test_error_names_the_line_of_the_failing_subexpression():
    (b,) = parse_hcl('locals {\n  x = [\n    1,\n    var.nope,\n  ]\n}\n', "main.tf")
    with pytest.raises(EvalError) as ei:
        evaluate(b.attributes["x"].expr, scope())
    assert ei.value.line == 4, f"var.nope is on line 4, error says line {ei.value.line}"


def test_function_error_names_the_call_line():
    (b,) = parse_hcl('locals {\n  x = 1\n  y = upper(\n    [1]\n  )\n}\n', "main.tf")
    with pytest.raises(EvalError) as ei:
        evaluate(b.attributes["y"].expr, scope())
    assert ei.value.line == 3


def test_template_null_error_names_the_interpolation_line():
    (b,) = parse_hcl('locals {\n  x = <<EOT\nok\n${local.n}\nEOT\n}\n', "main.tf")
    with pytest.raises(EvalError) as ei:
        evaluate(b.attributes["x"].expr, scope())
    assert ei.value.line == 4


def test_eval_error_message_has_summary_and_detail():
    err = ev_error("var.nope")
    assert str(err).startswith("Reference to undeclared input variable: ")
    assert '"nope"' in err.detail


# --------------------------------------------------------------------------- collection types from functions


def test_set_and_map_values_flow_through():
    assert equal(ev('toset(["b", "a"])'), SetVal.of(["a", "b"]))
    assert equal(ev("tomap({a = 1})"), MapVal({"a": 1}))


# --------------------------------------------------------------------------- try and can


@pytest.mark.parametrize(("src", "expected"), [
    ('try(var.m.nope, "fallback")', "fallback"),
    ('try(var.m.k, "fallback")', "v"),
    ("try(var.m.nope, local.nope, 3)", 3),
    ("can(var.m.nope)", False),
    ("can(var.m.k)", True),
    ('[for x in [1, "a"] : try(tonumber(x), -1)]', (1, -1)),
    # an argument reached that refers to an unknown value: whether it fails is not known yet
    ('try(var.u.x, "fallback")', UNKNOWN),
    ("can(terraform_data.s.pending)", UNKNOWN),
    ('try(var.m.k, var.u)', "v"),  # the arguments after the one that succeeds are not looked at
])
def test_try_and_can(src: str, expected: Any) -> None:
    assert equal(ev(src), expected), src


def test_try_with_no_expression_that_succeeds() -> None:
    e = ev_error("try(var.m.nope, local.nope)")
    assert e.summary == "Error in function call"
    assert e.detail == ('Call to function "try" failed: no expression succeeded:\n- Unsupported attribute (at line 1)'
                        '\n  This object does not have an attribute named "nope".\n- Reference to undeclared local '
                        'value (at line 1)\n  No local "nope".\n\nAt least one expression must produce a successful '
                        "result.")
    assert e.values == ("while calling try(expressions...)",)
    assert ev_error("try()").detail == 'Call to function "try" failed: at least one argument is required.'
    assert ev_error("can()").summary == "Not enough function arguments"


def test_an_object_key_in_parentheses_is_an_expression() -> None:
    assert equal(ev('[for x in ["a", "b"] : { (x) = 1, x = 2 }]'), ({"a": 1, "x": 2}, {"b": 1, "x": 2}))
