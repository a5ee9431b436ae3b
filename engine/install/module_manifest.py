"""``.terraform/modules/modules.json``: what ``init`` installed for each module call, keyed by the
call's path (``a.b`` for the call ``b`` in the module ``a`` calls; ``""`` for the root), in
terraform's exact format -- so either tool uses the modules the other installed.

Each record holds the call's source in its normal form, the version a registry gave (else none)
and the module's directory relative to the working directory (a local module's is its path, not a
copy).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import orjson


def data_dir() -> str:
    """terraform's data directory, relative to the working directory."""
    return os.environ.get("TF_DATA_DIR") or ".terraform"


def modules_dir() -> str:
    return os.path.join(data_dir(), "modules")


@dataclass(frozen=True, slots=True)
class ModuleRecord:
    """One installed module: ``dir`` relative to the working directory (or absolute)."""

    key: str
    source: str
    version: str | None
    dir: str


ROOT_RECORD = ModuleRecord("", "", None, ".")


def manifest_path(workdir: str | Path) -> Path:
    return Path(workdir) / modules_dir() / "modules.json"


_read: dict[Path, tuple[tuple[int, int], dict[str, ModuleRecord]]] = {}


def read_manifest(workdir: str | Path) -> dict[str, ModuleRecord]:
    """The records by key; empty when nothing was installed (or the file is unreadable, as
    terraform treats it: every module is then not installed). Read once while the file stays
    as it is (loading a configuration asks for it once per installed call): not to be changed."""
    path = manifest_path(workdir)
    try:
        st = os.stat(path)
    except OSError:
        return {}
    stamp = (st.st_mtime_ns, st.st_size)
    got = _read.get(path)
    if got is not None and got[0] == stamp:
        return got[1]
    try:
        data = orjson.loads(path.read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return {}
    out: dict[str, ModuleRecord] = {}
    for r in (data.get("Modules") or []) if isinstance(data, dict) else []:
        if not isinstance(r, dict) or not isinstance(r.get("Key"), str) or not isinstance(r.get("Dir"), str):
            continue
        version = r.get("Version")
        out[r["Key"]] = ModuleRecord(r["Key"], str(r.get("Source") or ""),
                                     version if isinstance(version, str) and version else None,
                                     os.path.normpath(r["Dir"]))
    _read[path] = (stamp, out)
    return out


def encode_manifest(records: dict[str, ModuleRecord]) -> bytes:
    """terraform's bytes: compact, sorted by key, fields in its order, Go's HTML-safe escapes."""
    rows = []
    for key in sorted(records):
        r = records[key]
        row: dict[str, str] = {"Key": r.key, "Source": r.source}
        if r.version:
            row["Version"] = r.version
        row["Dir"] = r.dir
        rows.append(row)
    text = orjson.dumps({"Modules": rows})
    for raw, esc in ((b"&", b"\\u0026"), (b"<", b"\\u003c"), (b">", b"\\u003e"),
                     ("\u2028".encode(), b"\\u2028"), ("\u2029".encode(), b"\\u2029")):
        text = text.replace(raw, esc)
    return text


def write_manifest(workdir: str | Path, records: dict[str, ModuleRecord]) -> None:
    path = manifest_path(workdir)
    path.parent.mkdir(parents=True, exist_ok=True)
    part = path.with_name(path.name + ".part")
    part.write_bytes(encode_manifest(records))
    part.replace(path)
