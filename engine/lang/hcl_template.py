"""Templates of the native syntax: quoted strings and heredocs, with interpolations (``${ }``),
directives (``%{ if }``/``%{ else }``/``%{ endif }``, ``%{ for }``/``%{ endfor }``) and the ``~``
strip markers, converted to :mod:`engine.lang.expr` nodes.

The literal text of a template is read from the source between the grammar's interpolation
and directive nodes, never from its ``template_literal`` nodes: the grammar drops whitespace
next to them as insignificant, and in a template every space counts. Escapes are resolved here
(``\\n``, ``\\uNNNN``, ``$${``, ``%%{``); the strip markers trim the literal beside them, across
directive boundaries, as HCL does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine.lang import expr as E
from engine.lang.hcl_tree import SyntaxFail

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Protocol

    from tree_sitter import Node

    from engine.lang.hcl_tree import Source

    Pending = tuple[list[Any], Callable[[list[Any]], Any]]

    class Converter(Protocol):
        """What a template needs of the converter it is built for (engine.lang.hcl_ast's)."""

        src: Source

        def line(self, n: Node) -> int: ...

        def pos(self, n: Node) -> tuple[int, int, int]: ...

        def text(self, n: Node) -> str: ...

_MARKERS = frozenset({"template_interpolation", "template_if_intro", "template_else_intro",
                      "template_if_end", "template_for_start", "template_for_end"})
_DESCEND = frozenset({"template_directive", "template_if", "template_for"})
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\"}
_WS = " \t\n\r"


class TemplateBuilder:
    """Builds templates for a :class:`~engine.lang.hcl_ast.Converter` (which runs the
    expressions inside them)."""

    def __init__(self, conv: Converter) -> None:
        self.conv = conv

    # ------------------------------------------------------------------ entry points

    def quoted(self, n: Node) -> Any:
        first, last = n.child(0), n.child(n.child_count - 1)
        assert first is not None and last is not None
        start, end = first.end_byte, last.start_byte
        if n.child_count == 3 and n.children[1].type == "template_literal" or n.child_count == 2:
            # hot path: a plain string
            return E.Literal(self.conv.line(n), self.literal(start, end, n, quoted=True))
        return self.template(n, start, end, quoted=True, line=self.conv.line(n))

    def heredoc(self, n: Node) -> Any:
        idents = [c for c in n.children if c.type == "heredoc_identifier"]
        start_node = n.child(0)
        assert start_node is not None
        data = self.conv.src.data
        start = data.find(b"\n", idents[0].end_byte) + 1
        end = data.rfind(b"\n", 0, idents[-1].start_byte) + 1 if len(idents) > 1 else start
        flush = self.conv.text(start_node) == "<<-"
        return self.template(n, start, max(start, end), quoted=False, line=self.conv.line(n) + 1, flush=flush)

    def standalone(self, n: Node, end: int) -> Any:
        """A template file's text, wrapped by the caller as a heredoc whose content ends at
        ``end`` (before the line break the wrapping added)."""
        idents = [c for c in n.children if c.type == "heredoc_identifier"]
        start = self.conv.src.data.find(b"\n", idents[0].end_byte) + 1
        return self.template(n, start, max(start, end), quoted=False, line=self.conv.line(n) + 1)

    # ------------------------------------------------------------------ the template

    def template(self, n: Node, start: int, end: int, quoted: bool, line: int, flush: bool = False) -> Pending:
        """A template's parts. As in HCL, a heredoc's literal text is one piece per line: a strip
        marker trims only the piece beside it, and an indented heredoc (``flush``) loses the
        indentation its lines share after the strip markers have done their work."""
        conv = self.conv
        markers: list[Node] = []
        stack = list(reversed(n.children))
        while stack:  # the markers in source order (directives nest: no recursion)
            c = stack.pop()
            if c.type in _MARKERS:
                markers.append(c)
            elif c.type in _DESCEND:
                stack.extend(reversed(c.children))
        # elements: literal text, or (kind, node, strip_left, strip_right, child index, names)
        elems: list[Any] = []
        children: list[Any] = []
        pos = start

        def literal(a: int, b: int, at: Node) -> None:
            text = self.literal(a, b, at, quoted)
            if quoted or "\n" not in text:
                elems.append(text)
            else:
                lines = text.split("\n")
                elems.extend(x + "\n" for x in lines[:-1])
                if lines[-1]:
                    elems.append(lines[-1])

        for m in markers:
            literal(pos, m.start_byte, m)
            pos = m.end_byte
            kids = m.children
            left = right = False
            names: list[str] = []
            index = -1
            for k in kids:
                if k.type == "strip_marker":
                    if k.start_byte == kids[0].end_byte:
                        left = True
                    else:
                        right = True
                elif k.type == "expression":
                    index = len(children)
                    children.append(k)
                elif k.type == "identifier":
                    names.append(conv.text(k))
            elems.append((m.type, m, left, right, index, names))
        literal(pos, end, n)
        for i, el in enumerate(elems):  # strip markers trim the literal text beside them
            if isinstance(el, tuple):
                if el[2] and isinstance(elems[i - 1], str):
                    elems[i - 1] = elems[i - 1].rstrip(_WS)
                if el[3] and isinstance(elems[i + 1], str):
                    elems[i + 1] = elems[i + 1].lstrip(_WS)
        if flush:
            _flush(elems)
        return children, lambda v: _structure(elems, v, line, conv.line)

    def literal(self, start: int, end: int, at: Node, quoted: bool) -> str:
        """The text of ``[start, end)`` with its escapes resolved."""
        if start >= end:
            return ""
        raw = self.conv.src.text(start, end)
        if quoted:
            return self.unescape(raw, at, start)
        if "$${" in raw or "%%{" in raw:
            raw = raw.replace("$${", "${").replace("%%{", "%{")
        return raw

    def unescape(self, s: str, at: Node, start: int = -1) -> str:
        """A quoted string's literal text with its escapes resolved, as HCL's: ``\\n \\r \\t \\"
        \\\\``, ``\\uNNNN``, ``\\UNNNNNNNN``, ``$${`` and ``%%{``; anything else is terraform's
        "Invalid escape sequence". A raw line break is "Invalid multi-line string"."""
        def where(i: int) -> tuple[int, int, int]:
            line, col, byte = self.conv.pos(at)
            if start < 0:
                return line, col, byte
            offset = len(self.conv.src.data[at.start_byte:start].decode("utf-8", "replace")) + i
            return line, col + offset, start + len(s[:i].encode())

        if "\r" in s or "\n" in s:
            raise SyntaxFail("Invalid multi-line string",
                             "Quoted strings may not be split over multiple lines. To produce a multi-line "
                             "string, either use the \\n escape to represent a newline character or use the "
                             '"heredoc" multi-line template syntax.', *where(min(
                                 i for i in (s.find("\r"), s.find("\n")) if i >= 0)))
        if "$${" in s or "%%{" in s:
            s = s.replace("$${", "${").replace("%%{", "%{")
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
                    raise SyntaxFail("Invalid escape sequence",
                                     f"The \\{n} escape sequence must be followed by "
                                     f"{'four' if width == 4 else 'eight'} hexadecimal digits.",
                                     *where(i))
                code = int(digits, 16)
                if 0xD800 <= code <= 0xDFFF or code > 0x10FFFF:
                    raise SyntaxFail("Invalid escape sequence", f"Cannot encode character U+{code:x} in UTF-8.",
                                     *where(i))
                out.append(chr(code))
                i += 2 + width
                continue
            raise SyntaxFail("Invalid escape sequence",
                             f'The symbol "{n}" is not a valid escape sequence selector.', *where(i))
        return "".join(out)


def _flush(elems: list[Any]) -> None:
    """An indented heredoc's common indentation taken off its lines, as HCL's
    flushHeredocTemplateParts: counted at the start of each line (a line starting with an
    interpolation or directive counts as unindented; a blank line does not count)."""
    least = 1 << 30
    adjust: list[int] = []
    newline = True
    for i, el in enumerate(elems):
        is_text = isinstance(el, str)
        if newline:
            newline = False
            if is_text:
                rest = el.lstrip()
                if rest or not el.endswith("\n"):
                    least = min(least, len(el) - len(rest))
                    adjust.append(i)
            else:
                least = 0
        if is_text and el.endswith("\n"):
            newline = True
    if least and adjust:
        for i in adjust:
            elems[i] = elems[i][least:]


def _structure(elems: list[Any], v: list[Any], line: int, line_of: Any) -> E.Expr:
    """The template of ``elems`` with its directives nested (a stack of open directives, so
    nesting depth costs no recursion)."""
    # a frame: [kind, parts, line, extra]; for "if": extra = [cond, then-parts or None]
    frames: list[list[Any]] = [["root", [], line, None]]
    for el in elems:
        if isinstance(el, str):
            if el:
                frames[-1][1].append(el)
            continue
        kind, node, _, _, index, names = el
        at = line_of(node)
        if kind == "template_interpolation":
            if index >= 0:
                frames[-1][1].append(v[index])
        elif kind == "template_if_intro":
            frames.append(["if", [], at, [v[index], None]])
        elif kind == "template_else_intro":
            frames[-1][3][1] = frames[-1][1]
            frames[-1][1] = []
        elif kind == "template_for_start":
            key_var, value_var = (names[0], names[1]) if len(names) == 2 else (None, names[0])
            frames.append(["for", [], at, (key_var, value_var, v[index])])
        elif kind == "template_if_end":
            _, parts, if_line, (cond, then_parts) = frames.pop()
            true: E.Expr = template_of(if_line, parts if then_parts is None else then_parts)
            false: E.Expr = E.Literal(if_line, "") if then_parts is None else template_of(if_line, parts)
            frames[-1][1].append(E.TemplateIf(if_line, cond, true, false))
        elif kind == "template_for_end":
            _, parts, for_line, (key_var, value_var, coll) = frames.pop()
            frames[-1][1].append(E.TemplateFor(for_line, key_var, value_var, coll, template_of(for_line, parts)))
    return template_of(line, frames[0][1])


def template_of(line: int, parts: list[str | E.Expr]) -> E.Expr:
    """A template of ``parts``: adjacent literals merged; ``""`` alone a literal; one
    interpolation alone its expression, unconverted (``"${x}"`` is ``x`` itself, as in HCL)."""
    merged: list[str | E.Expr] = []
    for p in parts:
        if isinstance(p, str):
            if not p:
                continue
            if merged and isinstance(merged[-1], str):
                merged[-1] = merged[-1] + p
                continue
        merged.append(p)
    if not merged:
        return E.Literal(line, "")
    if len(merged) == 1:
        only = merged[0]
        return E.Literal(line, only) if isinstance(only, str) else only
    return E.Template(line, tuple(merged))
