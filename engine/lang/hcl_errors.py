"""Syntax errors of the native syntax, in terraform's words.

Two sources: the grammar's own ``ERROR``/``MISSING`` nodes, classified by where they are (a body,
an expression, a template) into terraform's summaries; and HCL's newline rules, which the grammar
does not know (it treats a line break as any other space): an argument ends at the end of its
line, a block's header is one line, a block opened and given an argument on one line is closed on
it too. Each check raises :class:`~engine.lang.hcl_tree.SyntaxFail` at the position terraform
names.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from engine.diagnostics import Diagnostic, SourceRange, enclosing_block, error
from engine.lang.hcl_tree import Source, SyntaxFail, first_error

if TYPE_CHECKING:
    from tree_sitter import Node

_INVALID_EXPR = ("Invalid expression", "Expected the start of an expression, but found an invalid expression token.")
_DEFINITION = "An argument or block definition is required here."
_USE_EQUALS = ' To set an argument, use the equals sign "=" to introduce the argument value.'
_ATOMIC = frozenset({"tuple", "object", "for_expr", "function_call", "template_expr", "new_index",
                     "string_lit", "heredoc_template", "quoted_template"})
_CONTINUES = frozenset({"+", "-", "*", "/", "%", "==", "!=", "<", ">", "<=", ">=", "&&", "||", "!",
                        "?", ":", ".", "=", ".*", "[*]"})


def at(src: Source, node: Node, end: bool = False, line_base: int = 1) -> tuple[int, int, int]:
    """``node``'s start (or end) as (line, column, byte)."""
    row, col = node.end_point if end else node.start_point
    byte = node.end_byte if end else node.start_byte
    return row + line_base, src.column(row, col, byte), byte


# --------------------------------------------------------------------------- newline rules


def check_body(items: list[Node], src: Source, base: int) -> None:
    """Each argument and block of a body starts on a line of its own."""
    for prev, item in zip(items, items[1:], strict=False):
        if item.start_point[0] == prev.end_point[0]:
            if prev.type == "attribute":
                raise SyntaxFail("Missing newline after argument", "An argument definition must end with a newline.",
                                 *at(src, item, line_base=base))
            raise SyntaxFail("Missing newline after block definition", "A block definition must end with a newline.",
                             *at(src, item, line_base=base))


def check_block(n: Node, items: list[Node], src: Source, base: int) -> None:
    """A block's header is one line; a block whose first argument is on its opening line is a
    single-line block: that one argument, closed on the same line."""
    start = end = None
    for c in n.children:
        if c.type == "block_start":
            start = c
        elif c.type == "block_end":
            end = c
    if start is None or end is None:
        return
    head_row = n.start_point[0]
    if start.start_point[0] != head_row:
        name = n.child(0)
        assert name is not None
        raise SyntaxFail("Argument or block definition required", _DEFINITION + _USE_EQUALS,
                         *at(src, name, line_base=base))
    if not items:
        return
    first, last = items[0], items[-1]
    if first.start_point[0] == start.end_point[0]:  # a single-line block
        if first.type == "block" or len(items) > 1 and items[1].type == "block":
            bad = first if first.type == "block" else items[1]
            name = bad.child(0)
            assert name is not None
            raise SyntaxFail("Argument definition required",
                             "A single-line block definition can contain only a single argument. If you "
                             f'meant to define argument "{src.text(name.start_byte, name.end_byte)}", use an '
                             "equals sign to assign it a value. To define a nested block, place it on a line "
                             "of its own within its parent block.", *at(src, bad, line_base=base))
        if len(items) > 1 or end.start_point[0] != first.end_point[0]:
            raise SyntaxFail("Invalid single-argument block definition",
                             "An argument definition on the same line as its containing block creates a "
                             "single-line block definition, which must also be closed on the same line. Place "
                             "the block's closing brace immediately after the argument definition.",
                             *at(src, first, end=True, line_base=base))
    elif end.start_point[0] == last.end_point[0]:
        if last.type == "attribute":
            raise SyntaxFail("Missing newline after argument", "An argument definition must end with a newline.",
                             *at(src, end, line_base=base))
        raise SyntaxFail("Missing newline after block definition", "A block definition must end with a newline.",
                         *at(src, end, line_base=base))


