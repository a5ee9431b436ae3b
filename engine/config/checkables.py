"""The results of the conditions outside ``check`` blocks, gathered while a plan or an apply walks:
resources' ``precondition`` / ``postcondition``, outputs' ``precondition`` and variables'
``validation`` (:mod:`engine.config.check_results` says what a result is).

As terraform's ``checks.State``: every configuration object with conditions is known from the
start, its objects once its expansion is (until then it is unknown, without objects), and each
condition of each object unknown until the walk reports it. A walk that stops early leaves what
it did not reach unknown.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Set

from engine.addrs import ModulePath, ResourceAddr, config_text, resource_addr
from engine.config import conditions
from engine.config.check_results import (
    FAIL,
    OUTPUT,
    RESOURCE,
    UNKNOWN,
    VAR,
    CheckObject,
    CheckResult,
    summarize,
)
from engine.config.model import Module
from engine.config.module_instances import ModuleInstances
from engine.lang import expr as E

PRECONDITION, POSTCONDITION, OUTPUT_PRECONDITION, VALIDATION = "precondition", "postcondition", "output", "validation"
"""The kinds of condition (as :func:`engine.config.conditions.check` names them)."""


def resource_config_addr(addr: ResourceAddr) -> str:
    """A resource's configuration address, as its checks are recorded (``module.m.TYPE.NAME``)."""
    return config_text(addr)


def named_config_addr(path: tuple[str, ...], what: str, name: str) -> str:
    """An output's or variable's configuration address (``module.m.output.o``, ``var.v``)."""
    return ".".join([*(f"module.{n}" for n in path), what, name])


Report = Callable[[int, str, str], None]
"""What a condition came to, reported as it is evaluated: (its index, status, failure message)."""


class Checkables:
    """The conditions' results of one walk (mutable: the walk reports into it; a plan or an apply
    makes one). Objects are named by their addresses' strings; reports about an object not
    declared with :meth:`objects` are ignored (as are those of a configuration object without
    conditions)."""

    def __init__(self, module: Module) -> None:
        self._kinds: dict[str, tuple[str, dict[str, int]]] = {}
        """Each configuration object with conditions: its kind and how many of each condition."""
        self._objects: dict[str, dict[str, dict[str, list[tuple[str, str]]]]] = {}
        """Each configuration object's objects, once known: each condition's (status, message)."""
        self._config_of: dict[str, str] = {}
        for m in module.tree():
            for rc in m.resources.values():
                counts = {k: n for k, n in ((PRECONDITION, len(rc.lifecycle.preconditions)),
                                            (POSTCONDITION, len(rc.lifecycle.postconditions))) if n}
                if counts:
                    # the module's own address of it (root-relative in a module's configuration)
                    self._kinds[named_config_addr(m.path, *str(rc.addr).rsplit(".", 1))] = (RESOURCE, counts)
            for oc in m.outputs.values():
                if oc.preconditions:
                    self._kinds[named_config_addr(m.path, "output", oc.name)] = (
                        OUTPUT, {OUTPUT_PRECONDITION: len(oc.preconditions)})
            for vc in m.variables.values():
                if vc.validations:
                    self._kinds[named_config_addr(m.path, "var", vc.name)] = (
                        VAR, {VALIDATION: len(vc.validations)})

    @property
    def any(self) -> bool:
        """Has the configuration any condition outside check blocks?"""
        return bool(self._kinds)

    @property
    def any_resource(self) -> bool:
        """Has any resource of the configuration a condition? (When none has, a walk over every
        resource has nothing to look at: a large configuration's apply skips it.)"""
        return any(kind == RESOURCE for kind, _counts in self._kinds.values())

    def has(self, config_addr: str) -> bool:
        """Does the configuration object at ``config_addr`` have conditions?"""
        return config_addr in self._kinds

    def objects(self, config_addr: str, addrs: Iterable[str]) -> None:
        """The objects of ``config_addr`` (added to those already known: a module's resource is
        expanded once per instance of its module), each condition unknown yet."""
        known = self._kinds.get(config_addr)
        if known is None:
            return
        objects = self._objects.setdefault(config_addr, {})
        for a in addrs:
            if a not in objects:
                objects[a] = {k: [(UNKNOWN, "")] * n for k, n in known[1].items()}
                self._config_of[a] = config_addr

    def report(self, addr: str, kind: str, index: int, status: str, message: str = "") -> None:
        """Condition ``index`` of ``kind`` of object ``addr``: ``status``, and ``message`` (the
        error message, trimmed) when it failed."""
        config_addr = self._config_of.get(addr)
        if config_addr is None:
            return
        statuses = self._objects[config_addr][addr].get(kind)
        if statuses is not None and index < len(statuses):
            statuses[index] = (status, message if status == FAIL else "")

    def reporter(self, addr: str, kind: str) -> Report:
        """What :func:`engine.config.conditions.check` reports the conditions of ``kind`` of object
        ``addr`` to."""
        return lambda index, status, message: self.report(addr, kind, index, status, message)

    def results(self) -> tuple[CheckResult, ...]:
        """Every configuration object's result, in the order of the configuration."""
        out = []
        for config_addr, (kind, _counts) in self._kinds.items():
            objects = self._objects.get(config_addr)
            if objects is None:
                out.append(CheckResult(config_addr, UNKNOWN, None, kind))
                continue
            found = tuple(_object(a, rules) for a, rules in objects.items())
            statuses = [s for rules in objects.values() for rule in rules.values() for s, _m in rule]
            out.append(CheckResult(config_addr, summarize(statuses), found, kind))
        return tuple(out)


