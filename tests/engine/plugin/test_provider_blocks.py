"""A provider block takes the nested blocks its provider's schema declares (aws ``endpoints {}``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio

from engine.config.module import load_module
from engine.config.providers import configure_providers
from engine.diagnostics import Diagnostic
from engine.provider.protocol import (
    AttributeSchema,
    BaseProvider,
    BlockSchema,
    ProviderSchema,
    ResourceSchema,
)
from engine.provider.registry import Providers
from engine.values import ListVal


class _WithEndpoints(BaseProvider):
    source = "example.com/x/cloud"

    def __init__(self) -> None:
        self.configured: dict[str, Any] | None = None

    def get_schema(self) -> ProviderSchema:
        endpoints = BlockSchema("list", {"sqs": AttributeSchema("string", optional=True)})
        return ProviderSchema({}, provider=ResourceSchema({"region": AttributeSchema("string", optional=True)},
                                                          blocks={"endpoints": endpoints}))

    async def configure(self, config: dict[str, Any]) -> tuple[Diagnostic, ...]:
        self.configured = config
        return ()


def _configure(tmp_path: Path, text: str) -> tuple[_WithEndpoints, list[Diagnostic]]:
    (tmp_path / "main.tf").write_text(text)
    module = load_module(str(tmp_path))
    provider = _WithEndpoints()
    diags: list[Diagnostic] = []
    anyio.run(configure_providers, module, Providers({"cloud": provider}), {}, lambda n, line: None, diags)
    return provider, diags


def test_declared_nested_block_reaches_configure(tmp_path: Path) -> None:
    p, diags = _configure(tmp_path, 'provider "cloud" {\n  region = "x"\n  endpoints {\n    sqs = "http://127.0.0.1:1"\n  }\n}\n')
    assert diags == []
    assert p.configured == {"region": "x", "endpoints": ListVal([{"sqs": "http://127.0.0.1:1"}])}


def test_undeclared_nested_block_is_refused_at_its_line(tmp_path: Path) -> None:
    p, diags = _configure(tmp_path, 'provider "cloud" {\n  features {\n  }\n}\n')
    assert [d.summary for d in diags] == ["Unsupported block type"]
    assert diags[0].subject is not None and diags[0].subject.line == 2
    assert p.configured is None
