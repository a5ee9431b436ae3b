"""The built-in functions from the outside: ``strata apply`` of configurations written the way
widely used modules write them (CIDR plans, labels, tag merging, policies in YAML, templates)
gives terraform's ``output -json``, values and types; ``timestamp()`` and ``uuid()`` are unknown
in the plan and known after apply."""

from __future__ import annotations

import json
import re

from tests.conftest import Workdir, requires_terraform

NETWORK = """
variable "cidr" {
  default = "10.20.0.0/16"
}
variable "azs" {
  default = ["eu-west-1a", "eu-west-1b", "eu-west-1c"]
}
locals {
  public  = [for i, az in var.azs : cidrsubnet(var.cidr, 8, i)]
  private = [for i, az in var.azs : cidrsubnet(var.cidr, 4, i + 1)]
  plan    = cidrsubnets(var.cidr, 4, 4, 8, 8)
  gateway = cidrhost(local.public[0], 1)
  netmask = cidrnetmask(var.cidr)
  name    = lower(replace(title("core network-prod"), " ", "-"))
  tags = merge(
    { Name = local.name, Environment = "prod" },
    { for k, v in { Team = "net", Empty = "" } : k => v if v != "" },
  )
  ids      = compact(["subnet-1", "", null, "subnet-2"])
  firsttwo = slice(local.public, 0, 2)
  backward = reverse(local.private)
  nat      = coalescelist([], local.public)
  all_ok   = alltrue([for c in local.public : can(cidrnetmask(c))])
  any_big  = anytrue([for c in local.plan : endswith(c, "/20")])
  azs_set  = setunion(toset(var.azs), ["eu-west-1a"])
  only_b   = setsubtract(var.azs, ["eu-west-1a", "eu-west-1c"])
  pairs    = setproduct(["web", "db"], ["a", "b"])
  where    = index(var.azs, "eu-west-1b")
  labels   = formatlist("%s-%s", local.name, var.azs)
  zone_ids = [for az in var.azs : regex("-(\\\\d)([a-z])$", az)]
  letters  = regexall("[a-c]$", join(",", var.azs))
  arn      = regex("^arn:(?P<partition>[^:]+):(?P<service>[^:]+)", "arn:aws:iam::123:role/x")
  policy = yamlencode({
    Version   = "2012-10-17"
    Statement = [{ Effect = "Allow", Action = ["s3:GetObject"], Resource = "*" }]
  })
  decoded = yamldecode("a: 1\\nb: [x, y]\\nc: yes\\n")
  when    = formatdate("YYYY-MM-DD hh:mm", "2024-02-29T13:45:00Z")
  later   = timeadd("2024-02-29T13:45:00Z", "36h")
  digest  = base64sha256("hello")
  id      = uuidv5("dns", local.name)
  rendered = templatefile("${path.module}/user_data.tftpl", { name = local.name, port = 8080 })
  chunks  = chunklist(local.public, 2)
  total   = sum([for c in local.plan : tonumber(split("/", c)[1])])
}
"""

OUTPUTS = ["public", "private", "plan", "gateway", "netmask", "name", "tags", "ids", "firsttwo", "backward", "nat",
           "all_ok", "any_big", "azs_set", "only_b", "pairs", "where", "labels", "zone_ids", "letters", "arn",
           "policy", "decoded", "when", "later", "digest", "id", "rendered", "chunks", "total"]

TEMPLATE = "#!/bin/sh\necho 'hello ${name}' > /etc/motd\nexec serve --port ${port}\n"


def _config() -> str:
    return NETWORK + "".join(f'output "{o}" {{\n  value = local.{o}\n}}\n' for o in OUTPUTS)


def _outputs(text: str) -> dict:
    return {k: (v["value"], v["type"]) for k, v in json.loads(text).items()}


def _write(workdir: Workdir) -> None:
    workdir.write(_config())
    workdir.write(TEMPLATE, "user_data.tftpl")


