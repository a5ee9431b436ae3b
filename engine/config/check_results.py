"""Check results: what the last plan or apply found of each *checkable object*, as terraform records
them (the state's ``check_results``: :mod:`engine.state.checks`; a plan's ``checks`` in ``show -json``:
:mod:`engine.render.checks_json`).

A configuration object with checks is of one of four kinds (``kind``, as the state file names
them): a ``check`` block (its scoped data source and each ``assert``), a ``resource`` with
``precondition`` or ``postcondition`` blocks, an ``output`` with ``precondition`` blocks and a
``var`` with ``validation`` blocks. Each has one checkable object per instance (``check.NAME``,
``module.m[0].check.NAME``, ``terraform_data.a["k"]``, ``module.m[1].output.o``, ``var.v``), and
each object the results of its checks. An object's status summarises its results, and a block's
status summarises its objects, as terraform's ``checks.summarizeCheckStatuses``: any error →
error, else any fail → fail, else any unknown → unknown, else pass (no object at all is a pass).
"""

from __future__ import annotations

from collections.abc import Iterable

from engine.frozen import frozen

PASS, FAIL, ERROR, UNKNOWN = "pass", "fail", "error", "unknown"

CHECK, RESOURCE, OUTPUT, VAR = "check", "resource", "output", "var"
"""The kinds of checkable object, as the state file's ``object_kind`` names them."""


def summarize(statuses: Iterable[str]) -> str:
    """The status of a whole made of parts of ``statuses``."""
    seen = set(statuses)
    for s in (ERROR, FAIL, UNKNOWN):
        if s in seen:
            return s
    return PASS


@frozen
class CheckObject:
    """One checkable object: its address (``module.m[0].check.c``, ``terraform_data.a[1]``), its
    status, and the messages of what failed."""

    addr: str
    status: str
    failure_messages: tuple[str, ...] = ()


@frozen
class CheckResult:
    """One configuration object with checks (``config_addr``: ``module.m.check.c``,
    ``module.m.terraform_data.a``: without instance keys), of ``kind``, and its objects;
    ``objects`` is None when how many there are is not known."""

    config_addr: str
    status: str
    objects: tuple[CheckObject, ...] | None
    kind: str = CHECK


__all__ = ["CHECK", "ERROR", "FAIL", "OUTPUT", "PASS", "RESOURCE", "UNKNOWN", "VAR", "CheckObject", "CheckResult", "summarize"]