def check_expression_lines(expr: Node, src: Source, base: int, in_object: bool = False) -> None:
    """An expression outside brackets ends at the end of its line: a line break after an
    operator leaves it incomplete, one before an operator ends it (what follows is then the next
    argument). Brackets, parentheses, calls, templates and ``for`` expressions may span lines."""
    prev: Node | None = None
    stack = [expr]
    atom_next = False
    while stack:
        n = stack.pop()
        kind = n.type
        if kind == "comment":
            continue
        if atom_next or kind in _ATOMIC or n.child_count == 0:
            atom_next = kind == "("
            if prev is not None and n.start_point[0] > prev.end_point[0] and kind != ")":
                if prev.type == ".":
                    raise SyntaxFail("Invalid attribute name", "An attribute name is required after a dot.",
                                     *at(src, prev, end=True, line_base=base))
                if prev.type in _CONTINUES:
                    raise SyntaxFail(*_INVALID_EXPR, *at(src, prev, end=True, line_base=base))
                if in_object:
                    raise SyntaxFail(*_INVALID_EXPR, *at(src, n, line_base=base))
                raise SyntaxFail("Argument or block definition required", _DEFINITION,
                                 *at(src, n, line_base=base))
            prev = None if kind == "(" else n  # a line break just inside "(" is allowed
            continue
        stack.extend(reversed(n.children))


def check_attribute(n: Node, src: Source, base: int) -> None:
    """An argument's name, its ``=`` and the start of its expression are on one line."""
    name, eq, expr = n.child(0), n.child(1), n.child(n.child_count - 1)
    assert name is not None and eq is not None and expr is not None
    if eq.start_point[0] != name.end_point[0]:
        raise SyntaxFail("Argument or block definition required", _DEFINITION + _USE_EQUALS,
                         *at(src, name, line_base=base))
    if expr.start_point[0] != eq.end_point[0]:
        row, col, byte = at(src, eq, True, base)
        raise SyntaxFail(*_INVALID_EXPR, row, col + 1, byte + 1)
    if expr.start_point[0] != expr.end_point[0]:
        check_expression_lines(expr, src, base)


def check_object_separators(n: Node, src: Source, base: int) -> None:
    """Two items of an object on one line need a comma between them."""
    prev: Node | None = None
    for c in n.children:
        if c.type == "object_elem":
            if prev is not None and prev.type == "object_elem" and c.start_point[0] == prev.end_point[0]:
                raise SyntaxFail("Missing attribute separator",
                                 "Expected a newline or comma to mark the beginning of the next attribute.",
                                 *at(src, c, line_base=base))
            if c.start_point[0] != c.end_point[0]:
                for part in (c.child_by_field_name("key"), c.child_by_field_name("val")):
                    if part is not None and part.start_point[0] != part.end_point[0]:
                        check_expression_lines(part, src, base, in_object=True)
        if c.type != "comment":
            prev = c


# --------------------------------------------------------------------------- the grammar's errors


