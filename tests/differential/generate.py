"""Random configuration pairs v1 → v2 from a seed, built from ``terraform_data`` only.

A configuration is a list of resources ``r0 … rN`` in a fixed topological order: a
resource refers to (``input``) or waits for (``depends_on``) earlier resources only, so
every generated graph is a DAG. Each resource is a single instance, a ``count`` or a
``for_each`` over a set of keys; it may use ``create_before_destroy`` and a
``triggers_replace`` value. v2 is v1 mutated: inputs and triggers changed, resources
removed or added, instance keys changed, ``create_before_destroy`` toggled, and the
v2 apply may carry ``-replace`` and ``-target`` options. Some resources name an earlier one
in ``replace_triggered_by`` (the whole resource, an instance, or an attribute of either),
chosen by a generator of their own so that the rest of a seed's case stays what it was.

The invariant: the same seed always gives the same pair (``random.Random(seed)`` is the
only source of choice), and both configurations are valid for terraform 1.11, so a
failing seed can be replayed and an error on either side is itself a finding.
"""

from __future__ import annotations

import copy
import random
from dataclasses import dataclass, field

KEYS = ("a", "b", "c")
ATTRS = ("id", "output")


@dataclass
class Resource:
    """One ``terraform_data`` block; ``refs`` are (earlier resource, attribute) pairs."""

    name: str
    mode: str  # "single", "count" or "for_each"
    count: int = 1
    keys: tuple[str, ...] = ()
    literal: str = "v0"
    trigger: str | None = None
    refs: list[tuple[str, str]] = field(default_factory=list)
    depends_on: list[str] = field(default_factory=list)
    cbd: bool = False
    trigger_by: tuple[str, str | None, str | None] | None = None
    """``replace_triggered_by``'s one item: (earlier resource, key, attribute); the key is None
    (the whole resource), "rep" (``count.index`` / ``each.key``) or a constant's HCL text."""

    def instances(self) -> list[str]:
        base = f"terraform_data.{self.name}"
        if self.mode == "single":
            return [base]
        if self.mode == "count":
            return [f"{base}[{i}]" for i in range(self.count)]
        return [f'{base}["{k}"]' for k in self.keys]


@dataclass
class Model:
    resources: list[Resource]
    outputs: list[tuple[str, str, str]]  # (output name, resource name, attribute)

    def by_name(self) -> dict[str, Resource]:
        return {r.name: r for r in self.resources}


@dataclass(frozen=True, slots=True)
class Case:
    """A replayable differential case: two configurations and the v2 apply's options."""

    seed: int
    v1: str
    v2: str
    options: tuple[str, ...]

    def describe(self) -> str:
        opts = " ".join(self.options) or "(none)"
        return (f"seed {self.seed}\n--- v1 main.tf\n{self.v1}--- v2 main.tf\n{self.v2}"
                f"--- v2 apply options: {opts}\n")


def _ref_expr(target: Resource, attr: str) -> str:
    base = f"terraform_data.{target.name}"
    if target.mode == "single":
        return f"{base}.{attr}"
    if target.mode == "count":
        return f"{base}[*].{attr}"
    return f"{{ for k, v in {base} : k => v.{attr} }}"


def _trigger_expr(r: Resource) -> str:
    assert r.trigger_by is not None
    target, key, attr = r.trigger_by
    text = f"terraform_data.{target}"
    if key == "rep":
        text += "[count.index]" if r.mode == "count" else "[each.key]"
    elif key is not None:
        text += f"[{key}]"
    return text + (f".{attr}" if attr else "")


