"""Where ``init`` looks for provider packages: the CLI configuration file (``TF_CLI_CONFIG_FILE``,
else ``~/.terraformrc``) with its ``provider_installation`` block and ``plugin_cache_dir``, or,
without that block, terraform's implied local mirror directories; ``-plugin-dir`` overrides both.

Each installation method applies to the providers its ``include`` patterns match and its
``exclude`` patterns do not (``HOST/NAMESPACE/TYPE``, each part ``*`` or a name; the host may be
left out). ``direct`` and ``network_mirror`` need the network, which strata does not reach: a
provider only they could serve gets a diagnostic saying how to use a filesystem mirror.
"""

from __future__ import annotations

import os
from dataclasses import field
from pathlib import Path

from engine.addrs import (
    DEFAULT_REGISTRY_HOST,
    ProviderSource,
    parse_provider_source,
)
from engine.diagnostics import Diagnostic, DiagnosticsError, SourceRange, error
from engine.frozen import frozen


@frozen
class Pattern:
    """``HOST/NAMESPACE/TYPE`` where each part may be ``*``."""

    host: str
    namespace: str
    type: str

    def matches(self, s: ProviderSource) -> bool:
        return (self.host in ("*", s.host) and self.namespace in ("*", s.namespace)
                and self.type in ("*", s.type))


def parse_pattern(text: str) -> Pattern:
    """ValueError for a pattern terraform refuses."""
    parts = text.split("/")
    if len(parts) not in (1, 2, 3) or any(not p for p in parts):
        raise ValueError(f'invalid provider source pattern "{text}": must be in the format '
                         '"[hostname/][namespace/]name"')
    if len(parts) == 1:
        parts = ["hashicorp", *parts]
    if len(parts) == 2:
        parts = [DEFAULT_REGISTRY_HOST, *parts]
    host, ns, typ = (p.lower() for p in parts)
    if ns == "*" and typ != "*":
        raise ValueError(f'invalid provider source pattern "{text}": a provider type wildcard is required '
                         "when the namespace is a wildcard")
    if "*" not in (ns, typ):
        try:
            parse_provider_source(f"{host}/{ns}/{typ}" if host != "*" else f"{ns}/{typ}")
        except ValueError as exc:
            raise ValueError(f'invalid provider source pattern "{text}": {exc.args[-1]}') from None
    return Pattern(host, ns, typ)


@frozen
class Method:
    """One installation method: ``kind`` is ``filesystem_mirror`` (``location``: its directory),
    ``network_mirror`` (``location``: its URL) or ``direct``."""

    kind: str
    location: str = ""
    include: tuple[Pattern, ...] = ()
    exclude: tuple[Pattern, ...] = ()

    def serves(self, s: ProviderSource) -> bool:
        if self.include and not any(p.matches(s) for p in self.include):
            return False
        return not any(p.matches(s) for p in self.exclude)

    @property
    def local(self) -> bool:
        return self.kind == "filesystem_mirror"


@frozen
class Installation:
    """How this run installs providers: the methods in order (the first to have a version serves
    it), the plugin cache, and whether the methods were configured or implied."""

    methods: tuple[Method, ...]
    plugin_cache_dir: Path | None = None
    explicit: bool = False
    warnings: tuple[Diagnostic, ...] = field(default=())


def cli_config_path() -> tuple[str, bool]:
    """The CLI configuration file, and whether it must exist (named by ``TF_CLI_CONFIG_FILE``)."""
    named = os.environ.get("TF_CLI_CONFIG_FILE") or os.environ.get("TERRAFORM_CONFIG")
    if named:
        return named, True
    return os.path.join(os.path.expanduser("~"), ".terraformrc"), False


