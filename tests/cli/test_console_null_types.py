"""Typed nulls in ``strata console``: a null keeps the type terraform gives it (a variable's, a
conversion's, an optional attribute's, a conditional's other branch) and prints as terraform's
console prints it: ``tostring(null)``, ``tolist(null) /* of string */``, ``null /* object */``."""

from __future__ import annotations

import os
import subprocess

import pytest

from engine.lang.null_types import null_text
from tests.conftest import Workdir, requires_terraform

CONFIG = """
variable "s" {
  type    = string
  default = null
}
variable "l" {
  type    = list(string)
  default = null
}
variable "o" {
  type    = object({ a = string, b = optional(list(number)) })
  default = { a = "x" }
}
variable "m" {
  type    = map(object({ x = number }))
  default = null
}
variable "b" {
  type    = object({ x = string })
  default = null
}
variable "f" {
  type    = list(object({ p = optional(string), q = optional(set(string)) }))
  default = [{}]
}
variable "u" {
  default = null
}
locals {
  chosen = true ? var.l : null
}
"""

# expression -> what terraform 1.11's console prints for it (recorded)
EXPECTED = {
    "null": "null",
    "var.u": "null",
    "var.s": "tostring(null)",
    "var.l": "tolist(null) /* of string */",
    "var.o": '{\n  "a" = "x"\n  "b" = tolist(null) /* of number */\n}',
    "var.o.b": "tolist(null) /* of number */",
    "var.m": "tomap(null) /* of object */",
    "var.b": "null /* object */",
    "var.f": 'tolist([\n  {\n    "p" = tostring(null)\n    "q" = toset(null) /* of string */\n  },\n])',
    "var.f[*].q": "tolist([\n  toset(null) /* of string */,\n])",
    "local.chosen": "tolist(null) /* of string */",
    "tonumber(null)": "tonumber(null)",
    "tolist(null)": "tolist(null) /* of dynamic */",
    "tomap({a=null, b=\"x\"})": 'tomap({\n  "a" = tostring(null)\n  "b" = "x"\n})',
    "tolist([null])": "tolist([\n  null,\n])",
    "[var.s]": "[\n  tostring(null),\n]",
    'true ? null : "x"': "tostring(null)",
    "{x=var.b}": '{\n  "x" = null /* object */\n}',
    "[for x in var.f: x.p]": "[\n  tostring(null),\n]",
    "merge({a=var.s}, {b=1})": '{\n  "a" = tostring(null)\n  "b" = 1\n}',
    'lookup({a=var.s}, "a")': "tostring(null)",
    'concat([var.s], ["x"])': '[\n  tostring(null),\n  "x",\n]',
    "ephemeralasnull(terraform.applying)": "tobool(null)",
    'lookup({a=null}, "a")': "null",
}


@pytest.fixture(scope="module")
def configured(tmp_path_factory: pytest.TempPathFactory) -> Workdir:
    w = Workdir(tmp_path_factory.mktemp("nulls"))
    w.write(CONFIG)
    return w


@pytest.mark.parametrize("expr", list(EXPECTED))
def test_console_prints_typed_null_as_terraform(configured: Workdir, expr: str) -> None:
    r = configured.strata("console", input=expr + "\n")
    assert (r.returncode, r.stdout) == (0, EXPECTED[expr] + "\n"), r.stderr


@pytest.mark.parametrize(("ty", "text"), [
    ("string", "tostring(null)"),
    (["list", ["list", "string"]], "tolist(null) /* of list of string */"),
    (["set", ["map", "number"]], "toset(null) /* of map of number */"),
    (["map", "dynamic"], "tomap(null) /* of dynamic */"),
    (["tuple", ["string"]], "null /* tuple */"),
    ("dynamic", "null"),
])
def test_null_text_writes_a_type_as_terraform(ty: object, text: str) -> None:
    assert null_text(ty) == text


@requires_terraform
def test_typed_nulls_agree_with_terraform(configured: Workdir) -> None:
    env = dict(os.environ, TF_CLI_CONFIG_FILE="/dev/null", CHECKPOINT_DISABLE="1", TF_IN_AUTOMATION="1")
    configured.terraform("init", "-input=false")
    for expr in EXPECTED:
        theirs = subprocess.run(["terraform", "console"], cwd=configured.path, env=env, input=expr + "\n",
                                capture_output=True, text=True, check=True).stdout
        assert theirs == EXPECTED[expr] + "\n", expr
