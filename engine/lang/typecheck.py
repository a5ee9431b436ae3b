"""The type mistakes terraform's validate finds in an expression whose names are unknown values of
their declared types: ``[for c in var.s : c]`` with ``variable "s" { type = string }`` fails
("Iteration over non-iterable value") before any value is known.

In cty an unknown value has a type: during validate terraform makes every input variable an
unknown of its declared type, and hcl checks what it can of each operation against the types of
its operands. strata's unknown (:data:`engine.values.UNKNOWN`) carries no type, and plan and
apply never need one, so instead of typing every unknown this module works out the types an
expression's parts have from the expression itself (:meth:`ExprTypes.of`) and raises, in hcl's
words, where they cannot go together: an attribute of a primitive or of a list, an index of a
string, iteration over a primitive, an operand of the wrong type, a function argument its
parameter cannot take, two conditional results of no common type.

Invariant (what keeps it from refusing a valid configuration): a type is either exactly the type
the value will have, or ``"dynamic"``; where a rule is not certain it answers ``"dynamic"`` and
says nothing. Literal values are typed as they are; what a known value decides beyond its type
(a key, a conversion) is left to evaluation, which sees the values.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.lang import expr as E
from engine.lang.convert import ConversionError, concrete, convert
from engine.lang.diagnostic_values import compact_value, path_of, traversal_text, traversals
from engine.lang.functions.terraform_signatures import TERRAFORM_FUNCTIONS
from engine.lang.scope import EvalError
from engine.lang.unify import convertible, mismatch, unify_unsafe
from engine.values import friendly_name, is_wholly_known, value_type

DYNAMIC = "dynamic"
_PRIMITIVE = frozenset({"string", "number", "bool"})
_FACTS = {"terraform": {"applying": "bool", "workspace": "string"},
          "path": {"module": "string", "root": "string", "cwd": "string"}}
_ARITHMETIC = frozenset({"+", "-", "*", "/", "%", "<", ">", "<=", ">="})
_MAX_DEPTH = 400  # nesting beyond this is not worth a deep stack: "dynamic"


def _kind(ty: Any) -> str:
    return ty if isinstance(ty, str) else str(ty[0])


def has_dynamic(ty: Any) -> bool:
    """Whether any part of ``ty`` is not known."""
    if isinstance(ty, str):
        return ty == DYNAMIC
    if ty[0] == "object":
        return any(has_dynamic(t) for t in ty[1].values())
    if ty[0] == "tuple":
        return any(has_dynamic(t) for t in ty[1])
    return has_dynamic(ty[1])


def constraint_name(ty: Any) -> str:
    """cty's ``FriendlyNameForConstraint``: ``list of string``, ``list of any single type``."""
    if ty == DYNAMIC:
        return "any single type"
    if isinstance(ty, list) and ty[0] in ("list", "set", "map"):
        return f"{ty[0]} of {constraint_name(ty[1])}"
    return friendly_name(ty)


class TypeMistake(EvalError):
    """A type mistake at ``line``; ``statements``: terraform's about the types of the references in
    the expression that has it (``("var.s", "is a string")``)."""

    def __init__(self, summary: str, detail: str, line: int, values: tuple[str, ...],
                 statements: tuple[tuple[str, str], ...]) -> None:
        super().__init__(summary, detail, line, values)
        self.statements = statements