def render(model: Model) -> str:
    """The ``main.tf`` text of a model."""
    by_name = model.by_name()
    out: list[str] = []
    for r in model.resources:
        lines = [f'resource "terraform_data" "{r.name}" {{']
        if r.mode == "count":
            lines.append(f"  count = {r.count}")
        elif r.mode == "for_each":
            keys = ", ".join(f'"{k}"' for k in r.keys)
            lines.append(f"  for_each = toset([{keys}])")
        own = {"single": f'"{r.literal}"', "count": f'"{r.literal}-${{count.index}}"',
               "for_each": f'"{r.literal}-${{each.key}}"'}[r.mode]
        if r.refs:
            parts = [f"    v = {own}"]
            parts += [f"    {t}_{a} = {_ref_expr(by_name[t], a)}" for t, a in r.refs]
            lines.append("  input = {\n" + "\n".join(parts) + "\n  }")
        else:
            lines.append(f"  input = {own}")
        if r.trigger is not None:
            lines.append(f'  triggers_replace = "{r.trigger}"')
        if r.depends_on:
            lines.append("  depends_on = [" + ", ".join(f"terraform_data.{d}" for d in r.depends_on) + "]")
        life = ["    create_before_destroy = true"] if r.cbd else []
        if r.trigger_by is not None:
            life.append(f"    replace_triggered_by = [{_trigger_expr(r)}]")
        if life:
            lines.append("  lifecycle {\n" + "\n".join(life) + "\n  }")
        lines.append("}")
        out.append("\n".join(lines))
    for name, target, attr in model.outputs:
        out.append(f'output "{name}" {{\n  value = {_ref_expr(by_name[target], attr)}\n}}')
    return "\n\n".join(out) + "\n"


def _new_resource(rng: random.Random, name: str, earlier: list[Resource]) -> Resource:
    mode = rng.choices(("single", "count", "for_each"), weights=(5, 2, 2))[0]
    r = Resource(name=name, mode=mode)
    if mode == "count":
        r.count = rng.randint(1, 3)
    elif mode == "for_each":
        r.keys = tuple(sorted(rng.sample(KEYS, rng.randint(1, 3))))
    r.literal = f"v{rng.randint(0, 2)}"
    if rng.random() < 0.4:
        r.trigger = f"t{rng.randint(0, 2)}"
    if earlier:
        for t in rng.sample(earlier, min(len(earlier), rng.choice((0, 1, 1, 2, 2, 3)))):
            r.refs.append((t.name, rng.choice(ATTRS)))
        others = [e.name for e in earlier if e.name not in {t for t, _ in r.refs}]
        if others and rng.random() < 0.3:
            r.depends_on = [rng.choice(others)]
    r.cbd = rng.random() < 0.3
    return r


def _instance_count(r: Resource) -> int:
    return len(r.instances())


def _generate_v1(rng: random.Random) -> Model:
    resources: list[Resource] = []
    budget = rng.randint(3, 12)
    while sum(_instance_count(r) for r in resources) < budget and len(resources) < 8:
        resources.append(_new_resource(rng, f"r{len(resources)}", resources))
    model = Model(resources, [])
    _add_outputs(rng, model)
    return model


def _add_outputs(rng: random.Random, model: Model) -> None:
    model.outputs = [(f"o{i}", t.name, rng.choice(ATTRS))
                     for i, t in enumerate(rng.sample(model.resources, min(2, len(model.resources))))]


def forget(model: Model, gone: str) -> None:
    """Remove every reference to a removed resource (its dependents change as a result)."""
    for r in model.resources:
        r.refs = [(t, a) for t, a in r.refs if t != gone]
        r.depends_on = [d for d in r.depends_on if d != gone]
        if r.trigger_by is not None and r.trigger_by[0] == gone:
            r.trigger_by = None
    model.outputs = [o for o in model.outputs if o[1] != gone]


def _mutate(rng: random.Random, v1: Model) -> Model:
    v2 = copy.deepcopy(v1)
    for r in list(v2.resources):
        roll = rng.random()
        if roll < 0.12 and len(v2.resources) > 2:
            v2.resources.remove(r)
            forget(v2, r.name)
            continue
        if roll < 0.35:
            r.trigger = f"t{rng.randint(3, 5)}"
        elif roll < 0.55:
            r.literal = f"v{rng.randint(0, 4)}"  # may equal the old value: a no-op
        if rng.random() < 0.15:
            r.cbd = not r.cbd
        if r.mode == "count" and rng.random() < 0.25:
            r.count = rng.randint(0, 3)
        elif r.mode == "for_each" and rng.random() < 0.25:
            r.keys = tuple(sorted(rng.sample(KEYS, rng.randint(0, 3))))
        if rng.random() < 0.1:
            earlier = v2.resources[: v2.resources.index(r)]
            if earlier:
                r.depends_on = sorted({*r.depends_on, rng.choice(earlier).name})
    if rng.random() < 0.3:
        v2.resources.append(_new_resource(rng, f"r{len(v1.resources)}", list(v2.resources)))
    if rng.random() < 0.2 or not v2.outputs:
        _add_outputs(rng, v2)
    return v2


