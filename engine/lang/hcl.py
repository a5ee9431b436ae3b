"""Reading ``.tf`` (native HCL syntax) and ``.tf.json`` files into generic blocks.

python-hcl2 supplies the grammar and parser; we walk its lark parse tree
(which carries line numbers) into our own expression tree, because the
library's dict output flattens expressions back into strings.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from typing import Any

import hcl2
from lark import Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from engine.diagnostics import (
    Diagnostic,
    DiagnosticsError,
    SourceRange,
    StrataError,
    attribute_range,
    enclosing_block,
    error,
)
from engine.lang import expr as E
from engine.lang.number import parse_number
from engine.lang.quote import go_quote


@dataclass(frozen=True, slots=True)
class Attribute:
    name: str
    expr: E.Expr
    range: SourceRange


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


class _SyntaxFail(StrataError):
    def __init__(self, summary: str, line: int, detail: str = "") -> None:
        super().__init__(summary)
        self.summary = summary
        self.line = line
        self.detail = detail


# --------------------------------------------------------------------------- native syntax


def parse_hcl(text: str, filename: str) -> list[Block]:
    """Parse native-syntax HCL into top-level blocks; syntax errors become diagnostics."""
    attrs, blocks = parse_hcl_body(text, filename)
    diags: list[Diagnostic] = []
    for a in attrs.values():
        diags.append(error("Unsupported argument",
                           f'An argument named "{a.name}" is not expected at the top level; '
                           "only blocks (resource, variable, locals, output, ...) are.", a.range))
    if diags:
        raise DiagnosticsError(diags)
    return blocks


def parse_hcl_body(text: str, filename: str) -> tuple[dict[str, Attribute], list[Block]]:
    """Parse native-syntax HCL into its top-level attributes and blocks (a CLI configuration file
    has both); syntax errors become diagnostics."""
    if not text.endswith("\n"):
        text += "\n"
    joined: list[int] = []
    try:
        tree = hcl2.parses_to_tree(text)
    except UnexpectedInput as exc:
        # the grammar refuses a line break inside ${ } of a quoted string, which HCL allows:
        # retry with those line breaks as spaces (same offsets, so lines can be restored)
        retry, joined = _join_interpolation_lines(text)
        try:
            if not joined:
                raise exc
            tree = hcl2.parses_to_tree(retry)
        except UnexpectedInput:
            raise DiagnosticsError([_syntax_diag(exc, text, filename)]) from None
    conv = _Converter(filename, joined)
    try:
        body = tree.children[0]
        attrs, blocks = conv.body(body)
    except _SyntaxFail as exc:
        raise DiagnosticsError(
            [error(exc.summary, exc.detail, SourceRange(filename, exc.line),
                   context=enclosing_block(filename, exc.line))]
        ) from None
    return attrs, blocks


def _syntax_diag(exc: UnexpectedInput, text: str, filename: str) -> Diagnostic:
    line = getattr(exc, "line", None)
    col = getattr(exc, "column", 0)
    eof = (isinstance(exc, UnexpectedEOF) or not isinstance(line, int) or line < 1
           or (isinstance(exc, UnexpectedToken) and exc.token.type == "$END"))
    unclosed = _unclosed_bracket(text)
    if eof or unclosed is not None:
        opened_at, char = unclosed if unclosed is not None else (max(1, text.count("\n")), "{")
        if char == '"':
            return error("Unterminated template string",
                         "No closing marker was found for the string: a quote is missing at the end of "
                         "this line.", SourceRange(filename, opened_at, 1))
        where = SourceRange(filename, opened_at, 1)
        context = enclosing_block(filename, opened_at)
        if char == "[":
            return error("Unterminated tuple constructor expression",
                         "There is no corresponding closing bracket before the end of the file. This may be "
                         "caused by incorrect bracket nesting elsewhere in this file.", where, context=context)
        if char == "{":
            return error("Unclosed configuration block",
                         "There is no closing brace for this block before the end of the file. This may be "
                         "caused by incorrect brace nesting elsewhere in this file.", where, context=context)
        return error("Unclosed configuration bracket",
                     f"There is no closing bracket for this {char} before the end of the file. This may be "
                     "caused by incorrect bracket nesting elsewhere in this file.", where, context=context)
    assert isinstance(line, int)
    src_line = text.splitlines()[line - 1] if line - 1 < len(text.splitlines()) else ""
    what = ""
    if isinstance(exc, UnexpectedToken):
        what = f"unexpected {exc.token!r}"
    elif isinstance(exc, UnexpectedCharacters):
        what = f"unexpected character {getattr(exc, 'char', '')!r}"
    return error("Invalid syntax", f"{what} in: {src_line.strip()}",
                 SourceRange(filename, line, col), context=enclosing_block(filename, line))


def _join_interpolation_lines(text: str) -> tuple[str, list[int]]:
    """``text`` with each line break inside a ``${ }`` of a quoted string replaced by a space,
    and the offsets of those line breaks (strings, comments and heredocs are skipped)."""
    found: list[int] = []
    blank: list[int] = []
    n = len(text)

    def string(i: int) -> int:  # from just after the opening quote; returns after the closing one
        while i < n:
            c = text[i]
            if c == "\\":
                i += 2
            elif c == '"' or c == "\n":
                return i + 1
            elif text.startswith("$${", i) or text.startswith("%%{", i):
                i += 3
            elif text.startswith("${", i) or text.startswith("%{", i):
                i = interpolation(i + 2)
            else:
                i += 1
        return n

    def interpolation(i: int) -> int:  # from just after "${"; returns after the matching "}"
        depth = 0
        while i < n:
            c = text[i]
            if c == "\n":
                found.append(i)
            elif c == '"':
                i = string(i + 1)
                continue
            elif c == "#" or text.startswith("//", i) or text.startswith("/*", i):
                # a comment: blank it out too, or it would swallow the rest once joined
                if c == "/" and text[i + 1] == "*":
                    j = text.find("*/", i + 2)
                    j = n if j < 0 else j + 2
                else:
                    j = text.find("\n", i)
                    j = n if j < 0 else j
                for k in range(i, j):
                    (found if text[k] == "\n" else blank).append(k)
                i = j
                continue
            elif c == "{":
                depth += 1
            elif c == "}":
                if depth == 0:
                    return i + 1
                depth -= 1
            i += 1
        return n

    i = 0
    while i < n:
        c = text[i]
        if c == "#" or text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
        elif c == '"':
            i = string(i + 1)
        elif text.startswith("<<", i) and (m := re.match(r"<<-?([A-Za-z][A-Za-z0-9._-]*)\r?\n", text[i:])):
            end = re.search(r"^\s*" + re.escape(m.group(1)) + r"\s*$", text[i + m.end():], re.M)
            i = n if end is None else i + m.end() + end.end()
        else:
            i += 1
    if not found:
        return text, []
    chars = list(text)
    for pos in found + blank:
        chars[pos] = " "
    return "".join(chars), found


def _unclosed_bracket(text: str) -> tuple[int, str] | None:
    """The line and character of the innermost bracket never closed (skipping strings,
    comments and heredocs), or None when every bracket is balanced."""
    stack: list[tuple[int, str]] = []
    pairs = {"}": "{", "]": "[", ")": "("}
    i, n, line = 0, len(text), 1
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
        elif c == "#" or text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            line += text.count("\n", i, j)
            i = j
            continue
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"' and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            if (j >= n or text[j] == "\n") and "${" not in text[i:j] and "%{" not in text[i:j]:
                return (line, '"')  # a quoted string left open at the end of its line
            i = j + 1
            continue
        elif text.startswith("<<", i):
            m = re.match(r"<<-?([A-Za-z][A-Za-z0-9._-]*)\r?\n", text[i:])
            if m:
                end = re.search(r"^\s*" + re.escape(m.group(1)) + r"\s*$", text[i + m.end():], re.M)
                j = n if end is None else i + m.end() + end.end()
                line += text.count("\n", i, j)
                i = j
                continue
        elif c in "{[(":
            stack.append((line, c))
        elif c in pairs:
            if stack and stack[-1][1] == pairs[c]:
                stack.pop()
        i += 1
    return stack[-1] if stack else None


def _line(t: Tree | Token) -> int:
    if isinstance(t, Token):
        return t.line or 0
    meta = t.meta
    return getattr(meta, "line", 0) if not meta.empty else 0


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\"}


def _unescape(s: str, line: int) -> str:
    """A quoted string's literal text with its escapes resolved, as HCL's: ``\\n \\r \\t \\" \\\\``,
    ``\\uNNNN`` and ``\\UNNNNNNNN``; anything else is terraform's "Invalid escape sequence"."""
    if "\\" not in s:
        return s
    out: list[str] = []
    i = 0
    while i < len(s):
        c = s[i]
        if c != "\\" or i + 1 >= len(s):
            out.append(c)
            i += 1
            continue
        n = s[i + 1]
        if n in _ESCAPES:
            out.append(_ESCAPES[n])
            i += 2
            continue
        if n in "uU":
            width = 4 if n == "u" else 8
            digits = s[i + 2:i + 2 + width]
            if len(digits) < width or not all(d in "0123456789abcdefABCDEF" for d in digits):
                raise _SyntaxFail("Invalid escape sequence", line,
                                  f"The \\{n} escape sequence must be followed by "
                                  f"{'four' if width == 4 else 'eight'} hexadecimal digits.")
            code = int(digits, 16)
            if 0xD800 <= code <= 0xDFFF or code > 0x10FFFF:
                raise _SyntaxFail("Invalid escape sequence", line, f"Cannot encode character U+{code:x} in UTF-8.")
            out.append(chr(code))
            i += 2 + width
            continue
        raise _SyntaxFail("Invalid escape sequence", line, f'The symbol "{n}" is not a valid escape sequence selector.')
    return "".join(out)


