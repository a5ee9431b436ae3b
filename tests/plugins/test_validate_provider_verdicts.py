"""``validate`` asks each resource's provider about its configuration, as terraform's validate
walk does (ValidateResourceConfig), with input variables and instance keys unknown: the real
terraform-provider-aws 3.39.0's own checks, compared with terraform 1.11's validate on the same
files. No AWS API is called."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import Workdir, requires_terraform
from tests.plugins.conftest import init_with
from tests.plugins.moto import AWS_REQUIRED

MAIN = AWS_REQUIRED + '''
provider "aws" {
  region = "us-east-1"
}
variable "days" { type = number }
resource "aws_security_group_rule" "r" {
  type              = "bogus"
  from_port         = 0
  to_port           = 0
  protocol          = "-1"
  security_group_id = "sg-1"
}
resource "aws_cloudwatch_log_group" "g" {
  count             = 2
  name              = "g${count.index}"
  retention_in_days = 4
}
resource "aws_cloudwatch_log_group" "h" {
  name              = "h"
  retention_in_days = var.days
}
'''


def _validate(tool: str, wd: Workdir, mirror: Path) -> tuple[int, str]:
    init_with(tool, wd, mirror)
    res = wd.strata("validate", "-no-color") if tool == "strata" else wd.terraform("validate", "-no-color")
    return res.returncode, res.stdout + res.stderr


def test_the_providers_own_checks_fail_validate(workdir: Workdir, aws_mirror: Path) -> None:
    workdir.write(MAIN)
    code, text = _validate("strata", workdir, aws_mirror)
    assert code == 1
    assert "Error: expected type to be one of [ingress egress], got bogus" in text
    assert "with aws_cloudwatch_log_group.g,\n  on main.tf line 21" in text
    # an unknown input variable is not judged
    assert "aws_cloudwatch_log_group.h" not in text


def test_a_valid_configuration_still_passes(workdir: Workdir, aws_mirror: Path) -> None:
    workdir.write(MAIN.replace('"bogus"', '"ingress"').replace("= 4\n", "= 5\n"))
    code, text = _validate("strata", workdir, aws_mirror)
    assert code == 0 and "Success! The configuration is valid." in text


@requires_terraform
def test_validate_matches_terraforms(workdir: Workdir, aws_mirror: Path,
                                     tmp_path_factory: pytest.TempPathFactory) -> None:
    tf = Workdir(tmp_path_factory.mktemp("terraform"))
    for wd in (workdir, tf):
        wd.write(MAIN)
    ours = _validate("strata", workdir, aws_mirror)
    theirs = _validate("terraform", tf, aws_mirror)
    assert ours[0] == theirs[0] == 1
    assert ours[1].strip() == theirs[1][theirs[1].index("Error: "):].strip()
