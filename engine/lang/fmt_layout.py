"""hclwrite's layout passes over a token sequence (hclwrite/format.go), and the tokens they work on.

Formatting changes only the spaces before each token: the indentation of a line by its net bracket
count, the spaces between two tokens by their kinds, then the alignment of ``=`` in runs of lines
that assign a single-line value and of the comments that end lines. A heredoc's body sits inside
one line's tokens, so its lines keep their bytes.
"""

from __future__ import annotations

import unicodedata

# Token kinds, named after hclsyntax's.
IDENT, NUMBER, NEWLINE, COMMENT = "Ident", "NumberLit", "Newline", "Comment"
OQUOTE, CQUOTE, QUOTEDLIT, STRINGLIT = "OQuote", "CQuote", "QuotedLit", "StringLit"
OHEREDOC, CHEREDOC = "OHeredoc", "CHeredoc"
INTERP, CONTROL, SEQEND = "TemplateInterp", "TemplateControl", "TemplateSeqEnd"
OBRACE, CBRACE, OBRACK, CBRACK, OPAREN, CPAREN = "OBrace", "CBrace", "OBrack", "CBrack", "OParen", "CParen"
DOT, COMMA, ELLIPSIS, EQUAL, COLON, QUESTION, MINUS, STAR = (
    "Dot", "Comma", "Ellipsis", "Equal", "Colon", "Question", "Minus", "Star")
NIL = "Nil"

PUNCTUATION = {  # tree-sitter-hcl's operator and punctuation leaves -> token kinds
    "{": OBRACE, "}": CBRACE, "[": OBRACK, "]": CBRACK, "(": OPAREN, ")": CPAREN, ".": DOT, ",": COMMA,
    "...": ELLIPSIS, "ellipsis": ELLIPSIS, "=": EQUAL, ":": COLON, "?": QUESTION, "-": MINUS, "*": STAR,
    "+": "Plus", "/": "Slash", "%": "Percent", "==": "EqualOp", "!=": "NotEqual", ">": "GreaterThan",
    ">=": "GreaterThanEq", "<": "LessThan", "<=": "LessThanEq", "&&": "And", "||": "Or", "!": "Bang",
    "=>": "FatArrow",
}
_NEGATION_BEFORE = frozenset({
    NIL, OPAREN, OBRACE, OBRACK, EQUAL, COLON, COMMA, QUESTION, "Plus", STAR, "Slash", "Percent", MINUS,
    "EqualOp", "NotEqual", "GreaterThan", "GreaterThanEq", "LessThan", "LessThanEq", "And", "Or", "Bang"})
_OPENERS = frozenset({OBRACE, OBRACK, OPAREN, CONTROL, INTERP})
_CLOSERS = frozenset({CBRACE, CBRACK, CPAREN, SEQEND})


class Token:
    """One token: its kind, its bytes (text) and the spaces the formatter puts before it."""

    __slots__ = ("kind", "text", "spaces", "start", "end")

    def __init__(self, kind: str, text: str, start: int = -1, end: int = -1) -> None:
        self.kind, self.text, self.spaces, self.start, self.end = kind, text, 0, start, end

    def __repr__(self) -> str:
        return f"Token({self.kind}, {self.text!r}, {self.spaces})"


_NIL_TOKEN = Token(NIL, "")


class _Line:
    __slots__ = ("lead", "assign", "comment")

    def __init__(self, lead: list[Token]) -> None:
        self.lead = lead
        self.assign: list[Token] | None = None
        self.comment: list[Token] | None = None


def ends_line(t: Token) -> bool:
    """A newline, or a line comment, which holds the newline that ends it."""
    return t.kind == NEWLINE or (t.kind == COMMENT and t.text.endswith("\n"))


def bracket_change(t: Token) -> int:
    """+1 for an opening bracket (``${`` and ``%{`` too), -1 for a closing one, else 0."""
    return 1 if t.kind in _OPENERS else -1 if t.kind in _CLOSERS else 0


def _columns(ts: list[Token] | None) -> int:
    if not ts:
        return 0
    return sum(t.spaces + _width(t.text) for t in ts)


def _width(text: str) -> int:
    """Grapheme clusters, approximated as code points that are not combining marks."""
    if text.isascii():
        return len(text)
    return sum(1 for ch in text if not unicodedata.combining(ch))


