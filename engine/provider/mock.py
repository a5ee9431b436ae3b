"""A provider for tests, in the box: what httpx's ``MockTransport`` is to transports.

A :class:`MockProvider` serves a schema given as data, behaves as a well-behaved provider by
default, lets a test replace the answer to any call, and records every call it receives::

    mock = MockProvider({"thing": {"id": AttributeSchema("string", computed=True),
                                   "name": AttributeSchema("string", required=True)}},
                        apply_resource_change=RuntimeError("boom"))   # every apply raises
    providers = Providers({"mock": mock})
    ...
    assert [c.operation for c in mock.calls] == ["configure", "validate_resource_config", ...]
    assert mock.requests("plan_resource_change")[0].config == {"id": None, "name": "x"}

Each call (keyword named after the protocol method) may be configured with

* a response object: returned to every call;
* a callable ``(request) -> response`` (or a coroutine function): called; it may start from the
  default answer, ``mock.default_<method>(request)``;
* an exception instance: raised (the seam reports it as the provider's failure);
* a :class:`~engine.diagnostics.Diagnostic` or a tuple of them: the default answer with these
  diagnostics (an error diagnostic fails the call the way a provider's reported error does).

The default answers: configure, validation and reads accept everything as it is; plan proposes
the proposed new state, computed attributes left null in configuration unknown on create, and
the ``requires_replace`` attributes given per resource type; apply returns the planned state with
every unknown value made known (a string ``"<type>-<n>"``, ``0``, ``false`` or null, by type) and
hands the planned private data back as the object's private data; import returns ``{"id": ID}``;
upgrade decodes the stored JSON by the current schema.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from engine.diagnostics import Diagnostic
from engine.frozen import frozen
from engine.provider.protocol import (
    ApplyResourceChangeRequest,
    ApplyResourceChangeResponse,
    AttributeSchema,
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
from engine.values import UNKNOWN, from_typed_json

Schemas = dict[str, ResourceSchema | dict[str, AttributeSchema]]
"""Resource types (or data sources) by name: a full schema, or just its attributes."""

Answer = Any
"""How one call is answered: a response, a callable, an exception instance, or diagnostics."""


@frozen
class Call:
    """One call a :class:`MockProvider` received: the protocol method's name and its request
    (``configure``: the configuration dict)."""

    operation: str
    request: Any


def _schemas(given: Schemas | None) -> dict[str, ResourceSchema]:
    return {n: s if isinstance(s, ResourceSchema) else ResourceSchema(dict(s)) for n, s in (given or {}).items()}


class MockProvider:
    """A configurable, recording provider for tests (see the module's docstring).

    ``resources`` is a :class:`ProviderSchema` or the resource types as data; ``requires_replace``
    names, per resource type, the attributes (or paths) whose change forces replacement;
    ``legacy_type_system`` marks every plan and apply answer as from the legacy SDK."""

    def __init__(self, resources: ProviderSchema | Schemas | None = None, *,
                 data_sources: Schemas | None = None, provider: ResourceSchema | None = None,
                 source: str = "example.com/test/mock", requires_replace: dict[str, tuple[Any, ...]] | None = None,
                 legacy_type_system: bool = False, **answers: Answer) -> None:
        if isinstance(resources, ProviderSchema):
            self.schema = resources
        else:
            self.schema = ProviderSchema(_schemas(resources), _schemas(data_sources), provider)
        self.source = source
        self.requires_replace = dict(requires_replace or {})
        self.legacy_type_system = legacy_type_system
        unknown = set(answers) - _OPERATIONS
        if unknown:
            raise TypeError(f"MockProvider has no call {sorted(unknown)[0]!r}; the calls are {sorted(_OPERATIONS)}")
        self.answers: dict[str, Answer] = answers
        self.calls: list[Call] = []
        """Every call received, in order."""
        self.config: dict[str, Any] | None = None
        """What ``configure`` was given (None: not configured)."""
        self._made = 0

    def requests(self, operation: str) -> list[Any]:
        """The requests of every ``operation`` call received, in order."""
        return [c.request for c in self.calls if c.operation == operation]

    def set(self, operation: str, answer: Answer) -> None:
        """Answer ``operation`` with ``answer`` from now on (``None``: the default again)."""
        if operation not in _OPERATIONS:
            raise TypeError(f"MockProvider has no call {operation!r}")
        if answer is None:
            self.answers.pop(operation, None)
        else:
            self.answers[operation] = answer

    async def _answer(self, operation: str, req: Any, default: Callable[[Any], Any]) -> Any:
        self.calls.append(Call(operation, req))
        answer = self.answers.get(operation)
        if answer is None:
            return default(req)
        if isinstance(answer, BaseException):
            raise answer
        if isinstance(answer, Diagnostic):
            answer = (answer,)
        if isinstance(answer, tuple) and all(isinstance(d, Diagnostic) for d in answer):
            resp = default(req)
            return answer if operation == "configure" else replace(resp, diagnostics=(*resp.diagnostics, *answer))
        if callable(answer):
            got = answer(req)
            return await got if inspect.isawaitable(got) else got
        return answer

    # ------------------------------------------------------------------ the protocol

    def get_schema(self) -> ProviderSchema:
        return self.schema

    async def configure(self, config: dict[str, Any]) -> tuple[Diagnostic, ...]:
        self.config = dict(config)
        return tuple(await self._answer("configure", config, lambda _: ()))

    async def validate_resource_config(self, req: ValidateResourceConfigRequest) -> ValidateResourceConfigResponse:
        return await self._answer("validate_resource_config", req, lambda _: ValidateResourceConfigResponse())  # type: ignore[no-any-return]

    async def validate_data_resource_config(self, req: ValidateResourceConfigRequest
                                            ) -> ValidateResourceConfigResponse:
        return await self._answer("validate_data_resource_config", req,  # type: ignore[no-any-return]
                                  lambda _: ValidateResourceConfigResponse())

    async def plan_resource_change(self, req: PlanResourceChangeRequest) -> PlanResourceChangeResponse:
        return await self._answer("plan_resource_change", req, self.default_plan_resource_change)  # type: ignore[no-any-return]

    async def apply_resource_change(self, req: ApplyResourceChangeRequest) -> ApplyResourceChangeResponse:
        return await self._answer("apply_resource_change", req, self.default_apply_resource_change)  # type: ignore[no-any-return]

    async def read_resource(self, req: ReadResourceRequest) -> ReadResourceResponse:
        return await self._answer("read_resource", req, self.default_read_resource)  # type: ignore[no-any-return]

    async def read_data_source(self, req: ReadDataSourceRequest) -> ReadDataSourceResponse:
        return await self._answer("read_data_source", req, self.default_read_data_source)  # type: ignore[no-any-return]

    async def import_resource_state(self, req: ImportResourceStateRequest) -> ImportResourceStateResponse:
        return await self._answer("import_resource_state", req, self.default_import_resource_state)  # type: ignore[no-any-return]

    async def upgrade_resource_state(self, req: UpgradeResourceStateRequest) -> UpgradeResourceStateResponse:
        return await self._answer("upgrade_resource_state", req, self.default_upgrade_resource_state)  # type: ignore[no-any-return]

    # ------------------------------------------------------------------ the default answers

    def default_plan_resource_change(self, req: PlanResourceChangeRequest) -> PlanResourceChangeResponse:
        """The proposed new state; on create, computed attributes null in configuration unknown."""
        proposed = req.proposed_new_state
        if proposed is None:
            return PlanResourceChangeResponse(None, planned_private=req.prior_private,
                                              legacy_type_system=self.legacy_type_system)
        planned = dict(proposed)
        schema = self.schema.resources.get(req.type_name)
        if req.prior_state is None and schema is not None:
            config = req.config or {}
            for name, a in schema.attributes.items():
                if a.computed and config.get(name) is None:
                    planned[name] = UNKNOWN
        return PlanResourceChangeResponse(planned, self.requires_replace.get(req.type_name, ()),
                                          planned_private=req.prior_private,
                                          legacy_type_system=self.legacy_type_system)

    def default_apply_resource_change(self, req: ApplyResourceChangeRequest) -> ApplyResourceChangeResponse:
        """Destroy: nothing. Otherwise the planned state, every unknown value made known."""
        if req.planned_state is None:
            return ApplyResourceChangeResponse(None, legacy_type_system=self.legacy_type_system)
        schema = self.schema.resources.get(req.type_name)
        new = dict(req.planned_state)
        for name, v in new.items():
            if v is UNKNOWN:
                a = schema.attributes.get(name) if schema is not None else None
                new[name] = self._made_value(req.type_name, a.type if a is not None else "string")
        return ApplyResourceChangeResponse(new, private=req.planned_private,
                                           legacy_type_system=self.legacy_type_system)

    def _made_value(self, type_name: str, ty: Any) -> Any:
        if ty == "string":
            self._made += 1
            return f"{type_name}-{self._made}"
        return {"number": 0, "bool": False}.get(ty) if isinstance(ty, str) else None

    def default_read_resource(self, req: ReadResourceRequest) -> ReadResourceResponse:
        """The object unchanged (no drift), its private data kept."""
        return ReadResourceResponse(req.current_state, private=req.private)

    def default_read_data_source(self, req: ReadDataSourceRequest) -> ReadDataSourceResponse:
        """The configuration, as read."""
        return ReadDataSourceResponse(dict(req.config))

    def default_import_resource_state(self, req: ImportResourceStateRequest) -> ImportResourceStateResponse:
        return ImportResourceStateResponse({"id": req.id})

    def default_upgrade_resource_state(self, req: UpgradeResourceStateRequest) -> UpgradeResourceStateResponse:
        """The stored JSON decoded by the current schema (every attribute of it present)."""
        schema = self.schema.resources.get(req.type_name)
        if schema is None:
            return UpgradeResourceStateResponse(dict(req.raw_state))
        out = {}
        for n, t in schema.implied_types().items():
            v = req.raw_state.get(n)
            if t == "dynamic" and isinstance(v, dict) and "value" in v and "type" in v:
                out[n] = from_typed_json(v["value"], v["type"])  # stored with its type
            else:
                out[n] = from_typed_json(v, t)
        return UpgradeResourceStateResponse(out)


_OPERATIONS = frozenset({
    "configure", "validate_resource_config", "validate_data_resource_config", "plan_resource_change",
    "apply_resource_change", "read_resource", "read_data_source", "import_resource_state",
    "upgrade_resource_state"})
