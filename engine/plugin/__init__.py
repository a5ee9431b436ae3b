"""Terraform provider plugins: executables speaking tfplugin5/6 over gRPC, driven as providers.

:func:`installed_provider` is what the provider registry asks for a provider's local name; the
client itself (grpcio, protobuf) is imported only when a plugin is installed, so a run with
built-in providers alone does not pay for it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from engine.plugin.discover import implied_source, installed_plugin


def installed_provider(local_name: str, config_name: str, workdir: str | Path = ".") -> Any:
    """A :class:`~engine.plugin.client.PluginProvider` for the plugin installed for ``local_name``
    (implied source ``hashicorp/NAME``) serving configuration ``config_name`` (``aws.west``), or
    None when none is installed."""
    source = implied_source(local_name)
    exe = installed_plugin(source, workdir)
    if exe is None:
        return None
    from engine.plugin.client import PluginProvider

    return PluginProvider(exe, source, config_name)
