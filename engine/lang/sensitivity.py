"""Which values are sensitive: terraform's sensitive marks, followed through the configuration.

terraform marks the value of a variable declared ``sensitive = true``, an
attribute its provider's schema declares sensitive, and what ``sensitive()``
returns, and carries the mark through every expression that uses a marked
value (``nonsensitive()`` removes it). A marked value is never printed: a plan
shows ``(sensitive value)``, the state records the attribute in
``sensitive_attributes``, a root output must be declared sensitive to export
one, and ``for_each`` refuses one (it would become an instance key).

strata's values carry no marks; the same answers come from the references:

* ``var.X`` is sensitive when X is declared so;
* ``local.Y`` when its expression uses anything sensitive;
* a resource's attribute when the schema says so, or when the configuration
  sets it from an expression that uses anything sensitive; a whole resource
  (``terraform_data.a``) when any of its attributes is;
* an expression uses something sensitive when any reference in it (outside a
  ``nonsensitive(...)``) is sensitive, or it calls ``sensitive(...)``.

What the state recorded sensitive (``sensitive_attributes``) is hidden when an
object's old values are shown (:func:`recorded_names`), but it is not carried
forward: an attribute no longer set from a sensitive value stops being one
after the next apply, as in terraform.

The unit is a resource's top-level attribute: ``input = { a = var.s, b = 1 }``
hides all of ``input``, where terraform hides only ``input.a``. That errs on
the side of showing less, never more.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.addrs import ProviderConfigAddr, resource_addr
from engine.lang import expr as E
from engine.lang.diagnostic_values import children, path_of, traversals

Attributes = Callable[[str, str, str], frozenset[str]]
"""(mode, type, name) -> attribute names: a resource's sensitive attributes by some source."""

_NONE: frozenset[str] = frozenset()
# functions that handle marked values themselves: marks on elements stay on the elements (the
# others, as cty's, take the marks off their arguments, all of them, and put them on the result)
_KEEPS_ELEMENT_MARKS = frozenset({"tomap", "tolist", "merge", "concat", "zipmap", "flatten", "coalesce",
                                  "lookup", "element", "values", "one"})
_NEVER = frozenset({"count", "path", "terraform", "self", "module"})


