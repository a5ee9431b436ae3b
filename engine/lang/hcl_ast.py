"""A native-syntax file's syntax tree (:mod:`engine.lang.hcl_tree`) converted to blocks,
attributes and expression trees (:mod:`engine.lang.expr`).

The conversion is iterative (an explicit stack of pending nodes and a stack of results), so a
configuration nested ten thousand levels deep converts as any other: terraform accepts such
nesting, and Python's own stack would not.

Where tree-sitter's grammar groups differently from the HCL specification, the specification
wins: the operands, operators and conditionals of an expression are read back as a flat sequence
and regrouped by HCL's precedence (tree-sitter makes ``a ? b : c ? d : e`` left-associative, for
one), so the grouping never depends on the grammar's conflict resolution.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from engine.diagnostics import SourceRange, attribute_range
from engine.frozen import frozen
from engine.lang import expr as E
from engine.lang.hcl_errors import check_attribute, check_block, check_body, check_object_separators
from engine.lang.hcl_template import TemplateBuilder
from engine.lang.hcl_text_expr import text_expression
from engine.lang.hcl_tree import Source, SyntaxFail
from engine.lang.number import parse_number
from engine.lang.quote import go_quote

if TYPE_CHECKING:
    from tree_sitter import Node


@frozen
class Attribute:
    name: str
    expr: E.Expr
    range: SourceRange  # where its name is

    def value_range(self) -> SourceRange:
        """Where its expression is, for a diagnostic about the value as a whole: its line, which a
        diagnostic's range starts at the expression (:meth:`engine.diagnostics.Diagnostic.to_json`)."""
        return SourceRange(self.range.filename, self.range.line)


@dataclass(slots=True)
class Block:
    """A block as written: ``type "label" "label" { attributes... blocks... }``."""

    type: str
    labels: tuple[str, ...]
    range: SourceRange
    attributes: dict[str, Attribute] = field(default_factory=dict)
    blocks: list[Block] = field(default_factory=list)
    end_line: int = 0  # the line of its closing brace (0: not known)
    json_syntax: bool = False  # read from a .tf.json file

    def context(self) -> str:
        """The block as terraform names it in a diagnostic: ``resource "T" "N"`` or ``locals``
        (in a .tf.json file ``resource.T.N``)."""
        if self.json_syntax:
            return ".".join([self.type, *self.labels])
        return " ".join([self.type, *(go_quote(label) for label in self.labels)])


class _Build:
    """A pending node's constructor: called with its ``count`` children's results, in order."""

    __slots__ = ("fn", "count")

    def __init__(self, fn: Callable[[list[Any]], Any], count: int) -> None:
        self.fn = fn
        self.count = count


Pending = tuple[list[Any], Callable[[list[Any]], Any]]

MAX_NESTING = 20_000
"""The deepest nesting strata reads (terraform accepts 10,000 levels, measured; Go's stacks grow
to a gigabyte). The stages after parsing walk expressions recursively, and past this depth the
interpreter's stack would overflow: such a file is a diagnostic instead."""

# HCL's binary operator precedence (hclsyntax's binaryOps table), highest binding last
_BINARY = {"||": 1, "&&": 2, "==": 3, "!=": 3, ">": 4, ">=": 4, "<": 4, "<=": 4,
           "+": 5, "-": 5, "*": 6, "/": 6, "%": 6}
_UNARY_PREC = 7
_SOUP = frozenset({"expression", "operation", "binary_operation", "unary_operation", "conditional"})
_SKIP = frozenset({"comment", ",", ")", ":"})

_SIMPLE_MAX = 160
"""The longest expression read from its text (:mod:`engine.lang.hcl_text_expr`), in bytes."""


