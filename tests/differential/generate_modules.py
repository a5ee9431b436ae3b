"""Lay a generated pair of models out over a local child module and the real null plugin.

``generate.py`` builds two models of ``terraform_data`` resources in the root module. This
hook decides, from the seed alone, a :class:`Layout` over them, and renders the pair:

- **a local module** (in about a third of the seeds): some resources live in ``./m``,
  called as ``module "m"``, as a single instance, with ``count`` or with ``for_each`` (the
  expansion may change from v1 to v2). A module resource refers to a root one through a
  variable the call passes in; a root resource (or output) refers to a module one through
  an output of the module, as ``module.m.X``, ``module.m[*].X`` or ``{ for k, v in
  module.m : k => v.X }``. A root resource's ``depends_on`` a module resource becomes
  ``depends_on = [module.m]`` when every module resource comes earlier (so no cycle), and
  is dropped otherwise; a module resource's ``depends_on`` a root one is dropped.
- **the null plugin** (in about a quarter of the seeds): some resources are
  ``null_resource`` with ``triggers``, a map of strings: the own literal under ``v``, each
  reference ``jsonencode``-d, the trigger under ``t``. Every change of ``triggers``
  replaces the object; a reference to a null resource's ``output`` reads its ``triggers``.
  Both tools run the same binary from the plugin mirror (``make plugins``).

The invariant: a seed whose layout uses neither gives exactly ``generate.generate(seed)``
(same text, same options), so adding this hook changed no existing seed; the layout's
choices come from a generator of their own, never from the models' stream.
"""

from __future__ import annotations

import copy
import random
from dataclasses import dataclass, field

from tests.differential.generate import Case, Model, Resource, _trigger_expr, models, render

MODULE_RATE = 0.35
NULL_RATE = 0.25
CALL_KEYS = ("x", "y")
NULL_PROVIDER = ('terraform {\n  required_providers {\n'
                 '    null = { source = "hashicorp/null", version = "2.1.2" }\n  }\n}\n\n')


@dataclass(frozen=True, slots=True)
class ModularCase(Case):
    """A case with files besides ``main.tf`` (``m/main.tf``) and, with ``plugins``, the
    null plugin installed from the mirror by both tools' ``init``."""

    files1: tuple[tuple[str, str], ...] = ()
    files2: tuple[tuple[str, str], ...] = ()
    plugins: bool = False

    def describe(self) -> str:
        text = Case.describe(self)  # (slots: the class is rebuilt, so no bare super())
        for version, files in (("v1", self.files1), ("v2", self.files2)):
            for path, body in files:
                text += f"--- {version} {path}\n{body}"
        if self.plugins:
            text += "--- both tools init with -plugin-dir=MIRROR (null 2.1.2)\n"
        return text


@dataclass
class Call:
    """How ``module "m"`` expands in one configuration."""

    mode: str = "single"  # "single", "count" or "for_each"
    count: int = 1
    keys: tuple[str, ...] = ()

    def prefixes(self) -> list[str]:
        if self.mode == "single":
            return ["module.m"]
        if self.mode == "count":
            return [f"module.m[{i}]" for i in range(self.count)]
        return [f'module.m["{k}"]' for k in self.keys]


@dataclass
class Layout:
    """Which resources (by name) are in the module and which are ``null_resource``."""

    inside: frozenset[str] = frozenset()
    null: frozenset[str] = frozenset()
    calls: tuple[Call, Call] = field(default_factory=lambda: (Call(), Call()))

    @property
    def active(self) -> bool:
        return bool(self.inside or self.null)

    def type_of(self, name: str) -> str:
        return "null_resource" if name in self.null else "terraform_data"


def _call(rng: random.Random) -> Call:
    mode = rng.choices(("single", "count", "for_each"), weights=(3, 2, 2))[0]
    if mode == "count":
        return Call(mode, count=rng.randint(1, 2))
    if mode == "for_each":
        return Call(mode, keys=tuple(sorted(rng.sample(CALL_KEYS, rng.randint(1, 2)))))
    return Call()


