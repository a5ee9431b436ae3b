"""``strata workspace new/select/list/show/delete`` and ``terraform.workspace``, compared with
terraform 1.11 on the same files: each command's standard output, standard error and exit status,
and the files each leaves (``terraform.tfstate.d/NAME/``, ``.terraform/environment``)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import orjson
import pytest

from tests.conftest import Result, Workdir, requires_terraform

CONFIG = """
resource "terraform_data" "a" {
  input = terraform.workspace
}

output "ws" {
  value = terraform.workspace
}
"""

WORKSPACE_DIR = """
terraform {
  backend "local" {
    path          = "states/default.tfstate"
    workspace_dir = "envs"
  }
}
""" + CONFIG


def _same_words(text: str) -> str:
    """terraform's text in strata's words: its name, and the command to run."""
    return (text.replace("terraform plan", "strata plan").replace("Terraform", "strata")
            .replace("Usage: terraform", "Usage: strata"))


def _norm(res: Result) -> tuple[int, str, str]:
    """What a run said, with wrapped paragraphs compared word by word (strata's name is shorter than
    terraform's, so a diagnostic's lines break elsewhere) and generated ids left out."""
    def words(text: str) -> str:
        return re.sub(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "ID", text)

    return res.returncode, words(res.stdout), " ".join(words(res.stderr).split())


def _layout(path: Path) -> list[str]:
    """The files and directories a run leaves, but for terraform's own in its data directory (the
    selected workspace's file is compared) and the state lock's."""
    found = []
    for root, dirs, files in os.walk(path):
        rel = os.path.relpath(root, path)
        for d in dirs:
            p = os.path.normpath(os.path.join(rel, d))
            if p != ".terraform" and not p.startswith(".terraform" + os.sep):
                found.append(p + "/")
        for f in files:
            p = os.path.normpath(os.path.join(rel, f))
            if (p.startswith(".terraform" + os.sep) and p != os.path.join(".terraform", "environment")) \
                    or f.endswith((".backup", ".lock.hcl")):
                continue
            found.append(p)
    return sorted(found)


class Both:
    """The same configuration in two directories: one for strata, one for terraform."""

    def __init__(self, tmp_path: Path, config: str = CONFIG) -> None:
        self.ours = Workdir(tmp_path / "strata")
        self.theirs = Workdir(tmp_path / "terraform")
        for w in (self.ours, self.theirs):
            w.path.mkdir()
            w.write(config)
        self.theirs.terraform("init", "-input=false", "-no-color")

    def run(self, *args: str) -> tuple[Result, Result]:
        return self.ours.strata(*args), self.theirs.terraform(*args)

    def same(self, *args: str, unordered: bool = False) -> Result:
        """Run ``args`` with both; what each said must be the same (``unordered``: the same lines,
        for operations that run concurrently). strata's result."""
        ours, theirs = self.run(*args)
        got = _norm(ours)
        expected = _norm(Result(theirs.returncode, _same_words(theirs.stdout), _same_words(theirs.stderr)))
        if unordered:
            got, expected = ((c, sorted(o.splitlines()), e) for c, o, e in (got, expected))  # type: ignore[assignment]
        assert got == expected, f"{' '.join(args)}:\nstrata: {ours}\nterraform: {theirs}"
        return ours

    def same_layout(self) -> list[str]:
        ours, theirs = _layout(self.ours.path), _layout(self.theirs.path)
        assert ours == theirs
        env = Path(".terraform", "environment")
        if (self.theirs.path / env).exists():
            assert (self.ours.path / env).read_bytes() == (self.theirs.path / env).read_bytes()
        return ours


@pytest.fixture(autouse=True)
def _environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """No workspace selected from outside the test, and no user's CLI configuration (for both)."""
    monkeypatch.delenv("TF_WORKSPACE", raising=False)
    monkeypatch.delenv("TF_DATA_DIR", raising=False)
    monkeypatch.setenv("TF_CLI_CONFIG_FILE", "/dev/null")


