"""terraform-provider-example: a protocol-6 provider written with the PyPI framework ``tf``.

It runs in its own virtual environment (``tests.plugins.fetch.fetch_example`` builds it), started
through a wrapper script in a filesystem mirror, so terraform (``init -plugin-dir``) and strata
drive it exactly like a downloaded plugin. Its objects are JSON files in the directory the
provider's ``root`` names, so a test can count them the way the aws tests count queues:

* ``example_item``: ``name`` (forces replacement), ``content``, ``settings`` (a protocol-6
  *nested attribute*, single object of ``size`` and ``label``); computed ``id``, ``revision``
  (1, then +1 per update) and ``digest`` (of the content). File ``ROOT/item-NAME.json``.
* ``example_group``: ``name`` (forces replacement), ``members`` (list of strings); computed
  ``id`` and ``size``. File ``ROOT/group-NAME.json``.
* ``example_wait``: ``name`` (forces replacement), ``seconds``; computed ``id``. Its create
  writes ``ROOT/wait-NAME.started``, then waits ``seconds`` or until the provider receives
  StopProvider, which writes ``ROOT/stop-requested`` and makes the create fail ("Interrupted"):
  what a slow cloud operation does when terraform (or strata) is stopped a second time.
* data source ``example_item``: reads an item's file by ``name``.
* MoveResourceState (its server capability said, unless ``EXAMPLE_NO_MOVES`` is set): an ``example_item`` moved to an
  ``example_group`` (a ``moved`` block across types) becomes the group of the same name whose one
  member is the item's content. The move is the state's only (a provider may be asked before it
  is configured): until the group is written, its file is the item's, read as the group.
* function ``label(prefix, parts...)`` (``provider::example::label("web", "a", "b")`` is
  ``"web-a-b"``): a string parameter, a variadic one, and an error ("prefix must not be empty")
  when the prefix is empty.

Configured, it writes its process id to ``ROOT/provider.pid``.

go-plugin's transport: with ``PLUGIN_CLIENT_CERT`` set (the client does AutoMTLS, as terraform
does by default) the framework's own runner serves TLS; without it the same servicers are served
in plain gRPC on the unix socket and the handshake's certificate field is empty, which is what a
go-plugin server does when its client asks for no TLS.

This file is not imported by the test suite (it needs ``tf``, which only the provider's own
virtual environment has); the wrapper script runs it.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
import threading
from concurrent import futures
from pathlib import Path
from typing import Any

from tf import runner
from tf.function import CallContext, FunctionSignature, Parameter, Return
from tf.iface import (
    CreateContext,
    DataSource,
    DeleteContext,
    PlanContext,
    Provider,
    ReadContext,
    ReadDataContext,
    Resource,
    UpdateContext,
)
from tf.schema import Attribute, Schema
from tf.types import List, Number, String, TfType, Unknown
from tf.utils import Diagnostics

FULL_NAME = "registry.terraform.io/hashicorp/example"
STOP = threading.Event()
"""Set when the provider has received StopProvider."""


class Passthrough(TfType):
    """The Python value is the wire value (a nested attribute's object, as msgpack decodes it)."""

    def encode(self, value: Any) -> Any:
        return value

    def decode(self, value: Any) -> Any:
        return value

    def tf_type(self) -> bytes:
        return b'"dynamic"'  # never sent: a nested attribute has a nested_type instead of a type


class NestedAttribute(Attribute):
    """A protocol-6 attribute with a nested type (one object of ``attributes``), which ``tf`` lacks."""

    def __init__(self, name: str, attributes: list[Attribute], **kwargs: Any) -> None:
        super().__init__(name, Passthrough(), **kwargs)
        self.attributes = attributes

    def to_pb(self) -> Any:
        from tf.gen import tfplugin_pb2 as pb

        return pb.Schema.Attribute(
            name=self.name,
            nested_type=pb.Schema.Object(attributes=[a.to_pb() for a in self.attributes],
                                         nesting=pb.Schema.Object.NestingMode.SINGLE),
            description_kind=pb.StringKind.MARKDOWN,
            required=self.required or None, optional=self.optional or None, computed=self.computed or None,
        )


def _digest(content: str | None) -> str:
    return hashlib.sha256((content or "").encode()).hexdigest()[:16]


class _Stored:
    """A resource whose state is a JSON file under the provider's root."""

    kind = ""

    def __init__(self, provider: ExampleProvider) -> None:
        self.provider = provider

    def _path(self, name: str) -> Path:
        return self.provider.root / f"{self.kind}-{name}.json"

    def _write(self, state: dict[str, Any]) -> dict[str, Any]:
        path = self._path(state["name"])
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(state, sort_keys=True))
        tmp.replace(path)
        return state

    def read(self, ctx: ReadContext, current: dict[str, Any]) -> dict[str, Any] | None:
        path = self._path(current["name"])
        if not path.exists():
            return None  # gone: the tools plan to create it again
        stored: dict[str, Any] = json.loads(path.read_text())
        return stored

    def delete(self, ctx: DeleteContext, current: dict[str, Any]) -> None:
        self._path(current["name"]).unlink(missing_ok=True)


