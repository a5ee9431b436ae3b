"""An in-place update in the human plan shows what changed inside a value, as terraform 1.11.4
does: nested entries marked +, - or ~, unchanged ones counted, a list's neighbouring elements as
context, multi-line strings line by line (texts recorded from terraform; compared live when it is on
PATH)."""

from __future__ import annotations

import re

from tests.cli.test_terraform_compat import REFERENCE, requires_reference
from tests.conftest import Workdir, requires_terraform

BEFORE = 'resource "terraform_data" "lists" {\n  input = {\n    ctx     = [1, 2, 3, 4, 5, 6, 7, 8]\n    grow    = []\n    shrink  = ["a"]\n    objs    = [{ a = 1, b = 2 }, { a = 3, b = 4 }]\n    nested  = [[1, 2], [3]]\n    typech  = "str"\n    tonull  = "x"\n    fromnul = null\n    multi   = "line1\\nline2\\nline3\\n"\n    mlong_key_name = { x = 1, y = 2 }\n    same    = 1\n  }\n}\nresource "terraform_data" "scalar" {\n  input = "a"\n}\nresource "terraform_data" "whole" {\n  input = [1, 2]\n}\noutput "o" {\n  value = { a = 1, b = [1, 2, 3], c = "x" }\n}\noutput "p" {\n  value = "same"\n}\n'

AFTER = 'resource "terraform_data" "lists" {\n  input = {\n    ctx     = [1, 2, 9, 4, 5, 6, 7, 8, 10]\n    grow    = [1]\n    shrink  = []\n    objs    = [{ a = 1, b = 5 }, { a = 3, b = 4 }, { a = 7, b = 8 }]\n    nested  = [[1, 3], [3]]\n    typech  = ["str"]\n    tonull  = null\n    fromnul = "y"\n    multi   = "line1\\nLINE2\\nline3\\n"\n    mlong_key_name = { x = 1, y = 3, z = 4 }\n    same    = 1\n    added   = { q = "r" }\n  }\n}\nresource "terraform_data" "scalar" {\n  input = "b"\n}\nresource "terraform_data" "whole" {\n  input = null\n}\noutput "o" {\n  value = { a = 2, b = [1, 3], c = "x", d = true }\n}\noutput "p" {\n  value = "same"\n}\n'

# terraform plan -no-color after applying BEFORE, with AFTER as the configuration (ids as "ID")
RESOURCES = '  # terraform_data.lists will be updated in-place\n  ~ resource "terraform_data" "lists" {\n        id     = "ID"\n      ~ input  = {\n          + added          = {\n              + q = "r"\n            }\n          ~ ctx            = [\n                # (1 unchanged element hidden)\n                2,\n              - 3,\n              + 9,\n                4,\n                # (3 unchanged elements hidden)\n                8,\n              + 10,\n            ]\n          ~ fromnul        = null -> "y"\n          ~ grow           = [\n              + 1,\n            ]\n          ~ mlong_key_name = {\n              ~ y = 2 -> 3\n              + z = 4\n                # (1 unchanged attribute hidden)\n            }\n          ~ multi          = <<-EOT\n                line1\n              - line2\n              + LINE2\n                line3\n            EOT\n          ~ nested         = [\n              ~ [\n                    1,\n                  ~ 2 -> 3,\n                ],\n                [\n                    3,\n                ],\n            ]\n          ~ objs           = [\n              ~ {\n                  ~ b = 2 -> 5\n                    # (1 unchanged attribute hidden)\n                },\n                {\n                    a = 3\n                    b = 4\n                },\n              + {\n                  + a = 7\n                  + b = 8\n                },\n            ]\n          ~ shrink         = [\n              - "a",\n            ]\n          ~ tonull         = "x" -> null\n          ~ typech         = "str" -> [\n              + "str",\n            ]\n            # (1 unchanged attribute hidden)\n        }\n      ~ output = {\n          - ctx            = [\n              - 1,\n              - 2,\n              - 3,\n              - 4,\n              - 5,\n              - 6,\n              - 7,\n              - 8,\n            ]\n          - fromnul        = null\n          - grow           = []\n          - mlong_key_name = {\n              - x = 1\n              - y = 2\n            }\n          - multi          = <<-EOT\n                line1\n                line2\n                line3\n            EOT\n          - nested         = [\n              - [\n                  - 1,\n                  - 2,\n                ],\n              - [\n                  - 3,\n                ],\n            ]\n          - objs           = [\n              - {\n                  - a = 1\n                  - b = 2\n                },\n              - {\n                  - a = 3\n                  - b = 4\n                },\n            ]\n          - same           = 1\n          - shrink         = [\n              - "a",\n            ]\n          - tonull         = "x"\n          - typech         = "str"\n        } -> (known after apply)\n    }\n\n  # terraform_data.scalar will be updated in-place\n  ~ resource "terraform_data" "scalar" {\n        id     = "ID"\n      ~ input  = "a" -> "b"\n      ~ output = "a" -> (known after apply)\n    }\n\n  # terraform_data.whole will be updated in-place\n  ~ resource "terraform_data" "whole" {\n        id     = "ID"\n      - input  = [\n          - 1,\n          - 2,\n        ] -> null\n      ~ output = [\n          - 1,\n          - 2,\n        ] -> (known after apply)\n    }\n\n'

