"""Module instances and the scope of each: what ``var.``, ``local.``, resources, ``module.`` and
``path.module`` mean inside ``module.a[0].module.b``.

:class:`ModuleInstances` knows every module instance of a configuration: the root, and below it
the instances each module call expands to (its ``count`` or ``for_each`` evaluated in the
instance that calls it). Each :class:`ModuleInstance` is the resolver its expressions see: it
names resources by their address within the module (the evaluator's ``terraform_data.a``) and
finds them, under its own module path, in the resolver of the whole configuration (the planner's
or the apply's, keyed by full addresses).

Values are worked out on first use and kept: while planning, the planner visits everything after
what it refers to, so the first use sees final values (``keep_all``); in apply only wholly known
values are kept, and only once the walk is over (``settled``): until then an instance's object
may be the one its pending change replaces.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from engine.addrs import ROOT, InstanceKey, ModulePath, ResourceAddr, resource_addr
from engine.config.expansion import Instances, expand
from engine.config.model import NO_DEFAULT, Module, ModuleCall
from engine.config.suggestions import undeclared_local
from engine.diagnostics import Diagnostic, SourceRange, decl_range, error
from engine.lang import expr as E
from engine.lang.convert import ConversionError, convert
from engine.lang.evaluate import EvalError, Scope, evaluate
from engine.lang.scope import ResourceResolver
from engine.lang.sensitivity import Sensitivity
from engine.values import UNKNOWN, is_wholly_known

Report = Callable[[Diagnostic, bool], None]
"""``report(diagnostic, needs_values)``: a mistake found while evaluating (``needs_values``: it
depends on what is planned, not on the configuration alone)."""

_BUSY: Any = object()


class ModuleInstances:
    """Every module instance of ``root``'s configuration, the root's given: its variables, its
    local values, the resolver of all resources. ``sensitivity(module)``: what may hold a
    sensitive value in a module's configuration."""

    def __init__(self, root: Module, variables: dict[str, Any], local_value: Callable[[str, int], Any],
                 resources: ResourceResolver, sensitivity: Callable[[Module], Sensitivity | None],
                 report: Report, keep_all: bool) -> None:
        self.root = root
        self.resources = resources
        self.sensitivity = sensitivity
        self.report = report
        self.keep_all = keep_all
        self.settled = True
        """Whether the resources' values can change no more: False while the apply walk runs, when
        a value kept now (a module output, a local, a variable) could hold a dependency's object as
        it was before its change is applied, and be read later by what waits for that change."""
        self.by_path: dict[ModulePath, ModuleInstance] = {}
        self._calls: dict[tuple[ModulePath, str], tuple[str, tuple[ModulePath, ...]] | None] = {}
        top = ModuleInstance(self, ROOT, root, None, None, None)
        top._variables = variables
        top._root_locals = local_value
        self.by_path[ROOT] = top

    def get(self, path: ModulePath) -> ModuleInstance | None:
        """The instance at ``path``; None when the configuration (as expanded) has no such one."""
        got = self.by_path.get(path)
        if got is None and path.steps:
            parent = self.get(path.parent)
            if parent is None:
                return None
            name, _key = path.steps[-1]
            if name not in parent.config.calls:
                return None
            self.call_instances(parent, name)
            got = self.by_path.get(path)
        return got

    def call_instances(self, parent: ModuleInstance, name: str) -> tuple[str, tuple[ModulePath, ...]] | None:
        """How the call ``name`` in ``parent`` expands ("single", "count" or "for_each") and the
        paths of its instances; None when its count or for_each could not be evaluated (reported)."""
        k = (parent.path, name)
        if k in self._calls:
            return self._calls[k]
        call = parent.config.calls[name]
        self._calls[k] = None  # a call whose count refers to its own outputs finds itself unexpanded
        found = expand(call, parent.scope)
        if not isinstance(found, Instances):
            meta = call.count if call.count is not None else call.for_each
            self.report(found, meta is not None and _needs_values(meta.expr))
            return None
        paths = []
        for key, sc in found.instances:
            p = parent.path.child(name, key)
            self.by_path[p] = ModuleInstance(self, p, call.module, parent, call,
                                             sc.each[1] if sc.each is not None else None)
            paths.append(p)
        got = (found.kind, tuple(paths))
        self._calls[k] = got
        return got

    def of_config(self, path: tuple[str, ...]) -> Iterator[ModuleInstance]:
        """The instances of the module at configuration path ``path`` (those of its ancestors
        that could be expanded)."""
        if not path:
            yield self.by_path[ROOT]
            return
        for parent in self.of_config(path[:-1]):
            got = self.call_instances(parent, path[-1])
            if got is not None:
                for p in got[1]:
                    yield self.by_path[p]


