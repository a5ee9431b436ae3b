"""The README's provider guide example works as written."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path
from typing import Any

import pytest

from engine.backend.operations import Options, apply_planned, make_plan
from engine.provider.registry import Providers

README = Path(__file__).resolve().parents[2] / "README.md"


def _guide_provider() -> Any:
    text = README.read_text()
    section = text.split("## Writing a provider", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S)
    assert code, "the README's provider guide has no python example"
    namespace: dict[str, Any] = {}
    exec(compile(code.group(1), "README.md", "exec"), namespace)
    return namespace["HelloProvider"]


async def _apply(tmp_path: Path, config: str, events: list[Any] | None = None) -> Any:
    (tmp_path / "main.tf").write_text(textwrap.dedent(config))
    opts = Options(chdir=str(tmp_path), fsync=False)
    providers = Providers({"hello": _guide_provider()()})
    emit = events.append if events is not None else (lambda e: None)
    planned = await make_plan(opts, emit, providers=providers)
    return planned, await apply_planned(planned, opts, emit)


@pytest.mark.trio
async def test_guide_provider_creates_updates_and_replaces(tmp_path: Path) -> None:
    _, result = await _apply(tmp_path, 'resource "hello_greeting" "x" { name = "world" }')
    assert result.ok, result.diagnostics
    state = (tmp_path / "terraform.tfstate").read_text()
    assert "Hello, world!" in state and 'provider[\\"example.com/you/hello\\"]' in state

    events: list[Any] = []
    planned, result = await _apply(tmp_path, 'resource "hello_greeting" "x" {\n name = "world"\n style = "loud"\n}',
                                   events)
    assert result.ok
    assert [c.action for c in planned.plan.changes] == ["update"]
    assert any(e.type == "apply_progress" and "re-rendering" in e.message for e in events), \
        "the provider's progress message did not become an apply_progress event"
    assert "HELLO, WORLD!" in (tmp_path / "terraform.tfstate").read_text()

    planned, result = await _apply(tmp_path, 'resource "hello_greeting" "x" {\n name = "moon"\n style = "loud"\n}')
    assert [c.action for c in planned.plan.changes] == ["delete-create"]
    assert planned.plan.changes[0].requires_replace == (("name",),)


@pytest.mark.trio
async def test_guide_provider_error_is_reported_for_its_resource(tmp_path: Path) -> None:
    _, result = await _apply(tmp_path, 'resource "hello_greeting" "x" { name = "" }')
    assert not result.ok
    assert result.diagnostics[0].summary == "Empty name"
    assert result.diagnostics[0].address == "hello_greeting.x"
