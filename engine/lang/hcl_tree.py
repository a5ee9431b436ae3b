"""The concrete syntax tree of a native-syntax (``.tf``) file, from tree-sitter's HCL grammar.

The grammar (tree-sitter-hcl) is compiled C: it parses a large configuration in a fraction of
the time a Python parser takes, and reports every error it finds in one pass (as ``ERROR`` and
``MISSING`` nodes) instead of raising at the first. It is newline-insensitive and groups
operators and conditionals its own way; :mod:`engine.lang.hcl_ast` and :mod:`engine.lang.hcl_errors`
restore HCL's rules on top of it.

The language object is built on first use, so importing this module costs almost nothing
(start-up matters: every ``strata`` run imports the parser, few of them parse).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.diagnostics import StrataError
from engine.frozen import frozen

if TYPE_CHECKING:
    from tree_sitter import Node, Parser, Tree

_PARSER: list[Parser] = []


def parse_tree(source: bytes) -> Tree:
    """The syntax tree of ``source`` (UTF-8); never raises for bad syntax (see ``has_error``)."""
    if not _PARSER:
        import tree_sitter
        import tree_sitter_hcl

        _PARSER.append(tree_sitter.Parser(tree_sitter.Language(tree_sitter_hcl.language())))
    return _PARSER[0].parse(source)


@frozen
class Source:
    """A file's text as bytes, with what positions need: a node's byte offset → (line, column),
    columns counted in characters as terraform counts them (bytes and characters agree on an
    ASCII line, the common case)."""

    filename: str
    data: bytes
    ascii: bool

    @staticmethod
    def of(text: str, filename: str) -> Source:
        data = text.encode("utf-8", "surrogatepass")
        return Source(filename, data, len(data) == len(text))

    def text(self, start: int, end: int) -> str:
        return self.data[start:end].decode("utf-8", "replace")

    def column(self, row: int, byte_col: int, byte: int) -> int:
        """The 1-based character column of the byte at ``byte`` (``byte_col`` bytes into its line)."""
        if self.ascii:
            return byte_col + 1
        line_start = byte - byte_col
        return len(self.data[line_start:byte].decode("utf-8", "replace")) + 1

    def line_text(self, row: int) -> str:
        lines = self.data.split(b"\n")
        return lines[row].decode("utf-8", "replace").rstrip("\r") if row < len(lines) else ""


class SyntaxFail(StrataError):
    """A mistake found while converting (a redefined argument, a bad escape): becomes one
    diagnostic at ``line``/``column``."""

    def __init__(self, summary: str, detail: str, line: int, column: int = 0, byte: int = 0) -> None:
        super().__init__(summary)
        self.summary = summary
        self.detail = detail
        self.line = line
        self.column = column
        self.byte = byte


def first_error(root: Node) -> Node | None:
    """The first ``ERROR`` or ``MISSING`` node in document order (None for a clean tree).
    Walked with a cursor, without recursion: a tree can be thousands of levels deep."""
    if not root.has_error:
        return None
    cursor = root.walk()
    while True:
        node = cursor.node
        assert node is not None
        if node.is_error or node.is_missing:
            return node
        if node.has_error and cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return None
