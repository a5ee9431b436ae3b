"""terraform's canonical layout of a configuration file (``terraform fmt``), byte for byte.

The source is parsed with tree-sitter's HCL grammar and flattened into the token sequence hclwrite
formats: every byte of the file belongs to exactly one token (template literals, heredoc bodies and
comments keep theirs), and formatting only changes the spaces *between* tokens. The passes
(engine.lang.fmt_layout) are hclwrite's: indentation by bracket count per line, spaces between tokens by their kinds, then the
vertical alignment of ``=`` in runs of single-line attributes and of trailing comments. Before that,
terraform's own clean-ups: ``"${x}"`` becomes ``x``, a variable's legacy ``type = "string"`` becomes
``string`` and a bare ``list`` ``list(any)``, and block labels are quoted.

Invariant: ``format_source`` changes whitespace only, except for those clean-ups; a file it
refuses (a syntax error) is reported as a :class:`SyntaxProblem` and never rewritten.
"""

from __future__ import annotations

import functools
from typing import Any

from engine.diagnostics import StrataError
from engine.frozen import frozen
from engine.lang.fmt_layout import (
    CBRACK,
    CHEREDOC,
    COMMENT,
    CONTROL,
    CPAREN,
    CQUOTE,
    DOT,
    IDENT,
    INTERP,
    NEWLINE,
    NUMBER,
    OBRACK,
    OHEREDOC,
    OPAREN,
    OQUOTE,
    PUNCTUATION,
    QUOTEDLIT,
    SEQEND,
    STAR,
    STRINGLIT,
    Token,
    bracket_change,
    ends_line,
    layout,
)


@frozen
class SyntaxProblem:
    """Where the file stops being HCL (1-based line and column), and what was found there."""

    line: int
    column: int
    summary: str
    detail: str


@functools.cache
def _parser() -> Any:
    import tree_sitter
    import tree_sitter_hcl

    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_hcl.language()))


def format_source(text: str) -> str:
    """``text`` laid out as ``terraform fmt`` lays it out. Raises :class:`FormatError` on a syntax error."""
    src = text.encode()
    tree = _parser().parse(src)
    problem = syntax_problem(tree.root_node, src)
    if problem is not None:
        raise FormatError(problem)
    tokenizer = _Tokenizer(src)
    tokens = tokenizer.run(tree.root_node)
    if tokenizer.problem is not None:
        raise FormatError(tokenizer.problem)
    index = _TokenIndex(tokens)
    problem = _broken_argument(tree.root_node, src, index)
    if problem is not None:
        raise FormatError(problem)
    _cleanup(tree.root_node, index)
    layout(tokens)
    # the spaces after the last line are hclwrite's end-of-file token's, which no pass touches
    tail = len(src) - len(src.rstrip(b" \t"))
    last_end = max((t.end for t in tokens), default=0)
    kept = " " * tail if tail and len(src) - tail >= last_end else ""
    return "".join(" " * t.spaces + t.text for t in tokens) + kept


class FormatError(StrataError):
    """The file is not HCL: fmt reports ``problem`` as a diagnostic and leaves the file alone."""

    def __init__(self, problem: SyntaxProblem) -> None:
        super().__init__(f"{problem.line}:{problem.column}: {problem.summary}")
        self.problem = problem


_UNCLOSED = ("Unclosed configuration block",
             "There is no closing brace for this block before the end of the file. This may be caused by "
             "incorrect brace nesting elsewhere in this file.")
_INVALID = ("Invalid expression", "Expected the start of an expression, but found an invalid expression token.")


def syntax_problem(root: Any, src: bytes) -> SyntaxProblem | None:
    """The first place tree-sitter could not parse, or None: a block without its closing brace is
    reported at its opening line, as terraform does; otherwise the first token the parser had to
    invent or skip."""
    if not root.has_error:
        return None
    node = _first_error(root)
    leaves = list(_leaves(node))
    opens = [leaf for leaf in leaves if leaf.type == "{" and leaf.end_byte > leaf.start_byte]
    closes = [leaf for leaf in leaves if leaf.type == "}" and leaf.end_byte > leaf.start_byte]
    invented = [leaf for leaf in leaves if leaf.end_byte == leaf.start_byte or leaf.type == "ERROR"]
    if node.is_missing and node.type == "}" or (not invented and len(opens) > len(closes)):
        at = opens[len(closes)] if opens and not node.is_missing else node
        if node.is_missing:
            block = node.parent
            while block is not None and block.type not in ("block", "object"):
                block = block.parent
            at = block or node
        row, col = at.start_point
        return SyntaxProblem(row + 1, col + 1, *_UNCLOSED)
    at = invented[0] if invented else node
    row, col = at.start_point
    return SyntaxProblem(row + 1, col + 1, *_INVALID)


