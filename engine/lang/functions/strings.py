"""String functions: case, trimming, splitting and joining, substrings, prefixes and suffixes,
``replace`` with a literal or an RE2 pattern (``format`` has a module of its own)."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from typing import Any

from engine.diagnostics import FunctionError
from engine.lang.functions.arguments import ArgumentError, _known, _seq, _string_arg
from engine.lang.functions.regex import Re2Error, compile_re2
from engine.lang.number import to_string, whole_number
from engine.values import UNKNOWN, ListVal, type_name


def graphemes(s: str) -> list[str]:
    """``s`` split into user-perceived characters (approximate grapheme clusters)."""
    if s.isascii():
        return list(s)
    out: list[str] = []
    join_next = False
    flag_open = False  # a regional indicator waiting for its pair (two make one flag)
    for c in s:
        regional = "\U0001f1e6" <= c <= "\U0001f1ff"
        if out and (join_next or (regional and flag_open) or unicodedata.combining(c)
                    or "\ufe00" <= c <= "\ufe0f" or unicodedata.category(c) in ("Mn", "Me", "Mc")
                    or c == "\u200d"):
            out[-1] += c
            flag_open = False
        else:
            out.append(c)
            flag_open = regional
        join_next = c == "\u200d"
    return out


def _simple_upper(s: str) -> str:
    # Go maps each character on its own (ß stays ß), where Python's str.upper() may expand it
    if s.isascii():
        return s.upper()
    return "".join(u if len(u := c.upper()) == 1 else c for c in s)


def _simple_lower(s: str) -> str:
    if s.isascii():
        return s.lower()
    return "".join(lo if len(lo := c.lower()) == 1 else lo[0] for c in s)


def upper(s: Any) -> Any:
    return UNKNOWN if s is UNKNOWN else _simple_upper(_string_arg(s))


def lower(s: Any) -> Any:
    return UNKNOWN if s is UNKNOWN else _simple_lower(_string_arg(s))


def trimspace(s: Any) -> Any:
    return UNKNOWN if s is UNKNOWN else _string_arg(s).strip()


def split(sep: Any, s: Any) -> Any:
    if sep is UNKNOWN or s is UNKNOWN:
        return UNKNOWN
    sep, s = _string_arg(sep), _string_arg(s)
    if sep == "":
        return ListVal(s)  # Go splits into characters (so "" gives an empty list)
    return ListVal(s.split(sep))


def substr(s: Any, offset: Any, n: Any) -> Any:
    if s is UNKNOWN or offset is UNKNOWN or n is UNKNOWN:
        return UNKNOWN
    chars = graphemes(_string_arg(s))
    o = whole_number(offset, "offset")
    ln = whole_number(n, "length")
    if o < 0:
        o = max(len(chars) + o, 0)
    if o >= len(chars):
        return ""
    return "".join(chars[o:] if ln < 0 else chars[o:o + ln])


def join(sep: Any, *lists: Any) -> Any:
    if not lists:
        raise FunctionError("at least one list is required.")
    if sep is UNKNOWN or any(lst is UNKNOWN for lst in lists):
        return UNKNOWN
    sep = _string_arg(sep)
    items: list[str] = []
    unknown = False
    for which, lst in enumerate(lists):
        if isinstance(lst, dict):
            raise FunctionError(f"a list, set or tuple is required, not {type_name(lst)}.")
        for i, x in enumerate(_seq(lst)):
            if x is UNKNOWN:
                unknown = True
            elif x is None:
                raise ArgumentError(1 + which, f"element {i} is null; cannot concatenate null values")
            elif isinstance(x, (tuple, dict)):
                raise FunctionError(f"element {i}: string required.")
            else:
                items.append(to_string(x))
    return UNKNOWN if unknown else sep.join(items)


def _go_regex(src: str) -> Any:
    """Compile an RE2 pattern (:mod:`engine.lang.functions.regex`), refused in Go's words."""
    try:
        return compile_re2(src)
    except Re2Error as exc:
        raise FunctionError(f"{exc.go_text}.") from None


def replace(s: Any, old: Any, new: Any) -> Any:
    if s is UNKNOWN or old is UNKNOWN or new is UNKNOWN:
        return UNKNOWN
    s, old, new = _string_arg(s), _string_arg(old), _string_arg(new)
    if len(old) > 1 and old.startswith("/") and old.endswith("/"):
        rx = _go_regex(old[1:-1])
        template = _go_template(new)

        def expand(m: Any) -> str:
            out: list[str] = []
            for kind, part in template:
                if kind == "text":
                    out.append(part)
                    continue
                try:
                    got = m.group(part) if part is not None else None
                except IndexError:  # no such group: Go substitutes nothing
                    got = None
                if got is not None:
                    out.append(got)
            return "".join(out)

        return rx.sub(expand, s)
    return s.replace(old, new)


