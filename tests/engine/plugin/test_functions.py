"""The plugin side of provider functions (engine.plugin.functions): signatures decoded from a
GetProviderSchema answer, and CallFunction's answers, with a stand-in for the gRPC method."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from engine.diagnostics import FunctionError
from engine.lang.functions.arguments import ArgumentError
from engine.plugin import msgpack_values as mv
from engine.plugin.functions import bind, signatures
from engine.plugin.proto import tfplugin5_pb2 as pb5
from engine.plugin.proto import tfplugin6_pb2 as pb6


def _declared(pb: Any) -> Any:
    resp = pb.GetProviderSchema.Response()
    f = resp.functions["pick"]
    f.parameters.add(name="items", type=orjson.dumps(["list", "string"]), allow_null_value=True)
    f.variadic_parameter.name = "extra"
    f.variadic_parameter.type = b'"number"'
    f.variadic_parameter.allow_unknown_values = True
    getattr(f, "return").type = b'"string"'
    return resp.functions


@pytest.mark.parametrize("pb", [pb5, pb6])
def test_signatures_are_read_from_the_schema(pb: Any) -> None:
    fn = signatures(_declared(pb))["pick"]
    assert [(p.name, p.type, p.allow_null, p.allow_unknown) for p in fn.parameters] == [
        ("items", ["list", "string"], True, False)]
    assert fn.variadic is not None and (fn.variadic.name, fn.variadic.type, fn.variadic.allow_unknown) == (
        "extra", "number", True)
    assert fn.return_type == "string"
    assert fn.signature("provider::x::pick") == "provider::x::pick(items, extra...)"


def _bound(answer: Any) -> tuple[Any, list[Any]]:
    sent: list[Any] = []

    def method(req: Any, timeout: float) -> Any:
        sent.append(req)
        return answer

    return bind(signatures(_declared(pb6))["pick"], pb6, method, str), sent


def test_arguments_go_as_msgpack_of_their_parameters_types() -> None:
    fn, sent = _bound(pb6.CallFunction.Response(result=pb6.DynamicValue(msgpack=mv.encode("a", "string"))))
    assert fn.call((("a", "b"), 1, 2)) == "a"
    req = sent[0]
    assert req.name == "pick"
    assert [mv.decode(a.msgpack, t) for a, t in zip(req.arguments, [["list", "string"], "number", "number"],
                                                     strict=True)] == [("a", "b"), 1, 2]


def test_an_error_naming_an_argument_is_an_argument_error() -> None:
    fn, _ = _bound(pb6.CallFunction.Response(error=pb6.FunctionError(text="too big", function_argument=1)))
    with pytest.raises(ArgumentError) as got:
        fn.call((("a",), 99))
    assert (got.value.index, str(got.value)) == (1, "too big")


def test_an_error_naming_no_argument_is_the_calls() -> None:
    fn, _ = _bound(pb6.CallFunction.Response(error=pb6.FunctionError(text="no luck")))
    with pytest.raises(FunctionError) as got:
        fn.call((("a",),))
    assert not isinstance(got.value, ArgumentError) and str(got.value) == "no luck"
