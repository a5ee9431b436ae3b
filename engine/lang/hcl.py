"""Reading ``.tf`` files (native HCL syntax) into blocks, attributes and expression trees.

A file written in HCL's plainest form (blocks of one-line arguments of plain values, the bulk of a
large generated configuration) is read from its lines by :mod:`engine.lang.hcl_lines`; any other
file goes through the syntax tree. The pipeline: :mod:`engine.lang.hcl_tree` parses the text with tree-sitter's compiled HCL grammar;
:mod:`engine.lang.hcl_errors` turns the grammar's errors, and HCL's newline rules it does not know,
into terraform's diagnostics; :mod:`engine.lang.hcl_ast` (with :mod:`engine.lang.hcl_template`
for strings and heredocs) converts the tree to :mod:`engine.lang.expr` nodes, iteratively, so any
nesting depth converts. ``.tf.json`` files are read by :mod:`engine.lang.hcl_json`, which uses
``parse_expression`` and ``parse_template`` from here.
"""

from __future__ import annotations

import re
from typing import Any

from engine.diagnostics import Diagnostic, DiagnosticsError, SourceRange, enclosing_block, error
from engine.lang import expr as E
from engine.lang.hcl_ast import MAX_NESTING, Attribute, Block, Converter
from engine.lang.hcl_errors import syntax_error
from engine.lang.hcl_lines import read_plain
from engine.lang.hcl_template import template_of
from engine.lang.hcl_tree import Source, SyntaxFail, parse_tree

__all__ = ["Attribute", "Block", "parse_hcl", "parse_hcl_body", "parse_expression", "parse_template", "tree_body"]


def _fail(exc: SyntaxFail, filename: str) -> DiagnosticsError:
    where = SourceRange(filename, exc.line, exc.column, exc.byte)
    return DiagnosticsError([error(exc.summary, exc.detail, where, context=enclosing_block(filename, exc.line))])


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
    if text.startswith("\ufeff"):  # a UTF-8 byte-order mark, which terraform skips
        text = text[1:]
    src = Source.of(text, filename)
    plain = read_plain(src.data, filename)
    if plain is not None:  # hot path: a file of the plainest form, read from its lines
        return plain
    return tree_body(src)


def tree_body(src: Source) -> tuple[dict[str, Attribute], list[Block]]:
    """``parse_hcl_body`` of any file, through tree-sitter's syntax tree."""
    filename = src.filename
    root = parse_tree(src.data).root_node
    if root.has_error:
        src, root = _with_fractions(src, root)
    if root.has_error:
        raise DiagnosticsError(syntax_error(root, src))
    body = next((c for c in root.named_children if c.type == "body"), None)
    if body is None:
        if any(c.type == "object" for c in root.named_children):
            raise DiagnosticsError([error("Argument or block definition required",
                                          "An argument or block definition is required here.",
                                          SourceRange(filename, 1, 1))])
        return {}, []
    conv = Converter(src)
    try:
        attrs, blocks = conv.run(body)
    except SyntaxFail as exc:
        raise _fail(exc, filename) from None
    if conv.deepest > MAX_NESTING:
        raise DiagnosticsError([error("Configuration nested too deeply",
                                      f"This file nests blocks or expressions more than {MAX_NESTING:,} levels "
                                      "deep, more than strata can evaluate.", SourceRange(filename, 1))])
    return attrs, blocks


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


_EXPONENT = re.compile(rb"(?<![\w.])([0-9]+)([eE][-+]?[0-9]+)(?![\w.])")