def layout(seed: int, v1: Model, v2: Model) -> Layout:
    """The seed's layout of ``v1`` and ``v2`` (its own random stream)."""
    rng = random.Random(f"strata-differential-layout-{seed}")
    names = sorted({r.name for m in (v1, v2) for r in m.resources}, key=lambda n: int(n[1:]))
    inside: frozenset[str] = frozenset()
    calls = (Call(), Call())
    if rng.random() < MODULE_RATE:
        inside = frozenset(n for n in names if rng.random() < 0.5) or frozenset(names[-1:])
        first = _call(rng)
        second = copy.deepcopy(first)
        if first.mode == "count" and rng.random() < 0.3:
            second.count = rng.randint(0, 2)
        elif first.mode == "for_each" and rng.random() < 0.3:
            second.keys = tuple(sorted(rng.sample(CALL_KEYS, rng.randint(0, 2))))
        calls = (first, second)
    null: frozenset[str] = frozenset()
    if rng.random() < NULL_RATE:
        null = frozenset(n for n in names if rng.random() < 0.5) or frozenset(names[:1])
    return Layout(inside, null, calls)


# --------------------------------------------------------------------------- rendering


class _Renderer:
    """Renders one model under a layout and one expansion of the module call."""

    def __init__(self, model: Model, lay: Layout, call: Call) -> None:
        self.model, self.lay, self.call = model, lay, call
        self.by_name = model.by_name()
        self.order = {r.name: i for i, r in enumerate(model.resources)}
        self.variables: dict[str, str] = {}  # module variable → root expression
        self.outputs: dict[str, str] = {}  # module output → module expression

    def _attr(self, name: str, attr: str) -> str:
        return "triggers" if attr == "output" and name in self.lay.null else attr

    def local(self, name: str, attr: str) -> str:
        """A reference to ``name``'s ``attr`` from the module it is in."""
        t = self.by_name[name]
        base = f"{self.lay.type_of(name)}.{name}"
        attr = self._attr(name, attr)
        if t.mode == "single":
            return f"{base}.{attr}"
        if t.mode == "count":
            return f"{base}[*].{attr}"
        return f"{{ for k, v in {base} : k => v.{attr} }}"

    def ref(self, name: str, attr: str, inside: bool) -> str:
        """A reference to ``name``'s ``attr`` from the root (``inside`` False) or the module."""
        there = name in self.lay.inside
        if there == inside:
            return self.local(name, attr)
        var = f"{name}_{attr}"
        if inside:
            self.variables[var] = self.local(name, attr)
            return f"var.{var}"
        self.outputs[var] = self.local(name, attr)
        if self.call.mode == "single":
            return f"module.m.{var}"
        if self.call.mode == "count":
            return f"module.m[*].{var}"
        return f"{{ for k, v in module.m : k => v.{var} }}"

    def _module_before(self, r: Resource) -> bool:
        """Whether every module resource comes before the root resource ``r``. A reference to
        an expanded module (``module.m[*].X``) waits for all of its outputs, so ``r`` may
        use one only then: otherwise an output could wait for ``r`` (a cycle)."""
        return all(self.order[n] < self.order[r.name] for n in self.lay.inside if n in self.order)

    def _depends_on(self, r: Resource, inside: bool) -> list[str]:
        out: list[str] = []
        for d in r.depends_on:
            if (d in self.lay.inside) == inside:
                out.append(f"{self.lay.type_of(d)}.{d}")
            elif not inside and self._module_before(r):
                out.append("module.m")
        return sorted(set(out))

    def resource(self, r: Resource) -> str:
        inside = r.name in self.lay.inside
        kind = self.lay.type_of(r.name)
        lines = [f'resource "{kind}" "{r.name}" {{']
        if r.mode == "count":
            lines.append(f"  count = {r.count}")
        elif r.mode == "for_each":
            lines.append("  for_each = toset([" + ", ".join(f'"{k}"' for k in r.keys) + "])")
        own = {"single": f'"{r.literal}"', "count": f'"{r.literal}-${{count.index}}"',
               "for_each": f'"{r.literal}-${{each.key}}"'}[r.mode]
        refs = [(f"{t}_{a}", self.ref(t, a, inside)) for t, a in r.refs
                if inside or t not in self.lay.inside or self.call.mode == "single" or self._module_before(r)]
        if kind == "null_resource":
            parts = [f"    v = {own}"] + [f"    {k} = jsonencode({e})" for k, e in refs]
            if r.trigger is not None:
                parts.append(f'    t = "{r.trigger}"')
            lines.append("  triggers = {\n" + "\n".join(parts) + "\n  }")
        else:
            if refs:
                parts = [f"    v = {own}"] + [f"    {k} = {e}" for k, e in refs]
                lines.append("  input = {\n" + "\n".join(parts) + "\n  }")
            else:
                lines.append(f"  input = {own}")
            if r.trigger is not None:
                lines.append(f'  triggers_replace = "{r.trigger}"')
        deps = self._depends_on(r, inside)
        if deps:
            lines.append("  depends_on = [" + ", ".join(deps) + "]")
        life = ["    create_before_destroy = true"] if r.cbd else []
        t = r.trigger_by
        # replace_triggered_by names a managed resource of its own module: kept where the layout
        # keeps the two together and the one it names is a terraform_data (whose attributes it
        # reads); not inside an expanded module, where terraform orders every instance after every
        # instance of what it names, across the module's instances: strata does so for a whole
        # resource now (tests/cli/test_parity_modules.py), not for one instance named by
        # count.index or each.key (per instance, as in the root); kept out so seeds stay as they were
        if t is not None and (t[0] in self.lay.inside) == inside and self.lay.type_of(t[0]) == "terraform_data" \
                and (not inside or self.call.mode == "single"):
            life.append(f"    replace_triggered_by = [{_trigger_expr(r)}]")
        if life:
            lines.append("  lifecycle {\n" + "\n".join(life) + "\n  }")
        lines.append("}")
        return "\n".join(lines)

    def files(self) -> tuple[str, tuple[tuple[str, str], ...]]:
        """``main.tf`` and the module's files (none without a module)."""
        root = [self.resource(r) for r in self.model.resources if r.name not in self.lay.inside]
        inner = [self.resource(r) for r in self.model.resources if r.name in self.lay.inside]
        outputs = [f'output "{n}" {{\n  value = {self.ref(t, a, False)}\n}}' for n, t, a in self.model.outputs]
        if not self.lay.inside:
            head = NULL_PROVIDER if self.lay.null else ""
            return head + "\n\n".join(root + outputs) + "\n", ()
        call = ['module "m" {', '  source = "./m"']
        if self.call.mode == "count":
            call.append(f"  count = {self.call.count}")
        elif self.call.mode == "for_each":
            call.append("  for_each = toset([" + ", ".join(f'"{k}"' for k in self.call.keys) + "])")
        call += [f"  {v} = {e}" for v, e in sorted(self.variables.items())]
        call.append("}")
        head = NULL_PROVIDER if self.lay.null else ""
        main = head + "\n\n".join([*root, "\n".join(call), *outputs]) + "\n"
        mod = [f'variable "{v}" {{}}' for v in sorted(self.variables)]
        mod += inner
        mod += [f'output "{o}" {{\n  value = {e}\n}}' for o, e in sorted(self.outputs.items())]
        needs_null = any(r.name in self.lay.null for r in self.model.resources if r.name in self.lay.inside)
        mhead = NULL_PROVIDER if needs_null else ""
        return main, (("m/main.tf", mhead + "\n\n".join(mod) + "\n"),)


