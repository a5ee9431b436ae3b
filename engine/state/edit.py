"""Editing the state by hand: ``state rm`` and ``state mv`` forget objects or record them under
another address, ``taint`` and ``untaint`` mark an object for replacement or take the mark off;
none touches a real object. Pure functions on a :class:`State`; the command line locks, backs up
and writes. Messages and errors are terraform's.
"""

from __future__ import annotations

from dataclasses import replace

from engine.addrs import (
    InstanceAddr,
    ModulePath,
    module_contains,
    parse_instance_addr,
    parse_target,
    resource_addr,
    split_module_path,
)
from engine.diagnostics import DiagnosticsError, error
from engine.state.model import ResourceState, State


def _parse(text: str, what: str) -> tuple[InstanceAddr, bool]:
    """The address and whether it names one instance (``[KEY]``) rather than a whole resource."""
    try:
        addr = parse_instance_addr(text)
        _module, rest = split_module_path(text.strip())  # a module's key is not the instance's
    except ValueError as exc:
        raise DiagnosticsError([error(f"Invalid {what} address", f"{exc}: expected TYPE.NAME, TYPE.NAME[INDEX] "
                                      'or TYPE.NAME["KEY"], after a module path if any '
                                      '(module.NAME[KEY].TYPE.NAME).')]) from None
    return addr, "[" in rest


def _module_only(text: str) -> ModulePath | None:
    """The module ``text`` names when it names a whole module (``module.a``, ``module.a[0]``)."""
    try:
        got = parse_target(text)
    except ValueError:
        return None
    return got if isinstance(got, ModulePath) else None


def remove(state: State, texts: list[str]) -> list[InstanceAddr]:
    """Forget every instance the addresses name (all of a resource's for ``TYPE.NAME``; every one
    in a module and the modules under it for ``module.NAME``), deposed objects included. As
    terraform's, an address that matches nothing is an error only when none of them matches
    anything."""
    found: dict[InstanceAddr, None] = {}  # an ordered set: one address may be named twice
    for text in texts:
        module = _module_only(text)
        if module is not None:
            for r, held in state.resources.items():
                if module_contains(module, r.module):
                    found.update(dict.fromkeys(InstanceAddr(r, k) for k in held.instances))
            continue
        addr, single = _parse(text, "target")
        rs = state.resources.get(addr.resource)
        keys = [] if rs is None else [addr.key] if single else list(rs.instances)
        found.update(dict.fromkeys(InstanceAddr(addr.resource, k) for k in keys
                                   if rs is not None and k in rs.instances))
    if not found:
        raise DiagnosticsError([error(
            "Invalid target address",
            'No matching objects found. To view the available instances, use "strata state list". '
            "Please modify the address to reference a specific instance.")])
    for ia in found:
        rs = state.resources[ia.resource]
        del rs.instances[ia.key]
        if not rs.instances:
            del state.resources[ia.resource]
    return sorted(found, key=lambda a: a.sort_key())


def move(state: State, src_text: str, dst_text: str) -> None:
    """Record what ``src_text`` names under ``dst_text``: a whole resource under another name, or
    one instance under another address (another key, or another resource of the same type), or
    a whole module instance, with the modules under it, under another module address."""
    src_module, dst_module = _module_only(src_text), _module_only(dst_text)
    if src_module is not None or dst_module is not None:
        _move_module(state, src_text, dst_text, src_module, dst_module)
        return
    src, src_single = _parse(src_text, "source")
    dst, dst_single = _parse(dst_text, "target")
    if (src.resource.type, src.resource.mode) != (dst.resource.type, dst.resource.mode):
        raise DiagnosticsError([error("Invalid state move request",
                                      f"Cannot move {src_text} to {dst_text}: resource types don't match.")])
    rs = state.resources.get(src.resource)
    if rs is None or (src_single and src.key not in rs.instances):
        raise DiagnosticsError([error("Invalid source address",
                                      f"Cannot move {src_text}: does not match anything in the current state.")])
    if not src_single and dst_single:
        if list(rs.instances) != [None]:
            raise DiagnosticsError([error(
                "Invalid target address",
                f"Cannot move {src_text} to {dst_text}: the source is a whole resource (not a resource "
                "instance) so the target must also be a whole resource.")])
        src_single = True  # a resource without count or for_each is its one instance
    if not src_single:
        if dst.resource in state.resources:
            raise DiagnosticsError([error(
                "Invalid target address",
                f"Cannot move to {dst_text}: there is already a resource at that address in the current state.")])
        del state.resources[src.resource]
        state.resources[dst.resource] = ResourceState(dst.resource, rs.provider, rs.instances)
        return
    target = state.resources.get(dst.resource)
    if target is not None and dst.key in target.instances:
        raise DiagnosticsError([error(
            "Invalid target address",
            f"Cannot move to {dst_text}: there is already a resource instance at that address in the current "
            "state.")])
    inst = rs.instances.pop(src.key)
    if not rs.instances:
        del state.resources[src.resource]
    if target is None:
        target = state.resources[dst.resource] = ResourceState(dst.resource, rs.provider)
    target.instances[dst.key] = inst


def _move_module(state: State, src_text: str, dst_text: str, src: ModulePath | None,
                 dst: ModulePath | None) -> None:
    if src is None or dst is None:
        raise DiagnosticsError([error("Invalid state move request",
                                      f"Cannot move {src_text} to {dst_text}: a module moves only to a module "
                                      "address, and a resource only to a resource address.")])
    n = len(src.steps)
    moving = [r for r in state.resources if r.module.steps[:n] == src.steps]
    if not moving:
        raise DiagnosticsError([error("Invalid source address",
                                      f"Cannot move {src_text}: does not match anything in the current state.")])
    if any(r.module.steps[:len(dst.steps)] == dst.steps for r in state.resources):
        raise DiagnosticsError([error("Invalid target address",
                                      f"Cannot move to {dst_text}: there is already a module instance at that "
                                      "address in the current state.")])
    for r in moving:
        rs = state.resources.pop(r)
        to = resource_addr(r.type, r.name, r.mode, ModulePath(dst.steps + r.module.steps[n:]))
        state.resources[to] = ResourceState(to, rs.provider, rs.instances)


def set_tainted(state: State, text: str, tainted: bool) -> InstanceAddr:
    """Mark the object at ``text`` tainted (replaced by the next apply), or ready again."""
    addr, _single = _parse(text, "target")
    if addr.resource.mode == "data":
        raise DiagnosticsError([error("Invalid resource instance address",
                                      f"Resource instance {addr} cannot be tainted: it is a data resource, "
                                      "read again at every plan.")])
    obj = state.object(addr)
    if obj is None:
        raise DiagnosticsError([error(
            "No such resource instance",
            f"There is no resource instance in the state with the address {addr}. If the resource "
            'configuration has just been added, you must run "strata apply" once to create the '
            "corresponding instance(s) before they can be tainted.")])
    if not tainted and obj.status != "tainted":
        raise DiagnosticsError([error("Resource instance is not tainted",
                                      f"Resource instance {addr} is not currently tainted, and so it cannot be "
                                      "untainted.")])
    rs = state.resources[addr.resource]
    state.set_object(addr, rs.provider, replace(obj, status="tainted" if tainted else "ready"))
    return addr
