"""``moved`` blocks: objects of the prior state put at their new addresses before planning, and
terraform's checks of the statements once the plan walk knows which instances are declared.

As terraform's ``refactoring.ApplyMoves``: each object follows the chain of statements that
match its address (``a`` → ``b`` then ``b`` → ``c``: ``a`` ends at ``c``), each statement used
once per object; an object is not moved onto an address the state already has an object at.
Statements in a module apply in every instance of it that the state has. Which statements are
valid is known only after planning (:func:`validate_moves`); an invalid plan is never shown.
"""

from __future__ import annotations

from dataclasses import replace

from engine.addrs import ROOT, InstanceAddr, ModulePath, ResourceAddr, resource_addr
from engine.config.model import Module
from engine.config.refactoring import Endpoint, MovedBlock
from engine.diagnostics import Diagnostic, SourceRange, error, errors_of, source_line
from engine.events import stream as ev
from engine.planning.context import PlanContext
from engine.plans.plan import Action, Refreshed, ResourceInstanceChange
from engine.provider.protocol import MoveResourceStateRequest
from engine.state.model import ObjectState, State

Moves = dict[InstanceAddr, InstanceAddr]
"""An object's new address → the address the previous run left it at."""


def statements(module: Module) -> list[MovedBlock]:
    """Every ``moved`` block of the configuration, the root's first."""
    return [s for m in module.tree() for s in m.moved]


def _prefix(path: ModulePath, config_path: tuple[str, ...]) -> ModulePath | None:
    """The module instance of configuration path ``config_path`` that ``path`` is in (or is)."""
    n = len(config_path)
    if len(path.steps) < n or any(path.steps[i][0] != config_path[i] for i in range(n)):
        return None
    return ModulePath(path.steps[:n]) if n else ROOT


def _moved_module(path: ModulePath, at: ModulePath, f: Endpoint, t: Endpoint) -> ModulePath | None:
    """``path`` (a module instance under ``at``) after the module move ``f`` → ``t``; None when
    the move is not about it."""
    rel = path.steps[len(at.steps):]
    if f.keyed:
        if rel[:len(f.steps)] != f.steps:
            return None
        return ModulePath(at.steps + t.steps + rel[len(f.steps):])
    head = f.steps[:-1]
    if len(rel) < len(f.steps) or rel[:len(head)] != head or rel[len(head)][0] != f.steps[-1][0]:
        return None
    key = rel[len(head)][1]
    return ModulePath(at.steps + t.steps[:-1] + ((t.steps[-1][0], key),) + rel[len(f.steps):])


def moved_address(addr: InstanceAddr, s: MovedBlock) -> InstanceAddr | None:
    """``addr`` after the statement ``s``; None when ``s`` is not about it."""
    r = addr.resource
    at = _prefix(r.module, s.module_path)
    if at is None:
        return None
    f, t = s.from_, s.to
    if f.resource is None:
        path = _moved_module(r.module, at, f, t)
        return None if path is None else resource_addr(r.type, r.name, r.mode, path).instance(addr.key)
    assert t.resource is not None
    if (r.mode, r.type, r.name) != f.resource or r.module != f.module_in(at):
        return None
    if f.keyed and addr.key != f.key:
        return None
    mode, type_, name = t.resource
    return resource_addr(type_, name, mode, t.module_in(at)).instance(t.key if t.keyed else addr.key)


def apply_moves(module: Module, state: State) -> Moves:
    """Move ``state``'s objects as the configuration's ``moved`` blocks say (in place); returns
    what moved, new address → previous one."""
    stmts = statements(module)
    if not stmts:
        return _implied_moves(module, state, frozenset())
    plan: dict[InstanceAddr, InstanceAddr] = {}  # previous → new
    for rs in state.resources.values():
        if rs.addr.mode != "managed":
            continue
        for key in rs.instances:
            addr = rs.addr.instance(key)
            cur, used = addr, set()
            while True:
                for i, s in enumerate(stmts):
                    if i in used:
                        continue
                    got = moved_address(cur, s)
                    if got is not None:
                        used.add(i)
                        cur = got
                        break
                else:
                    break
            if cur != addr:
                plan[addr] = cur
    done: Moves = {}
    for prev, new in sorted(plan.items(), key=lambda m: m[0].sort_key()):
        occupied = state.resources.get(new.resource)
        if (occupied is not None and new.key in occupied.instances and new not in plan) or new in done:
            continue  # terraform moves nothing onto an object that is there
        done[new] = prev
    state.move(done)
    moved = frozenset(a.resource for m in done.items() for a in m)
    return {**done, **_implied_moves(module, state, moved)}


