"""The one provider seam: every call the core makes to a provider goes through a :class:`ProviderSeam`.

httpx maps every transport error to its own at one place (``map_exceptions``); this module does
the same for providers. Whatever a provider does wrong is turned into strata's errors here, once:

* an exception raised by a provider call (a bug in an in-process provider, a plugin that crashed
  or hung up) becomes a :class:`ProviderCallFailed`, chained ``from`` the original, carrying the
  provider, the call (``operation``, tfplugin's name) and the resource address as fields. A call
  site either lets it propagate (``Failure(raises=True)``) or receives it as the error diagnostic
  of an otherwise empty response, so that it handles a crash exactly like an error the provider
  reported;
* the diagnostics a provider returns get the resource address and the configuration range of
  the block they are about, where they have none (terraform's ``InConfigBody``);
* ``requires_replace`` answers are read as attribute paths (:func:`replace_paths`).

The call sites keep their own wording for a failure (:class:`Failure`); the mapping itself lives
only here. A plugin client (tfplugin5/6 over gRPC) is one more :class:`~engine.provider.protocol.Provider`
behind this seam: its transport errors are exceptions like any other.
"""

from __future__ import annotations

import functools
from dataclasses import replace
from typing import Any

from engine.diagnostics import Diagnostic, ProviderError, SourceRange, error
from engine.frozen import frozen
from engine.log import get_logger
from engine.provider.protocol import (
    ApplyResourceChangeRequest,
    ApplyResourceChangeResponse,
    AttributePath,
    ImportResourceStateRequest,
    ImportResourceStateResponse,
    MoveResourceStateRequest,
    MoveResourceStateResponse,
    PlanResourceChangeRequest,
    PlanResourceChangeResponse,
    Provider,
    ProviderSchema,
    ReadDataSourceRequest,
    ReadDataSourceResponse,
    ReadResourceRequest,
    ReadResourceResponse,
    UpgradeResourceStateRequest,
    UpgradeResourceStateResponse,
    ValidateResourceConfigRequest,
    ValidateResourceConfigResponse,
)

log = get_logger("strata.provider")

@frozen
class Failure:
    """How a call site words a provider's failure to answer (an exception).

    ``detail`` is a format string over ``type`` (the exception's class name), ``message`` (its
    text), ``repr``, ``provider`` (the configuration's local name, ``aws.west``) and ``operation``.
    ``raises``: the site stops at the failure (:class:`ProviderCallFailed` propagates) instead of
    receiving it as an error diagnostic in the response."""

    summary: str
    detail: str = "{type}: {message}"
    raises: bool = False


PROVIDER_ERROR = Failure("Provider error")
"""The apply's wording: the failure of one instance's operation."""


class ProviderCallFailed(ProviderError):
    """A provider raised instead of answering ``operation`` (tfplugin's call name) about
    ``address`` (empty for a provider-wide call). ``cause`` is what it raised, also the
    exception's ``__cause__``; ``summary`` and ``detail`` are the call site's wording of it."""

    def __init__(self, operation: str, cause: BaseException, *, provider: str, address: str = "",
                 failure: Failure, subject: SourceRange | None = None) -> None:
        self.operation = operation
        self.cause = cause
        self.subject = subject
        detail = failure.detail.format(type=type(cause).__name__, message=cause, repr=repr(cause),
                                       provider=provider, operation=operation)
        super().__init__(failure.summary, address=address, provider=provider, detail=detail)

    def diagnostic(self) -> Diagnostic:
        """The failure as the error diagnostic of the instance it is about."""
        return error(self.summary, self.detail, self.subject, self.address or None)


def replace_paths(answer: tuple[str | AttributePath, ...]) -> tuple[AttributePath, ...]:
    """A provider's ``requires_replace``, each entry as a path (a bare name is a top-level one)."""
    if not answer:
        return ()
    try:
        return _replace_paths(tuple(answer))
    except TypeError:  # a list somewhere inside: not hashable, not worth caching
        return tuple((p,) if isinstance(p, str) else tuple(p) for p in answer)


@functools.lru_cache(maxsize=1024)
def _replace_paths(answer: tuple[str | AttributePath, ...]) -> tuple[AttributePath, ...]:
    # hot path: a provider tends to answer every plan of a type with the same tuple
    return tuple((p,) if isinstance(p, str) else tuple(p) for p in answer)


def in_config_body(body: Any, path: AttributePath) -> SourceRange | None:
    """Where ``path`` is written in a configuration block (terraform's ``InConfigBody``): the
    attribute it leads to, else the deepest nested block it reaches, else None. ``body`` has
    ``attributes`` (name → an attribute with a ``range``) and ``blocks`` (each with ``type``,
    ``labels``, ``range``, ``attributes`` and ``blocks``)."""
    found: SourceRange | None = None
    attrs, blocks = body.attributes, body.blocks
    i = 0
    while i < len(path):
        step = path[i]
        if not isinstance(step, str):
            return found
        a = attrs.get(step)
        if a is not None:
            return a.range  # type: ignore[no-any-return]
        of_type = [b for b in blocks if b.type == step]
        after = path[i + 1] if i + 1 < len(path) else None
        if isinstance(after, int) and 0 <= after < len(of_type):
            b, i = of_type[after], i + 2
        elif isinstance(after, str) and any(b.labels[:1] == (after,) for b in of_type):
            b, i = next(b for b in of_type if b.labels[:1] == (after,)), i + 2
        elif len(of_type) == 1:
            b, i = of_type[0], i + 1
        else:
            return found
        found, attrs, blocks = b.range, b.attributes, b.blocks
    return found