OUTPUTS = 'Changes to Outputs:\n  ~ o = {\n      ~ a = 1 -> 2\n      ~ b = [\n            1,\n          - 2,\n            3,\n        ]\n      + d = true\n        # (1 unchanged attribute hidden)\n    }\n'

_ID = re.compile(r'"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"')


def _resources(text: str) -> str:
    start = text.index("  # terraform_data.lists")
    return _ID.sub('"ID"', text[start:text.index("Plan: ", start)])


def _outputs(text: str) -> str:
    start = text.index("Changes to Outputs:")
    end = text.find("\u2500", start)
    return text[start:end if end >= 0 else None].rstrip("\n") + "\n"


def _plan_after(workdir: Workdir, before: str, after: str, tool: str) -> str:
    """The plan text of ``after`` once ``before`` is applied, by strata or by terraform."""
    def run(*args: str) -> str:
        return (workdir.strata(*args, check=True) if tool == "strata" else workdir.terraform(*args)).stdout

    workdir.write(before)
    run("apply", "-auto-approve", "-no-color")
    workdir.write(after)
    return run("plan", "-no-color").replace("Terraform", "strata")


def test_an_update_shows_terraforms_nested_diff(workdir: Workdir) -> None:
    text = _plan_after(workdir, BEFORE, AFTER, "strata")
    assert _resources(text) == RESOURCES and _outputs(text) == OUTPUTS, text


@requires_terraform
def test_the_recorded_text_is_what_terraform_prints(workdir: Workdir) -> None:
    text = _plan_after(workdir, BEFORE, AFTER, "terraform")
    assert _resources(text) == RESOURCES and _outputs(text) == OUTPUTS, text


@requires_reference
def test_the_recorded_reference_update_is_reproduced(workdir: Workdir) -> None:
    recorded = (REFERENCE / "plan-human-replace.txt").read_text()
    workdir.write((REFERENCE / "main.tf").read_text())
    workdir.strata("apply", "-auto-approve", "-var", "env=prod", check=True)
    res = workdir.strata("plan", "-no-color", "-var", "env=stage", check=True)

    def section(text: str) -> str:
        start = text.index("  # terraform_data.net")
        return _ID.sub('"ID"', text[start:text.index("Plan: ", start)])

    assert section(res.stdout) == section(recorded), res.stdout


# a replacement, an unchanged "tags" shown whole inside an object, output names lined up
BEFORE_REPLACE = 'resource "terraform_data" "x" {\n  input = "a"\n  triggers_replace = [1, "k"]\n}\nresource "terraform_data" "y" {\n  input = { name = "n1", tags = { a = "b" } }\n  triggers_replace = "t1"\n}\noutput "gone" {\n  value = "x"\n}\noutput "multi" {\n  value = "a\\nb\\n"\n}\n'

AFTER_REPLACE = 'resource "terraform_data" "x" {\n  input = "a"\n  triggers_replace = [2, "k"]\n}\nresource "terraform_data" "y" {\n  input = { name = "n2", tags = { a = "b" } }\n  triggers_replace = "t2"\n}\noutput "multi" {\n  value = "a\\nc\\n"\n}\noutput "new" {\n  value = [1]\n}\n'