class ExprTypes:
    """The types of expressions in one module, every input variable an unknown of its declared
    type (``variable_type(name)``, None for a name not declared) and every resource, module call
    and ``each``/``self`` value of unknown type. ``local_expr(name)``: a local value's expression
    (None when there is none); a local's type is its expression's, worked out once."""

    def __init__(self, variable_type: Callable[[str], Any], local_expr: Callable[[str], E.Expr | None],
                 hidden: Callable[[str, tuple[str, ...]], bool] = lambda root, names: False) -> None:
        self._variable_type = variable_type
        self._local_expr = local_expr
        self._hidden = hidden
        self._locals: dict[str, Any] = {}
        self._stating = False
        self._found: list[TypeMistake] = []
        self.known_local: Callable[[str], Any] | None = None
        """A local value as the validate walk has it (raising when it fails): one wholly known is
        stated by its value, as terraform states it (``local.l is tuple with 2 elements``)."""

    def mistakes(self, e: E.Expr) -> list[TypeMistake]:
        """Every type mistake in ``e``, as hcl reports them: each failed part's, the parts around it
        checked on (a tuple's other elements, an operator's other operand)."""
        return self.check(e)[1]

    def type_of(self, e: E.Expr) -> Any:
        """The type of ``e``'s value, its mistakes (reported as its own) aside."""
        return self.check(e)[0]

    def check(self, e: E.Expr) -> tuple[Any, list[TypeMistake]]:
        saved, self._found = self._found, []
        try:
            return self.of(e), self._found
        finally:
            self._found = saved

    def of(self, e: E.Expr, bound: dict[str, Any] | None = None, depth: int = 0) -> Any:
        """The type of ``e``'s value (``bound``: the types of names a ``for`` or a splat binds);
        its mistakes are recorded for :meth:`check`."""
        if depth > _MAX_DEPTH:
            return DYNAMIC
        env = bound or {}
        d = depth + 1
        t = type(e)
        if t is E.Literal:
            return DYNAMIC if e.value is None else value_type(e.value)  # type: ignore[attr-defined]
        if t is E.GetAttr or t is E.Index or t is E.Var or t is E.SplatItem:
            return self._traversal(e, env, d)
        if t is E.Template:
            for p in e.parts:  # type: ignore[attr-defined]
                if isinstance(p, E.Expr):
                    self.of(p, env, d)  # hcl leaves an unknown part unconverted: only its own mistakes
            return "string"
        if t is E.TemplateIf:
            assert isinstance(e, E.TemplateIf)
            for x in (e.cond, e.true, e.false):
                self.of(x, env, d)
            return "string"
        if t is E.TemplateFor:
            assert isinstance(e, E.TemplateFor)
            self._collection(e.collection, env, d)  # hcl makes the directive a for expression
            return "string"
        if t is E.TupleExpr:
            return ["tuple", [self.of(x, env, d) for x in e.items]]  # type: ignore[attr-defined]
        if t is E.ObjectExpr:
            return self._object(e, env, d)  # type: ignore[arg-type]
        if t is E.Binary:
            return self._binary(e, env, d)  # type: ignore[arg-type]
        if t is E.Unary:
            assert isinstance(e, E.Unary)
            want = "bool" if e.op == "!" else "number"
            self._operand(e.operand, want, "unary operand", env, d)
            return want
        if t is E.Conditional:
            return self._conditional(e, env, d)  # type: ignore[arg-type]
        if t is E.ForExpr:
            assert isinstance(e, E.ForExpr)
            self._collection(e.collection, env, d)
            return DYNAMIC  # over an unknown collection hcl neither checks the body nor types the result
        if t is E.Splat:
            return self._splat(e, env, d)  # type: ignore[arg-type]
        if t is E.Call:
            return self._call(e, env, d)  # type: ignore[arg-type]
        return DYNAMIC

    # -- names and traversals

    def _traversal(self, e: E.Expr, env: dict[str, Any], d: int) -> Any:
        if isinstance(e, E.Var):
            return env.get(e.name, DYNAMIC)
        if isinstance(e, E.SplatItem):
            return env.get("\0splat", DYNAMIC)
        if isinstance(e, E.GetAttr):
            root = self._root(e, env)
            if root is not None:
                return root
            base = self.of(e.obj, env, d)
            return self._get_attr(base, e, env)
        assert isinstance(e, E.Index)
        base = self.of(e.obj, env, d)
        key = self.of(e.key, env, d)
        return self._index(base, key, e, env)

    def _root(self, e: E.GetAttr, env: dict[str, Any]) -> Any:
        """The type of ``var.NAME``, ``local.NAME``, ``path.X``, ``terraform.X``; of any other
        name's attribute (a resource, ``each``, ``count``, ``module``), ``"dynamic"``; None for
        an attribute of something else."""
        obj = e.obj
        if not isinstance(obj, E.Var) or obj.name in env:
            return None
        ns = obj.name
        if ns == "var":
            ty = self._variable_type(e.name)
            return DYNAMIC if ty is None else concrete(ty)
        if ns == "local":
            return self._local(e.name)
        if ns in _FACTS:
            return _FACTS[ns].get(e.name, DYNAMIC)
        if ns == "count":
            return "number" if e.name == "index" else DYNAMIC
        return DYNAMIC

    def _local(self, name: str) -> Any:
        if name in self._locals:
            return self._locals[name]
        self._locals[name] = DYNAMIC  # a cycle, or a local that fails: its type says nothing
        expr = self._local_expr(name)
        if expr is None:
            return DYNAMIC
        ty, found = self.check(expr)
        self._locals[name] = DYNAMIC if found else ty  # reported where the local is declared
        return ty

    def _get_attr(self, base: Any, e: E.GetAttr, env: dict[str, Any]) -> Any:
        ty, detail = attribute(base, e.name)
        return ty if detail is None else self._fail("Unsupported attribute", detail, e.line, e.obj, env)

    def _index(self, base: Any, key: Any, e: E.Index, env: dict[str, Any]) -> Any:
        literal = e.key.value if isinstance(e.key, E.Literal) else None
        ty, detail = element(base, key, literal)
        return ty if detail is None else self._fail("Invalid index", detail, e.line, e, env)

    # -- constructions

    def _object(self, e: E.ObjectExpr, env: dict[str, Any], d: int) -> Any:
        attrs: dict[str, Any] = {}
        known = True
        for k, v in e.items:
            name = k.value if isinstance(k, E.Literal) else k.name if isinstance(k, E.Var) else None
            if not isinstance(name, str):
                self.of(k, env, d)
                known = False
            ty = self.of(v, env, d)
            if isinstance(name, str):
                attrs[name] = ty
        return ["object", attrs] if known else DYNAMIC

    def _collection(self, coll: E.Expr, env: dict[str, Any], d: int) -> None:
        """The collection of a ``for``: a primitive cannot be iterated."""
        ty = self.of(coll, env, d)
        if isinstance(ty, str) and ty in _PRIMITIVE:
            self._fail("Iteration over non-iterable value", f"A value of type {ty} cannot be used as the "
                              "collection in a 'for' expression.", coll.line, coll, env)

    def _splat(self, e: E.Splat, env: dict[str, Any], d: int) -> Any:
        source = self.of(e.obj, env, d)
        if type(source) is str and source in _PRIMITIVE:  # hcl makes the value a tuple of one (unless null): its item is the value
            self.of(e.each, {**env, "\0splat": source}, d)
            return DYNAMIC
        if _kind(source) not in ("list", "set"):
            return DYNAMIC  # a tuple's elements: not worked out here
        each = self.of(e.each, {**env, "\0splat": source[1]}, d)
        return DYNAMIC if each == DYNAMIC else ["list", each]

    # -- operators

    def _binary(self, e: E.Binary, env: dict[str, Any], d: int) -> Any:
        if e.op in ("==", "!="):
            self.of(e.left, env, d)
            self.of(e.right, env, d)
            return "bool"
        want = "bool" if e.op in ("&&", "||") else "number"
        self._operand(e.left, want, "left operand", env, d)
        self._operand(e.right, want, "right operand", env, d)
        return "number" if e.op in ("+", "-", "*", "/", "%") else "bool"

    def _operand(self, x: E.Expr, want: str, what: str, env: dict[str, Any], d: int) -> None:
        ty = self.of(x, env, d)
        if not convertible(ty, want):
            self._fail("Invalid operand", f"Unsuitable value for {what}: {want} required.", x.line, x, env)

    def _conditional(self, e: E.Conditional, env: dict[str, Any], d: int) -> Any:
        """hcl's: the results unify to one type whatever the condition (not checked while unknown)."""
        self.of(e.cond, env, d)
        sides = []
        for x in (e.true, e.false):
            ty = self.of(x, env, d)
            if not (isinstance(x, E.Literal) and x.value is None):
                sides.append(ty)
        if len(sides) < 2:
            return sides[0] if sides else DYNAMIC
        if has_dynamic(sides[0]) or has_dynamic(sides[1]):
            return DYNAMIC
        ty = unify_unsafe(sides)
        if ty is None:
            return self._fail("Inconsistent conditional result types", "The true and false result expressions must "
                              f"have consistent types. {mismatch(sides[0], sides[1])}.", e.true.line, e, env)
        return ty

    # -- calls

    def _call(self, e: E.Call, env: dict[str, Any], d: int) -> Any:
        name = e.function
        if name in ("try", "can"):  # their arguments' mistakes are what they catch
            return DYNAMIC if name == "try" else "bool"
        before = len(self._found)
        args = [self.of(a, env, d) for a in e.args]
        spec = TERRAFORM_FUNCTIONS.get(name)
        if spec is None or len(self._found) > before:  # hcl calls no function whose arguments failed
            return DYNAMIC  # (or a provider's function, or an unknown one: reported elsewhere)
        params, variadic, result = spec
        if not e.expand_final:
            for i, ty in enumerate(args):
                param = params[i] if i < len(params) else variadic
                if param is None or self._refused(e, i, name, param[0], param[1], ty, env):
                    break  # cty reports the first argument it refuses
        return DYNAMIC if has_dynamic(result) else result

    def _refused(self, e: E.Call, i: int, name: str, pname: str, want: Any, ty: Any, env: dict[str, Any]) -> bool:
        """Whether an argument of type ``ty`` for the parameter ``pname`` of type ``want`` is one
        cty cannot convert, or one the function refuses by its kind (``length(1)``): then recorded
        in terraform's words."""
        kind = _kind(ty)
        if kind == DYNAMIC:
            return False
        calling = (f"while calling {_signature(name)}",)
        special = _KIND_CHECKS.get(name)
        if special is not None:
            summary, detail, first_only, kinds = special
            if kind in kinds and (i == 0 or not first_only):
                detail = detail.format(pname=pname, ty=friendly_name(ty))
                self._fail(summary, detail, e.line, e if summary == "Error in function call" else e.args[i], env, calling)
                return True
        if want == DYNAMIC or convertible(ty, want):
            return False
        if kind in _PRIMITIVE or _kind(want) in _PRIMITIVE:  # cty's MismatchMessage: what was required
            self._fail("Invalid function argument", f'Invalid value for "{pname}" parameter: '
                       f"{constraint_name(want)} required.", e.line, e.args[i], env, calling)
            return True
        return False

    # -- diagnostics

    def _fail(self, summary: str, detail: str, line: int, blamed: E.Expr, env: dict[str, Any],
              calling: tuple[str, ...] = ()) -> Any:
        """Record a mistake (``blamed``: the expression whose references the statements describe);
        what failed has no type known, so nothing that uses it fails again."""
        if self._stating:  # a prefix tried for a statement: only whether it fails matters
            raise TypeMistake(summary, detail, line, calling, ())
        self._stating = True
        try:
            said = self.statements(blamed, env)
        finally:
            self._stating = False
        self._found.append(TypeMistake(summary, detail, line, calling, said))
        return DYNAMIC

    def statements(self, e: E.Expr, env: dict[str, Any]) -> tuple[tuple[str, str], ...]:
        """terraform's statements under a failed expression's source line about the unknowns in it:
        ``var.s is a string`` (the longest typed prefix of each reference; none of a sensitive one)."""
        seen: dict[str, str] = {}
        for node in traversals(e, frozenset(env)):
            while not isinstance(node, E.Var):
                root, names = path_of(node)
                if self._hidden(root, names):
                    break
                if self.known_local is not None and root == "local" and len(names) == 1 and "local" not in env \
                        and isinstance(node, E.GetAttr):
                    said = self._known_local(node.name)
                    if said is not None:
                        seen.setdefault(traversal_text(node), said)
                        break
                try:
                    ty = self.of(node, env)
                except TypeMistake:
                    node = node.obj  # type: ignore[attr-defined]
                    continue
                if ty != DYNAMIC:
                    seen.setdefault(traversal_text(node), f"is a {friendly_name(ty)}")
                break
        return tuple(sorted(seen.items()))


    def _known_local(self, name: str) -> str | None:
        assert self.known_local is not None
        try:
            v = self.known_local(name)
        except Exception:  # noqa: BLE001 - a local that fails is stated by its type
            return None
        return "is " + compact_value(v) if is_wholly_known(v) else None