def _implied_moves(module: Module, state: State, moved: frozenset[ResourceAddr]) -> Moves:
    """terraform's implied moves, made after the ``moved`` blocks' (in place): a resource that
    has gained ``count`` finds its object without a key at ``[0]``, one that lost ``count`` (and
    has no ``for_each``) its object at ``[0]`` without a key, when nothing is there already.
    Not for a resource a ``moved`` block moved objects of or to."""
    done: Moves = {}
    for rs in list(state.resources.values()):
        if rs.addr.mode != "managed" or rs.addr in moved:
            continue
        config = module.descendant(tuple(name for name, _ in rs.addr.module.steps))
        rc = config.resources.get(resource_addr(rs.addr.type, rs.addr.name)) if config is not None else None
        if rc is None or (rc.count is None and rc.for_each is not None):
            continue
        before, after = (None, 0) if rc.count is not None else (0, None)
        if before in rs.instances and after not in rs.instances:
            done[rs.addr.instance(after)] = rs.addr.instance(before)
    state.move(done)
    return done


def moves_as_drift(ctx: PlanContext) -> None:
    """A refresh-only plan shows each moved object among what changed outside (terraform's "has
    moved to"): the drift of a moved object says where it was, an object only moved is drift too."""
    plan = ctx.plan
    drift = [replace(c, previous=plan.moves.get(c.addr)) for c in plan.drift]
    drifted = {c.addr for c in drift}
    for new, prev in sorted(plan.moves.items(), key=lambda m: m[0].sort_key()):
        obj = ctx.state.object(new)
        if new in drifted or obj is None:
            continue
        prov = ctx.state.resources[new.resource].provider
        drift.append(ResourceInstanceChange(new, Action.NOOP, prov, obj.attributes, obj.attributes, previous=prev,
                                            sensitive=ctx.sensitive_in_state(new, obj, prov)))
        ctx.emit(ev.resource_drift(new, "move", prev))
    plan.drift = sorted(drift, key=lambda c: c.addr.sort_key())


async def move_across_types(ctx: PlanContext, moves: Moves) -> list[Diagnostic]:
    """Objects moved to a resource of another type, made objects of that type by its provider
    (MoveResourceState; terraform's builtin provider takes ``null_resource`` → ``terraform_data``);
    terraform's error where the provider takes no such move. Each object made is put in the plan's
    ``refreshed``, so apply starts from it."""
    out: list[Diagnostic] = []
    for s in statements(ctx.module):
        f, t = s.from_.resource, s.to.resource
        if f is None or t is None or f[1] == t[1]:
            continue
        for new, prev in moves.items():
            if prev.resource.type != f[1] or new.resource.type != t[1]:
                continue
            rc = ctx.module.resource_at(new.resource)
            key = rc.provider_key if rc is not None else t[1].split("_", 1)[0]
            seam = ctx.providers.seam(key)
            if not seam.moves_resource_state:
                out.append(error("Unsupported `moved` across resource types",
                                 f'The provider "{seam.source}" does not support moved operations across '
                                 "resource types and providers.", s.range))
                break
            out.extend(await _move_one(ctx, new, key, s))
    return out


async def _move_one(ctx: PlanContext, addr: InstanceAddr, key: str, s: MovedBlock) -> list[Diagnostic]:
    rs = ctx.state.resources[addr.resource]
    obj = rs.instances[addr.key].current
    if obj is None:
        return []
    source = str(rs.provider.source)
    resp = await ctx.providers.seam(key).move_resource_state(MoveResourceStateRequest(
        source, s.from_.resource[1] if s.from_.resource else "", obj.schema_version, obj.attributes,
        addr.resource.type, obj.private), address=str(addr), subject=s.range)
    if errors_of(resp.diagnostics) or resp.target_state is None:
        return list(resp.diagnostics) or [error("Provider produced invalid object", f"Moving to {addr} returned no object.")]
    schema = ctx.providers.schema(key, addr.resource.type)
    moved = ObjectState(resp.target_state, obj.status, schema.version if schema is not None else 0, obj.dependencies,
                        obj.create_before_destroy, private=resp.target_private)
    rs.provider = ctx.providers.config_address(key)
    ctx.state.set_object(addr, rs.provider, moved)
    ctx.plan.refreshed = (*ctx.plan.refreshed, Refreshed(addr, rs.provider, moved))
    return list(resp.diagnostics)