# terraform 1.11's output -json of the configuration above (values and types), for when it is absent
EXPECTED_SOME = {
    "public": (["10.20.0.0/24", "10.20.1.0/24", "10.20.2.0/24"], ["tuple", ["string", "string", "string"]]),
    "plan": (["10.20.0.0/20", "10.20.16.0/20", "10.20.32.0/24", "10.20.33.0/24"], ["list", "string"]),
    "gateway": ("10.20.0.1", "string"),
    "netmask": ("255.255.0.0", "string"),
    "name": ("core-network-prod", "string"),
    "ids": (["subnet-1", "subnet-2"], ["list", "string"]),
    "where": (1, "number"),
    "labels": (["core-network-prod-eu-west-1a", "core-network-prod-eu-west-1b", "core-network-prod-eu-west-1c"],
               ["list", "string"]),
    "policy": ('"Statement":\n- "Action":\n  - "s3:GetObject"\n  "Effect": "Allow"\n  "Resource": "*"\n'
               '"Version": "2012-10-17"\n', "string"),
    "later": ("2024-03-02T01:45:00Z", "string"),
    "rendered": ("#!/bin/sh\necho 'hello core-network-prod' > /etc/motd\nexec serve --port 8080\n", "string"),
    "total": (88, "number"),
}


def test_real_world_functions_give_terraforms_outputs(workdir: Workdir) -> None:
    _write(workdir)
    workdir.strata("apply", "-auto-approve", check=True)
    got = _outputs(workdir.strata("output", "-json", check=True).stdout)
    for name, want in EXPECTED_SOME.items():
        assert got[name] == want, f"output {name}: terraform gives {want}, strata {got[name]}"


@requires_terraform
def test_real_world_functions_match_terraform_live(workdir: Workdir) -> None:
    _write(workdir)
    assert workdir.terraform("apply", "-auto-approve", "-no-color").returncode == 0
    theirs = _outputs(workdir.terraform("output", "-json").stdout)
    (workdir.path / "terraform.tfstate").unlink()
    workdir.strata("apply", "-auto-approve", check=True)
    ours = _outputs(workdir.strata("output", "-json", check=True).stdout)
    differ = {k: (theirs[k], ours.get(k)) for k in theirs if ours.get(k) != theirs[k]}
    assert not differ, f"(terraform, strata) where they differ: {differ}"


def test_timestamp_and_uuid_are_unknown_in_the_plan_and_known_after_apply(workdir: Workdir) -> None:
    workdir.write("""
        resource "terraform_data" "stamp" {
          input = { at = timestamp(), id = uuid(), plan = plantimestamp() }
        }
        output "at" {
          value = terraform_data.stamp.output.at
        }
        output "id" {
          value = terraform_data.stamp.output.id
        }
    """)
    plan = workdir.strata("plan", "-no-color", check=True).stdout
    assert re.search(r"at\s+= \(known after apply\)", plan), plan
    assert re.search(r"id\s+= \(known after apply\)", plan), plan
    assert re.search(r'plan\s+= "\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"', plan), plan
    workdir.strata("apply", "-auto-approve", check=True)
    out = _outputs(workdir.strata("output", "-json", check=True).stdout)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", out["at"][0]), out
    assert re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}", out["id"][0]), out


def test_a_bad_function_argument_is_terraforms_diagnostic(workdir: Workdir) -> None:
    workdir.write("""
        output "x" {
          value = cidrsubnet("10.0.0.0/24", 9, 0)
        }
        output "y" {
          value = slice([1, 2], 0, 3)
        }
    """)
    res = workdir.strata("plan", "-no-color")
    assert res.returncode == 1
    text = res.stdout + res.stderr
    assert "Call to function \"cidrsubnet\" failed: insufficient address space to extend prefix of 24 by 9." \
        in " ".join(text.split()), text
    assert 'Invalid value for "end_index" parameter: end index must not be greater than the length of the list.' \
        in " ".join(text.split()), text
    assert "Traceback" not in text


def test_issensitive_answers_from_what_the_value_refers_to_and_is_not_itself_sensitive(workdir: Workdir) -> None:
    workdir.write("""
        variable "s" {
          default   = "secret"
          sensitive = true
        }
        locals {
          l = upper(var.s)
        }
        output "a" {
          value = issensitive(var.s)
        }
        output "b" {
          value = issensitive(local.l)
        }
        output "c" {
          value = issensitive("x")
        }
        output "d" {
          value = issensitive(nonsensitive(var.s))
        }
    """)
    workdir.strata("apply", "-auto-approve", check=True)
    got = _outputs(workdir.strata("output", "-json", check=True).stdout)
    # terraform 1.11: true, true, false, false, and no output needs to be declared sensitive
    assert {k: v[0] for k, v in got.items()} == {"a": True, "b": True, "c": False, "d": False}
