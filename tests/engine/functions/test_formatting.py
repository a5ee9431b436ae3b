"""engine/lang/functions/formatting.py: format: Go's fmt verbs as terraform applies them, against terraform 1.11's results."""

from __future__ import annotations

import pytest

from engine.diagnostics import FunctionError
from tests.engine.functions.support import call


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


def test_format_v_of_object_sorts_keys():
    got = call("format", "%v", {"b": 1, "a": 2})
    assert got == '{"a":2,"b":1}', f"format(\"%v\", {{b=1,a=2}}) is {{\"a\":2,\"b\":1}} in terraform, got {got!r}"
