"""A local AWS API (moto) for the real aws provider, and a count of what it holds.

:class:`MotoServer` runs ``python -m moto.server`` on a free loopback port (the kernel picks it:
``-p 0``; the server prints the address it bound) in its own process, so every server starts
empty and stopping it forgets everything. :func:`aws_provider_block` is the ``provider "aws"``
block that points terraform-provider-aws 3.39.0 at it: no credentials check, no account-id or
EC2-platform lookups (each of those retries for ~25 s against an endpoint moto is not given),
fake keys, one region.

Used by the tests (``tests/plugins/conftest.py``'s ``moto`` fixture) and by the ``plugins``
benchmark; nothing here imports pytest.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
from dataclasses import dataclass
from typing import IO, Any

REGION = "us-east-1"
ACCESS_KEY = "testing"  # moto accepts any key; these never leave the loopback interface
SECRET_KEY = "testing"
_RUNNING_ON = re.compile(r"Running on (http://127\.0\.0\.1:(\d+))")


class MotoError(RuntimeError):
    """The moto server could not be started (moto is missing, or it exited first)."""


def moto_available() -> str | None:
    """Why a moto server cannot run here, or None when it can."""
    try:
        import boto3  # noqa: F401
        import moto.server  # noqa: F401
    except ImportError as exc:
        return f"moto[server] is not installed ({exc})"
    return None


@dataclass(frozen=True, slots=True)
class Counts:
    """What the AWS API lists: SQS queues (name, sorted tags) and SSM parameters (name, value)."""

    queues: tuple[tuple[str, tuple[tuple[str, str], ...]], ...]
    parameters: tuple[tuple[str, str], ...]

    @property
    def summary(self) -> tuple[int, int]:
        return len(self.queues), len(self.parameters)


class MotoServer:
    """One moto server process on 127.0.0.1. States: new -> running (:meth:`start`) -> stopped.

    Its output is drained by a thread (werkzeug logs every request to stderr; an undrained pipe
    would block the server once full).
    """

    def __init__(self) -> None:
        self._proc: subprocess.Popen[str] | None = None
        self._drain: threading.Thread | None = None
        self.endpoint = ""
        self.port = 0
        self.log: list[str] = []

    def start(self) -> MotoServer:
        if self._proc is not None:
            raise MotoError("this moto server was started already")
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self._proc = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", "0"],
                                      stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                      stderr=subprocess.STDOUT, text=True, env=env)
        out = self._proc.stdout
        assert out is not None
        for line in out:  # blocks until the server says where it listens, or exits
            self.log.append(line)
            m = _RUNNING_ON.search(line)
            if m:
                self.endpoint, self.port = m.group(1), int(m.group(2))
                break
        else:
            code = self._proc.wait()
            raise MotoError(f"moto.server exited ({code}) before listening:\n{''.join(self.log)[-2000:]}")
        self._drain = threading.Thread(target=self._read_rest, args=(out,), daemon=True)
        self._drain.start()
        return self

    def _read_rest(self, out: IO[str]) -> None:
        for line in out:
            if len(self.log) < 10_000:
                self.log.append(line)

    def stop(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if self._drain is not None:
            self._drain.join(timeout=10)

    def __enter__(self) -> MotoServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ------------------------------------------------------------------ the AWS API

    def client(self, service: str) -> Any:
        import boto3

        return boto3.client(service, endpoint_url=self.endpoint, region_name=REGION,
                            aws_access_key_id=ACCESS_KEY, aws_secret_access_key=SECRET_KEY)

    def counts(self, *, with_tags: bool = True) -> Counts:
        """Every SQS queue (with its tags unless not ``with_tags``) and SSM parameter the API lists, sorted."""
        sqs = self.client("sqs")
        queues = []
        for url in sqs.list_queues().get("QueueUrls", []):
            tags = sqs.list_queue_tags(QueueUrl=url).get("Tags", {}) if with_tags else {}
            queues.append((url.rsplit("/", 1)[-1], tuple(sorted(tags.items()))))
        ssm = self.client("ssm")
        names: list[str] = []
        for page in ssm.get_paginator("describe_parameters").paginate():
            names.extend(p["Name"] for p in page["Parameters"])
        values: list[tuple[str, str]] = []
        for i in range(0, len(names), 10):  # get_parameters takes at most 10 names
            got = ssm.get_parameters(Names=names[i:i + 10])["Parameters"]
            values.extend((p["Name"], p["Value"]) for p in got)
        return Counts(tuple(sorted(queues)), tuple(sorted(values)))


def aws_provider_block(endpoint: str) -> str:
    """``provider "aws"`` for terraform-provider-aws 3.39.0 against the moto server at ``endpoint``."""
    return f'''provider "aws" {{
  region                      = "{REGION}"
  access_key                  = "{ACCESS_KEY}"
  secret_key                  = "{SECRET_KEY}"
  skip_credentials_validation = true
  skip_requesting_account_id  = true
  skip_metadata_api_check     = true
  skip_get_ec2_platforms      = true
  skip_region_validation      = true
  endpoints {{
    sqs = "{endpoint}"
    ssm = "{endpoint}"
    sts = "{endpoint}"
  }}
}}
'''


AWS_REQUIRED = '''terraform {
  required_providers {
    aws = { source = "hashicorp/aws", version = "3.39.0" }
  }
}
'''


def queues_and_parameters(n: int, value: str = "one", prefix: str = "strata") -> str:
    """``n`` SSM parameters and ``n`` SQS queues, each queue's tags referring to its parameter.

    A tag names the parameter, not its ``value``: the provider marks ``value`` sensitive, and a
    map holding it is marked sensitive whole in strata's state where terraform marks the one
    element (a known gap: ``tests/plugins/test_sensitivity_parity.py``). A second tag carries
    ``value`` so that an update changes every queue in place as well as every parameter."""
    return f'''resource "aws_ssm_parameter" "p" {{
  count = {n}
  name  = "/{prefix}/p${{count.index}}"
  type  = "String"
  value = "{value}-${{count.index}}"
}}

resource "aws_sqs_queue" "q" {{
  count = {n}
  name  = "{prefix}-q${{count.index}}"
  tags = {{
    parameter = aws_ssm_parameter.p[count.index].name
    stage     = "{value}"
  }}
}}
'''


def aws_config(endpoint: str, n: int, value: str = "one") -> str:
    """A whole ``main.tf``: the aws requirement, the provider at ``endpoint``, queues and parameters."""
    return AWS_REQUIRED + "\n" + aws_provider_block(endpoint) + "\n" + queues_and_parameters(n, value)