def _body_items(root: Any) -> Any:
    """Every attribute and block of the file, nested ones too, in order, each with the types of
    the blocks it is in (an explicit stack: blocks may nest thousands deep)."""
    stack: list[tuple[Any, tuple[str, ...]]] = [(root, ())]
    while stack:
        node, blocks = stack.pop()
        if node.type == "attribute":
            yield node, blocks
            continue
        inner = blocks
        if node.type == "block":
            yield node, blocks
            inner = (*blocks, node.children[0].text.decode())
        stack.extend((c, inner) for c in reversed(node.children) if c.type in ("body", "block", "attribute"))


def _broken_argument(root: Any, src: bytes, index: _TokenIndex) -> SyntaxProblem | None:
    """An argument whose expression goes on to the next line outside any bracket: tree-sitter's
    grammar reads ``a = x &&`` NEWLINE ``y`` as one expression, HCL ends the argument at the newline."""
    for node, _ in _body_items(root):
        if node.type != "attribute":
            continue
        span = index.span(node.children[-1])
        if span is None:
            continue
        depth = 0
        for t in index.tokens[span[0]:span[1]]:
            depth += bracket_change(t)
            if depth == 0 and ends_line(t) and t.start >= 0:
                line = src.count(b"\n", 0, t.start) + 1
                return SyntaxProblem(line, 1, *_INVALID)
    return None


def _first_error(node: Any) -> Any:
    while True:
        if node.is_missing:
            return node
        inner = [c for c in node.children if c.has_error or c.is_missing]
        if not inner:
            return node
        node = inner[0]
        if node.type == "ERROR" and not any(c.has_error or c.is_missing for c in node.children):
            return node


def _leaves(root: Any) -> Any:
    stack = [root]
    while stack:
        node = stack.pop()
        if node.child_count == 0:
            yield node
        stack.extend(reversed(node.children))


