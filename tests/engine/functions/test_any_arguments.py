"""engine/lang/functions: any function given any values returns a value or fails with a
FunctionError (terraform's diagnostic), never with another exception, and quickly."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.diagnostics import FunctionError
from engine.lang.functions.registry import FUNCTIONS
from engine.values import UNKNOWN, ListVal, MapVal, SetVal

_SCALARS = st.one_of(
    st.none(), st.just(UNKNOWN), st.booleans(), st.integers(-300, 300),
    st.floats(allow_nan=False, allow_infinity=False, width=32), st.text(max_size=12),
    st.sampled_from(["10.0.0.0/16", "fd00::/56", "2024-02-29T13:45:00Z", "%s-%d", "(a)(b)", "a: [1]", "1h",
                     "dns", "a,b\n1,2\n", "files", "*", "x=${a}", "UTF-8", "[", "\\", "-1"]),
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4).map(tuple),
        st.lists(st.text(max_size=3), max_size=4).map(ListVal),
        st.lists(st.integers(0, 5), max_size=4).map(SetVal.of),
        st.dictionaries(st.text(max_size=3), inner, max_size=3),
        st.dictionaries(st.text(max_size=3), st.text(max_size=3), max_size=3).map(MapVal),
    ),
    max_leaves=8,
)


@pytest.fixture(autouse=True)
def _in_empty_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # file functions read relative to the working directory


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
@settings(max_examples=25, deadline=2000, suppress_health_check=[HealthCheck.too_slow])
@given(args=st.lists(_VALUES, max_size=4))
def test_any_arguments_give_a_value_or_a_function_error(name: str, args: list[Any]) -> None:
    try:
        FUNCTIONS[name](*args)
    except FunctionError:
        pass
