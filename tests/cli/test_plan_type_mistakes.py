"""An unknown value has a type in terraform, and its validate walk, which ``plan`` runs first,
refuses what that type cannot do: iterating an unknown string, an attribute of it, a list where a
string is wanted. ``strata plan`` refuses the same, before planning anything. The diagnostics
(summary and place) are terraform 1.11's, recorded here and compared with the binary when present."""

from __future__ import annotations

import re

from tests.conftest import Workdir, requires_terraform

MISTAKES = [
    "[for c in tostring(local.u) : c]",
    "tostring(local.u).x",
    "tostring(local.u)[0]",
    'upper(split(",", local.u))',
    "length(tonumber(local.u))",
    'split(",", local.u).x',
    '-split(",", local.u)',
    "keys(tostring(local.u))",
    "tostring(local.u)[*].x",
]
FINE = ['"${split(",", local.u)}" != null', "tostring(local.u) ? 1 : 2", '[for x in split(",", local.u) : x.y]']


_PRELUDE = 'resource "terraform_data" "u" {\n  input = "x"\n}\nlocals {\n  u = terraform_data.u.output\n}\n'


def _config() -> str:
    text = _PRELUDE
    for i, e in enumerate(MISTAKES + FINE):
        text += f'output "o{i}" {{\n  value = {e}\n}}\n'
    return text


# terraform 1.11.4's plan of _config(): (summary, output) of each error
RECORDED = [
    ("Invalid function argument", "o3"),
    ("Invalid function argument", "o7"),
    ("Invalid index", "o2"),
    ("Invalid operand", "o6"),
    ("Iteration over non-iterable value", "o0"),
    ("Unsupported attribute", "o1"),
    ("Unsupported attribute", "o5"),
    ("Unsupported attribute", "o8"),
    ("Error in function call", "o4"),
]


def _errors(text: str) -> list[tuple[str, str]]:
    found = re.findall(r"Error: (.+?)\n(?:.*\n)*?.*?on main\.tf line \d+, in output \"(o\d+)\"", text)
    return sorted(found, key=lambda f: (f[0] == "Error in function call", f))


def test_plan_refuses_what_an_unknowns_type_cannot_do(workdir: Workdir) -> None:
    workdir.write(_config())
    res = workdir.strata("plan", "-no-color")
    assert res.returncode == 1, res.stdout + res.stderr
    assert "Plan:" not in res.stdout
    assert _errors(res.stdout + res.stderr) == sorted(RECORDED, key=lambda f: (f[0] == "Error in function call", f))


@requires_terraform
def test_the_recorded_errors_are_terraforms(workdir: Workdir) -> None:
    workdir.write(_config())
    res = workdir.terraform("plan", "-no-color", "-input=false")
    assert res.returncode == 1
    assert _errors(res.stdout + res.stderr) == sorted(RECORDED, key=lambda f: (f[0] == "Error in function call", f))


def test_a_plan_of_what_its_types_allow_is_planned(workdir: Workdir) -> None:
    workdir.write(_PRELUDE + "".join(f'output "o{i}" {{\n  value = {e}\n}}\n' for i, e in enumerate(FINE)))
    res = workdir.strata("plan", "-no-color")
    assert res.returncode == 0, res.stdout + res.stderr
    assert "Plan: 1 to add" in res.stdout

