"""engine/lang/functions/numeric.py: numeric functions (max, min), against terraform 1.11's results."""

from __future__ import annotations

import pytest

from engine.diagnostics import FunctionError
from tests.engine.functions.support import call


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