def _object(addr: str, rules: dict[str, list[tuple[str, str]]]) -> CheckObject:
    statuses = [s for rule in rules.values() for s, _m in rule]
    # as terraform's: the messages of what failed, sorted, empty ones left out
    messages = sorted(m for rule in rules.values() for s, m in rule if s == FAIL and m)
    return CheckObject(addr, summarize(statuses), tuple(messages))


def check_module_values(checkables: Checkables, root: Module, instances: ModuleInstances,
                        unfinished: Set[ResourceAddr]) -> None:
    """The variables' validations and the outputs' preconditions of every module instance; one
    whose value comes from a resource the walk did not finish (``unfinished``: through variables
    and module outputs too) is not checked, as terraform's walk does not reach it."""
    blocked = _blocked(root, instances, unfinished) if unfinished else set()
    for m in root.tree():
        wanted = [vc for vc in m.variables.values() if vc.validations], \
                 [oc for oc in m.outputs.values() if oc.preconditions]
        if not any(wanted):
            continue
        for mi in instances.of_config(m.path):
            scope = mi.scope()
            prefix = f"{mi.path}." if mi.path.steps else ""
            for vc in wanted[0]:
                addr = f"{prefix}var.{vc.name}"
                checkables.objects(named_config_addr(m.path, "var", vc.name), [addr])
                if ("var", mi.path, vc.name) not in blocked:
                    conditions.check(vc.validations, scope, "validation",
                                     report=checkables.reporter(addr, VALIDATION))
            for oc in wanted[1]:
                addr = f"{prefix}output.{oc.name}"
                checkables.objects(named_config_addr(m.path, "output", oc.name), [addr])
                if ("output", mi.path, oc.name) not in blocked:
                    conditions.check(oc.preconditions, scope, "output",
                                     report=checkables.reporter(addr, OUTPUT_PRECONDITION))


def _blocked(root: Module, instances: ModuleInstances, unfinished: Set[ResourceAddr]
             ) -> set[tuple[str, ModulePath, str]]:
    """The variables (``("var", module instance, name)``) and outputs (``("output", ...)``) whose
    values come from ``unfinished`` resources: a variable through its call's argument (in the
    parent), an output through its expression or preconditions (in its own module instance)."""
    blocked: set[tuple[str, ModulePath, str]] = set()
    tree = list(root.tree())
    for m in tree:  # parents first: a variable may take a parent's variable
        for mi in instances.of_config(m.path):
            if mi.call is None:
                continue
            for name, arg in mi.call.arguments.items():
                if _uses(blocked, [arg.expr], mi.path.parent, unfinished):
                    blocked.add(("var", mi.path, name))
    for m in reversed(tree):  # children first: an output may take a child's output
        for mi in instances.of_config(m.path):
            for oc in m.outputs.values():
                if _uses(blocked, [oc.expr, *(c.condition for c in oc.preconditions)], mi.path, unfinished):
                    blocked.add(("output", mi.path, oc.name))
    return blocked


def _uses(blocked: set[tuple[str, ModulePath, str]], exprs: list[E.Expr], path: ModulePath,
          unfinished: Set[ResourceAddr]) -> bool:
    """Does any of ``exprs`` (in module instance ``path``) refer to an unfinished resource or a
    blocked variable or module output?"""
    for e in exprs:
        for ref in E.references(e):
            first, second = ref.step_name(0), ref.step_name(1)
            if ref.root == "var":
                if first is not None and ("var", path, first) in blocked:
                    return True
            elif ref.root == "module":
                out = next((s for s in ref.steps[1:] if isinstance(s, str)), None)
                if any(kind == "output" and name == out and p.steps[:-1] == path.steps and p.steps[-1][0] == first
                       for kind, p, name in blocked if p.steps):
                    return True
            else:
                mode, type_, name = ("data", first, second) if ref.root == "data" else ("managed", ref.root, first)
                if type_ is not None and name is not None and resource_addr(type_, name, mode, path) in unfinished:
                    return True
    return False


def not_checked(root: Module, destroy: bool) -> tuple[CheckResult, ...]:
    """What terraform records when a plan or an apply does not check the conditions (a destroy,
    or an apply under -target): each unknown, without objects, but for a destroy's root outputs:
    each one's object unknown."""
    checkables = Checkables(root)
    if destroy:
        for oc in root.outputs.values():
            if oc.preconditions:
                addr = named_config_addr((), "output", oc.name)
                checkables.objects(addr, [addr])
    return checkables.results()


__all__ = ["OUTPUT_PRECONDITION", "POSTCONDITION", "PRECONDITION", "VALIDATION", "Checkables", "Report",
           "check_module_values", "named_config_addr", "not_checked",
           "resource_config_addr"]