REPLACE = '  # terraform_data.x must be replaced\n-/+ resource "terraform_data" "x" {\n      ~ id               = "ID" -> (known after apply)\n      ~ output           = "a" -> (known after apply)\n      ~ triggers_replace = [\n          ~ 1 -> 2,\n            "k",\n        ]\n        # (1 unchanged attribute hidden)\n    }\n\n  # terraform_data.y must be replaced\n-/+ resource "terraform_data" "y" {\n      ~ id               = "ID" -> (known after apply)\n      ~ input            = {\n          ~ name = "n1" -> "n2"\n            tags = {\n                a = "b"\n            }\n        }\n      ~ output           = {\n          - name = "n1"\n          - tags = {\n              - a = "b"\n            }\n        } -> (known after apply)\n      ~ triggers_replace = "t1" -> "t2"\n    }\n\nPlan: 2 to add, 0 to change, 2 to destroy.\n\nChanges to Outputs:\n  - gone  = "x" -> null\n  ~ multi = <<-EOT\n        a\n      - b\n      + c\n    EOT\n  + new   = [\n      + 1,\n    ]\n'


def _from_first_change(text: str) -> str:
    start = text.index("  # terraform_data.x")
    end = text.find("\u2500", start)
    return _ID.sub('"ID"', text[start:end if end >= 0 else None]).rstrip("\n") + "\n"


def test_a_replacement_and_output_changes_show_terraforms_diff(workdir: Workdir) -> None:
    text = _plan_after(workdir, BEFORE_REPLACE, AFTER_REPLACE, "strata")
    assert _from_first_change(text) == REPLACE, text


@requires_terraform
def test_the_recorded_replacement_is_what_terraform_prints(workdir: Workdir) -> None:
    text = _plan_after(workdir, BEFORE_REPLACE, AFTER_REPLACE, "terraform")
    assert _from_first_change(text) == REPLACE, text


# a string holding JSON is shown as jsonencode(...) of its decoded value, diffed inside
JSON_BEFORE = 'resource "terraform_data" "x" {\n  input = jsonencode({a = 1, b = "x"})\n}\nresource "terraform_data" "y" {\n  input = jsonencode([1, 2])\n}\n'

JSON_AFTER = 'resource "terraform_data" "x" {\n  input = jsonencode({a = 2, b = "x"})\n}\nresource "terraform_data" "y" {\n  input = "plain"\n}\n'

JSON_CREATE = '  # terraform_data.x will be created\n  + resource "terraform_data" "x" {\n      + id     = (known after apply)\n      + input  = jsonencode(\n            {\n              + a = 1\n              + b = "x"\n            }\n        )\n      + output = (known after apply)\n    }\n\n  # terraform_data.y will be created\n  + resource "terraform_data" "y" {\n      + id     = (known after apply)\n      + input  = jsonencode(\n            [\n              + 1,\n              + 2,\n            ]\n        )\n      + output = (known after apply)\n    }\n\n'

JSON_UPDATE = '  # terraform_data.x will be updated in-place\n  ~ resource "terraform_data" "x" {\n        id     = "ID"\n      ~ input  = jsonencode(\n          ~ {\n              ~ a = 1 -> 2\n                # (1 unchanged attribute hidden)\n            }\n        )\n      ~ output = jsonencode(\n            {\n              - a = 1\n              - b = "x"\n            }\n        ) -> (known after apply)\n    }\n\n  # terraform_data.y will be updated in-place\n  ~ resource "terraform_data" "y" {\n        id     = "ID"\n      ~ input  = jsonencode(\n            [\n              - 1,\n              - 2,\n            ]\n        ) -> "plain"\n      ~ output = jsonencode(\n            [\n              - 1,\n              - 2,\n            ]\n        ) -> (known after apply)\n    }\n\n'


def _section(text: str) -> str:
    start = text.index("  # terraform_data.x")
    return _ID.sub('"ID"', text[start:text.index("Plan: ", start)])


def test_json_strings_are_shown_as_jsonencode(workdir: Workdir) -> None:
    workdir.write(JSON_BEFORE)
    assert _section(workdir.strata("plan", "-no-color", check=True).stdout) == JSON_CREATE
    assert _section(_plan_after(workdir, JSON_BEFORE, JSON_AFTER, "strata")) == JSON_UPDATE


@requires_terraform
def test_the_recorded_jsonencode_texts_are_terraforms(workdir: Workdir) -> None:
    workdir.write(JSON_BEFORE)
    assert _section(workdir.terraform("plan", "-no-color").stdout) == JSON_CREATE
    assert _section(_plan_after(workdir, JSON_BEFORE, JSON_AFTER, "terraform")) == JSON_UPDATE