def tolerated(legacy: bool, what: str, provider: str, address: str, problem: str) -> bool:
    """Is a broken promise about planned or applied values (``problem``) tolerated? Only from a
    provider on the legacy type system, as terraform tolerates it: logged as a warning, in
    terraform's words, and the run goes on."""
    if not legacy:
        return False
    log.warning(f'Provider "{provider}" produced {what} for {address}, but we are tolerating it because '
                "it is using the legacy plugin SDK. The following problems may be the cause of any "
                f"confusing errors from downstream operations: {problem}",
                provider=provider, address=address)
    return True


class ProviderSeam:
    """A provider, as the core calls it. ``name`` is the provider configuration's local name
    (``terraform``, ``aws.west``): the ``provider`` of every error mapped here.

    Each call takes the ``address`` of the resource instance it is about and the ``subject``
    (configuration range) its diagnostics point at, and a :class:`Failure` wording of a crash."""

    __slots__ = ("provider", "name", "_schema")

    def __init__(self, provider: Provider, name: str) -> None:
        self.provider = provider
        self.name = name
        self._schema: ProviderSchema | None = None

    @property
    def source(self) -> str:
        return self.provider.source

    def get_schema(self) -> ProviderSchema:
        """The provider's schema, asked once."""
        s = self._schema
        if s is None:
            try:
                s = self._schema = self.provider.get_schema()
            except Exception as exc:  # the one place a schema failure is mapped
                raise ProviderCallFailed("GetProviderSchema", exc, provider=self.name,
                                         failure=Failure("Failed to load plugin schemas")) from exc
        return s

    def _failed(self, operation: str, exc: Exception, address: str, subject: SourceRange | None,
                failure: Failure) -> Diagnostic:
        """The one mapping of a provider's exception: raised as :class:`ProviderCallFailed` (chained
        from it) when the site stops there, its error diagnostic otherwise."""
        err = ProviderCallFailed(operation, exc, provider=self.name, address=address, failure=failure,
                                 subject=subject)
        if failure.raises:
            raise err from exc
        return err.diagnostic()

    @staticmethod
    def _addressed(diags: tuple[Diagnostic, ...], address: str, subject: SourceRange | None,
                   body: Any = None) -> tuple[Diagnostic, ...]:
        """``diags`` with ``address`` and ``subject`` where they have none (every other field,
        ``retryable`` included, kept); a diagnostic about an attribute path is placed at that
        attribute (or nested block) in ``body``, the configuration block, where it is written."""
        if not address:
            return diags
        return tuple(d if d.address and (d.subject or not subject) else
                     replace(d, address=d.address or address,
                             subject=d.subject or (body is not None and d.attribute
                                                   and in_config_body(body, d.attribute)) or subject)
                     for d in diags)

    async def configure(self, config: dict[str, Any], *, subject: SourceRange | None = None,
                        failure: Failure = Failure("Failed to configure provider", "{provider}: {type}: {message}")
                        ) -> tuple[Diagnostic, ...]:
        try:
            return tuple(await self.provider.configure(config))
        except Exception as exc:  # the seam: a provider's exception is mapped here, once
            return (self._failed("ConfigureProvider", exc, "", subject, failure),)

    async def validate_resource_config(
            self, req: ValidateResourceConfigRequest, *, data: bool = False, address: str = "",
            subject: SourceRange | None = None, body: Any = None,
            failure: Failure = Failure("Provider failed to validate the configuration",
                                       'Provider "{provider}": {type}: {message}')
    ) -> ValidateResourceConfigResponse:
        """ValidateResourceConfig, or (``data``) ValidateDataResourceConfig. ``body``: the
        resource's configuration block, where a diagnostic about an attribute is placed."""
        call = self.provider.validate_data_resource_config if data else self.provider.validate_resource_config
        try:
            resp = await call(req)
        except Exception as exc:  # the seam: a provider's exception is mapped here, once
            d = self._failed("ValidateDataResourceConfig" if data else "ValidateResourceConfig", exc, address,
                             subject, failure)
            return ValidateResourceConfigResponse((d,))
        if resp.diagnostics:
            resp = replace(resp, diagnostics=self._addressed(tuple(resp.diagnostics), address, subject, body))
        return resp

    async def plan_resource_change(self, req: PlanResourceChangeRequest, *, address: str = "",
                                   subject: SourceRange | None = None, failure: Failure = PROVIDER_ERROR,
                                   body: Any = None) -> PlanResourceChangeResponse:
        """PlanResourceChange. (Its ``requires_replace`` is left as the provider wrote it, names or
        paths: the planner reads it with :func:`replace_paths`.)"""
        # hot path (a plan and a final plan per operation): the call inline, no closure; the same
        # in every method below
        try:
            resp = await self.provider.plan_resource_change(req)
        except Exception as exc:  # the seam: a provider's exception is mapped here, once
            d = self._failed("PlanResourceChange", exc, address, subject, failure)
            return PlanResourceChangeResponse(None, (), (d,))
        if resp.diagnostics:
            resp = replace(resp, diagnostics=self._addressed(tuple(resp.diagnostics), address, subject, body))
        return resp

    async def apply_resource_change(self, req: ApplyResourceChangeRequest, *, address: str = "",
                                    subject: SourceRange | None = None, failure: Failure = PROVIDER_ERROR
                                    ) -> ApplyResourceChangeResponse:
        try:
            resp = await self.provider.apply_resource_change(req)
        except Exception as exc:  # the seam: a provider's exception is mapped here, once
            d = self._failed("ApplyResourceChange", exc, address, subject, failure)
            return ApplyResourceChangeResponse(None, (d,))
        if resp.diagnostics:
            resp = replace(resp, diagnostics=self._addressed(tuple(resp.diagnostics), address, subject))
        return resp

    async def read_resource(self, req: ReadResourceRequest, *, address: str = "",
                            subject: SourceRange | None = None, failure: Failure = PROVIDER_ERROR,
                            annotate: bool = True) -> ReadResourceResponse:
        """ReadResource; ``annotate=False`` leaves its diagnostics as the provider wrote them (the
        read that completes an import, as terraform's)."""
        try:
            resp = await self.provider.read_resource(req)
        except Exception as exc:  # the seam: a provider's exception is mapped here, once
            d = self._failed("ReadResource", exc, address, subject, failure)
            return ReadResourceResponse(None, (d,))
        if resp.diagnostics and annotate:
            resp = replace(resp, diagnostics=self._addressed(tuple(resp.diagnostics), address, subject))
        return resp

    async def read_data_source(self, req: ReadDataSourceRequest, *, address: str = "",
                               subject: SourceRange | None = None, failure: Failure = PROVIDER_ERROR,
                               body: Any = None) -> ReadDataSourceResponse:
        try:
            resp = await self.provider.read_data_source(req)
        except Exception as exc:  # the seam: a provider's exception is mapped here, once
            d = self._failed("ReadDataSource", exc, address, subject, failure)
            return ReadDataSourceResponse(None, (d,))
        if resp.diagnostics:
            resp = replace(resp, diagnostics=self._addressed(tuple(resp.diagnostics), address, subject, body))
        return resp

    async def import_resource_state(self, req: ImportResourceStateRequest, *, address: str = "",
                                    subject: SourceRange | None = None, failure: Failure = PROVIDER_ERROR
                                    ) -> ImportResourceStateResponse:
        """ImportResourceState; its diagnostics are left as the provider wrote them (terraform's
        import does not place them in the resource's block)."""
        try:
            resp = await self.provider.import_resource_state(req)
        except Exception as exc:  # the seam: a provider's exception is mapped here, once
            d = self._failed("ImportResourceState", exc, address, subject, failure)
            return ImportResourceStateResponse(None, (d,))
        return resp

    @property
    def moves_resource_state(self) -> bool:
        """Does the provider take objects of other resource types (MoveResourceState)? A provider
        with the method may still say no (``moves_resource_state``: a plugin's server capability)."""
        if not callable(getattr(self.provider, "move_resource_state", None)):
            return False
        says = getattr(self.provider, "moves_resource_state", True)
        return says if isinstance(says, bool) else True

    async def move_resource_state(self, req: MoveResourceStateRequest, *, address: str = "",
                                  subject: SourceRange | None = None, failure: Failure = PROVIDER_ERROR
                                  ) -> MoveResourceStateResponse:
        """MoveResourceState, of a provider that :attr:`moves_resource_state`."""
        try:
            resp: MoveResourceStateResponse = await self.provider.move_resource_state(req)  # type: ignore[attr-defined]
        except Exception as exc:  # the seam: a provider's exception is mapped here, once
            d = self._failed("MoveResourceState", exc, address, subject, failure)
            return MoveResourceStateResponse(None, (d,))
        return replace(resp, diagnostics=self._addressed(resp.diagnostics, address, subject))

    async def upgrade_resource_state(self, req: UpgradeResourceStateRequest, *, address: str = "",
                                     subject: SourceRange | None = None, failure: Failure = PROVIDER_ERROR
                                     ) -> UpgradeResourceStateResponse:
        try:
            resp = await self.provider.upgrade_resource_state(req)
        except Exception as exc:  # the seam: a provider's exception is mapped here, once
            d = self._failed("UpgradeResourceState", exc, address, subject, failure)
            return UpgradeResourceStateResponse(None, (d,))
        if resp.diagnostics:
            resp = replace(resp, diagnostics=self._addressed(tuple(resp.diagnostics), address, subject))
        return resp
