"""``init``'s module installation, as terraform's module installer does it: walk the module calls
from the root, in name order and depth first, and for each call

- a local path (``./x``) is its caller's directory joined with the path: nothing is copied;
- a remote package (``git::...``, an archive URL, ...) is fetched into ``.terraform/modules/KEY``;
- a registry address is resolved to the newest version its constraint admits, and the package the
  registry names for it is fetched the same way;

then the modules each installed module calls, recursively. What was installed is recorded in
``modules.json`` (:mod:`engine.install.module_manifest`). A call whose source and version are what
the manifest already records, and whose directory is still there, is kept as it is unless
``upgrade`` asks for everything again.

Only what installation needs is read from each module's files: its ``module`` blocks' ``source``
and ``version``, whose mistakes are reported here (as terraform's early reading of the calls does).
Anything else wrong with the files is left to the configuration loader, after installation.
"""

from __future__ import annotations

import glob
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from engine.diagnostics import Diagnostic, DiagnosticsError, SourceRange, error
from engine.install.module_fetch import (
    FetchError,
    ModuleNotFound,
    fetch_package,
    registry_base,
    registry_location,
    registry_versions,
)
from engine.install.module_manifest import (
    ROOT_RECORD,
    ModuleRecord,
    modules_dir,
    read_manifest,
    write_manifest,
)
from engine.install.module_source import (
    LocalSource,
    ModuleSource,
    RegistrySource,
    RemoteSource,
    parse_module_source,
    parse_registry_source,
    source_error,
)
from engine.install.versions import (
    Constraints,
    Version,
    admits,
    newest,
    parse_constraints,
    parse_version,
)
from engine.lang import expr as E
from engine.lang.hcl_ast import Block


@dataclass(frozen=True, slots=True)
class CallSource:
    """A ``module`` block as installation sees it: its name, source and version constraint."""

    name: str
    source: ModuleSource
    constraints: Constraints | None
    range: SourceRange  # the block's header


def module_calls_in(directory: str, display_dir: str, diags: list[Diagnostic] | None = None) -> list[CallSource]:
    """The module calls of the module in ``directory`` whose source (and version) parse, by name;
    file names shown relative to the working directory (``display_dir``: the module's). A source
    or version terraform refuses goes to ``diags`` (terraform's early reading of the calls)."""
    from engine.lang.hcl import parse_hcl
    from engine.lang.hcl_json import parse_json

    try:
        names = sorted(os.listdir(directory))
    except OSError:
        return []
    found: dict[str, CallSource] = {}
    for n in names:
        if n.startswith(".") or not (n.endswith(".tf") or n.endswith(".tf.json")):
            continue
        display = os.path.normpath(os.path.join(display_dir, n))
        try:
            with open(os.path.join(directory, n), encoding="utf-8") as f:
                text = f.read()
            blocks = parse_json(text, display) if n.endswith(".json") else parse_hcl(text, display)
        except (OSError, UnicodeDecodeError, DiagnosticsError):
            continue
        for b in blocks:
            if b.type != "module" or len(b.labels) != 1 or b.labels[0] in found:
                continue
            call = _call_source(b, diags if diags is not None else [])
            if call is not None:
                found[call.name] = call
    return [found[k] for k in sorted(found)]


def _call_source(b: Block, diags: list[Diagnostic]) -> CallSource | None:
    src, ver = b.attributes.get("source"), b.attributes.get("version")
    raw = _literal(src)
    if raw is None or src is None:
        return None  # a missing or computed source: the configuration loader says so
    constraints: Constraints | None = None
    if ver is not None:
        text = _literal(ver)
        if text is None:
            return None
        try:
            constraints = parse_constraints(text)
        except ValueError as exc:
            diags.append(replace(error("Invalid version constraint", str(exc), ver.range), context=b.context()))
            return None
    bad = source_error(raw, ver is not None)
    if bad is not None:
        diags.append(replace(error(bad[0], bad[1], src.range), context=b.context()))
        return None
    source = parse_registry_source(raw) if ver is not None else parse_module_source(raw)
    return CallSource(b.labels[0], source, constraints, b.range.header())


def _literal(attr: object) -> str | None:
    expr = getattr(attr, "expr", None)
    if isinstance(expr, E.Literal) and isinstance(expr.value, str):
        return expr.value
    if isinstance(expr, E.Template) and all(isinstance(p, str) for p in expr.parts):
        return "".join(str(p) for p in expr.parts)
    return None


@dataclass
class ModulesOutcome:
    """The manifest's records after installation (written already), and the errors."""

    records: dict[str, ModuleRecord]
    diagnostics: list[Diagnostic] = field(default_factory=list)


