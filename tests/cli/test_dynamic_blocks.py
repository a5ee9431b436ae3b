"""``dynamic`` blocks through the `strata` command: one nested block per element of ``for_each``,
with ``iterator``, ``labels`` and nested ``dynamic`` blocks, in resources and data sources, with
hcl's errors. The provider is a MockProvider with nested blocks installed as a plugin (terraform's
built-in provider has no nested blocks, so terraform is compared on the errors it can give)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import Workdir, requires_terraform

PLUGIN = '''
from engine import AttributeSchema, BlockSchema, MockProvider, ResourceSchema

RULE = BlockSchema("list", {"port": AttributeSchema("number", required=True),
                            "proto": AttributeSchema("string", optional=True)},
                   blocks={"cidr": BlockSchema("list", {"block": AttributeSchema("string", required=True)})})
THING = ResourceSchema({"id": AttributeSchema("string", computed=True),
                        "name": AttributeSchema("string", optional=True)},
                       blocks={"rule": RULE,
                               "tag": BlockSchema("set", {"key": AttributeSchema("string", required=True)}),
                               "setting": BlockSchema("map", {"value": AttributeSchema("string", optional=True)})})
LOOKUP = ResourceSchema({"id": AttributeSchema("string", computed=True)},
                        blocks={"filter": BlockSchema("list", {"name": AttributeSchema("string", required=True)})})


def make():
    return MockProvider({"mock_thing": THING}, data_sources={"mock_lookup": LOOKUP},
                        source="example.com/test/mock")
'''


@pytest.fixture
def plugged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Workdir:
    site = tmp_path / "site"
    info = site / "strata_dynplugin-0.0.0.dist-info"
    info.mkdir(parents=True)
    (site / "strata_dynplugin.py").write_text(PLUGIN)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: strata-dynplugin\nVersion: 0.0.0\n")
    (info / "entry_points.txt").write_text("[strata.providers]\nmock = strata_dynplugin:make\n")
    monkeypatch.setenv("PYTHONPATH", str(site) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    cfg = tmp_path / "cfg"
    cfg.mkdir()
    return Workdir(cfg)


CONFIG = """
variable "rules" {
  default = [
    { port = 80, cidrs = ["10.0.0.0/8"] },
    { port = 443, cidrs = ["10.0.0.0/8", "0.0.0.0/0"] },
  ]
}
variable "settings" {
  default = { b = "2", a = "1" }
}
resource "mock_thing" "a" {
  name = "a"
  rule {
    port = 22
  }
  dynamic "rule" {
    for_each = var.rules
    iterator = r
    content {
      port  = r.value.port
      proto = "tcp${r.key}"
      dynamic "cidr" {
        for_each = toset(r.value.cidrs)
        content {
          block = cidr.value
        }
      }
    }
  }
  dynamic "tag" {
    for_each = toset(["x", "y"])
    content {
      key = tag.key
    }
  }
  dynamic "setting" {
    for_each = var.settings
    labels   = ["s-${setting.key}"]
    content {
      value = setting.value
    }
  }
}
data "mock_lookup" "l" {
  dynamic "filter" {
    for_each = ["one", "two"]
    content {
      name = filter.value
    }
  }
}
resource "mock_thing" "none" {
  dynamic "rule" {
    for_each = []
    content {
      port = 1
    }
  }
}
"""


def _attributes(workdir: Workdir, name: str, mode: str = "managed") -> dict:
    for r in workdir.state()["resources"]:
        if r["name"] == name and r["mode"] == mode:
            return r["instances"][0]["attributes"]
    raise AssertionError(f"{name} not in state")


def test_dynamic_blocks_make_one_block_per_element(plugged: Workdir) -> None:
    plugged.write(CONFIG)
    plugged.strata("apply", "-auto-approve", "-no-color", check=True)
    a = _attributes(plugged, "a")
    assert a["rule"] == [
        {"port": 22, "proto": None, "cidr": []},
        {"port": 80, "proto": "tcp0", "cidr": [{"block": "10.0.0.0/8"}]},
        {"port": 443, "proto": "tcp1", "cidr": [{"block": "0.0.0.0/0"}, {"block": "10.0.0.0/8"}]},
    ]
    assert sorted(t["key"] for t in a["tag"]) == ["x", "y"]
    assert a["setting"] == {"s-a": {"value": "1"}, "s-b": {"value": "2"}}
    assert _attributes(plugged, "none")["rule"] == []
    assert _attributes(plugged, "l", "data")["filter"] == [{"name": "one"}, {"name": "two"}]


def test_dynamic_blocks_plan_no_changes_the_second_time(plugged: Workdir) -> None:
    plugged.write(CONFIG)
    plugged.strata("apply", "-auto-approve", check=True)
    res = plugged.strata("plan", "-detailed-exitcode", "-no-color")
    assert res.returncode == 0, res.stdout + res.stderr


def test_a_dynamic_for_each_known_only_after_apply_plans(plugged: Workdir) -> None:
    plugged.write("""
