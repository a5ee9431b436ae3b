"""engine/valuediff.py: terraform's structured diff of a value. The JSON (dynamic) cases are texts
terraform 1.11.4 printed for the same change (see tests/cli/test_plan_diff.py, which compares
whole plans live); typed maps and sets follow terraform's renderers for typed attributes."""

from __future__ import annotations

from typing import Any

from engine.render.value_diff import ABSENT, SHOW_ALL, diff
from engine.values import UNKNOWN, ListVal, MapVal, SetVal


def show(before: Any, after: Any, json: bool = True, col: int = 4) -> str:
    node = diff(before, after, json=json)
    return f"{node.action} x = {node.render(col)}"


def test_a_changed_scalar_shows_before_and_after() -> None:
    assert show("a", "b") == '~ x = "a" -> "b"'
    assert show(1, 1.5) == "~ x = 1 -> 1.5"


def test_a_list_shows_changes_with_one_element_of_context_each_side() -> None:
    assert show((1, 2, 3, 4, 5, 6, 7, 8), (1, 2, 9, 4, 5, 6, 7, 8, 10)) == """\
~ x = [
        # (1 unchanged element hidden)
        2,
      - 3,
      + 9,
        4,
        # (3 unchanged elements hidden)
        8,
      + 10,
    ]"""


def test_a_tuple_of_the_same_length_is_compared_element_by_element() -> None:
    assert show((1, 2, 3, 4), (5, 6, 3, 7)) == """\
~ x = [
      ~ 1 -> 5,
      ~ 2 -> 6,
        3,
      ~ 4 -> 7,
    ]"""


def test_a_typed_list_keeps_its_common_subsequence_even_at_the_same_length() -> None:
    assert show(ListVal(("a", "b")), ListVal(("c", "b")), json=False) == """\
~ x = [
      - "a",
      + "c",
        "b",
    ]"""


def test_other_lengths_remove_and_add_scalars_but_pair_objects() -> None:
    assert show((1, 2), (3,)) == "~ x = [\n      - 1,\n      - 2,\n      + 3,\n    ]"
    assert show(({"a": 1, "b": 2}, {"a": 3}), ({"a": 1, "b": 5}, {"a": 3}, {"a": 7})) == """\
~ x = [
      ~ {
          ~ b = 2 -> 5
            # (1 unchanged attribute hidden)
        },
        {
            a = 3
        },
      + {
          + a = 7
        },
    ]"""


def test_an_objects_keys_line_up_with_hidden_ones_and_removed_ones_do_not_say_null() -> None:
    before = {"a_long_unchanged_key": 1, "k": "v", "gone": {"deep": (1, 2)}}
    after = {"a_long_unchanged_key": 1, "k": "w"}
    assert show(before, after) == """\
~ x = {
      - gone                 = {
          - deep = [
              - 1,
              - 2,
            ]
        }
      ~ k                    = "v" -> "w"
        # (1 unchanged attribute hidden)
    }"""


def test_a_maps_keys_are_quoted_and_a_removed_entry_says_null() -> None:
    before = MapVal({"Name": "a", "Env": "dev", "Old": "x"})
    after = MapVal({"Name": "a", "Env": "prod"})
    assert show(before, after, json=False) == """\
~ x = {
      ~ "Env"  = "dev" -> "prod"
      - "Old"  = "x" -> null
        # (1 unchanged element hidden)
    }"""


def test_in_json_a_map_is_an_object() -> None:
    assert show(MapVal({"k": "v"}), MapVal({"k": "w"})) == '~ x = {\n      ~ k = "v" -> "w"\n    }'


def test_a_set_hides_unchanged_elements_without_context() -> None:
    assert show(SetVal(("a", "b", "c")), SetVal(("a", "c", "d")), json=False) == """\
~ x = [
      - "b",
      + "d",
        # (2 unchanged elements hidden)
    ]"""


def test_a_multi_line_string_is_compared_line_by_line() -> None:
    assert show("line1\nline2\nline3\n", "line1\nLINE2\nline3\n") == """\
~ x = <<-EOT
        line1
      - line2
      + LINE2
        line3
    EOT"""


def test_a_value_of_another_type_or_null_is_a_type_change() -> None:
    assert show({"t": "str"}, {"t": ("str",)}) == '~ x = {\n      ~ t = "str" -> [\n          + "str",\n        ]\n    }'
    assert show({"n": None}, {"n": "y"}) == '~ x = {\n      ~ n = null -> "y"\n    }'
    assert show({"n": "x"}, {"n": None}) == '~ x = {\n      ~ n = "x" -> null\n    }'


def test_unknown_after_shows_before_then_known_after_apply() -> None:
    assert show({"r": "x", "s": 1}, {"r": UNKNOWN, "s": 1}) == """\
~ x = {
      ~ r = "x" -> (known after apply)
        # (1 unchanged attribute hidden)
    }"""
    assert show(("a",), UNKNOWN) == '~ x = [\n      - "a",\n    ] -> (known after apply)'
    assert show(ABSENT, UNKNOWN) == "+ x = (known after apply)"


def test_a_whole_removed_value_says_null_once_at_its_end() -> None:
    assert show((1, {"a": None}), ABSENT) == """\
- x = [
      - 1,
      - {
          - a = null
        },
    ] -> null"""


def test_an_important_attribute_is_shown_whole_even_unchanged() -> None:
    node = diff(MapVal({"Name": "a"}), MapVal({"Name": "a"}))
    assert node.action == " "
    assert node.render(8, SHOW_ALL) == '{\n            "Name" = "a"\n        }'


def test_the_same_elements_in_another_order_show_what_moved() -> None:
    # terraform 1.11's text for [1, 2, 3, 4] -> [4, 2, 3, 1] and ["a", "b"] -> ["b", "a"]
    assert show((1, 2, 3, 4), (4, 2, 3, 1)) == """\
~ x = [
      - 1,
      + 4,
        2,
        3,
      - 4,
      + 1,
    ]"""
    assert show(("a", "b"), ("b", "a")) == '~ x = [\n      - "a",\n        "b",\n      + "a",\n    ]'