class Item(_Stored, Resource):
    kind = "item"

    @classmethod
    def get_name(cls) -> str:
        return "item"

    @classmethod
    def get_schema(cls) -> Schema:
        return Schema(version=1, attributes=[
            Attribute("name", String(), required=True, requires_replace=True),
            Attribute("content", String(), optional=True),
            NestedAttribute("settings", [Attribute("size", Number(), optional=True),
                                         Attribute("label", String(), optional=True)], optional=True),
            Attribute("id", String(), computed=True),
            Attribute("revision", Number(), computed=True),
            Attribute("digest", String(), computed=True),
        ])

    def plan(self, ctx: PlanContext, current: dict[str, Any] | None, planned: dict[str, Any]) -> dict[str, Any]:
        if ctx.changed_fields:
            planned["revision"] = Unknown
        if "content" in ctx.changed_fields:
            planned["digest"] = Unknown
        return planned

    def create(self, ctx: CreateContext, planned: dict[str, Any]) -> dict[str, Any]:
        return self._write({**planned, "id": f"item-{planned['name']}", "revision": 1,
                            "digest": _digest(planned.get("content"))})

    def update(self, ctx: UpdateContext, current: dict[str, Any], planned: dict[str, Any]) -> dict[str, Any]:
        return self._write({**planned, "id": current["id"], "revision": current["revision"] + 1,
                            "digest": _digest(planned.get("content"))})


def _group_of(item: dict[str, Any]) -> dict[str, Any]:
    """The group an item moved to (MoveResourceState) stands for."""
    return {"name": item["name"], "members": [item.get("content") or ""], "id": f"group-{item['name']}", "size": 1}


class Group(_Stored, Resource):
    kind = "group"

    def read(self, ctx: ReadContext, current: dict[str, Any]) -> dict[str, Any] | None:
        moved = self.provider.root / f"item-{current['name']}.json"
        if not self._path(current["name"]).exists() and moved.exists():  # moved from the item, not written since
            return _group_of(json.loads(moved.read_text()))
        return super().read(ctx, current)

    @classmethod
    def get_name(cls) -> str:
        return "group"

    @classmethod
    def get_schema(cls) -> Schema:
        return Schema(version=1, attributes=[
            Attribute("name", String(), required=True, requires_replace=True),
            Attribute("members", List(String()), required=True),
            Attribute("id", String(), computed=True),
            Attribute("size", Number(), computed=True),
        ])

    def plan(self, ctx: PlanContext, current: dict[str, Any] | None, planned: dict[str, Any]) -> dict[str, Any]:
        if "members" in ctx.changed_fields:
            planned["size"] = Unknown
        return planned

    def create(self, ctx: CreateContext, planned: dict[str, Any]) -> dict[str, Any]:
        return self._write({**planned, "id": f"group-{planned['name']}", "size": len(planned["members"])})

    def update(self, ctx: UpdateContext, current: dict[str, Any], planned: dict[str, Any]) -> dict[str, Any]:
        return self._write({**planned, "id": current["id"], "size": len(planned["members"])})