resource "mock_thing" "src" {}
resource "mock_thing" "b" {
  dynamic "rule" {
    for_each = [mock_thing.src.id]
    content {
      port = 1
      proto = rule.value
    }
  }
}
""")
    plugged.strata("apply", "-auto-approve", "-no-color", check=True)
    assert _attributes(plugged, "b")["rule"][0]["proto"] == _attributes(plugged, "src")["id"]


ERRORS = [
    ('dynamic "rule" {\n    for_each = "x"\n    content {\n      port = 1\n    }\n  }',
     "Invalid dynamic for_each value", "Cannot use a string value in for_each. An iterable collection is required.",
     3),
    ('dynamic "rule" {\n    for_each = null\n    content {\n      port = 1\n    }\n  }',
     "Invalid dynamic for_each value", "Cannot use a null value in for_each.", 3),
    ('dynamic "rule" {\n    for_each = [1]\n  }',
     "Missing dynamic content block", 'A dynamic block must have a nested block of type "content" to describe the '
     "body of each generated block.", 2),
    ('dynamic "rule" {\n    for_each = [1]\n    iterator = a.b\n    content {\n      port = 1\n    }\n  }',
     "Invalid dynamic iterator name", "Dynamic iterator must be a single variable name.", 4),
    ('dynamic "nope" {\n    for_each = [1]\n    content {}\n  }',
     "Unsupported block type", 'Blocks of type "nope" are not expected here.', 2),
]


@pytest.mark.parametrize(("block", "summary", "detail", "line"), ERRORS)
def test_dynamic_block_mistakes_are_hcls_errors(plugged: Workdir, block: str, summary: str, detail: str,
                                                line: int) -> None:
    plugged.write(f'resource "mock_thing" "a" {{\n  {block}\n}}\n')
    res = plugged.strata("plan", "-no-color")
    assert res.returncode == 1
    text = " ".join(res.stderr.split())
    assert f"Error: {summary} on main.tf line {line}, in resource \"mock_thing\" \"a\":" in text, res.stderr
    assert detail in text, res.stderr


@pytest.mark.parametrize("tool", ["strata", pytest.param("terraform", marks=requires_terraform)])
def test_a_dynamic_block_of_a_type_the_schema_lacks(workdir: Workdir, tool: str) -> None:
    workdir.write('resource "terraform_data" "a" {\n  dynamic "ingress" {\n    for_each = [1]\n'
                  '    content {}\n  }\n}\n')
    res = workdir.strata("plan", "-no-color") if tool == "strata" else workdir.terraform("plan", "-no-color")
    text = " ".join(res.stderr.replace("\u2502", "").split())
    assert res.returncode == 1
    assert ('Error: Unsupported block type on main.tf line 2, in resource "terraform_data" "a": 2: dynamic '
            '"ingress" { Blocks of type "ingress" are not expected here.') in text, res.stderr
