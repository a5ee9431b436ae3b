"""Where an installed provider plugin is: the working directory's ``.terraform/providers/``.

``terraform init`` (and ``strata init``) unpack a provider into
``.terraform/providers/HOST/NAMESPACE/TYPE/VERSION/OS_ARCH/terraform-provider-TYPE*``;
``terraform init -plugin-dir=DIR`` instead records its directories in ``.terraform/plugin_path``
(a JSON list) and uses the plugins there, in the same layout, where they are. A
provider's source is ``HOST/NAMESPACE/TYPE``; a local name with no ``required_providers``
entry implies ``registry.terraform.io/hashicorp/NAME``, as in terraform.
"""

from __future__ import annotations

import os
import platform
import re
from pathlib import Path

import orjson

DEFAULT_HOST = "registry.terraform.io"
_VERSION = re.compile(r"(\d+)\.(\d+)\.(\d+)(.*)")


def platform_dir() -> str:
    """terraform's OS_ARCH of this machine (``linux_amd64``)."""
    machine = platform.machine().lower()
    arch = {"x86_64": "amd64", "amd64": "amd64", "aarch64": "arm64", "arm64": "arm64",
            "i386": "386", "i686": "386"}.get(machine, machine)
    return f"{platform.system().lower()}_{arch}"


def implied_source(local_name: str) -> str:
    return f"{DEFAULT_HOST}/hashicorp/{local_name}"


def full_source(source: str) -> str:
    """``hashicorp/null`` → ``registry.terraform.io/hashicorp/null`` (a full one unchanged)."""
    parts = source.split("/")
    return f"{DEFAULT_HOST}/{source}" if len(parts) == 2 else source


def installed_plugin(source: str, workdir: str | Path = ".") -> Path | None:
    """The executable of the newest installed version of ``source`` for this platform, or None:
    from ``.terraform/providers``, else from the directories of ``.terraform/plugin_path``."""
    dot = Path(workdir) / ".terraform"
    found = _newest(dot / "providers", source)
    if found is not None:
        return found
    try:
        dirs = orjson.loads((dot / "plugin_path").read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None
    for d in dirs if isinstance(dirs, list) else ():
        found = _newest(Path(workdir) / str(d), source)
        if found is not None:
            return found
    return None


def _newest(root: Path, source: str) -> Path | None:
    host, namespace, type_name = full_source(source).split("/")
    base = root / host / namespace / type_name
    try:
        versions = [v for v in os.listdir(base) if _VERSION.fullmatch(v)]
    except OSError:
        return None
    for version in sorted(versions, key=_version_key, reverse=True):
        d = base / version / platform_dir()
        try:
            names = sorted(os.listdir(d))
        except OSError:
            continue
        for name in names:
            exe = d / name
            if name.startswith(f"terraform-provider-{type_name}") and os.access(exe, os.X_OK) and exe.is_file():
                return exe
    return None


def _version_key(v: str) -> tuple[int, int, int, int, str]:
    m = _VERSION.fullmatch(v)
    assert m is not None
    pre = m.group(4)
    return (int(m.group(1)), int(m.group(2)), int(m.group(3)), 0 if pre else 1, pre)