def attribute(base: Any, name: str) -> tuple[Any, str | None]:
    """hcl's ``GetAttr`` of an unknown of type ``base``: (the attribute's type, None), or
    (``"dynamic"``, the detail of its "Unsupported attribute")."""
    kind = _kind(base)
    if kind == "object":
        if name not in base[1]:
            return DYNAMIC, f'This object does not have an attribute named "{name}".'
        return base[1][name], None
    if kind == "map":
        return base[1], None
    if kind == DYNAMIC:
        return DYNAMIC, None
    if kind == "list" and _kind(base[1]) == "object":
        return DYNAMIC, (f'Can\'t access attributes on a list of objects. Did you mean to access attribute "{name}" '
                         "for a specific element of the list, or across all elements of the list?")
    if kind == "set" and _kind(base[1]) == "object":
        return DYNAMIC, ("Can't access attributes on a set of objects. Did you mean to access an attribute across all "
                         "elements of the set?")
    if kind in _PRIMITIVE:
        return DYNAMIC, f"Can't access attributes on a primitive-typed value ({kind})."
    return DYNAMIC, "This value does not have any attributes."


def element(base: Any, key: Any, literal: Any = None) -> tuple[Any, str | None]:
    """hcl's ``Index`` of an unknown of type ``base`` by a key of type ``key`` (``literal``: the
    key's value when it is written as one, converted as a value is): (the element's type, None),
    or (``"dynamic"``, the detail of its "Invalid index")."""
    kind = _kind(base)
    if kind == DYNAMIC or key == DYNAMIC:
        return DYNAMIC, None
    if kind in ("list", "tuple", "map"):
        want = "string" if kind == "map" else "number"
        if literal is not None:
            try:
                literal = convert(literal, want)
            except ConversionError as exc:
                return DYNAMIC, f"The given key does not identify an element in this collection value: {exc.cty_text}"
        elif not convertible(key, want):
            return DYNAMIC, ("The given key does not identify an element in this collection value: "
                             f"{constraint_name(want)} required.")
        if kind != "tuple":
            return base[1], None
        if type(literal) is int:
            if 0 <= literal < len(base[1]):
                return base[1][literal], None
            if literal >= len(base[1]):
                return DYNAMIC, "The given key does not identify an element in this collection value."
        return DYNAMIC, None
    if kind == "object":
        return DYNAMIC, None  # an unknown object's attribute by a key: hcl does not look
    if kind == "set":
        return DYNAMIC, ("Elements of a set are identified only by their value and don't have any separate index or "
                         "key to select with, so it's only possible to perform operations across all elements of the "
                         "set.")
    return DYNAMIC, "This value does not have any indices."


