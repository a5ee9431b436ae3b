"""``data "terraform_remote_state"`` with the local backend: another configuration's root outputs,
over ``defaults``, by ``path`` or by workspace, and terraform's errors. Compared with terraform
1.11 on the same files when it is present."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from tests.conftest import Workdir, requires_terraform

SOURCE = """
output "s" { value = "hello" }
output "l" { value = [1, 2] }
output "m" { value = { a = "x", b = ["y"] } }
output "secret" {
  value     = "hush"
  sensitive = true
}
output "n" { value = null }
"""

READER = """
data "terraform_remote_state" "src" {
  backend = "local"
  config = {
    path = "%s"
  }
  defaults = { s = "default", extra = 42 }
}
output "all" { value = data.terraform_remote_state.src.outputs }
output "secret" { value = data.terraform_remote_state.src.outputs.secret }
"""


@pytest.fixture
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A state with outputs of several types, written by strata."""
    wd = Workdir(tmp_path_factory.mktemp("source"))
    wd.write(SOURCE)
    wd.strata("apply", "-auto-approve", check=True)
    return wd.path / "terraform.tfstate"


def test_the_outputs_of_another_state_over_the_defaults(workdir: Workdir, source: Path) -> None:
    workdir.write(READER % source)
    workdir.strata("apply", "-auto-approve", check=True)
    outs = orjson.loads(workdir.strata("output", "-json").stdout)
    # a null output is not recorded, so not read; a sensitive one is not sensitive here
    assert outs["all"]["value"] == {"extra": 42, "l": [1, 2], "m": {"a": "x", "b": ["y"]}, "s": "hello",
                                    "secret": "hush"}
    assert outs["all"]["type"][1]["l"] == ["tuple", ["number", "number"]]
    assert outs["secret"] == {"sensitive": False, "type": "string", "value": "hush"}
    data = next(r for r in workdir.state()["resources"] if r["type"] == "terraform_remote_state")
    assert data["mode"] == "data" and data["provider"] == 'provider["terraform.io/builtin/terraform"]'
    assert data["instances"][0]["attributes"]["outputs"]["value"]["s"] == "hello"


def test_a_workspace_is_read_from_the_workspace_directory(workdir: Workdir, source: Path) -> None:
    ws_dir = workdir.path / "states"
    (ws_dir / "blue").mkdir(parents=True)
    (ws_dir / "blue" / "terraform.tfstate").write_bytes(source.read_bytes())
    workdir.write('data "terraform_remote_state" "src" {\n  backend = "local"\n'
                  '  config = { workspace_dir = "states" }\n  workspace = "blue"\n}\n'
                  'output "s" { value = data.terraform_remote_state.src.outputs.s }\n')
    workdir.strata("apply", "-auto-approve", check=True)
    assert orjson.loads(workdir.strata("output", "-json").stdout)["s"]["value"] == "hello"


MISTAKES = {
    "missing state": ('  backend = "local"\n  config = { path = "nope.tfstate" }\n',
                      "Unable to find remote state", "No stored state was found for the given workspace"),
    "unknown backend": ('  backend = "nosuch"\n', "Invalid backend configuration",
                        'There is no backend type named "nosuch".'),
    "misspelled argument": ('  backend = "local"\n  config = { paht = "x" }\n', "Invalid backend configuration",
                            'not valid for backend "local": unexpected\nattribute "paht".'),
    "config not an object": ('  backend = "local"\n  config = "x"\n', "Invalid backend configuration",
                             'not valid for backend "local": an object is\nrequired.'),
}


def _mistake(body: str) -> str:
    return f'data "terraform_remote_state" "x" {{\n{body}}}\noutput "o" {{ value = data.terraform_remote_state.x.outputs }}\n'


@pytest.mark.parametrize("case", list(MISTAKES))
def test_mistakes_are_told_in_terraforms_words(workdir: Workdir, case: str) -> None:
    body, summary, detail = MISTAKES[case]
    workdir.write(_mistake(body))
    res = workdir.strata("plan", "-no-color")
    assert res.returncode == 1
    assert f"Error: {summary}" in res.stderr and detail in res.stderr, res.stderr
    assert "on main.tf line" in res.stderr


def test_a_backend_strata_cannot_reach_is_refused_clearly(workdir: Workdir) -> None:
    workdir.write(_mistake('  backend = "s3"\n  config = { bucket = "b", key = "k", region = "r" }\n'))
    res = workdir.strata("plan", "-no-color")
    assert res.returncode == 1
    assert "Error: Backend not available in strata" in res.stderr and '"s3"' in res.stderr
    assert "main.tf line 2" in res.stderr


@requires_terraform
def test_outputs_and_state_match_terraforms(workdir: Workdir, source: Path,
                                           tmp_path_factory: pytest.TempPathFactory) -> None:
    tf = Workdir(tmp_path_factory.mktemp("terraform"))
    for wd in (workdir, tf):
        wd.write(READER % source)
    workdir.strata("apply", "-auto-approve", check=True)
    assert tf.terraform("apply", "-auto-approve", "-input=false").returncode == 0
    ours = orjson.loads(workdir.strata("output", "-json").stdout)
    theirs = orjson.loads(tf.terraform("output", "-json").stdout)
    assert ours == theirs

    def data_attributes(wd: Workdir) -> dict:
        state = orjson.loads((wd.path / "terraform.tfstate").read_bytes())
        return next(r for r in state["resources"] if r["type"] == "terraform_remote_state")["instances"][0]

    assert data_attributes(workdir) == data_attributes(tf)


@requires_terraform
@pytest.mark.parametrize("case", list(MISTAKES))
def test_mistakes_match_terraforms(workdir: Workdir, tmp_path_factory: pytest.TempPathFactory, case: str) -> None:
    tf = Workdir(tmp_path_factory.mktemp("terraform"))
    for wd in (workdir, tf):
        wd.write(_mistake(MISTAKES[case][0]))
    ours = workdir.strata("plan", "-no-color")
    theirs = tf.terraform("plan", "-no-color", "-input=false")
    assert ours.returncode == theirs.returncode == 1

    def error_part(text: str) -> str:
        return text[text.index("Error: "):].strip()

    assert error_part(ours.stderr) == error_part(theirs.stderr)
