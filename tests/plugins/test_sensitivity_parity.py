"""Where strata's state marks sensitivity more coarsely than terraform's: a known gap.

Found with the aws plugin: ``aws_ssm_parameter.value`` is sensitive in the provider's schema, and
a queue's ``tags = { value = aws_ssm_parameter.p[count.index].value, ... }`` makes strata record
the whole ``tags`` as sensitive (``sensitive_attributes: [[tags]]``) where terraform records only
``tags["value"]``; terraform then plans an update on strata's state ("this attribute value will
no longer be marked as sensitive after applying this change"). engine/lang/sensitivity.py says
so of itself: its unit is a resource's top-level attribute. Nothing here is about plugins — the
built-in ``terraform_data`` shows it — so it is pinned with the smallest case, as a strict
expected failure that starts failing (and must then lose its mark) once the engine keeps marks
per element.

(The same aws configuration also showed a bug, fixed with it: a reference through a computed
instance key, ``aws_ssm_parameter.p[count.index].name``, was taken as the whole resource, so a
non-sensitive attribute of it counted as sensitive; ``tests/engine/test_sensitivity.py``.)
"""

from __future__ import annotations

import pytest

from tests.conftest import Workdir, requires_terraform

CONFIG = '''
variable "s" {
  default   = "secret"
  sensitive = true
}

resource "terraform_data" "x" {
  input = { a = var.s, b = "x" }
}
'''


@requires_terraform
@pytest.mark.xfail(strict=True, reason="the engine marks a whole object/map sensitive when one element is")
def test_a_sensitive_element_marks_only_that_element_in_the_state(workdir: Workdir) -> None:
    workdir.write(CONFIG)
    res = workdir.strata("apply", "-auto-approve", "-no-color")
    assert res.returncode == 0, res.stderr
    (inst,) = workdir.state()["resources"][0]["instances"]
    assert inst["sensitive_attributes"] == [[{"type": "get_attr", "value": "input"},
                                             {"type": "get_attr", "value": "a"}]]
    plan = workdir.terraform("plan", "-detailed-exitcode", "-no-color")
    assert plan.returncode == 0, plan.stdout