class Converter:
    """Converts one file's syntax tree; ``run`` takes a node and gives its AST value."""

    def __init__(self, src: Source, line_base: int = 1) -> None:
        self.src = src
        self.line_base = line_base  # the line number of the source's first line
        self.alive = 0  # constructors pending on the stack: how deep the conversion is now
        self.deepest = 0  # an upper bound on the depth of the trees built (see MAX_NESTING)
        self.templates = TemplateBuilder(self)
        self.expand_of: dict[str, Callable[[Node], Any]] = {
            "literal_value": self.literal, "variable_expr": self.variable,
            "collection_value": self.only_child, "template_expr": self.only_child,
            "for_expr": self.only_child, "tuple": self.tuple_expr, "object": self.object,
            "function_call": self.call, "for_tuple_expr": self.for_expr,
            "for_object_expr": self.for_expr, "quoted_template": self.templates.quoted,
            "string_lit": self.templates.quoted, "heredoc_template": self.templates.heredoc,
            "block": self.block, "body": self.body, "attribute": self.attribute,
        }
        for kind in _SOUP:
            self.expand_of[kind] = self.soup

    # ------------------------------------------------------------------ the machine

    def run(self, item: Any) -> Any:
        """``item``'s value, children first, on explicit stacks (no recursion)."""
        tasks: list[Any] = [item]
        out: list[Any] = []
        expand = self.expand
        while tasks:
            t = tasks.pop()
            if type(t) is _Build:
                self.alive -= 1
                n = t.count
                if n:
                    args = out[-n:]
                    del out[-n:]
                else:
                    args = []
                out.append(t.fn(args))
                continue
            r = expand(t)
            if type(r) is tuple:
                children, fn = r
                self.alive += 1
                if self.alive > self.deepest:
                    self.deepest = self.alive
                tasks.append(_Build(fn, len(children)))
                tasks.extend(reversed(children))
            else:
                out.append(r)
        return out[0]

    def expand(self, item: Any) -> Any:
        if callable(item):  # a deferred piece of work that yields its own Pending or value
            return item()
        handler = self.expand_of.get(item.type)
        if handler is None:
            raise SyntaxFail("Invalid expression", f"Unexpected {item.type}.", *self.pos(item))
        return handler(item)

    # ------------------------------------------------------------------ positions

    def line(self, n: Node) -> int:
        return n.start_point[0] + self.line_base

    def pos(self, n: Node) -> tuple[int, int, int]:
        row, col = n.start_point
        return row + self.line_base, self.src.column(row, col, n.start_byte), n.start_byte

    def rng(self, n: Node) -> SourceRange:
        line, col, byte = self.pos(n)
        return SourceRange(self.src.filename, line, col, byte)

    def text(self, n: Node) -> str:
        return self.src.text(n.start_byte, n.end_byte)

    # ------------------------------------------------------------------ bodies and blocks

    def body(self, n: Node, block: Node | None = None) -> Pending:
        """A body's arguments and blocks; ``block``: the block whose body it is (None: the file's).
        (Passed down, not asked of ``n.parent``: tree-sitter finds a parent by walking down from
        the root, through every top-level block before it.)"""
        items = [c for c in n.named_children if c.type in ("attribute", "block")]
        check_body(items, self.src, self.line_base)
        if block is not None:
            check_block(block, items, self.src, self.line_base)

        def build(values: list[Any]) -> tuple[dict[str, Attribute], list[Block]]:
            attrs: dict[str, Attribute] = {}
            blocks: list[Block] = []
            for v in values:
                if isinstance(v, Attribute):
                    if v.name in attrs:
                        raise SyntaxFail(
                            "Attribute redefined",
                            f'The argument "{v.name}" was already set at '
                            f"{self.cited(attrs[v.name].range, v.name)}. Each argument may be set only once.",
                            v.range.line, v.range.column, v.range.byte)
                    attrs[v.name] = v
                else:
                    blocks.append(v)
            return attrs, blocks
        return items, build

    def cited(self, r: SourceRange, name: str) -> str:
        """An argument's name as terraform cites it: ``main.tf:2,3-4``."""
        if r.column:
            return f"{r.filename}:{r.line},{r.column}-{r.column + len(name)}"
        return attribute_range(r, name_only=True)

    def attribute(self, n: Node) -> Pending:
        name_node = n.child(0)
        expr_node = n.child(n.child_count - 1)
        assert name_node is not None and expr_node is not None
        name = self.text(name_node)
        if expr_node.end_point[0] != name_node.start_point[0]:
            check_attribute(n, self.src, self.line_base)
        return [expr_node], lambda v: Attribute(name, v[0], self.rng(n))

    def block(self, n: Node) -> Pending | Block:
        btype = ""
        labels: list[str] = []
        body: Node | None = None
        end_line = 0
        for c in n.children:
            kind = c.type
            if kind == "identifier":
                if btype:
                    labels.append(self.text(c))
                else:
                    btype = self.text(c)
            elif kind == "string_lit":
                raw = self.src.text(c.start_byte + 1, c.end_byte - 1)
                if "${" in raw.replace("$${", "") or "%{" in raw.replace("%%{", ""):
                    raise SyntaxFail("Invalid block label",
                                     "Block labels must be plain strings, without interpolation.",
                                     *self.pos(c))
                labels.append(self.templates.unescape(raw, c))
            elif kind == "body":
                body = c
            elif kind == "block_end":
                end_line = c.end_point[0] + 1
        r = self.rng(n)
        label_t = tuple(labels)
        if body is None:
            return Block(btype, label_t, r, {}, [], end_line)

        def build(v: list[Any]) -> Block:
            attrs, blocks = v[0]
            return Block(btype, label_t, r, attrs, blocks, end_line)
        inner = body
        return [lambda: self.body(inner, n)], build

    # ------------------------------------------------------------------ expressions

    def only_child(self, n: Node) -> Any:
        if n.named_child_count == 1:  # hot path: no comment beside it
            c = n.named_child(0)
            if c is not None and c.type != "comment":
                return self.expand(c)
        for c in n.named_children:
            if c.type != "comment":
                return self.expand(c)
        raise SyntaxFail("Invalid expression", "An expression is required here.", *self.pos(n))

    def literal(self, n: Node) -> Any:
        c = n.child(0)
        assert c is not None
        kind = c.type
        line = self.line(n)
        if kind == "numeric_lit":
            text = self.text(c)
            return E.Literal(line, int(text) if text.isdigit() and len(text) < 19 else number_literal(text))
        if kind == "bool_lit":
            return E.Literal(line, self.text(c) == "true")
        if kind == "null_lit":
            return E.Literal(line, None)
        return self.expand(c)

    def variable(self, n: Node) -> E.Expr:
        return E.Var(self.line(n), self.text(n))

    def tuple_expr(self, n: Node) -> Pending:
        items = [c for c in n.named_children if c.type == "expression"]
        line = self.line(n)
        return items, lambda v: E.TupleExpr(line, tuple(v))

    def object(self, n: Node) -> Pending:
        check_object_separators(n, self.src, self.line_base)
        children: list[Any] = []
        keys: list[E.Expr | None] = []  # a key known now, or None: the next child is its expression
        for elem in n.named_children:
            if elem.type != "object_elem":
                continue
            key = elem.child_by_field_name("key")
            val = elem.child_by_field_name("val")
            assert key is not None and val is not None
            word = self.object_key(key)
            keys.append(word)
            if word is None:
                children.append(key)
            children.append(val)
        line = self.line(n)

        def build(v: list[Any]) -> E.Expr:
            pairs = []
            i = 0
            for k in keys:
                if k is None:
                    k = v[i]
                    i += 1
                pairs.append((k, v[i]))
                i += 1
            return E.ObjectExpr(line, tuple(pairs))
        return children, build

    def object_key(self, key: Node) -> E.Expr | None:
        """A bare name (or keyword) key's literal string; None for any other key (``(k)``, a
        quoted string), an expression to convert."""
        if key.child_count == 1:
            only = key.child(0)
            assert only is not None
            if only.type == "variable_expr":
                return E.Literal(self.line(key), self.text(only))
            if only.type == "literal_value":
                inner = only.child(0)
                if inner is not None and inner.type in ("bool_lit", "null_lit"):
                    return E.Literal(self.line(key), self.text(inner))
        return None

    def call(self, n: Node) -> Pending:
        name_node = n.child(0)
        assert name_node is not None
        name = self.text(name_node)
        args: list[Node] = []
        expand_final = False
        for c in n.named_children:
            if c.type == "function_arguments":
                for a in c.named_children:
                    if a.type == "expression":
                        args.append(a)
                    elif a.type == "ellipsis":
                        expand_final = True
        line = self.line(n)
        return args, lambda v: E.Call(line, name, tuple(v), expand_final)

    def for_expr(self, n: Node) -> Pending:
        names: list[str] = []
        parts: list[Node] = []  # collection, then key (object form), value, condition
        cond: Node | None = None
        grouping = False
        for c in n.named_children:
            if c.type == "for_intro":
                for x in c.named_children:
                    if x.type == "identifier":
                        names.append(self.text(x))
                    elif x.type == "expression":
                        parts.append(x)
            elif c.type == "expression":
                parts.append(c)
            elif c.type == "for_cond":
                cond = next(x for x in c.named_children if x.type == "expression")
            elif c.type == "ellipsis":
                grouping = True
        key_var, value_var = (names[0], names[1]) if len(names) == 2 else (None, names[0])
        is_object = n.type == "for_object_expr"
        line = self.line(n)
        children: list[Any] = parts + ([cond] if cond is not None else [])

        def build(v: list[Any]) -> E.Expr:
            c = v[-1] if cond is not None else None
            if is_object:
                return E.ForExpr(line, key_var, value_var, v[0], v[1], v[2], c, grouping)
            return E.ForExpr(line, key_var, value_var, v[0], None, v[1], c)
        return children, build

    # ------------------------------------------------------------------ operators, postfix steps

    def soup(self, n: Node) -> Any:
        """An expression's operands, operators, conditionals and traversal steps, flattened in
        source order, then regrouped by HCL's precedence (see the module docstring)."""
        if n.type == "expression" and n.end_byte - n.start_byte <= _SIMPLE_MAX:
            simple = self.simple(n)
            if simple is not None:
                return simple
        if n.child_count == 1:  # hot path: a lone operand (a literal, a name, a call, ...)
            only = n.child(0)
            assert only is not None
            if only.type not in _SOUP and only.type in self.expand_of:
                return self.expand_of[only.type](only)
        stream: list[tuple[Any, ...]] = []
        children: list[Any] = []
        pending: list[Node] = [n]
        atom_next = False  # the next expression node is whole: inside ( ) or a conditional's middle
        while pending:
            c = pending.pop()
            kind = c.type
            if kind in _SOUP and not atom_next:
                pending.extend(reversed(c.children))
                continue
            if atom_next and kind == "expression":
                atom_next = False
                stream.append(("a", len(children), self.line(c)))
                children.append(c)
                continue
            if kind in _SKIP:
                continue
            if kind == "(":
                atom_next = True
            elif kind == "?":
                stream.append(("?", len(children), self.line(c)))
                nxt = pending.pop()
                while nxt.type == "comment":
                    nxt = pending.pop()
                children.append(nxt)
            elif kind in _BINARY or kind == "!":
                stream.append(("op", kind, self.line(c)))
            elif kind == "get_attr":
                stream.append(("attr", self.text(c.named_children[-1])))
            elif kind in ("index", "new_index", "legacy_index"):
                stream.append(self.index_step(c, children))
            elif kind == "splat":
                stream.append(self.splat_step(c, children))
            else:
                stream.append(("a", len(children), self.line(c)))
                children.append(c)
        if len(stream) > 2:  # a chain of operators or steps nests as deep as it is long
            chain = len(stream) - len(children)
            if self.alive + chain > self.deepest:
                self.deepest = self.alive + chain
        return children, lambda v: _regroup(stream, v)

    def simple(self, n: Node) -> E.Expr | None:
        """A short expression that is a whole number, a plain quoted string, ``true``/``false``/
        ``null``, a traversal like ``a.b[0]["k"]``, or a one-line tuple or object of them, built
        from its text: the same expression the tree gives, without a Python object for each of
        its nodes (hot path: most values in real configurations are such; None for anything else)."""
        return text_expression(self.src.data[n.start_byte:n.end_byte], n.start_point[0] + self.line_base)

    def index_step(self, c: Node, children: list[Any]) -> tuple[Any, ...]:
        if c.type == "index":
            inner = c.named_children[0]
            return self.index_step(inner, children)
        if c.type == "legacy_index":
            digits = self.text(c).lstrip(".")
            return ("lidx", int(digits), self.line(c))
        expr_node = next(x for x in c.named_children if x.type == "expression")
        children.append(expr_node)
        return ("idx", len(children) - 1, self.line(c))

    def splat_step(self, c: Node, children: list[Any]) -> tuple[Any, ...]:
        inner = c.named_children[0]
        steps: list[tuple[Any, ...]] = []
        for s in inner.named_children:
            if s.type == "get_attr":
                steps.append(("attr", self.text(s.named_children[-1])))
            elif s.type == "index":
                steps.append(self.index_step(s, children))
        return ("splat", inner.type == "attr_splat", tuple(steps), self.line(c))


