"""A provisioner's events, in terraform's UI shapes (``views/json/hook.go``): ``provision_start``
as it begins, ``provision_progress`` for each line it prints, then ``provision_complete`` or
``provision_errored``.

The ``@message`` is terraform's JSON one; its human view words a line of output differently
(``ADDR (local-exec): LINE``, not ``ADDR: (local-exec): LINE``): :func:`human_text` gives that.
"""

from __future__ import annotations

from typing import Any

from engine.addrs import InstanceAddr
from engine.events.stream import Event, resource_json

TYPES = frozenset({"provision_start", "provision_progress", "provision_complete", "provision_errored"})
BLANK = "provision_blank_line"
"""A blank line of output: terraform's human view prints it (empty), its JSON view does not
(:data:`engine.events.stream.HUMAN_ONLY`)."""


def _hook(addr: InstanceAddr, provisioner: str) -> dict[str, Any]:
    return {"resource": resource_json(addr), "provisioner": provisioner}


def provision_start(addr: InstanceAddr, provisioner: str) -> Event:
    return Event("provision_start", f"{addr}: Provisioning with '{provisioner}'...",
                 {"hook": _hook(addr, provisioner)})


def provision_progress(addr: InstanceAddr, provisioner: str, output: str) -> Event:
    """One line the provisioner printed (never empty: terraform's JSON view leaves those out)."""
    hook = _hook(addr, provisioner)
    hook["output"] = output
    return Event("provision_progress", f"{addr}: ({provisioner}): {output}", {"hook": hook})


def provision_blank_line(addr: InstanceAddr, provisioner: str) -> Event:
    return Event(BLANK, "", {"hook": _hook(addr, provisioner)})


def provision_complete(addr: InstanceAddr, provisioner: str) -> Event:
    return Event("provision_complete", f"{addr}: ({provisioner}) Provisioning complete",
                 {"hook": _hook(addr, provisioner)})


def provision_errored(addr: InstanceAddr, provisioner: str) -> Event:
    """The provisioner failed; the diagnostic that says why comes with the apply's others. At
    terraform's level, info."""
    return Event("provision_errored", f"{addr}: ({provisioner}) Provisioning errored",
                 {"hook": _hook(addr, provisioner)})


def human_text(event: Event) -> str | None:
    """The line terraform's human view prints for a provisioner's event; None for the ones it does
    not print (complete, errored)."""
    if event.type == "provision_start" or event.type == BLANK:
        return str(event.message)
    if event.type == "provision_progress":
        hook = event.payload["hook"]
        return f"{hook['resource']['addr']} ({hook['provisioner']}): {hook['output']!s}"
    return None