class _Tokenizer:
    """Flattens the tree into hclwrite's token sequence, by byte offsets: the text between two
    leaves is whitespace (newlines become tokens) in code, and literal text inside a template."""

    def __init__(self, src: bytes) -> None:
        self.src = src
        self.out: list[Token] = []
        self.modes: list[str] = []  # "quoted" | "heredoc" | "code" (inside ${ } or %{ })
        self.pos = 0
        self.heredoc_open = False
        self.problem: SyntaxProblem | None = None
        """The first mistake tree-sitter's grammar lets through (HCL's scanner refuses it)."""

    def _refuse(self, at: int, summary: str, detail: str) -> None:
        if self.problem is None:
            line = self.src.count(b"\n", 0, at) + 1
            column = at - (self.src.rfind(b"\n", 0, at) + 1) + 1
            self.problem = SyntaxProblem(line, column, summary, detail)

    def text(self, a: int, b: int) -> str:
        return self.src[a:b].decode()

    def run(self, root: Any) -> list[Token]:
        self._walk(root)
        self._gap(len(self.src))
        return self.out

    def _walk(self, root: Any) -> None:
        # with an explicit stack: configurations nest expressions thousands deep
        stack = [root]
        while stack:
            node = stack.pop()
            kind = node.type
            if kind == "legacy_index":  # `.0`: the digits are no leaf of their own
                self._gap(node.start_byte)
                self.pos = node.end_byte
                text = self.text(node.start_byte, node.end_byte)
                self.out.extend((Token(DOT, ".", node.start_byte, node.start_byte + 1),
                                 Token(NUMBER, text[1:].strip(), node.start_byte + 1, node.end_byte)))
            elif node.child_count == 0:
                if kind not in ("config_file", "body"):  # those: an empty file (whitespace at most)
                    self._leaf(node)
            elif kind == "comment":
                self._leaf(node)
            else:
                stack.extend(reversed(node.children))

    def _in_literal(self) -> bool:
        return bool(self.modes) and self.modes[-1] in ("quoted", "heredoc")

    def _gap(self, end: int) -> None:
        if end <= self.pos:
            return
        if not self.modes and not self.heredoc_open and self.src[self.pos:end].isspace() \
                and b"\n" not in self.src[self.pos:end] and b"\r" not in self.src[self.pos:end] \
                and not (self.out and self.out[-1].kind == CHEREDOC):
            self.pos = end  # spaces between two tokens of a line: the formatter decides them (hot path)
            return
        gap = self.text(self.pos, end)
        begin, self.pos = self.pos, end
        if self.heredoc_open:  # the newline ending a heredoc's opening line belongs to the opener
            nl = gap.find("\n") + 1
            if gap[:nl].rstrip("\r\n"):  # anything after the marker on its line
                self._refuse(begin, *_INVALID)
            self.out[-1].text += gap[:nl]
            self.out[-1].end = begin + len(gap[:nl].encode())
            self.heredoc_open = False
            gap, begin = gap[nl:], begin + len(gap[:nl].encode())
            if not gap:
                return
        if self._in_literal():
            self.out.append(Token(QUOTEDLIT if self.modes[-1] == "quoted" else STRINGLIT, gap, begin, end))
            return
        if self.out and self.out[-1].kind == CHEREDOC:  # spaces after a heredoc's end marker are its own
            marker = self.out[-1]
            rest = gap.lstrip(" \t")
            marker.text += gap[:len(gap) - len(rest)]
            begin += len(gap) - len(rest)
            gap = rest
        skip = False
        for i, ch in enumerate(gap):
            if skip:
                skip = False
                continue
            newline = "\r\n" if ch == "\r" and gap[i + 1:i + 2] == "\n" else "\n" if ch == "\n" else ""
            if ch == "\r" and not newline:
                self._refuse(begin + len(gap[:i].encode()), "Invalid character",
                             "This character is not used within the language.")
            if newline:
                skip = len(newline) == 2
                last = self.out[-1] if self.out else None
                if last is not None and last.kind == COMMENT and not last.text.endswith("\n") \
                        and not last.text.startswith("/*"):
                    last.text += newline
                else:
                    at = begin + len(gap[:i].encode())
                    self.out.append(Token(NEWLINE, newline, at, at + len(newline)))
            # other whitespace is dropped: the formatter decides the spaces

    def _leaf(self, node: Any) -> None:
        kind = node.type
        if self._in_literal() and kind not in (
                "template_interpolation_start", "template_directive_start", "quoted_template_end",
                "heredoc_identifier"):
            return  # part of the literal text, taken from the gap
        if self._in_literal() and kind == "heredoc_identifier" and self.modes[-1] != "heredoc":
            return
        self._gap(node.start_byte)
        text = self.text(node.start_byte, node.end_byte)
        self.pos = node.end_byte
        out = self.out
        n_before = len(out)
        if kind == "comment":
            out.append(Token(COMMENT, text))
        elif kind == "quoted_template_start":
            out.append(Token(OQUOTE, text))
            self.modes.append("quoted")
        elif kind == "quoted_template_end":
            out.append(Token(CQUOTE, text))
            self.modes.pop()
        elif kind == "template_interpolation_start":
            out.append(Token(INTERP, text))
            self.modes.append("code")
        elif kind == "template_directive_start":
            out.append(Token(CONTROL, text))
            self.modes.append("code")
        elif kind in ("template_interpolation_end", "template_directive_end"):
            out.append(Token(SEQEND, text))
            self.modes.pop()
        elif kind == "strip_marker":
            if out and out[-1].kind in (INTERP, CONTROL) and out[-1].text in ("${", "%{"):
                out[-1].text += text
            else:
                out.append(Token("Strip", text))  # joined to the closing brace below
        elif kind in ("<<", "<<-"):
            out.append(Token(OHEREDOC, text))
        elif kind == "heredoc_identifier":
            if self.modes and self.modes[-1] == "heredoc":
                out.append(Token(CHEREDOC, text))
                self.modes.pop()
            else:
                out[-1].text += text
                self.heredoc_open = True
                self.modes.append("heredoc")
        elif kind == "[*]":
            out.extend((Token(OBRACK, "["), Token(STAR, "*"), Token(CBRACK, "]")))
        elif kind == ".*":
            out.extend((Token(DOT, "."), Token(STAR, "*")))
        elif kind == "numeric_lit":
            out.append(Token(NUMBER, text))
        elif kind in PUNCTUATION:
            out.append(Token(PUNCTUATION[kind], text))
        else:
            out.append(Token(IDENT, text))
        if len(out) > n_before:
            out[n_before].start = node.start_byte
        out[-1].end = node.end_byte
        if len(out) >= 2 and out[-1].kind == SEQEND and out[-2].kind == "Strip":
            strip = out.pop(-2)
            out[-1].text = strip.text + out[-1].text
            out[-1].start = strip.start


