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
* a resource's attribute when the schema says so, when the state recorded it
  sensitive, or when the configuration sets it from an expression that uses
  anything sensitive; a whole resource (``terraform_data.a``) when any of its
  attributes is;
* an expression uses something sensitive when any reference in it (outside a
  ``nonsensitive(...)``) is sensitive, or it calls ``sensitive(...)``.

The unit is a resource's top-level attribute: ``input = { a = var.s, b = 1 }``
hides all of ``input``, where terraform hides only ``input.a``. That errs on
the side of showing less, never more.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import expr as E
from .addrs import resource_addr
from .exprvalues import children, path_of, traversals

Attributes = Callable[[str, str, str], frozenset[str]]
"""(mode, type, name) -> attribute names: a resource's sensitive attributes by some source."""

_NONE: frozenset[str] = frozenset()
_NEVER = frozenset({"count", "each", "path", "terraform", "self", "module"})


class Sensitivity:
    """Answers for one module; ``schema`` gives what the provider schemas declare sensitive and
    ``recorded`` what the state recorded sensitive (any instance).

    Locals and resources refer to each other in chains as long as the configuration's dependency
    graph is deep: each answer is worked out after those it depends on, with an explicit stack (no
    recursion), and kept."""

    def __init__(self, module: Any, schema: Attributes, recorded: Attributes = lambda m, t, n: _NONE) -> None:
        self.module = module
        self._schema = schema
        self._recorded = recorded
        # ("local", name) -> bool; ("managed" | "data", type, name) -> frozenset of attribute names
        self._known: dict[tuple[str, ...], Any] = {}
        self._busy: set[tuple[str, ...]] = set()

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
        out = set(self._schema(mode, type_, name)) | self._recorded(mode, type_, name)
        out.update(n for n, e in self._exprs(node) if n not in out and self.uses(e))
        return frozenset(out)

    # ------------------------------------------------------------------ questions

    def reference(self, root: str, names: tuple[str, ...], whole: bool = True) -> bool:
        """Is ``root.names...`` sensitive? With ``whole`` false, a resource as a whole is not (a
        diagnostic states only its shape, as terraform's marks are on the attributes inside)."""
        if root == "var":
            return bool(names) and self.variable(names[0])
        if root == "local":
            return bool(names) and self.local(names[0])
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

    def hidden(self, root: str, names: tuple[str, ...]) -> bool:
        """For a diagnostic's statements about values (:func:`engine.exprvalues.statements`)."""
        return self.reference(root, names, whole=False)

    def uses(self, e: E.Expr, bound: frozenset[str] = frozenset()) -> bool:
        """Does ``e`` use anything sensitive (is its value marked, in terraform's terms)?"""
        return any(True for _ in self.sources(e, bound))

    def sources(self, e: E.Expr, bound: frozenset[str] = frozenset()) -> Any:
        """The sensitive references in ``e`` (a ``sensitive(...)`` call counts as one)."""
        if isinstance(e, E.Call):
            if e.name == "nonsensitive":
                return
            if e.name == "sensitive":
                yield e
                return
        if isinstance(e, (E.GetAttr, E.Index, E.Var)):
            node: E.Expr = e
            while isinstance(node, E.GetAttr) or (isinstance(node, E.Index) and isinstance(node.key, E.Literal)):
                node = node.obj
            if isinstance(node, E.Var):
                if node.name not in bound and self.reference(*path_of(e)):
                    yield e
                return
            if isinstance(node, (E.GetAttr, E.Index)):
                yield from self.sources(node.obj, bound)
                if isinstance(node, E.Index):
                    yield from self.sources(node.key, bound)
            else:
                yield from self.sources(node, bound)
            return
        for child, inner in children(e, bound):
            yield from self.sources(child, inner)


def of_module(module: Any, providers: Any, state: Any = None) -> Sensitivity:
    """:class:`Sensitivity` for ``module``: its providers' schemas, and what ``state`` recorded."""
    def schema(mode: str, type_: str, name: str) -> frozenset[str]:
        rc = module.resources.get(resource_addr(type_, name, mode))
        try:
            s = providers.schema(rc.provider_key, type_, mode) if rc is not None else None
        except Exception:  # noqa: BLE001 - an unknown provider is reported elsewhere
            return _NONE
        return frozenset(s.sensitive_paths()) if s is not None else _NONE

    def recorded(mode: str, type_: str, name: str) -> frozenset[str]:
        if state is None:
            return _NONE
        out: set[str] = set()
        rs = state.resources.get(resource_addr(type_, name, mode))
        objects = [] if rs is None else [o for i in rs.instances.values()
                                         for o in (i.current, *i.deposed.values()) if o is not None]
        for obj in objects:
            for path in obj.sensitive_attributes:
                if isinstance(path, (list, tuple)) and path and isinstance(path[0], dict) \
                        and path[0].get("type") == "get_attr":
                    out.add(str(path[0].get("value")))
        return frozenset(out)

    return Sensitivity(module, schema, recorded)


__all__ = ["Attributes", "Sensitivity", "of_module"]
