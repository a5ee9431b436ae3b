"""Diagnostics as terraform prints them: detail paragraphs wrapped to its width (78 columns, less
the frame), and with -no-color, no frame at all; compared live with terraform where it is here."""

from __future__ import annotations

import re

from engine.diagnostics import Diagnostic, SourceRange
from engine.render.text import render_diagnostic
from tests.conftest import Workdir, requires_terraform

LONG = """\
resource "terraform_data" "a" {
  input = terraform_data.a_resource_with_quite_a_long_name_that_is_missing.output
}

output "o" {
  value = var.an_undeclared_variable_whose_name_is_long_enough_to_wrap_it
}

output "p" {
  value = local.a_local_value_with_a_name_long_enough_to_need_wrapping_too
}
"""


def test_a_long_detail_is_wrapped_inside_the_frame() -> None:
    d = Diagnostic("error", "Something failed", "word " * 30 + "end.")
    lines = render_diagnostic(d).split("\n")
    assert lines[0] == "╷" and lines[-1] == "╵"
    detail = lines[3:-1]
    assert all(len(line) <= 2 + 75 for line in detail), detail
    assert len(detail[0]) == 2 + 74  # 15 words of 4 letters and their spaces: the 16th would pass 75
    assert " ".join(line[2:] for line in detail) == ("word " * 30 + "end.").strip()


def test_no_color_prints_no_frame_and_wraps_at_77() -> None:
    d = Diagnostic("warning", "Careful", "word " * 30 + "end.")
    text = render_diagnostic(d, plain=True)
    assert text.startswith("\nWarning: Careful\n\n")
    assert "│" not in text and "╷" not in text
    body = text.split("\n")[3:]
    assert all(len(line) <= 77 for line in body) and len(body[0]) == 74


def test_an_indented_line_of_the_detail_is_not_wrapped() -> None:
    code = "    " + "x" * 100
    d = Diagnostic("error", "S", "Some text.\n" + code, SourceRange("main.tf", 1))
    assert code in render_diagnostic(d, plain=True).split("\n")


def test_no_color_diagnostics_from_the_command(workdir: Workdir) -> None:
    workdir.write(LONG)
    res = workdir.strata("plan", "-no-color")
    assert res.returncode == 1
    assert "╷" not in res.stderr
    assert "\nError: Reference to undeclared resource\n\n  on main.tf line 2, in resource" in res.stderr
    # 77 columns without the frame: "in" still fits where, framed (75), it goes to the next line
    assert ('A managed resource "terraform_data"\n"a_resource_with_quite_a_long_name_that_is_missing" '
            "has not been declared in\nthe root module.") in res.stderr


@requires_terraform
def test_wrapped_diagnostics_equal_terraform_s(workdir: Workdir) -> None:
    workdir.write(LONG)
    for flags in (["-no-color"], []):
        tf = workdir.terraform("plan", "-input=false", *flags)
        ours = workdir.strata("plan", "-input=false", *flags)
        assert tf.returncode == ours.returncode == 1
        # terraform colours its frame (strata never colours) and, coloured, ends a blank framed
        # line with a space after the colour codes
        want = re.sub(r"\x1b\[[0-9;]*m", "", tf.stderr).replace("│ \n", "│\n")
        assert ours.stderr == want, f"{flags}\n--- terraform\n{want}\n--- strata\n{ours.stderr}"


SELF = """\
resource "terraform_data" "a" {
  input = terraform_data.a.id
}
"""

SELF_COUNTED = """\
resource "terraform_data" "a" {
  count = 2
  input = terraform_data.a[0].id
}

resource "terraform_data" "b" {
  count = length(terraform_data.b)
}
"""

PARTIAL = """\
resource "terraform_data" "x" {
  input = "a"
}

resource "terraform_data" "y" {
  input = terraform_data.y.output
}
"""


def test_a_resource_that_refers_to_itself_is_an_error_not_a_traceback(workdir: Workdir) -> None:
    workdir.write(SELF)
    res = workdir.strata("plan", "-no-color")
    assert res.returncode == 1 and "Traceback" not in res.stderr, res.stderr
    assert res.stdout == "\nPlanning failed. strata encountered an error while generating this plan.\n\n"
    assert res.stderr == ('\nError: Self-referential block\n\n  on main.tf line 2, in resource "terraform_data" '
                          '"a":\n   2:   input = terraform_data.a.id\n\nConfiguration for terraform_data.a may '
                          "not refer to itself.\n")
    applied = workdir.strata("apply", "-auto-approve", "-no-color")
    assert applied.returncode == 1 and applied.stdout == "" and "Self-referential block" in applied.stderr


def test_each_instance_that_refers_to_its_own_resource_is_named(workdir: Workdir) -> None:
    workdir.write(SELF_COUNTED)
    res = workdir.strata("plan", "-no-color")
    assert res.returncode == 1 and "Traceback" not in res.stderr, res.stderr
    for addr in ("terraform_data.a[0]", "terraform_data.b"):
        assert f"Configuration for {addr} may not refer to itself." in res.stderr, res.stderr
    # a[1] refers to a[0], another instance: not to itself (as terraform sees it)
    assert "terraform_data.a[1] may not" not in res.stderr, res.stderr


def test_changes_planned_before_an_error_are_shown_as_terraform_shows_them(workdir: Workdir) -> None:
    workdir.write(PARTIAL)
    res = workdir.strata("plan", "-no-color")
    assert res.returncode == 1
    assert "strata planned the following actions, but then encountered a problem:" in res.stdout
    assert "# terraform_data.x will be created" in res.stdout and "terraform_data.y will" not in res.stdout
    assert "Plan: 1 to add, 0 to change, 0 to destroy." in res.stdout
    assert "Planning failed" not in res.stdout
    assert res.stderr.startswith("\nError: Self-referential block\n")


@requires_terraform
def test_self_references_and_partial_plans_equal_terraform_s(workdir: Workdir) -> None:
    for text in (SELF, PARTIAL):
        workdir.write(text)
        for cmd in ("plan", "apply"):
            tf = workdir.terraform(cmd, "-no-color", "-input=false", *(["-auto-approve"] if cmd == "apply" else []))
            ours = workdir.strata(cmd, "-no-color", "-input=false", *(["-auto-approve"] if cmd == "apply" else []))
            assert tf.returncode == ours.returncode == 1
            assert ours.stdout == tf.stdout.replace("Terraform", "strata"), cmd
            # terraform reports a self-reference twice (validation, then the plan walk)
            want = tf.stderr.split("\nError:")
            assert ours.stderr == "\nError:".join(want[:2]) + ("\n" if not want[1].endswith("\n") else ""), \
                f"{cmd}\n--- terraform\n{tf.stderr}\n--- strata\n{ours.stderr}"
