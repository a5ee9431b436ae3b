"""Compare what strata did with what terraform did for the same case.

Each finding is a :class:`Mismatch`: a ``cls`` (a short, stable name of the kind of
deviation, used to count and to group findings across seeds) and a ``detail`` naming
the differing items. What is compared, for the v1 apply and the v2 apply alike:

- exit codes;
- the multiset of operations: ``(address, action)`` of every ``apply_start``;
- order: for every path ``u -> … -> v`` between two operations in terraform's apply graph
  (``terraform graph -type=apply -plan=FILE``; ``u`` depends on ``v``), strata completes
  ``v`` before it starts ``u`` (checked for terraform's own stream too, as a sanity check);
- at most one operation in flight at ``-parallelism=1``;
- the state after the apply: objects by address, their attributes, status, deposed
  objects, ``create_before_destroy`` and dependencies (terraform records transitive
  dependencies, strata direct ones: strata's are closed over its own state first);
- ``show -json`` of the plan each apply applied (:mod:`tests.differential.plan_json`);
- after v2, ``output -json``.

Object ids are random in both tools, so every id is replaced by the address and the
apply (``<terraform_data.a#1>``) that created it, wherever it occurs in a value.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from tests.differential.findings import (
    TOLERATED_CLOSURE,
    TOLERATED_DEPENDENCIES,
    Mismatch,
    normalize,
)
from tests.differential.generate import Case
from tests.differential.plan_json import compare_plan_json
from tests.differential.run import Run, Step

OP_NODE = re.compile(r'^((?:module\.[\w-]+(?:\[[^\]]+\])?\.)*(?:terraform_data|null_resource)\.\S+?)'
                     r'(?: \((destroy)(?: deposed \w+)?\))?$')
"""An operation's node in ``terraform graph -type=apply``: a ``terraform_data`` or ``null_resource``
instance, in a module instance or not, and whether it is its destroy."""
KEY = re.compile(r'\[(?:"(?:[^"\\]|\\.)*"|\d+)\]')
"""An instance key in an address (``[0]``, ``["a"]``)."""
PHASES = ("v1", "v2")


# --------------------------------------------------------------------------- state


def instance_addr(resource: dict, inst: dict) -> str:
    base = f"{resource['type']}.{resource['name']}"
    if resource.get("module"):
        base = f"{resource['module']}.{base}"
    if resource.get("mode") == "data":
        base = f"data.{base}"
    key = inst.get("index_key")
    if key is None:
        return base
    if isinstance(key, int):
        return f"{base}[{key}]"
    return f'{base}["{key}"]'


def _objects(state: dict) -> Iterable[tuple[str, str, dict]]:
    """(resource address, instance address, instance object) of every object in a state."""
    for res in state.get("resources", []):
        raddr = f"{res['type']}.{res['name']}"
        if res.get("module"):  # dependencies name a resource in a module without instance keys
            raddr = f"{KEY.sub('', res['module'])}.{raddr}"
        for inst in res.get("instances", []):
            yield raddr, instance_addr(res, inst), inst


@dataclass(frozen=True)
class Names:
    """The names of the object ids of one state (see :func:`id_names`)."""

    own: dict[tuple[str, str], str]  # (instance address, deposed key) → that object's name
    by_id: dict[str, tuple[tuple[str, str], ...]]  # id → ((name, resource address), ...)

    def flat(self) -> dict[str, str]:
        """id → name; an id two objects share names both."""
        return {oid: "|".join(sorted(n for n, _ in c)) for oid, c in self.by_id.items()}

    def seen_from(self, inst: dict, addr: str, depends_on: set[str]) -> dict[str, str]:
        """id → name as object ``addr`` sees them: its own id is its own, and an id two
        objects share names those of the resources it depends on (a reference is one)."""
        out = self.flat()
        for oid, cands in self.by_id.items():
            if len(cands) > 1:
                mine = [n for n, r in cands if r in depends_on] or [n for n, _ in cands]
                out[oid] = "|".join(sorted(mine))
        oid = (inst.get("attributes") or {}).get("id")
        if isinstance(oid, str):
            out[oid] = self.own.get((addr, inst.get("deposed") or ""), out.get(oid, "<id?>"))
        return out


def id_names(run: Run) -> list[Names]:
    """For each state after v1 and v2, the names of its object ids: ``<address#apply>``,
    the instance and the apply that created the object.

    An object is named by its creation, not its id: the null plugin 2.1.2 hands out the
    same sequence of ids in every process it starts, so one id can be an object of v1 and
    another made in v2, even both in one state. An object whose address had a create in an
    apply is that apply's; any other keeps the name it had in the state before.
    """
    out: list[Names] = []
    before: dict[tuple[str, str], str] = {}  # (instance address, id) → name
    for n, state in enumerate(run.states, start=1):
        created = {addr for addr, action in operations(run.steps[n - 1])
                   if action == "create"} if n <= len(run.steps) else set()
        by_old_id: dict[str, set[str]] = {}
        for (_, oid), name in before.items():
            by_old_id.setdefault(oid, set()).add(name)
        own: dict[tuple[str, str], str] = {}
        by_id: dict[str, list[tuple[str, str]]] = {}
        now: dict[tuple[str, str], str] = {}
        for raddr, addr, inst in _objects(state):
            oid = (inst.get("attributes") or {}).get("id")
            if not isinstance(oid, str):
                continue
            deposed = inst.get("deposed") or ""
            old = by_old_id.get(oid, set())
            if addr in created and not deposed:
                name = f"<{addr}#{n}>"
            elif (addr, oid) in before:
                name = before[(addr, oid)]
            elif len(old) == 1:
                name = next(iter(old))
            else:
                name = f"<{addr}#{n}>"
            own[(addr, deposed)] = name
            now[(addr, oid)] = name
            by_id.setdefault(oid, []).append((name, raddr))
        before = now
        out.append(Names(own, {k: tuple(v) for k, v in by_id.items()}))
    return out


def _closure(direct: dict[str, set[str]]) -> dict[str, frozenset[str]]:
    out: dict[str, frozenset[str]] = {}
    for start in direct:
        seen: set[str] = set()
        todo = list(direct[start])
        while todo:
            d = todo.pop()
            if d not in seen:
                seen.add(d)
                todo.extend(direct.get(d, ()))
        out[start] = frozenset(seen)
    return out


def state_view(state: dict, names: Names, transitive: bool) -> dict[str, dict]:
    """Objects by instance address (deposed ones under ``addr (deposed)``), normalized.

    ``transitive`` says the state's dependency lists are already closed (terraform's);
    otherwise each object's list is closed over the other resources' lists first.
    """
    by_resource: dict[str, set[str]] = {}
    for raddr, _, inst in _objects(state):
        by_resource.setdefault(raddr, set()).update(inst.get("dependencies", []))
    closed = _closure(by_resource)
    view: dict[str, dict] = {}
    for _, addr, inst in _objects(state):
        deps = set(inst.get("dependencies", []))
        if not transitive:
            for d in list(deps):
                deps |= closed.get(d, frozenset())
        obj = {
            "attributes": normalize(inst.get("attributes"), names.seen_from(inst, addr, deps)),
            "status": inst.get("status"),
            "create_before_destroy": bool(inst.get("create_before_destroy", False)),
            "dependencies": sorted(deps),
        }
        key = f"{addr} (deposed)" if inst.get("deposed") else addr
        view.setdefault(key, {"objects": []})["objects"].append(obj)
    for entry in view.values():
        entry["objects"].sort(key=repr)
    return view


def present_resources(state: dict) -> set[str]:
    return {raddr for raddr, _, _ in _objects(state)}


def _only_module_resources_missing(tf_deps: list[str], st_deps: list[str]) -> bool:
    """Whether strata's list lacks only resources of modules (and has nothing terraform's
    lacks): terraform makes a reference to an expanded module call (``module.m[*].x``) depend
    on every resource in it, not only on those behind the output."""
    missing, extra = set(tf_deps) - set(st_deps), set(st_deps) - set(tf_deps)
    return bool(missing) and not extra and all(d.startswith("module.") for d in missing)


def _closed(deps: list[str], closed: dict[str, frozenset[str]]) -> set[str]:
    """``deps`` with everything each of them reaches through the lists of a state."""
    out = set(deps)
    for d in deps:
        out |= closed.get(d, frozenset())
    return out


def _lists_by_resource(*states: dict) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for state in states:
        for raddr, _, inst in _objects(state):
            out.setdefault(raddr, set()).update(inst.get("dependencies", []))
    return out


def _same_over_time(addr: str, tf_deps: list[str], st_deps: list[str], tf: dict, st: dict,
                    history: tuple[dict, dict]) -> bool:
    """Whether terraform's list for ``addr`` lies within what strata's lists said over both
    applies (its own, closed over every list each resource had), and strata's closure within
    terraform's lists and theirs over both applies: the same dependencies, read at different
    times."""
    st_hist = _lists_by_resource(history[1], st)
    tf_hist = _lists_by_resource(history[0], tf)
    raddr = _resource_of(addr.removesuffix(" (deposed)"))
    st_own = st_hist.get(raddr, set())
    st_reach = set(st_own) | _closure({**{k: set(v) for k, v in st_hist.items()}, "": st_own})[""]
    tf_reach = set(tf_hist.get(raddr, set()))
    for d in list(tf_reach):
        tf_reach |= tf_hist.get(d, set())
    return set(tf_deps) <= st_reach and set(st_deps) <= tf_reach


def compare_states(phase: str, tf: dict, st: dict, tf_names: Names,
                   st_names: Names, untouched: set[str],
                   history: tuple[dict, dict] | None = None) -> list[Mismatch]:
    """Objects of both states; ``untouched`` are the addresses without an operation in
    either tool's apply (a difference there is metadata terraform rewrites at plan time).

    Dependencies are compared among resources that still have objects: a dependency on
    a resource gone from the state orders nothing, and terraform keeps such stale
    entries in lists it did not rewrite.
    """
    a = state_view(tf, tf_names, transitive=True)
    b = state_view(st, st_names, transitive=False)
    tf_present, st_present = present_resources(tf), present_resources(st)
    st_direct = {addr: set(inst.get("dependencies", [])) for _, addr, inst in _objects(st)}
    tf_closed = _closure(_lists_by_resource(tf))
    found: list[Mismatch] = []
    for addr in sorted(a.keys() - b.keys()):
        found.append(Mismatch("state: object missing in strata", f"{phase}: {addr} {a[addr]}"))
    for addr in sorted(b.keys() - a.keys()):
        found.append(Mismatch("state: extra object in strata", f"{phase}: {addr} {b[addr]}"))
    for addr in sorted(a.keys() & b.keys()):
        ta, sa = a[addr]["objects"], b[addr]["objects"]
        if len(ta) != len(sa):
            found.append(Mismatch("state: object count", f"{phase}: {addr}: terraform {len(ta)}, strata {len(sa)}"))
            continue
        for to, so in zip(ta, sa, strict=True):
            to["dependencies"] = sorted(set(to["dependencies"]) & tf_present)
            so["dependencies"] = sorted(set(so["dependencies"]) & st_present)
            for fld in ("attributes", "status", "create_before_destroy", "dependencies"):
                if to[fld] == so[fld]:
                    continue
                cls = f"state: {fld}"
                if fld == "dependencies" and _closed(to[fld], tf_closed) & tf_present == set(so[fld]):
                    cls = TOLERATED_CLOSURE
                elif fld == "dependencies" and history is not None and _same_over_time(
                        addr, to[fld], so[fld], tf, st, history):
                    cls = TOLERATED_DEPENDENCIES
                elif fld == "dependencies" and _only_module_resources_missing(to[fld], so[fld]):
                    cls = "state: dependencies on every resource of an expanded module"
                elif addr in untouched and fld in ("create_before_destroy", "dependencies"):
                    cls += " of an object without an operation"
                elif fld == "dependencies" and st_direct.get(addr, set()) - st_present:
                    cls += " lost through a resource without objects"
                found.append(Mismatch(cls, f"{phase}: {addr}: terraform {to[fld]!r}, strata {so[fld]!r}"))
    return found


# --------------------------------------------------------------------------- operations


def _hook_op(event: dict) -> tuple[str, str]:
    hook = event["hook"]
    return hook["resource"]["addr"], hook["action"]


def operations(step: Step) -> Counter[tuple[str, str]]:
    return Counter(_hook_op(e) for e in step.events if e.get("type") == "apply_start")


def _op_key(addr: str, action: str) -> tuple[str, str]:
    return addr, "delete" if action == "delete" else "write"


def graph_constraints(edges: list[tuple[str, str]]) -> set[tuple[tuple[str, str], tuple[str, str]]]:
    """``(first, then)`` operation pairs: a path ``then -> … -> first`` in the apply graph."""
    succ: dict[str, set[str]] = {}
    for a, b in edges:
        succ.setdefault(a, set()).add(b)
        succ.setdefault(b, set())

    def op(node: str) -> tuple[str, str] | None:
        m = OP_NODE.match(node)
        if not m:
            return None
        return m.group(1), "delete" if m.group(2) else "write"

    pairs = set()
    for start in succ:
        u = op(start)
        if u is None:
            continue
        seen: set[str] = set()
        todo = list(succ[start])
        while todo:
            n = todo.pop()
            if n in seen:
                continue
            seen.add(n)
            todo.extend(succ[n])
            v = op(n)
            if v is not None and v != u:
                pairs.add((v, u))
    return pairs


def _resource_of(addr: str) -> str:
    """The resource of an instance address, in its module (``module.m.terraform_data.r1``)."""
    return KEY.sub("", addr)


def _name_of(addr: str) -> str:
    """The generated name (``r3``) of an instance address: unique across the root and the module."""
    return _resource_of(addr).rsplit(".", 1)[-1]


def _node(op: tuple[str, str], edges_from: dict[str, set[str]]) -> set[str]:
    """The graph node(s) of an operation key."""
    addr, kind = op
    if kind == "write":
        return {addr}
    return {n for n in edges_from if n == f"{addr} (destroy)" or n.startswith(f"{addr} (destroy deposed ")}


def _module_instance(addr: str) -> str:
    """The module instance part of an instance address (``module.m["x"]``; empty in the root)."""
    parts = addr.split(".")
    return ".".join(parts[:-2]) if addr.startswith("module.") else ""


def _other_module_instance(first: str, then: str) -> bool:
    """Whether two operations are in different instances of the same module: terraform makes a
    resource in an expanded module wait for its dependency in every instance of the module."""
    a, b = _module_instance(first), _module_instance(then)
    return bool(a) and a != b and KEY.sub("", a) == KEY.sub("", b)


def _through_module_close(first: tuple[str, str], then: tuple[str, str], succ: dict[str, set[str]]) -> bool:
    """Whether ``then`` waits for ``first`` through a module call's ``(close)`` node (a
    reference to the whole call, ``module.m[*].x``), ``first`` being in that module."""
    firsts = _node(first, succ)
    seen: set[str] = set()
    todo = list(_node(then, succ))
    while todo:
        n = todo.pop()
        if n in seen:
            continue
        seen.add(n)
        if n.endswith(" (close)") and n.startswith("module.") and first[0].startswith(n.removesuffix(" (close)")):
            inner: set[str] = set()
            stack = [n]
            while stack:
                x = stack.pop()
                if x not in inner:
                    inner.add(x)
                    stack.extend(succ.get(x, ()))
            if inner & firsts:
                return True
        todo.extend(succ.get(n, ()))
    return False


def _direct(first: tuple[str, str], then: tuple[str, str], succ: dict[str, set[str]]) -> bool:
    """Whether ``then`` waits for ``first`` by an edge of its own (not through the
    expansion of a third resource)."""
    firsts = _node(first, succ)
    for n in _node(then, succ):
        near = succ.get(n, set()) | succ.get(f"{_resource_of(then[0])} (expand)", set())
        if near & firsts:
            return True
    return False


_BLOCK = re.compile(r'^resource "(?:terraform_data|null_resource)" "(\w+)" \{$', re.M)
_REF = re.compile(r"(?:terraform_data|null_resource|var|module\.m(?:\[\*\])?|v)\.(r\d+)(?!\d)")
"""A reference to a generated resource: directly, or through the module's variable or output
(``var.r1_id``, ``module.m.r1_id``, ``v.r1_id``), which are named after it."""


def config_edges(*texts: str) -> set[tuple[str, str]]:
    """``(dependent, dependency)`` pairs of generated names (``r3``) referenced directly in any
    of the texts (a case's files, module included: names are unique across modules)."""
    edges = set()
    for text in texts:
        blocks = list(_BLOCK.finditer(text))
        for i, m in enumerate(blocks):
            end = blocks[i + 1].start() if i + 1 < len(blocks) else len(text)
            body = text[m.end():end].split("\noutput ", 1)[0].split('\nmodule "', 1)[0]
            edges |= {(m.group(1), r) for r in _REF.findall(body)}
    return edges


def case_texts(case: Case) -> tuple[str, ...]:
    """Every configuration file of a case, both versions."""
    extra = [t for _, t in (*getattr(case, "files1", ()), *getattr(case, "files2", ()))]
    return (case.v1, case.v2, *extra)


def replacement_orders(step: Step) -> dict[str, str]:
    """For each address both created and destroyed: which of the two started first."""
    first: dict[str, str] = {}
    seen: dict[str, set[str]] = {}
    for e in step.events:
        if e.get("type") == "apply_start":
            addr, action = _hook_op(e)
            if action in ("create", "delete"):
                first.setdefault(addr, action)
                seen.setdefault(addr, set()).add(action)
    return {a: f"{first[a]} first" for a, acts in seen.items() if len(acts) == 2}


def order_violations(phase: str, tool: str, step: Step, edges: list[tuple[str, str]],
                     cbd: set[str], related: set[tuple[str, str]] | None = None,
                     reordered: frozenset[str] = frozenset()) -> list[Mismatch]:
    """Pairs terraform's graph orders that ``tool`` started out of order. ``cbd`` are the
    instance addresses with ``create_before_destroy`` in terraform's final state;
    ``related`` the resource pairs that refer to each other directly in a configuration
    (the rest are related only through others: transitively); ``reordered`` the addresses
    whose replacement strata orders the other way round (what follows is reported once,
    as that)."""
    pairs = graph_constraints(edges)
    succ: dict[str, set[str]] = {}
    for a, b in edges:
        succ.setdefault(a, set()).add(b)
        succ.setdefault(b, set())
    started: dict[tuple[str, str], int] = {}
    completed: dict[tuple[str, str], int] = {}
    actions: dict[tuple[str, str], str] = {}
    for i, e in enumerate(step.events):
        if e.get("type") in ("apply_start", "apply_complete"):
            addr, action = _hook_op(e)
            key = _op_key(addr, action)
            actions[key] = action
            if e["type"] == "apply_start":
                started.setdefault(key, i)
            else:
                completed[key] = i
    found = []
    for first, then in sorted(pairs):
        if first in completed and then in started and completed[first] > started[then]:
            if tool != "strata":
                cls = "harness: terraform breaks its own graph"
            elif first[0] in reordered or then[0] in reordered:
                cls = "order: follows from a replacement ordered the other way round"
            elif _other_module_instance(first[0], then[0]):
                cls = "order: waits for its dependency in every instance of an expanded module"
            elif _through_module_close(first, then, succ):
                cls = "order: a reference to an expanded module waits for every resource in it"
            elif not _direct(first, then, succ):
                cls = "order: no wait through a resource without operations"
            elif actions[then] == "create" and actions[first] == "delete" and then[0] in cbd:
                cls = "order: create_before_destroy replacement created before a dependent's destroy"
            else:
                f, t = _name_of(first[0]), _name_of(then[0])
                if related is None or (f, t) in related or (t, f) in related:
                    cls = f"order: {actions[then]} before the {actions[first]} it waits for"
                else:
                    cls = f"order: {actions[then]} before the {actions[first]} of a resource related only transitively"
            found.append(Mismatch(cls, f"{phase}: {tool} started {actions[then]} {then[0]} before "
                                       f"completing {actions[first]} {first[0]}"))
    return found


def overlaps(phase: str, step: Step) -> list[Mismatch]:
    """Operations in flight at once, which ``-parallelism=1`` forbids."""
    in_flight: set[tuple[str, str]] = set()
    found = []
    for e in step.events:
        if e.get("type") == "apply_start":
            key = _hook_op(e)
            if in_flight:
                found.append(Mismatch("stream: an operation starts before the previous one completes at -parallelism=1",
                                      f"{phase}: started {key[1]} {key[0]} while {sorted(in_flight)} in flight"))
            in_flight.add(key)
        elif e.get("type") in ("apply_complete", "apply_errored"):
            in_flight.discard(_hook_op(e))
    return found[:1]


# --------------------------------------------------------------------------- the case


def _errors(step: Step) -> str:
    diags = [e["diagnostic"] for e in step.events if e.get("type") == "diagnostic"
             and e["diagnostic"].get("severity") == "error"]
    text = "; ".join(f"{d.get('summary', '')}: {d.get('detail', '')}" for d in diags)
    return text or step.stderr.strip()


def _planned(step: Step) -> dict[str, str]:
    return {e["change"]["resource"]["addr"]: e["change"]["action"]
            for e in step.plan_events if e.get("type") == "planned_change"}


def _cbd_instances(state: dict) -> set[str]:
    return {addr for _, addr, inst in _objects(state) if inst.get("create_before_destroy")}


def _plan_documents(phase: str, n: int, ts: Step, ss: Step, tf_names: list[Names],
                    st_names: list[Names]) -> list[Mismatch]:
    """``show -json`` of both plans, ids named as the state before the plan names them."""
    if ts.plan_json is None:
        return []
    if ss.plan_json is None:
        return [Mismatch("plan json: strata's show -json failed", f"{phase}")]
    before_tf = tf_names[n - 1].flat() if n > 0 else {}
    before_st = st_names[n - 1].flat() if n > 0 else {}
    return compare_plan_json(phase, ts.plan_json, ss.plan_json, before_tf, before_st)


def compare(case: Case, tf: Run, st: Run) -> list[Mismatch]:
    """Every deviation of strata from terraform in one case (empty when they agree).

    Classes of the v2 apply get `` [-target]`` appended when it ran with ``-target``:
    targeting changes much of what terraform does, and keeping those findings apart keeps
    the other classes clean.
    """
    if tf.error is not None and not tf.steps:
        return [Mismatch("harness: terraform failed", tf.error)]
    if st.error is not None and not st.steps:
        return [Mismatch("init: strata failed", st.error)]
    found: list[Mismatch] = []
    tf_names, st_names = id_names(tf), id_names(st)
    targeted = any(o.startswith("-target") for o in case.options)
    for n, (phase, ts, ss) in enumerate(zip(PHASES, tf.steps, st.steps, strict=False)):
        here: list[Mismatch] = []
        if ts.returncode != ss.returncode:
            cycle = "Cycle" in _errors(ts)
            cls = "exit code: terraform finds a cycle" if cycle else "exit code"
            here.append(Mismatch(cls, f"{phase}: terraform {ts.returncode}, strata {ss.returncode}\n"
                                      f"    terraform: {_errors(ts)}\n    strata: {_errors(ss)}"))
        else:
            tf_state = tf.states[n] if n < len(tf.states) else {}
            to, so = operations(ts), operations(ss)
            planned = _planned(ts)
            tf_deposed = {addr for _, addr, inst in _objects(tf_state) if inst.get("deposed")}
            for (addr, action), k in sorted((to - so).items()):
                here.append(Mismatch(f"operations: {action} missing in strata", f"{phase}: {action} {addr} (x{k})"))
            for (addr, action), k in sorted((so - to).items()):
                if action in ("update", "create") and addr in planned:
                    cls = "operations: final-plan no-op applied"
                elif action == "delete" and addr in tf_deposed:
                    cls = "operations: deposed object destroyed that terraform keeps"
                else:
                    cls = f"operations: extra {action} in strata"
                here.append(Mismatch(cls, f"{phase}: {action} {addr} (x{k}); terraform planned "
                                          f"{planned.get(addr, 'nothing')}"))
            tr, sr = replacement_orders(ts), replacement_orders(ss)
            reordered = frozenset(a for a in tr.keys() & sr.keys() if tr[a] != sr[a])
            for addr in sorted(reordered):
                here.append(Mismatch("operations: replacement ordered the other way round "
                                     "(create_before_destroy)",
                                     f"{phase}: {addr}: terraform {tr[addr]}, strata {sr[addr]}"))
            cbd = _cbd_instances(tf_state)
            here += order_violations(phase, "terraform", ts, ts.edges, cbd)
            here += order_violations(phase, "strata", ss, ts.edges, cbd, config_edges(*case_texts(case)),
                                     reordered)
            here += overlaps(phase, ss)
            here += _plan_documents(phase, n, ts, ss, tf_names, st_names)
            if n < len(tf.states) and n < len(st.states):
                touched = {a for a, _ in to} | {a for a, _ in so}
                untouched = {addr for _, addr, _ in _objects(tf_state)} - touched
                history = (tf.states[n - 1], st.states[n - 1]) if targeted and n > 0 else None
                here += compare_states(phase, tf.states[n], st.states[n], tf_names[n], st_names[n], untouched,
                                       history)
        if phase == "v2" and targeted:
            here = [m if m.tolerated else Mismatch(f"{m.cls} [-target]", m.detail) for m in here]
        found += here
        if ts.returncode != ss.returncode:
            break
    if tf.error is not None and not found:
        found.append(Mismatch("harness: terraform failed", tf.error))
    tf_last = tf_names[-1].flat() if tf_names else {}
    st_last = st_names[-1].flat() if st_names else {}
    exit_codes_agree = all(t.returncode == s.returncode for t, s in zip(tf.steps, st.steps, strict=False))
    if exit_codes_agree and len(tf.steps) == len(st.steps) == 2 and normalize(tf.outputs, tf_last) != normalize(st.outputs, st_last):
        found.append(Mismatch("output -json" + (" [-target]" if targeted else ""),
                              f"terraform {normalize(tf.outputs, tf_last)!r}\n"
                              f"strata {normalize(st.outputs, st_last)!r}"))
    return found
