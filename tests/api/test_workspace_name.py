"""A program selects the local backend's workspace by name (``Workspace(workspace_name=...)``): its
operations work on that workspace's state, and ``terraform.workspace`` is that name."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from engine.api import Workspace
from engine.diagnostics import DiagnosticsError

CONFIG = """
resource "terraform_data" "a" { input = terraform.workspace }
output "ws" { value = terraform.workspace }
"""


def _applied(ws: Workspace) -> str:
    async def run() -> str:
        outcome = await ws.apply().result()
        assert outcome.ok, outcome.diagnostics
        return str(outcome.outputs["ws"].value)

    return anyio.run(run)


def test_a_named_workspace_applies_to_its_own_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TF_WORKSPACE", raising=False)
    (tmp_path / "main.tf").write_text(CONFIG)
    dev = Workspace(str(tmp_path), workspace_name="dev", fsync=False)
    assert _applied(dev) == "dev"
    assert dev.state_file() == str(tmp_path / "terraform.tfstate.d" / "dev" / "terraform.tfstate")
    assert not (tmp_path / "terraform.tfstate").exists(), "the default workspace's state is untouched"
    assert _applied(Workspace(str(tmp_path), fsync=False)) == "default", "the current one: default"
    assert (tmp_path / "terraform.tfstate").exists()


def test_the_name_a_program_gives_wins_over_tf_workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TF_WORKSPACE", "other")
    (tmp_path / "main.tf").write_text(CONFIG)
    assert _applied(Workspace(str(tmp_path), workspace_name="qa", fsync=False)) == "qa"
    assert (tmp_path / "terraform.tfstate.d" / "qa" / "terraform.tfstate").exists()
    assert not (tmp_path / "terraform.tfstate.d" / "other").exists()


def test_a_workspace_name_that_is_not_valid_is_refused(tmp_path: Path) -> None:
    (tmp_path / "main.tf").write_text(CONFIG)
    with pytest.raises(DiagnosticsError, match="not a valid workspace name"):
        Workspace(str(tmp_path), workspace_name="../up").state_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["main.tf"]
