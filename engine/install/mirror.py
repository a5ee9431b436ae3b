"""Filesystem mirrors: directories of provider packages, in either of terraform's layouts --

- unpacked: ``HOST/NAMESPACE/TYPE/VERSION/OS_ARCH/`` holding the plugin executable;
- packed: ``HOST/NAMESPACE/TYPE/terraform-provider-TYPE_VERSION_OS_ARCH.zip``.

Only packages for this machine's platform count. The same layout (unpacked) is ``.terraform/providers``
and a ``plugin_cache_dir``.
"""

from __future__ import annotations

import os
import platform
import re
from pathlib import Path

from engine.addrs import ProviderSource, parse_provider_source
from engine.frozen import frozen
from engine.install.versions import Version, parse_version

_ARCH = {"x86_64": "amd64", "amd64": "amd64", "aarch64": "arm64", "arm64": "arm64", "i386": "386",
         "i686": "386", "armv7l": "arm"}


def current_platform() -> str:
    """``linux_amd64``: terraform's name for this machine's OS and architecture."""
    machine = platform.machine().lower()
    return f"{platform.system().lower()}_{_ARCH.get(machine, machine)}"


@frozen
class Package:
    """A provider package found somewhere: ``location`` is its unpacked directory or its zip."""

    source: ProviderSource
    version: Version
    location: Path

    @property
    def packed(self) -> bool:
        return self.location.suffix == ".zip"


def _host_dirs(root: Path, source: ProviderSource) -> list[Path]:
    """The directories in ``root`` for ``source``'s host, namespace and type (names compared as
    terraform does: normalised, so ``Registry.Terraform.IO`` serves too)."""
    out = []
    try:
        hosts = sorted(os.listdir(root))
    except OSError:
        return []
    for host in hosts:
        if host.lower() != source.host:
            continue
        base = root / host
        try:
            for ns in sorted(os.listdir(base)):
                if ns.lower() != source.namespace:
                    continue
                for typ in sorted(os.listdir(base / ns)):
                    if typ.lower() == source.type:
                        out.append(base / ns / typ)
        except OSError:
            continue
    return out


def packages_in(root: Path, source: ProviderSource, target: str | None = None) -> dict[Version, Package]:
    """Every package for ``source`` in the mirror at ``root`` for the platform ``target`` (this
    machine's by default), by version; an unpacked one wins over a packed one of the same version."""
    target = target or current_platform()
    found: dict[Version, Package] = {}
    packed = re.compile(rf"terraform-provider-{re.escape(source.type)}_([^_]+)_{re.escape(target)}\.zip\Z")
    for typ_dir in _host_dirs(root, source):
        for name in sorted(os.listdir(typ_dir)):
            full = typ_dir / name
            m = packed.match(name)
            if m and full.is_file():
                try:
                    v = parse_version(m[1])
                except ValueError:
                    continue
                found.setdefault(v, Package(source, v, full))
            elif (full / target).is_dir():
                try:
                    v = parse_version(name)
                except ValueError:
                    continue
                found[v] = Package(source, v, full / target)
    return found


def sources_in(root: Path) -> list[ProviderSource]:
    """Every provider a mirror holds a package of (any version, any platform)."""
    out: set[ProviderSource] = set()
    try:
        for host in os.listdir(root):
            for ns in os.listdir(root / host):
                for typ in os.listdir(root / host / ns):
                    try:
                        out.add(parse_provider_source(f"{host}/{ns}/{typ}"))
                    except ValueError:
                        continue
    except (OSError, NotADirectoryError):
        pass
    return sorted(out)


def executable_in(package_dir: Path, source: ProviderSource) -> Path | None:
    """The plugin executable of an unpacked package: the file named ``terraform-provider-TYPE...``,
    as terraform finds it; None when there is none."""
    try:
        names = sorted(os.listdir(package_dir))
    except OSError:
        return None
    prefix = f"terraform-provider-{source.type}"
    for name in names:
        full = package_dir / name
        if name.startswith(prefix) and full.is_file() and os.access(full, os.X_OK):
            return full
    return None


def package_dir(root: Path, source: ProviderSource, version: Version, target: str | None = None) -> Path:
    """Where an unpacked package for ``source`` at ``version`` lives below ``root`` (``.terraform/providers``
    or a plugin cache)."""
    return root / source.host / source.namespace / source.type / str(version) / (target or current_platform())