# -- terraform's clean-ups (command/fmt.go: formatBody) ---------------------------------------------

def _cleanup(root: Any, index: _TokenIndex) -> None:
    """Rewrites, in place, the token ranges of the expressions terraform's fmt simplifies. Ranges
    are replaced from the end of the file backwards so that earlier ranges stay valid."""
    edits: list[tuple[int, int, list[Token]]] = []
    tokens = index.tokens
    _cleanup_body(root, index, edits)
    for start, end, new in sorted(edits, key=lambda e: -e[0]):
        tokens[start:end] = new


class _TokenIndex:
    """Token positions by the byte offsets of the source they came from."""

    def __init__(self, tokens: list[Token]) -> None:
        self.tokens = tokens
        self.starts: dict[int, int] = {}
        self.ends: dict[int, int] = {}
        for i, t in enumerate(tokens):
            self.starts.setdefault(t.start, i)
            self.ends[t.end] = i + 1

    def span(self, node: Any) -> tuple[int, int] | None:
        a, b = self.starts.get(node.start_byte), self.ends.get(node.end_byte)
        return None if a is None or b is None else (a, b)


def _cleanup_body(root: Any, index: _TokenIndex, edits: list[tuple[int, int, list[Token]]]) -> None:
    for node, blocks in _body_items(root):
        if node.type == "attribute":
            span = index.span(node.children[-1])
            if span is None:
                continue
            toks = index.tokens[span[0]:span[1]]
            is_type = blocks == ("variable",) and node.children[0].text == b"type"
            new = _type_expr(toks) if is_type else _value_expr(toks)
            if new is not toks:
                edits.append((span[0], span[1], new))
            continue
        for label in node.children[1:]:
            if label.type == "identifier":
                span = index.span(label)
                if span is not None:
                    edits.append((span[0], span[1], [Token(OQUOTE, '"'), Token(QUOTEDLIT, label.text.decode()),
                                                     Token(CQUOTE, '"')]))


def _value_expr(toks: list[Token]) -> list[Token]:
    if len(toks) < 5:
        return toks
    if (toks[0].kind, toks[1].kind, toks[-2].kind, toks[-1].kind) != (OQUOTE, INTERP, SEQEND, CQUOTE):
        return toks
    inside = toks[2:-2]
    quotes = 0
    for t in inside:
        if t.kind == OQUOTE:
            quotes += 1
        elif t.kind == CQUOTE:
            quotes -= 1
        elif quotes > 0:
            continue
        elif t.kind in (INTERP, CONTROL, SEQEND, QUOTEDLIT):
            return toks
    while inside and inside[0].kind == NEWLINE:
        inside = inside[1:]
    while inside and inside[-1].kind == NEWLINE:
        inside = inside[:-1]
    multi = any(t.kind == NEWLINE for t in inside)
    if multi and not (inside[0].kind == OPAREN and inside[-1].kind == CPAREN):
        return [Token(OPAREN, "("), *inside, Token(CPAREN, ")")]
    return inside


def _type_expr(toks: list[Token]) -> list[Token]:
    if len(toks) == 1 and toks[0].kind == IDENT and toks[0].text in ("list", "map", "set"):
        return [toks[0], Token(OPAREN, "("), Token(IDENT, "any"), Token(CPAREN, ")")]
    if len(toks) == 3 and (toks[0].kind, toks[1].kind, toks[2].kind) == (OQUOTE, QUOTEDLIT, CQUOTE):
        word = toks[1].text
        if word == "string":
            return [Token(IDENT, "string")]
        if word in ("list", "map"):
            return [Token(IDENT, word), Token(OPAREN, "("), Token(IDENT, "string"), Token(CPAREN, ")")]
    return toks

