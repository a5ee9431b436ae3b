"""Finding providers: installed Terraform provider plugins (``.terraform/providers``), built-ins,
and third-party packages, via the ``strata.providers`` entry points.

An installed plugin serves its provider's source even where strata has the provider built in.

A package declares ``[project.entry-points."strata.providers"] NAME = "module:Class"``
and ``pip install`` is all a user does. The class is instantiated once per
provider configuration.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from importlib.metadata import entry_points
from typing import Any

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


def factories() -> dict[str, Callable[[], Any]]:
    global _FACTORIES
    if _FACTORIES is None:
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


def _plugins() -> Any:
    """``engine.plugin``, loaded by name as every provider implementation is: the plugin client is
    one more provider, and it builds on this layer (protocol, seam), not under it."""
    return importlib.import_module("engine.plugin")


def register(name: str, factory: Callable[[], Any]) -> None:
    """Register a provider programmatically (tests, embedding)."""
    factories()[name] = factory


class Providers:
    """The provider instances of one run, by local name (``terraform``, ``aws.west``)."""

    def __init__(self, instances: dict[str, Provider] | None = None) -> None:
        self.instances: dict[str, Provider] = dict(instances or {})
        self._seams: dict[str, ProviderSeam] = {}
        self._schemas: dict[str, ResourceSchema] = {}
        self._dynamic: dict[str, dict[str, Any]] = {}
        self._plugins: dict[str, bool] = {}

    def get(self, name: str) -> Provider:
        inst = self.instances.get(name)
        if inst is None:
            base = name.split(".")[0]
            if self._plugin(base):  # an installed plugin serves its source, built in or not
                plugin: Provider = _plugins().installed_provider(base, name)
                self.instances[name] = plugin
                return plugin
            factory = factories().get(base)
            if factory is None:
                raise KeyError(name)
            inst = self.instances[name] = factory()
        return inst

    def _plugin(self, base: str) -> bool:
        """Whether a plugin is installed for local name ``base`` (its implied source); looked up once."""
        found = self._plugins.get(base)
        if found is None:
            found = self._plugins[base] = (base != "terraform"
                                           and _plugins().installed_plugin(_plugins().implied_source(base)) is not None)
        return found

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
        return name in self.instances or base in factories() or self._plugin(base) is not None

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
            name = type_name.split("_", 1)[0]
            try:
                s = self.schema(name, type_name)
            except (KeyError, ProviderError):
                s = None
            if s is not None:
                d = s.implied_types()
            self._dynamic[type_name] = d
        return d

    def source(self, name: str) -> str:
        return self.get(name).source

    def state_address(self, key: str) -> str:
        """``provider["SOURCE"]`` or ``provider["SOURCE"].ALIAS`` as recorded in state."""
        base, _, alias = key.partition(".")
        addr = f'provider["{self.get(key).source}"]'
        return f"{addr}.{alias}" if alias else addr