def syntax_error(root: Node, src: Source, base: int = 1) -> list[Diagnostic]:
    """terraform's diagnostics for a tree with errors (the first error; terraform too stops at
    the first in most cases)."""
    text = src.data.decode("utf-8", "replace")
    quoted = re.search(r'(?m)^([ \t]*)"(?:[^"\\\n]|\\.)*"[ \t]*=(?!=)', text)
    if quoted is not None:
        line = text.count("\n", 0, quoted.start()) + base
        return [error("Invalid argument name", "Argument names must not be quoted.",
                      SourceRange(src.filename, line, len(quoted.group(1)) + 1, quoted.start(1) + len(quoted.group(1))),
                      context=enclosing_block(src.filename, line))]
    depth_line = _template_too_deep(text)
    if depth_line:
        return [error("Templates nested too deeply",
                      f"A string template here nests more than {_TEMPLATE_DEPTH} levels of strings inside "
                      "interpolations, more than strata's parser (tree-sitter-hcl) can follow.",
                      SourceRange(src.filename, depth_line + base - 1))]
    found = _unterminated_string(text, src.filename, base)
    if found:
        return found
    directive = _directive_mismatch(text, src.filename, base)
    if directive is not None:
        return [directive]
    bad = first_error(root)
    if bad is None:
        return [error(*_INVALID_EXPR, SourceRange(src.filename, base))]
    if _at_end(bad, src):
        unclosed = _unclosed(text)
        if unclosed is None and re.search(r"=[ \t]*\Z", text):  # an argument cut off by the end of the file
            last = text.count("\n") + 1
            at_end = SourceRange(src.filename, last + base - 1, len(text) - text.rfind("\n"), len(src.data))
            return [error("Missing expression", "Expected the start of an expression, but found the end of "
                          "the file.", at_end, context=enclosing_block(src.filename, last + base - 1))]
        if unclosed is not None:
            line, col, char = unclosed
            where = SourceRange(src.filename, line + base - 1, col)
            ctx = enclosing_block(src.filename, line + base - 1)
            header = src.line_text(line - 1)[:col]
            if char == "(" or (char == "{" and not _BLOCK_HEADER.match(header)):
                # an object or a call left open: terraform reads on to the end of the file
                last = text.count("\n") + 1
                at_end = SourceRange(src.filename, last + base - 1, len(text) - text.rfind("\n"), len(src.data))
                return [error("Missing expression", "Expected the start of an expression, but found the end of "
                              "the file.", at_end, context=ctx)]
            if char == "{":
                return [error("Unclosed configuration block",
                              "There is no closing brace for this block before the end of the file. This may be "
                              "caused by incorrect brace nesting elsewhere in this file.", where, context=ctx)]
            if char == "[":
                return [error("Unterminated tuple constructor expression",
                              "There is no corresponding closing bracket before the end of the file. This may be "
                              "caused by incorrect bracket nesting elsewhere in this file.", where, context=ctx)]
            return [error("Unbalanced parentheses", "Expected a closing parenthesis to terminate the expression.",
                          where, context=ctx)]
    summary, detail, pos = _classify(bad, src, base)
    line = pos[0]
    return [error(summary, detail, SourceRange(src.filename, *pos), context=enclosing_block(src.filename, line))]