def implied_mirror_dirs(workdir: str | Path = ".") -> list[Path]:
    """terraform's implied local mirrors on this system, those that exist, in its order."""
    home = Path(os.path.expanduser("~"))
    xdg_data = os.environ.get("XDG_DATA_HOME") or str(home / ".local" / "share")
    xdg_dirs = (os.environ.get("XDG_DATA_DIRS") or "/usr/local/share/:/usr/share/").split(":")
    dirs = [Path(workdir) / "terraform.d" / "plugins", home / ".terraform.d" / "plugins",
            Path(xdg_data) / "terraform" / "plugins", *(Path(d) / "terraform" / "plugins" for d in xdg_dirs if d)]
    seen: list[Path] = []
    for d in dirs:
        if d.is_dir() and d not in seen:
            seen.append(d)
    return seen


def load_installation(plugin_dirs: list[str], workdir: str | Path = ".") -> Installation:
    """The installation methods: ``-plugin-dir`` directories alone when given; else the CLI
    configuration's ``provider_installation``; else the implied mirrors, then ``direct`` for the
    providers none of them holds. DiagnosticsError for a CLI configuration terraform refuses."""
    path, must_exist = cli_config_path()
    warnings: list[Diagnostic] = []
    methods: list[Method] | None = None
    cache: Path | None = None
    if os.environ.get("TF_PLUGIN_CACHE_DIR"):
        cache = Path(os.environ["TF_PLUGIN_CACHE_DIR"])
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        text = None
        if must_exist and path != os.devnull:
            warnings.append(Diagnostic("warning", "Unable to open CLI configuration file",
                                       f'The CLI configuration file at "{path}" does not exist.'))
    except OSError as exc:
        raise DiagnosticsError([error("Unable to open CLI configuration file", f"{path}: {exc.strerror}")]) from None
    if text is not None:
        methods, configured_cache = _parse_config(text, path)
        cache = configured_cache or cache
    if plugin_dirs:
        return Installation(tuple(Method("filesystem_mirror", d) for d in plugin_dirs), cache, True,
                            tuple(warnings))
    if methods is not None:
        return Installation(tuple(methods), cache, True, tuple(warnings))
    from engine.install.mirror import sources_in

    implied = [Method("filesystem_mirror", str(d)) for d in implied_mirror_dirs(workdir)]
    held = {s for m in implied for s in sources_in(Path(m.location))}
    direct = Method("direct", exclude=tuple(Pattern(s.host, s.namespace, s.type) for s in sorted(held)))
    return Installation((*implied, direct), cache, False, tuple(warnings))