def _go_template(template: str) -> list[tuple[str, Any]]:
    """Go's regexp replacement template: ``("text", str)`` and ``("group", int | str)`` parts
    (``$1``, ``${1}``, ``$name``, ``${name}``; ``$$`` is a dollar sign; a malformed ``$``
    is itself)."""
    parts: list[tuple[str, Any]] = []
    buf: list[str] = []
    i, n = 0, len(template)
    while i < n:
        c = template[i]
        if c != "$":
            buf.append(c)
            i += 1
            continue
        if template.startswith("$$", i):
            buf.append("$")
            i += 2
            continue
        j = i + 1
        brace = j < n and template[j] == "{"
        if brace:
            j += 1
        k = j
        while k < n and (template[k].isalnum() or template[k] == "_"):
            k += 1
        name = template[j:k]
        if not name or (brace and (k >= n or template[k] != "}")):
            buf.append("$")
            i += 1
            continue
        if buf:
            parts.append(("text", "".join(buf)))
            buf = []
        if name.isascii() and name.isdigit():
            ref: Any = int(name) if not (name[0] == "0" and len(name) > 1) and len(name) < 9 else None
        else:
            ref = name
        parts.append(("group", ref))
        i = k + 1 if brace else k
    if buf:
        parts.append(("text", "".join(buf)))
    return parts


def trim(s: Any, chars: Any) -> Any:
    return _string_arg(s).strip(_string_arg(chars)) if _known(s, chars) else UNKNOWN


def trimprefix(s: Any, prefix: Any) -> Any:
    return _string_arg(s).removeprefix(_string_arg(prefix)) if _known(s, prefix) else UNKNOWN


def trimsuffix(s: Any, suffix: Any) -> Any:
    return _string_arg(s).removesuffix(_string_arg(suffix)) if _known(s, suffix) else UNKNOWN


def chomp(s: Any) -> Any:
    if not _known(s):
        return UNKNOWN
    text = _string_arg(s)
    while text.endswith(("\r\n", "\n", "\r")):
        text = text[:-2] if text.endswith("\r\n") else text[:-1]
    return text


def startswith(s: Any, prefix: Any) -> Any:
    return _string_arg(s).startswith(_string_arg(prefix)) if _known(s, prefix) else UNKNOWN


def endswith(s: Any, suffix: Any) -> Any:
    return _string_arg(s).endswith(_string_arg(suffix)) if _known(s, suffix) else UNKNOWN


def _go_separator(c: str) -> bool:
    """Go's strings.Title word boundary: what may precede a letter that starts a word."""
    if c.isascii():
        return not (c.isalnum() or c == "_")
    if c.isalpha() or c.isdigit():
        return False
    return c.isspace()


def title(s: Any) -> Any:
    if not _known(s):
        return UNKNOWN
    out: list[str] = []
    prev = " "
    for c in _string_arg(s):
        out.append((t if len(t := c.title()) == 1 else c) if _go_separator(prev) else c)
        prev = c
    return "".join(out)


def strrev(s: Any) -> Any:
    return "".join(reversed(graphemes(_string_arg(s)))) if _known(s) else UNKNOWN


def strcontains(s: Any, substr: Any) -> Any:
    return _string_arg(substr) in _string_arg(s) if _known(s, substr) else UNKNOWN


def indent(spaces: Any, s: Any) -> Any:
    if not _known(spaces, s):
        return UNKNOWN
    n = whole_number(spaces, "spaces")
    return _string_arg(s).replace("\n", "\n" + " " * max(n, 0))


# terraform's signature of each function here (its diagnostics name the parameters): the function
SIGNATURES: dict[str, Callable[..., Any]] = {
    "chomp(str)": chomp,
    "endswith(str, suffix)": endswith,
    "indent(spaces, str)": indent,
    "strcontains(str, substr)": strcontains,
    "strrev(str)": strrev,
    "title(str)": title,
    "join(separator, lists...)": join,
    "lower(str)": lower,
    "replace(str, substr, replace)": replace,
    "split(separator, str)": split,
    "startswith(str, prefix)": startswith,
    "substr(str, offset, length)": substr,
    "trim(str, cutset)": trim,
    "trimprefix(str, prefix)": trimprefix,
    "trimspace(str)": trimspace,
    "trimsuffix(str, suffix)": trimsuffix,
    "upper(str)": upper,
}
