"""Fake provider packages: tiny executables in a filesystem mirror, in either layout (terraform
installs them without running them, so it can be compared with on them too)."""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

from engine.install.mirror import current_platform

HOST = "registry.terraform.io"


def script(name: str) -> bytes:
    return f"#!/bin/sh\necho {name}\n".encode()


def unpacked(mirror: Path, ns: str, typ: str, version: str, host: str = HOST) -> Path:
    """An unpacked package; the directory holding the executable."""
    d = mirror / host / ns / typ / version / current_platform()
    d.mkdir(parents=True, exist_ok=True)
    exe = d / f"terraform-provider-{typ}_v{version}_x5"
    exe.write_bytes(script(f"{typ} {version}"))
    exe.chmod(0o755)
    return d


def packed(mirror: Path, ns: str, typ: str, version: str, host: str = HOST) -> Path:
    """A packed package (a zip with the executable, its mode recorded); the zip."""
    d = mirror / host / ns / typ
    d.mkdir(parents=True, exist_ok=True)
    z = d / f"terraform-provider-{typ}_{version}_{current_platform()}.zip"
    with zipfile.ZipFile(z, "w") as zf:
        info = zipfile.ZipInfo(f"terraform-provider-{typ}_v{version}_x5", date_time=(2021, 1, 1, 0, 0, 0))
        info.external_attr = (0o100755 << 16)
        zf.writestr(info, script(f"{typ} {version}"))
    return z


def executable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def real_null_mirror() -> Path:
    """The filesystem mirror holding the real terraform-provider-null 2.1.2 (fetched once, see
    tests/plugins/fetch.py); the calling test is skipped, with the reason, when it cannot be had."""
    import pytest

    from tests.plugins.fetch import fetch

    got = fetch(aws=False)
    if got.null is None:
        pytest.skip("terraform-provider-null 2.1.2 is not available: " + "; ".join(got.problems))
    return got.mirror
