"""Function calls: the arguments evaluated, expanded (``f(list...)``) and handed to a built-in
function (:mod:`engine.lang.functions`), its failure reported in terraform's words with no
sensitive value in it; and ``try``/``can``, whose arguments are expressions evaluated one by one."""

from __future__ import annotations

from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from engine.diagnostics import FunctionArityError, FunctionError
from engine.lang import expr as E
from engine.lang import provider_functions as PF
from engine.lang.diagnostic_values import path_of, traversals
from engine.lang.ephemerality import Ephemerality, references
from engine.lang.functions.arguments import ArgumentError
from engine.lang.quote import go_quote
from engine.lang.refinements import REFINING_CALLS, refined_call
from engine.lang.scope import EvalError, Evaluator, Scope
from engine.values import UNKNOWN, is_wholly_known

if TYPE_CHECKING:
    from engine.lang.functions import registry as F
    from engine.lang.functions import templates as T
else:
    # the functions (a module per family, ~10 ms to import) on the first call of one: a
    # configuration that calls none does not import them
    F = T = None


def _import_functions() -> None:
    global F, T
    from engine.lang.functions import registry, templates

    F, T = registry, templates

# functions whose failures terraform reports as an unsuitable value for their first parameter
_ARGUMENT_ERRORS = frozenset({"tonumber", "tostring", "tobool", "tolist", "toset", "tomap", "file", "one",
                              "filebase64"})


def call(e: E.Call, scope: Scope, value_of: Evaluator) -> Any:
    if e.name == "try" or e.name == "can":  # their arguments are expressions, evaluated one by one
        return _try(e, scope, value_of)
    if F is None:
        _import_functions()
    fn = F.function_named(e.name)
    if fn is None:
        if e.name.startswith(PROVIDER):
            return _provider_call(e, scope, value_of)
        if e.name.startswith(F.CORE):
            raise EvalError("Unknown provider function", 'The function namespace "core" is not valid. Provider '
                            'function calls must use the "provider::" namespace prefix.', e.line)
        raise EvalError("Call to unknown function", f'There is no function named "{e.name}".', e.line)
    name = F.base_name(e.name)
    args = _arguments(e, scope, value_of)
    if args is None:
        return refined_call(e, scope, value_of) if name in REFINING_CALLS else UNKNOWN
    try:
        if name == "ephemeralasnull":
            fn(*args)
            return None if ephemeral(e.args[0], scope) else args[0]
        if name in T.TEMPLATE_FUNCTIONS or name == "issensitive":
            fn(*args)  # only its arguments checked: the evaluator does the rest, below
            return _issensitive(e, args, scope) if name == "issensitive" else _template(e, name, args, scope,
                                                                                         value_of)
        result = fn(*args)
        if result is UNKNOWN and name in REFINING_CALLS:  # what terraform's refinements still know
            return refined_call(e, scope, value_of)
        return result
    except FunctionArityError as exc:
        raise EvalError(exc.summary, str(exc), e.line,
                        _calling(F.signature(name), scope)).blame(e, scope) from None
    except FunctionError as exc:
        calling = _calling(F.signature(name), scope)
        message = _redacted(e, args, str(exc).rstrip("."), scope)
        index = exc.index if isinstance(exc, ArgumentError) else 0 if name in _ARGUMENT_ERRORS else None
        if index is not None:  # terraform's: the value given for that parameter is unsuitable
            params, variadic = F.PARAMS[name]
            param = params[index] if index < len(params) else variadic
            raise EvalError("Invalid function argument", f'Invalid value for "{param}" '
                            f"parameter: {message[:1].lower()}{message[1:]}.", e.line,
                            calling).blame(e.args[index] if index < len(e.args) else e, scope) from None
        raise EvalError("Error in function call", f'Call to function "{name}" failed: {message}.', e.line,
                        calling).blame(e, scope) from None
    except TypeError as exc:
        raise EvalError("Invalid function arguments", f"{e.name}: {exc}", e.line) from None