class _Installer:
    def __init__(self, workdir: Path, upgrade: bool, hosts: dict[str, dict[str, str]],
                 say: Callable[[str], None]) -> None:
        self.workdir = workdir
        self.upgrade = upgrade
        self.hosts = hosts
        self.say = say
        self.previous = read_manifest(workdir)
        self.records: dict[str, ModuleRecord] = {"": ROOT_RECORD}
        self.diagnostics: list[Diagnostic] = []
        self.bases: dict[str, str | FetchError] = {}
        self.versions: dict[str, list[Version] | FetchError] = {}
        self.packages: dict[str, tuple[str, str]] = {}
        """The package each installed module is in (its address and directory); none for the
        root's local modules."""

    def path(self, d: str) -> str:
        return d if os.path.isabs(d) else os.path.join(self.workdir, d)

    def token(self, host: str) -> str | None:
        from engine.install.cliconfig import registry_token

        return registry_token(host)

    def eval_symlinks(self, d: str) -> str:
        """terraform resolves a local module's directory through symlinks (a ``file://`` package is
        one): the path as it is when none is on the way, else where the links lead."""
        if os.path.isabs(d):
            return os.path.realpath(d)
        parts = d.split(os.sep)
        for i in range(1, len(parts) + 1):
            if os.path.islink(self.path(os.path.join(*parts[:i]))):
                return os.path.realpath(self.path(d))
        return d

    def walk(self, parent: ModuleRecord) -> None:
        for call in module_calls_in(self.path(parent.dir), parent.dir, self.diagnostics):
            key = f"{parent.key}.{call.name}" if parent.key else call.name
            record = self.install(key, parent, call)
            if record is not None:
                self.records[key] = record
                if isinstance(call.source, LocalSource):
                    if parent.key in self.packages:
                        self.packages[key] = self.packages[parent.key]
                else:
                    self.packages[key] = (call.source.package, os.path.join(modules_dir(), key))
                if record.dir:
                    self.walk(record)

    def install(self, key: str, parent: ModuleRecord, call: CallSource) -> ModuleRecord | None:
        src = call.source
        prev = self.previous.get(key)
        if isinstance(src, LocalSource):
            d = os.path.normpath(os.path.join(parent.dir, src.path))
            package = self.packages.get(parent.key)
            if package is not None and d != package[1] and not d.startswith(package[1] + os.sep):
                self.say(f"- {key} in")  # and no directory, as terraform says it
                self.diagnostics.append(error(
                    "Local module path escapes module package",
                    f"The given source directory for {_display(key)} would be outside of its containing package "
                    f'"{package[0]}". Local source addresses starting with "../" must stay within the same '
                    "package that the calling module belongs to."))
                return ModuleRecord(key, str(src), None, "")
            d = self.eval_symlinks(d)
            if not os.path.isdir(self.path(d)):
                self.diagnostics.append(error("Unreadable module directory",
                                              f"The directory {d} does not exist or cannot be read.", call.range))
                return None
            if self.upgrade or prev is None or prev.source != str(src) or prev.dir != d:
                self.say(f"- {key} in {d}")
            return ModuleRecord(key, str(src), None, d)
        if (not self.upgrade and prev is not None and prev.source == str(src) and _has_config(self.path(prev.dir))
                and (call.constraints is None or (prev.version is not None
                                                  and _admits(call.constraints, prev.version)))):
            return prev
        target = Path(modules_dir()) / key
        _clear(self.workdir / target)
        if isinstance(src, RemoteSource):
            self.say(f"Downloading {src.package} for {key}...")
            if not self.fetch(key, call, src.package, target):
                return None
            return self.placed(key, call, str(src), None, target, src.subdir)
        return self.from_registry(key, call, src, target)

    def from_registry(self, key: str, call: CallSource, src: RegistrySource, target: Path) -> ModuleRecord | None:
        where = f"{call.range.filename}:{call.range.line}"
        base = self.bases.get(src.host)
        if base is None:
            try:
                base = registry_base(src.host, self.hosts, self.token(src.host))
            except FetchError as exc:
                base = exc
            self.bases[src.host] = base
        if isinstance(base, FetchError):
            self.diagnostics.append(error("Error accessing remote module registry",
                                          f'Failed to retrieve available versions for module "{call.name}" ({where}) '
                                          f"from {src.host}: {base}.", call.range))
            return None
        versions = self.versions.get(src.package)
        if versions is None:
            try:
                listed = registry_versions(src, base, self.token(src.host))
                versions = sorted(v for v in map(_version, listed) if v is not None)
            except FetchError as exc:
                versions = exc
            self.versions[src.package] = versions
        if isinstance(versions, ModuleNotFound):
            self.diagnostics.append(error("Module not found",
                                          f'Module "{call.name}" (from {where}) cannot be found in the module '
                                          f"registry at {src.host}.", call.range))
            return None
        if isinstance(versions, FetchError):
            self.diagnostics.append(error("Error accessing remote module registry",
                                          f'Failed to retrieve available versions for module "{call.name}" ({where}) '
                                          f"from {src.host}: {versions}.", call.range))
            return None
        chosen = newest(versions, call.constraints or ())
        if chosen is None:
            latest = max((v for v in versions if not v.prerelease), default=None)
            self.diagnostics.append(error(
                "Unresolvable module version constraint",
                f'There is no available version of module "{src.package}" ({where}) which matches the given '
                "version constraint." + (f" The newest available version is {latest}." if latest else ""),
                call.range))
            return None
        self.say(f"Downloading {src.package} {chosen} for {key}...")
        try:
            location = registry_location(src, str(chosen), base, self.token(src.host))
        except FetchError as exc:
            self.diagnostics.append(error("Error accessing remote module registry",
                                          f"Failed to retrieve a download URL for {src.package} {chosen} from "
                                          f"{src.host}: {exc}", call.range))
            return None
        try:
            real: ModuleSource | None = parse_module_source(location)
        except ValueError:
            real = None
        if not isinstance(real, RemoteSource):
            self.diagnostics.append(error("Invalid package location from module registry",
                                          f'Module registry {src.host} returned invalid source location "{location}" '
                                          f"for {src.package} {chosen}.", call.range))
            return None
        if not self.fetch(key, call, real.package, target):
            return None
        subdir = os.path.normpath(os.path.join(real.subdir, src.subdir)) if real.subdir and src.subdir \
            else (real.subdir or src.subdir)
        return self.placed(key, call, str(src), str(chosen), target, subdir)

    def fetch(self, key: str, call: CallSource, package: str, target: Path) -> bool:
        try:
            fetch_package(package, self.workdir / target, self.workdir)
        except FetchError as exc:
            _clear(self.workdir / target)
            self.diagnostics.append(error(
                "Failed to download module",
                f'Could not download module "{call.name}" ({call.range.filename}:{call.range.line}) source code '
                f'from "{package}": {str(exc).rstrip()}', call.range))
            return False
        return True

    def placed(self, key: str, call: CallSource, source: str, version: str | None, target: Path,
               subdir: str) -> ModuleRecord | None:
        d = str(target)
        if subdir:
            found = sorted(glob.glob(glob.escape(self.path(d)) + os.sep + subdir)) if glob.has_magic(subdir) \
                else [self.path(os.path.join(d, subdir))]
            found = [f for f in found if os.path.isdir(f)]
            if len(found) != 1:
                why = "not found" if not found else "matches multiple paths"
                self.diagnostics.append(error("Failed to expand subdir globs", f'subdir "{subdir}" {why}'))
                return None
            d = os.path.normpath(os.path.join(d, os.path.relpath(found[0], self.path(d))))
        self.say(f"- {key} in {d}")
        return ModuleRecord(key, source, version, d)


