"""A resource's instances (:mod:`engine.config.expansion`, where apply finds it too)."""

from __future__ import annotations

from engine.config.expansion import Instances, ScopeOf, expand, kind_of

__all__ = ["Instances", "ScopeOf", "expand", "kind_of"]
