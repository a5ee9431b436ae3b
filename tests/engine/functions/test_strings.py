"""engine/lang/functions/strings.py: string functions (join, split, replace, substr), against terraform 1.11's results."""

from __future__ import annotations

import pytest

from engine.diagnostics import FunctionError
from engine.values import ListVal, SetVal
from tests.engine.functions.support import call, same


def test_join_accepts_numbers_and_bools():
    assert call("join", ",", (1, True)) == "1,true"


def test_join_of_set_uses_set_order():
    assert call("join", "-", SetVal.of(["b", "a"])) == "a-b"


def test_join_requires_at_least_one_list():
    with pytest.raises(FunctionError):
        got = call("join", ",")
        pytest.fail(f'join(",") is an error in terraform ("at least one list is required"), strata gave {got!r}')


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


def test_substr_counts_characters_not_bytes():
    assert call("substr", "héllo", 0, 2) == "hé"


def test_substr_past_the_end_is_empty():
    assert call("substr", "hello", 10, 1) == ""