def _arguments(e: E.Call, scope: Scope, value_of: Evaluator) -> list[Any] | None:
    """The call's arguments, the last one expanded when written ``f(list...)``; None when that one
    is unknown (so is the call's result)."""
    args = [value_of(a, scope) for a in e.args]
    if e.expand_final and args:
        last = args.pop()
        if last is UNKNOWN:
            return None
        if not isinstance(last, tuple):
            raise EvalError("Invalid expanding argument value",
                            "The expanding argument (indicated by ...) must be of a tuple, list, or set type.",
                            e.line)
        args.extend(last)
    return args


def _provider_call(e: E.Call, scope: Scope, value_of: Evaluator) -> Any:
    """``provider::NAME::FUNC(...)``: the function of the provider the module declares as NAME."""
    provider, func = PF.split_name(e.name)
    offered = PF.functions_of(getattr(scope.sensitivity, "module", None), provider)
    if not offered:  # not declared, or a provider with no functions: terraform knows no such namespace
        raise EvalError("Unknown provider function", unknown_provider_function(e.name), e.line)
    fn = offered.get(func)
    if fn is None:
        raise EvalError("Unknown provider function", PF.not_offered(provider, func), e.line)
    args = _arguments(e, scope, value_of)
    if args is None:
        return UNKNOWN
    calling = _calling(fn.signature(e.name), scope)
    try:
        return PF.call(fn, e.name, args)
    except FunctionArityError as exc:
        raise EvalError(exc.summary, str(exc), e.line, calling).blame(e, scope) from None
    except ArgumentError as exc:
        message = _redacted(e, args, str(exc).rstrip("."), scope)
        raise EvalError("Invalid function argument", f'Invalid value for "{fn.parameter(exc.index).name}" '
                        f"parameter: {message[:1].lower()}{message[1:]}.", e.line, calling
                        ).blame(e.args[exc.index] if exc.index < len(e.args) else e, scope) from None
    except FunctionError as exc:  # the provider's words as they are, then a period (as terraform: ".." may result)
        message = _redacted(e, args, str(exc), scope)
        raise EvalError("Error in function call", f'Call to function "{e.name}" failed: {message}.', e.line,
                        calling).blame(e, scope) from None


PROVIDER = "provider::"


def _calling(signature: str, scope: Scope) -> tuple[str, ...]:
    """The diagnostic's "while calling" line: none inside a ``for`` expression or a dynamic block's
    content, whose names terraform evaluates in a child context that does not hold the functions
    (a condition's ``self`` is no such name)."""
    child = any(name != "self" for name in scope.for_vars)
    return () if child else (f"while calling {signature}",)


def unknown_provider_function(name: str) -> str:
    """terraform's detail for ``provider::NAME::FUNC(...)`` where the module declares no provider
    NAME in its required_providers."""
    provider, func = PF.split_name(name)
    return (f'There is no function named "{name}". Ensure that provider name "{provider}" is declared in '
            f'this module\'s required_providers block, and that this provider offers a function named "{func}".')


def _issensitive(e: E.Call, args: list[Any], scope: Scope) -> Any:
    """Whether the argument is sensitive: known from what it refers to (:mod:`engine.lang.sensitivity`),
    unknown while the value itself is."""
    if args[0] is UNKNOWN:
        return UNKNOWN
    return bool(scope.sensitivity is not None and scope.sensitivity.uses(e.args[0]))


def ephemeral(e: E.Expr, scope: Scope) -> bool:
    """Is ``e`` derived from an ephemeral value (:mod:`engine.lang.ephemerality`), in the module the
    scope's sensitivity answers for (without one: ``terraform.applying`` itself)?"""
    module = getattr(scope.sensitivity, "module", None)
    if module is None:
        return any(path_of(t)[0] == "terraform" and path_of(t)[1][:1] == ("applying",) for t in references(e))
    return Ephemerality(module).uses(e)


_TEMPLATE_DEPTH: ContextVar[int] = ContextVar("_TEMPLATE_DEPTH", default=0)


