"""The ``strata`` command driving the real terraform-provider-null 2.1.2 plugin, installed by
``terraform init -plugin-dir=MIRROR``, side by side with terraform, on trio and asyncio."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from tests.conftest import REPO, Workdir, requires_terraform
from tests.engine.plugin.conftest import running, wait_gone
from tests.plugins.fetch import fetch

pytestmark = requires_terraform

CONFIG = """
variable "v" {
  default = "1"
}

resource "null_resource" "a" {
  triggers = { v = var.v }
}

data "null_data_source" "d" {
  inputs = { id = null_resource.a.id }
}

output "o" {
  value = data.null_data_source.d.outputs["id"]
}
"""


@pytest.fixture(params=["trio", "asyncio"])
def plugged(request: pytest.FixtureRequest, workdir: Workdir, monkeypatch: pytest.MonkeyPatch) -> Workdir:
    """A working directory where ``terraform init -plugin-dir`` installed the null plugin."""
    got = fetch(aws=False)
    if got.null is None:
        pytest.skip("terraform-provider-null 2.1.2 could not be fetched: " + "; ".join(got.problems))
    monkeypatch.setenv("STRATA_ASYNC_BACKEND", request.param)
    workdir.write(CONFIG)
    r = workdir.terraform("init", "-input=false", "-no-color", f"-plugin-dir={got.mirror}")
    assert r.returncode == 0, r.stderr
    return workdir


def test_null_plugin_create_noop_replace_destroy(plugged: Workdir, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TF_LOG", "trace")  # the plugin's own log lines prove it served the run
    created = plugged.strata("apply", "-auto-approve", check=True)
    assert "plugin address" in created.stderr and "provider=null" in created.stderr
    assert "Apply complete! Resources: 1 added, 0 changed, 0 destroyed." in created.stdout
    monkeypatch.delenv("TF_LOG")
    first = plugged.state()
    (res,) = [r for r in first["resources"] if r["mode"] == "managed"]
    assert res["provider"] == 'provider["registry.terraform.io/hashicorp/null"]'
    rid = res["instances"][0]["attributes"]["id"]
    assert first["outputs"]["o"]["value"] == rid

    again = plugged.strata("plan", "-detailed-exitcode")
    assert again.returncode == 0, again.stdout + again.stderr
    assert again.stderr == ""  # the plugin's stderr is not the user's output

    replaced = plugged.strata("apply", "-auto-approve", "-var", "v=2", check=True)
    assert "must be replaced" in replaced.stdout and "# forces replacement" in replaced.stdout
    assert "Resources: 1 added, 0 changed, 1 destroyed." in replaced.stdout
    # the replacement is a new object, created after the old one was destroyed (its id is no proof:
    # null 2.1.2 draws ids from an unseeded generator, so a new plugin process can repeat one)
    assert "Destruction complete after" in replaced.stdout and f"[id={rid}]" in replaced.stdout
    assert replaced.stdout.index("Destruction complete") < replaced.stdout.index("Creation complete")

    gone = plugged.strata("destroy", "-auto-approve", "-var", "v=2", check=True)
    assert "Resources: 1 destroyed." in gone.stdout
    assert [r for r in plugged.state()["resources"] if r["mode"] == "managed"] == []


def test_terraform_plans_nothing_against_strata_state(plugged: Workdir) -> None:
    plugged.strata("apply", "-auto-approve", check=True)
    r = plugged.terraform("plan", "-detailed-exitcode", "-no-color", "-input=false")
    assert r.returncode == 0, r.stdout + r.stderr


def test_strata_plans_nothing_against_terraform_state(plugged: Workdir) -> None:
    r = plugged.terraform("apply", "-auto-approve", "-no-color", "-input=false")
    assert r.returncode == 0, r.stdout + r.stderr
    again = plugged.strata("plan", "-detailed-exitcode")
    assert again.returncode == 0, again.stdout + again.stderr


def _flatten_null_resource(w: Workdir) -> str:
    """Rewrite the state's null_resource as a state upgraded from version 3 keeps an object of
    Terraform before 0.12 (``attributes_flat``, the legacy SDK's flatmap); its id."""
    state = w.state()
    (res,) = [r for r in state["resources"] if r["mode"] == "managed"]
    (inst,) = res["instances"]
    rid = inst["attributes"]["id"]
    del inst["attributes"]
    inst["attributes_flat"] = {"id": rid, "triggers.%": "1", "triggers.v": "1"}
    (w.path / "terraform.tfstate").write_bytes(orjson.dumps(state, option=orjson.OPT_INDENT_2))
    return str(rid)


def test_a_flatmap_state_is_read_by_the_plugin_as_terraform_reads_it(plugged: Workdir) -> None:
    plugged.strata("apply", "-auto-approve", check=True)
    rid = _flatten_null_resource(plugged)
    # terraform, the oracle: the plugin upgrades the flatmap (UpgradeResourceState), no change
    r = plugged.terraform("plan", "-detailed-exitcode", "-no-color", "-input=false", "-lock=false")
    assert r.returncode == 0, r.stdout + r.stderr
    plan = plugged.strata("plan", "-detailed-exitcode")
    assert plan.returncode == 0, plan.stdout + plan.stderr
    assert "No changes." in plan.stdout
    plugged.strata("apply", "-auto-approve", check=True)
    (res,) = [r for r in plugged.state()["resources"] if r["mode"] == "managed"]
    (inst,) = res["instances"]
    assert "attributes_flat" not in inst
    assert inst["attributes"] == {"id": rid, "triggers": {"v": "1"}}


def _children(pid: int) -> set[int]:
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            found.update(int(c) for c in (task / "children").read_text().split())
        except FileNotFoundError:
            pass
    return found


def test_a_plugin_killed_mid_apply_is_a_clear_error_and_the_state_keeps_the_rest(plugged: Workdir) -> None:
    plugged.write("""
        resource "null_resource" "n" {
          count = 300
        }
    """)
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.Popen([sys.executable, "-m", "engine", "apply", "-auto-approve", "-json", "-parallelism=1"],
                            cwd=plugged.path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    plugins: set[int] = set()
    done = 0
    for line in proc.stdout:
        if '"apply_complete"' in line:
            done += 1
            if done == 2:  # two made: kill the plugin while the rest are under way
                plugins = {p for p in _children(proc.pid) if running(p) and _is_null_plugin(p)}
                assert plugins, "no plugin process was started"
                for p in plugins:
                    os.kill(p, signal.SIGKILL)
                break
    rest = proc.stdout.read()
    proc.wait(timeout=120)
    events = [orjson.loads(x) for x in rest.splitlines() if x.startswith("{")]
    diags = [e["diagnostic"] for e in events if e["type"] == "diagnostic"]
    assert proc.returncode == 1
    assert any(d["summary"] == "Plugin did not respond"
               and "failed to respond to the plugin.(*GRPCProvider)." in d["detail"] for d in diags), diags
    kept = [r for r in plugged.state()["resources"] if r["mode"] == "managed"]
    assert kept and 2 <= len(kept[0]["instances"]) < 300
    assert all(wait_gone(p) for p in plugins)
    assert not _children_left(proc.pid)


def _is_null_plugin(pid: int) -> bool:
    try:
        return os.readlink(f"/proc/{pid}/exe").rsplit("/", 1)[-1].startswith("terraform-provider-null")
    except OSError:
        return False


def _children_left(pid: int) -> bool:
    return Path(f"/proc/{pid}").exists() and bool(_children(pid))
