"""``strata providers``: the providers the configuration requires, as terraform's tree, those the
state refers to, and for each required one what serves it here: an installed plugin (its version
and executable) or a built-in."""

from __future__ import annotations

import os
import sys

from engine.cli.args import Args
from engine.diagnostics import DiagnosticsError


def cmd_providers(a: Args) -> int:
    from engine.backend.dependencies import builtin_served
    from engine.config.module import load_module
    from engine.config.requirements import provider_requirements
    from engine.install.installed import installed_plugins
    from engine.install.lockfile import read_lock
    from engine.install.versions import normal_form
    from engine.provider.registry import builtin_sources
    from engine.render.text import render_diagnostic

    workdir = a.flags.get("chdir", ".")
    try:
        module = load_module(workdir)
        requirements = provider_requirements(module, builtin_sources())
        lock = read_lock(workdir)
    except DiagnosticsError as exc:
        for d in exc.diagnostics:
            sys.stderr.write(render_diagnostic(d, bool(a.flags.get("no-color"))) + "\n")
        return 1
    plugins = installed_plugins(workdir, lock)
    served = builtin_served(requirements)
    lines = ["", "Providers required by configuration:", "."]
    ordered = sorted(requirements, key=str)
    for i, source in enumerate(ordered):
        branch = "└── " if i == len(ordered) - 1 else "├── "
        constraints = normal_form(requirements[source].constraints)
        lines.append(f"{branch}provider[{source}]" + (f" {constraints}" if constraints else ""))
    lines.append("")
    in_state = _state_providers(a.flags.get("state") or os.path.join(workdir, "terraform.tfstate"))
    if in_state:
        lines += ["Providers required by state:", ""]
        lines += [f"    provider[{p}]" for p in in_state]
        lines.append("")
    lines += ["Providers serving this configuration:", ""]
    for source in ordered:
        exe = plugins.get(source)
        if exe is not None:
            lines.append(f"    provider[{source}]: plugin v{lock[source].version} ({exe})")
        elif source in served or source.is_builtin:
            lines.append(f"    provider[{source}]: built in")
        else:
            lines.append(f'    provider[{source}]: not installed (run "strata init")')
    lines.append("")
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


def _state_providers(path: str) -> list[str]:
    """The provider sources the state's resources name, sorted (none when there is no state)."""
    import orjson

    from engine.addrs import parse_provider_config_addr

    try:
        with open(path, "rb") as f:
            doc = orjson.loads(f.read())
    except (OSError, ValueError):
        return []
    found: set[str] = set()
    for r in doc.get("resources", []) if isinstance(doc, dict) else []:
        p = r.get("provider") if isinstance(r, dict) else None
        try:
            if isinstance(p, str):
                found.add(str(parse_provider_config_addr(p).source))
        except ValueError:  # not an address: the state's own load will say so
            continue
    return sorted(found)