def _with_fractions(src: Source, root: Any) -> tuple[Source, Any]:
    """The grammar takes an exponent only after a fraction (``1.0e3``, not ``1e3``, which HCL
    allows): numbers written so outside strings and comments get a ``.0``, and the text is parsed
    again. (Columns after such a number on its line move by two; lines do not.)"""
    data = src.data
    if not _EXPONENT.search(data):
        return src, root
    out: list[bytes] = []
    pos = 0
    for m in _EXPONENT.finditer(data):
        node = root.descendant_for_byte_range(m.start(), m.start() + 1)
        inside = False
        while node is not None:
            if node.type in ("template_literal", "comment", "string_lit", "quoted_template", "heredoc_template"):
                inside = node.type not in ("quoted_template", "heredoc_template") or node.start_byte == m.start()
                break
            if node.type in ("template_interpolation", "template_directive"):
                break
            node = node.parent
        if inside:
            continue
        out.append(data[pos:m.end(1)] + b".0")
        pos = m.end(1)
    if not out:
        return src, root
    out.append(data[pos:])
    fixed = Source(src.filename, b"".join(out), src.ascii)
    return fixed, parse_tree(fixed.data).root_node


def parse_expression(src: str, filename: str, line: int) -> E.Expr:
    """Parse one expression from source text (an interpolation, a -var value) whose first line
    is ``line``. Line breaks are allowed anywhere in it, as in terraform's ParseExpression."""
    fast = _simple_traversal(src.strip(), line)
    if fast is not None:
        return fast
    source = Source.of(f"__x = (\n{src}\n)\n", filename)
    root = parse_tree(source.data).root_node
    if root.has_error:
        source, root = _with_fractions(source, root)
    if root.has_error:
        diags = syntax_error(root, source, line - 1)
        raise DiagnosticsError([error(d.summary, d.detail, SourceRange(filename, line)) for d in diags[:1]])
    try:
        attrs, _ = Converter(source, line_base=line - 1).run(root.named_children[0])
    except SyntaxFail as exc:  # its own summary and detail ("Invalid escape sequence", ...)
        raise DiagnosticsError([error(exc.summary, exc.detail, SourceRange(filename, line))]) from None
    return attrs["__x"].expr  # type: ignore[no-any-return]


_MARKER = "STRATA_TEMPLATE_END_7f3a"
_PLAIN_INTERPOLATION = re.compile(r"\$\{([^{}\"%$~\n]*)\}")


def _simple_template(text: str, filename: str, line: int) -> E.Expr | None:
    """A template of text and plain ``${ref}`` interpolations built without the parser (a
    generated .tf.json file holds thousands of such strings); None for anything else."""
    if "$${" in text or "%" in text or "\\" in text:
        return None
    parts: list[str | E.Expr] = []
    pos = 0
    for m in _PLAIN_INTERPOLATION.finditer(text):
        ref = _simple_traversal(m.group(1).strip(), line + text.count("\n", 0, m.start()))
        if ref is None:
            return None
        parts.append(text[pos:m.start()])
        parts.append(ref)
        pos = m.end()
    parts.append(text[pos:])
    if "${" in text[pos:] or any(isinstance(p, str) and "${" in p for p in parts):
        return None
    return template_of(line, parts)


def parse_template(text: str, filename: str, line: int = 1) -> E.Expr:
    """A template (a ``templatefile`` file, a ``.tf.json`` string) as an expression: literal text,
    interpolations and directives, with the lines of ``text`` counted from ``line``. Its value is
    a string, except that a template of one interpolation alone is that expression's value."""
    if "${" not in text and "%{" not in text:  # hot path: plain text
        return E.Literal(line, text)
    simple = _simple_template(text, filename, line)
    if simple is not None:
        return simple
    # parsed as the body of a heredoc (the grammar has no rule for a template alone), whose
    # closing marker the text cannot contain
    marker = _MARKER
    while re.search(rf"^\s*{marker}\s*$", text, re.M):
        marker += "_"
    source = Source.of(f"__x = <<{marker}\n{text}\n{marker}\n", filename)
    root = parse_tree(source.data).root_node
    if root.has_error:
        raise DiagnosticsError(syntax_error(root, source, line - 1))
    conv = Converter(source, line_base=line - 1)
    node = root.named_children[0].named_children[0].named_children[-1]  # the attribute's expression
    while node.type != "heredoc_template":
        node = node.named_children[0]
    content_end = len(source.data) - len(marker) - 2
    try:
        return conv.run(lambda: conv.templates.standalone(node, content_end))  # type: ignore[no-any-return]
    except SyntaxFail as exc:
        raise _fail(exc, filename) from None
