"""Function calls: the arguments evaluated, expanded (``f(list...)``) and handed to a built-in
function (:mod:`engine.lang.functions`), its failure reported in terraform's words with no
sensitive value in it; and ``try``/``can``, whose arguments are expressions evaluated one by one."""

from __future__ import annotations

from typing import Any

from engine.diagnostics import FunctionArityError, FunctionError
from engine.lang import expr as E
from engine.lang.diagnostic_values import traversals
from engine.lang.functions.registry import FUNCTIONS, PARAMS, signature
from engine.lang.quote import go_quote
from engine.lang.scope import EvalError, Evaluator, Scope
from engine.values import UNKNOWN, is_wholly_known

# functions whose failures terraform reports as an unsuitable value for their first parameter
_ARGUMENT_ERRORS = frozenset({"tonumber", "tostring", "tobool", "tolist", "toset", "tomap", "lookup", "file", "one",
                              "filebase64", "filemd5", "filesha1", "filesha256", "filesha512"})


def call(e: E.Call, scope: Scope, value_of: Evaluator) -> Any:
    if e.name == "try" or e.name == "can":  # their arguments are expressions, evaluated one by one
        return _try(e, scope, value_of)
    fn = FUNCTIONS.get(e.name)
    if fn is None:
        raise EvalError("Call to unknown function", f'There is no function named "{e.name}".', e.line)
    args = [value_of(a, scope) for a in e.args]
    if e.expand_final and args:
        last = args.pop()
        if last is UNKNOWN:
            return UNKNOWN
        if not isinstance(last, tuple):
            raise EvalError("Invalid expanding argument value",
                            "The expanding argument (indicated by ...) must be of a tuple, list, or set type.",
                            e.line)
        args.extend(last)
    try:
        return fn(*args)
    except FunctionArityError as exc:
        raise EvalError(exc.summary, str(exc), e.line,
                        (f"while calling {signature(e.name)}",)).blame(e, scope) from None
    except FunctionError as exc:
        calling = (f"while calling {signature(e.name)}",)
        message = _redacted(e, args, str(exc).rstrip("."), scope)
        if e.name in _ARGUMENT_ERRORS:  # terraform's: the value given for its first parameter is unsuitable
            raise EvalError("Invalid function argument", f'Invalid value for "{PARAMS[e.name][0][0]}" '
                            f"parameter: {message[:1].lower()}{message[1:]}.", e.line,
                            calling).blame(e.args[0] if e.args else e, scope) from None
        raise EvalError("Error in function call", f'Call to function "{e.name}" failed: {message}.', e.line,
                        calling).blame(e, scope) from None
    except TypeError as exc:
        raise EvalError("Invalid function arguments", f"{e.name}: {exc}", e.line) from None


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
    calling = (f"while calling {signature(e.name)}",)
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
            if exc.summary == "Call to unknown function":  # a function strata lacks: not for try to hide
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