def _needs_values(expr: Any) -> bool:
    """Does ``expr`` refer to what planning works out (terraform finds its mistakes in the plan
    walk, not in validating the configuration)?"""
    return any(ref.root not in ("count", "each", "path", "terraform", "self") for ref in E.references(expr))


class ModuleInstance:
    """One module instance: its scope, and the resolver its expressions see (resources named
    within the module, ``module.NAME`` the outputs of the calls it makes)."""

    def __init__(self, owner: ModuleInstances, path: ModulePath, config: Module, parent: ModuleInstance | None,
                 call: ModuleCall | None, each_value: Any) -> None:
        self.owner = owner
        self.path = path
        self.config = config
        self.parent = parent
        self.call = call
        self.each_value = each_value
        self.module_dir = config.directory if path.steps else "."
        self._variables: dict[str, Any] | None = None
        self._root_locals: Callable[[str, int], Any] | None = None
        self._locals: dict[str, Any] = {}
        self._var_values: dict[str, Any] = {}
        self._outputs: dict[str, Any] = {}
        self._sensitivity: Sensitivity | None | bool = False
        self._addrs: dict[ResourceAddr, ResourceAddr] = {}

    # ------------------------------------------------------------------ scope

    @property
    def sensitivity(self) -> Sensitivity | None:
        if self._sensitivity is False:
            self._sensitivity = self.owner.sensitivity(self.config)
        return self._sensitivity  # type: ignore[return-value]

    @property
    def variables(self) -> dict[str, Any]:
        if self._variables is None:
            self._variables = _Variables(self)
        return self._variables

    def scope(self, count_index: int | None = None, each: tuple[Any, Any] | None = None) -> Scope:
        return Scope(self.variables, self.local_value, self, count_index, each, sensitivity=self.sensitivity,
                     local_config=self.config.locals.get)

    def caller_scope(self) -> Scope:
        """The scope of the call that makes this instance, in its parent: ``count.index`` and
        ``each`` are this instance's."""
        assert self.parent is not None
        key = self.path.steps[-1][1]
        count_index = key if isinstance(key, int) else None
        each = (key, self.each_value) if isinstance(key, str) else None
        return self.parent.scope(count_index, each)

    def keep(self, v: Any) -> bool:
        return self.owner.keep_all or self.owner.settled and is_wholly_known(v)

    def variable(self, name: str, line: int = 0) -> Any:
        """The value of the input variable ``name`` as the call gives it (its default otherwise),
        converted to its type; a mistake is reported and the value is then unknown."""
        if self._root_locals is not None:  # the root's are given
            return self.variables[name]
        got = self._var_values.get(name, _BUSY)
        if got is not _BUSY:
            return got
        v = self._evaluate_variable(name)
        if self.keep(v):
            self._var_values[name] = v
        return v

    def _evaluate_variable(self, name: str) -> Any:
        vc = self.config.variables[name]
        assert self.call is not None
        arg = self.call.arguments.get(name)
        if arg is None:
            v = None if vc.default is NO_DEFAULT else vc.default
        else:
            try:
                v = evaluate(arg.expr, self.caller_scope())
            except EvalError as exc:
                self.owner.report(exc.error(SourceRange(arg.range.filename, exc.line)), _needs_values(arg.expr))
                return UNKNOWN
        if v is None and not vc.nullable and vc.default is not NO_DEFAULT:
            v = vc.default
        if v is None and not vc.nullable:
            where = arg.range if arg is not None else self.call.range.header()
            self.owner.report(error("Invalid value for input variable",
                                    f"The given value is not suitable for {self.path}.var.{name} declared at "
                                    f"{decl_range(vc.range)}: required variable may not be set to null.", where),
                              False)
            return UNKNOWN
        if v is not None and vc.type != "dynamic":
            try:
                v = convert(v, vc.type)
            except ConversionError as exc:
                where = arg.range if arg is not None else self.call.range.header()
                self.owner.report(error("Invalid value for input variable",
                                        f"The given value is not suitable for {self.path}.var.{name} declared at "
                                        f"{decl_range(vc.range)}: {exc.cty_text.rstrip('.')}.", where), False)
                return UNKNOWN
        return v

    def local_value(self, name: str, line: int) -> Any:
        if self._root_locals is not None:
            return self._root_locals(name, line)
        got = self._locals.get(name, None)
        if got is _BUSY:
            raise EvalError("Cycle in local values", f"local.{name} refers to itself.", line)
        if name in self._locals:
            return got
        lc = self.config.locals.get(name)
        if lc is None:
            raise EvalError("Reference to undeclared local value", undeclared_local(name, self.config.locals), line)
        self._locals[name] = _BUSY
        try:
            v = evaluate(lc.expr, self.scope())
        except EvalError as exc:
            self.owner.report(exc.error(SourceRange(lc.range.filename, exc.line)), _needs_values(lc.expr))
            v = UNKNOWN
        if self.keep(v):
            self._locals[name] = v
        else:
            del self._locals[name]
        return v

    def output(self, name: str, final: bool = False) -> Any:
        """The value of this instance's output ``name`` (unknown after a mistake, reported).
        While planning, it is kept only once ``final`` (the planner visits the output after
        everything it refers to): ``module.m.a`` evaluates all of ``module.m``'s outputs, some of
        which may refer to what is not planned yet."""
        if name in self._outputs:
            return self._outputs[name]
        oc = self.config.outputs[name]
        try:
            v = evaluate(oc.expr, self.scope())
        except EvalError as exc:
            self.owner.report(exc.error(SourceRange(oc.range.filename, exc.line)), _needs_values(oc.expr))
            v = UNKNOWN
        if final or not self.owner.keep_all and self.owner.settled and is_wholly_known(v):
            self._outputs[name] = v
        return v

    def outputs_object(self) -> dict[str, Any]:
        return {name: self.output(name) for name in self.config.outputs}

    # ------------------------------------------------------------------ resolver

    def at(self, addr: ResourceAddr) -> ResourceAddr:
        """``addr`` (as named within this module) in this instance."""
        if not self.path.steps:
            return addr
        got = self._addrs.get(addr)
        if got is None:
            got = self._addrs[addr] = resource_addr(addr.type, addr.name, addr.mode, self.path)
        return got

    def has_resource(self, addr: ResourceAddr) -> bool:
        return addr in self.config.resources

    def is_expanded(self, addr: ResourceAddr) -> bool:
        return self.owner.resources.is_expanded(self.at(addr))

    def expansion(self, addr: ResourceAddr) -> str:
        return self.owner.resources.expansion(self.at(addr))

    def instance_value(self, addr: ResourceAddr, key: InstanceKey) -> Any:
        return self.owner.resources.instance_value(self.at(addr), key)

    def resource_value(self, addr: ResourceAddr) -> Any:
        return self.owner.resources.resource_value(self.at(addr))

    def module_call(self, name: str, line: int) -> Any:
        """``module.NAME``: an object of the outputs of its one instance, a tuple of them (count) or
        an object of them by key (for_each); unknown when it could not be expanded."""
        if name not in self.config.calls:
            where = "the root module" if not self.path.steps else str(self.path)
            raise EvalError("Reference to undeclared module",
                            f'No module call named "{name}" is declared in {where}.', line)
        got = self.owner.call_instances(self, name)
        if got is None:
            return UNKNOWN
        kind, paths = got
        objs = [self.owner.by_path[p].outputs_object() for p in paths]
        if kind == "single":
            return objs[0]
        if kind == "count":
            return tuple(objs)
        return {p.steps[-1][1]: o for p, o in zip(paths, objs, strict=True)}


class _Variables(dict[str, Any]):
    """A module instance's input variables, each worked out when first read."""

    def __init__(self, inst: ModuleInstance) -> None:
        super().__init__()
        self._inst = inst

    def __contains__(self, name: object) -> bool:
        return name in self._inst.config.variables

    def __getitem__(self, name: str) -> Any:
        return self._inst.variable(name)

    def get(self, name: str, default: Any = None) -> Any:
        return self._inst.variable(name) if name in self._inst.config.variables else default