class Wait(_Stored, Resource):
    kind = "wait"

    @classmethod
    def get_name(cls) -> str:
        return "wait"

    @classmethod
    def get_schema(cls) -> Schema:
        return Schema(version=1, attributes=[
            Attribute("name", String(), required=True, requires_replace=True),
            Attribute("seconds", Number(), required=True),
            Attribute("id", String(), computed=True),
        ])

    def create(self, ctx: CreateContext, planned: dict[str, Any]) -> dict[str, Any] | None:
        started = self.provider.root / f"wait-{planned['name']}.started"
        started.parent.mkdir(parents=True, exist_ok=True)
        started.write_text("")
        if STOP.wait(float(planned["seconds"])):
            ctx.diagnostics.add_error("Interrupted", f"StopProvider received while creating {planned['name']}")
            return None
        return self._write({**planned, "id": f"wait-{planned['name']}"})

    def update(self, ctx: UpdateContext, current: dict[str, Any], planned: dict[str, Any]) -> dict[str, Any]:
        return self._write({**planned, "id": current["id"]})


class ItemData(DataSource):
    def __init__(self, provider: ExampleProvider) -> None:
        self.provider = provider

    @classmethod
    def get_name(cls) -> str:
        return "item"

    @classmethod
    def get_schema(cls) -> Schema:
        return Schema(version=1, attributes=[
            Attribute("name", String(), required=True),
            Attribute("id", String(), computed=True),
            Attribute("content", String(), computed=True),
            Attribute("revision", Number(), computed=True),
        ])

    def read(self, ctx: ReadDataContext, config: dict[str, Any]) -> dict[str, Any] | None:
        path = self.provider.root / f"item-{config['name']}.json"
        if not path.exists():
            ctx.diagnostics.add_error(f"No item named {config['name']!r}", f"{path} does not exist", path=["name"])
            return None
        item = json.loads(path.read_text())
        return {"name": item["name"], "id": item["id"], "content": item["content"], "revision": item["revision"]}


class Label:
    """``label(prefix, parts...)``: the prefix and the parts joined with "-"."""

    def __init__(self, provider: ExampleProvider) -> None:
        self.provider = provider

    @classmethod
    def get_name(cls) -> str:
        return "label"

    @classmethod
    def get_signature(cls) -> FunctionSignature:
        return FunctionSignature(parameters=[Parameter("prefix", String())], return_type=Return(String()),
                                 variadic_parameter=Parameter("parts", String()),
                                 summary="Joins a prefix and parts with dashes")

    def call(self, ctx: CallContext, arguments: list[Any]) -> Any:
        prefix, *parts = arguments
        if not prefix:
            ctx.diagnostics.add_error("prefix must not be empty", "")
            return None
        return "-".join([prefix, *parts])


class ExampleProvider(Provider):
    def __init__(self) -> None:
        self.root = Path(".")

    def get_model_prefix(self) -> str:
        return "example_"

    def full_name(self) -> str:
        return FULL_NAME

    def get_provider_schema(self, diags: Diagnostics) -> Schema:
        return Schema(version=1, attributes=[Attribute("root", String(), required=True,
                                                       description="Directory holding the objects")])

    def validate_config(self, diags: Diagnostics, config: dict[str, Any]) -> None:
        pass

    def configure_provider(self, diags: Diagnostics, config: dict[str, Any]) -> None:
        self.root = Path(config["root"])
        self.root.mkdir(parents=True, exist_ok=True)
        (self.root / "provider.pid").write_text(str(os.getpid()))  # the last process configured

    def get_data_sources(self) -> list[type[DataSource]]:
        return [ItemData]

    def get_resources(self) -> list[type[Resource]]:
        return [Item, Group, Wait]

    def get_functions(self) -> list[Any]:
        return [Label]


