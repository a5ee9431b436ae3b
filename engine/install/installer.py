"""``init``'s provider installation: for each provider the configuration requires, select a version
(the locked one, else the newest its constraints admit; ``-upgrade`` ignores the lock), find its
package in the filesystem mirrors, install it into ``.terraform/providers`` (through the plugin
cache when there is one) and record it in the lock file -- in terraform's order and words.

A provider strata has built in is installed only when a mirror holds a plugin for it; otherwise the
built-in serves it and nothing is locked for it.
"""

from __future__ import annotations

import os
import shutil
import stat
import zipfile
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from engine.addrs import ProviderSource
from engine.diagnostics import Diagnostic, error
from engine.frozen import frozen
from engine.install.cliconfig import Installation, Method
from engine.install.hashes import hash_dir, hash_zip, matches_any
from engine.install.lockfile import Locked, LockFile
from engine.install.mirror import Package, current_platform, executable_in, package_dir, packages_in
from engine.install.versions import Constraints, Version, admits, newest, normal_form

PROVIDERS_DIR = os.path.join(".terraform", "providers")


@dataclass
class Outcome:
    """What installation did: the new lock file (not yet written), the providers left to a built-in,
    those whose hashes were computed here (terraform's "Incomplete lock file information"), errors."""

    lock: LockFile
    builtin: list[ProviderSource] = field(default_factory=list)
    hashed_locally: list[ProviderSource] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)


@frozen
class _Selected:
    source: ProviderSource
    version: Version
    package: Package | None  # None: already installed, the mirror was not needed
    constraints: Constraints


def _query_failed(source: ProviderSource, why: str, hint: bool = True) -> Diagnostic:
    detail = f"Could not retrieve the list of available versions for provider {source.for_display()}: {why}"
    if hint:
        detail += (f"\n\nTo see which modules are currently depending on {source.for_display()} and what versions "
                   "are specified, run the following command:\n    strata providers")
    return error("Failed to query available provider packages", detail)


def _unreachable(source: ProviderSource, remote: str) -> Diagnostic:
    target = current_platform()
    return _query_failed(source,
                         f"strata cannot reach {remote}: it installs providers only from filesystem mirrors. "
                         "Put the provider's package in a directory, in either layout:\n"
                         f"  {source}/VERSION/{target}/terraform-provider-{source.type}_vVERSION\n"
                         f"  {source}/terraform-provider-{source.type}_VERSION_{target}.zip\n"
                         'and run "strata init -plugin-dir=DIR", or name the directory in a filesystem_mirror '
                         "block of the CLI configuration file (TF_CLI_CONFIG_FILE or ~/.terraformrc):\n"
                         '  provider_installation {\n    filesystem_mirror {\n      path = "DIR"\n    }\n  }',
                         hint=False)


def install(requirements: Mapping[ProviderSource, Constraints], previous: LockFile, installation: Installation,
            workdir: Path, *, builtin: Collection[ProviderSource] = (), upgrade: bool = False,
            say: Callable[[str], None] = lambda line: None) -> Outcome:
    """Install what ``requirements`` need; ``say`` gets each progress line (``- Installing ...``)."""
    out = Outcome({})
    selected: list[_Selected] = []
    for source in sorted(requirements, key=str):
        if source.is_builtin:
            continue  # terraform.io/builtin/terraform and strata's own: never installed
        constraints = requirements[source]
        methods = [m for m in installation.methods if m.serves(source)]
        locked = None if upgrade else previous.get(source)
        if locked is not None:
            say(f"- Reusing previous version of {source.for_display()} from the dependency lock file")
            if not admits(constraints, locked.version):
                out.diagnostics.append(_query_failed(
                    source, f"locked provider {source} {locked.version} does not match configured version "
                            f"constraint {normal_form(constraints)}; must use strata init -upgrade to allow "
                            "selection of new versions"))
                continue
        elif constraints:
            say(f'- Finding {source.for_display()} versions matching "{normal_form(constraints)}"...')
        else:
            say(f"- Finding latest version of {source.for_display()}...")
        available: dict[Version, Package] = {}
        for m in methods:
            if m.local:
                for v, p in packages_in(Path(m.location), source).items():
                    available.setdefault(v, p)
        remote = [m for m in methods if not m.local]
        if locked is not None:
            installed = package_dir(workdir / PROVIDERS_DIR, source, locked.version)
            if locked.version in available:
                selected.append(_Selected(source, locked.version, available[locked.version], constraints))
            elif executable_in(installed, source) is not None and matches_any(installed, locked.hashes):
                selected.append(_Selected(source, locked.version, None, constraints))
            else:
                out.diagnostics.append(_missing(source, f"provider {source} {locked.version} is not available",
                                                methods, remote))
            continue
        version = newest(set(available), constraints)
        if version is None:
            if source in builtin:
                say(f"- Using built-in {source.for_display()} (no plugin installed)")
                out.builtin.append(source)
            elif available:
                out.diagnostics.append(_query_failed(source, "no available releases match the given constraints "
                                                             f"{normal_form(constraints)}"))
            else:
                out.diagnostics.append(_missing(source, f"provider {source} was not found in any of the search "
                                                        "locations", methods, remote))
            continue
        selected.append(_Selected(source, version, available[version], constraints))
    for sel in selected:
        entry = _install_one(sel, previous, installation, workdir, say, out)
        if entry is not None:
            out.lock[sel.source] = entry
    return out


