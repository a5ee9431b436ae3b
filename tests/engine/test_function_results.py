"""The table of provider function results, from plan to apply (engine.lang.function_results)."""

from __future__ import annotations

import pytest

from engine.diagnostics import FunctionError
from engine.lang.function_results import (
    FunctionResults,
    check_result,
    checking_function_results,
    go_string,
)
from engine.plans.plan import Plan
from engine.plans.planfile import decode_plan, encode_plan
from engine.values import UNKNOWN, ListVal

SOURCE = "registry.terraform.io/hashicorp/example"


def test_the_same_result_for_the_same_call_passes() -> None:
    table = FunctionResults()
    table.check(SOURCE, "label", ["a"], "a-1")
    table.check(SOURCE, "label", ["a"], "a-1")
    table.check(SOURCE, "label", ["b"], "b-2")  # other arguments: another call


def test_another_result_in_the_same_run_names_both() -> None:
    table = FunctionResults()
    table.check(SOURCE, "label", ["a"], "a-1")
    with pytest.raises(FunctionError) as caught:
        table.check(SOURCE, "label", ["a"], "a-2")
    assert str(caught.value) == ('provider function returned an inconsistent result,\nwas: cty.StringVal("a-1"),\n'
                                 'now: cty.StringVal("a-2")')


def test_another_result_than_the_plans_fails_without_values() -> None:
    planned = FunctionResults()
    planned.check(SOURCE, "label", [ListVal(["x"]), 1], {"k": True})
    applying = FunctionResults(planned.hashes())
    applying.check(SOURCE, "label", [ListVal(["x"]), 1], {"k": True})
    with pytest.raises(FunctionError, match=r"\Aprovider function returned an inconsistent result\Z"):
        applying.check(SOURCE, "label", [ListVal(["x"]), 1], {"k": False})


def test_the_provider_and_the_argument_types_are_part_of_the_call() -> None:
    table = FunctionResults()
    table.check(SOURCE, "label", ["1"], "x")
    table.check(SOURCE, "label", [1], "y")
    table.check("registry.terraform.io/other/example", "label", ["1"], "z")


def test_an_unknown_result_is_not_recorded() -> None:
    table = FunctionResults()
    table.check(SOURCE, "label", ["a"], UNKNOWN)
    table.check(SOURCE, "label", ["a"], "a")
    assert len(table.hashes()) == 1


def test_nothing_is_checked_outside_a_table() -> None:
    check_result(SOURCE, "label", ["a"], "1")
    check_result(SOURCE, "label", ["a"], "2")
    with checking_function_results() as table:
        check_result(SOURCE, "label", ["a"], "1")
    assert len(table.hashes()) == 1


def test_a_plan_file_carries_the_digests() -> None:
    table = FunctionResults()
    table.check(SOURCE, "label", ["a"], "a-1")
    plan = Plan(function_results=table.hashes())
    assert decode_plan(encode_plan(plan)).function_results == table.hashes()


def test_go_string_writes_values_as_cty_does() -> None:
    assert go_string({"a": ListVal([1, 1.5]), "b": None}) == (
        'cty.ObjectVal(map[string]cty.Value{"a":cty.ListVal([]cty.Value{cty.NumberIntVal(1), '
        'cty.NumberFloatVal(1.5)}), "b":cty.NullVal(cty.DynamicPseudoType)})')


def test_numbers_of_any_size_are_part_of_the_call() -> None:
    table = FunctionResults()
    table.check(SOURCE, "label", [12345678901234567890123, 2**70], 10**30)
    table.check(SOURCE, "label", [12345678901234567890123, 2**70], 10**30)
    with pytest.raises(FunctionError):
        table.check(SOURCE, "label", [12345678901234567890123, 2**70], 10**30 + 1)