class _Converter:
    def __init__(self, filename: str, joined: list[int] | None = None) -> None:
        self.filename = filename
        # offsets of line breaks inside ${ } that were turned into spaces before parsing
        self.joined = joined or []

    def line(self, t: Tree | Token) -> int:
        line = _line(t)
        if self.joined and line:
            pos = t.start_pos if isinstance(t, Token) else getattr(t.meta, "start_pos", None)
            if pos is not None:
                line += bisect.bisect_left(self.joined, pos)
        return line

    def end_line(self, t: Tree) -> int:
        meta = t.meta
        if meta.empty:
            return 0
        line: int = getattr(meta, "end_line", 0) or 0
        pos = getattr(meta, "end_pos", None)
        if self.joined and line and pos is not None:
            line += bisect.bisect_left(self.joined, pos)
        return line

    def rng(self, t: Tree | Token) -> SourceRange:
        if isinstance(t, Tree) and not t.meta.empty:
            return SourceRange(self.filename, self.line(t), t.meta.column, t.meta.start_pos)
        return SourceRange(self.filename, self.line(t))

    def body(self, body: Tree) -> tuple[dict[str, Attribute], list[Block]]:
        attrs: dict[str, Attribute] = {}
        blocks: list[Block] = []
        for child in body.children:
            if not isinstance(child, Tree):
                continue
            if child.data == "attribute":
                name = self.name_of(child.children[0])
                ex = self.expr(child.children[-1])
                if name in attrs:
                    raise _SyntaxFail("Attribute redefined", self.line(child),
                                      f'The argument "{name}" was already set at '
                                      f"{attribute_range(attrs[name].range, name_only=True)}. Each argument "
                                      "may be set only once.")
                attrs[name] = Attribute(name, ex, self.rng(child))
            elif child.data == "block":
                blocks.append(self.block(child))
        return attrs, blocks

    def name_of(self, t: Tree | Token) -> str:
        if isinstance(t, Token):
            return str(t)
        return str(t.children[0])

    def block(self, t: Tree) -> Block:
        parts = [c for c in t.children if isinstance(c, Tree) and c.data != "new_line_or_comment"]
        body = parts[-1]
        btype = self.name_of(parts[0])
        labels: list[str] = []
        for p in parts[1:-1]:
            if p.data == "string":
                ex = self.string(p)
                if isinstance(ex, E.Literal):
                    labels.append(str(ex.value))
                else:
                    raise _SyntaxFail("Invalid block label", self.line(p),
                                      "Block labels must be plain strings, without interpolation.")
            else:
                labels.append(self.name_of(p))
        attrs, blocks = self.body(body)
        return Block(btype, tuple(labels), self.rng(t), attrs, blocks, self.end_line(t))

    # ------------------------------------------------------------------ expressions

    def expr(self, t: Tree | Token) -> E.Expr:  # noqa: C901 - a dispatch table
        if isinstance(t, Token):
            raise _SyntaxFail("Invalid expression", self.line(t), f"unexpected {t!r}")
        d = t.data
        line = self.line(t)
        if d == "expr_term":
            kids = [c for c in t.children if not (isinstance(c, Tree) and c.data == "new_line_or_comment")]
            if len(kids) == 3 and isinstance(kids[0], Token) and kids[0].type == "LPAR":
                return self.expr(kids[1])
            return self.expr(kids[0])
        if d == "int_lit":
            return E.Literal(line, int(str(t.children[0])))
        if d == "float_lit":
            n = parse_number(str(t.children[0]))  # "1.0" and "1e3" are whole numbers
            return E.Literal(line, float(str(t.children[0])) if n is None else n)
        if d == "literal_value":
            v = str(t.children[0])
            return E.Literal(line, {"true": True, "false": False, "null": None}[v])
        if d == "identifier" or d == "keyword":
            return E.Var(line, str(t.children[0]))
        if d == "string":
            return self.string(t)
        if d in ("heredoc_template", "heredoc_template_trim"):
            return self.heredoc(t, trim=d.endswith("trim"))
        if d == "template_string":
            raise _SyntaxFail("Unsupported template directive", line,
                              "Template directives (%{if}, %{for}) are not supported yet.")
        if d == "tuple":
            items = tuple(self.expr(c) for c in t.children if isinstance(c, Tree)
                          and c.data != "new_line_or_comment")
            return E.TupleExpr(line, items)
        if d == "object":
            pairs = []
            for c in t.children:
                if isinstance(c, Tree) and c.data == "object_elem":
                    key_t = c.children[0]
                    key_inner = key_t.children[0]
                    key = self.object_key(key_inner)
                    pairs.append((key, self.expr(c.children[-1])))
            return E.ObjectExpr(line, tuple(pairs))
        if d == "function_call":
            names = [c for c in t.children if isinstance(c, Tree) and c.data == "identifier"]
            name = "::".join(str(n.children[0]) for n in names)
            args: list[E.Expr] = []
            expand = False
            for c in t.children:
                if isinstance(c, Tree) and c.data == "arguments":
                    for a in c.children:
                        if isinstance(a, Tree) and a.data != "new_line_or_comment":
                            args.append(self.expr(a))
                        elif isinstance(a, Token) and a.type == "ELLIPSIS":
                            expand = True
            return E.Call(line, name, tuple(args), expand)
        if d == "get_attr_expr_term":
            obj = self.expr(t.children[0])
            return self.apply_get_attr(obj, t.children[1])
        if d == "index_expr_term":
            obj = self.expr(t.children[0])
            return self.apply_index(obj, t.children[1])
        if d in ("attr_splat_expr_term", "full_splat_expr_term"):
            obj = self.expr(t.children[0])
            each: E.Expr = E.SplatItem(line)
            steps = [s for s in t.children[1].children if isinstance(s, Tree)]
            attr_only = d == "attr_splat_expr_term"
            rest: list[Tree] = []
            for i, step in enumerate(steps):
                if step.data == "get_attr":
                    each = self.apply_get_attr(each, step)
                elif attr_only and step.data != "short_index":
                    # an attribute-only splat (.*) takes only attribute steps (and legacy .0
                    # indexes): a [key] after them, and all that follows, applies to the result
                    rest = steps[i:]
                    break
                else:
                    each = self.apply_index(each, step)
            out: E.Expr = E.Splat(line, obj, each)
            for step in rest:
                out = self.apply_get_attr(out, step) if step.data == "get_attr" else self.apply_index(out, step)
            return out
        if d == "conditional":
            kids = [c for c in t.children if isinstance(c, Tree) and c.data != "new_line_or_comment"]
            return E.Conditional(line, self.expr(kids[0]), self.expr(kids[1]), self.expr(kids[2]))
        if d == "binary_op":
            left = self.expr(t.children[0])
            term = t.children[1]
            op_t = term.children[0]
            op = str(op_t.children[0])
            right = self.expr([c for c in term.children[1:] if isinstance(c, Tree)
                               and c.data != "new_line_or_comment"][0])
            return E.Binary(line, op, left, right)
        if d == "unary_op":
            return E.Unary(line, str(t.children[0]), self.expr(t.children[1]))
        if d in ("for_tuple_expr", "for_object_expr"):
            return self.for_expr(t, is_object=(d == "for_object_expr"))
        if d == "interpolation":
            return self.expr(t.children[1])
        raise _SyntaxFail("Unsupported expression", line, f"The construct {d!r} is not supported yet.")

    def object_key(self, t: Tree | Token) -> E.Expr:
        if isinstance(t, Tree) and t.data == "keyword":
            return E.Literal(self.line(t), str(t.children[0]))
        ex = self.expr(t)
        # a bare identifier as an object key is a literal string key, as in HCL; in parentheses,
        # ``(k)``, it is an expression (a for's name, say)
        parenthesized = (isinstance(t, Tree) and bool(t.children) and isinstance(t.children[0], Token)
                         and str(t.children[0]) == "(")
        if isinstance(ex, E.Var) and not parenthesized:
            return E.Literal(ex.line, ex.name)
        return ex

    def apply_get_attr(self, obj: E.Expr, step: Tree) -> E.Expr:
        name_t = step.children[-1]
        name = str(name_t.children[0]) if isinstance(name_t, Tree) else str(name_t)
        return E.GetAttr(obj.line or self.line(step), obj, name)

    def apply_index(self, obj: E.Expr, step: Tree) -> E.Expr:
        if step.data == "short_index":
            key: E.Expr = E.Literal(self.line(step), int(str(step.children[-1])))
        else:
            kids = [c for c in step.children if isinstance(c, Tree) and c.data != "new_line_or_comment"]
            key = self.expr(kids[0])
        return E.Index(obj.line or self.line(step), obj, key)

    def for_expr(self, t: Tree, is_object: bool) -> E.Expr:
        line = self.line(t)
        intro = next(c for c in t.children if isinstance(c, Tree) and c.data == "for_intro")
        idents = [str(c.children[0]) for c in intro.children if isinstance(c, Tree) and c.data == "identifier"]
        coll_t = [c for c in intro.children if isinstance(c, Tree)
                  and c.data not in ("identifier", "new_line_or_comment")][0]
        key_var, value_var = (idents[0], idents[1]) if len(idents) == 2 else (None, idents[0])
        body = [c for c in t.children if isinstance(c, Tree)
                and c.data not in ("for_intro", "for_cond", "new_line_or_comment")]
        cond_t = next((c for c in t.children if isinstance(c, Tree) and c.data == "for_cond"), None)
        cond = None
        if cond_t is not None:
            cond = self.expr([c for c in cond_t.children if isinstance(c, Tree)
                              and c.data != "new_line_or_comment"][0])
        grouping = any(isinstance(c, Token) and c.type == "ELLIPSIS" for c in t.children)
        if is_object:
            return E.ForExpr(line, key_var, value_var, self.expr(coll_t), self.expr(body[0]),
                             self.expr(body[1]), cond, grouping)
        return E.ForExpr(line, key_var, value_var, self.expr(coll_t), None, self.expr(body[0]), cond)

    def string(self, t: Tree) -> E.Expr:
        line = self.line(t)
        parts: list[str | E.Expr] = []
        for c in t.children:
            if not isinstance(c, Tree):
                continue
            inner = c.children[0]
            if isinstance(inner, Token):
                if inner.type in ("ESCAPED_INTERPOLATION", "ESCAPED_DIRECTIVE"):
                    # "$${...}" is a literal "${...}", whose text may hold escapes too ("$${a\tb}")
                    parts.append(_unescape(str(inner)[1:], line))
                else:
                    parts.append(_unescape(str(inner), line))
            elif inner.data == "interpolation":
                parts.append(self.expr(inner.children[1]))
            else:
                raise _SyntaxFail("Unsupported template directive", line,
                                  "Template directives (%{if}, %{for}) are not supported yet.")
        return _template(line, parts)

    def heredoc(self, t: Tree, trim: bool) -> E.Expr:
        raw = str(t.children[0])
        line = self.line(t)
        m = re.match(r"<<-?([A-Za-z][A-Za-z0-9._-]*)\r?\n", raw)
        assert m is not None
        marker = m.group(1)
        content = raw[m.end():]
        content = content[: content.rstrip().rfind(marker)]
        lines = content.split("\n")
        if trim:
            indents = [len(x) - len(x.lstrip()) for x in lines if x.strip()]
            cut = min(indents) if indents else 0
            lines = [x[cut:] for x in lines]
        content = "\n".join(lines)
        content = re.sub(r"\n[ \t]*$", "\n", content)
        return parse_template(content, self.filename, line + 1)


