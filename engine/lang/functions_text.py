"""Encoding, hashing, path and file functions of the Terraform language.

File functions read relative to the working directory (``-chdir`` switches to
the configuration's directory first, so ``path.module`` is ``.``), as in the
root module of terraform.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
from collections.abc import Callable
from typing import Any

from engine.lang.functions import FunctionError, _string_arg
from engine.values import UNKNOWN


def _known(*args: Any) -> bool:
    return all(a is not UNKNOWN for a in args)


def base64encode(s: Any) -> Any:
    return base64.b64encode(_string_arg(s).encode()).decode() if _known(s) else UNKNOWN


def base64decode(s: Any) -> Any:
    if not _known(s):
        return UNKNOWN
    try:
        raw = base64.b64decode(_string_arg(s), validate=True)
    except binascii.Error:
        raise FunctionError("the given value is not valid base64.") from None
    try:
        return raw.decode()
    except UnicodeDecodeError:
        raise FunctionError("the result of decoding the given base64 is not valid UTF-8.") from None


def _hash(algo: str) -> Callable[[Any], Any]:
    def digest(s: Any) -> Any:
        return hashlib.new(algo, _string_arg(s).encode()).hexdigest() if _known(s) else UNKNOWN

    digest.__name__ = algo
    return digest


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


def _file_hash(algo: str) -> Callable[[Any], Any]:
    def digest(path: Any) -> Any:
        return hashlib.new(algo, _read(path)).hexdigest() if _known(path) else UNKNOWN

    digest.__name__ = "file" + algo
    return digest


def basename(p: Any) -> Any:
    return os.path.basename(_string_arg(p).rstrip("/")) if _known(p) else UNKNOWN


def dirname(p: Any) -> Any:
    return (os.path.dirname(_string_arg(p)) or ".") if _known(p) else UNKNOWN


def abspath(p: Any) -> Any:
    return os.path.abspath(_string_arg(p)) if _known(p) else UNKNOWN


def pathexpand(p: Any) -> Any:
    return os.path.expanduser(_string_arg(p)) if _known(p) else UNKNOWN


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


TEXT_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "base64encode": base64encode, "base64decode": base64decode,
    "md5": _hash("md5"), "sha1": _hash("sha1"), "sha256": _hash("sha256"), "sha512": _hash("sha512"),
    "file": file_, "filebase64": filebase64, "fileexists": fileexists,
    "filemd5": _file_hash("md5"), "filesha1": _file_hash("sha1"), "filesha256": _file_hash("sha256"),
    "filesha512": _file_hash("sha512"),
    "basename": basename, "dirname": dirname, "abspath": abspath, "pathexpand": pathexpand,
    "trim": trim, "trimprefix": trimprefix, "trimsuffix": trimsuffix, "chomp": chomp,
    "startswith": startswith, "endswith": endswith,
}
