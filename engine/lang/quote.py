"""Strings quoted as Go's ``strconv.Quote`` quotes them: how terraform prints a string in a
diagnostic's block name (``resource "T" "N"``) and in ``terraform output``'s values."""

from __future__ import annotations

_ESCAPES = {'"': '\\"', "\\": "\\\\", "\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r",
            "\t": "\\t", "\v": "\\v"}


_PLAIN = frozenset(chr(c) for c in range(0x20, 0x7F)) - {'"', "\\"}


def go_quote(s: str) -> str:
    if _PLAIN.issuperset(s):  # hot path: a printable ASCII name (every block label, in practice)
        return f'"{s}"'
    out = ['"']
    for ch in s:
        esc = _ESCAPES.get(ch)
        if esc is not None:
            out.append(esc)
        elif ch.isprintable():
            out.append(ch)
        else:
            o = ord(ch)
            out.append(f"\\x{o:02x}" if o < 0x80 else f"\\u{o:04x}" if o < 0x10000 else f"\\U{o:08x}")
    out.append('"')
    return "".join(out)


def hcl_escape(s: str) -> str:
    """``s`` as the inside of an HCL quoted string, as hclwrite escapes it: ``\\n \\r \\t \\" \\\\``,
    ``$${`` and ``%%{`` for a literal ``${`` and ``%{``, and ``\\uNNNN``/``\\UNNNNNNNN`` for what Go's
    ``unicode.IsPrint`` refuses (the ASCII space and graphic characters pass as they are)."""
    out: list[str] = []
    n = len(s)
    for i, ch in enumerate(s):
        if ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch in "$%":
            out.append(ch + ch if i + 1 < n and s[i + 1] == "{" else ch)
        elif ch.isprintable():
            out.append(ch)
        else:
            cp = ord(ch)
            out.append(f"\\u{cp:04x}" if cp < 0x10000 else f"\\U{cp:08x}")
    return "".join(out)