@pytest.fixture
def both(tmp_path: Path) -> Both:
    return Both(tmp_path)


@requires_terraform
def test_a_session_of_workspace_commands_matches_terraform(both: Both) -> None:
    steps = [
        ("workspace",),
        ("workspace", "bogus"),
        ("workspace", "-help"),
        ("workspace", "new", "-help"),
        ("workspace", "delete", "-help"),
        ("workspace", "list", "-no-color", "dir"),
        ("workspace", "show"),
        ("workspace", "list"),
        ("workspace", "new", "-no-color", "foo"),
        ("workspace", "list"),
        ("workspace", "new", "-no-color", "foo"),        # exists
        ("workspace", "select", "-no-color", "default"),
        ("workspace", "select", "-no-color", "default"),  # already selected: says nothing
        ("workspace", "select", "-no-color", "bar"),      # does not exist
        ("workspace", "select", "-no-color", "-or-create", "bar"),
        ("workspace", "new", "-no-color", "a/b"),         # not a valid name
        ("workspace", "new", "-no-color", "é"),
        ("workspace", "new", "-no-color", "$&+:=@~x"),    # URL-safe characters are valid
        ("workspace", "select", "-no-color", "bar"),
        ("workspace", "new", "-no-color"),                # no name: the usage
        ("workspace", "new", "-no-color", "a", "b"),
        ("workspace", "list"),
        ("workspace", "delete", "-no-color", "$&+:=@~x"),
        ("workspace", "delete", "-no-color", "bar"),      # the current one
        ("workspace", "select", "-no-color", "foo"),
        ("workspace", "delete", "-no-color", "default"),
        ("workspace", "delete", "-no-color", "nope"),
        ("workspace", "delete", "-no-color", "bar"),
        ("workspace", "list"),
        ("workspace", "show"),
    ]
    for step in steps:
        both.same(*step)
        both.same_layout()
    assert both.same_layout() == [".terraform/environment", "main.tf", "terraform.tfstate.d/",
                                  "terraform.tfstate.d/foo/"]


@requires_terraform
def test_state_commands_work_on_the_selected_workspace(both: Both) -> None:
    both.same("apply", "-auto-approve", "-no-color")
    both.same("workspace", "new", "-no-color", "dev")
    both.same("apply", "-auto-approve", "-no-color")
    assert both.same_layout() == [".terraform/environment", "main.tf", "terraform.tfstate",
                                  "terraform.tfstate.d/", "terraform.tfstate.d/dev/",
                                  "terraform.tfstate.d/dev/terraform.tfstate"]
    for args in (("output", "-json"), ("state", "list"), ("show", "-no-color"), ("plan", "-no-color"),
                 ("state", "show", "terraform_data.a")):
        both.same(*args)
    state = orjson.loads((both.ours.path / "terraform.tfstate.d/dev/terraform.tfstate").read_bytes())
    assert state["outputs"]["ws"]["value"] == "dev"
    both.same("workspace", "select", "-no-color", "default")
    assert both.same("output", "-raw", "ws").stdout == "default"
    both.same("destroy", "-auto-approve", "-no-color")
    both.same("workspace", "select", "-no-color", "dev")
    both.same("destroy", "-auto-approve", "-no-color")
    both.same("workspace", "select", "-no-color", "default")
    both.same("workspace", "delete", "-no-color", "dev")  # destroyed: empty, deleted without -force
    both.same_layout()


@requires_terraform
def test_deleting_a_workspace_that_tracks_objects_needs_force(both: Both) -> None:
    both.same("workspace", "new", "-no-color", "dev")
    both.same("apply", "-auto-approve", "-no-color")
    both.same("workspace", "select", "-no-color", "default")
    res = both.same("workspace", "delete", "-no-color", "dev")
    assert res.returncode == 1 and "Workspace is not empty" in res.stderr and "- terraform_data.a" in res.stderr
    both.same_layout()
    both.same("workspace", "delete", "-no-color", "-force", "dev")
    assert both.same_layout() == [".terraform/environment", "main.tf", "terraform.tfstate.d/"]


