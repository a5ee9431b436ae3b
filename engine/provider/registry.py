"""Finding providers: plugins installed by ``init``, built-ins, and third-party packages via the
``strata.providers`` entry points.

A package declares ``[project.entry-points."strata.providers"] NAME = "module:Class"``
and ``pip install`` is all a user does. The class is instantiated once per
provider configuration.

Built in or plugin: a provider is known by its source address (``registry.terraform.io/hashicorp/null``).
When ``init`` installed a plugin for a source (selected in the lock file, present in
``.terraform/providers``), the plugin serves it, built in or not; a built-in serves only a source no
plugin is installed for. Either way the provider's ``source`` -- what the state records -- is the same.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from engine.addrs import (
    DATA_SCHEMA_PREFIX,
    ProviderConfigAddr,
    ProviderSource,
    implied_provider_source,
    parse_provider_source,
    provider_config_addr,
    provider_source_of,
)
from engine.diagnostics import ProviderError
from engine.provider.protocol import Provider, ResourceSchema
from engine.provider.seam import ProviderSeam

_FACTORIES: dict[str, Callable[[], Any]] | None = None


class _Lazy:
    """A built-in provider factory that imports its module only when the provider is used."""

    def __init__(self, name: str, target: str) -> None:
        self.name = name
        self.target = target

    def __call__(self) -> Any:
        module_name, _, attr = self.target.partition(":")
        try:
            factory = getattr(importlib.import_module(module_name), attr)
        except (ImportError, AttributeError) as exc:
            raise ProviderError("Failed to load provider", provider=self.name,
                                detail=f"{self.target}: {exc}") from exc
        return factory()


def _builtin() -> dict[str, Callable[[], Any]]:
    from providers import BUILTIN

    return {name: _Lazy(name, target) for name, target in BUILTIN.items()}


_ONLY_BUILTIN = "terraform"
"""The provider only strata serves (``terraform.io/builtin/terraform``, as in terraform): found
without reading the installed packages' entry points, which is most of a small plan's provider
lookup (importing importlib.metadata and reading every package's metadata: 15 ms and more)."""


def factory(name: str) -> Callable[[], Any] | None:
    """The factory of the provider with local name ``name``; None if none is known."""
    if name == _ONLY_BUILTIN and _FACTORIES is None:
        return _builtin()[name]
    return factories().get(name)


def factories() -> dict[str, Callable[[], Any]]:
    global _FACTORIES
    if _FACTORIES is None:
        from importlib.metadata import entry_points

        found = _builtin()
        for ep in entry_points(group="strata.providers"):
            if ep.name in found and ep.value.startswith("providers."):
                continue
            found[ep.name] = _EntryPoint(ep)
        _FACTORIES = found
    return _FACTORIES


class _EntryPoint:
    """A third-party provider, loaded from its entry point when first used."""

    def __init__(self, ep: Any) -> None:
        self.ep = ep

    def __call__(self) -> Any:
        try:
            factory = self.ep.load()
        except Exception as exc:  # a broken plugin must fail only where it is used
            raise ProviderError("Failed to load provider plugin", provider=self.ep.name,
                                detail=f"{self.ep.value}: {exc}") from exc
        return factory()


def builtin_sources() -> dict[str, ProviderSource]:
    """Each built-in provider's local name and source address (read without importing it)."""
    from providers import BUILTIN_SOURCES

    return {name: parse_provider_source(src) for name, src in BUILTIN_SOURCES.items()}


PluginFactory = Callable[[Path, str, str], Provider]
"""Builds the provider a plugin executable serves: ``(executable, source address, the provider
configuration's name)``."""


def plugin_provider(executable: Path, source: str, name: str = "") -> Provider:
    """The plugin client (engine.plugin.client), imported only when a plugin is to run: it builds on
    this layer (protocol, seam), so it is loaded by name, as every provider implementation is."""
    try:
        client = importlib.import_module("engine.plugin.client")
    except ImportError as exc:
        raise ProviderError("Failed to load provider plugin", provider=source,
                            detail=f"{executable}: this strata has no plugin client ({exc})") from exc
    provider: Provider = client.PluginProvider(executable, source, name)
    return provider


def register(name: str, factory: Callable[[], Any]) -> None:
    """Register a provider programmatically (tests, embedding)."""
    factories()[name] = factory


class Providers:
    """The provider instances of one run, by local name (``terraform``, ``aws.west``)."""

    def __init__(self, instances: dict[str, Provider] | None = None,
                 plugins: Mapping[ProviderSource, Path] | None = None,
                 plugin_factory: PluginFactory | None = None,
                 local_sources: Mapping[str, ProviderSource] | None = None) -> None:
        """``plugins``: the installed plugin of each source (by default, read from the working
        directory's lock file and ``.terraform/providers`` when first needed); ``plugin_factory``:
        what starts one (the plugin client; tests give a stand-in); ``local_sources``: the source
        each local name stands for where ``required_providers`` says so (else the built-in's of that
        name, else ``hashicorp/NAME``)."""
        self.instances: dict[str, Provider] = dict(instances or {})
        self._plugins = dict(plugins) if plugins is not None else None
        self._plugin_factory = plugin_factory or plugin_provider
        self.local_sources: dict[str, ProviderSource] = dict(local_sources or {})
        self._seams: dict[str, ProviderSeam] = {}
        self._schemas: dict[str, ResourceSchema] = {}
        self._dynamic: dict[str, dict[str, Any]] = {}
        self._config_addrs: dict[str, ProviderConfigAddr] = {}

    @property
    def plugins(self) -> dict[ProviderSource, Path]:
        """The installed plugin executable of each source it serves."""
        if self._plugins is None:
            from engine.install.installed import installed_plugins

            self._plugins = installed_plugins(".")
        return self._plugins

    def source_of(self, local_name: str) -> ProviderSource:
        """The source a local name stands for: as required, else the built-in's, else implied."""
        found = self.local_sources.get(local_name)
        if found is None:
            found = builtin_sources().get(local_name) or implied_provider_source(local_name)
        return found

    def plugin_for(self, local_name: str) -> Path | None:
        """The installed plugin that serves this local name's provider, if any."""
        if not self.plugins:
            return None
        return self.plugins.get(self.source_of(local_name))

    def get(self, name: str) -> Provider:
        inst = self.instances.get(name)
        if inst is None:
            base = name.split(".")[0]
            exe = self.plugin_for(base)
            if exe is not None:
                inst = self.instances[name] = self._plugin_factory(exe, str(self.source_of(base)), name)
                return inst
            make = factory(base)
            if make is None:
                raise KeyError(name)
            inst = self.instances[name] = make()
        return inst

    def for_functions(self, source: ProviderSource) -> Provider | None:
        """The provider of ``source`` whose functions a module calls (they need no configuration):
        the root's configuration of it if it has one, else the installed plugin, started once."""
        names = sorted(n for n, s in self.local_sources.items() if s == source)
        if names and self.known(names[0]):
            return self.get(names[0])
        key = str(source)
        inst = self.instances.get(key)
        if inst is None:
            exe = self.plugins.get(source) if self.plugins else None
            if exe is None:
                return None
            inst = self.instances[key] = self._plugin_factory(exe, key, source.type)
        return inst

    def stop(self) -> None:
        """StopProvider to every plugin in use (an interrupt's second Ctrl-C): each is asked to
        cancel what it is doing. In-process providers have nothing to stop."""
        for inst in list(self.instances.values()):
            stop_now = getattr(inst, "stop_now", None)
            if stop_now is not None:
                stop_now(2.0)

    def close(self) -> None:
        """End the plugin processes of this run (also done at interpreter exit)."""
        for inst in list(self.instances.values()):
            close = getattr(inst, "close", None)
            if close is not None:
                close()

    def seam(self, name: str) -> ProviderSeam:
        """The provider configuration ``name`` as the core calls it: through the one seam."""
        s = self._seams.get(name)
        if s is None:
            s = self._seams[name] = ProviderSeam(self.get(name), name)
        return s

    def known(self, name: str) -> bool:
        base = name.split(".")[0]
        return name in self.instances or factory(base) is not None or self.plugin_for(base) is not None

    def schema(self, name: str, type_name: str, mode: str = "managed") -> ResourceSchema | None:
        """The schema of a resource type (``mode="data"`` for a data source); None if unknown."""
        key = f"{name}\0{type_name}\0{mode}"
        s = self._schemas.get(key)
        if s is None:
            ps = self.seam(name).get_schema()
            s = (ps.resources if mode == "managed" else ps.data_sources).get(type_name)
            if s is None:
                return None
            self._schemas[key] = s
        return s

    def provider_schema(self, name: str) -> ResourceSchema | None:
        return self.seam(name).get_schema().provider

    def dynamic_attrs(self, type_name: str) -> dict[str, Any]:
        """For the state codec: each attribute's cty type (``"dynamic"`` ones are stored with their
        type); empty when the provider is not installed, and the JSON is then kept as it is."""
        d = self._dynamic.get(type_name)
        if d is None:
            d = {}
            mode, rtype = "managed", type_name
            if type_name.startswith(DATA_SCHEMA_PREFIX):  # a data source's (engine.addrs.schema_key)
                mode, rtype = "data", type_name[len(DATA_SCHEMA_PREFIX):]
            name = rtype.split("_", 1)[0]
            try:
                s = self.schema(name, rtype, mode)
            except (KeyError, ProviderError):
                s = None
            if s is not None:
                d = s.implied_types()
            self._dynamic[type_name] = d
        return d

    def source(self, name: str) -> str:
        return self.get(name).source

    def key_for(self, addr: ProviderConfigAddr) -> str:
        """The key of the configuration that serves what the state records with ``addr`` where no
        configuration says which (a resource no longer configured): the local name required for
        its source (the first in name order), else its type; then its alias (``aws.west``)."""
        names = sorted(n for n, s in self.local_sources.items() if s == addr.source)
        if not names:
            return addr.local_key
        return f"{names[0]}.{addr.alias}" if addr.alias is not None else names[0]

    def config_address(self, key: str) -> ProviderConfigAddr:
        """The address of the root's provider configuration ``key`` (``aws.west``): what the state
        records as ``provider["SOURCE"].ALIAS``."""
        got = self._config_addrs.get(key)
        if got is None:  # once per configuration (asked for once per resource planned)
            base, _, alias = key.partition(".")
            try:
                source = provider_source_of(self.get(key).source)
            except ValueError:  # a provider that does not say (BaseProvider's ""): as its name implies
                source = self.source_of(base)
            got = provider_config_addr(source, alias or None)
            self._config_addrs[key] = got
        return got
