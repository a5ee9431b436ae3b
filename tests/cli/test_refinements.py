"""What terraform knows of an unknown value decides a plan: one it knows is never null (a
template's, an operator's, most functions', through local values) compares with null; a template's
known start decides ``==`` and ``startswith``; a conditional over two numbers or two lists of one
length has a range or a length; so a ``count`` that asks so is known. The expected plans are
terraform 1.11's, recorded here and compared with the binary when it is present. (Each function's
case is in ``tests/engine/functions``.)"""

from __future__ import annotations

import orjson
import pytest

from tests.conftest import Workdir, requires_terraform

CONFIG = """
variable "on" {
  default = true
}
resource "terraform_data" "u" {
  input = "a"
}
locals {
  picked = var.on ? "${terraform_data.u.output}-a" : null
  t     = "${terraform_data.u.output}-x"
  chain = local.t
  o     = terraform_data.u.output
  j     = jsonencode(terraform_data.u.output)
  c     = terraform_data.u.output == "a" ? local.t : "y"
}
resource "terraform_data" "counted" {
  count = local.chain != null ? 2 : 0
  input = count.index
}
output "t" { value = local.t == null }
output "chain" { value = local.chain != null }
output "o" { value = local.o == null }
output "j" { value = null == local.j }
output "c" { value = local.c == null }
output "picked" { value = local.picked != null }
output "for_local" { value = [for local in [{ t = terraform_data.u.output }] : local.t != null] }
"""

# terraform 1.11.4's plan of CONFIG: each output's planned value (None: unknown), and the instances
RECORDED = {"outputs": {"t": False, "chain": True, "o": None, "j": False, "c": False, "picked": True,
                        "for_local": [None]},  # a list of one unknown: after shows null
            "instances": ["terraform_data.counted[0]", "terraform_data.counted[1]", "terraform_data.u"]}


def _plan(show: str) -> dict[str, object]:
    doc = orjson.loads(show)
    outputs = {k: (None if v["after_unknown"] is True else v["after"]) for k, v in doc["output_changes"].items()}
    return {"outputs": outputs, "instances": sorted(r["address"] for r in doc["resource_changes"])}


PREFIX_CONFIG = """
resource "terraform_data" "id" {
  input = "x"
}
locals {
  name   = "app-${terraform_data.id.output}"
  arn    = format("arn:aws:s3:::%s", local.name)
  pair   = terraform_data.id.output == "x" ? tolist(["a", "b"]) : tolist(["c", "d"])
  size   = terraform_data.id.output == "x" ? 1 : 3
}
resource "terraform_data" "named" {
  count = local.name != "" ? 1 : 0
  input = local.name
}
resource "terraform_data" "paired" {
  count = length(local.pair)
  input = local.pair[count.index]
}
resource "terraform_data" "sized" {
  count = local.size > 0 ? 1 : 0
  input = local.size
}
output "is_s3" { value = startswith(local.arn, "arn:aws:s3") }
output "is_gcp" { value = startswith(local.arn, "gcp") }
output "undecided" { value = startswith(local.name, "app-x") }
output "named_app" { value = local.name == "app" }
output "json_object" { value = startswith(jsonencode({ n = local.name }), "{") }
output "small" { value = local.size < 4 }
output "one" { value = terraform_data.id.output == "y" ? 1 : 1 }
"""

PREFIX_RECORDED = {
    "outputs": {"is_s3": True, "is_gcp": False, "undecided": None, "named_app": False, "json_object": True,
                "small": True, "one": 1},
    "instances": ["terraform_data.id", "terraform_data.named[0]", "terraform_data.paired[0]",
                  "terraform_data.paired[1]", "terraform_data.sized[0]"],
}


PLANS = {"not null": (CONFIG, RECORDED), "prefix, range, length": (PREFIX_CONFIG, PREFIX_RECORDED)}


@pytest.mark.parametrize("name", list(PLANS))
def test_what_terraform_knows_of_an_unknown_is_known_at_plan(workdir: Workdir, name: str) -> None:
    config, recorded = PLANS[name]
    workdir.write(config)
    workdir.strata("plan", "-out=p", check=True)
    assert _plan(workdir.strata("show", "-json", "p", check=True).stdout) == recorded


@requires_terraform
@pytest.mark.parametrize("name", list(PLANS))
def test_the_recorded_plans_are_terraforms(workdir: Workdir, name: str) -> None:
    config, recorded = PLANS[name]
    workdir.write(config)
    res = workdir.terraform("plan", "-out=p", "-input=false", "-no-color")
    if res.returncode != 0:
        pytest.fail(res.stdout + res.stderr)
    assert _plan(workdir.terraform("show", "-json", "p").stdout) == recorded