def _stop_provider(servicer: Any, request: Any, context: Any) -> Any:
    """StopProvider: what is waiting stops (``tf`` itself only acknowledges the call)."""
    from tf.gen import tfplugin_pb2 as pb

    root = getattr(servicer.app, "root", Path("."))
    root.mkdir(parents=True, exist_ok=True)
    (root / "stop-requested").write_text("")
    STOP.set()
    return pb.StopProvider.Response()


def _move_resource_state(servicer: Any, request: Any, context: Any) -> Any:
    """MoveResourceState: ``example_item`` → ``example_group`` (``tf`` itself refuses every move)."""
    from tf.gen import tfplugin_pb2 as pb
    from tf.utils import to_dynamic_value

    diags = Diagnostics()
    if request.source_type_name != "example_item" or request.target_type_name != "example_group":
        diags.add_error("Unsupported move", f"cannot move {request.source_type_name} to {request.target_type_name}")
        return pb.MoveResourceState.Response(diagnostics=diags.to_pb())
    item = json.loads(request.source_state.json)
    group = _group_of(item)
    return pb.MoveResourceState.Response(target_state=to_dynamic_value(group), diagnostics=diags.to_pb())


def _with_move_capability(method: Any) -> Any:
    """GetProviderSchema (or GetMetadata) saying the provider takes MoveResourceState."""

    def answer(servicer: Any, request: Any, context: Any) -> Any:
        resp = method(servicer, request, context)
        if not os.environ.get("EXAMPLE_NO_MOVES"):
            resp.server_capabilities.move_resource_state = True
        return resp

    return answer


def serve_plain(provider: Provider) -> None:
    """The framework's services in plain gRPC on a unix socket: a go-plugin server without TLS."""
    import grpc
    from tf.gen import grpc_controller_pb2 as controller_pb
    from tf.gen import grpc_controller_pb2_grpc as controller_rpc
    from tf.gen import tfplugin_pb2_grpc as rpc
    from tf.provider import ProviderServicer

    stopped = futures.Future[None]()

    class Controller(controller_rpc.GRPCControllerServicer):  # type: ignore[misc]
        def Shutdown(self, request: Any, context: Any) -> Any:
            stopped.set_result(None)
            return controller_pb.Empty()

    server = grpc.server(futures.ThreadPoolExecutor(max_workers=10))
    rpc.add_ProviderServicer_to_server(ProviderServicer(provider), server)
    controller_rpc.add_GRPCControllerServicer_to_server(Controller(), server)
    with tempfile.TemporaryDirectory(prefix="plugin-") as tmp:
        sock = f"{tmp}/example.sock"
        server.add_insecure_port(f"unix://{sock}")
        server.start()
        print(f"1|6|unix|{sock}|grpc|", flush=True)
        try:
            stopped.result()  # until Shutdown, or the client kills us
        except KeyboardInterrupt:
            pass
        server.stop(grace=0.5)


def main() -> None:
    from tf.provider import ProviderServicer

    ProviderServicer.StopProvider = _stop_provider
    ProviderServicer.MoveResourceState = _move_resource_state
    ProviderServicer.GetProviderSchema = _with_move_capability(ProviderServicer.GetProviderSchema)
    ProviderServicer.GetMetadata = _with_move_capability(ProviderServicer.GetMetadata)
    if os.environ.get("PLUGIN_CLIENT_CERT"):
        runner.run_provider(ExampleProvider(), sys.argv)
    else:
        serve_plain(ExampleProvider())


if __name__ == "__main__":
    main()