class Sensitivity:
    """Answers for one module; ``schema`` gives what the provider schemas declare sensitive.

    Locals and resources refer to each other in chains as long as the configuration's dependency
    graph is deep: each answer is worked out after those it depends on, with an explicit stack (no
    recursion), and kept."""

    def __init__(self, module: Any, schema: Attributes) -> None:
        self.module = module
        self._schema = schema
        # ("local", name) -> bool; ("managed" | "data", type, name) -> frozenset of attribute names
        self._known: dict[tuple[str, ...], Any] = {}
        self._busy: set[tuple[str, ...]] = set()
        self._each: list[bool] = []  # while working out a resource: is its each.value sensitive?
        self._any_each: bool | None = None

    def variable(self, name: str) -> bool:
        v = self.module.variables.get(name)
        return bool(v is not None and v.sensitive)

    def local(self, name: str) -> bool:
        return bool(self._answer(("local", name)))

    def attributes(self, mode: str, type_: str, name: str) -> frozenset[str]:
        """The top-level attributes of a resource that hold sensitive values."""
        got: frozenset[str] = self._answer((mode, type_, name))
        return got

    # ------------------------------------------------------------------ working out, in order

    def _answer(self, node: tuple[str, ...]) -> Any:
        got = self._known.get(node)
        if got is not None:
            return got
        if node in self._busy:  # a cycle (reported elsewhere): it adds nothing
            return False if node[0] == "local" else _NONE
        stack: list[tuple[tuple[str, ...], bool]] = [(node, False)]
        while stack:
            n, ready = stack.pop()
            if n in self._known:
                continue
            if ready:
                self._known[n] = self._work_out(n)
                self._busy.discard(n)
                continue
            if n in self._busy:
                continue
            self._busy.add(n)
            stack.append((n, True))
            stack.extend((d, False) for d in self._depends_on(n) if d not in self._known and d not in self._busy)
        return self._known[node]

    def _exprs(self, node: tuple[str, ...]) -> list[tuple[str, E.Expr]]:
        """(attribute or block name, expression) for a resource; ("", expression) for a local."""
        if node[0] == "local":
            lc = self.module.locals.get(node[1])
            return [("", lc.expr)] if lc is not None else []
        rc = self.module.resources.get(resource_addr(node[1], node[2], node[0]))
        if rc is None:
            return []
        out = [(n, a.expr) for n, a in rc.attributes.items()]
        stack = [(b.type, b) for b in rc.blocks]
        while stack:
            top, b = stack.pop()
            out.extend((top, a.expr) for a in b.attributes.values())
            stack.extend((top, x) for x in b.blocks)
        return out

    def _depends_on(self, node: tuple[str, ...]) -> list[tuple[str, ...]]:
        out: list[tuple[str, ...]] = []
        for _, e in self._exprs(node):
            for t in traversals(e, frozenset()):
                root, names = path_of(t)
                if root == "local" and names:
                    out.append(("local", names[0]))
                elif root == "data" and len(names) > 1:
                    out.append(("data", names[0], names[1]))
                elif root not in _NEVER and root != "var" and names:
                    out.append(("managed", root, names[0]))
        return out

    def _work_out(self, node: tuple[str, ...]) -> Any:
        if node[0] == "local":
            return any(self.uses(e) for _, e in self._exprs(node))
        mode, type_, name = node
        out = set(self._schema(mode, type_, name))
        rc = self.module.resources.get(resource_addr(type_, name, mode))
        self._each.append(rc is not None and rc.for_each is not None and self.uses(rc.for_each.expr))
        try:
            out.update(n for n, e in self._exprs(node) if n not in out and self.uses(e))
        finally:
            self._each.pop()
        return frozenset(out)

    def _each_value(self) -> bool:
        """Is ``each.value`` sensitive here: the resource being worked out's, or (outside any) any
        resource's?"""
        if self._each:
            return self._each[-1]
        if self._any_each is None:
            self._any_each = any(rc.for_each is not None and self.uses(rc.for_each.expr)
                                 for rc in self.module.resources.values())
        return self._any_each

    # ------------------------------------------------------------------ questions

    def reference(self, root: str, names: tuple[str, ...], whole: bool = True) -> bool:
        """Is ``root.names...`` sensitive? With ``whole`` false, a resource as a whole is not (a
        diagnostic states only its shape, as terraform's marks are on the attributes inside)."""
        if root == "var":
            return bool(names) and self.variable(names[0])
        if root == "local":
            if len(names) > 1:  # an attribute of an object written in place: that attribute's expression
                lc = self.module.locals.get(names[0])
                part = _member(lc.expr, names[1]) if lc is not None else None
                if part is not None:
                    return self.uses(part)
            return bool(names) and self.local(names[0])
        if root == "each":
            return bool(names) and names[0] == "value" and self._each_value()
        if root == "module":
            return bool(names) and self._module_output(names[0], names[1] if len(names) > 1 else None, whole)
        if root in _NEVER or not names:
            return False
        mode, type_ = ("data", names[0]) if root == "data" else ("managed", root)
        rest = names[1:] if root == "data" else names
        if not rest:
            return False
        attrs = self.attributes(mode, type_, rest[0])
        if len(rest) > 1:
            return rest[1] in attrs
        return whole and bool(attrs)

    child_of: Any = None
    """``child_of(module)``: the :class:`Sensitivity` of a module this one calls (None: no module
    output is sensitive)."""

    def _module_output(self, call: str, output: str | None, whole: bool) -> bool:
        """Is ``module.CALL.OUTPUT`` sensitive: made of what is (``module.CALL``
        whole: any of its outputs, when ``whole``)?"""
        calls = getattr(self.module, "calls", None)
        c = calls.get(call) if calls else None
        if c is None or self.child_of is None:
            return False
        key = ("module", call, output or "")
        got = self._known.get(key)
        if got is not None:
            return bool(got)
        self._known[key] = False  # a cycle through modules (reported elsewhere) adds nothing
        child = self.child_of(c.module)
        names = [output] if output is not None else (list(c.module.outputs) if whole else [])
        found = False
        for name in names:
            oc = c.module.outputs.get(name)
            if oc is not None and child.uses(oc.expr):  # terraform: "sensitive = true" marks nothing here
                found = True
                break
        self._known[key] = found
        return found

    def hidden(self, root: str, names: tuple[str, ...]) -> bool:
        """For a diagnostic's statements about values (:func:`engine.exprvalues.statements`)."""
        return self.reference(root, names, whole=False)

    def uses(self, e: E.Expr, bound: frozenset[str] = frozenset()) -> bool:
        """Does ``e`` use anything sensitive (is its value marked anywhere inside, in terraform's
        terms)?"""
        return any(True for _ in self.sources(e, bound))

    def sources(self, e: E.Expr, bound: frozenset[str] = frozenset(),
                aliases: dict[str, tuple[str, tuple[str, ...]]] | None = None) -> Any:
        """The sensitive references in ``e`` (a ``sensitive(...)`` call counts as one). ``aliases``:
        names a ``for`` binds to the elements of a reference, as that reference (``r.id`` in
        ``[for r in terraform_data.c : r.id]`` is ``terraform_data.c.id``)."""
        aliases = aliases or {}
        if isinstance(e, E.Call):
            name = e.name.removeprefix("core::")
            if name in ("nonsensitive", "can", "issensitive"):  # a bool from can or issensitive carries no mark
                return
            if name == "sensitive":
                yield e
                return
        if isinstance(e, (E.GetAttr, E.Index, E.Var)):
            node: E.Expr = e
            keys: list[E.Expr] = []  # computed index keys: an instance key (p[count.index].name) or an element's
            while isinstance(node, (E.GetAttr, E.Index)):
                if isinstance(node, E.Index) and not isinstance(node.key, E.Literal):
                    keys.append(node.key)
                node = node.obj
            for key in keys:  # a sensitive key marks what it selects
                yield from self.sources(key, bound, aliases)
            if not isinstance(node, E.Var):  # a traversal of a computed value: (expr)[k].name
                yield from self.sources(node, bound, aliases)
                return
            root, names = path_of(e)  # the attribute names past the keys, as with literal ones
            if root in aliases:
                root, names = aliases[root][0], aliases[root][1] + names
            elif root in bound:
                return
            if self.reference(root, names):
                yield e
            return
        if isinstance(e, E.Splat):
            target = self._static(e.obj, bound, aliases)
            attrs = _attribute_names(e.each)
            if target is not None and attrs is not None:  # a[*].id: the elements' attribute, as a.id
                if self.reference(target[0], target[1] + attrs[:1]):
                    yield e
                return
        if isinstance(e, E.ForExpr):
            target = self._static(e.collection, bound, aliases)
            if target is not None and self.reference(target[0], target[1], whole=False):
                yield e.collection  # a sensitive collection: whatever is made from it, keys included
                return
            if target is not None:  # its value name stands for the collection's elements
                inner = dict(aliases)
                inner[e.value_var] = target
                inner_bound = bound | ({e.key_var} if e.key_var else set())
                for x in (e.key, e.value, e.cond):
                    if x is not None:
                        yield from self.sources(x, inner_bound, inner)
                return
        for child, inner_bound in children(e, bound):
            yield from self.sources(child, inner_bound, aliases)

    def _static(self, e: E.Expr, bound: frozenset[str],
                aliases: dict[str, tuple[str, tuple[str, ...]]]) -> tuple[str, tuple[str, ...]] | None:
        """``e`` as (root, attribute names) when it is a plain reference; None otherwise."""
        node = e
        while isinstance(node, E.GetAttr) or (isinstance(node, E.Index) and isinstance(node.key, E.Literal)):
            node = node.obj
        if not isinstance(node, E.Var) or (node.name in bound and node.name not in aliases):
            return None
        root, names = path_of(e)
        if root in aliases:
            return aliases[root][0], aliases[root][1] + names
        return root, names

    def marked(self, e: E.Expr) -> bool:
        """Is the value of ``e`` itself marked sensitive (not only something inside it)? What
        ``for_each`` refuses: ``toset([var.secret])`` is, ``{ k = var.secret }`` is not (the mark is on
        the element)."""
        if isinstance(e, (E.Literal, E.TupleExpr, E.ObjectExpr)):
            return False
        if isinstance(e, E.ForExpr):
            return self.marked(e.collection)
        if isinstance(e, E.Conditional):
            return self.marked(e.cond) or self.marked(e.true) or self.marked(e.false)
        if isinstance(e, E.Call):
            if e.name in _KEEPS_ELEMENT_MARKS:  # a mark on an element stays on that element
                return any(self.marked(a) for a in e.args)
            return self.uses(e)
        if isinstance(e, (E.GetAttr, E.Index, E.Var)):
            target = self._static(e, frozenset(), {})
            if target is None:
                return self.uses(e)
            root, names = target
            if root == "local" and names:
                lc = self.module.locals.get(names[0])
                if lc is None:
                    return False
                part = _member(lc.expr, names[1]) if len(names) > 1 else lc.expr
                return self.marked(part) if part is not None else self.local(names[0])
            return self.reference(root, names, whole=False)
        return self.uses(e)


