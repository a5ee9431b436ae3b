"""The human plan's text for nested values: each nested entry carries the change's marker (+ in
a create, - in a destroy), as terraform 1.11.4 prints it (texts recorded from it; compared live
when terraform is on PATH)."""

from __future__ import annotations

import re

from tests.conftest import Workdir, requires_terraform

CONFIG = '''\
resource "terraform_data" "z" {
  input = [{ k = "v", longer = "a\\nb" }, ["n"], []]
}
'''

CREATE_INPUT = '''\
      + input  = [
          + {
              + k      = "v"
              + longer = <<-EOT
                    a
                    b
                EOT
            },
          + [
              + "n",
            ],
          + [],
        ]
'''

DESTROY_ID = re.compile(r'      - id     = "[^"]+" -> null\n')


def test_a_create_marks_every_nested_entry(workdir: Workdir) -> None:
    workdir.write(CONFIG)
    res = workdir.strata("plan", check=True)
    assert CREATE_INPUT in res.stdout, res.stdout


def test_a_destroy_marks_them_with_minus_and_ends_in_null(workdir: Workdir) -> None:
    workdir.write(CONFIG)
    workdir.strata("apply", "-auto-approve", check=True)
    res = workdir.strata("plan", "-destroy", check=True)
    expected = CREATE_INPUT.replace("+ ", "- ").rstrip("\n") + " -> null\n"
    assert expected in res.stdout and DESTROY_ID.search(res.stdout), res.stdout


@requires_terraform
def test_the_nested_text_is_terraforms(workdir: Workdir) -> None:
    workdir.write(CONFIG)
    tf = workdir.terraform("plan", "-no-color", "-input=false")
    assert CREATE_INPUT in tf.stdout, tf.stdout