def _missing(source: ProviderSource, why: str, methods: list[Method], remote: list[Method]) -> Diagnostic:
    if remote:
        where = "the provider registry" if remote[0].kind == "direct" else f"the network mirror {remote[0].location}"
        return _unreachable(source, f"{where} ({source.host})" if remote[0].kind == "direct" else where)
    dirs = "".join(f"\n  - {m.location}" for m in methods)
    return _query_failed(source, why + ("\n" + dirs if dirs else ""), hint=False)


def _install_one(sel: _Selected, previous: LockFile, installation: Installation, workdir: Path,
                 say: Callable[[str], None], out: Outcome) -> Locked | None:
    source, version = sel.source, sel.version
    prev = previous.get(source)
    allowed = prev.hashes if prev is not None and prev.version == version else ()
    target = package_dir(workdir / PROVIDERS_DIR, source, version)
    constraints = normal_form(sel.constraints)
    if allowed and executable_in(target, source) is not None and matches_any(target, allowed):
        say(f"- Using previously-installed {source.for_display()} v{version}")
        return Locked(source, version, constraints, allowed)
    pkg = sel.package
    if pkg is None:
        return None
    say(f"- Installing {source.for_display()} v{version}...")
    if allowed and not matches_any(pkg.location, allowed):
        out.diagnostics.append(error(
            "Failed to install provider",
            f"Error while installing {source.for_display()} v{version}: the local package for {source} {version} "
            "doesn't match any of the checksums previously recorded in the dependency lock file (this might be "
            "because the available checksums are for packages targeting different platforms); for more "
            "information: https://developer.hashicorp.com/terraform/language/files/dependency-lock#checksum-verification"))
        return None
    try:
        h1 = hash_zip(pkg.location) if pkg.packed else hash_dir(pkg.location)
        cache = installation.plugin_cache_dir
        if cache is not None:
            cached = package_dir(cache, source, version)
            if not (executable_in(cached, source) is not None and hash_dir(cached) == h1):
                _place(pkg, cached)
            _link(cached, target)
        else:
            _place(pkg, target)
    except (OSError, zipfile.BadZipFile) as exc:
        out.diagnostics.append(error("Failed to install provider",
                                     f"Error while installing {source.for_display()} v{version}: {exc}"))
        return None
    if executable_in(target, source) is None:
        out.diagnostics.append(error("Failed to install provider",
                                     f"Error while installing {source.for_display()} v{version}: the package has no "
                                     f"executable named terraform-provider-{source.type}*"))
        return None
    say(f"- Installed {source.for_display()} v{version} (unauthenticated)")
    if h1 not in allowed:
        out.hashed_locally.append(source)
    return Locked(source, version, constraints, tuple(sorted({*allowed, h1})))


def _clear(path: Path) -> None:
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path)


def _place(pkg: Package, target: Path) -> None:
    """An unpacked package is linked, as terraform links a mirror's directory; a zip is unpacked."""
    if pkg.packed:
        _clear(target)
        target.parent.mkdir(parents=True, exist_ok=True)
        part = target.with_name(target.name + ".part")
        _clear(part)
        with zipfile.ZipFile(pkg.location) as zf:
            for info in zf.infolist():
                dest = part / info.filename
                if not os.path.realpath(dest).startswith(os.path.realpath(part) + os.sep):
                    raise OSError(f"the archive entry {info.filename!r} points outside the package")
                zf.extract(info, part)
                mode = info.external_attr >> 16
                if mode and not info.is_dir():
                    os.chmod(dest, stat.S_IMODE(mode))
        part.rename(target)
    else:
        _link(pkg.location, target)


def _link(source_dir: Path, target: Path) -> None:
    _clear(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(os.path.abspath(source_dir), target)
