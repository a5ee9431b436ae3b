"""engine/number.py: cty's number semantics on ints and floats (the functions' tests cover the
formatting in depth, through tostring, format and friends)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from engine.diagnostics import FunctionError
from engine.lang.number import (
    exact_decimal,
    number_from_decimal,
    parse_number,
    to_number,
    to_string,
)


@pytest.mark.parametrize(("text", "value"), [("1", 1), ("1.0", 1), ("1e3", 1000), ("-0.5", -0.5), (".25", 0.25)])
def test_parse_number_gives_an_int_when_whole(text: str, value: object) -> None:
    got = parse_number(text)
    assert got == value and type(got) is type(value)


@pytest.mark.parametrize("text", ["", "1 ", "0x10", "1e", "abc"])
def test_to_number_refuses_what_cty_refuses(text: str) -> None:
    with pytest.raises(FunctionError):
        to_number(text)


def test_to_string_prints_the_shortest_form() -> None:
    assert [to_string(v) for v in (1, 0.1, 1.5, True, 10**20)] == ["1", "0.1", "1.5", "true", "100000000000000000000"]


def test_decimals_round_trip_exactly_when_they_can() -> None:
    assert number_from_decimal(Decimal("2.50")) == 2.5
    assert number_from_decimal(Decimal("4.000")) == 4
    assert exact_decimal(0.1) == Decimal("0.1")