@requires_terraform
def test_deleting_the_default_workspace_with_objects_says_it_is_not_empty(both: Both) -> None:
    both.same("apply", "-auto-approve", "-no-color")
    both.same("workspace", "new", "-no-color", "dev")
    both.same("workspace", "delete", "-no-color", "default")
    both.same("workspace", "delete", "-no-color", "-force", "default")
    both.same_layout()


@requires_terraform
def test_new_with_state_copies_the_state_into_the_workspace(both: Both) -> None:
    both.same("apply", "-auto-approve", "-no-color")
    both.same("workspace", "new", "-no-color", "-state=terraform.tfstate", "copy")
    both.same_layout()
    both.same("state", "list")
    both.same("output", "-json")
    source = orjson.loads((both.ours.path / "terraform.tfstate").read_bytes())
    for w in (both.ours, both.theirs):
        copy = orjson.loads((w.path / "terraform.tfstate.d/copy/terraform.tfstate").read_bytes())
        assert copy["serial"] == 1, "a first snapshot"
        if w is both.ours:
            assert copy["lineage"] != source["lineage"], "a state of its own"
            assert copy["resources"] == source["resources"] and copy["outputs"] == source["outputs"]
    both.same("workspace", "new", "-no-color", "-state=missing.tfstate", "other")  # created, then the error
    both.same_layout()


@requires_terraform
def test_flags_a_subcommand_does_not_take_are_refused(both: Both) -> None:
    both.same("workspace", "select", "-no-color", "-force", "x")
    both.same("workspace", "delete", "-no-color", "-or-create", "x")
    both.same("workspace", "new", "-no-color", "-lock-timeout=soon", "x")
    both.same_layout()


@requires_terraform
def test_tf_workspace_overrides_the_selection(both: Both, monkeypatch: pytest.MonkeyPatch) -> None:
    both.same("workspace", "new", "-no-color", "dev")
    both.same("workspace", "new", "-no-color", "qa")
    monkeypatch.setenv("TF_WORKSPACE", "dev")
    for step in (("workspace", "show"), ("workspace", "list"), ("workspace", "select", "-no-color", "default"),
                 ("workspace", "new", "-no-color", "other"), ("workspace", "new", "-no-color", "dev"),
                 ("workspace", "delete", "-no-color", "dev"), ("workspace", "delete", "-no-color", "qa"),
                 ("apply", "-auto-approve", "-no-color"), ("output", "-json")):
        both.same(*step)
    assert both.same_layout() == [".terraform/environment", "main.tf", "terraform.tfstate.d/",
                                  "terraform.tfstate.d/dev/", "terraform.tfstate.d/dev/terraform.tfstate"]


