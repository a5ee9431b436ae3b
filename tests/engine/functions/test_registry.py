"""engine/lang/functions/registry.py: the families' signatures agree with their implementations, so a
function added with a wrong signature fails here rather than with a confusing arity error."""

from __future__ import annotations

import inspect

import pytest

from engine.lang.functions import registry
from engine.lang.functions.registry import FUNCTIONS, PARAMS, signature

DECLARED = [(family.__name__.rsplit(".", 1)[1], sig, impl)
            for family in registry._FAMILIES for sig, impl in family.SIGNATURES.items()]


@pytest.mark.parametrize(("family", "sig", "impl"), DECLARED, ids=[d[1] for d in DECLARED])
def test_every_signature_matches_its_implementation(family, sig, impl):
    params = inspect.signature(impl).parameters.values()
    positional = [p for p in params if p.kind is p.POSITIONAL_OR_KEYWORD]
    variadic = any(p.kind is p.VAR_POSITIONAL for p in params)
    name = sig.split("(", 1)[0]
    names, rest = PARAMS[name]
    assert (len(positional), variadic) == (len(names), rest is not None), (
        f"{family}: {sig} declares {len(names)} parameter(s){' and a variadic one' if rest else ''}, "
        f"its implementation takes {inspect.signature(impl)}")


def test_every_declared_function_is_callable_by_name():
    assert sorted(FUNCTIONS) == sorted(sig.split("(", 1)[0] for _f, sig, _i in DECLARED)


def test_signature_shows_terraform_parameters():
    assert signature("join") == "join(separator, lists...)"
    assert signature("try") == "try(expressions...)"


def test_core_namespace_calls_the_builtin_function():
    from engine.lang import expr as E
    from engine.lang.evaluate import Scope, evaluate

    scope = Scope({}, lambda name, line: None, None)  # type: ignore[arg-type]
    call = E.Call(1, "core::upper", (E.Literal(1, "a"),), False)
    assert evaluate(call, scope) == "A"


def test_unknown_core_function_is_terraforms_error():
    from engine.lang import expr as E
    from engine.lang.evaluate import EvalError, Scope, evaluate

    scope = Scope({}, lambda name, line: None, None)  # type: ignore[arg-type]
    with pytest.raises(EvalError) as info:
        evaluate(E.Call(1, "core::nope", (), False), scope)
    assert info.value.summary == "Unknown provider function"
