"""cty's rules of a provider function call (engine.lang.provider_functions), around a stand-in
for the provider's work: arity, conversion, nulls, unknowns, the variadic parameter."""

from __future__ import annotations

from typing import Any

import pytest

from engine.diagnostics import FunctionArityError
from engine.lang.functions.arguments import ArgumentError
from engine.lang.provider_functions import Parameter, ProviderFunction, call
from engine.values import UNKNOWN

NAME = "provider::example::label"


def label(*, allow_null: bool = False, allow_unknown: bool = False) -> tuple[ProviderFunction, list[tuple[Any, ...]]]:
    calls: list[tuple[Any, ...]] = []

    def work(args: tuple[Any, ...]) -> Any:
        calls.append(args)
        return "-".join(str(a) for a in args)

    fn = ProviderFunction("label", (Parameter("prefix", "string", allow_null, allow_unknown),),
                          Parameter("parts", "string", allow_null, allow_unknown), "string", work)
    return fn, calls


def test_arguments_are_converted_to_their_parameters_types() -> None:
    fn, calls = label()
    assert call(fn, NAME, ["a", 1, True]) == "a-1-true"
    assert calls == [("a", "1", "true")]


def test_an_unknown_argument_makes_the_result_unknown_without_calling_the_provider() -> None:
    fn, calls = label()
    assert call(fn, NAME, ["a", UNKNOWN]) is UNKNOWN
    assert calls == []


def test_a_parameter_that_allows_unknowns_is_given_them() -> None:
    fn, calls = label(allow_unknown=True)
    call(fn, NAME, ["a", UNKNOWN])
    assert calls == [("a", UNKNOWN)]


def test_a_null_argument_is_refused_naming_its_parameter() -> None:
    fn, _ = label()
    with pytest.raises(ArgumentError) as got:
        call(fn, NAME, ["a", "b", None])
    assert (got.value.index, str(got.value)) == (2, "argument must not be null.")
    assert fn.parameter(got.value.index).name == "parts"


def test_a_parameter_that_allows_null_is_given_it() -> None:
    fn, calls = label(allow_null=True)
    call(fn, NAME, [None])
    assert calls == [(None,)]


def test_a_value_of_the_wrong_type_is_refused_in_ctys_words() -> None:
    fn, _ = label()
    with pytest.raises(ArgumentError) as got:
        call(fn, NAME, [("x",)])
    assert (got.value.index, str(got.value)) == (0, "string required")


def test_too_few_arguments_name_the_missing_parameter() -> None:
    fn, _ = label()
    with pytest.raises(FunctionArityError) as got:
        call(fn, NAME, [])
    assert got.value.summary == "Not enough function arguments"
    assert str(got.value) == f'Function "{NAME}" expects at least 1 argument(s). Missing value for "prefix".'


def test_too_many_arguments_without_a_variadic_parameter() -> None:
    fn = ProviderFunction("one", (Parameter("x", "string"),), None, "string", lambda args: args[0])
    with pytest.raises(FunctionArityError) as got:
        call(fn, "provider::example::one", ["a", "b"])
    assert str(got.value) == 'Function "provider::example::one" expects only 1 argument(s).'
    assert fn.signature("provider::example::one") == "provider::example::one(x)"
