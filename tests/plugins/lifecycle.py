"""One lifecycle, run by either tool on real plugins: create, no-op plan, update in place, destroy.

:func:`drive` runs the steps with ``run`` (``Workdir.strata`` or ``Workdir.terraform``) and
records what the outside world held after each (``observe``: the AWS API's listing, the example
provider's files), the plans' exit codes and their summary lines. Two tools that agree produce
equal :class:`Observed` records, so the tests compare whole records and a difference names the
step where they parted.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from tests.conftest import Result, Workdir

Run = Callable[..., Result]


@dataclass(frozen=True, slots=True)
class Observed:
    created: object
    noop_plan_exit: int
    update_plan: str
    updated: object
    after_update_plan_exit: int
    destroyed: object


def plan_line(res: Result) -> str:
    """The ``Plan: …`` summary line of a human plan or apply output ("" when there is none)."""
    return next((line.strip() for line in res.stdout.splitlines() if line.strip().startswith("Plan:")), "")


def ok(res: Result, what: str) -> Result:
    assert res.returncode == 0, f"{what} exited {res.returncode}\nstdout:\n{res.stdout}\nstderr:\n{res.stderr}"
    return res


def drive(run: Run, wd: Workdir, create: str, update: str, observe: Callable[[], object]) -> Observed:
    """The four steps in ``wd`` with ``run``; ``create`` and ``update`` are whole ``main.tf`` texts."""
    wd.write(create)
    ok(run("apply", "-auto-approve", "-no-color"), "create")
    created = observe()
    noop = run("plan", "-detailed-exitcode", "-no-color")
    assert noop.returncode in (0, 2), noop.stdout + noop.stderr
    wd.write(update)
    planned = run("plan", "-detailed-exitcode", "-no-color")
    assert planned.returncode == 2, f"the update planned nothing (exit {planned.returncode}):\n" \
                                    f"{planned.stdout}\n{planned.stderr}"
    ok(run("apply", "-auto-approve", "-no-color"), "update")
    updated = observe()
    again = run("plan", "-detailed-exitcode", "-no-color")
    assert again.returncode in (0, 2), again.stdout + again.stderr
    ok(run("destroy", "-auto-approve", "-no-color"), "destroy")
    return Observed(created, noop.returncode, plan_line(planned), updated, again.returncode, observe())
