"""A provider's diagnostic that carries an attribute path points at that attribute's line."""

from __future__ import annotations

from pathlib import Path

import anyio

from engine.config.module import load_module
from engine.diagnostics import Diagnostic
from engine.provider.protocol import (
    BaseProvider,
    ValidateResourceConfigRequest,
    ValidateResourceConfigResponse,
)
from engine.provider.seam import ProviderSeam, in_config_body

CONFIG = """resource "null_resource" "a" {
  triggers = {
    x = "1"
  }

  rule {
    port = 1
  }
  rule {
    port = 2
  }
}
"""


class _Complains(BaseProvider):
    source = "example.com/x/complains"

    def __init__(self, path: tuple[str | int, ...]) -> None:
        self.path = path

    async def validate_resource_config(self, req: ValidateResourceConfigRequest) -> ValidateResourceConfigResponse:
        return ValidateResourceConfigResponse((Diagnostic("error", "Bad value", "no", attribute=self.path),))


def _resource(tmp_path: Path):
    (tmp_path / "main.tf").write_text(CONFIG)
    return next(iter(load_module(str(tmp_path)).resources.values()))


def _line(tmp_path: Path, path: tuple[str | int, ...]) -> int | None:
    rc = _resource(tmp_path)

    async def main() -> int | None:
        seam = ProviderSeam(_Complains(path), "complains")
        resp = await seam.validate_resource_config(ValidateResourceConfigRequest("null_resource", {}),
                                                   address="null_resource.a", subject=rc.range, body=rc)
        (d,) = resp.diagnostics
        return d.subject.line if d.subject else None

    return anyio.run(main)


def test_attribute_path_points_at_the_attribute(tmp_path: Path) -> None:
    assert _line(tmp_path, ("triggers", "x")) == 2


def test_path_into_the_second_nested_block(tmp_path: Path) -> None:
    assert _line(tmp_path, ("rule", 1, "port")) == 10


def test_without_a_path_the_block_is_the_subject(tmp_path: Path) -> None:
    assert _line(tmp_path, ()) == 1


def test_a_path_that_is_not_written_finds_nothing(tmp_path: Path) -> None:
    assert in_config_body(_resource(tmp_path), ("nothing",)) is None
