"""Module source addresses as terraform reads them (``addrs.ParseModuleSource`` and go-getter's
detectors): a local path (``./x``, ``../x``), a registry address (``[HOST/]NAMESPACE/NAME/SYSTEM``)
or a remote package (``git::URL``, an ``http(s)`` URL, a ``file://`` URL, an absolute path,
``github.com/OWNER/REPO``, ``git@HOST:PATH``); a remote or registry address may select a
subdirectory of its package with ``//SUBDIR``.

Each address has terraform's normal form (``str``): the manifest ``modules.json`` records it, and
a configuration's source is compared with the installed one in that form (``ns/name/system`` is
``registry.terraform.io/ns/name/system``; ``git::/repo`` is ``git::file:///repo``).
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from urllib.parse import urlsplit

from engine.diagnostics import StrataError

DEFAULT_MODULE_REGISTRY = "registry.terraform.io"
_LOCAL_PREFIXES = ("./", "../", ".\\", "..\\")
_NAME = re.compile(r"[0-9A-Za-z](?:[0-9A-Za-z\-_]{0,62}[0-9A-Za-z])?\Z")
_SYSTEM = re.compile(r"[0-9a-z]{1,64}\Z")
_FORCED = re.compile(r"([A-Za-z0-9]+)::(.+)\Z", re.DOTALL)
_SCP_LIKE = re.compile(r"git@([\w.\-]+):([\w.\-/~]+)(.*)\Z")


class MaybeRelativePath(StrataError, ValueError):
    """A source nothing recognises: terraform suggests the ``./`` prefix."""

    def __init__(self, addr: str) -> None:
        super().__init__(addr)
        self.addr = addr


@dataclass(frozen=True, slots=True)
class LocalSource:
    """A path relative to the calling module's directory, cleaned, starting ``./`` or ``../``."""

    path: str

    def __str__(self) -> str:
        return self.path


@dataclass(frozen=True, slots=True)
class RegistrySource:
    """``HOST/NAMESPACE/NAME/SYSTEM`` (the host lower-cased; the default registry's when left out)."""

    host: str
    namespace: str
    name: str
    system: str
    subdir: str = ""

    @property
    def package(self) -> str:
        return f"{self.host}/{self.namespace}/{self.name}/{self.system}"

    def __str__(self) -> str:
        return self.package + (f"//{self.subdir}" if self.subdir else "")


@dataclass(frozen=True, slots=True)
class RemoteSource:
    """A go-getter package address in its detected form (``git::file:///repo?ref=v1``) and the
    subdirectory of the package the module is in."""

    package: str
    subdir: str = ""

    def __str__(self) -> str:
        if not self.subdir:
            return self.package
        if "?" in self.package:
            base, query = self.package.split("?", 1)
            return f"{base}//{self.subdir}?{query}"
        return f"{self.package}//{self.subdir}"


ModuleSource = LocalSource | RegistrySource | RemoteSource


def is_local(raw: str) -> bool:
    return raw.startswith(_LOCAL_PREFIXES)


def parse_module_source(raw: str) -> ModuleSource:
    """Any source; ValueError (``MaybeRelativePath`` when nothing recognises it) for one terraform
    refuses. A source that parses as a registry address is one, whatever else it could be."""
    if is_local(raw):
        return _local(raw)
    try:
        return parse_registry_source(raw)
    except ValueError:
        pass
    return parse_remote_source(raw)


def source_error(source: str, registry: bool) -> tuple[str, str] | None:
    """terraform's summary and detail for a source address it refuses; None for a good one."""
    if registry:
        try:
            parse_registry_source(source)
        except ValueError as exc:
            return ("Invalid registry module source address",
                    f"Failed to parse module registry address: {exc}.\n\nstrata assumed that you intended a module "
                    'registry source address because you also set the argument "version", which applies only to '
                    "registry modules.")
        return None
    try:
        parse_module_source(source)
    except MaybeRelativePath as exc:
        return ("Invalid module source address",
                f'strata failed to determine your intended installation method for remote module package '
                f'"{exc.addr}".\n\nIf you intended this as a path relative to the current module, use "./{exc.addr}" '
                'instead. The "./" prefix indicates that the address is a relative filesystem path.')
    except ValueError as exc:
        return "Invalid module source address", f"Failed to parse module source address: {exc}."
    return None


def _local(raw: str) -> LocalSource:
    clean = posixpath.normpath(raw.replace("\\", "/"))
    return LocalSource(clean if clean.startswith("../") or clean == ".." else "./" + clean)


def split_subdir(src: str) -> tuple[str, str]:
    """go-getter's ``SourceDirSubdir``: ``URL//SUBDIR?Q`` into ``URL?Q`` and ``SUBDIR`` (cleaned)."""
    stop = src.find("?")
    stop = len(src) if stop < 0 else stop
    scheme = src.find("://", 0, stop)
    offset = scheme + 3 if scheme >= 0 else 0
    idx = src.find("//", offset, stop)
    if idx < 0:
        return src, ""
    subdir, src = src[idx + 2:], src[:idx]
    q = subdir.find("?")
    if q >= 0:
        src += subdir[q:]
        subdir = subdir[:q]
    return src, posixpath.normpath(subdir) if subdir else ""