def _template(line: int, parts: list[str | E.Expr]) -> E.Expr:
    merged: list[str | E.Expr] = []
    for p in parts:
        if isinstance(p, str) and merged and isinstance(merged[-1], str):
            merged[-1] = merged[-1] + p
        elif p != "":
            merged.append(p)
    if not merged:
        return E.Literal(line, "")
    if len(merged) == 1:
        if isinstance(merged[0], str):
            return E.Literal(line, merged[0])
        # "${x}" alone yields x's value unconverted, as in HCL
        return merged[0]
    return E.Template(line, tuple(merged))


_EXPR_CACHE: dict[str, E.Expr] = {}


_SIMPLE_TRAVERSAL = re.compile(r'[A-Za-z_][A-Za-z0-9_-]*(?:\.[A-Za-z_][A-Za-z0-9_-]*|\[[0-9]+\]|\["[^"\\$%]*"\])*\Z')
_STEP = re.compile(r'\.([A-Za-z_][A-Za-z0-9_-]*)|\[([0-9]+)\]|\["([^"]*)"\]')
_KEYWORDS = {"true": True, "false": False, "null": None}


def _simple_traversal(src: str, line: int) -> E.Expr | None:
    """``a.b[0]["k"].c`` built directly: generated .tf.json files are full of such references,
    and a full parse of each costs about 0.3 ms (hot path when loading large configurations)."""
    if not _SIMPLE_TRAVERSAL.match(src):
        return None
    m = re.match(r"[A-Za-z_][A-Za-z0-9_-]*", src)
    assert m is not None
    root = m.group(0)
    if root in _KEYWORDS:
        return E.Literal(line, _KEYWORDS[root]) if m.end() == len(src) else None
    ex: E.Expr = E.Var(line, root)
    for step in _STEP.finditer(src, m.end()):
        name, index, key = step.groups()
        if name is not None:
            ex = E.GetAttr(line, ex, name)
        elif index is not None:
            ex = E.Index(line, ex, E.Literal(line, int(index)))
        else:
            ex = E.Index(line, ex, E.Literal(line, key))
    return ex


