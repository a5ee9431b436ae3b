"""Filesystem functions: reading files and taking paths apart.

File functions read relative to the working directory (``-chdir`` switches to
the configuration's directory first, so ``path.module`` is ``.``), as in the
root module of terraform.
"""

from __future__ import annotations

import base64
import os
from collections.abc import Callable
from typing import Any

from engine.diagnostics import FunctionError
from engine.lang.functions.arguments import _known, _string_arg
from engine.values import UNKNOWN


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


# terraform's signature of each function here (its diagnostics name the parameters): the function
SIGNATURES: dict[str, Callable[..., Any]] = {
    "abspath(path)": abspath,
    "basename(path)": basename,
    "dirname(path)": dirname,
    "file(path)": file_,
    "filebase64(path)": filebase64,
    "fileexists(path)": fileexists,
    "pathexpand(path)": pathexpand,
}