def _parse_config(text: str, path: str) -> tuple[list[Method] | None, Path | None]:
    from engine.lang import expr as E
    from engine.lang.hcl import parse_hcl_body

    display = path
    attrs, blocks = parse_hcl_body(text, display)
    diags: list[Diagnostic] = []
    methods: list[Method] | None = None
    cache: Path | None = None

    def string(a: object, what: str) -> str | None:
        expr = getattr(a, "expr", None)
        if isinstance(expr, E.Literal) and isinstance(expr.value, str):
            return expr.value
        diags.append(error("Invalid CLI configuration", f"{what} must be a string.",
                           getattr(a, "range", None)))
        return None

    def patterns(a: object, what: str) -> tuple[Pattern, ...]:
        expr = getattr(a, "expr", None)
        if not isinstance(expr, E.TupleExpr):
            diags.append(error("Invalid provider installation method", f"{what} must be a list of strings.",
                               getattr(a, "range", None)))
            return ()
        out = []
        for item in expr.items:
            if not isinstance(item, E.Literal) or not isinstance(item.value, str):
                diags.append(error("Invalid provider installation method", f"{what} must be a list of strings.",
                                   SourceRange(display, item.line)))
                continue
            try:
                out.append(parse_pattern(item.value))
            except ValueError as exc:
                diags.append(error("Invalid provider source pattern", str(exc), SourceRange(display, item.line)))
        return tuple(out)

    for b in blocks:
        if b.type == "provider_installation":
            if methods is not None:
                diags.append(error("Multiple provider_installation blocks",
                                   "The CLI configuration may contain at most one provider_installation block.",
                                   b.range))
                continue
            methods = []
            for mb in b.blocks:
                inc = patterns(mb.attributes["include"], "include") if "include" in mb.attributes else ()
                exc = patterns(mb.attributes["exclude"], "exclude") if "exclude" in mb.attributes else ()
                if mb.type == "filesystem_mirror":
                    p = string(mb.attributes["path"], "path") if "path" in mb.attributes else None
                    if p is None:
                        diags.append(error("Invalid provider_installation method block",
                                           "A filesystem_mirror block requires a path argument.", mb.range))
                        continue
                    methods.append(Method("filesystem_mirror", os.path.expanduser(p), inc, exc))
                elif mb.type == "network_mirror":
                    url = string(mb.attributes["url"], "url") if "url" in mb.attributes else ""
                    methods.append(Method("network_mirror", url or "", inc, exc))
                elif mb.type == "direct":
                    methods.append(Method("direct", "", inc, exc))
                elif mb.type == "dev_overrides":
                    diags.append(Diagnostic("warning", "Provider development overrides are not supported",
                                            "strata ignores the dev_overrides block.", mb.range))
                else:
                    diags.append(error("Unknown provider installation method",
                                       f'Unknown provider installation method "{mb.type}" at {mb.range}.',
                                       mb.range))
    if "plugin_cache_dir" in attrs:
        value = string(attrs["plugin_cache_dir"], "plugin_cache_dir")
        cache = Path(os.path.expanduser(value)) if value else None
    errors = [d for d in diags if d.severity == "error"]
    if errors:
        raise DiagnosticsError(errors)
    return methods, cache


def service_hosts() -> dict[str, dict[str, str]]:
    """The CLI configuration's ``host "NAME" { services = { "modules.v1" = "URL" } }`` blocks: the
    services each host offers, used instead of asking the host (service discovery). Hostnames
    lower-cased; a file that cannot be read or parsed has none (``load_installation`` reports it)."""
    from engine.lang import expr as E
    from engine.lang.hcl import parse_hcl_body

    path, _ = cli_config_path()
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        _, blocks = parse_hcl_body(text, path)
    except (OSError, UnicodeDecodeError, DiagnosticsError):
        return {}
    out: dict[str, dict[str, str]] = {}
    for b in blocks:
        if b.type != "host" or len(b.labels) != 1 or "services" not in b.attributes:
            continue
        expr = b.attributes["services"].expr
        if not isinstance(expr, E.ObjectExpr):
            continue
        services: dict[str, str] = {}
        for k, v in expr.items:
            key = k.value if isinstance(k, E.Literal) else (k.name if isinstance(k, E.Var) else None)
            if isinstance(key, str) and isinstance(v, E.Literal) and isinstance(v.value, str):
                services[key] = v.value
        out[b.labels[0].lower()] = services
    return out


def registry_token(host: str) -> str | None:
    """The API token for a registry host, as terraform finds one: ``TF_TOKEN_HOST`` (dots written
    ``_``, dashes ``__``) first, then a ``credentials "HOST" { token = "..." }`` block of the CLI
    configuration."""
    name = "TF_TOKEN_" + host.replace("-", "__").replace(".", "_")
    for k, v in os.environ.items():
        if k.lower() == name.lower() and v:
            return v
    from engine.lang import expr as E
    from engine.lang.hcl import parse_hcl_body

    path, _ = cli_config_path()
    try:
        with open(path, encoding="utf-8") as f:
            _, blocks = parse_hcl_body(f.read(), path)
    except (OSError, UnicodeDecodeError, DiagnosticsError):
        return None
    for b in blocks:
        if b.type == "credentials" and len(b.labels) == 1 and b.labels[0].lower() == host and "token" in b.attributes:
            expr = b.attributes["token"].expr
            if isinstance(expr, E.Literal) and isinstance(expr.value, str):
                return expr.value
    return None