def _classify(bad: Node, src: Source, base: int) -> tuple[str, str, tuple[int, int, int]]:
    parent = bad.parent
    ptype = parent.type if parent is not None else ""
    if bad.is_missing:
        kind = bad.type
        nxt = _next_token(bad)
        where = at(src, nxt if nxt is not None else bad, line_base=base)
        if kind in ("]", "tuple_end"):
            return "Missing item separator", "Expected a comma to mark the beginning of the next item.", where
        if kind == ")" and ptype in ("function_call", "function_arguments"):
            return ("Missing argument separator",
                    "A comma is required to separate each function argument from the next.", where)
        if kind == ")":
            return "Unbalanced parentheses", "Expected a closing parenthesis to terminate the expression.", where
        if kind in ("}", "object_end"):
            return ("Missing attribute separator",
                    "Expected a newline or comma to mark the beginning of the next attribute.", where)
        return (*_INVALID_EXPR, where)
    if bad.type == "heredoc_identifier" and parent is not None and parent.child(0) is not None:
        opener = parent.child(0)
        assert opener is not None
        if opener.start_byte == opener.end_byte:  # the grammar's guess of a heredoc: no expression
            return (*_INVALID_EXPR, at(src, parent, line_base=base))
    kids = [c for c in bad.children if c.type != "comment"]
    before = bad.prev_sibling
    if before is not None and before.type == "body" and before.named_child_count:
        before = before.named_children[-1]
    if (kids and before is not None and before.type == "attribute"
            and before.end_point[0] == bad.start_point[0]):  # an argument's expression left incomplete
        op = kids[0]
        if op.type == ".":
            return "Invalid attribute name", "An attribute name is required after a dot.", at(src, op, True, base)
        if op.type == "?":
            return ("Missing false expression in conditional",
                    "The conditional operator (...?...:...) requires a false expression, delimited by a colon.",
                    at(src, bad, True, base))
        return (*_INVALID_EXPR, at(src, op, True, base))
    # skip what opens blocks and what is complete inside the error: the mistake is after them
    i = 0
    while i < len(kids):
        j = i
        if kids[j].type == "identifier":
            j += 1
            while j < len(kids) and kids[j].type in ("identifier", "string_lit"):
                j += 1
            if j < len(kids) and kids[j].type == "block_start":
                i = j + 1
                ptype = "body"
                continue
        if kids[i].type in ("attribute", "block", "body", "block_end"):
            i += 1
            continue
        break
    kids = kids[i:]
    first = kids[0] if kids else bad
    if ptype in ("body", "config_file", "block", ""):
        if first.type == "identifier":
            second = kids[1] if len(kids) > 1 else None
            if second is not None and second.type == "=":
                nxt = kids[2] if len(kids) > 2 else _next_token(bad)
                if nxt is not None and nxt.start_point[0] == second.end_point[0]:
                    return (*_INVALID_EXPR, at(src, nxt, line_base=base))
                row = second.end_point[0]
                line_end = src.line_text(row)
                return (*_INVALID_EXPR, (row + base, len(line_end.rstrip()) + 2, second.end_byte + 1))
            if second is not None and second.type == "(":
                return ("Unbalanced parentheses",
                        "Expected a closing parenthesis to terminate the expression.", at(src, bad, True, base))
            return "Argument or block definition required", _DEFINITION + _USE_EQUALS, at(src, first, line_base=base)
        if first.type in ("string_lit", "quoted_template", "literal_value") and len(kids) > 1 and kids[1].type == "=":
            return "Invalid argument name", "Argument names must not be quoted.", at(src, first, line_base=base)
        if first.type == "function_arguments" or first.type == "(":
            return ("Missing argument separator",
                    "A comma is required to separate each function argument from the next.", at(src, bad, True, base))
        return "Argument or block definition required", _DEFINITION, at(src, first, line_base=base)
    if ptype in ("tuple",):
        return "Missing item separator", "Expected a comma to mark the beginning of the next item.", at(src, bad, line_base=base)
    if ptype in ("object",):
        return ("Missing attribute separator",
                "Expected a newline or comma to mark the beginning of the next attribute.", at(src, bad, line_base=base))
    if first.type == ".":
        return "Invalid attribute name", "An attribute name is required after a dot.", at(src, first, True, base)
    return (*_INVALID_EXPR, at(src, bad, line_base=base))


def _next_token(n: Node) -> Node | None:
    while n is not None:
        sib = n.next_sibling
        if sib is not None:
            return sib
        parent = n.parent
        if parent is None:
            return None
        n = parent
    return None


def _at_end(bad: Node, src: Source) -> bool:
    """Is the error at the end of the file (only blanks and comments after it)?"""
    rest = src.data[bad.end_byte:] if not bad.is_missing else src.data[bad.start_byte:]
    rest = re.sub(rb"(?m)(#|//).*$", b"", rest)
    return not rest.strip() or (bad.is_missing and bad.type in ("}", "block_end"))


