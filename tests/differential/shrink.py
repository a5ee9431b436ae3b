"""Shrink a failing case to a small one that still shows the same class of mismatch.

Greedy: try each simplification of the pair of models (drop a resource from both
configurations, a reference, a ``depends_on``, a ``create_before_destroy``, a trigger, a
``replace_triggered_by``, an instance key, an output, an option), keep the first that still
shows the class, and start again, until none does or the attempt budget is spent. Every
attempt runs both tools, so a shrink costs a few minutes; it is for turning a seed into a
reproducer.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator

from tests.differential.compare import compare
from tests.differential.generate import Case, Model, forget, models
from tests.differential.generate_modules import build, layout
from tests.differential.run import run_case

Candidate = tuple[Model, Model, tuple[str, ...]]


def _drop_resource(v1: Model, v2: Model, opts: tuple[str, ...], name: str) -> Candidate:
    a, b = copy.deepcopy(v1), copy.deepcopy(v2)
    for m in (a, b):
        m.resources = [r for r in m.resources if r.name != name]
        forget(m, name)
    kept = tuple(o for o in opts if not o.split("=", 1)[1].startswith(f"terraform_data.{name}"))
    kept = tuple(o for o in kept if not o.split("=", 1)[1].split("[")[0] == f"terraform_data.{name}")
    return a, b, kept


def _each_resource_edit(v1: Model, v2: Model, opts: tuple[str, ...]) -> Iterator[Candidate]:
    names = sorted({r.name for m in (v1, v2) for r in m.resources}, reverse=True)
    for name in names:
        yield _drop_resource(v1, v2, opts, name)
    edits: list[Callable[[Model], bool]] = []
    for name in names:
        def no_refs(m: Model, name: str = name) -> bool:
            r = m.by_name().get(name)
            if r is None or not r.refs:
                return False
            r.refs = r.refs[:-1]
            return True

        def no_depends(m: Model, name: str = name) -> bool:
            r = m.by_name().get(name)
            if r is None or not r.depends_on:
                return False
            r.depends_on = []
            return True

        def no_cbd(m: Model, name: str = name) -> bool:
            r = m.by_name().get(name)
            if r is None or not r.cbd:
                return False
            r.cbd = False
            return True

        def fewer_keys(m: Model, name: str = name) -> bool:
            r = m.by_name().get(name)
            if r is None:
                return False
            if r.mode == "count" and r.count > 1:
                r.count -= 1
                return True
            if r.mode == "for_each" and len(r.keys) > 1:
                r.keys = r.keys[:-1]
                return True
            return False

        def no_trigger(m: Model, name: str = name) -> bool:
            r = m.by_name().get(name)
            if r is None or r.trigger_by is None:
                return False
            r.trigger_by = None
            return True

        edits += [no_refs, no_depends, no_cbd, fewer_keys, no_trigger]
    for edit in edits:
        for which in ("both", "v1", "v2"):
            a, b = copy.deepcopy(v1), copy.deepcopy(v2)
            changed = False
            if which in ("both", "v1"):
                changed |= edit(a)
            if which in ("both", "v2"):
                changed |= edit(b)
            if changed:
                yield a, b, opts
    for m_index in (0, 1):
        m = (v1, v2)[m_index]
        for i in range(len(m.outputs)):
            a, b = copy.deepcopy(v1), copy.deepcopy(v2)
            (a, b)[m_index].outputs.pop(i)
            yield a, b, opts
    for i in range(len(opts)):
        yield v1, v2, opts[:i] + opts[i + 1:]


def _valid(opts: tuple[str, ...], v1: Model, v2: Model) -> bool:
    """Options name instances that exist (a -replace of a dropped instance is an error)."""
    insts = {i for r in v2.resources for i in r.instances()} | {f"terraform_data.{r.name}" for r in v2.resources}
    return all(o.split("=", 1)[1] in insts for o in opts)


def shrink(seed: int, cls: str, budget: int = 60, log: Callable[[str], None] = print) -> Case:
    """The smallest case found, from ``seed``'s, that still shows a mismatch of ``cls``."""
    v1, v2, opts = models(seed)
    lay = layout(seed, v1, v2)  # kept while resources go: the module and null_resource stay put
    best = build(seed, v1, v2, opts, lay)
    attempts = 0
    progress = True
    while progress and attempts < budget:
        progress = False
        for a, b, o in _each_resource_edit(v1, v2, opts):
            if attempts >= budget:
                break
            if not a.resources or not _valid(o, a, b):
                continue
            case = build(seed, a, b, o, lay)
            attempts += 1
            found = compare(case, *run_case(case))
            if any(m.cls == cls for m in found):
                v1, v2, opts, best = a, b, o, case
                size = sum(len(r.instances()) for r in b.resources)
                log(f"shrink attempt {attempts}: kept ({len(b.resources)} resources, {size} instances in v2)")
                progress = True
                break
    return best
