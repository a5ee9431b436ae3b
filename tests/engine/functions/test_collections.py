"""engine/lang/functions/collections.py: collection functions (length, concat, merge, keys, lookup, element, range, sort, ...), against terraform 1.11's results."""

from __future__ import annotations

import pytest

from engine.diagnostics import FunctionError
from engine.values import ListVal, MapVal, SetVal
from tests.engine.functions.support import U, call, same


def test_length_counts_elements_not_unknowns():
    assert call("length", (U, 1)) == 2, "length([u, 1]) is 2 in terraform: the count is known"


def test_length_of_set_counts_unique_elements():
    assert call("length", SetVal.of(["a", "a"])) == 1


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


def test_coalesce_skips_only_null_and_empty_string():
    assert call("coalesce", False, True) is False
    assert call("coalesce", 0, 1) == 0


def test_coalesce_unifies_result_to_string():
    got = call("coalesce", 1, "a")
    assert got == "1", f'coalesce(1, "a") is "1" in terraform (arguments unify to string), strata gave {got!r}'


def test_coalesce_returns_first_known_before_unknown():
    assert call("coalesce", "a", U) == "a"


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