class WithSelf:
    """A :class:`Sensitivity` for a resource's postcondition, where ``self`` is that resource's object."""

    def __init__(self, base: Sensitivity, root: str, names: tuple[str, ...]) -> None:
        self.base = base
        self.target = (root, names)

    def hidden(self, root: str, names: tuple[str, ...]) -> bool:
        if root == "self":
            return self.base.reference(self.target[0], self.target[1] + names, whole=False)
        return self.base.hidden(root, names)

    def uses(self, e: E.Expr, bound: frozenset[str] = frozenset()) -> bool:
        return any(True for _ in self.base.sources(e, bound, {"self": self.target}))


def with_self(base: Sensitivity, mode: str, type_: str, name: str) -> WithSelf:
    """``base`` with ``self`` standing for the resource ``mode.type.name``."""
    return WithSelf(base, "data", (type_, name)) if mode == "data" else WithSelf(base, type_, (name,))


def _member(e: E.Expr, name: str) -> E.Expr | None:
    """The expression of attribute ``name`` in an object written in place (``{ a = ..., b = ... }``)."""
    if isinstance(e, E.ObjectExpr):
        for k, v in e.items:
            if isinstance(k, E.Literal) and k.value == name or isinstance(k, E.Var) and k.name == name:
                return v
    return None


