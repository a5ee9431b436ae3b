"""What the function tests share: calling a function by name, and terraform's equality."""

from __future__ import annotations

from typing import Any

from engine.lang.functions.registry import FUNCTIONS
from engine.values import UNKNOWN, equal

U = UNKNOWN


def call(name: str, *args: Any) -> Any:
    return FUNCTIONS[name](*args)


def same(got: Any, expected: Any) -> bool:
    """Equal with types (tuple vs list, object vs map, number vs bool), as terraform's == is."""
    return equal(got, expected)
