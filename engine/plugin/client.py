"""A Terraform provider plugin as a :class:`~engine.provider.protocol.Provider`: tfplugin5 or 6
over gRPC, behind the engine's one provider seam.

One :class:`PluginProvider` is one provider configuration and one plugin process, started when
first needed (:mod:`engine.plugin.process` starts, watches and ends it). Each call encodes its
values with cty's msgpack (:mod:`engine.plugin.msgpack_values`) by the schema, which is asked
once per process and decoded once (:mod:`engine.plugin.schema`).

Async on trio and asyncio alike. On asyncio (strata's default) each call is made with grpcio's
asyncio API (``grpc.aio``), on a channel of its own bound to the running loop: at 10 calls in
flight it costs strata less than half the CPU per call of the alternative (83 against 181 µs,
``python -m benchmarks.plugin_call_overhead``). grpcio's asyncio API runs only on asyncio, so on
trio each call is made with grpcio's synchronous API as a future (``multicallable.future``),
whose completion callback (on a grpcio thread) wakes the waiting task through trio's thread-safe
entry (``TrioToken.run_sync_soon``). No worker thread is taken per call. The synchronous channel
also serves what is asked outside the loop: the schema, StopProvider at a second interrupt, and
go-plugin's Shutdown.

Failures a plugin can have are answered as terraform answers them, as an error diagnostic of
the call's response (the seam then adds the address and the block): a plugin that stopped
answering ("Plugin did not respond", with the first lines of its panic when it printed one), a
gRPC error ("Plugin error"). Only GetProviderSchema, which has no diagnostics in the engine's
protocol, raises. Provider functions are :mod:`engine.plugin.functions`.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import grpc
import sniffio

from engine.diagnostics import Diagnostic, ProviderError, error
from engine.lang.convert import ConversionError
from engine.lang.convert import convert as convert_value
from engine.lang.provider_functions import ProviderFunction
from engine.plugin import msgpack_values as mv
from engine.plugin.functions import bind, signatures
from engine.plugin.process import PluginProcess
from engine.plugin.schema import PluginSchema, convert
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

TERRAFORM_VERSION = "1.11.0"  # the core version strata's behaviour follows, told to ConfigureProvider
MAX_MESSAGE = 256 << 20  # the aws schema alone is ~615 KB; terraform allows 256 MiB too
SCHEMA_TIMEOUT = 300.0
CHANNEL_OPTIONS = [
    ("grpc.max_receive_message_length", MAX_MESSAGE),
    ("grpc.max_send_message_length", MAX_MESSAGE),
    # no retry filter: it keeps a copy of each request for a replay strata never wants (a plugin
    # call is not idempotent), and costs each call time (~10% of strata's CPU per call, measured)
    ("grpc.enable_retries", 0),
]

# terraform's name of each call (plugin.(*GRPCProvider).NAME) → (tfplugin5 rpc and message,
# tfplugin6 rpc and message)
_CALLS: dict[str, tuple[tuple[str, str], tuple[str, str]]] = {
    "GetProviderSchema": (("GetSchema", "GetProviderSchema"), ("GetProviderSchema", "GetProviderSchema")),
    "ValidateProviderConfig": (("PrepareProviderConfig", "PrepareProviderConfig"),
                               ("ValidateProviderConfig", "ValidateProviderConfig")),
    "ValidateResourceConfig": (("ValidateResourceTypeConfig", "ValidateResourceTypeConfig"),
                               ("ValidateResourceConfig", "ValidateResourceConfig")),
    "ValidateDataResourceConfig": (("ValidateDataSourceConfig", "ValidateDataSourceConfig"),
                                   ("ValidateDataResourceConfig", "ValidateDataResourceConfig")),
    "UpgradeResourceState": (("UpgradeResourceState",) * 2, ("UpgradeResourceState",) * 2),
    "ConfigureProvider": (("Configure", "Configure"), ("ConfigureProvider", "ConfigureProvider")),
    "ReadResource": (("ReadResource",) * 2, ("ReadResource",) * 2),
    "PlanResourceChange": (("PlanResourceChange",) * 2, ("PlanResourceChange",) * 2),
    "ApplyResourceChange": (("ApplyResourceChange",) * 2, ("ApplyResourceChange",) * 2),
    "ImportResourceState": (("ImportResourceState",) * 2, ("ImportResourceState",) * 2),
    "ReadDataSource": (("ReadDataSource",) * 2, ("ReadDataSource",) * 2),
    "Stop": (("Stop", "Stop"), ("StopProvider", "StopProvider")),
    "GetFunctions": (("GetFunctions",) * 2, ("GetFunctions",) * 2),
    "CallFunction": (("CallFunction",) * 2, ("CallFunction",) * 2),
    "MoveResourceState": (("MoveResourceState",) * 2, ("MoveResourceState",) * 2),
}
_SEVERITY = {1: "error", 2: "warning"}


def _protocol_module(version: int) -> Any:
    if version == 5:
        from engine.plugin.proto import tfplugin5_pb2 as pb5

        return pb5
    from engine.plugin.proto import tfplugin6_pb2 as pb6

    return pb6


def _waker() -> Callable[[Callable[[], None]], object]:
    """The running event loop's thread-safe "call this soon" (trio or asyncio)."""
    if sniffio.current_async_library() == "trio":
        import trio

        return trio.lowlevel.current_trio_token().run_sync_soon
    return asyncio.get_running_loop().call_soon_threadsafe