def _attribute_names(e: E.Expr) -> tuple[str, ...] | None:
    """A splat's per-element expression as attribute names (``.id`` of ``a[*].id``); None otherwise."""
    names: list[str] = []
    while isinstance(e, E.GetAttr):
        names.append(e.name)
        e = e.obj
    if not isinstance(e, E.SplatItem):
        return None
    return tuple(reversed(names))


def of_module(module: Any, providers: Any, provider_key: Any = None) -> Sensitivity:
    """:class:`Sensitivity` for ``module``, with its providers' schemas (``provider_key``: the
    configuration that serves one of the module's provider keys, for a called module)."""
    def schema(mode: str, type_: str, name: str) -> frozenset[str]:
        rc = module.resources.get(resource_addr(type_, name, mode))
        if rc is None:
            return _NONE
        key = rc.provider_key if provider_key is None else provider_key(rc.provider_key)
        return schema_names(providers, key, type_, mode)

    got = Sensitivity(module, schema)
    got.child_of = lambda m: of_module(m, providers, m.root_provider_key)
    return got


def schema_names(providers: Any, provider_key: str, type_: str, mode: str = "managed") -> frozenset[str]:
    """The attributes a resource type's schema declares sensitive (none when it cannot be had)."""
    try:
        s = providers.schema(provider_key, type_, mode)
    except Exception:  # noqa: BLE001 - an unknown provider or type is reported elsewhere
        return _NONE
    return frozenset(s.sensitive_paths()) if s is not None else _NONE


def recorded_names(obj: Any) -> frozenset[str]:
    """The top-level attributes a state object records sensitive (``[{"type": "get_attr", ...}]``)."""
    if obj is None or not obj.sensitive_attributes:
        return _NONE
    out: set[str] = set()
    for path in obj.sensitive_attributes:
        if isinstance(path, (list, tuple)) and path and isinstance(path[0], dict) \
                and path[0].get("type") == "get_attr":
            out.add(str(path[0].get("value")))
    return frozenset(out)


def in_state(obj: Any, addr: Any, prov: ProviderConfigAddr, providers: Any) -> frozenset[str]:
    """What of an object in the state must not be shown: what it records sensitive, and what its
    type's schema declares so (an imported object, or one written before marks were recorded)."""
    r = addr.resource
    return recorded_names(obj) | schema_names(providers, providers.key_for(prov) if providers is not None else prov.local_key,
                                                r.type, r.mode)


def state_marks(value: dict[str, Any] | None, names: frozenset[str]) -> tuple[Any, ...]:
    """State v4 ``sensitive_attributes``: a path per sensitive attribute that has a value."""
    if not names or not value:
        return ()
    return tuple([{"type": "get_attr", "value": n}] for n in sorted(names) if value.get(n) is not None)


__all__ = ["Attributes", "Sensitivity", "WithSelf", "in_state", "of_module", "with_self", "recorded_names", "schema_names", "state_marks"]
