"""``regex`` and ``regexall``: RE2 patterns (Go's regexp syntax) run by the ``regex`` module.

RE2 and Python differ in syntax and in meaning; a pattern is translated so it means what it means
in Go: ``\\d``, ``\\w``, ``\\s`` are ASCII-only; ``$`` is the end of the text unless ``(?m)``;
``\\z`` is ``\\Z``; ``(?<name>`` is ``(?P<name>``; ``\\Q...\\E`` is literal; a flag group such as
``(?i)`` in the middle of a pattern applies to the rest of its group. What RE2 refuses
(lookaround, backreferences, atomic groups, possessive repeats) is refused here with RE2's words.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from engine.diagnostics import FunctionError, StrataError
from engine.lang.functions.arguments import ArgumentError
from engine.lang.number import to_string
from engine.values import UNKNOWN, ListVal


class _LazyRegex:
    """The ``regex`` module, imported on the first pattern (~15 ms of every start otherwise)."""

    def __getattr__(self, name: str) -> Any:
        import regex as real

        globals()["_re"] = real
        return getattr(real, name)


_re: Any = _LazyRegex()

_SHORTHANDS = {"d": "0-9", "w": "0-9A-Za-z_", "s": "\\t\\n\\f\\r "}
_FLAG_GROUP = re.compile(r"\(\?([imsU]*)(?:-([imsU]*))?\)")
_PERL_REFUSED = ("(?=", "(?!", "(?<=", "(?<!", "(?>", "(?#", "(?|", "(?R", "(?&")


class Re2Error(ArgumentError):
    """RE2 refuses a pattern: Go's ``code`` (``missing closing )``) for the ``expr`` that has it.
    As the pattern parameter's error, terraform rewords it (``regex``); ``go_text`` is Go's own,
    which ``replace`` reports."""

    def __init__(self, code: str, expr: str) -> None:
        super().__init__(0, f"invalid regexp pattern: {code} in {expr}")
        self.code = code
        self.expr = expr

    @property
    def go_text(self) -> str:
        return f"error parsing regexp: {self.code}: `{self.expr}`"


class _Refused(StrataError):
    """RE2 refuses the pattern: ``args`` are RE2's code and the expression."""


def _translate(src: str) -> tuple[str, int]:
    """The Python ``regex`` pattern meaning what RE2 pattern ``src`` means, and its flags."""
    out: list[str] = []
    closers = [0]  # per open group: how many "(?flags:" groups were opened inside it
    multiline = False
    i, n = 0, len(src)
    in_class = False
    while i < n:
        c = src[i]
        if c == "\\" and i + 1 < n:
            d = src[i + 1]
            if d == "Q":
                end = src.find("\\E", i + 2)
                lit = src[i + 2:] if end < 0 else src[i + 2:end]
                out.append(_re.escape(lit))
                i = n if end < 0 else end + 2
                continue
            if d in "123456789" and not in_class:
                raise _Refused("invalid escape sequence", f"\\{d}")
            if d == "z":
                out.append("\\Z")
            elif d in "dws":
                out.append(_SHORTHANDS[d] if in_class else f"[{_SHORTHANDS[d]}]")
            elif d in "DWS" and not in_class:
                out.append(f"[^{_SHORTHANDS[d.lower()]}]")
            else:
                out.append(src[i:i + 2])
            i += 2
            continue
        if in_class:
            if c == "[" and src.startswith("[:", i):
                end = src.find(":]", i + 2)
                if end > 0:
                    out.append(src[i:end + 2])
                    i = end + 2
                    continue
            if c == "[":
                out.append("\\[")
                i += 1
                continue
            if c == "]" and not (out and out[-1] in ("[", "[^")):
                in_class = False
            out.append(c)
            i += 1
            continue
        if c == "[":
            in_class = True
            if src.startswith("[^", i):
                out.append("[^")
                i += 2
            else:
                out.append("[")
                i += 1
            if i < n and src[i] == "]":  # a leading ] is literal
                out.append("\\]")
                i += 1
            continue
        if c == "(":
            for refused in _PERL_REFUSED:
                if src.startswith(refused, i):
                    raise _Refused("invalid or unsupported Perl syntax", refused)
            m = _FLAG_GROUP.match(src, i)
            if m:
                on, off = m.group(1), m.group(2) or ""
                if "U" in on + off:
                    raise _Refused("invalid or unsupported Perl syntax", "(?U")
                multiline = multiline or "m" in on
                out.append(f"(?{on}{'-' + off if off else ''}:")
                closers[-1] += 1
                i = m.end()
                continue
            if src.startswith("(?<", i) and not src.startswith("(?<=", i) and not src.startswith("(?<!", i):
                out.append("(?P<")
                i += 3
            else:
                out.append("(")
                i += 1
            closers.append(0)
            continue
        if c == ")":
            if len(closers) > 1:
                out.append(")" * closers.pop())
            out.append(")")
            i += 1
            continue
        if c in "*+?}" and i + 1 < n and src[i + 1] == "+":
            raise _Refused("invalid nested repetition operator", f"{c}+")
        if c == "$" and not multiline:
            out.append("\\Z")
            i += 1
            continue
        out.append(c)
        i += 1
    out.append(")" * closers[0])
    return "".join(out), _re.VERSION0