def _lines(tokens: list[Token]) -> list[_Line]:
    lines: list[_Line] = []
    start = 0
    for i, t in enumerate(tokens):
        if ends_line(t):
            lines.append(_Line(tokens[start:i + 1]))
            start = i + 1
    lines.append(_Line(tokens[start:]))
    for line in lines:
        if not line.lead:
            continue
        # a heredoc's body is inside one line's tokens here: its lines keep their bytes
        if len(line.lead) > 1 and line.lead[-1].kind == COMMENT:
            line.comment = line.lead[-1:]
            line.lead = line.lead[:-1]
        for i, t in enumerate(line.lead):
            if i > 0 and t.kind == EQUAL:
                if sum(bracket_change(x) for x in line.lead[i:]) == 0:
                    line.assign = line.lead[i:]
                    line.lead = line.lead[:i]
                break
    return lines


def layout(tokens: list[Token]) -> None:
    """Sets every token's ``spaces`` as hclwrite's ``format`` does."""
    lines = _lines(tokens)
    _indent(lines)
    _spaces(lines)
    _cells(lines)


def _indent(lines: list[_Line]) -> None:
    indents: list[int] = []
    for line in lines:
        if not line.lead:
            continue
        if line.lead[0].kind == NEWLINE:
            line.lead[0].spaces = 0
            continue
        net = 0
        for t in line.lead:
            net += bracket_change(t)
            if t.kind == OHEREDOC:
                break
        for t in line.assign or ():
            net += bracket_change(t)
        if net > 0:
            line.lead[0].spaces = 2 * len(indents)
            indents.append(net)
            continue
        closed = -net
        while closed > 0 and indents:
            if closed > indents[-1]:
                closed -= indents.pop()
            elif closed < indents[-1]:
                indents[-1] -= closed
                closed = 0
            else:
                indents.pop()
                closed = 0
        line.lead[0].spaces = 2 * len(indents)


def _spaces(lines: list[_Line]) -> None:
    for line in lines:
        for cell, first in ((line.lead, False), (line.assign, True)):
            if not cell:
                continue
            if first:
                cell[0].spaces = 1
            for i, t in enumerate(cell):
                before = cell[i - 1] if i > 0 else _NIL_TOKEN
                after = cell[i + 1] if i + 1 < len(cell) else _NIL_TOKEN
                after.spaces = 1 if _space_after(t, before, after) else 0
    _NIL_TOKEN.spaces = 0


def _cells(lines: list[_Line]) -> None:
    chain: list[_Line] = []

    def close_assign() -> None:
        widest = max(_columns(c.lead) for c in chain)
        for c in chain:
            assert c.assign is not None
            c.assign[0].spaces = widest - _columns(c.lead) + 1
        chain.clear()

    for line in lines:
        if line.assign is None:
            if chain:
                close_assign()
        else:
            chain.append(line)
    if chain:
        close_assign()

    def close_comment() -> None:
        widest = max(_columns(c.lead) + _columns(c.assign) for c in chain)
        for c in chain:
            assert c.comment is not None
            c.comment[0].spaces = widest - _columns(c.lead) - _columns(c.assign) + 1
        chain.clear()

    for line in lines:
        if line.comment is None:
            if chain:
                close_comment()
        else:
            chain.append(line)
    if chain:
        close_comment()


def _space_after(subject: Token, before: Token, after: Token) -> bool:  # noqa: PLR0911 (hclwrite's rules, in its order)
    s, a = subject.kind, after.kind
    if a in (NEWLINE, NIL):
        return False
    if s == IDENT and a == OPAREN:
        return False
    if s == DOT or a == DOT:
        return False
    if a in (COMMA, ELLIPSIS):
        return False
    if s == COMMA:
        return True
    if s in (QUOTEDLIT, STRINGLIT, OQUOTE, OHEREDOC) or a in (QUOTEDLIT, STRINGLIT, CQUOTE, CHEREDOC):
        return False
    if s == "Bang":
        return False
    if s == IDENT and subject.text == "in" and before.kind == IDENT:
        return True
    if a == OBRACK and (s in (IDENT, NUMBER) or bracket_change(subject) < 0):
        return False
    if s == MINUS:
        return before.kind not in _NEGATION_BEFORE
    if s == OBRACE or a == CBRACE:
        return not (s == OBRACE and a == CBRACE)
    if s in (INTERP, CONTROL) and a == OBRACE:
        return True
    if s == CBRACE and a == SEQEND:
        return True
    if s == SEQEND and a == INTERP:
        return False
    if bracket_change(subject) > 0:
        return False
    if bracket_change(after) < 0:
        return False
    return True
