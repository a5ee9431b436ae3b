"""A provider function's results are recorded in the plan and checked when it is applied, as
terraform 1.11 does: the protocol-6 example provider's ``label()``, made impure in this module's
own mirror (:func:`example_mirror_here`), answering differently at apply fails the apply of a
saved plan with terraform's words, before the resource is changed; the same answer applies as
planned."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from tests.conftest import Result, Workdir, requires_terraform
from tests.plugins.conftest import init_with, requires_plugin_client, run_with
from tests.plugins.fetch import EXAMPLE_SOURCE, example_path

pytestmark = [requires_terraform, requires_plugin_client]

PURE = '''        return "-".join([prefix, *parts])
'''
IMPURE = '''        suffix = os.environ.get("EXAMPLE_LABEL_SUFFIX", "")
        if os.environ.get("EXAMPLE_LABEL_COUNT"):
            Label.calls = getattr(Label, "calls", 0) + 1
            suffix += f"-{Label.calls}"
        return "-".join([prefix, *parts]) + suffix
'''


@pytest.fixture(scope="module")
def example_mirror_here(example_mirror: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A mirror of this module's own whose example provider's ``label()`` is impure on demand:
    ``EXAMPLE_LABEL_SUFFIX`` is appended to its result (an answer at apply other than at plan),
    and with ``EXAMPLE_LABEL_COUNT`` set, the number of calls so far (each call answers
    differently). The shared provider source is left as it is."""
    own = tmp_path_factory.mktemp("impure-example-mirror")
    target = example_path(own)
    shutil.copytree(example_path(example_mirror).parent, target.parent)
    source = EXAMPLE_SOURCE.read_text()
    assert PURE in source, "the example provider's label() changed: update IMPURE"
    (target.parent / "provider.py").write_text(source.replace(PURE, IMPURE))
    return own

CONFIG = '''terraform {
  required_providers {
    example = { source = "hashicorp/example", version = "0.1.0" }
  }
}

provider "example" {
  root = "${path.module}/objects"
}

resource "example_item" "a" {
  name    = provider::example::label("item", "a")
  content = "c"
}
'''


def _setup(tool: str, path: Path, mirror: Path) -> Workdir:
    path.mkdir()
    (path / "objects").mkdir()
    wd = Workdir(path)
    wd.write(CONFIG)
    init_with(tool, wd, mirror)
    return wd


def _error(res: Result) -> str:
    text = res.stderr or res.stdout
    return text[text.index("Error:"):].strip() if "Error:" in text else text


def test_a_different_result_at_apply_fails_as_terraforms(tmp_path: Path, example_mirror_here: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    errors = {}
    for tool in ("terraform", "strata"):
        wd = _setup(tool, tmp_path / tool, example_mirror_here)
        planned = run_with(tool, wd, "plan", "-out=p.bin", "-no-color")
        assert planned.returncode == 0, planned.stdout + planned.stderr
        with monkeypatch.context() as m:
            m.setenv("EXAMPLE_LABEL_SUFFIX", "-later")
            res = run_with(tool, wd, "apply", "-no-color", "p.bin")
        assert res.returncode == 1, f"{tool}: {res.stdout}{res.stderr}"
        assert not [p for p in (wd.path / "objects").iterdir() if p.name != "provider.pid"], f"{tool} created it"
        errors[tool] = _error(res)
    assert errors["strata"] == errors["terraform"]
    assert ('Call to function "provider::example::label" failed: provider function\nreturned an inconsistent '
            "result.") in errors["strata"]


def test_the_same_result_at_apply_applies_as_planned(tmp_path: Path, example_mirror_here: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EXAMPLE_LABEL_SUFFIX", "-both")
    wd = _setup("strata", tmp_path / "strata", example_mirror_here)
    assert wd.strata("plan", "-out=p.bin", "-no-color").returncode == 0
    res = wd.strata("apply", "-no-color", "p.bin")
    assert res.returncode == 0, res.stdout + res.stderr
    state = json.loads((wd.path / "terraform.tfstate").read_text())
    assert state["resources"][0]["instances"][0]["attributes"]["name"] == "item-a-both"


def test_an_output_known_when_planned_is_not_called_again(tmp_path: Path, example_mirror_here: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    outputs = {}
    for tool in ("terraform", "strata"):
        path = tmp_path / tool
        path.mkdir()
        wd = Workdir(path)
        wd.write(CONFIG.split("provider \"example\"")[0] + 'output "o" { value = provider::example::label("web") }\n')
        init_with(tool, wd, example_mirror_here)
        assert run_with(tool, wd, "plan", "-out=p.bin", "-no-color").returncode == 0
        with monkeypatch.context() as m:
            m.setenv("EXAMPLE_LABEL_SUFFIX", "-later")
            res = run_with(tool, wd, "apply", "-no-color", "p.bin")
        assert res.returncode == 0, f"{tool}: {res.stdout}{res.stderr}"
        outputs[tool] = json.loads(run_with(tool, wd, "output", "-json").stdout)
    assert outputs["strata"] == outputs["terraform"]
    assert outputs["strata"]["o"]["value"] == "web"


def test_another_result_for_the_same_call_while_planning_names_both(tmp_path: Path, example_mirror_here: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    # which of the two calls comes first is terraform's concurrency's choice: the words are compared
    monkeypatch.setenv("EXAMPLE_LABEL_COUNT", "1")
    pattern = re.compile(r'Call to function "provider::example::label" failed: provider function\n'
                         r'returned an inconsistent result,\nwas: cty\.StringVal\("web-a-(\d)"\),\n'
                         r'now: cty\.StringVal\("web-a-(\d)"\)\.')
    for tool in ("terraform", "strata"):
        path = tmp_path / tool
        path.mkdir()
        wd = Workdir(path)
        wd.write(CONFIG.split("provider \"example\"")[0]
                 + 'output "o" { value = provider::example::label("web", "a") }\n'
                 + 'output "p" { value = provider::example::label("web", "a") }\n')
        init_with(tool, wd, example_mirror_here)
        res = run_with(tool, wd, "plan", "-no-color")
        assert res.returncode == 1, f"{tool}: {res.stdout}{res.stderr}"
        found = pattern.search(res.stderr)
        assert found is not None, f"{tool}: {res.stderr}"
        assert found.group(1) != found.group(2)
