"""Which unknown values terraform knows are not null.

terraform's values (cty's) carry *refinements* when unknown: a template's result, an operator's,
and most functions' are refined as never null, so ``jsonencode(aws_instance.a.id) != null`` is
``true`` at plan time, not unknown, and a ``count`` or ``for_each`` that asks so is known.
strata's unknown value (:data:`engine.values.UNKNOWN`) is one value that carries nothing; where
the refinement decides a result, a comparison with null, the expression that made the unknown
value is asked instead whether terraform would have refined it so (:func:`definitely_not_null`).

What refines, as terraform 1.11 (HCL 2.23, cty 1.16) does it, each checked against its plan
(``tests/engine/functions``, the refinement cases):

* a template (``"a-${x}"``, a directive): HCL's template result is never null; a lone
  interpolation ``"${x}"`` is ``x`` itself and refines nothing;
* every operator (arithmetic, comparison, equality, logic, ``!``, ``-``);
* a conditional whose two results are both never null;
* the functions of :data:`NOT_NULL_FUNCTIONS`, found by planning a call of each with unknown
  arguments and comparing its result with null; the others (conversions such as ``tostring``,
  ``jsondecode``, ``try``, ``regex``...) stay unknown;
* a local value whose expression is any of these.

A resource's attribute, an input variable, a splat or a ``for`` over an unknown collection is not
refined (terraform 1.11 refines none of them).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.lang import expr as E
from engine.lang.scope import EvalError

NOT_NULL_FUNCTIONS = frozenset({
    "abs", "abspath", "base64decode", "base64encode", "base64gzip", "base64sha256", "base64sha512",
    "basename", "ceil", "chomp", "cidrhost", "cidrnetmask", "cidrsubnet", "cidrsubnets", "coalesce",
    "contains", "dirname", "endswith", "file", "filebase64", "filebase64sha256", "filebase64sha512",
    "fileexists", "filemd5", "fileset", "filesha1", "filesha256", "filesha512", "floor", "format",
    "formatdate", "formatlist", "indent", "index", "jsonencode", "length", "log", "lower", "max", "md5",
    "min", "parseint", "pathexpand", "pow", "range", "regexall", "replace", "sha1", "sha256", "sha512",
    "signum", "split", "startswith", "strrev", "substr", "sum", "templatestring", "textdecodebase64",
    "textencodebase64", "timecmp", "title", "trim", "trimprefix", "trimspace", "trimsuffix", "upper",
    "urlencode",
})
"""The built-in functions whose result, unknown, terraform 1.11 refines as not null (measured: a
plan of each called with unknown arguments, its result compared with null)."""

_DEEPEST = 100  # locals referring to locals: deeper than this (or a cycle) is not followed


def definitely_not_null(e: E.Expr, scope: Any, value_of: Callable[[E.Expr, Any], Any], depth: int = 0) -> bool:
    """Would terraform's value of ``e``, were it unknown, be refined as not null? ``scope``: the
    evaluation's (a local value is followed to its expression where the scope knows it);
    ``value_of``: its evaluator (a conditional's condition known decides which result counts)."""
    t = type(e)
    if t is E.Template or t is E.TemplateIf or t is E.TemplateFor or t is E.Binary or t is E.Unary:
        return True
    if t is E.Literal:
        return e.value is not None  # type: ignore[attr-defined]
    if t is E.Call:
        name = e.name  # type: ignore[attr-defined]
        return (name[6:] if name.startswith("core::") else name) in NOT_NULL_FUNCTIONS
    if t is E.Conditional:
        try:
            cond = value_of(e.cond, scope)  # type: ignore[attr-defined]
        except EvalError:
            return False
        if cond is True or cond is False:  # the result is the branch taken: its own refinement
            return definitely_not_null(e.true if cond else e.false, scope, value_of, depth)  # type: ignore[attr-defined]
        return (definitely_not_null(e.true, scope, value_of, depth)  # type: ignore[attr-defined]
                and definitely_not_null(e.false, scope, value_of, depth))  # type: ignore[attr-defined]
    if (t is E.GetAttr and type(e.obj) is E.Var and e.obj.name == "local"  # type: ignore[attr-defined]
            and "local" not in scope.for_vars and depth < _DEEPEST):  # not a for's own "local"
        declared = scope.local_config
        local = None if declared is None else declared(e.name)  # type: ignore[attr-defined]
        return local is not None and definitely_not_null(local.expr, scope, value_of, depth + 1)
    return False
