"""A small framework for writing providers: declare attributes, write CRUD, and the framework plans.

Following the plan-modification design (003_ab693e5a3300cf7d.txt):

* ``Attr(requires_replace=True)`` — a change of the attribute forces replacement;
* ``Attr(requires_replace_if=fn)`` — ``fn(old, new)`` decides; compose with
  :func:`all_of`, :func:`sequence` and :func:`requires_replace_if_set`
  (which answers False whenever either side is null or unknown);
* ``Resource.modify_plan(req)`` — resource-level: may change planned values
  and add requires-replace paths.

Planning follows terraform-plugin-framework: the planned state starts from
the proposed new state, optional attributes with a ``default`` get it when
unset, computed attributes become unknown when the object is created or
changed (unless ``use_state_for_unknown``), then the modifiers run.

A provider is one class::

    class Hello(Resource):
        type_name = "hello_greeting"
        attributes = {"id": Attr("string", computed=True, use_state_for_unknown=True),
                      "name": Attr("string", required=True, requires_replace=True)}

        async def create(self, planned, ctx):
            return {**planned, "id": planned["name"]}

    class HelloProvider(FrameworkProvider):
        source = "example.com/me/hello"
        resources = (Hello,)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from engine.diagnostics import Diagnostic, StrataError, error
from engine.frozen import frozen
from engine.provider.protocol import (
    ApplyResourceChangeRequest,
    ApplyResourceChangeResponse,
    AttributePath,
    AttributeSchema,
    BaseProvider,
    BlockSchema,
    ImportResourceStateRequest,
    ImportResourceStateResponse,
    PlanResourceChangeRequest,
    PlanResourceChangeResponse,
    ProviderSchema,
    ReadDataSourceRequest,
    ReadDataSourceResponse,
    ReadResourceRequest,
    ReadResourceResponse,
    ResourceSchema,
    UpgradeResourceStateRequest,
    UpgradeResourceStateResponse,
    ValidateResourceConfigRequest,
    ValidateResourceConfigResponse,
)
from engine.values import UNKNOWN, equal

RequiresReplaceFunc = Callable[[Any, Any], bool]
"""``(old, new) -> bool``: does changing from ``old`` to ``new`` require replacement?"""


def requires_replace_if_set(f: RequiresReplaceFunc) -> RequiresReplaceFunc:
    """``f``, but False whenever either value is null or unknown."""

    def check(old: Any, new: Any) -> bool:
        if old is None or new is None or old is UNKNOWN or new is UNKNOWN:
            return False
        return f(old, new)

    return check


def all_of(*funcs: RequiresReplaceFunc) -> RequiresReplaceFunc:
    """True only if every function returns True (each is called)."""

    def check(old: Any, new: Any) -> bool:
        results = [f(old, new) for f in funcs]
        return all(results)

    return check


def sequence(*funcs: RequiresReplaceFunc) -> RequiresReplaceFunc:
    """Runs the functions in order, stopping at the first that returns False."""

    def check(old: Any, new: Any) -> bool:
        return all(f(old, new) for f in funcs)

    return check


@frozen
class Attr:
    type: Any
    required: bool = False
    optional: bool = False
    computed: bool = False
    sensitive: bool = False
    default: Any = None
    requires_replace: bool = False
    requires_replace_if: RequiresReplaceFunc | None = None
    use_state_for_unknown: bool = False
    description: str = ""

    def schema(self) -> AttributeSchema:
        return AttributeSchema(self.type, self.required, self.optional or self.default is not None,
                               self.computed or self.default is not None, self.sensitive, self.description)


@dataclass
class ModifyPlanRequest:
    """What ``Resource.modify_plan`` sees and may change (``plan``, ``requires_replace``: attribute
    names or paths such as ``("tags", "env")``, ``diagnostics``)."""

    config: dict[str, Any] | None
    state: dict[str, Any] | None
    plan: dict[str, Any] | None
    requires_replace: list[str | AttributePath] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)


@frozen
class ApplyContext:
    """Passed to create/update: ``progress(message)`` reports on a long operation."""

    progress: Callable[[str], None]


class Resource:
    """A managed resource type. Subclass, set ``type_name`` and ``attributes``, implement CRUD."""

    type_name: ClassVar[str] = ""
    attributes: ClassVar[dict[str, Attr]] = {}
    blocks: ClassVar[dict[str, BlockSchema]] = {}
    version: ClassVar[int] = 0

    def __init__(self, provider: FrameworkProvider) -> None:
        self.provider = provider

    async def create(self, planned: dict[str, Any], ctx: ApplyContext) -> dict[str, Any]:
        raise NotImplementedError

    async def read(self, state: dict[str, Any]) -> dict[str, Any] | None:
        """The object as it is now; None when it no longer exists."""
        return state

    async def update(self, prior: dict[str, Any], planned: dict[str, Any], ctx: ApplyContext
                     ) -> dict[str, Any]:
        return planned

    async def delete(self, state: dict[str, Any]) -> None:
        return None

    async def modify_plan(self, req: ModifyPlanRequest) -> None:
        return None

    async def validate(self, config: dict[str, Any]) -> list[Diagnostic]:
        return []

    async def import_state(self, id: str) -> dict[str, Any] | None:
        raise NotImplementedError

    def upgrade_state(self, version: int, raw: dict[str, Any]) -> dict[str, Any]:
        return raw

    @classmethod
    def schema(cls) -> ResourceSchema:
        return ResourceSchema({n: a.schema() for n, a in cls.attributes.items()}, cls.version,
                              blocks=dict(cls.blocks))


class DataSource:
    """A data source type: ``read(config)`` returns the full object."""

    type_name: ClassVar[str] = ""
    attributes: ClassVar[dict[str, Attr]] = {}

    def __init__(self, provider: FrameworkProvider) -> None:
        self.provider = provider

    async def read(self, config: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    async def validate(self, config: dict[str, Any]) -> list[Diagnostic]:
        return []

    @classmethod
    def schema(cls) -> ResourceSchema:
        return ResourceSchema({n: a.schema() for n, a in cls.attributes.items()})


class ResourceError(StrataError):
    """Raise from CRUD to report an error diagnostic (``retryable`` errors may be retried by the core)."""

    def __init__(self, summary: str, detail: str = "", retryable: bool = False) -> None:
        super().__init__(summary)
        self.summary = summary
        self.detail = detail
        self.retryable = retryable


class FrameworkProvider(BaseProvider):
    resources: ClassVar[tuple[type[Resource], ...]] = ()
    data_sources: ClassVar[tuple[type[DataSource], ...]] = ()
    provider_attributes: ClassVar[dict[str, Attr]] = {}

    def __init__(self) -> None:
        self.config: dict[str, Any] = {}
        self._resources = {r.type_name: r(self) for r in self.resources}
        self._data = {d.type_name: d(self) for d in self.data_sources}
        # per resource type, what planning a create needs from the schema (hot path: a plan and
        # a final plan per operation): the attributes with a default, and the computed ones a
        # new object leaves unknown
        self._create_plan = {
            r.type_name: ([(n, a.default) for n, a in r.attributes.items() if a.default is not None],
                          [n for n, a in r.attributes.items() if a.computed and a.default is None])
            for r in self.resources}

    def get_schema(self) -> ProviderSchema:
        return ProviderSchema({n: type(r).schema() for n, r in self._resources.items()},
                              {n: type(d).schema() for n, d in self._data.items()},
                              ResourceSchema({n: a.schema() for n, a in self.provider_attributes.items()}))

    async def configure(self, config: dict[str, Any]) -> tuple[Diagnostic, ...]:
        self.config = {n: (config.get(n) if config.get(n) is not None else a.default)
                       for n, a in self.provider_attributes.items()}
        return ()

    async def validate_resource_config(self, req: ValidateResourceConfigRequest
                                       ) -> ValidateResourceConfigResponse:
        return ValidateResourceConfigResponse(tuple(await self._resources[req.type_name].validate(req.config)))

    async def validate_data_resource_config(self, req: ValidateResourceConfigRequest
                                            ) -> ValidateResourceConfigResponse:
        d = self._data.get(req.type_name)
        return ValidateResourceConfigResponse(tuple(await d.validate(req.config)) if d is not None else ())

    async def plan_resource_change(self, req: PlanResourceChangeRequest) -> PlanResourceChangeResponse:
        r = self._resources[req.type_name]
        proposed, prior = req.proposed_new_state, req.prior_state
        if proposed is None:
            return PlanResourceChangeResponse(None, planned_private=req.prior_private)
        attrs = type(r).attributes
        config = req.config or {}
        planned = dict(proposed)
        defaults, computed = self._create_plan[req.type_name]
        for name, default in defaults:
            if config.get(name) is None:
                planned[name] = default
        # computed values become unknown when a new object is made or the object changes
        # (as terraform-plugin-framework marks them before the plan modifiers run)
        if prior is None:
            for name in computed:
                if config.get(name) is None:
                    planned[name] = UNKNOWN
        elif self._changed(attrs, config, prior, planned):
            for name, a in attrs.items():
                if a.computed and config.get(name) is None and a.default is None and not a.use_state_for_unknown:
                    planned[name] = UNKNOWN
        requires: list[str | AttributePath] = []
        if prior is not None:
            for name, a in attrs.items():
                old, new = prior.get(name), planned.get(name)
                if equal(old, new):
                    continue
                if a.requires_replace or (a.requires_replace_if is not None and a.requires_replace_if(old, new)):
                    requires.append(name)
        mp = ModifyPlanRequest(req.config, prior, planned, requires)
        await r.modify_plan(mp)
        planned = mp.plan if mp.plan is not None else planned
        if prior is not None and not mp.requires_replace and not self._changed(attrs, config, prior, planned):
            # modify_plan normalized the change away: nothing will be recomputed
            for name in attrs:
                if planned.get(name) is UNKNOWN:
                    planned[name] = prior.get(name)
        return PlanResourceChangeResponse(planned, tuple(mp.requires_replace), tuple(mp.diagnostics),
                                          req.prior_private)

    @staticmethod
    def _changed(attrs: dict[str, Attr], config: dict[str, Any], prior: dict[str, Any],
                 planned: dict[str, Any]) -> bool:
        """Does the plan change anything the configuration controls?"""
        return any(not equal(planned.get(n), prior.get(n)) for n, a in attrs.items()
                   if not (a.computed and config.get(n) is None))

    async def apply_resource_change(self, req: ApplyResourceChangeRequest) -> ApplyResourceChangeResponse:
        r = self._resources[req.type_name]
        ctx = ApplyContext(req.progress)
        try:
            if req.planned_state is None:
                assert req.prior_state is not None
                await r.delete(req.prior_state)
                return ApplyResourceChangeResponse(None)
            if req.prior_state is None:
                return ApplyResourceChangeResponse(await r.create(req.planned_state, ctx), private=req.planned_private)
            return ApplyResourceChangeResponse(await r.update(req.prior_state, req.planned_state, ctx),
                                               private=req.planned_private)
        except ResourceError as exc:
            d = error(exc.summary, exc.detail, retryable=exc.retryable)
            return ApplyResourceChangeResponse(req.prior_state if req.planned_state is None else None, (d,))

    async def read_resource(self, req: ReadResourceRequest) -> ReadResourceResponse:
        r = self._resources[req.type_name]
        try:
            return ReadResourceResponse(await r.read(req.current_state), private=req.private)
        except ResourceError as exc:
            return ReadResourceResponse(req.current_state, (error(exc.summary, exc.detail),), req.private)

    async def read_data_source(self, req: ReadDataSourceRequest) -> ReadDataSourceResponse:
        d = self._data.get(req.type_name)
        if d is None:
            return await super().read_data_source(req)
        try:
            return ReadDataSourceResponse(await d.read(req.config))
        except ResourceError as exc:
            return ReadDataSourceResponse(None, (error(exc.summary, exc.detail),))

    async def import_resource_state(self, req: ImportResourceStateRequest) -> ImportResourceStateResponse:
        r = self._resources[req.type_name]
        try:
            return ImportResourceStateResponse(await r.import_state(req.id))
        except NotImplementedError:
            return await super().import_resource_state(req)
        except ResourceError as exc:
            return ImportResourceStateResponse(None, (error(exc.summary, exc.detail),))

    async def upgrade_resource_state(self, req: UpgradeResourceStateRequest
                                     ) -> UpgradeResourceStateResponse:
        r = self._resources[req.type_name]
        return UpgradeResourceStateResponse(r.upgrade_state(req.version, dict(req.raw_state)))
