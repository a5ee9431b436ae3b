"""Provider-defined functions over tfplugin 5.5/6.5: the signatures a plugin declares in its
GetProviderSchema answer (``functions``), and CallFunction.

Each argument is sent as a DynamicValue in cty msgpack of its parameter's type (the variadic
parameter's for the arguments past the fixed ones); the result is decoded by the return type. A
FunctionError with ``function_argument`` names the argument at fault (terraform's "Invalid
function argument"), without it the call failed as a whole ("Error in function call").

Functions need no configured provider: a call starts the plugin if it is not running yet, and is
made with the synchronous channel, as expressions are evaluated synchronously.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import grpc
import orjson

from engine.diagnostics import FunctionError
from engine.lang.functions.arguments import ArgumentError
from engine.lang.provider_functions import Parameter, ProviderFunction
from engine.plugin import msgpack_values as mv

CALL_TIMEOUT = 300.0


def _parameter(p: Any) -> Parameter:
    return Parameter(p.name, orjson.loads(p.type) if p.type else "dynamic", bool(p.allow_null_value),
                     bool(p.allow_unknown_values))


def _no_call(args: tuple[Any, ...]) -> Any:
    raise FunctionError("the provider's functions are not bound to a running plugin.")


def signatures(functions: Any) -> dict[str, ProviderFunction]:
    """The ``functions`` map of a GetProviderSchema (or GetFunctions) answer, not yet callable."""
    out = {}
    for name, f in functions.items():
        ret = getattr(f, "return")  # a Python keyword
        out[name] = ProviderFunction(
            name, tuple(_parameter(p) for p in f.parameters),
            _parameter(f.variadic_parameter) if f.HasField("variadic_parameter") else None,
            orjson.loads(ret.type) if ret.type else "dynamic", _no_call)
    return out


def bind(fn: ProviderFunction, pb: Any, method: Callable[..., Any],
         failure: Callable[[Any], str]) -> ProviderFunction:
    """``fn`` made callable through the plugin's CallFunction ``method`` (protocol module ``pb``);
    ``failure`` words a gRPC error as terraform does."""

    def call(args: tuple[Any, ...]) -> Any:
        arguments = [pb.DynamicValue(msgpack=mv.encode(v, fn.parameter(i).type)) for i, v in enumerate(args)]
        try:
            resp = method(pb.CallFunction.Request(name=fn.name, arguments=arguments), timeout=CALL_TIMEOUT)
        except grpc.RpcError as exc:
            raise FunctionError(failure(exc)) from None
        if resp.HasField("error") and (resp.error.text or resp.error.HasField("function_argument")):
            if resp.error.HasField("function_argument"):
                raise ArgumentError(int(resp.error.function_argument), resp.error.text)
            raise FunctionError(resp.error.text)
        return decode_result(resp.result, fn.return_type)

    return ProviderFunction(fn.name, fn.parameters, fn.variadic, fn.return_type, call)


def decode_result(dv: Any, ty: Any) -> Any:
    if dv.msgpack:
        return mv.decode(dv.msgpack, ty)
    if dv.json:
        return mv.decode_json(dv.json, ty)
    return None
