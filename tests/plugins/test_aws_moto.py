"""terraform-provider-aws 3.39.0 (protocol 5, the real binary) against a local AWS API (moto).

Queues and parameters go through create, a no-op plan, an update in place and destroy, first
with terraform 1.11 (the oracle: this pins what the provider and moto do), then with strata on
the same files; what the AWS API lists after each step must be the same for both, and each
tool must plan no changes on the state the other wrote.
"""

from __future__ import annotations

from pathlib import Path

from tests.conftest import Workdir, requires_terraform
from tests.plugins.conftest import init_from_mirror, requires_plugin_client
from tests.plugins.lifecycle import Observed, drive, ok
from tests.plugins.moto import Counts, MotoServer, aws_config

pytestmark = requires_terraform

N = 2


def expected(value: str) -> Counts:
    params = tuple((f"/strata/p{i}", f"{value}-{i}") for i in range(N))
    queues = tuple((f"strata-q{i}", (("parameter", f"/strata/p{i}"), ("stage", value))) for i in range(N))
    return Counts(queues, params)


EMPTY = Counts((), ())


def lifecycle(tool: str, wd: Workdir, mirror: Path, moto: MotoServer) -> Observed:
    create = aws_config(moto.endpoint, N, "one")
    wd.write(create)
    init_from_mirror(wd, mirror)
    run = wd.strata if tool == "strata" else wd.terraform
    return drive(run, wd, create, aws_config(moto.endpoint, N, "two"), moto.counts)


def test_terraform_creates_updates_and_destroys_queues_and_parameters(
        workdir: Workdir, aws_mirror: Path, moto: MotoServer) -> None:
    got = lifecycle("terraform", workdir, aws_mirror, moto)
    assert got == Observed(created=expected("one"), noop_plan_exit=0,
                           update_plan=f"Plan: 0 to add, {2 * N} to change, 0 to destroy.",
                           updated=expected("two"), after_update_plan_exit=0, destroyed=EMPTY)


@requires_plugin_client
def test_strata_observes_the_same_aws_objects_as_terraform(
        tmp_path: Path, aws_mirror: Path, moto: MotoServer) -> None:
    (tmp_path / "tf").mkdir()
    (tmp_path / "strata").mkdir()
    by_terraform = lifecycle("terraform", Workdir(tmp_path / "tf"), aws_mirror, moto)
    by_strata = lifecycle("strata", Workdir(tmp_path / "strata"), aws_mirror, moto)
    assert by_strata == by_terraform


@requires_plugin_client
def test_terraform_plans_no_changes_on_the_aws_state_strata_wrote(
        workdir: Workdir, aws_mirror: Path, moto: MotoServer) -> None:
    workdir.write(aws_config(moto.endpoint, N))
    init_from_mirror(workdir, aws_mirror)
    ok(workdir.strata("apply", "-auto-approve", "-no-color"), "strata apply")
    assert moto.counts() == expected("one")
    plan = workdir.terraform("plan", "-detailed-exitcode", "-no-color")
    assert plan.returncode == 0, plan.stdout + plan.stderr
    ok(workdir.strata("destroy", "-auto-approve", "-no-color"), "strata destroy")
    assert moto.counts() == EMPTY


@requires_plugin_client
def test_strata_plans_no_changes_on_the_aws_state_terraform_wrote(
        workdir: Workdir, aws_mirror: Path, moto: MotoServer) -> None:
    workdir.write(aws_config(moto.endpoint, N))
    init_from_mirror(workdir, aws_mirror)
    ok(workdir.terraform("apply", "-auto-approve", "-no-color"), "terraform apply")
    plan = workdir.strata("plan", "-detailed-exitcode", "-no-color")
    assert plan.returncode == 0, plan.stdout + plan.stderr
    ok(workdir.terraform("destroy", "-auto-approve", "-no-color"), "terraform destroy")
    assert moto.counts() == EMPTY
