"""What terraform knows of an unknown value: its *refinements*.

terraform's values (cty's) carry refinements when unknown, and decide with them what would
otherwise stay unknown at plan: ``jsonencode(aws_instance.a.id) != null`` is ``true``,
``"${var.name}-${random_id.x.hex}" == ""`` is ``false``, ``startswith("arn:${x}", "arn")`` is
``true``, ``length(x.ids) > -1`` is ``true``, and ``var.on ? 1 : 1`` is ``1``.

strata's unknown value (:data:`engine.values.UNKNOWN`) is one value that carries nothing. Where a
refinement can decide a result (an equality, an ordering, ``startswith``, ``length``, a
conditional with an unknown condition), the expression that made the unknown value is asked
instead what terraform would know of it (:func:`refinement`), and the answer is a
:class:`Refinement`. What refines, as terraform 1.11 (HCL 2.23, cty 1.16) does it, each checked
against its plan (``tests/engine/functions``, the refinement cases):

* never null: a template (``"a-${x}"``, a directive; a lone ``"${x}"`` is ``x`` itself), every
  operator, the functions of :data:`NOT_NULL_FUNCTIONS`, a conditional whose two results are;
* a string's known prefix: a template's known start, ``format``'s text before its first verb
  (both through cty's safe prefix, :mod:`engine.lang.known_prefix`), ``jsonencode``'s first
  character when its argument is never null (``"``, ``{`` or ``[``);
* a number's range: ``length`` of an unknown string (at least its prefix's characters) or
  collection (its length's range), a conditional over two numbers (both ranges);
* a collection's length range: ``tolist``/``toset``/``tomap`` of what has one, a conditional over
  two collections of one type;
* ``sensitive`` and ``nonsensitive`` keep their argument's; a local value is its expression's;
* the type of an unknown result: a function's (its signature), a template's, an operator's, so
  an unknown string is never equal to a number.

Not refined (terraform 1.11 refines none of them): arithmetic's range (hcl calls cty's
functions, which do not look at their unknown arguments), a resource's attribute, an input
variable, a splat or a ``for`` over an unknown collection, ``tostring`` and the string functions.
strata also leaves unrefined what needs the type of an unknown that only terraform knows (an
attribute typed by its provider's schema, ``terraform_data``'s ``output``): there strata says
unknown where terraform may know.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.frozen import frozen
from engine.lang import expr as E
from engine.lang.known_prefix import safe_known_prefix
from engine.lang.number import to_string
from engine.lang.scope import EvalError
from engine.values import UNKNOWN, ListVal, MapVal, SetVal, is_wholly_known, value_type

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

REFINING_CALLS = frozenset({"length", "startswith", "sensitive", "nonsensitive", "tolist", "toset", "tomap"})
"""The functions whose unknown result a refinement can make known (or partly known)."""

_DEEPEST = 100  # locals referring to locals: deeper than this (or a cycle) is not followed
_PREFIX_BYTES = 128  # hcl keeps no more of a template's known start
_COLLECTIONS = frozenset({"list", "set", "map"})
_PRIMITIVES = frozenset({"string", "number", "bool"})
_ARITHMETIC = frozenset({"+", "-", "*", "/", "%"})

Value = Callable[[E.Expr, Any], Any]


@frozen
class Refinement:
    """What is known of a value: the value itself (``known``), or what terraform's refinements of
    an unknown one say. ``kind`` is its type's kind (``"string"``, ``"number"``, ``"bool"``,
    ``"list"``, ``"set"``, ``"map"``, ``"tuple"``, ``"object"``), None when any; ``ty`` its whole
    type when known (JSON type notation); ``lo``/``hi`` a number's bounds (None: unbounded),
    ``len_lo``/``len_hi`` a collection's length's (``len_hi`` None: unbounded)."""

    known: bool = False
    value: Any = None
    not_null: bool = False
    kind: str | None = None
    ty: Any = None
    prefix: str = ""
    lo: Any = None
    lo_inc: bool = False
    hi: Any = None
    hi_inc: bool = False
    len_lo: int = 0
    len_hi: int | None = None


NOTHING = Refinement()


def _kind_of_type(ty: Any) -> str | None:
    if type(ty) is str:
        return None if ty == "dynamic" else ty
    return str(ty[0])


def _whole(ty: Any) -> Any:
    """``ty`` if it has no ``dynamic`` part (then it is exactly the value's type), else None."""
    if ty == "dynamic":
        return None
    if type(ty) is str:
        return ty
    inner = ty[1]
    if type(inner) is dict:
        return ty if all(_whole(t) is not None for t in inner.values()) else None
    if ty[0] == "tuple":
        return ty if all(_whole(t) is not None for t in inner) else None
    return ty if _whole(inner) is not None else None


def of_value(v: Any) -> Refinement:
    """A known value's (cty's ``Range`` of it); ``v`` may hold unknowns inside."""
    if v is None:
        return Refinement(known=True)
    ty = value_type(v)
    kind = _kind_of_type(ty)
    # an empty collection's type is its own (``tolist([])`` is a list of dynamic in cty too)
    whole = ty if kind in _COLLECTIONS and not v else _whole(ty) if is_wholly_known(v) else None
    if kind == "string":
        return Refinement(known=True, value=v, not_null=True, kind=kind, ty=ty, prefix=v)
    if kind == "number":
        return Refinement(known=True, value=v, not_null=True, kind=kind, ty=ty, lo=v, lo_inc=True, hi=v, hi_inc=True)
    if kind in _COLLECTIONS:
        n = len(v)
        lo = 1 if isinstance(v, SetVal) and n > 1 and UNKNOWN in v else n  # unknowns may coalesce
        return Refinement(known=True, value=v, not_null=True, kind=kind, ty=whole, len_lo=min(lo, n), len_hi=n)
    return Refinement(known=True, value=v, not_null=True, kind=kind, ty=whole)


def refinement(e: E.Expr, v: Any, scope: Any, value_of: Value, depth: int = 0) -> Refinement:
    """What is known of ``e``'s value ``v`` (its evaluation in ``scope``, by ``value_of``)."""
    if v is not UNKNOWN:
        return of_value(v)
    return _of_unknown(e, scope, value_of, depth)


def _of(e: E.Expr, scope: Any, value_of: Value, depth: int) -> Refinement:
    try:
        v = value_of(e, scope)
    except EvalError:
        return NOTHING
    return refinement(e, v, scope, value_of, depth)


def _of_unknown(e: E.Expr, scope: Any, value_of: Value, depth: int) -> Refinement:  # noqa: C901 - dispatch
    t = type(e)
    if t is E.Template:
        return Refinement(not_null=True, kind="string", ty="string", prefix=_template_prefix(e, scope, value_of))  # type: ignore[arg-type]
    if t is E.TemplateIf or t is E.TemplateFor:
        return Refinement(not_null=True, kind="string", ty="string")
    if t is E.Binary:
        kind = "number" if e.op in _ARITHMETIC else "bool"  # type: ignore[attr-defined]
        return Refinement(not_null=True, kind=kind, ty=kind)
    if t is E.Unary:
        kind = "number" if e.op == "-" else "bool"  # type: ignore[attr-defined]
        return Refinement(not_null=True, kind=kind, ty=kind)
    if t is E.Call:
        return _call(e, scope, value_of, depth)  # type: ignore[arg-type]
    if t is E.Conditional:
        return _conditional(e, scope, value_of, depth)  # type: ignore[arg-type]
    if (t is E.GetAttr and type(e.obj) is E.Var and e.obj.name == "local"  # type: ignore[attr-defined]
            and "local" not in scope.for_vars and depth < _DEEPEST):  # not a for's own "local"
        declared = getattr(scope, "local_config", None)
        local = None if declared is None else declared(e.name)  # type: ignore[attr-defined]
        if local is not None:
            return _of(local.expr, scope, value_of, depth + 1)
    return NOTHING


def _template_prefix(e: E.Template, scope: Any, value_of: Value) -> str:
    """The known start of an unknown template: its parts up to the first unknown one."""
    buf: list[str] = []
    for p in e.parts:
        if type(p) is str:
            buf.append(p)
            continue
        try:
            v = value_of(p, scope)  # type: ignore[arg-type]  # not a str: an expression
        except EvalError:
            return ""
        if v is UNKNOWN:
            break
        if type(v) is str:
            buf.append(v)
        elif isinstance(v, (int, float)) and not isinstance(v, bool):
            buf.append(to_string(v))
        else:
            return ""  # a value no template takes: hcl keeps no prefix of a failed template
    known = "".join(buf)
    if not known:
        return ""
    raw = known.encode()
    if len(raw) > _PREFIX_BYTES:
        known = raw[:_PREFIX_BYTES].decode(errors="ignore")
    return safe_known_prefix(known)


def _signature_type(name: str) -> Any:
    from engine.lang.functions.terraform_signatures import TERRAFORM_FUNCTIONS

    if name == "format":  # its signature says dynamic: its result is a string
        return "string"
    sig = TERRAFORM_FUNCTIONS.get(name)
    return "dynamic" if sig is None else sig[2]


def _call(e: E.Call, scope: Any, value_of: Value, depth: int) -> Refinement:
    name = e.function
    if name.startswith("provider::"):
        return NOTHING
    if name in ("sensitive", "nonsensitive") and len(e.args) == 1:
        return _of(e.args[0], scope, value_of, depth)
    ty = _signature_type(name)
    kind = _kind_of_type(ty)
    not_null = name in NOT_NULL_FUNCTIONS
    base = Refinement(not_null=not_null, kind=kind, ty=_whole(ty))
    if not e.args:
        return base
    if name == "length":
        arg = _of(e.args[0], scope, value_of, depth)
        if arg.kind == "string":
            from engine.lang.functions.strings import graphemes

            return Refinement(not_null=True, kind="number", ty="number", lo=len(graphemes(arg.prefix)) if arg.prefix
                              else 0, lo_inc=True)
        if arg.kind in _COLLECTIONS:
            return Refinement(not_null=True, kind="number", ty="number", lo=arg.len_lo, lo_inc=True, hi=arg.len_hi,
                              hi_inc=arg.len_hi is not None)
        return base
    if name == "format":
        try:
            f = value_of(e.args[0], scope)
        except EvalError:
            return base
        if type(f) is str and f.find("%") > 0:
            return Refinement(not_null=True, kind="string", ty="string", prefix=safe_known_prefix(f[:f.find("%")]))
        return base
    if name == "jsonencode":
        arg = _of(e.args[0], scope, value_of, depth)
        if arg.not_null:
            first = ('"' if arg.kind == "string" else "{" if arg.kind in ("object", "map")
                     else "[" if arg.kind in ("tuple", "list", "set") else "")
            return Refinement(not_null=True, kind="string", ty="string", prefix=first)
        return base
    if name in ("tolist", "toset", "tomap"):
        return _converted(kind, _of(e.args[0], scope, value_of, depth))
    return base


def _converted(kind: str | None, src: Refinement) -> Refinement:
    """A conversion's unknown result (cty's ``prepareUnknownResult``): the length carries over."""
    base = Refinement(not_null=src.not_null, kind=kind)
    if src.kind == "object" and kind == "map" and src.known:
        n = len(src.value)
        return Refinement(not_null=src.not_null, kind=kind, len_lo=n, len_hi=n)
    if src.kind == "tuple" and src.known:
        n = len(src.value)
        if kind == "list" or n <= 1:
            return Refinement(not_null=src.not_null, kind=kind, len_lo=n, len_hi=n)
        if kind == "set":
            return Refinement(not_null=src.not_null, kind=kind, len_lo=1, len_hi=n)
    if src.kind in _COLLECTIONS and kind in _COLLECTIONS:
        lo = (1 if src.len_lo > 0 else 0) if kind == "set" else src.len_lo
        # no whole type: terraform's toset(list of string) does not compare as a set of string
        return Refinement(not_null=src.not_null, kind=kind, len_lo=lo, len_hi=src.len_hi)
    return base


def _conditional(e: E.Conditional, scope: Any, value_of: Value, depth: int, cond: Any = None) -> Refinement:
    """``cond``: the condition's value when the caller has it (:data:`UNKNOWN`), else evaluated."""
    if cond is None:
        try:
            cond = value_of(e.cond, scope)
        except EvalError:
            return NOTHING
    if cond == "true" or cond == "false":
        cond = cond == "true"
    if cond is True or cond is False:  # the result is the branch taken: its own refinement
        return _of(e.true if cond else e.false, scope, value_of, depth)
    a = _of(e.true, scope, value_of, depth)
    b = _of(e.false, scope, value_of, depth)
    if a.known and a.value is None and b.known and b.value is None:
        return Refinement(known=True)
    not_null = a.not_null and b.not_null
    if a.kind == "number" and b.kind == "number":  # hcl: a range covering both
        lo, lo_inc = _lower(a, b)
        hi, hi_inc = _upper(a, b)
        return Refinement(not_null=not_null, kind="number", ty="number", lo=lo, lo_inc=lo_inc, hi=hi, hi_inc=hi_inc)
    if a.kind in _COLLECTIONS and a.ty is not None and a.ty == b.ty:  # hcl: a length range covering both
        hi = None if a.len_hi is None or b.len_hi is None else max(a.len_hi, b.len_hi)
        return Refinement(not_null=not_null, kind=a.kind, ty=a.ty, len_lo=min(a.len_lo, b.len_lo), len_hi=hi)
    if a.kind in _PRIMITIVES and b.kind in _PRIMITIVES and "string" in (a.kind, b.kind):
        return Refinement(not_null=not_null, kind="string", ty="string")  # the two unify to a string
    return Refinement(not_null=not_null, kind=a.kind if a.kind == b.kind else None)


def _lower(a: Refinement, b: Refinement) -> tuple[Any, bool]:
    if a.lo is None or b.lo is None:
        return None, False
    if a.lo < b.lo:
        return a.lo, a.lo_inc
    if b.lo < a.lo:
        return b.lo, b.lo_inc
    return a.lo, a.lo_inc or b.lo_inc


def _upper(a: Refinement, b: Refinement) -> tuple[Any, bool]:
    if a.hi is None or b.hi is None:
        return None, False
    if a.hi > b.hi:
        return a.hi, a.hi_inc
    if b.hi > a.hi:
        return b.hi, b.hi_inc
    return a.hi, a.hi_inc or b.hi_inc


def collapsed(r: Refinement) -> Any:
    """The value ``r`` leaves no choice of (cty's ``NewValue``): a number whose range is one
    number, a collection whose length is known (an empty one; a list of unknowns; a set of one
    unknown), a null; else :data:`UNKNOWN`."""
    if r.known:
        return r.value
    if not r.not_null:
        return UNKNOWN
    if r.kind == "number":
        if r.lo is not None and r.lo_inc and r.hi_inc and r.hi is not None and r.lo == r.hi:
            return r.lo
    elif r.kind in _COLLECTIONS and r.len_hi == r.len_lo:
        if r.len_lo == 0:
            return ListVal() if r.kind == "list" else SetVal() if r.kind == "set" else MapVal()
        if r.kind == "list":
            return ListVal((UNKNOWN,) * r.len_lo)
        if r.kind == "set" and r.len_lo == 1:
            return SetVal((UNKNOWN,))
    return UNKNOWN


def unknown_conditional(e: E.Conditional, scope: Any, value_of: Value) -> Any:
    """A conditional whose condition is unknown: unknown, unless its two results' refinements
    leave no choice (``c ? 1 : 1``, two lists of one length, two nulls). Neither result is
    evaluated where one cannot be a number, a collection or null (hot path: an object, a string
    or a template in a result, the usual case, costs nothing more)."""
    if not (_may_collapse(e.true) and _may_collapse(e.false)):
        return UNKNOWN
    return collapsed(_conditional(e, scope, value_of, 0, UNKNOWN))


_NEVER_COLLAPSES = frozenset({E.ObjectExpr, E.TupleExpr, E.Template, E.TemplateIf, E.TemplateFor, E.ForExpr})


def _may_collapse(e: E.Expr) -> bool:
    """Could ``e``'s value be a number, a list, set or map, or null (what a conditional's
    refinement can make one value of)? Only the syntax is looked at."""
    t = type(e)
    if t in _NEVER_COLLAPSES:
        return False
    if t is E.Literal:
        v = e.value  # type: ignore[attr-defined]
        return v is None or (type(v) is int or type(v) is float)
    if t is E.Binary:
        return e.op in _ARITHMETIC  # type: ignore[attr-defined]
    if t is E.Unary:
        return bool(e.op == "-")  # type: ignore[attr-defined]
    return True


def excludes(r: Refinement, known: Refinement) -> bool:
    """The value ``known`` refines (a known one, :func:`of_value`'s) cannot be the value ``r``
    (unknown) refines (cty's ``Range.Includes`` false, or the two types differ)."""
    v = known.value
    if v is None:
        return r.not_null
    if r.kind is None or v is UNKNOWN:
        return False
    if r.ty is not None and known.ty is not None and r.ty != known.ty:
        return True  # cty compares types first: an unknown list(string) is never a tuple
    if known.kind != r.kind:
        # two types of a different kind are never equal; where a whole type is not known (a
        # collection of unknowns), a primitive's kind is all that tells
        return known.kind in _PRIMITIVES or r.kind in _PRIMITIVES
    if r.kind == "string":
        return not v.startswith(r.prefix)
    if r.kind == "number":
        return _below(v, r.lo, r.lo_inc) or _above(v, r.hi, r.hi_inc)
    if r.kind in _COLLECTIONS and known.len_hi == known.len_lo:
        n = known.len_lo
        return n < r.len_lo or (r.len_hi is not None and n > r.len_hi)
    return False


def _below(v: Any, lo: Any, inc: bool) -> bool:
    return lo is not None and (v < lo if inc else v <= lo)


def _above(v: Any, hi: Any, inc: bool) -> bool:
    return hi is not None and (v > hi if inc else v >= hi)


def equality(left: Refinement, right: Refinement) -> Any:
    """``==`` of two values, one of them unknown: False where a refinement rules it out, else
    :data:`UNKNOWN`."""
    if left.known and excludes(right, left):
        return False
    if right.known and excludes(left, right):
        return False
    return UNKNOWN


def less_than(a: Refinement, b: Refinement) -> Any:
    """``a < b`` from two numbers' ranges (cty treats every bound as exclusive here)."""
    if a.kind != "number" or b.kind != "number":
        return UNKNOWN
    if a.hi is not None and b.lo is not None and a.hi < b.lo:
        return True
    if a.lo is not None and b.hi is not None and a.lo > b.hi:
        return False
    return UNKNOWN


def ordering(op: str, a: Refinement, b: Refinement) -> Any:
    """``a op b`` for ``<``, ``>``, ``<=``, ``>=`` where a range decides it, else :data:`UNKNOWN`;
    ``<=`` is ``<`` or ``==``, as cty has it."""
    if op == ">" or op == ">=":
        a, b = b, a
    lt = less_than(a, b)
    if op == "<" or op == ">":
        return lt
    if lt is True:
        return True
    if lt is False and equality(a, b) is False:
        return False
    return UNKNOWN


def starts_with(r: Refinement, prefix: Any) -> Any:
    """terraform's ``startswith`` of an unknown string refined by ``r``."""
    if type(prefix) is not str:
        return UNKNOWN
    if prefix == "":
        return True
    known = r.prefix
    if known:
        if known.startswith(prefix):
            return True
        if len(known.encode()) >= len(prefix.encode()):
            return False
    return UNKNOWN


def refined_call(e: E.Call, scope: Any, value_of: Value) -> Any:
    """The result of a call of :data:`REFINING_CALLS` the evaluator found unknown, as far as
    terraform's refinements make it known."""
    if e.function == "startswith":
        if len(e.args) != 2:
            return UNKNOWN
        try:
            prefix = value_of(e.args[1], scope)
        except EvalError:
            return UNKNOWN
        return starts_with(_of(e.args[0], scope, value_of, 0), prefix)
    return collapsed(_call(e, scope, value_of, 0))