def _display(key: str) -> str:
    return ".".join(f"module.{name}" for name in key.split("."))


def _version(text: str) -> Version | None:
    try:
        return parse_version(text)
    except ValueError:
        return None


def _admits(constraints: Constraints, text: str) -> bool:
    v = _version(text)
    return v is not None and admits(constraints, v)


def _has_config(d: str) -> bool:
    try:
        return any(n.endswith((".tf", ".tf.json")) for n in os.listdir(d))
    except OSError:
        return False


def _clear(path: Path) -> None:
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path)


def install_modules(workdir: Path, *, upgrade: bool = False, hosts: dict[str, dict[str, str]] | None = None,
                    say: Callable[[str], None] = lambda line: None) -> ModulesOutcome:
    """Install every module the configuration in ``workdir`` calls, write the manifest (also when
    some failed: those are left out), and say what is done (``Downloading ... for KEY...``,
    ``- KEY in DIR``)."""
    inst = _Installer(workdir, upgrade, hosts or {}, say)
    inst.walk(ROOT_RECORD)
    write_manifest(workdir, inst.records)
    return ModulesOutcome(inst.records, inst.diagnostics)


def has_module_calls(workdir: Path) -> bool:
    """Whether the root module calls any module (terraform says "Initializing modules..." then)."""
    from engine.lang.hcl import parse_hcl
    from engine.lang.hcl_json import parse_json

    try:
        names = sorted(os.listdir(workdir))
    except OSError:
        return False
    for n in names:
        if n.startswith(".") or not (n.endswith(".tf") or n.endswith(".tf.json")):
            continue
        try:
            text = (workdir / n).read_text(encoding="utf-8")
            blocks = parse_json(text, n) if n.endswith(".json") else parse_hcl(text, n)
        except (OSError, UnicodeDecodeError, DiagnosticsError):
            continue
        if any(b.type == "module" for b in blocks):
            return True
    return False