def validate_moves(ctx: PlanContext) -> list[Diagnostic]:
    """terraform's ValidateMoves, once the plan walk declared the instances: redundant statements,
    objects moved away that are still declared, ambiguous statements, then cycles."""
    stmts = statements(ctx.module)
    diags: list[Diagnostic] = []
    by_from: dict[str, tuple[str, SourceRange]] = {}
    by_to: dict[str, tuple[str, SourceRange]] = {}
    for s in stmts:
        instances = [ROOT] if not s.module_path else [mi.path for mi in ctx.instances.of_config(s.module_path)]
        for at in instances:
            f, t = _absolute(s.from_, at), _absolute(s.to, at)
            if f == t:
                diags.append(error("Redundant move statement", f"This statement declares a move from {f} to the "
                                   "same address, which is the same as not declaring this move at all.", s.range))
                continue
            noun, short = _nouns(s.from_)
            declared = _declared_at(ctx, s.from_, at)
            if declared is not None:
                where = f" at {declared}" if declared else ""
                diags.append(error("Moved object still exists",
                                   f"This statement declares a move from {f}, but that {noun} is still "
                                   f"declared{where}.\n\nChange your configuration so that this {short} will be "
                                   f"declared as {t} instead.", s.range))
            seen = by_from.get(f)
            if seen is None:
                by_from[f] = (t, s.range)
            elif seen[0] != t:
                diags.append(error("Ambiguous move statements",
                                   f"A statement at {_start(seen[1])} declared that {f} moved to {seen[0]}, but "
                                   f"this statement instead declares that it moved to {t}.\n\nEach {noun} can "
                                   f"move to only one destination {short}.", s.range))
            seen = by_to.get(t)
            if seen is None:
                by_to[t] = (f, s.range)
            elif seen[0] != f:
                diags.append(error("Ambiguous move statements",
                                   f"A statement at {_start(seen[1])} declared that {seen[0]} moved to {t}, but "
                                   f"this statement instead declares that {f} moved there.\n\nEach {noun} can "
                                   f"have moved from only one source {short}.", s.range))
    if not diags:
        diags.extend(_cycles(stmts))
    return diags


def _absolute(e: Endpoint, at: ModulePath) -> str:
    prefix = str(at)
    return f"{prefix}.{e}" if prefix else str(e)


def _nouns(e: Endpoint) -> tuple[str, str]:
    if e.resource is None:
        return ("module instance", "instance") if e.keyed else ("module call", "call")
    return ("resource instance", "instance") if e.keyed else ("resource", "resource")


def _start(r: SourceRange) -> str:
    return f"{r.filename}:{r.line},{max(r.column, 1)}"


def _expr_start(r: SourceRange) -> str:
    """Where an argument's expression starts, ``main.tf:2,14``."""
    text = source_line(r.filename, r.line)
    if text is None or "=" not in text:
        return _start(r)
    eq = text.index("=") + 1
    return f"{r.filename}:{r.line},{eq + len(text[eq:]) - len(text[eq:].lstrip()) + 1}"


def _declared_at(ctx: PlanContext, e: Endpoint, at: ModulePath) -> str | None:
    """Where the configuration still declares what ``e`` (from the module instance ``at``) names
    ("" when it cannot say where); None when it does not."""
    if e.resource is None:
        parent = ModulePath(at.steps + e.steps[:-1])
        mi = ctx.instances.get(parent)
        call = mi.config.calls.get(e.steps[-1][0]) if mi is not None else None
        if call is None:
            return None
        if not e.keyed:
            return _start(call.range)
        if ctx.instances.get(e.module_in(at)) is None:
            return None
        meta = call.for_each if call.for_each is not None else call.count
        return _expr_start(meta.range) if meta is not None else _start(call.range)
    mode, type_, name = e.resource
    mi = ctx.instances.get(e.module_in(at))
    if mi is None:
        return None
    local = resource_addr(type_, name, mode)
    rc = mi.config.resources.get(local)
    if rc is None:
        return None
    if not e.keyed:
        return _start(rc.range)
    if e.key not in ctx.resolver.values.get(mi.at(local), {}):
        return None
    meta = rc.for_each if rc.for_each is not None else rc.count
    return _expr_start(meta.range) if meta is not None else _start(rc.range)


def _cycles(stmts: list[MovedBlock]) -> list[Diagnostic]:
    """Chains of statements that come back to where they started (each reported once)."""
    text = [(str(s.from_), str(s.to)) for s in stmts]
    following = {i: [j for j in range(len(stmts)) if i != j and text[i][1] == text[j][0]
                     and stmts[i].module_path == stmts[j].module_path] for i in range(len(stmts))}
    reported: set[frozenset[int]] = set()
    out = []
    for start in range(len(stmts)):
        path = [start]
        while following[path[-1]] and following[path[-1]][0] not in path:
            path.append(following[path[-1]][0])
        nxt = following[path[-1]]
        if not nxt or nxt[0] != start:
            continue
        members = frozenset(path)
        if members in reported:
            continue
        reported.add(members)
        lines = sorted(f"\n  - {_start(stmts[i].range)}: {stmts[i].from_.cycle_text()} → {stmts[i].to.cycle_text()}"
                       for i in path)
        out.append(error("Cyclic dependency in move statements",
                         "The following chained move statements form a cycle, and so there is no final location "
                         f"to move objects to:{''.join(lines)}\n\nA chain of move statements must end with an "
                         "address that doesn't appear in any other statements, and which typically also refers "
                         "to an object still declared in the configuration."))
    return out
