"""Check results: what the last plan or apply found of each ``check`` block, as terraform records
them (the state's ``check_results``: :mod:`engine.state.checks`; a plan's ``checks`` in ``show -json``:
:mod:`engine.render.checks_json`).

A check block is one *checkable object* per instance of its module (``check.NAME``,
``module.m[0].check.NAME``); each object has the results of its checks: the scoped data source
(did it read) and each ``assert``. An object's status summarises its results, and a block's
status summarises its objects, as terraform's ``checks.summarizeCheckStatuses``: any error →
error, else any fail → fail, else any unknown → unknown, else pass (no object at all is a pass).
"""

from __future__ import annotations

from collections.abc import Iterable

from engine.frozen import frozen

PASS, FAIL, ERROR, UNKNOWN = "pass", "fail", "error", "unknown"


def summarize(statuses: Iterable[str]) -> str:
    """The status of a whole made of parts of ``statuses``."""
    seen = set(statuses)
    for s in (ERROR, FAIL, UNKNOWN):
        if s in seen:
            return s
    return PASS


@frozen
class CheckObject:
    """One instance of a check block: its address (``module.m.check.c``), its status, and the
    messages of what failed (in the order of the block's checks)."""

    addr: str
    status: str
    failure_messages: tuple[str, ...] = ()


@frozen
class CheckResult:
    """One check block of the configuration (``config_addr``: ``module.m.check.c``, without
    instance keys) and its objects; ``objects`` is None when how many there are is not known."""

    config_addr: str
    status: str
    objects: tuple[CheckObject, ...] | None
    kind: str = "check"

    @property
    def name(self) -> str:
        return self.config_addr.rsplit(".", 1)[1]

    @property
    def module(self) -> str:
        """The module part of the address ("" in the root module)."""
        head = self.config_addr.rsplit(".", 2)[0]
        return "" if head == "check" else head


__all__ = ["ERROR", "FAIL", "PASS", "UNKNOWN", "CheckObject", "CheckResult", "summarize"]