def _option(seed: int, opt: str, lay: Layout) -> str | None:
    """A ``-replace``/``-target`` option of the models, addressed as the layout places it
    (None when its module instance is gone)."""
    flag, addr = opt.split("=", 1)
    name = addr.removeprefix("terraform_data.").split("[", 1)[0]
    addr = f"{lay.type_of(name)}.{addr.removeprefix('terraform_data.')}"
    if name not in lay.inside:
        return f"{flag}={addr}"
    prefixes = lay.calls[1].prefixes()
    if flag == "-replace":
        prefixes = [p for p in prefixes if p in lay.calls[0].prefixes()]
    if not prefixes:
        return None
    return f"{flag}={random.Random(f'{seed}-{opt}').choice(prefixes)}.{addr}"


def build(seed: int, v1: Model, v2: Model, options: tuple[str, ...], lay: Layout) -> Case:
    """The case of two models laid out by ``lay``: a plain :class:`Case` when the layout
    uses neither a module nor the null plugin."""
    if not lay.active:
        return Case(seed=seed, v1=render(v1), v2=render(v2), options=options)
    main1, files1 = _Renderer(v1, lay, lay.calls[0]).files()
    main2, files2 = _Renderer(v2, lay, lay.calls[1]).files()
    opts = tuple(o for o in (_option(seed, o, lay) for o in options) if o is not None)
    return ModularCase(seed=seed, v1=main1, v2=main2, options=opts, files1=files1, files2=files2,
                       plugins=bool(lay.null))


def generate(seed: int) -> Case:
    """The case of ``seed``, laid out over a module and the null plugin as its layout says."""
    v1, v2, options = models(seed)
    return build(seed, v1, v2, options, layout(seed, v1, v2))
