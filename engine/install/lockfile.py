"""The dependency lock file, ``.terraform.lock.hcl``: for each provider, the version selected, the
constraints it was selected under and the hashes of its package. Written byte for byte as terraform
writes it, so that either tool accepts the other's; built-in providers are never in it."""

from __future__ import annotations

import os
from pathlib import Path

from engine.addrs import ProviderSource, parse_provider_source
from engine.diagnostics import Diagnostic, DiagnosticsError, SourceRange, error
from engine.frozen import frozen
from engine.install.versions import Version, parse_version

LOCK_FILE = ".terraform.lock.hcl"

_HEADER = ('# This file is maintained automatically by "terraform init".\n'
           "# Manual edits may be lost in future updates.\n")


@frozen
class Locked:
    """One provider's entry. ``constraints``: in normal form, ``""`` for none; ``hashes`` sorted."""

    source: ProviderSource
    version: Version
    constraints: str
    hashes: tuple[str, ...]


LockFile = dict[ProviderSource, Locked]


def read_lock(directory: str | Path) -> LockFile:
    """The lock file in ``directory`` (empty when there is none); DiagnosticsError, in terraform's
    words, for one it cannot read."""
    path = os.path.join(directory, LOCK_FILE)
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        raise DiagnosticsError([error("Failed to read dependency lock file", f"{LOCK_FILE}: {exc}")]) from None
    return parse_lock(text)


def parse_lock(text: str, filename: str = LOCK_FILE) -> LockFile:
    from engine.lang import expr as E
    from engine.lang.hcl import parse_hcl

    blocks = parse_hcl(text, filename)
    diags: list[Diagnostic] = []
    out: LockFile = {}
    for b in blocks:
        if b.type != "provider" or len(b.labels) != 1:
            diags.append(error("Unsupported block type", f'Blocks of type "{b.type}" are not expected here.',
                               b.range))
            continue
        try:
            source = parse_provider_source(b.labels[0])
        except ValueError as exc:
            diags.append(error("Invalid provider source address",
                               f"Cannot parse {b.labels[0]!r} as a provider source address: {exc.args[-1]}",
                               b.range))
            continue
        if str(source) != b.labels[0]:
            diags.append(error("Non-normalized provider source address",
                               f"The provider source address for a provider lock must be a normalized address "
                               f"string. This address should be written as {str(source)!r}.", b.range))
            continue
        if source in out:
            diags.append(error("Duplicate provider lock",
                               f"This lockfile already declared a lock for provider {source}.", b.range))
            continue
        strings: dict[str, str] = {}
        hashes: list[str] = []
        for name, a in b.attributes.items():
            if name in ("version", "constraints") and isinstance(a.expr, E.Literal) and isinstance(a.expr.value, str):
                strings[name] = a.expr.value
            elif name == "hashes" and isinstance(a.expr, E.TupleExpr) and all(
                    isinstance(i, E.Literal) and isinstance(i.value, str) for i in a.expr.items):
                hashes = [i.value for i in a.expr.items if isinstance(i, E.Literal)]
            else:
                diags.append(error("Invalid provider lock" if name in ("version", "constraints", "hashes")
                                   else "Unsupported argument",
                                   f'The argument "{name}" is not valid here.', a.range))
        if "version" not in strings:
            diags.append(error("Missing required argument", 'The argument "version" is required, but no '
                               "definition was found.", b.range))
            continue
        try:
            version = parse_version(strings["version"])
        except ValueError:
            diags.append(error("Invalid provider version number",
                               f'The selected version number "{strings["version"]}" is not valid.',
                               SourceRange(filename, b.attributes["version"].range.line)))
            continue
        out[source] = Locked(source, version, strings.get("constraints", ""), tuple(sorted(set(hashes))))
    if diags:
        raise DiagnosticsError(diags)
    return out


def format_lock(lock: LockFile) -> str:
    """The file as terraform writes it: entries sorted by address, ``version`` and ``constraints``
    aligned, one hash a line."""
    parts = [_HEADER]
    for source in sorted(lock, key=str):
        e = lock[source]
        body = f'  version     = "{e.version}"\n  constraints = "{e.constraints}"\n' if e.constraints \
            else f'  version = "{e.version}"\n'
        hashes = "".join(f'    "{h}",\n' for h in e.hashes)
        parts.append(f'\nprovider "{source}" {{\n{body}  hashes = [\n{hashes}  ]\n}}\n')
    return "".join(parts)


def write_lock(directory: str | Path, lock: LockFile) -> None:
    """Replace the lock file with ``lock`` (atomically: a rename)."""
    path = os.path.join(directory, LOCK_FILE)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(format_lock(lock))
    os.replace(tmp, path)