def _options(rng: random.Random, v1: Model, v2: Model) -> tuple[str, ...]:
    opts: list[str] = []
    old = {i for r in v1.resources for i in r.instances()}
    both = sorted(i for r in v2.resources for i in r.instances() if i in old)
    if both and rng.random() < 0.25:
        opts.append(f"-replace={rng.choice(both)}")
    if rng.random() < 0.15:
        r = rng.choice(v2.resources)
        choices = [f"terraform_data.{r.name}", *r.instances()]
        opts.append(f"-target={rng.choice(choices)}")
    return tuple(opts)


def _new_trigger(rng: random.Random, r: Resource, earlier: list[Resource]) -> tuple[str, str | None, str | None]:
    t = rng.choice(earlier)
    key: str | None = None
    roll = rng.random()
    if roll < 0.3 and t.mode != "single" and t.mode == r.mode:
        key = "rep"
    elif roll < 0.5 and t.mode != "single":
        keys = [str(i) for i in range(t.count)] if t.mode == "count" else [f'"{k}"' for k in t.keys]
        key = rng.choice(keys or ["0"])  # none: dropped as naming nothing (_keep_valid_triggers)
    attr = rng.choice((None, None, "id", "output", "input"))
    if key is None and t.mode != "single":
        attr = None  # terraform_data.t.id is of the instance without a key: "no change found"
    return t.name, key, attr


def _trigger_instances(r: Resource, t: Resource) -> list[str]:
    """The instances of ``t`` that ``r``'s ``replace_triggered_by`` names."""
    assert r.trigger_by is not None
    _, key, _ = r.trigger_by
    base = f"terraform_data.{t.name}"
    if key == "rep":
        return [base + i.removeprefix(f"terraform_data.{r.name}") for i in r.instances()]
    return [f"{base}[{key}]"] if key is not None else []


def _keep_valid_triggers(model: Model, before: Model | None) -> None:
    """Drop each ``replace_triggered_by`` that would name an instance with no change planned
    (terraform's "no change found" error): what it names must be in the configuration, or in
    the state the previous configuration left (``before``)."""
    names = [r.name for r in model.resources]
    old = {r.name: set(r.instances()) for r in before.resources} if before is not None else {}
    by_name = model.by_name()
    for r in model.resources:
        if r.trigger_by is None:
            continue
        t = by_name.get(r.trigger_by[0])
        if t is None or names.index(t.name) >= names.index(r.name):
            r.trigger_by = None
            continue
        have = set(t.instances()) | old.get(t.name, set())
        wanted = _trigger_instances(r, t)
        if (r.trigger_by[1] == "rep" and r.mode != t.mode) or not set(wanted) <= have or not have:
            r.trigger_by = None


def _add_triggers(seed: int, v1: Model, v2: Model) -> None:
    """``replace_triggered_by`` on some resources of v1, kept, changed or dropped in v2."""
    rng = random.Random(f"replace_triggered_by:{seed}")  # its own: the rest of the case is unchanged
    for i, r in enumerate(v1.resources):
        if i and rng.random() < 0.3:
            r.trigger_by = _new_trigger(rng, r, v1.resources[:i])
    _keep_valid_triggers(v1, None)
    given = {r.name: r.trigger_by for r in v1.resources}
    for i, r in enumerate(v2.resources):
        r.trigger_by = given.get(r.name)
        roll = rng.random()
        if i and (roll < 0.15 or (r.name not in given and roll < 0.3)):
            r.trigger_by = _new_trigger(rng, r, v2.resources[:i])
        elif roll > 0.9:
            r.trigger_by = None
    _keep_valid_triggers(v2, v1)


def models(seed: int) -> tuple[Model, Model, tuple[str, ...]]:
    """The models behind the case of ``seed`` (what the shrinker edits)."""
    rng = random.Random(seed)
    v1 = _generate_v1(rng)
    v2 = _mutate(rng, v1)
    options = _options(rng, v1, v2)
    _add_triggers(seed, v1, v2)
    return v1, v2, options


def generate(seed: int) -> Case:
    """The case of ``seed``: always the same two configurations and options."""
    v1, v2, options = models(seed)
    return Case(seed=seed, v1=render(v1), v2=render(v2), options=options)
