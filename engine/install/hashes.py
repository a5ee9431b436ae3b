"""The package hashes the lock file records, as terraform computes them:

- ``h1:`` -- Go's ``golang.org/x/mod/sumdb/dirhash`` Hash1 of the package's files: for each file, in
  the byte order of its slash-separated path, a line ``SHA256HEX  PATH\\n``; the hash is the base64 of
  the SHA-256 of those lines. Of an unpacked directory (symlinks followed) or of a zip's entries,
  which gives the same for the same files.
- ``zh:`` -- the hex SHA-256 of the zip archive itself (what a registry publishes); it can only
  match a packed package.
"""

from __future__ import annotations

import base64
import hashlib
import os
from pathlib import Path

_CHUNK = 1 << 20


def _file_sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(_CHUNK):
            h.update(chunk)
    return h.hexdigest()


def _hash1(lines: list[tuple[str, str]]) -> str:
    summary = hashlib.sha256()
    for name, digest in sorted(lines, key=lambda x: x[0].encode()):
        if "\n" in name:
            raise ValueError("dirhash: filenames with newlines are not supported")
        summary.update(f"{digest}  {name}\n".encode())
    return "h1:" + base64.b64encode(summary.digest()).decode("ascii")


def hash_dir(directory: Path | str) -> str:
    """``h1:`` of an unpacked package (the directory may be a symlink, as in ``.terraform/providers``)."""
    root = os.path.realpath(directory)
    lines = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        # Go's filepath.Walk does not descend into a symlink to a directory, and hashes it as a file
        for name in [*filenames, *(d for d in dirnames if os.path.islink(os.path.join(dirpath, d)))]:
            full = os.path.join(dirpath, name)
            rel = os.path.relpath(full, root).replace(os.sep, "/")
            lines.append((rel, _file_sha256(full)))
    return _hash1(lines)


def hash_zip(archive: Path | str) -> str:
    """``h1:`` of a packed package: its entries hashed as the files they unpack to."""
    import zipfile  # with shutil, bz2 and lzma: not for every run that reads the lock file

    lines = []
    with zipfile.ZipFile(archive) as zf:
        for info in zf.infolist():
            h = hashlib.sha256()
            with zf.open(info) as f:
                while chunk := f.read(_CHUNK):
                    h.update(chunk)
            lines.append((info.filename, h.hexdigest()))
    return _hash1(lines)


def zip_sha256(archive: Path | str) -> str:
    """``zh:`` of a packed package."""
    return "zh:" + _file_sha256(str(archive))


def matches_any(package: Path, allowed: tuple[str, ...] | list[str]) -> bool:
    """Whether ``package`` (an unpacked directory or a zip) has one of the ``allowed`` hashes, as
    terraform checks it: ``h1:`` for either form, ``zh:`` for a zip only, other schemes never."""
    is_zip = package.is_file()
    h1: str | None = None
    zh: str | None = None
    for want in allowed:
        if want.startswith("h1:"):
            if h1 is None:
                h1 = hash_zip(package) if is_zip else hash_dir(package)
            if h1 == want:
                return True
        elif want.startswith("zh:") and is_zip:
            if zh is None:
                zh = zip_sha256(package)
            if zh == want:
                return True
    return False
