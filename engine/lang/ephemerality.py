"""Which expressions are ephemeral: terraform's ephemeral marks, found from the references.

terraform 1.10+ marks ``terraform.applying`` ephemeral (true only while apply
evaluates, so a value derived from it must never be persisted) and carries the
mark through every expression that uses it, and through the locals that do;
``ephemeralasnull(...)`` removes it. An ephemeral value is allowed where nothing
is persisted: locals, provider configuration, conditions, the console (which
prints ``(ephemeral value)``). It is refused in a resource's arguments, its
``count`` and ``for_each``, and a root output.

As :mod:`engine.lang.sensitivity`, strata's values carry no marks: the answer
comes from the references. Locals are worked out with an explicit stack and kept
(their chains may be as deep as the configuration's graph).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from engine.diagnostics import Diagnostic, SourceRange, error
from engine.lang import expr as E
from engine.lang.diagnostic_values import children, path_of, traversal_text

_UNMARK = frozenset({"ephemeralasnull", "core::ephemeralasnull", "issensitive", "core::issensitive"})


def references(e: E.Expr) -> Iterator[E.Expr]:
    """The static traversals in ``e`` outside any ``ephemeralasnull(...)``, not rooted in a name a
    ``for`` binds (a loop, not recursion: nesting may be deep)."""
    stack: list[tuple[Any, frozenset[str]]] = [(e, frozenset())]
    while stack:
        x, bound = stack.pop()
        if isinstance(x, E.Call) and x.name in _UNMARK:
            continue
        if isinstance(x, (E.GetAttr, E.Index, E.Var)):
            node: E.Expr = x
            while isinstance(node, E.GetAttr) or (isinstance(node, E.Index) and isinstance(node.key, E.Literal)):
                node = node.obj
            if isinstance(node, E.Var):
                if node.name not in bound:
                    yield x
                continue
            if isinstance(node, (E.GetAttr, E.Index)):  # under a dynamic index: either side of it
                stack.append((node.obj, bound))
                if isinstance(node, E.Index):
                    stack.append((node.key, bound))
            else:
                stack.append((node, bound))
            continue
        stack.extend(children(x, bound))


class Ephemerality:
    """Answers for one module: which locals and expressions are derived from an ephemeral value."""

    def __init__(self, module: Any) -> None:
        self.module = module
        self._locals: dict[str, bool] = {}

    def sources(self, e: E.Expr) -> list[E.Expr]:
        """The references in ``e`` that hold an ephemeral value, in source order."""
        return [t for t in references(e) if self._reference(t)]

    def uses(self, e: E.Expr) -> bool:
        return any(self._reference(t) for t in references(e))

    def _reference(self, t: E.Expr) -> bool:
        root, names = path_of(t)
        if root == "terraform":
            return names[:1] == ("applying",)
        if root == "local" and names:
            return self.local(names[0])
        return False

    def local(self, name: str) -> bool:
        """Is ``local.NAME`` derived from an ephemeral value? (A cycle, reported elsewhere, adds
        nothing.)"""
        got = self._locals.get(name)
        if got is not None:
            return got
        busy: set[str] = set()
        stack: list[tuple[str, bool]] = [(name, False)]
        while stack:
            n, ready = stack.pop()
            if n in self._locals:
                continue
            lc = self.module.locals.get(n)
            refs = list(references(lc.expr)) if lc is not None else []
            if ready:
                self._locals[n] = any(self._direct(t) or self._locals.get(_local_name(t) or "", False)
                                      for t in refs)
                continue
            if n in busy:
                continue
            busy.add(n)
            stack.append((n, True))
            stack.extend((d, False) for t in refs if (d := _local_name(t)) is not None
                         and d not in self._locals and d not in busy)
        return self._locals[name]

    def _direct(self, t: E.Expr) -> bool:
        root, names = path_of(t)
        return root != "local" and self._reference(t)


def _local_name(t: E.Expr) -> str | None:
    root, names = path_of(t)
    return names[0] if root == "local" and names else None


_COUNT = ('The given "count" is derived from an ephemeral value, which means that Terraform cannot persist it '
          "between plan/apply rounds. Use only non-ephemeral values to specify the number of resource instances.")
_FOR_EACH = ('The given "for_each" value is derived from an ephemeral value, which means that Terraform cannot '
             "persist it between plan/apply rounds. Use only non-ephemeral values to specify a resource's "
             "instance keys.")
_ARGUMENT = ('Ephemeral values are not valid for "{name}", because it is not a write-only attribute and must be '
             "persisted to state.")
_OUTPUT = ("This output value is not declared as returning an ephemeral value, so it cannot be set to a result "
           "derived from an ephemeral value.")


def refusals(module: Any) -> list[Diagnostic]:
    """terraform's refusals of ephemeral values where they would be persisted: a resource's
    ``count``, ``for_each`` and arguments (nested blocks' too), and a root output. (A module
    whose files never say ``applying`` is not walked: the walk costs a tenth of a large validate.)"""
    if not getattr(module, "mentions_applying", True):
        return []
    eph = Ephemerality(module)
    diags = []
    for rc in module.resources.values():
        if rc.count is not None and eph.uses(rc.count.expr):
            diags.append(error("Invalid count argument", _COUNT, rc.count.range))
        if rc.for_each is not None and eph.uses(rc.for_each.expr):
            said = sorted({traversal_text(t) for t in eph.sources(rc.for_each.expr)})
            diags.append(error("Invalid for_each argument", _FOR_EACH, rc.for_each.range,
                               expr_values=tuple((t, "has an ephemeral value") for t in said)))
        attrs = [(n, a) for n, a in rc.attributes.items()]
        stack = list(rc.blocks)
        while stack:
            b = stack.pop()
            if b.type in ("lifecycle", "connection", "provisioner"):
                continue
            attrs.extend(b.attributes.items())
            stack.extend(b.blocks)
        for n, a in attrs:
            if eph.uses(a.expr):
                diags.append(error("Invalid use of ephemeral value", _ARGUMENT.format(name=n), a.range,
                                   address=str(rc.addr)))
    for oc in module.outputs.values():
        if eph.uses(oc.expr):
            diags.append(error("Ephemeral value not allowed", _OUTPUT, _value_range(oc)))
    return diags


def _value_range(oc: Any) -> SourceRange:
    """An output's ``value =`` line: its expression's line in the output's file."""
    return SourceRange(oc.range.filename, oc.expr.line or oc.range.line)