def _safely(wake: Callable[[Callable[[], None]], object], fn: Callable[[], None]) -> None:
    """``wake(fn)`` from a grpcio thread; nothing when the loop has ended meanwhile (a call
    cancelled as the run stopped): there is no one left to wake."""
    try:
        wake(fn)
    except Exception:  # trio's RunFinishedError, asyncio's "Event loop is closed"
        pass


class _Rpc:
    """One call of the connected plugin: its gRPC method and its message classes."""

    __slots__ = ("name", "path", "method", "request", "message")

    def __init__(self, name: str, path: str, method: Any, message: Any) -> None:
        self.name = name
        self.path = path
        self.method = method
        self.message = message
        self.request = message.Request


class PluginProvider:
    """A provider plugin executable serving one provider configuration.

    ``source`` is the provider's source address (``registry.terraform.io/hashicorp/null``). The
    process starts on the first call and ends with :meth:`close` (or strata's exit)."""

    def __init__(self, executable: Path, source: str, name: str = "") -> None:
        self.executable = Path(executable)
        self.source = source
        self.name = name or source.rsplit("/", 1)[-1]
        self.process: PluginProcess | None = None
        self.protocol = 0
        self._channel: grpc.Channel | None = None
        self._rpcs: dict[str, _Rpc] = {}
        self._schema: PluginSchema | None = None
        self._functions: dict[str, ProviderFunction] | None = None
        self._lock = threading.Lock()
        self._pb: Any = None
        self._aio: tuple[asyncio.AbstractEventLoop, dict[str, Any], Any] | None = None
        """grpc.aio's multicallables by call and their channel, bound to one asyncio loop."""

    # -- the process and the channel ----------------------------------------------------------
    def _ensure(self) -> None:
        """Start the plugin and connect, once (blocking: the handshake takes tens of ms)."""
        if self._channel is not None:
            return
        with self._lock:
            if self._channel is not None:
                return
            proc = PluginProcess(self.executable, self.name)
            hs = proc.start()
            self.process, self.protocol = proc, hs.protocol
            self._pb = pb = _protocol_module(hs.protocol)
            channel = grpc.insecure_channel(f"unix:{hs.address}", options=CHANNEL_OPTIONS)
            service = f"/tfplugin{hs.protocol}.Provider/"
            which = 0 if hs.protocol == 5 else 1
            for call, versions in _CALLS.items():
                rpc, msg = versions[which]
                message = getattr(pb, msg)
                self._rpcs[call] = _Rpc(call, service + rpc, channel.unary_unary(
                    service + rpc, request_serializer=message.Request.SerializeToString,
                    response_deserializer=message.Response.FromString, _registered_method=True), message)
            shutdown = channel.unary_unary("/plugin.GRPCController/Shutdown",
                                           request_serializer=lambda _: b"",
                                           response_deserializer=lambda _: None)
            proc.shutdown = lambda: shutdown(None, timeout=1.0)
            self._channel = channel

    async def _ensure_async(self) -> None:
        if self._channel is None:
            await anyio.to_thread.run_sync(self._ensure)

    def close(self) -> None:
        """Shut the plugin down (go-plugin's controller, then SIGKILL after a grace period)."""
        if self.process is not None:
            self.process.close()
        if self._channel is not None:
            self._channel.close()

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None else None

    # -- calling ----------------------------------------------------------------------------
    def _aio_calls(self, loop: asyncio.AbstractEventLoop) -> dict[str, Any]:
        """grpc.aio's multicallables on ``loop`` (a channel per loop: a grpc.aio channel serves
        the loop it was made on only)."""
        aio = self._aio
        if aio is not None and aio[0] is loop:
            return aio[1]
        import grpc.aio

        assert self.process is not None and self.process.handshake is not None
        channel = grpc.aio.insecure_channel(f"unix:{self.process.handshake.address}", options=CHANNEL_OPTIONS)
        calls = {name: channel.unary_unary(rpc.path, request_serializer=rpc.request.SerializeToString,
                                           response_deserializer=rpc.message.Response.FromString)
                 for name, rpc in self._rpcs.items()}
        self._aio = (loop, calls, channel)
        return calls

    async def _call(self, call: str, req: Any) -> Any:
        """``call`` with ``req``: its response, or a :class:`_CallFailed` with the diagnostic."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # trio
            loop = None
        if loop is not None:
            try:
                return await self._aio_calls(loop)[call](req)
            except grpc.RpcError as exc:
                raise _CallFailed(self._rpc_failure(call, exc)) from exc
        rpc = self._rpcs[call]
        fut = rpc.method.future(req)
        done = anyio.Event()
        wake = _waker()
        fut.add_done_callback(lambda _f: _safely(wake, done.set))
        try:
            await done.wait()
        except BaseException:
            fut.cancel()
            raise
        try:
            return fut.result()
        except grpc.RpcError as exc:
            raise _CallFailed(self._rpc_failure(call, exc)) from exc

    def _rpc_failure(self, call: str, exc: Any) -> Diagnostic:
        """terraform's wording of a failed call (internal/plugin/grpc_error.go)."""
        code = exc.code() if hasattr(exc, "code") else None
        proc = self.process
        qualified = f"plugin{'6' if self.protocol == 6 else ''}.(*GRPCProvider).{call}"
        if code == grpc.StatusCode.UNAVAILABLE or (proc is not None and proc.exited):
            detail = (f"The plugin encountered an error, and failed to respond to the {qualified} "
                      "call. The plugin logs may contain more details.")
            if proc is not None and proc.wait_exited(2.0):
                panic = proc.panic_lines()
                if panic:
                    detail += (f"\n\nStack trace from the {self.executable.name} plugin:\n\n"
                               + "\n".join(panic))
            return error("Plugin did not respond", detail)
        details = exc.details() if hasattr(exc, "details") else str(exc)
        return error("Plugin error", f"The plugin returned an unexpected error from {qualified}: "
                     f"rpc error: code = {getattr(code, 'name', code)} desc = {details}")

    def _diags(self, diags: Any) -> tuple[Diagnostic, ...]:
        if not diags:
            return ()
        return tuple(Diagnostic(_SEVERITY.get(d.severity, "error"), d.summary, d.detail,
                                attribute=_path(d.attribute) if d.HasField("attribute") else ())
                     for d in diags)

    def _dv(self, value: Any, ty: Any) -> Any:
        return self._pb.DynamicValue(msgpack=mv.encode(value, ty))

    @staticmethod
    def _value(dv: Any, ty: Any) -> Any:
        if dv.msgpack:
            return mv.decode(dv.msgpack, ty)
        if dv.json:
            return mv.decode_json(dv.json, ty)
        return None

    # -- schema -----------------------------------------------------------------------------
    def plugin_schema(self) -> PluginSchema:
        """The plugin's schema with what only the wire needs, asked once per process."""
        s = self._schema
        if s is None:
            self._ensure()
            rpc = self._rpcs["GetProviderSchema"]
            try:
                resp = rpc.method(rpc.request(), timeout=SCHEMA_TIMEOUT)
            except grpc.RpcError as exc:
                d = self._rpc_failure("GetProviderSchema", exc)
                raise ProviderError(d.summary, provider=self.name, detail=d.detail) from exc
            s = convert(resp)
            errors = [d for d in self._diags(resp.diagnostics) if d.severity == "error"]
            if errors:
                raise ProviderError(errors[0].summary, provider=self.name, detail=errors[0].detail)
            self._schema = s
        return s

    def get_schema(self) -> ProviderSchema:
        return self.plugin_schema().schema

    def functions(self) -> dict[str, ProviderFunction]:
        """The provider's functions (from its schema; when that declares none, GetFunctions, which a
        plugin older than 5.5/6.5 does not implement: then it has none), each calling CallFunction."""
        fs = self._functions
        if fs is None:
            declared = self.plugin_schema().functions
            if not declared:
                get = self._rpcs["GetFunctions"]
                try:
                    declared = signatures(get.method(get.request(), timeout=SCHEMA_TIMEOUT).functions)
                except grpc.RpcError:
                    declared = {}
            rpc = self._rpcs["CallFunction"]
            fs = self._functions = {
                name: bind(fn, self._pb, rpc.method, lambda exc: self._rpc_failure("CallFunction", exc).detail)
                for name, fn in declared.items()}
        return fs

    # -- the calls --------------------------------------------------------------------------
    async def configure(self, config: dict[str, Any]) -> tuple[Diagnostic, ...]:
        await self._ensure_async()
        s = self.plugin_schema()
        pb, ty = self._pb, s.provider_type
        full = _complete(config, ty)
        try:
            v = await self._call("ValidateProviderConfig",
                                 self._rpcs["ValidateProviderConfig"].request(config=self._dv(full, ty)))
            diags = self._diags(v.diagnostics) + _deprecations(s, "provider", "", full)
            if any(d.severity == "error" for d in diags):
                return diags
            if self.protocol == 5 and v.HasField("prepared_config"):
                prepared = self._value(v.prepared_config, ty)
                if prepared is not None:
                    full = prepared
            r = await self._call("ConfigureProvider", self._rpcs["ConfigureProvider"].request(
                terraform_version=TERRAFORM_VERSION, config=pb.DynamicValue(msgpack=mv.encode(full, ty))))
            return diags + self._diags(r.diagnostics)
        except _CallFailed as f:
            return (f.diagnostic,)

    async def _validate(self, call: str, mode: str, req: ValidateResourceConfigRequest
                        ) -> ValidateResourceConfigResponse:
        await self._ensure_async()
        s = self.plugin_schema()
        ty = (s.resource_types if mode == "managed" else s.data_types)[req.type_name]
        try:
            r = await self._call(call, self._rpcs[call].request(type_name=req.type_name,
                                                                 config=self._dv(req.config, ty)))
        except _CallFailed as f:
            return ValidateResourceConfigResponse((f.diagnostic,))
        return ValidateResourceConfigResponse(self._diags(r.diagnostics)
                                              + _deprecations(s, mode, req.type_name, req.config))

    async def validate_resource_config(self, req: ValidateResourceConfigRequest
                                       ) -> ValidateResourceConfigResponse:
        return await self._validate("ValidateResourceConfig", "managed", req)

    async def validate_data_resource_config(self, req: ValidateResourceConfigRequest
                                            ) -> ValidateResourceConfigResponse:
        return await self._validate("ValidateDataResourceConfig", "data", req)

    async def plan_resource_change(self, req: PlanResourceChangeRequest) -> PlanResourceChangeResponse:
        await self._ensure_async()
        ty = self.plugin_schema().resource_types[req.type_name]
        dv = self._pb.DynamicValue
        try:
            r = await self._call("PlanResourceChange", self._rpcs["PlanResourceChange"].request(
                type_name=req.type_name, prior_state=dv(msgpack=mv.encode(req.prior_state, ty)),
                proposed_new_state=dv(msgpack=mv.encode(req.proposed_new_state, ty)),
                config=dv(msgpack=mv.encode(req.config, ty)), prior_private=req.prior_private))
        except _CallFailed as f:
            return PlanResourceChangeResponse(None, (), (f.diagnostic,))
        return PlanResourceChangeResponse(
            self._value(r.planned_state, ty), tuple(_path(p) for p in r.requires_replace),
            self._diags(r.diagnostics), r.planned_private, r.legacy_type_system)

    async def apply_resource_change(self, req: ApplyResourceChangeRequest) -> ApplyResourceChangeResponse:
        await self._ensure_async()
        ty = self.plugin_schema().resource_types[req.type_name]
        dv = self._pb.DynamicValue
        try:
            r = await self._call("ApplyResourceChange", self._rpcs["ApplyResourceChange"].request(
                type_name=req.type_name, prior_state=dv(msgpack=mv.encode(req.prior_state, ty)),
                planned_state=dv(msgpack=mv.encode(req.planned_state, ty)),
                config=dv(msgpack=mv.encode(req.config, ty)), planned_private=req.planned_private))
        except _CallFailed as f:
            return ApplyResourceChangeResponse(None, (f.diagnostic,))
        return ApplyResourceChangeResponse(self._value(r.new_state, ty), self._diags(r.diagnostics),
                                           r.private, r.legacy_type_system)

    async def read_resource(self, req: ReadResourceRequest) -> ReadResourceResponse:
        await self._ensure_async()
        ty = self.plugin_schema().resource_types[req.type_name]
        try:
            r = await self._call("ReadResource", self._rpcs["ReadResource"].request(
                type_name=req.type_name, current_state=self._dv(req.current_state, ty), private=req.private))
        except _CallFailed as f:
            return ReadResourceResponse(None, (f.diagnostic,))
        return ReadResourceResponse(self._value(r.new_state, ty), self._diags(r.diagnostics), r.private)

    async def read_data_source(self, req: ReadDataSourceRequest) -> ReadDataSourceResponse:
        await self._ensure_async()
        ty = self.plugin_schema().data_types[req.type_name]
        try:
            r = await self._call("ReadDataSource", self._rpcs["ReadDataSource"].request(
                type_name=req.type_name, config=self._dv(req.config, ty)))
        except _CallFailed as f:
            return ReadDataSourceResponse(None, (f.diagnostic,))
        return ReadDataSourceResponse(self._value(r.state, ty), self._diags(r.diagnostics))

    async def import_resource_state(self, req: ImportResourceStateRequest) -> ImportResourceStateResponse:
        await self._ensure_async()
        types = self.plugin_schema().resource_types
        try:
            r = await self._call("ImportResourceState", self._rpcs["ImportResourceState"].request(
                type_name=req.type_name, id=req.id))
        except _CallFailed as f:
            return ImportResourceStateResponse(None, (f.diagnostic,))
        diags = self._diags(r.diagnostics)
        for imported in r.imported_resources:  # terraform keeps the one of the type asked for
            if imported.type_name == req.type_name:
                return ImportResourceStateResponse(self._value(imported.state, types[req.type_name]),
                                                   diags, imported.private)
        return ImportResourceStateResponse(None, diags or (error(
            "Resource Import Not Implemented", f"The provider returned no {req.type_name} object to import."),))

    async def upgrade_resource_state(self, req: UpgradeResourceStateRequest) -> UpgradeResourceStateResponse:
        await self._ensure_async()
        ty = self.plugin_schema().resource_types[req.type_name]
        pb = self._pb
        if isinstance(req.raw_state, mv.FlatmapState):
            raw = pb.RawState(flatmap=dict(req.raw_state))
        else:
            raw = pb.RawState(json=mv.encode_json(req.raw_state))
        try:
            r = await self._call("UpgradeResourceState", self._rpcs["UpgradeResourceState"].request(
                type_name=req.type_name, version=req.version, raw_state=raw))
        except _CallFailed as f:
            return UpgradeResourceStateResponse(None, (f.diagnostic,))
        return UpgradeResourceStateResponse(self._value(r.upgraded_state, ty), self._diags(r.diagnostics))

    @property
    def moves_resource_state(self) -> bool:
        """Does the plugin take objects of other resource types (its MoveResourceState capability)?"""
        return self.plugin_schema().capabilities.move_resource_state

    async def move_resource_state(self, req: MoveResourceStateRequest) -> MoveResourceStateResponse:
        """MoveResourceState: the source object (as the state has it, JSON) made an object of the
        target type by the plugin."""
        await self._ensure_async()
        ty = self.plugin_schema().resource_types[req.target_type_name]
        try:
            r = await self._call("MoveResourceState", self._rpcs["MoveResourceState"].request(
                source_provider_address=req.source_provider_address, source_type_name=req.source_type_name,
                source_schema_version=req.source_schema_version,
                source_state=self._pb.RawState(json=mv.encode_json(req.source_state)),
                target_type_name=req.target_type_name, source_private=req.source_private))
        except _CallFailed as f:
            return MoveResourceStateResponse(None, (f.diagnostic,))
        return MoveResourceStateResponse(self._value(r.target_state, ty), self._diags(r.diagnostics),
                                         r.target_private)

    async def stop(self) -> str:
        """StopProvider: ask the plugin to cancel what it is doing; its error text ("" when none)."""
        if self._channel is None:
            return ""
        try:
            r = await self._call("Stop", self._rpcs["Stop"].request())
        except _CallFailed as f:
            return f.diagnostic.detail
        return str(r.Error)

    def stop_now(self, timeout: float = 5.0) -> str:
        """StopProvider, blocking (from a signal handler's context, at a second interrupt)."""
        if self._channel is None or (self.process is not None and self.process.exited):
            return ""
        rpc = self._rpcs["Stop"]
        try:
            return str(rpc.method(rpc.request(), timeout=timeout).Error)
        except grpc.RpcError as exc:
            return self._rpc_failure("Stop", exc).detail


