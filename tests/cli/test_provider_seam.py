"""From the outside: a third-party provider (a MockProvider installed through the
``strata.providers`` entry point) whose private data, requires_replace paths and failures go
through the seam to the state file and the user's screen."""

from __future__ import annotations

import base64
import os
import textwrap
from pathlib import Path

import pytest

from tests.conftest import Workdir

PLUGIN = '''
from engine import (ApplyResourceChangeResponse, AttributeSchema, MockProvider, NestedType,
                    PlanResourceChangeResponse)

SCHEMA = {"id": AttributeSchema("string", computed=True),
          "tags": AttributeSchema(["map", "string"], optional=True),
          "disk": AttributeSchema(None, optional=True,
                                  nested=NestedType("single", {"size": AttributeSchema("number", required=True)}))}


def make():
    mock = MockProvider({"mock_thing": SCHEMA}, source="example.com/test/mock",
                        requires_replace={"mock_thing": (("tags", "zone"), ("disk", "size"))})

    def plan(req):
        resp = mock.default_plan_resource_change(req)
        if (req.config or {}).get("tags", {}).get("explode") == "yes":
            raise RuntimeError("the plugin crashed")
        return PlanResourceChangeResponse(resp.planned_state, resp.requires_replace,
                                          planned_private=b"timeouts:" + req.prior_private[:3])

    def apply(req):
        resp = mock.default_apply_resource_change(req)
        return ApplyResourceChangeResponse(resp.new_state, private=req.planned_private + b"\\x00")

    mock.set("plan_resource_change", plan)
    mock.set("apply_resource_change", apply)
    return mock
'''


@pytest.fixture
def plugged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Workdir:
    """A configuration directory where the ``mock`` provider is installed (an entry point found
    on PYTHONPATH, as ``pip install`` would leave it)."""
    site = tmp_path / "site"
    info = site / "strata_mockplugin-0.0.0.dist-info"
    info.mkdir(parents=True)
    (site / "strata_mockplugin.py").write_text(PLUGIN)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: strata-mockplugin\nVersion: 0.0.0\n")
    (info / "entry_points.txt").write_text("[strata.providers]\nmock = strata_mockplugin:make\n")
    monkeypatch.setenv("PYTHONPATH", str(site) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    cfg = tmp_path / "cfg"
    cfg.mkdir()
    return Workdir(cfg)


CONFIG = """
resource "mock_thing" "x" {
  tags = { zone = "%s", team = "a" }
  disk = { size = %d }
}
"""


def _private(w: Workdir) -> bytes:
    return base64.b64decode(w.state()["resources"][0]["instances"][0]["private"])


def test_private_bytes_reach_the_state_and_come_back_on_the_next_run(plugged: Workdir) -> None:
    plugged.write(CONFIG % ("eu", 1))
    plugged.strata("apply", "-auto-approve", check=True)
    assert _private(plugged) == b"timeouts:\x00"
    plugged.write(CONFIG.replace('team = "a"', 'team = "b"') % ("eu", 1))
    plugged.strata("apply", "-auto-approve", check=True)
    assert _private(plugged) == b"timeouts:tim\x00"  # the stored bytes were handed back to the plan


@pytest.mark.parametrize(("zone", "size", "forced"), [("us", 1, '"zone" = "eu" -> "us" # forces replacement'),
                                                      ("eu", 2, "size = 1 -> 2 # forces replacement")])
def test_a_change_at_a_requires_replace_path_replaces_and_the_plan_says_where(
        plugged: Workdir, zone: str, size: int, forced: str) -> None:
    plugged.write(CONFIG % ("eu", 1))
    plugged.strata("apply", "-auto-approve", check=True)
    plugged.write(CONFIG % (zone, size))
    res = plugged.strata("plan", "-no-color", check=True)
    assert "mock_thing.x must be replaced" in res.stdout, res.stdout
    assert forced in res.stdout, res.stdout


def test_a_plugin_that_crashes_is_an_error_naming_it_never_a_traceback(plugged: Workdir) -> None:
    plugged.write(textwrap.dedent("""
        resource "mock_thing" "x" {
          tags = { explode = "yes" }
        }
    """))
    res = plugged.strata("plan", "-no-color")
    assert res.returncode == 1
    assert "Traceback" not in res.stderr, res.stderr
    out = res.stdout + res.stderr
    assert "Provider failed to plan" in out and "mock_thing.x" in out and "the plugin crashed" in out, out
