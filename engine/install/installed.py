"""What a working directory has installed, read on every run: the plugin each locked provider's
package holds in ``.terraform/providers``, and whether that agrees with the configuration and the
lock file (terraform's "Inconsistent dependency lock file" and "Required plugins are not
installed")."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Collection, Mapping
from pathlib import Path

import orjson

from engine.addrs import ProviderSource
from engine.diagnostics import Diagnostic, error
from engine.install.hashes import hash_dir
from engine.install.lockfile import LOCK_FILE, LockFile, read_lock
from engine.install.mirror import executable_in, package_dir
from engine.install.versions import Constraints, admits, normal_form

PROVIDERS_DIR = Path(".terraform") / "providers"


def installed_plugins(workdir: str | Path = ".", lock: LockFile | None = None) -> dict[ProviderSource, Path]:
    """The plugin executable of each provider the lock file selects that is installed (its package
    in ``.terraform/providers``): these serve their providers instead of any built-in. Cheap when
    there is no lock file (one failed open)."""
    workdir = Path(workdir)
    if lock is None:
        lock = read_lock(workdir)
    out: dict[ProviderSource, Path] = {}
    for source, entry in lock.items():
        exe = executable_in(package_dir(workdir / PROVIDERS_DIR, source, entry.version), source)
        if exe is not None:
            out[source] = exe
    return out


def check_installed(requirements: Mapping[ProviderSource, Constraints], builtin: Collection[ProviderSource],
                    workdir: str | Path = ".") -> list[Diagnostic]:
    """What is wrong between the configuration's requirements, the lock file and
    ``.terraform/providers``: a required provider neither locked nor built in, a locked version
    the constraints no longer admit, a locked package missing or not matching its hashes. Each
    names the provider, in terraform's words. A built-in provider needs no lock entry."""
    workdir = Path(workdir)
    lock = read_lock(workdir)
    inconsistent: list[str] = []
    for source in sorted(requirements, key=str):
        entry = lock.get(source)
        if entry is None:
            if not source.is_builtin and source not in builtin:
                inconsistent.append(f"provider {source}: required by this configuration but no version is selected")
        elif not admits(requirements[source], entry.version):
            inconsistent.append(f"provider {source}: locked version selection {entry.version} doesn't match the "
                                f'updated version constraints "{normal_form(requirements[source])}"')
    if inconsistent:
        how = ("To update the locked dependency selections to match a changed configuration, run:\n"
               "  strata init -upgrade") if lock else (
               "To make the initial dependency selections that will initialize the dependency lock file, run:\n"
               "  strata init")
        return [error("Inconsistent dependency lock file",
                      "The following dependency selections recorded in the lock file are inconsistent with the "
                      "current configuration:\n" + "".join(f"  - {line}\n" for line in inconsistent) + "\n" + how)]
    missing: list[str] = []
    for source in sorted(requirements, key=str):
        entry = lock.get(source)
        if entry is None:
            continue
        pkg = package_dir(workdir / PROVIDERS_DIR, source, entry.version)
        where = f"{PROVIDERS_DIR}"
        if executable_in(pkg, source) is None:
            missing.append(f"{source}: there is no package for {source} {entry.version} cached in {where}")
        elif not _matches_locked(workdir, pkg, entry.hashes):
            missing.append(f"{source}: the cached package for {source} {entry.version} (in {where}) does not match "
                           f"any of the checksums recorded in the dependency lock file")
    if missing:
        return [error("Required plugins are not installed",
                      "The installed provider plugins are not consistent with the packages selected in the "
                      "dependency lock file:\n" + "".join(f"  - {line}\n" for line in missing)
                      + "\nstrata uses external plugins to integrate with a variety of different infrastructure "
                        "services. To download the plugins required for this configuration, run:\n  strata init")]
    return []


HASH_CACHE = Path(".terraform") / "strata-package-hashes.json"
"""The ``h1:`` of each installed package, by the identity of its files, so that a run need not
read a plugin of hundreds of megabytes to check it (terraform does, on every run). A file counts as
unchanged only with the same size, inode, modification and change times: changing its bytes
changes its change time, which a user cannot set back. terraform ignores the file."""


def _fingerprint(directory: str) -> list[list[object]]:
    out: list[list[object]] = []
    for dirpath, dirnames, filenames in os.walk(directory):
        dirnames.sort()
        for name in sorted(filenames):
            st = os.stat(os.path.join(dirpath, name))
            out.append([os.path.relpath(os.path.join(dirpath, name), directory), st.st_size, st.st_ino,
                        st.st_mtime_ns, st.st_ctime_ns])
    return out


def _matches_locked(workdir: Path, package: Path, hashes: tuple[str, ...]) -> bool:
    """Whether an unpacked package has one of the lock file's ``h1:`` hashes (a ``zh:`` hash never
    matches an unpacked package, as in terraform)."""
    real = os.path.realpath(package)
    cache_path = workdir / HASH_CACHE
    try:
        cache = orjson.loads(cache_path.read_bytes())
        if not isinstance(cache, dict):
            cache = {}
    except (OSError, ValueError):
        cache = {}
    fingerprint = _fingerprint(real)
    known = cache.get(real)
    if isinstance(known, dict) and known.get("files") == fingerprint and isinstance(known.get("h1"), str):
        h1 = known["h1"]
    else:
        h1 = hash_dir(real)
        cache[real] = {"files": fingerprint, "h1": h1}
        with contextlib.suppress(OSError):  # a read-only directory: the check still holds, only slower
            tmp = cache_path.with_name(cache_path.name + ".tmp")
            tmp.write_bytes(orjson.dumps(cache))
            os.replace(tmp, cache_path)
    return h1 in hashes


__all__ = ["LOCK_FILE", "check_installed", "installed_plugins"]
