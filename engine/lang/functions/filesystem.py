"""Filesystem functions: reading files and taking paths apart.

File functions read relative to the working directory (``-chdir`` switches to
the configuration's directory first, so ``path.module`` is ``.``), as in the
root module of terraform.
"""

from __future__ import annotations

import base64
import os
import re
from collections.abc import Callable
from typing import Any

from engine.diagnostics import FunctionError
from engine.lang.functions.arguments import _known, _string_arg
from engine.values import UNKNOWN, SetVal


def _read(path: Any) -> bytes:
    p = os.path.expanduser(_string_arg(path))
    try:
        with open(p, "rb") as f:
            return f.read()
    except FileNotFoundError:
        raise FunctionError(f'no file exists at "{p}"; this function works only with files that are '
                            "distributed as part of the configuration source code, so if this file will be "
                            "created by a resource in this configuration you must instead obtain this result "
                            "from an attribute of that resource.") from None
    except OSError as exc:
        raise FunctionError(f'failed to read "{p}": {exc.strerror}') from None


def file_(path: Any) -> Any:
    if not _known(path):
        return UNKNOWN
    data = _read(path)
    try:
        return data.decode()
    except UnicodeDecodeError:
        raise FunctionError(f'contents of "{path}" are not valid UTF-8; use the filebase64 function to '
                            "obtain the Base64 encoded contents or the other file functions to obtain "
                            "file hashing results instead.") from None


def filebase64(path: Any) -> Any:
    return base64.b64encode(_read(path)).decode() if _known(path) else UNKNOWN


def fileexists(path: Any) -> Any:
    if not _known(path):
        return UNKNOWN
    p = os.path.expanduser(_string_arg(path))
    if os.path.isdir(p):
        raise FunctionError(f'"{p}" is a directory, not a file.')
    return os.path.isfile(p)


def basename(p: Any) -> Any:
    return os.path.basename(_string_arg(p).rstrip("/")) if _known(p) else UNKNOWN


def dirname(p: Any) -> Any:
    return (os.path.dirname(_string_arg(p)) or ".") if _known(p) else UNKNOWN


def abspath(p: Any) -> Any:
    return os.path.abspath(_string_arg(p)) if _known(p) else UNKNOWN


def pathexpand(p: Any) -> Any:
    return os.path.expanduser(_string_arg(p)) if _known(p) else UNKNOWN


def _glob_regex(pattern: str) -> re.Pattern[str]:
    """doublestar's glob syntax (``*``, ``**``, ``?``, ``[...]``, ``{a,b}``) as a regular expression
    over slash-separated paths; ValueError for a malformed pattern."""
    out: list[str] = []
    i, n = 0, len(pattern)
    braces = 0
    while i < n:
        c = pattern[i]
        if c == "\\" and i + 1 < n:
            out.append(re.escape(pattern[i + 1]))
            i += 2
        elif pattern.startswith("**", i) and (i == 0 or pattern[i - 1] == "/"):
            if pattern.startswith("**/", i):
                out.append("(?:[^/]*/)*")
                i += 3
            else:
                out.append(".*")
                i += 2
        elif c == "*":
            out.append("[^/]*")
            i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[":
            end = pattern.find("]", i + 2 if pattern[i + 1:i + 2] in ("!", "^", "]") else i + 1)
            if end < 0:
                raise ValueError("syntax error in pattern")
            body = pattern[i + 1:end]
            neg = body[:1] in ("!", "^")
            body = body[1:] if neg else body
            out.append("[" + ("^" if neg else "") + body.replace("\\", "\\\\") + "]")
            i = end + 1
        elif c == "{":
            braces += 1
            out.append("(?:")
            i += 1
        elif c == "}" and braces:
            braces -= 1
            out.append(")")
            i += 1
        elif c == "," and braces:
            out.append("|")
            i += 1
        else:
            out.append(re.escape(c))
            i += 1
    if braces:
        raise ValueError("syntax error in pattern")
    try:
        return re.compile("".join(out) + r"\Z")
    except re.error:
        raise ValueError("syntax error in pattern") from None


def fileset(path: Any, pattern: Any) -> Any:
    """The files (not directories) under ``path`` matching ``pattern``, relative to ``path``."""
    if not _known(path, pattern):
        return UNKNOWN
    base, pat = _string_arg(path), _string_arg(pattern)
    joined = os.path.normpath(os.path.join(base, pat)).replace(os.sep, "/")
    try:
        rx = _glob_regex(pat)
    except ValueError as exc:
        raise FunctionError(f'failed to glob pattern "{joined}": {exc}.') from None
    found: list[str] = []
    for root, dirs, files in os.walk(base):
        dirs.sort()
        for name in files:
            full = os.path.join(root, name)
            rel = os.path.relpath(full, base).replace(os.sep, "/")
            if os.path.isfile(full) and rx.match(rel):
                found.append(rel)
    return SetVal.of(found)


# terraform's signature of each function here (its diagnostics name the parameters): the function
SIGNATURES: dict[str, Callable[..., Any]] = {
    "abspath(path)": abspath,
    "basename(path)": basename,
    "dirname(path)": dirname,
    "file(path)": file_,
    "filebase64(path)": filebase64,
    "fileexists(path)": fileexists,
    "fileset(path, pattern)": fileset,
    "pathexpand(path)": pathexpand,
}