@requires_terraform
def test_tf_workspace_naming_a_missing_workspace_creates_it_where_state_is_used(
        both: Both, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TF_WORKSPACE", "missing")
    both.same("workspace", "list")
    both.same("workspace", "show")
    assert both.same_layout() == ["main.tf"]
    both.same("apply", "-auto-approve", "-no-color")
    assert both.same_layout() == ["main.tf", "terraform.tfstate.d/", "terraform.tfstate.d/missing/",
                                  "terraform.tfstate.d/missing/terraform.tfstate"]
    both.same("workspace", "new", "-no-color", "missing")  # exists now


@requires_terraform
@pytest.mark.parametrize("name", ["a/b", "../up", "x y"])
def test_tf_workspace_that_is_not_a_valid_name_is_terraforms_error(
        both: Both, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    monkeypatch.setenv("TF_WORKSPACE", name)
    for step in (("workspace", "show", "-no-color"), ("workspace", "list", "-no-color"),
                 ("workspace", "delete", "-no-color", "x"),
                 ("workspace", "select", "-no-color", "default"), ("workspace", "new", "-no-color", "x"),
                 ("plan", "-no-color"), ("output", "-no-color"), ("validate", "-no-color"),
                 ("providers", "-no-color"), ("graph", "-no-color"), ("state", "list", "-no-color"), ("show", "-no-color"),
                 ("force-unlock", "-force", "-no-color", "x"), ("init", "-no-color")):
        both.same(*step)
    assert both.same_layout() == ["main.tf"]
    assert both.same("fmt").returncode == 0, "fmt has no use for a workspace"


@requires_terraform
def test_a_configured_workspace_dir_holds_the_workspaces(tmp_path: Path) -> None:
    both = Both(tmp_path, WORKSPACE_DIR)
    both.same("apply", "-auto-approve", "-no-color")
    both.same("workspace", "new", "-no-color", "b")
    both.same("workspace", "new", "-no-color", "a")
    both.same("apply", "-auto-approve", "-no-color")
    both.same("workspace", "list")
    assert both.same_layout() == [".terraform/environment", "envs/", "envs/a/", "envs/a/terraform.tfstate",
                                  "envs/b/", "main.tf", "states/", "states/default.tfstate"]
    both.same("workspace", "select", "-no-color", "b")
    both.same("workspace", "delete", "-no-color", "a")
    both.same("workspace", "delete", "-no-color", "-force", "a")
    both.same("workspace", "list")
    both.same_layout()


def test_the_workspace_commands_honour_chdir_and_tf_data_dir(workdir: Workdir,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    (workdir.path / "cfg").mkdir()
    (workdir.path / "cfg" / "main.tf").write_text(CONFIG)
    monkeypatch.setenv("TF_DATA_DIR", "data")
    assert workdir.strata("-chdir=cfg", "workspace", "new", "dev").returncode == 0
    assert (workdir.path / "cfg" / "data" / "environment").read_text() == "dev"
    assert (workdir.path / "cfg" / "terraform.tfstate.d" / "dev").is_dir()
    workdir.strata("-chdir=cfg", "apply", "-auto-approve", check=True)
    assert workdir.strata("-chdir=cfg", "output", "-raw", "ws").stdout == "dev"
    assert (workdir.path / "cfg" / "terraform.tfstate.d" / "dev" / "terraform.tfstate").exists()
    assert workdir.strata("-chdir=cfg", "workspace", "show").stdout == "dev\n"


def test_a_locked_workspace_is_not_deleted(workdir: Workdir) -> None:
    from engine.provider.registry import Providers
    from engine.state.store import StateStore

    workdir.write(CONFIG)
    workdir.strata("workspace", "new", "dev", check=True)
    workdir.strata("workspace", "select", "default", check=True)
    store = StateStore(str(workdir.path / "terraform.tfstate.d/dev/terraform.tfstate"), Providers().dynamic_attrs)
    store.lock("OperationTypeApply")
    try:
        res = workdir.strata("workspace", "delete", "-no-color", "dev")
        assert res.returncode == 1 and "Error acquiring the state lock" in res.stderr, res.stderr
        assert (workdir.path / "terraform.tfstate.d" / "dev").is_dir()
        assert workdir.strata("workspace", "delete", "-lock=false", "dev").returncode == 0
    finally:
        store.unlock()


@requires_terraform
def test_init_with_a_backend_block_refuses_a_selected_workspace_that_does_not_exist(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    both = Both(tmp_path, WORKSPACE_DIR)
    both.same("workspace", "new", "-no-color", "b")
    both.same("workspace", "select", "-no-color", "default")
    monkeypatch.setenv("TF_WORKSPACE", "zzz")
    ours, theirs = both.run("init", "-no-color", "-input=false")
    assert (ours.returncode, ours.stderr) == (theirs.returncode, theirs.stderr) == (
        1, '\nError: Currently selected workspace "zzz" does not exist\n\n')
    monkeypatch.delenv("TF_WORKSPACE")
    (both.ours.path / "envs" / "b").rmdir()
    (both.theirs.path / "envs" / "b").rmdir()
    for w in (both.ours, both.theirs):
        (w.path / ".terraform" / "environment").write_text("gone")
    ours, theirs = both.run("init", "-no-color", "-input=false")
    assert ours.returncode == theirs.returncode == 0, ours.stderr
    both.same_layout()  # the only workspace, default, is selected
    assert (both.ours.path / ".terraform" / "environment").read_text() == "default"


TWO = CONFIG + """
resource "terraform_data" "b" {
  input = "b"
}
"""


@requires_terraform
def test_every_state_command_works_on_the_selected_workspace(tmp_path: Path) -> None:
    both = Both(tmp_path, TWO)
    both.same("workspace", "new", "-no-color", "dev")
    assert [r.returncode for r in both.run("apply", "-auto-approve", "-no-color")] == [0, 0]
    assert both.ours.strata("console", input="terraform.workspace\n").stdout == '"dev"\n'
    both.same("refresh", "-no-color", unordered=True)
    for step in (("state", "mv", "terraform_data.b", "terraform_data.c"),
                 ("state", "rm", "terraform_data.c")):
        both.same(*step)
    # import's closing paragraph is another change's: here, only that it imports into this workspace
    assert [r.returncode for r in both.run("import", "-no-color", "terraform_data.b", "some-id")] == [0, 0]
    for step in (("taint", "terraform_data.a"), ("state", "list"), ("output", "-json"),
                 ("force-unlock", "-force", "-no-color", "nope")):
        both.same(*step)
    assert both.same_layout() == [".terraform/environment", "main.tf", "terraform.tfstate.d/",
                                  "terraform.tfstate.d/dev/", "terraform.tfstate.d/dev/terraform.tfstate"]
    for w in (both.ours, both.theirs):
        state = orjson.loads((w.path / "terraform.tfstate.d/dev/terraform.tfstate").read_bytes())
        assert sorted((r["name"], r["instances"][0].get("status")) for r in state["resources"]) == [
            ("a", "tainted"), ("b", None)]


@requires_terraform
def test_a_saved_plan_applies_to_the_workspace_selected_when_applying(tmp_path: Path) -> None:
    # terraform writes the state of the workspace selected when it applies (strata's outputs then
    # say that workspace's name, terraform's the one the plan was made in: not compared)
    both = Both(tmp_path, 'resource "terraform_data" "b" {}\noutput "ws" { value = terraform.workspace }\n')
    both.same("workspace", "new", "-no-color", "dev")
    ours, theirs = both.run("plan", "-no-color", "-out=p.bin")
    assert ours.returncode == theirs.returncode == 0
    both.same("workspace", "select", "-no-color", "default")
    assert [r.returncode for r in both.run("apply", "-no-color", "p.bin")] == [0, 0]
    assert both.same_layout() == [".terraform/environment", "main.tf", "p.bin", "terraform.tfstate",
                                  "terraform.tfstate.d/", "terraform.tfstate.d/dev/"]
    both.same("state", "list")


@requires_terraform
def test_a_selection_that_is_not_a_valid_name_can_be_left(both: Both) -> None:
    both.same("workspace", "new", "-no-color", "dev")
    for w in (both.ours, both.theirs):
        (w.path / ".terraform" / "environment").write_text("a/b")
    for step in (("workspace", "show"), ("workspace", "list"), ("workspace", "select", "-no-color", "dev"),
                 ("workspace", "show")):
        both.same(*step)
    both.same_layout()


_DEPOSED_ONLY = {
    "version": 4, "terraform_version": "1.11.4", "serial": 3, "lineage": "1b1c6f87-3f4a-4c1e-9d55-3a1c2f5a0b11",
    "outputs": {},
    "resources": [
        {"mode": "managed", "type": "terraform_data", "name": "a",
         "provider": 'provider["terraform.io/builtin/terraform"]',
         "instances": [{"deposed": "00000001", "schema_version": 0,
                        "attributes": {"id": "x", "input": None, "output": None, "triggers_replace": None},
                        "sensitive_attributes": []}]},
        {"mode": "data", "type": "terraform_remote_state", "name": "d",
         "provider": 'provider["terraform.io/builtin/terraform"]',
         "instances": [{"schema_version": 0, "attributes": {"backend": "local", "config": None, "defaults": None,
                                                           "outputs": {}, "workspace": None},
                        "sensitive_attributes": []}]},
    ],
    "check_results": None,
}


@requires_terraform
def test_a_deposed_object_keeps_a_workspace_and_data_sources_do_not(both: Both) -> None:
    both.same("workspace", "new", "-no-color", "dev")
    both.same("workspace", "select", "-no-color", "default")
    for w in (both.ours, both.theirs):
        (w.path / "terraform.tfstate.d/dev/terraform.tfstate").write_bytes(orjson.dumps(_DEPOSED_ONLY))
    res = both.same("workspace", "delete", "-no-color", "dev")
    assert "- terraform_data.a (deposed object 00000001)" in res.stderr
    assert "terraform_remote_state" not in res.stderr
    data_only = dict(_DEPOSED_ONLY, resources=_DEPOSED_ONLY["resources"][1:])  # type: ignore[index]
    for w in (both.ours, both.theirs):
        (w.path / "terraform.tfstate.d/dev/terraform.tfstate").write_bytes(orjson.dumps(data_only))
    both.same("workspace", "delete", "-no-color", "dev")
    both.same_layout()


@requires_terraform
def test_state_overrides_the_workspaces_file_but_the_workspace_still_comes_to_exist(
        both: Both, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TF_WORKSPACE", "qa")
    assert [r.returncode for r in both.run("apply", "-auto-approve", "-no-color", "-state=x.tfstate")] == [0, 0]
    assert both.same_layout() == ["main.tf", "terraform.tfstate.d/", "terraform.tfstate.d/qa/", "x.tfstate"]
    both.same("output", "-json", "-state=x.tfstate")


@requires_terraform
def test_a_file_or_a_link_in_the_workspace_dir_is_not_a_workspace(both: Both) -> None:
    both.same("workspace", "new", "-no-color", "real")
    for w in (both.ours, both.theirs):
        (w.path / "terraform.tfstate.d" / "afile").write_text("")
        (w.path / "terraform.tfstate.d" / "alink").symlink_to("real")
    for step in (("workspace", "list"), ("workspace", "new", "-no-color", "afile"),
                 ("workspace", "select", "-no-color", "alink")):
        both.same(*step)


def _init_answering(w: Workdir, answer: str, tool: str) -> Result:
    import subprocess
    import sys

    from tests.conftest import REPO

    env = dict(os.environ, PYTHONPATH=str(REPO), CHECKPOINT_DISABLE="1")
    argv = ["terraform"] if tool == "terraform" else [sys.executable, "-m", "engine"]
    proc = subprocess.run([*argv, "init", "-no-color"], cwd=w.path, env=env, input=answer, capture_output=True,
                          text=True, timeout=300)
    return Result(proc.returncode, proc.stdout, proc.stderr)


@requires_terraform
@pytest.mark.parametrize(("answer", "chosen"), [("2\n", "b"), ("1\n", "default"), ("7\n", None), ("", None)])
def test_init_asks_which_workspace_to_select_when_the_selection_does_not_exist(
        tmp_path: Path, answer: str, chosen: str | None) -> None:
    both = Both(tmp_path, WORKSPACE_DIR)
    both.same("workspace", "new", "-no-color", "b")
    results = []
    for w, tool in ((both.ours, "strata"), (both.theirs, "terraform")):
        (w.path / ".terraform" / "environment").write_text("zzz")
        res = _init_answering(w, answer, tool)
        start = res.stdout.index("\nThe currently selected workspace")
        results.append((res.returncode, res.stdout[start:res.stdout.index("Enter a value: ") + 16], res.stderr))
        assert (w.path / ".terraform" / "environment").read_text() == (chosen or "zzz")
    ours, theirs = results
    assert ours == (theirs[0], theirs[1], _same_words(theirs[2]))