def parse_expression(src: str, filename: str, line: int) -> E.Expr:
    """Parse one expression from source text (an interpolation, a -var value)."""
    fast = _simple_traversal(src.strip(), line)
    if fast is not None:
        return fast
    try:
        tree = hcl2.parses_to_tree(f"__x = {src}\n")
    except UnexpectedInput as exc:
        raise DiagnosticsError([error("Invalid expression", f"{src!r}: {exc.__class__.__name__}",
                                      SourceRange(filename, line))]) from None
    conv = _Converter(filename)
    try:
        attrs, _ = conv.body(tree.children[0])
        ex = attrs["__x"].expr
    except _SyntaxFail as exc:  # its own summary and detail ("Invalid escape sequence", ...)
        raise DiagnosticsError([error(exc.summary, exc.detail, SourceRange(filename, line))]) from None
    except KeyError as exc:
        raise DiagnosticsError([error("Invalid expression", str(exc), SourceRange(filename, line))]) from None
    return _relined(ex, line)


def _relined(ex: E.Expr, line: int) -> E.Expr:
    # expressions parsed out of context start at line 1; move them to the real line
    if line <= 1:
        return ex
    import dataclasses

    def fix(v: Any) -> Any:
        if isinstance(v, E.Expr):
            changes = {f.name: fix(getattr(v, f.name)) for f in dataclasses.fields(v) if f.name != "line"}
            return dataclasses.replace(v, line=line + max(v.line, 1) - 1, **changes)
        if isinstance(v, tuple):
            return tuple(fix(x) for x in v)
        return v

    return fix(ex)  # type: ignore[no-any-return]


