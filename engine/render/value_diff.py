"""An in-place change of a value as terraform's plan shows it: a structural diff, not the whole
value before and after.

Inside a changed value only what changed is shown, each entry marked ``+``, ``-`` or ``~``;
unchanged object attributes and map entries are counted in a ``# (N unchanged attributes
hidden)`` line. A list keeps the unchanged element just before and just after each change, as
context. A multi-line string is compared line by line. A value that becomes unknown is shown
as before, then ``-> (known after apply)``.

How elements of lists are paired follows terraform 1.11 (checked against it, see
``tests/engine/test_valuediff.py``): a tuple (an HCL ``[...]``) of unchanged length is compared
index by index, unless it holds the same elements in another order; otherwise the longest common subsequence stays, and an object that is not in it
is compared with the object at the same place on the other side, where a string or number is
removed and added.

:func:`diff` builds the tree (``ABSENT`` for "no value on this side", ``None`` is an explicit
null); :meth:`Node.render` writes it for a value whose name starts at column ``col``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import orjson

from engine.frozen import frozen
from engine.lang.quote import go_quote
from engine.render.value_text import scalar_text
from engine.values import UNKNOWN, ListVal, MapVal, SetVal, equal, from_plain_json


class _Absent:
    def __repr__(self) -> str:
        return "ABSENT"


ABSENT: Any = _Absent()

NOOP, CREATE, DELETE, UPDATE = " ", "+", "-", "~"


def _combine(current: str, nxt: str) -> str:
    """terraform's CompareActions: the action of a collection given one of its elements'."""
    if nxt == NOOP:
        return current
    return UPDATE if current != nxt else current


@frozen
class _Opts:
    override_null: bool = False  # no "-> null" after a removed value (a whole collection says it once)
    show_unchanged: bool = False  # unchanged entries in full (a list's context element)


IMPORTANT = frozenset({"id", "name", "tags"})
"""Attributes terraform shows even when unchanged, whole: they say which object this is."""

SHOW_ALL = _Opts(show_unchanged=True)
"""For :meth:`Node.render`: unchanged entries in full too (terraform's "important" attributes)."""


def _null_suffix(action: str, opts: _Opts) -> str:
    return " -> null" if action == DELETE and not opts.override_null else ""


def _text(v: Any) -> str:
    s = scalar_text(v)
    return s if s is not None else go_quote(v) if isinstance(v, str) else repr(v)


def json_of(v: Any) -> Any:
    """A string holding a JSON object or array, decoded (terraform shows it as ``jsonencode(...)``);
    ABSENT for anything else."""
    if isinstance(v, str) and v.lstrip()[:1] in ("{", "["):
        try:
            return from_plain_json(orjson.loads(v))
        except orjson.JSONDecodeError:
            return ABSENT
    return ABSENT


def _jsonencode(inner: Node, col: int, opts: _Opts) -> str:
    """``jsonencode(`` the decoded value's diff ``)``, as terraform writes a JSON string."""
    mark = UPDATE if inner.action == UPDATE else NOOP
    return (f"jsonencode(\n{' ' * (col + 2)}{mark} {inner.render(col + 4, replace(opts, override_null=True))}"
            f"\n{' ' * col})")


def _lines(s: str) -> list[str]:
    return s.rstrip("\n").split("\n")


class Node:
    action: str
    forces: bool
    """A requires-replace path of the provider's ends here: ``# forces replacement`` is said of it."""

    def render(self, col: int, opts: _Opts | None = None) -> str:
        raise NotImplementedError


@frozen
class _Prim(Node):
    action: str
    before: Any
    after: Any
    forces: bool = False

    def render(self, col: int, opts: _Opts | None = None) -> str:
        opts = opts or _Opts()
        b, a, action = self.before, self.after, self.action
        jb, ja = json_of(b), json_of(a)
        if jb is not ABSENT or ja is not ABSENT:
            if action == UPDATE and jb is not ABSENT and ja is not ABSENT:
                return _jsonencode(diff(jb, ja, json=True), col, opts)
            if action in (CREATE, NOOP) and ja is not ABSENT:
                return _jsonencode(diff(ABSENT if action == CREATE else ja, ja, json=True), col, opts)
            if action == DELETE and jb is not ABSENT:
                return _jsonencode(diff(jb, ABSENT, json=True), col, opts) + _null_suffix(action, opts)
            if action == UPDATE:  # JSON on one side only
                return (f"{_Prim(DELETE, b, ABSENT).render(col, replace(opts, override_null=True))} -> "
                        f"{_Prim(CREATE, ABSENT, a).render(col, opts)}")
        multi_b = isinstance(b, str) and "\n" in b
        multi_a = isinstance(a, str) and "\n" in a
        if not (multi_b or multi_a):
            if action == CREATE:
                return _text(a)
            if action == DELETE:
                return _text(b) + _null_suffix(action, opts)
            if action == NOOP:
                return _text(b)
            return f"{_text(b)} -> {_text(a)}"
        pad = " " * (col + 2)
        if action in (CREATE, NOOP, DELETE):
            v = b if action == DELETE else a
            body = [f"{pad}  {line}" for line in _lines(v)]
            return "<<-EOT\n" + "\n".join(body) + f"\n{' ' * col}EOT" + _null_suffix(action, opts)
        if not (isinstance(b, str) and isinstance(a, str)):
            return (f"{_Prim(DELETE, b, ABSENT).render(col, replace(opts, override_null=True))} -> "
                    f"{_Prim(CREATE, ABSENT, a).render(col, opts)}")
        bl, al = _lines(b), _lines(a)
        body = []
        for i, j in _pair(bl, al, lambda _: False):
            if i is not None and j is not None:
                body.append(f"{pad}  {bl[i]}")
            elif i is not None:
                body.append(f"{pad}- {bl[i]}")
            elif j is not None:
                body.append(f"{pad}+ {al[j]}")
        return "<<-EOT\n" + "\n".join(body) + f"\n{' ' * col}EOT"


@frozen
class _Unknown(Node):
    action: str
    before: Node | None
    forces: bool = False

    def render(self, col: int, opts: _Opts | None = None) -> str:
        if self.before is None:
            return "(known after apply)"
        return self.before.render(col, replace(opts or _Opts(), override_null=True)) + " -> (known after apply)"


@frozen
class _TypeChange(Node):
    action: str
    before: Node
    after: Node
    forces: bool = False

    def render(self, col: int, opts: _Opts | None = None) -> str:
        opts = opts or _Opts()
        return f"{self.before.render(col, replace(opts, override_null=True))} -> {self.after.render(col, opts)}"


@frozen
class _Object(Node):
    action: str
    children: dict[str, Node]
    is_map: bool
    forces: bool = False

    def render(self, col: int, opts: _Opts | None = None) -> str:
        opts = opts or _Opts()
        if not self.children:
            return "{}" + _null_suffix(self.action, opts)
        keys = {k: go_quote(k) if self.is_map else _key(k) for k in self.children}
        width = max(len(k) for k in keys.values())  # hidden entries take room too, as terraform's do
        # an object's removed attributes never say "-> null"; a map's do, unless the map is removed
        child_opts = replace(opts, override_null=not self.is_map or self.action == DELETE)
        pad = " " * (col + 2)
        lines = []
        hidden = 0
        for k in sorted(self.children):
            child = self.children[k]
            # an object's attributes that say which object it is are shown whole, changed or not
            important = not self.is_map and k in IMPORTANT
            if child.action == NOOP and not opts.show_unchanged and not important:
                hidden += 1
                continue
            o = replace(child_opts, show_unchanged=True) if important else child_opts
            comma = "," if self.is_map and isinstance(child, _Object) and not child.is_map else ""
            text = child.render(col + 4, o)
            lines.append(f"{pad}{child.action} {keys[k].ljust(width)} = "
                         f"{with_forces(text) if child.forces else text}{comma}")
        if hidden:
            what = "element" if self.is_map else "attribute"
            lines.append(f"{pad}  # ({hidden} unchanged {what}{'s' if hidden != 1 else ''} hidden)")
        return "{\n" + "\n".join(lines) + f"\n{' ' * col}}}" + _null_suffix(self.action, opts)


@frozen
class _Seq(Node):
    action: str
    children: tuple[Node, ...]
    context: bool  # a list shows the elements around a change; a set does not
    forces: bool = False

    def render(self, col: int, opts: _Opts | None = None) -> str:
        opts = opts or _Opts()
        if not self.children:
            return "[]" + _null_suffix(self.action, opts)
        elem_opts = replace(opts, override_null=True)
        unchanged_opts = replace(opts, show_unchanged=True)
        pad = " " * (col + 2)
        lines: list[str] = []
        skipped: list[Node] = []

        def hidden(n: int) -> None:
            lines.append(f"{pad}  # ({n} unchanged element{'s' if n != 1 else ''} hidden)")

        # terraform's list renderer: each change is shown with the unchanged element before and
        # after it; runs of other unchanged elements are counted
        render_next = False
        for el in self.children:
            if el.action == NOOP and not render_next and not opts.show_unchanged:
                skipped.append(el)
                continue
            render_next = False
            o = elem_opts
            if self.context:
                if len(skipped) > 1:
                    hidden(len(skipped) - 1)
                if skipped:
                    lines.append(f"{pad}  {skipped[-1].render(col + 4, unchanged_opts)},")
                skipped = []
                if el.action == NOOP:
                    o = unchanged_opts
                else:
                    render_next = True
            lines.append(f"{pad}{el.action} {el.render(col + 4, o)},")
        if skipped:
            hidden(len(skipped))
        return "[\n" + "\n".join(lines) + f"\n{' ' * col}]" + _null_suffix(self.action, opts)


FORCES = " # forces replacement"


def with_forces(text: str) -> str:
    """``# forces replacement`` after a value, or after the opening line of one written over several."""
    first, nl, rest = text.partition("\n")
    return f"{first}{FORCES}{nl}{rest}"


def force_replacement(node: Node, path: tuple[str | int, ...]) -> Node:
    """``node`` with the value at ``path`` (a requires-replace path, relative to it) marked; a path
    that leads where the diff does not show marks the value that contains it."""
    if path and isinstance(node, _Object) and path[0] in node.children:
        step = path[0]
        assert isinstance(step, str)
        return replace(node, children={**node.children, step: force_replacement(node.children[step], path[1:])})
    return replace(node, forces=True)  # type: ignore[type-var]  # every Node is a dataclass


def _key(k: str) -> str:
    return k if k.replace("_", "a").replace("-", "a").isalnum() and not k[:1].isdigit() else go_quote(k)


def _kind(v: Any) -> str:
    if isinstance(v, dict):
        return "object"
    if isinstance(v, tuple):
        return "sequence"
    return "primitive"  # a string, number, bool or null


def diff(before: Any, after: Any, json: bool = False) -> Node:
    """The change from ``before`` to ``after``; either may be ``ABSENT`` (created, removed).

    ``json``: compare as terraform compares a dynamic attribute's or an output's value, through its
    JSON, where a map is an object and every list, set or tuple an array."""
    if after is UNKNOWN:
        if before is ABSENT:
            return _Unknown(CREATE, None)
        return _Unknown(UPDATE, diff(before, ABSENT, json))
    if before is ABSENT and after is ABSENT:
        return _Prim(NOOP, None, None)
    kb = _kind(before) if before is not ABSENT else _kind(after)
    ka = _kind(after) if after is not ABSENT else kb
    if kb != ka or (kb == "primitive" and (before is None) != (after is None)
                    and before is not ABSENT and after is not ABSENT):
        # a value of another type (null included): the old one removed, the new one created
        return _TypeChange(UPDATE, diff(before, ABSENT, json), diff(ABSENT, after, json))
    start = CREATE if before is ABSENT else DELETE if after is ABSENT else NOOP
    if kb == "primitive":
        return _Prim(start if start != NOOP else NOOP if equal(before, after) else UPDATE, before, after)
    if kb == "object":
        b = before if before is not ABSENT else {}
        a = after if after is not ABSENT else {}
        children = {k: diff(b.get(k, ABSENT), a.get(k, ABSENT), json) for k in sorted(set(b) | set(a))}
        action = start
        for c in children.values():
            action = _combine(action, c.action)
        is_map = not json and isinstance(after if after is not ABSENT else before, MapVal)
        return _Object(action, children, is_map)
    b = before if before is not ABSENT else ()
    a = after if after is not ABSENT else ()
    sample = after if after is not ABSENT else before
    is_set = not json and isinstance(sample, SetVal)
    if is_set:
        pairs = _set_pairs(b, a)
    elif ((json or not isinstance(sample, ListVal)) and before is not ABSENT and after is not ABSENT
          and len(b) == len(a) and not _is_permutation(b, a)):
        pairs = [(i, i) for i in range(len(b))]  # a tuple of the same length: element by element
    else:
        pairs = _pair(list(b), list(a), lambda v: isinstance(v, dict))
    elems = tuple(diff(b[i] if i is not None else ABSENT, a[j] if j is not None else ABSENT, json)
                  for i, j in pairs)
    action = start
    for e in elems:
        action = _combine(action, e.action)
    return _Seq(action, elems, not is_set)


def _is_permutation(before: tuple[Any, ...], after: tuple[Any, ...]) -> bool:
    """The same elements in another order (terraform then shows what moved, by common subsequence)."""
    if before == after or len(before) > 500:
        return False
    left = list(after)
    for x in before:
        i = next((i for i, y in enumerate(left) if equal(x, y)), None)
        if i is None:
            return False
        del left[i]
    return True


def _lcs(xs: list[Any], ys: list[Any]) -> list[Any]:
    """terraform's objchange.LongestCommonSubsequence, ties broken as it breaks them."""
    if not xs or not ys:
        return []
    w = len(xs)
    c = [0] * (w * len(ys))
    eqs = [False] * (w * len(ys))
    for y in range(len(ys)):
        for x in range(w):
            if equal(xs[x], ys[y]):
                eqs[w * y + x] = True
                c[w * y + x] = (c[w * (y - 1) + x - 1] if x > 0 and y > 0 else 0) + 1
            else:
                left = c[w * y + x - 1] if x > 0 else 0
                up = c[w * (y - 1) + x] if y > 0 else 0
                c[w * y + x] = max(left, up)
    seq: list[Any] = [None] * c[-1]
    x, y, i = w - 1, len(ys) - 1, c[-1] - 1
    while x > -1 and y > -1:
        if eqs[w * y + x]:
            seq[i] = xs[x]
            x, y, i = x - 1, y - 1, i - 1
        else:
            left = c[w * y + x - 1] if x > 0 else 0
            up = c[w * (y - 1) + x] if y > 0 else 0
            if left > up:
                x -= 1
            else:
                y -= 1
    return seq


def _pair(before: list[Any], after: list[Any], is_obj: Any) -> list[tuple[int | None, int | None]]:
    """terraform's ProcessSlice: (before index, after index) pairs, None for "not on this side"."""
    lcs = _lcs(before, after)
    out: list[tuple[int | None, int | None]] = []
    bi = ai = li = 0
    while bi < len(before) or ai < len(after) or li < len(lcs):
        while bi < len(before) and (li >= len(lcs) or not equal(before[bi], lcs[li])):
            if (is_obj(before[bi]) and ai < len(after) and is_obj(after[ai])
                    and (li >= len(lcs) or not equal(after[ai], lcs[li]))):
                out.append((bi, ai))
                bi, ai = bi + 1, ai + 1
                continue
            out.append((bi, None))
            bi += 1
        while ai < len(after) and (li >= len(lcs) or not equal(after[ai], lcs[li])):
            out.append((None, ai))
            ai += 1
        if li < len(lcs):
            out.append((bi, ai))
            bi, ai, li = bi + 1, ai + 1, li + 1
    return out


def _set_pairs(before: tuple[Any, ...], after: tuple[Any, ...]) -> list[tuple[int | None, int | None]]:
    """terraform's set diff: equal elements pair up; the rest of before removed, of after added."""
    taken: set[int] = set()
    out: list[tuple[int | None, int | None]] = []
    for i, b in enumerate(before):
        match = next((j for j, a in enumerate(after) if j not in taken and equal(a, b)), None)
        if match is not None:
            taken.add(match)
        out.append((i, match))
    out.extend((None, j) for j in range(len(after)) if j not in taken)
    return out