def _unclosed(text: str) -> tuple[int, int, str] | None:
    """The line, column and character of the innermost bracket never closed (strings, comments
    and heredocs skipped), or None when every bracket is balanced."""
    stack: list[tuple[int, int, str]] = []
    pairs = {"}": "{", "]": "[", ")": "("}
    i, n, line, line_start = 0, len(text), 1, 0
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            line_start = i + 1
        elif c == "#" or text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            line += text.count("\n", i, j)
            if "\n" in text[i:j]:
                line_start = text.rfind("\n", i, j) + 1
            i = j
            continue
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"' and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            i = j + 1
            if j < n and text[j] == "\n":
                line += 1
                line_start = j + 1
            continue
        elif text.startswith("<<", i):
            m = re.match(r"<<-?([A-Za-z][A-Za-z0-9._-]*)\r?\n", text[i:])
            if m:
                end = re.search(r"^\s*" + re.escape(m.group(1)) + r"\s*$", text[i + m.end():], re.M)
                j = n if end is None else i + m.end() + end.end()
                line += text.count("\n", i, j)
                line_start = text.rfind("\n", 0, j) + 1
                i = j
                continue
        elif c in "{[(":
            stack.append((line, i - line_start + 1, c))
        elif c in pairs:
            if stack and stack[-1][2] == pairs[c]:
                stack.pop()
        i += 1
    return stack[-1] if stack else None


_TEMPLATE_DEPTH = 60  # tree-sitter-hcl's scanner keeps at most 127 contexts, two a level


def _template_too_deep(text: str) -> int:
    """The line where quoted templates nest (``"${"${...}"}"``) past what the grammar's scanner
    can hold (it then loses track and reports errors that are not there), or 0."""
    if text.count('"${') < _TEMPLATE_DEPTH:
        return 0
    stack: list[str] = []  # '"' in a string, "{" in an interpolation (or braces inside one)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        top = stack[-1] if stack else ""
        if top == '"':
            if c == "\\":
                i += 2
                continue
            if c == '"':
                stack.pop()
            elif text.startswith("${", i) and not text.startswith("$${", i - 1):
                stack.append("{")
                i += 1
                if len(stack) > 2 * _TEMPLATE_DEPTH:
                    return text.count("\n", 0, i) + 1
        elif c == '"':
            stack.append('"')
        elif c == "{" and top == "{":
            stack.append("{")
        elif c == "}" and top == "{":
            stack.pop()
        i += 1
    return 0


_BLOCK_HEADER = re.compile(r'\s*[A-Za-z_][\w-]*(\s+("(?:[^"\\]|\\.)*"|[A-Za-z_][\w-]*))*\s*\{$')
_QUOTE_NEWLINE = ("Quoted strings may not be split over multiple lines. To produce a multi-line string, either "
                  'use the \\n escape to represent a newline character or use the "heredoc" multi-line template '
                  "syntax.")


def _unterminated_string(text: str, filename: str, base: int) -> list[Diagnostic]:
    """A quoted string left open at the end of its line: terraform's two diagnostics."""
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
        elif text.startswith("<<", i) and (m := re.match(r"<<-?([A-Za-z][A-Za-z0-9._-]*)\r?\n", text[i:])):
            end = re.search(r"^\s*" + re.escape(m.group(1)) + r"\s*$", text[i + m.end():], re.M)
            j = n if end is None else i + m.end() + end.end()
            line += text.count("\n", i, j)
            i = j
            continue
        elif c == '"':
            j, depth = i + 1, 0
            while j < n:
                d = text[j]
                if d == "\\":
                    bad = _bad_escape(text, j) if depth == 0 and j + 1 < n else None
                    if bad is not None:
                        line_start = text.rfind("\n", 0, j)
                        where = SourceRange(filename, line + base - 1, j - line_start, j)
                        return [error("Invalid escape sequence", bad, where,
                                      context=enclosing_block(filename, line + base - 1))]
                    j += 2
                    continue
                if depth == 0 and (d == '"' or d == "\n"):
                    break
                if text.startswith("${", j) or text.startswith("%{", j):
                    if text[j - 1] != d:  # not $${ / %%{
                        depth += 1
                        j += 2
                        continue
                elif d == "{" and depth:
                    depth += 1
                elif d == "}" and depth:
                    depth -= 1
                elif d == "\n":
                    line += 1
                j += 1
            if j < n and text[j] == "\n" and depth == 0:
                col = j - text.rfind("\n", 0, j)
                where = SourceRange(filename, line + base - 1, col, j)
                ctx = enclosing_block(filename, line + base - 1)
                return [error("Invalid multi-line string", _QUOTE_NEWLINE, where, context=ctx),
                        error("Unterminated template string", "No closing marker was found for the string.",
                              where, context=ctx)]
            i = j + 1
            continue
        i += 1
    return []


