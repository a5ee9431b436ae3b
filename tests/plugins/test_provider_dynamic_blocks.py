"""``dynamic`` blocks in a provider block, with terraform-provider-aws 3.39.0 against moto: the
``endpoints`` and ``default_tags`` blocks made by ``dynamic`` configure the provider as written
blocks would (the queue gets the default tags), and validate checks their content against the
provider's schema as terraform's does."""

from __future__ import annotations

import re
from pathlib import Path

from tests.conftest import Workdir, requires_terraform
from tests.plugins.conftest import init_from_mirror, requires_plugin_client
from tests.plugins.moto import ACCESS_KEY, AWS_REQUIRED, REGION, SECRET_KEY, MotoServer

pytestmark = [requires_terraform, requires_plugin_client]


def config(endpoint: str, extra: str = "", region_name: str = "region") -> str:
    return AWS_REQUIRED + f'''
locals {{
  tag_sets = [{{ team = "core" }}]
}}
provider "aws" {{
  {region_name}                      = "{REGION}"
  access_key                  = "{ACCESS_KEY}"
  secret_key                  = "{SECRET_KEY}"
  skip_credentials_validation = true
  skip_requesting_account_id  = true
  skip_metadata_api_check     = true
  skip_get_ec2_platforms      = true
  skip_region_validation      = true
  dynamic "endpoints" {{
    for_each = ["{endpoint}"]
    iterator = ep
    content {{
      sqs = ep.value
      ssm = ep.value
      sts = ep.value
    }}
  }}
  dynamic "default_tags" {{
    for_each = local.tag_sets
    content {{
      tags = default_tags.value{extra}
    }}
  }}
}}
resource "aws_sqs_queue" "q" {{
  name = "dynamic-q"
  tags = {{ own = "1" }}
}}
'''


def _errors(stderr: str) -> list[tuple[str, str]]:
    return re.findall(r"Error: (.+)\n\n  on main\.tf line (\d+)", stderr)


def test_dynamic_provider_blocks_configure_the_provider(workdir: Workdir, aws_mirror: Path,
                                                       moto: MotoServer) -> None:
    workdir.write(config(moto.endpoint))
    init_from_mirror(workdir, aws_mirror)
    r = workdir.strata("apply", "-auto-approve", "-no-color")
    assert r.returncode == 0, r.stdout + r.stderr
    assert moto.counts().queues == (("dynamic-q", (("own", "1"), ("team", "core"))),)
    plan = workdir.terraform("plan", "-detailed-exitcode", "-no-color")
    assert plan.returncode == 0, plan.stdout + plan.stderr  # terraform reads the same configuration alike


def test_dynamic_provider_block_content_is_validated_as_terraform(workdir: Workdir, aws_mirror: Path) -> None:
    workdir.write(config("http://127.0.0.1:9", extra="\n      nope = 1", region_name="regionx"))
    init_from_mirror(workdir, aws_mirror)
    ours = workdir.strata("validate", "-no-color")
    theirs = workdir.terraform("validate", "-no-color")
    assert ours.returncode == theirs.returncode == 1
    assert _errors(ours.stderr) == _errors(theirs.stderr) == [("Missing required argument", "10"),
                                                             ("Unsupported argument", "11"),
                                                             ("Unsupported argument", "32")]
    assert 'Did you mean "region"?' in ours.stderr