def traversal_mistake(ty: Any, steps: tuple[Any, ...]) -> tuple[str, str] | None:
    """The first mistake (summary, detail) of the static ``steps`` (attribute names, and index
    expressions of which literal keys count) taken into an unknown of type ``ty``, as terraform
    checks a reference into a resource's attribute against its schema; None when there is none."""
    for step in steps:
        if isinstance(step, str):
            ty, detail = attribute(ty, step)
            if detail is not None:
                return "Unsupported attribute", detail
        elif isinstance(step, E.Literal) and step.value is not None:
            ty, detail = element(ty, value_type(step.value), step.value)
            if detail is not None:
                return "Invalid index", detail
        else:
            return None
        if ty == DYNAMIC:
            return None
    return None


def _signature(name: str) -> str:
    from engine.lang.functions.registry import signature

    return signature(name)


_STRUCTURAL = frozenset({"tuple", "object"})
_ARGUMENT = "Invalid function argument"
_CALL = "Error in function call"
_KIND_CHECKS: dict[str, tuple[str, str, bool, frozenset[str]]] = {
    "length": (_CALL, 'Call to function "length" failed: argument must be a string, a collection type, or a '
               "structural type.", True, frozenset({"number", "bool"})),
    "values": (_CALL, 'Call to function "values" failed: values() requires a map as the first argument.', True,
               _PRIMITIVE),
    "lookup": (_ARGUMENT, 'Invalid value for "{pname}" parameter: lookup() requires a map as the first argument.',
               True, _PRIMITIVE),
    "keys": (_ARGUMENT, 'Invalid value for "{pname}" parameter: must have map or object type.', True, _PRIMITIVE),
    "tolist": (_ARGUMENT, 'Invalid value for "{pname}" parameter: cannot convert {ty} to list of any single type.',
               True, _PRIMITIVE),
    "toset": (_ARGUMENT, 'Invalid value for "{pname}" parameter: cannot convert {ty} to set of any single type.',
              True, _PRIMITIVE),
    "tomap": (_ARGUMENT, 'Invalid value for "{pname}" parameter: cannot convert {ty} to map of any single type.',
              True, _PRIMITIVE),
    "tostring": (_ARGUMENT, 'Invalid value for "{pname}" parameter: cannot convert {ty} to string.', True, _STRUCTURAL),
    "tonumber": (_ARGUMENT, 'Invalid value for "{pname}" parameter: cannot convert {ty} to number.', True, _STRUCTURAL),
    "tobool": (_ARGUMENT, 'Invalid value for "{pname}" parameter: cannot convert {ty} to bool.', True, _STRUCTURAL),
    "concat": (_ARGUMENT, 'Invalid value for "{pname}" parameter: all arguments must be lists or tuples; got {ty}.',
               False, _PRIMITIVE),
    "merge": (_CALL, 'Call to function "merge" failed: arguments must be maps or objects, got "{ty}".', False,
              _PRIMITIVE),
    "element": (_CALL, 'Call to function "element" failed: cannot read elements from {ty}.', True, _PRIMITIVE),
    "one": (_ARGUMENT, 'Invalid value for "{pname}" parameter: must be a list, set, or tuple value with either zero '
            "or one elements.", True, _PRIMITIVE),
    "reverse": (_ARGUMENT, 'Invalid value for "{pname}" parameter: can only reverse list or tuple values, not {ty}.',
                True, _PRIMITIVE),
}
"""What a function whose parameter takes any type says of an argument of a kind it refuses (``length``
takes a string): (summary, detail, only the first argument, the kinds refused)."""