@lru_cache(maxsize=256)
def compile_re2(src: str) -> Any:
    """``src`` (RE2 syntax) compiled; :class:`ArgumentError` for the pattern parameter in
    terraform's words when RE2 (or Python, where it cannot follow) refuses it."""
    try:
        pattern, flags = _translate(src)
        compiled = _re.compile(pattern, flags)
    except _Refused as exc:
        raise Re2Error(exc.args[0], exc.args[1]) from None
    except _re.error as exc:
        raise Re2Error(*_go_words(exc, src)) from None
    names = compiled.groupindex
    if names and len(names) != compiled.groups:
        raise ArgumentError(0, "invalid regexp pattern: cannot mix both named and unnamed capture groups")
    return compiled


def _go_words(exc: Any, src: str) -> tuple[str, str]:
    """Go's code and expression for what Python's engine refused in ``src``."""
    msg = str(exc.msg if hasattr(exc, "msg") else exc)
    if "missing )" in msg or "unterminated subpattern" in msg:
        return "missing closing )", src
    if "unterminated character set" in msg or "missing ]" in msg:
        return "missing closing ]", src[src.rfind("["):] if "[" in src else src
    if "unbalanced parenthesis" in msg:
        return "unexpected )", src
    if "nothing to repeat" in msg:
        return "missing argument to repetition operator", src
    return msg, src


def _captures(compiled: Any, m: Any) -> Any:
    if compiled.groups == 0:
        return m.group(0)
    if compiled.groupindex:
        return {name: m.group(name) for name in compiled.groupindex}
    return tuple(m.groups())


def _strings(pattern: Any, string: Any) -> tuple[str, str] | None:
    if pattern is None:
        raise ArgumentError(0, "argument must not be null")
    if string is None:
        raise ArgumentError(1, "argument must not be null")
    for i, v in enumerate((pattern, string)):
        if isinstance(v, (tuple, dict)):
            raise ArgumentError(i, "string required")
    if pattern is UNKNOWN or string is UNKNOWN:
        return None
    return to_string(pattern), to_string(string)


def regex(pattern: Any, string: Any) -> Any:
    got = _strings(pattern, string)
    if got is None:
        return UNKNOWN
    compiled = compile_re2(got[0])
    m = compiled.search(got[1])
    if m is None:
        raise FunctionError("pattern did not match any part of the given string.")
    return _captures(compiled, m)


def regexall(pattern: Any, string: Any) -> Any:
    got = _strings(pattern, string)
    if got is None:
        return UNKNOWN
    compiled = compile_re2(got[0])
    return ListVal(_captures(compiled, m) for m in compiled.finditer(got[1]))


# terraform's signature of each function here (its diagnostics name the parameters): the function
SIGNATURES: dict[str, Callable[..., Any]] = {
    "regex(pattern, string)": regex,
    "regexall(pattern, string)": regexall,
}