def parse_template(text: str, filename: str, line: int) -> E.Expr:
    """Split a template string (heredoc body, JSON string) into literals and interpolations."""
    parts: list[str | E.Expr] = []
    i = 0
    buf: list[str] = []
    n = len(text)
    while i < n:
        if text.startswith("$${", i) or text.startswith("%%{", i):
            buf.append(text[i + 1:i + 3])
            i += 3
            continue
        if text.startswith("%{", i):
            raise DiagnosticsError([error("Unsupported template directive",
                                          "Template directives (%{if}, %{for}) are not supported yet.",
                                          SourceRange(filename, line))])
        if text.startswith("${", i):
            end = _match_brace(text, i + 2)
            if end < 0:
                raise DiagnosticsError([error("Unterminated template interpolation",
                                              "A ${ sequence has no matching }.",
                                              SourceRange(filename, line))])
            if buf:
                parts.append("".join(buf))
                buf = []
            inner_line = line + text.count("\n", 0, i)
            parts.append(parse_expression(text[i + 2:end].strip(), filename, inner_line))
            i = end + 1
            continue
        buf.append(text[i])
        i += 1
    if buf:
        parts.append("".join(buf))
    return _template(line, parts)


def _match_brace(text: str, start: int) -> int:
    depth = 0
    i = start
    in_str = False
    while i < len(text):
        c = text[i]
        if in_str:
            if c == "\\":
                i += 2
                continue
            if c == '"':
                in_str = False
        elif c == '"':
            in_str = True
        elif c == "{":
            depth += 1
        elif c == "}":
            if depth == 0:
                return i
            depth -= 1
        i += 1
    return -1
