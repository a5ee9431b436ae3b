"""``plan -generate-config-out`` with terraform-provider-aws 3.39.0 (the real binary) against a
local AWS API (moto), side by side with terraform 1.11: the generated file, byte for byte, for
objects with numbers, maps, optional empty strings and a sensitive required attribute."""

from __future__ import annotations

from pathlib import Path

from tests.cli.test_moved_blocks import plan_text
from tests.conftest import Workdir, requires_terraform
from tests.plugins.conftest import init_from_mirror
from tests.plugins.moto import (
    ACCESS_KEY,
    AWS_REQUIRED,
    REGION,
    SECRET_KEY,
    MotoServer,
    aws_provider_block,
)

pytestmark = requires_terraform


def _remote_objects(moto: MotoServer) -> str:
    """A tagged queue and a SecureString parameter made directly in moto: the queue's URL."""
    import boto3

    kw = {"endpoint_url": moto.endpoint, "region_name": REGION, "aws_access_key_id": ACCESS_KEY,
          "aws_secret_access_key": SECRET_KEY}
    url: str = boto3.client("sqs", **kw).create_queue(
        QueueName="q1", tags={"env": "dev", "long-tag-name": "x"}, Attributes={"DelaySeconds": "5"})["QueueUrl"]
    boto3.client("ssm", **kw).put_parameter(Name="p1", Value="secret", Type="SecureString")
    return url


def _both(tmp_path: Path, aws_mirror: Path, main: str) -> tuple[Workdir, Workdir]:
    out = []
    for name in ("tf", "st"):
        w = Workdir(tmp_path / name)
        w.path.mkdir()
        w.write(main)
        init_from_mirror(w, aws_mirror)
        out.append(w)
    return out[0], out[1]


def _import(to: str, ident: str) -> str:
    return f'import {{\n  to = {to}\n  id = "{ident}"\n}}\n'


def test_a_queue_generates_terraforms_configuration(tmp_path: Path, aws_mirror: Path, moto: MotoServer) -> None:
    url = _remote_objects(moto)
    tf, st = _both(tmp_path, aws_mirror, AWS_REQUIRED + aws_provider_block(moto.endpoint)
                   + _import("aws_sqs_queue.q", url))
    a = tf.terraform("plan", "-no-color", "-input=false", "-generate-config-out=gen.tf")
    b = st.strata("plan", "-no-color", "-input=false", "-generate-config-out=gen.tf")
    assert a.returncode == b.returncode == 0, b.stdout + b.stderr
    ours = (st.path / "gen.tf").read_text()
    assert ours == (tf.path / "gen.tf").read_text()
    assert "  tags = {\n    env           = \"dev\"\n    long-tag-name = \"x\"\n  }\n" in ours
    assert "  policy                            = null\n" in ours  # the provider's "" taken for null
    assert "Plan: 1 to import, 0 to add, 0 to change, 0 to destroy." in plan_text(b)


def test_a_sensitive_required_attribute_is_written_null_and_the_plan_fails_as_terraforms(
        tmp_path: Path, aws_mirror: Path, moto: MotoServer) -> None:
    _remote_objects(moto)
    tf, st = _both(tmp_path, aws_mirror, AWS_REQUIRED + aws_provider_block(moto.endpoint)
                   + _import("aws_ssm_parameter.p", "p1"))
    a = tf.terraform("plan", "-no-color", "-input=false", "-generate-config-out=gen.tf")
    b = st.strata("plan", "-no-color", "-input=false", "-generate-config-out=gen.tf")
    assert a.returncode == b.returncode == 1
    ours = (st.path / "gen.tf").read_text()
    assert ours == (tf.path / "gen.tf").read_text()
    assert "  value           = null # sensitive\n" in ours
    assert "Planning failed" in b.stdout + b.stderr
    assert 'The argument "value" is required, but no definition was found.' in plan_text(b)