_DIRECTIVE = re.compile(r"(?<!%)%\{(~?)\s*(if|else|endif|for|endfor)\b[^}]*\}")
_ENDS = {"if": "endif", "for": "endfor"}


def _template_end(text: str, after: int) -> tuple[int, int, int]:
    """Where the template holding the directive that ends at ``after`` ends, as (line, column,
    offset): its closing quote on that line, else the heredoc's closing marker line."""
    line_end = text.find("\n", after)
    line_end = len(text) if line_end < 0 else line_end
    i = after
    while i < line_end:
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == '"':
            break
        i += 1
    else:
        m = re.compile(r"(?m)^[ \t]*[A-Za-z_][\w-]*[ \t]*$").search(text, line_end)
        i = m.start() if m is not None else len(text)
    line = text.count("\n", 0, i) + 1
    return line, i - text.rfind("\n", 0, i), i


def _directive_mismatch(text: str, filename: str, base: int) -> Diagnostic | None:
    """Template directives that do not pair up (an ``endif`` closing a ``for``, an ``if`` never
    closed), read from the text, as terraform words them."""
    if "%{" not in text:
        return None
    stack: list[tuple[str, str]] = []  # (keyword, its range as terraform cites it)

    def where(m: re.Match[str]) -> tuple[int, int, str]:
        line = text.count("\n", 0, m.start()) + base
        col = m.start() - text.rfind("\n", 0, m.start())
        return line, col, f"{filename}:{line},{col}-{col + len(m.group(0))}"

    last_end = 0
    for m in _DIRECTIVE.finditer(text):
        last_end = m.end()
        word = m.group(2)
        line, col, cited = where(m)
        subject = SourceRange(filename, line, col, m.start())
        ctx = enclosing_block(filename, line)
        if word in _ENDS:
            stack.append((word, cited))
        elif word == "else":
            if not stack or stack[-1][0] != "if":
                return error("Unexpected else directive", "An else clause is allowed only in an if directive.",
                             subject, context=ctx)
        else:
            opener = "if" if word == "endif" else "for"
            if not stack:
                return error(f"Unexpected {word} directive", f"There is no open {opener} directive to end here.",
                             subject, context=ctx)
            top, top_at = stack.pop()
            if top != opener:
                if top == "if":
                    detail = f"Expecting an endif directive for the if started at {top_at}."
                else:
                    detail = f"Expecting an endfor directive corresponding to the for directive at {top_at}."
                return error(f"Unexpected {word} directive", detail, subject, context=ctx)
    if stack:
        top, top_at = stack[-1]
        line, col, pos = _template_end(text, last_end)
        return error("Unexpected end of template",
                     f"The {top} directive at {top_at} is missing its corresponding {_ENDS[top]} directive.",
                     SourceRange(filename, line + base - 1, col, pos), context=enclosing_block(filename, line + base - 1))
    return None


_HEX = frozenset("0123456789abcdefABCDEF")


def _bad_escape(text: str, j: int) -> str | None:
    """What is wrong with the escape sequence at ``text[j]`` (a backslash), in hcl's words; None
    when it is one hcl reads (``\\n``, ``\\u`` and four hex digits, ``\\U`` and eight, ...)."""
    sel = text[j + 1]
    if sel in 'ntr"\\':
        return None
    if sel in "uU":
        want = 4 if sel == "u" else 8
        digits = text[j + 2:j + 2 + want]
        if len(digits) == want and all(c in _HEX for c in digits):
            return None
        return (f"The \\{sel} escape sequence must be followed by "
                f"{'four' if want == 4 else 'eight'} hexadecimal digits.")
    return f'The symbol "{sel}" is not a valid escape sequence selector.'