class _CallFailed(ProviderError):
    """A call failed at the transport; ``diagnostic`` says so in terraform's words (caught in
    the call's method and returned as its response's diagnostic)."""

    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(diagnostic.summary, detail=diagnostic.detail)
        self.diagnostic = diagnostic


def _path(p: Any) -> AttributePath:
    out: list[str | int] = []
    for step in p.steps:
        which = step.WhichOneof("selector")
        if which == "element_key_int":
            out.append(int(step.element_key_int))
        elif which is not None:
            out.append(getattr(step, which))
    return tuple(out)


def _complete(config: dict[str, Any], ty: Any) -> dict[str, Any]:
    """A provider block's arguments as an object of the provider's schema: unset ones null, each
    converted to its attribute's type (``region = 5`` is the string "5", as terraform sends it)."""
    attrs = ty[1] if isinstance(ty, (list, tuple)) and len(ty) > 1 else {}
    out = {}
    for k, t in attrs.items():
        v = config.get(k)
        if v is not None and t != "dynamic":
            try:
                v = convert_value(v, t)
            except ConversionError:
                pass  # left as written: the plugin's validation says what is wrong with it
        out[k] = v
    return out


def _deprecations(s: PluginSchema, mode: str, type_name: str, config: Any) -> tuple[Diagnostic, ...]:
    """terraform's warning for each deprecated attribute or block the configuration sets."""
    paths = s.deprecated.get((mode, type_name))
    if not paths or not isinstance(config, dict):
        return ()
    out = []
    for path in paths:
        if _is_set(config, path):
            name = path[-1]
            out.append(Diagnostic("warning", "Deprecated attribute",
                                  f'The attribute "{name}" is deprecated. Refer to the provider '
                                  "documentation for details.", attribute=path))
    return tuple(out)


def _is_set(v: Any, path: AttributePath) -> bool:
    if not path:
        return v is not None
    if isinstance(v, dict):
        return _is_set(v.get(path[0]), path[1:]) if path[0] in v else False
    if isinstance(v, tuple):
        return any(_is_set(x, path) for x in v)
    return False
