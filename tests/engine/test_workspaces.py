"""The local backend's workspaces (engine.backend.workspaces): names, the selection, where each
workspace's state lives, and the listing, as terraform 1.11's local backend has them."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.backend.workspaces import (
    Selection,
    create_workspace,
    current_selection,
    current_workspace,
    delete_workspace,
    list_workspaces,
    select_workspace,
    valid_workspace_name,
    workspace_state_file,
)
from engine.config.backend import BackendConfig
from engine.diagnostics import DiagnosticsError, SourceRange


@pytest.fixture(autouse=True)
def _no_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TF_WORKSPACE", raising=False)
    monkeypatch.delenv("TF_DATA_DIR", raising=False)


def _backend(path: str | None = None, workspace_dir: str | None = None) -> BackendConfig:
    return BackendConfig(path, workspace_dir, SourceRange("main.tf", 1, 1))


@pytest.mark.parametrize("name", ["dev", "a.b-c_d~e", "$&+:=@", "..", ""])
def test_url_safe_names_are_valid(name: str) -> None:
    assert valid_workspace_name(name)


@pytest.mark.parametrize("name", ["a/b", "a b", "a;b", "a,b", "a?b", "é", "a%20b", "a\\b"])
def test_names_a_url_path_segment_escapes_are_not_valid(name: str) -> None:
    assert not valid_workspace_name(name)


def test_the_default_workspace_is_current_without_a_selection(tmp_path: Path) -> None:
    assert current_selection(str(tmp_path)) == Selection("default", False)


def test_the_selection_is_the_environment_file_unless_tf_workspace_overrides_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    select_workspace(str(tmp_path), "dev")
    assert (tmp_path / ".terraform" / "environment").read_bytes() == b"dev"
    assert current_selection(str(tmp_path)) == Selection("dev", False)
    monkeypatch.setenv("TF_WORKSPACE", "qa")
    assert current_selection(str(tmp_path)) == Selection("qa", True)
    monkeypatch.setenv("TF_WORKSPACE", "")
    assert current_selection(str(tmp_path)) == Selection("dev", False), "empty: not set"


def test_tf_data_dir_holds_the_selection(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TF_DATA_DIR", "data")
    select_workspace(str(tmp_path), "dev")
    assert (tmp_path / "data" / "environment").read_text() == "dev"


def test_an_invalid_tf_workspace_is_terraforms_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TF_WORKSPACE", "a/b")
    with pytest.raises(DiagnosticsError) as info:
        current_workspace(str(tmp_path))
    assert [(d.summary, d.detail) for d in info.value.diagnostics] == [
        ("Invalid workspace name set using TF_WORKSPACE", "")]


def test_state_files_follow_the_backend_configuration() -> None:
    assert workspace_state_file("d", "default", None) == "d/terraform.tfstate"
    assert workspace_state_file("d", "dev", None) == "d/terraform.tfstate.d/dev/terraform.tfstate"
    configured = _backend("s/main.tfstate", "envs")
    assert workspace_state_file("d", "default", configured) == "d/s/main.tfstate"
    assert workspace_state_file("d", "dev", configured) == "d/envs/dev/terraform.tfstate", "path is default's only"


def test_workspaces_are_default_then_the_directories_sorted_by_bytes(tmp_path: Path) -> None:
    d = str(tmp_path)
    assert list_workspaces(d, None) == ["default"]
    for name in ("b", "B", "a", "_x"):
        create_workspace(d, name, None)
    (tmp_path / "terraform.tfstate.d" / "file").write_text("not a workspace")
    assert list_workspaces(d, None) == ["default", "B", "_x", "a", "b"]


def test_a_workspace_is_its_directory(tmp_path: Path) -> None:
    d = str(tmp_path)
    create_workspace(d, "dev", _backend(workspace_dir="envs"))
    assert (tmp_path / "envs" / "dev").is_dir() and not list((tmp_path / "envs" / "dev").iterdir())
    (tmp_path / "envs" / "dev" / "terraform.tfstate").write_text("{}")
    delete_workspace(d, "dev", _backend(workspace_dir="envs"))
    assert list_workspaces(d, _backend(workspace_dir="envs")) == ["default"]


def test_the_default_workspace_cannot_be_deleted(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="cannot delete default state"):
        delete_workspace(str(tmp_path), "default", None)


_BACKEND_BLOCK = 'terraform {\n  backend "local" {}\n}\n'


def test_init_keeps_a_selected_workspace_that_exists(tmp_path: Path) -> None:
    from engine.backend.local import check_selected_workspace

    (tmp_path / "main.tf").write_text(_BACKEND_BLOCK)
    create_workspace(str(tmp_path), "dev", None)
    select_workspace(str(tmp_path), "dev")
    check_selected_workspace(str(tmp_path))
    assert current_workspace(str(tmp_path)) == "dev"


def test_init_selects_default_when_it_is_the_only_workspace(tmp_path: Path) -> None:
    from engine.backend.local import check_selected_workspace

    (tmp_path / "main.tf").write_text(_BACKEND_BLOCK)
    select_workspace(str(tmp_path), "gone")
    check_selected_workspace(str(tmp_path))
    assert (tmp_path / ".terraform" / "environment").read_text() == "default"


def test_init_refuses_a_missing_selection_among_several(tmp_path: Path) -> None:
    from engine.backend.local import check_selected_workspace

    (tmp_path / "main.tf").write_text(_BACKEND_BLOCK)
    create_workspace(str(tmp_path), "dev", None)
    select_workspace(str(tmp_path), "gone")
    with pytest.raises(DiagnosticsError, match='Currently selected workspace "gone" does not exist'):
        check_selected_workspace(str(tmp_path))


def test_init_without_a_backend_block_checks_nothing(tmp_path: Path) -> None:
    from engine.backend.local import check_selected_workspace

    (tmp_path / "main.tf").write_text("")
    create_workspace(str(tmp_path), "dev", None)
    select_workspace(str(tmp_path), "gone")
    check_selected_workspace(str(tmp_path))
    assert (tmp_path / ".terraform" / "environment").read_text() == "gone"


def test_opening_a_workspaces_state_makes_its_directory(tmp_path: Path) -> None:
    from engine.backend.local import state_file

    path = state_file(str(tmp_path), None, "dev")
    assert path == str(tmp_path / "terraform.tfstate.d" / "dev" / "terraform.tfstate")
    assert (tmp_path / "terraform.tfstate.d" / "dev").is_dir() and not Path(path).exists()
    assert state_file(str(tmp_path), "x.tfstate", "qa") == str(tmp_path / "x.tfstate")
    assert (tmp_path / "terraform.tfstate.d" / "qa").is_dir(), "with -state too, as terraform's StateMgr"