def _template(e: E.Call, name: str, args: list[Any], scope: Scope, value_of: Evaluator) -> Any:
    """``templatefile`` and ``templatestring``: the template rendered with its variables as the only names
    in scope."""
    if name == "templatestring" and isinstance(e.args[0], (E.Literal, E.Template)):
        raise ArgumentError(0, "invalid template expression: templatestring is only for rendering templates "
                               "retrieved dynamically from elsewhere, and so does not support providing a "
                               "literal template; consider using a template string expression instead")
    template = T.template_for(name, *args)
    if template is None:
        return UNKNOWN
    if _TEMPLATE_DEPTH.get() > 0:
        raise FunctionError("cannot recursively call templatefile from inside another template function.")
    inner = Scope({}, _no_locals, scope.resources, None, None, template.variables, scope.sensitivity)
    token = _TEMPLATE_DEPTH.set(_TEMPLATE_DEPTH.get() + 1)
    try:
        return value_of(template.expr, inner)
    except EvalError as exc:
        where = T.STRING_TEMPLATE_NAME if name == "templatestring" else str(args[0])
        raise FunctionError(f"{where}:{exc.line}: {exc.summary}; {exc.detail}") from None
    finally:
        _TEMPLATE_DEPTH.reset(token)


def _no_locals(name: str, line: int) -> Any:
    raise EvalError("Unsupported reference", "Templates can refer only to the variables given to them.", line)


def _redacted(e: E.Call, args: list[Any], message: str, scope: Scope) -> str:
    """A function's error message with no sensitive argument's value in it (terraform's words for
    its conversions; elsewhere ``(sensitive value)`` where the value was quoted)."""
    sens = scope.sensitivity
    if sens is None:
        return message
    marked = [v for a, v in zip(e.args, args, strict=False) if sens.uses(a)]
    if not marked:
        return message
    if e.name in ("tonumber", "tobool") and isinstance(marked[0], str):
        return f"cannot convert this sensitive string to {e.name[2:]}"
    for v in marked:
        if isinstance(v, str) and v:
            message = message.replace(go_quote(v), "(sensitive value)").replace(v, "(sensitive value)")
    return message


def _try(e: E.Call, scope: Scope, value_of: Evaluator) -> Any:
    """terraform's ``try(expressions...)`` (the first argument that evaluates without an error) and
    ``can(expression)`` (whether it does). Either is unknown while an argument it gets to refers to an
    unknown value: whether it would fail is not known yet."""
    if F is None:
        _import_functions()
    calling = _calling(F.signature(e.name), scope)
    if e.name == "can" and len(e.args) != 1:
        summary = "Not enough function arguments" if not e.args else "Too many function arguments"
        detail = ('Function "can" expects 1 argument(s). Missing value for "expression".' if not e.args else
                  'Function "can" expects only 1 argument(s).')
        raise EvalError(summary, detail, e.line, calling).blame(e, scope)
    if not e.args:
        raise EvalError("Error in function call", 'Call to function "try" failed: at least one argument is '
                        "required.", e.line, calling).blame(e, scope)
    failures: list[EvalError] = []
    for arg in e.args:
        if _depends_on_unknowns(arg, scope, value_of):
            return UNKNOWN
        try:
            v = value_of(arg, scope)
        except EvalError as exc:
            if exc.summary in ("Call to unknown function", "Unknown provider function"):  # not for try to hide
                raise
            failures.append(exc)
            continue
        return True if e.name == "can" else v
    if e.name == "can":
        return False
    listed = "".join(f"\n- {f.summary} (at line {f.line})\n  {f.detail}" for f in failures)
    raise EvalError("Error in function call", f'Call to function "try" failed: no expression succeeded:{listed}'
                    "\n\nAt least one expression must produce a successful result.", e.line, calling).blame(e, scope)


def _depends_on_unknowns(e: E.Expr, scope: Scope, value_of: Evaluator) -> bool:
    for t in traversals(e, frozenset()):
        while True:
            try:
                v = value_of(t, scope)
            except EvalError:
                if isinstance(t, E.Var):
                    break
                t = t.obj  # type: ignore[attr-defined]  # the longest prefix that evaluates
                continue
            if not is_wholly_known(v):
                return True
            break
    return False
