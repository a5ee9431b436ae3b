"""Output types with typed nulls inside (engine.config.output_types, State.output_type)."""

from __future__ import annotations

from engine.lang.convert import concrete
from engine.state.codec import decode_state, encode_state
from engine.state.model import State


def test_concrete_drops_optional_markers_at_any_depth() -> None:
    ty = ["list", ["object", {"a": "string", "b": ["object", {"c": "number"}, ["c"]]}, ["b"]]]
    assert concrete(ty) == ["list", ["object", {"a": "string", "b": ["object", {"c": "number"}]}]]


def test_a_recorded_type_that_fits_the_value_is_the_outputs_type() -> None:
    state = State()
    state.outputs["o"] = ({"a": "x", "b": None}, False)
    state.output_types["o"] = ["object", {"a": "string", "b": ["list", "number"]}]
    assert state.output_type("o") == ["object", {"a": "string", "b": ["list", "number"]}]


def test_a_recorded_type_that_no_longer_fits_is_ignored() -> None:
    state = State()
    state.outputs["o"] = ({"a": 1, "b": None}, False)
    state.output_types["o"] = ["object", {"a": "string", "b": ["list", "number"]}]
    assert state.output_type("o") == ["object", {"a": "number", "b": "dynamic"}]


def test_the_state_file_keeps_the_type_through_a_round_trip() -> None:
    state = State()
    state.outputs["o"] = ({"b": None}, False)
    state.output_types["o"] = ["object", {"b": ["set", "bool"]}]
    again = decode_state(encode_state(state, {}), "terraform.tfstate", {})
    assert again.output_type("o") == ["object", {"b": ["set", "bool"]}]
    assert encode_state(again, {}) == encode_state(state, {})