def number_literal(text: str) -> Any:
    """A numeric literal's value: an int when whole, else the nearest float. A nonzero literal
    too small for a float stays nonzero (the smallest float), so ``count = 1e-400`` is refused
    as a fraction, as terraform refuses it; one too long for an int is a float."""
    n = parse_number(text)
    if n is not None:
        if n == 0 and any(d in "123456789" for d in text.split("e")[0].split("E")[0]):
            return 5e-324
        return n
    if text.startswith("0x"):
        return int(text, 16) if len(text) < 1000 else float("inf")
    try:
        return float(text)
    except ValueError:
        return 0


def _apply(obj: E.Expr, step: tuple[Any, ...], v: list[Any]) -> E.Expr:
    kind = step[0]
    if kind == "attr":
        return E.GetAttr(obj.line, obj, step[1])
    if kind == "idx":
        return E.Index(obj.line, obj, v[step[1]])
    if kind == "lidx":
        return E.Index(obj.line, obj, E.Literal(step[2], step[1]))
    # a splat: its steps apply to each element; an attribute-only splat (.*) takes only
    # attribute steps (and legacy .0 indexes), what follows applies to the result
    attr_only, steps, line = step[1], step[2], step[3]
    each: E.Expr = E.SplatItem(line)
    rest: tuple[tuple[Any, ...], ...] = ()
    for i, s in enumerate(steps):
        if attr_only and s[0] == "idx":
            rest = steps[i:]
            break
        each = _apply(each, s, v)
    out: E.Expr = E.Splat(obj.line, obj, each)
    for s in rest:
        out = _apply(out, s, v)
    return out