def parse_registry_source(raw: str) -> RegistrySource:
    """``[HOST/]NAMESPACE/NAME/SYSTEM[//SUBDIR]``; ValueError in terraform's words otherwise."""
    if is_local(raw):
        raise ValueError(f'can\'t use local directory "{raw}" as a module registry address')
    raw, subdir = split_subdir(raw)
    if subdir.startswith("../"):
        raise ValueError(f'subdirectory path "{subdir}" leads outside of the module package')
    parts = raw.split("/")
    if len(parts) not in (3, 4):
        raise ValueError("a module registry source address must have either three or four slash-separated "
                         "components")
    host = DEFAULT_MODULE_REGISTRY
    if len(parts) == 4:
        host = _registry_host(parts.pop(0))
    ns, name, system = parts
    if host in ("github.com", "bitbucket.org"):
        raise ValueError(f'can\'t use "{host}" as a module registry host, because it\'s reserved for installing '
                         "directly from version control repositories")
    if not _NAME.match(ns):
        raise ValueError(f'invalid namespace "{ns}": must be between one and 64 characters, including ASCII '
                         "letters, digits, dashes, and underscores, where dashes and underscores may not be the "
                         "prefix or suffix")
    if not _NAME.match(name):
        raise ValueError(f'invalid module name "{name}": must be between one and 64 characters, including ASCII '
                         "letters, digits, dashes, and underscores, where dashes and underscores may not be the "
                         "prefix or suffix")
    if not _SYSTEM.match(system):
        if system.startswith("git::"):
            raise ValueError(f'can\'t use "{system}" as a module registry target system name; did you mean to '
                             "use a git:: remote source?")
        raise ValueError(f'invalid target system "{system}": must be between one and 64 ASCII letters or digits')
    return RegistrySource(host, ns, name, system, subdir)


def _registry_host(given: str) -> str:
    host, _, port = given.partition(":")
    labels = host.lower().split(".")
    if "--" in given:
        raise ValueError(f'invalid module registry hostname "{given}"; internationalized domain names must be '
                         "given as direct unicode characters, not in punycode")
    if (not all(re.fullmatch(r"[0-9a-z](?:[0-9a-z-]*[0-9a-z])?", p) for p in labels)
            or (port and not port.isdigit())):
        raise ValueError(f'invalid module registry hostname "{given}"')
    if len(labels) < 2:
        raise ValueError("invalid module registry hostname: must contain at least one dot")
    return ".".join(labels) + (f":{port}" if port and port != "443" else "")


def parse_remote_source(raw: str) -> RemoteSource:
    """go-getter's detection of a remote package: a forced getter (``git::``) kept, a URL with a
    scheme as it is, else GitHub, ``git@`` and absolute-path shorthands expanded."""
    src, subdir = split_subdir(raw)
    if subdir.startswith("../"):
        raise ValueError(f'subdirectory path "{subdir}" leads outside of the module package')
    forced, rest = "", src
    m = _FORCED.match(src)
    if m is not None:
        forced, rest = m[1], m[2]
    if not _has_scheme(rest):
        detected = _detect(rest)
        if detected is None:
            raise MaybeRelativePath(raw)
        m = _FORCED.match(detected)
        if m is not None:
            forced = forced or m[1]
            detected = m[2]
        detected, more = split_subdir(detected)
        if more:
            subdir = posixpath.normpath(posixpath.join(more, subdir)) if subdir else more
        rest = detected
    return RemoteSource(f"{forced}::{rest}" if forced else rest, subdir)


def _has_scheme(s: str) -> bool:
    m = re.match(r"([A-Za-z][A-Za-z0-9+.\-]*):", s)
    return m is not None and not s.startswith("git@")


def _detect(src: str) -> str | None:
    """The detectors terraform passes go-getter, in its order (GitHub, git over SSH, file)."""
    if src.startswith("github.com/"):
        path, q, query = src.partition("?")
        parts = path.split("/")
        if len(parts) < 3:
            raise ValueError("GitHub URLs should be github.com/username/repo")
        repo = "/".join(parts[:3])
        if not repo.endswith(".git"):
            repo += ".git"
        more = "//" + "/".join(parts[3:]) if len(parts) > 3 else ""
        return f"git::https://{repo}{more}{q}{query}"
    m = _SCP_LIKE.match(src)
    if m is not None:
        return f"git::ssh://git@{m[1]}/{m[2]}{m[3]}"
    if src.startswith("/"):
        return "file://" + src
    return None


def getter_of(package: str) -> tuple[str, str]:
    """The getter (``git``, ``http``, ``file``, ...) and the URL it is given."""
    m = _FORCED.match(package)
    if m is not None:
        return m[1], m[2]
    scheme = urlsplit(package).scheme
    return ("http" if scheme == "https" else scheme), package
