"""``removed`` blocks: what the configuration no longer declares and a block says to forget
(``lifecycle { destroy = false }``) leaves the state without being destroyed; with ``destroy =
true`` (or no lifecycle) it is destroyed as any object no longer configured.

A forgotten object is not refreshed (terraform does not read it again), is planned as a change of
action ``forget`` (terraform's UI calls it "remove"), and is dropped from the state by apply
(``Plan.forget``) without any provider call. The plan warns of every object it forgets.
"""

from __future__ import annotations

from engine.addrs import InstanceAddr, resource_addr
from engine.config.model import Module
from engine.config.refactoring import RemovedBlock
from engine.diagnostics import Diagnostic, error


def _blocks(module: Module) -> list[RemovedBlock]:
    return [b for m in module.tree() for b in m.removed]


def _matches(b: RemovedBlock, addr: InstanceAddr) -> bool:
    """Is ``addr`` (an instance in any module instance) something ``b`` removed?"""
    path = addr.resource.module.steps
    n = len(b.module_path)
    if len(path) < n or any(path[i][0] != b.module_path[i] for i in range(n)):
        return False
    rel = path[n:]
    e = b.from_
    if e.resource is None:
        names = tuple(name for name, _k in rel[:len(e.steps)])
        return len(rel) >= len(e.steps) and names == tuple(name for name, _k in e.steps)
    return (len(rel) == len(e.steps) and tuple(name for name, _k in rel) == tuple(name for name, _k in e.steps)
            and (addr.resource.mode, addr.resource.type, addr.resource.name) == e.resource)


def forgotten(module: Module) -> tuple[RemovedBlock, ...]:
    """The blocks that forget (``destroy = false``)."""
    return tuple(b for b in _blocks(module) if not b.destroy)


def forgets(blocks: tuple[RemovedBlock, ...], addr: InstanceAddr) -> bool:
    """Does one of ``blocks`` (:func:`forgotten`) forget the object at ``addr``?"""
    return any(_matches(b, addr) for b in blocks)


def check_removed(module: Module) -> list[Diagnostic]:
    """terraform's error for a ``removed`` block whose resource or module is still declared."""
    out = []
    for m in module.tree():
        for b in m.removed:
            e = b.from_
            where = module.descendant(b.module_path + tuple(n for n, _k in (e.steps if e.resource else e.steps[:-1])))
            if where is None:
                continue
            if e.resource is None:
                call = where.calls.get(e.steps[-1][0])
                if call is not None:
                    out.append(error("Removed module still exists", f"This statement declares that {e} was "
                                     "removed, but it is still declared in configuration.", call.range.header()))
                continue
            rc = where.resources.get(resource_addr(e.resource[1], e.resource[2], e.resource[0]))
            if rc is not None:
                out.append(error("Removed resource still exists", f"This statement declares that {e} was "
                                 "removed, but it is still declared in configuration.", rc.range.header()))
    return out


def forget_warning(addrs: list[InstanceAddr]) -> Diagnostic:
    listed = "".join(f"\n - {a}" for a in sorted(addrs, key=lambda a: a.sort_key()))
    return Diagnostic("warning", "Some objects will no longer be managed by strata",
                   "If you apply this plan, strata will discard its tracking information for the following "
                   f"objects, but it will not delete them:{listed}\n\nAfter applying this plan, strata will no "
                   "longer manage these objects. You will need to import them into strata to manage them again.")