def _regroup(stream: list[tuple[Any, ...]], v: list[Any]) -> E.Expr:
    """The expression of a flat operand/operator stream, by HCL precedence (shunting-yard, so
    any length and nesting of operators takes no recursion)."""
    operands: list[E.Expr] = []
    ops: list[tuple[str, int, int, Any]] = []  # (kind: "u" | "b" | "?", precedence, line, extra)

    def reduce() -> None:
        kind, _, line, extra = ops.pop()
        if kind == "u":
            operands.append(E.Unary(line, extra, operands.pop()))
        elif kind == "b":
            right = operands.pop()
            left = operands.pop()
            operands.append(E.Binary(left.line, extra, left, right))
        else:
            false = operands.pop()
            cond = operands.pop()
            operands.append(E.Conditional(cond.line, cond, extra, false))

    operand_last = False
    for item in stream:
        kind = item[0]
        if kind == "a":
            operands.append(v[item[1]])
            operand_last = True
        elif kind == "op":
            op, line = item[1], item[2]
            if not operand_last:  # prefix: "-" or "!" where an operand is expected
                ops.append(("u", _UNARY_PREC, line, op))
                continue
            prec = _BINARY[op]
            while ops and ops[-1][1] >= prec:
                reduce()
            ops.append(("b", prec, line, op))
            operand_last = False
        elif kind == "?":
            while ops and ops[-1][1] > 0:
                reduce()
            ops.append(("?", 0, item[2], v[item[1]]))
            operand_last = False
        else:  # a traversal step on the operand just read
            operands[-1] = _apply(operands[-1], item, v)
    while ops:
        reduce()
    return operands[0]
