"""Hash functions: the hex digest of a string (``md5``, ``sha1``, ``sha256``, ``sha512``) or of a
file's bytes (``filemd5``, ...)."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from typing import Any

from engine.diagnostics import FunctionError
from engine.lang.functions.arguments import _known, _string_arg
from engine.lang.functions.filesystem import _read
from engine.values import UNKNOWN


def _hash(algo: str) -> Callable[[Any], Any]:
    def digest(s: Any) -> Any:
        return hashlib.new(algo, _string_arg(s).encode()).hexdigest() if _known(s) else UNKNOWN

    digest.__name__ = algo
    return digest


def _file_hash(algo: str) -> Callable[[Any], Any]:
    def digest(path: Any) -> Any:
        return hashlib.new(algo, read_for_hash(path)).hexdigest() if _known(path) else UNKNOWN

    digest.__name__ = "file" + algo
    return digest


def read_for_hash(path: Any) -> bytes:
    """The file's bytes; a missing file in the words terraform's hashing functions use (Go's)."""
    if not os.path.exists(os.path.expanduser(_string_arg(path))):
        raise FunctionError(f"open {_string_arg(path)}: no such file or directory.")
    return _read(path)


# terraform's signature of each function here (its diagnostics name the parameters): the function
SIGNATURES: dict[str, Callable[..., Any]] = {
    "filemd5(path)": _file_hash("md5"),
    "filesha1(path)": _file_hash("sha1"),
    "filesha256(path)": _file_hash("sha256"),
    "filesha512(path)": _file_hash("sha512"),
    "md5(str)": _hash("md5"),
    "sha1(str)": _hash("sha1"),
    "sha256(str)": _hash("sha256"),
    "sha512(str)": _hash("sha512"),
}
