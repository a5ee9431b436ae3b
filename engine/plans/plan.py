"""The plan: everything apply is given, and the pure decisions that build it.

As terraform's ``plans.Plan`` says of itself, a :class:`Plan` describes an apply entirely, with
the prior state, the configuration it was made from and the providers: one change per
resource-instance object, what refresh found, how each resource expands, what the locals depend
on, the sensitive marks and a digest of the configuration. Apply reads nothing of the planner;
``strata plan -out`` writes this value (:mod:`engine.plans.planfile`) and ``strata apply FILE``
applies the value read back.

``select_action`` is the heart of the default planning behaviours
(000_34fd253a7fe8f8a7.txt): it is a pure function of prior state, planned
state and the provider's requires-replace answer, so it is unit-tested
without any event loop.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from engine.addrs import InstanceAddr, InstanceKey, ProviderConfigAddr, ResourceAddr
from engine.config.check_results import CheckResult
from engine.frozen import frozen
from engine.state.model import ObjectState, State
from engine.values import UNKNOWN, equal


class Action:
    """Action names as terraform's machine-readable UI spells them."""

    NOOP = "no-op"
    READ = "read"
    CREATE = "create"
    UPDATE = "update"
    DELETE = "delete"
    DELETE_THEN_CREATE = "delete-create"  # replace, default ordering
    CREATE_THEN_DELETE = "create-delete"  # replace, create_before_destroy
    FORGET = "forget"  # out of the state, not destroyed (a removed block's destroy = false)

    REPLACES = frozenset({DELETE_THEN_CREATE, CREATE_THEN_DELETE})


class Reason:
    """Terraform's ``action_reason`` names."""

    TAINTED = "tainted"
    CANNOT_UPDATE = "cannot_update"
    REPLACE_BY_REQUEST = "replace_by_request"
    REPLACE_BY_TRIGGERS = "replace_by_triggers"
    DELETE_NO_CONFIG = "delete_because_no_resource_config"
    DELETE_COUNT_INDEX = "delete_because_count_index"
    DELETE_EACH_KEY = "delete_because_each_key"
    DELETE_WRONG_REPETITION = "delete_because_wrong_repetition"
    DELETE_NO_MODULE = "delete_because_no_module"
    READ_CONFIG_UNKNOWN = "read_because_config_unknown"
    READ_DEPENDENCY_PENDING = "read_because_dependency_pending"


@frozen
class ResourceInstanceChange:
    """One planned change of one object.

    ``deposed`` is set only for the destruction of a deposed object left
    behind by an earlier create_before_destroy. ``depends_on`` lists the
    instances this one's configuration refers to; ``depends_on_resources``
    the resources it refers to as a whole (``a[*]``, ``depends_on = [a]``).
    """

    addr: InstanceAddr
    action: str
    provider: ProviderConfigAddr
    before: dict[str, Any] | None
    after: dict[str, Any] | None
    reason: str | None = None
    deposed: str | None = None
    requires_replace: tuple[tuple[str | int, ...], ...] = ()
    """The provider's requires-replace answer: attribute paths (``("tags", "env")``)."""
    create_before_destroy: bool = False
    depends_on: frozenset[InstanceAddr] = frozenset()
    depends_on_resources: frozenset[ResourceAddr] = frozenset()
    state_dependencies: tuple[ResourceAddr, ...] = ()
    """What the state will record the object depends on once applied (configuration resources,
    sorted by their text: :attr:`engine.state.model.ObjectState.dependencies`)."""
    prior_dependencies: tuple[ResourceAddr, ...] = ()
    """What the state recorded the prior object depends on."""
    config: dict[str, Any] | None = None
    sensitive: frozenset[str] = frozenset()
    """Attributes never shown in plans: sensitive now (:mod:`engine.sensitivity`) or recorded
    sensitive in the prior object."""
    marks: frozenset[str] | None = None
    """The attributes the state records sensitive once this change is applied (None: ``sensitive``)."""
    private: bytes = b""
    """The provider's ``planned_private`` (opaque): handed back to it when the change is applied."""
    previous: InstanceAddr | None = None
    """The address the previous run left the object at, when a ``moved`` block moved it."""
    importing: str | None = None
    """The id an ``import`` block imported the object by while planning (its prior state is the
    object imported; apply records it)."""
    generated_config: str = ""
    """The resource block generated for an import target that had no configuration (``plan
    -generate-config-out``), which it was planned against; empty otherwise."""
    destroy_left_out: bool = False
    """Under ``-target``, the destroy of an instance that is not a target, only a dependency of
    one, whose destroy waits for its dependents (create_before_destroy): terraform's apply
    graph, pruned to the targets and their dependencies, leaves it out. A create-then-delete
    replacement leaves its old object deposed; a deletion leaves the object as it is."""
    targeted: bool = False
    """Under ``-target``: the instance is a target, or what a target's configuration refers to
    (by its key where it has a change, else as a whole resource, as terraform's references
    resolve in its apply graph). Apply applies these and what they wait for, and nothing else of
    the plan (:func:`engine.apply.targeted.applied_part`)."""
    depends_on_whole: frozenset[ResourceAddr] = frozenset()
    """The resources of ``depends_on`` named by a key that is not a constant (``a[count.index]``,
    ``a[each.key]``): terraform's graph reads such a reference as one to the whole resource, so a
    create_before_destroy change forces create_before_destroy on every instance of it, where a
    constant key (``a["c"]``, ``a[0]``) forces the instance named alone
    (:mod:`engine.planning.create_before_destroy`)."""

    @property
    def is_replace(self) -> bool:
        return self.action in Action.REPLACES

    def key(self) -> tuple[InstanceAddr, str | None]:
        return (self.addr, self.deposed)

    def kept_dependencies(self, prior: tuple[ResourceAddr, ...], refreshed: bool) -> tuple[ResourceAddr, ...]:
        """The dependencies of the object this change leaves as it was (deposed, or a final-plan
        no-op), ``prior`` those the state recorded: merged with :attr:`state_dependencies`, sorted
        by text, as terraform's refresh merges them into the plan's prior state; ``prior`` alone
        when the plan was not ``refreshed`` (``-refresh=false``: :attr:`Plan.refresh`)."""
        return tuple(sorted({*prior, *self.state_dependencies}, key=str)) if refreshed else prior


@frozen
class Expansion:
    """How the configuration expands one resource: ``kind`` is ``"single"``, ``"count"`` or
    ``"for_each"``; ``keys`` are its instances' keys in terraform's order (numbers, then strings),
    ``(None,)`` for a single instance (``()`` when it could not be planned). An expression that refers to the whole resource sees a
    value of that kind over those keys (:func:`whole_resource_value`)."""

    kind: str
    keys: tuple[InstanceKey, ...]

    @staticmethod
    def of(kind: str, keys: Iterable[InstanceKey]) -> Expansion:
        """The expansion of ``kind`` over ``keys`` in any order (a count's are numbers, a
        for_each's strings). Hot path: once per resource in every plan, so a single resource
        shares one value (building 100k of them was a noticeable part of a large plan)."""
        if kind == "single":
            return _SINGLE if None in keys else _SINGLE_FAILED
        return Expansion(kind, tuple(sorted(keys)))  # type: ignore[type-var]


_SINGLE = Expansion("single", (None,))
_SINGLE_FAILED = Expansion("single", ())  # a resource that could not be planned: no instance


@frozen
class DataRead:
    """A data source read while planning, recorded in state when the plan is applied.

    ``sensitive``: the attributes the state records sensitive (schema and configuration)."""

    provider: ProviderConfigAddr
    value: dict[str, Any]
    sensitive: frozenset[str] = frozenset()


@frozen
class Refreshed:
    """An object of the prior state as refresh (or a schema upgrade) left it: ``obj`` None when it
    is gone. The state a plan was made from is the stored state with every one of these put in
    (:func:`prior_state`); apply starts from it, as terraform's from its plan's ``PriorState``."""

    addr: InstanceAddr
    provider: ProviderConfigAddr
    obj: ObjectState | None
    deposed: str | None = None


_NO_EXPANSIONS: Mapping[ResourceAddr, Expansion] = MappingProxyType({})
_NO_OUTPUTS: Mapping[str, tuple[Any, bool]] = MappingProxyType({})
_NO_VALUES: Mapping[str, Any] = MappingProxyType({})
_NO_READS: Mapping[InstanceAddr, DataRead] = MappingProxyType({})
_NO_MOVES: Mapping[InstanceAddr, InstanceAddr] = MappingProxyType({})
_NO_LOCAL_DEPS: Mapping[str, frozenset[ResourceAddr]] = MappingProxyType({})
_NO_CHECK_DATA: Mapping[str, tuple[str, str]] = MappingProxyType({})


def whole_resource_value(kind: str, vals: Mapping[InstanceKey, Any] | None) -> Any:
    """The value of a whole resource in an expression (``terraform_data.a``): a tuple over a
    counted resource's instances, an object over a for_each one's, the instance's own value for a
    single one; unknown when nothing is known of the resource yet."""
    if vals is None:
        return UNKNOWN
    if kind == "count":
        return tuple(vals[k] for k in sorted(vals))  # type: ignore[type-var]
    if kind == "for_each":
        return {k: vals[k] for k in sorted(vals)}  # type: ignore[type-var]
    return vals.get(None)


@frozen
class Plan:
    """A plan: a value, made by the planner (through a :class:`PlanBuilder`) and never changed
    after. Every field is part of what apply is given: :mod:`engine.plans.planfile` writes them
    all and reads them back equal.

    Invariant: the collections are immutable (tuples, frozensets, read-only mappings); a plan
    built from lists, sets or dicts holds immutable copies of them."""

    changes: tuple[ResourceInstanceChange, ...] = ()
    outputs: Mapping[str, tuple[Any, bool]] = field(default_factory=lambda: _NO_OUTPUTS)
    """Each output's planned value and whether it is sensitive."""
    prior_outputs: Mapping[str, tuple[Any, bool]] = field(default_factory=lambda: _NO_OUTPUTS)
    destroy: bool = False
    variables: Mapping[str, Any] = field(default_factory=lambda: _NO_VALUES)
    data_reads: Mapping[InstanceAddr, DataRead] = field(default_factory=lambda: _NO_READS)
    """Data sources read while planning: recorded in state when the plan is applied."""
    forget: tuple[InstanceAddr, ...] = ()
    """Objects to drop from state: data resource objects (no longer configured, or destroy), and
    managed objects a ``removed`` block forgets (each also a change of action ``forget``)."""
    targeted: bool = False
    """Made with -target: some of the configuration was left out."""
    kept_outputs: frozenset[str] = frozenset()
    """Outputs left out by -target: they keep the values they had."""
    refresh_only: bool = False
    """-refresh-only: no change to any object, only the state brought up to date with them."""
    refresh: bool = True
    """Made with refresh (not ``-refresh=false``). terraform's refresh merges the dependencies the
    configuration now gives each object into the prior state's: an object a change leaves as it was
    (an update whose final plan is a no-op, an object deposed by create_before_destroy) keeps them
    merged then, and only the prior state's without refresh."""
    drift: tuple[ResourceInstanceChange, ...] = ()
    """What refresh found changed (update) or deleted (delete) outside strata (-refresh-only)."""
    refreshed: tuple[Refreshed, ...] = ()
    """The prior state's objects that refresh or a schema upgrade changed (:func:`prior_state`)."""
    expansions: Mapping[ResourceAddr, Expansion] = field(default_factory=lambda: _NO_EXPANSIONS)
    """How each configured resource expands; what apply's expressions see of whole resources and
    of instances not applied yet (unknown until they are)."""
    local_dependencies: Mapping[str, frozenset[ResourceAddr]] = field(default_factory=lambda: _NO_LOCAL_DEPS)
    """For each local value, the resources it refers to, through other locals too. A local that
    refers to none has one value for the whole apply; the others are evaluated again as
    resources are applied."""
    timestamp: str = ""
    """When the plan was made (RFC 3339, UTC, to the second; empty in a plan file older than this
    field): what ``plantimestamp()`` gives while planning and again when the plan is applied, and
    ``show -json``'s ``timestamp``."""
    moves: Mapping[InstanceAddr, InstanceAddr] = field(default_factory=lambda: _NO_MOVES)
    """Objects the ``moved`` blocks moved before planning: new address → previous one. Apply starts
    from the state with them moved (:func:`prior_state`)."""
    generated: tuple[tuple[InstanceAddr, str, str], ...] = ()
    """``plan -generate-config-out``: (address, import id, resource block) of each import target
    given generated configuration, in address order, whether or not it could then be planned
    (the file has them all, as terraform's)."""
    function_results: tuple[tuple[str, str], ...] = ()
    """The digests of the provider function calls made while planning and of their results
    (:mod:`engine.lang.function_results`): apply checks its own calls' results against them."""
    errored: bool = False
    """Planning stopped at errors: the changes planned before them, saved by ``plan -out`` for
    tools to read (``show -json``'s ``errored``), and never applied (terraform's "Cannot apply
    incomplete plan")."""
    config_digest: str = ""
    """A digest of the configuration files the plan was made from
    (:func:`engine.plans.planfile.config_digest`): apply evaluates that configuration again, so a
    saved plan is refused once it changed."""
    checks: tuple[CheckResult, ...] = ()
    """What planning found of each ``check`` block (``show -json``'s ``checks``)."""
    check_data: Mapping[str, tuple[str, str]] = field(default_factory=lambda: _NO_CHECK_DATA)
    """Each check object's scoped data source read while planning, as (status, failure message), by
    the object's address: a read that failed says why the check failed until apply reads again."""
    scoped_reads: frozenset[InstanceAddr] = frozenset()
    """The reads of data sources scoped to check blocks: apply reads them once every managed
    resource is applied (terraform's ``checkStartTransformer``), and their failures are warnings."""

    def __post_init__(self) -> None:
        for name in ("changes", "forget", "drift", "refreshed", "checks"):
            v = getattr(self, name)
            if type(v) is not tuple:
                object.__setattr__(self, name, tuple(v))
        for name in ("outputs", "prior_outputs", "variables", "data_reads", "expansions", "local_dependencies",
                     "moves", "check_data"):
            v = getattr(self, name)
            if type(v) is not MappingProxyType:
                object.__setattr__(self, name, MappingProxyType(dict(v)))
        for name in ("kept_outputs", "scoped_reads"):
            if type(getattr(self, name)) is not frozenset:
                object.__setattr__(self, name, frozenset(getattr(self, name)))

    def counts(self) -> dict[str, int]:
        add = change = remove = imported = 0
        for c in self.changes:
            if c.importing is not None:
                imported += 1
            if c.action == Action.CREATE:
                add += 1
            elif c.action == Action.UPDATE:
                change += 1
            elif c.action == Action.DELETE:
                remove += 1
            elif c.is_replace:
                add += 1
                remove += 1
        return {"add": add, "change": change, "import": imported, "remove": remove}

    def has_changes(self) -> bool:
        return (any(c.action not in (Action.NOOP, Action.READ) or c.importing is not None
                    or (c.action == Action.READ and c.addr in self.scoped_reads) for c in self.changes)
                or bool(self.moves)
                or self.outputs_changed() or (self.refresh_only and bool(self.drift)))

    def outputs_changed(self) -> bool:
        if set(self.outputs) != set(self.prior_outputs):
            return True
        return any(not equal(v[0], self.prior_outputs[k][0]) for k, v in self.outputs.items())


@dataclass(slots=True)
class PlanBuilder:
    """A plan being made: the planner fills these fields as it walks the configuration (the
    fields of :class:`Plan`, in mutable collections), and :meth:`build` gives the plan."""

    changes: list[ResourceInstanceChange] = field(default_factory=list)
    outputs: dict[str, tuple[Any, bool]] = field(default_factory=dict)
    prior_outputs: dict[str, tuple[Any, bool]] = field(default_factory=dict)
    destroy: bool = False
    variables: dict[str, Any] = field(default_factory=dict)
    data_reads: dict[InstanceAddr, DataRead] = field(default_factory=dict)
    forget: list[InstanceAddr] = field(default_factory=list)
    targeted: bool = False
    kept_outputs: set[str] = field(default_factory=set)
    refresh_only: bool = False
    refresh: bool = True
    drift: list[ResourceInstanceChange] = field(default_factory=list)
    refreshed: tuple[Refreshed, ...] = ()
    expansions: Mapping[ResourceAddr, Expansion] = field(default_factory=lambda: _NO_EXPANSIONS)
    local_dependencies: Mapping[str, frozenset[ResourceAddr]] = field(default_factory=lambda: _NO_LOCAL_DEPS)
    timestamp: str = ""
    moves: dict[InstanceAddr, InstanceAddr] = field(default_factory=dict)
    generated: dict[InstanceAddr, tuple[str, str]] = field(default_factory=dict)
    checks: tuple[CheckResult, ...] = ()
    check_data: dict[str, tuple[str, str]] = field(default_factory=dict)
    scoped_reads: set[InstanceAddr] = field(default_factory=set)
    function_results: tuple[tuple[str, str], ...] = ()

    def build(self) -> Plan:
        """The plan as planned so far: a value that what the builder is given later leaves alone."""
        return Plan(
            changes=tuple(self.changes), outputs=MappingProxyType(dict(self.outputs)),
            prior_outputs=MappingProxyType(dict(self.prior_outputs)), destroy=self.destroy,
            variables=MappingProxyType(dict(self.variables)), data_reads=MappingProxyType(dict(self.data_reads)),
            forget=tuple(self.forget), targeted=self.targeted, kept_outputs=frozenset(self.kept_outputs),
            refresh_only=self.refresh_only, refresh=self.refresh, drift=tuple(self.drift), refreshed=self.refreshed,
            expansions=self.expansions, local_dependencies=self.local_dependencies, timestamp=self.timestamp,
            moves=MappingProxyType(dict(self.moves)), checks=self.checks,
            check_data=MappingProxyType(dict(self.check_data)), scoped_reads=frozenset(self.scoped_reads),
            function_results=self.function_results,
            generated=tuple((a, *self.generated[a]) for a in sorted(self.generated, key=lambda a: a.sort_key())))


def prior_state(plan: Plan, state: State) -> None:
    """Put into ``state`` (loaded from the store) what refresh found when ``plan`` was made: the
    state the plan was made from, which apply starts from and records: the objects ``moved``
    blocks moved first."""
    if plan.moves:
        state.move(dict(plan.moves))
    for r in plan.refreshed:
        state.set_object(r.addr, r.provider, r.obj, r.deposed)
        rs = state.resources.get(r.addr.resource)
        if rs is not None and r.obj is not None:
            rs.provider = r.provider  # an object a moved block took to another type's provider


def restated(plan: Plan, state: State) -> list[tuple[ResourceInstanceChange, ObjectState]]:
    """The objects of the instances ``plan`` leaves unchanged that it records anew: with the
    dependencies and create_before_destroy flag (forced ones included) the configuration gives
    them now, where those differ from ``state``'s. terraform writes them when it plans the no-op
    (so an apply with no other change still writes them)."""
    out = []
    for c in plan.changes:
        if c.action != Action.NOOP or c.deposed is not None:
            continue
        obj = state.object(c.addr)
        if obj is not None and (obj.dependencies != c.state_dependencies
                                or obj.create_before_destroy != c.create_before_destroy):
            out.append((c, dataclasses.replace(obj, dependencies=c.state_dependencies,
                                               create_before_destroy=c.create_before_destroy)))
    return out


def select_action(prior: dict[str, Any] | None, planned: dict[str, Any] | None, *,
                  tainted: bool = False, requires_replace: tuple[str | tuple[str | int, ...], ...] = (),
                  create_before_destroy: bool = False, replace_requested: bool = False
                  ) -> tuple[str, str | None]:
    """The action and reason for an instance that is in configuration.

    ``prior`` is the current object (None when there is none), ``planned`` the
    provider's planned new state.
    """
    replace = Action.CREATE_THEN_DELETE if create_before_destroy else Action.DELETE_THEN_CREATE
    if prior is None:
        return Action.CREATE, None
    if tainted:
        return replace, Reason.TAINTED
    if replace_requested:
        return replace, Reason.REPLACE_BY_REQUEST
    if requires_replace and planned is not None and changed_paths(prior, planned, requires_replace):
        return replace, Reason.CANNOT_UPDATE
    if planned is not None and equal(prior, planned):
        return Action.NOOP, None
    return Action.UPDATE, None


def changed_paths(prior: dict[str, Any], planned: dict[str, Any], paths: tuple[Any, ...]) -> tuple[Any, ...]:
    """The requires-replace paths whose value actually changed (terraform ignores the others).

    A path is a tuple of steps (an attribute name or map key, a list index), or a top-level
    attribute's name; a step into what is not there (null, a missing key) finds null."""
    out = []
    for p in paths:
        a = value_at(prior, (p,) if isinstance(p, str) else p)
        b = value_at(planned, (p,) if isinstance(p, str) else p)
        if not equal(a, b):
            out.append(p)
    return tuple(out)


def value_at(v: Any, path: tuple[str | int, ...]) -> Any:
    """The value at ``path`` inside ``v``: null where the path leads nowhere, unknown inside an
    unknown value."""
    for step in path:
        if v is UNKNOWN:
            return UNKNOWN
        if isinstance(v, dict):
            v = v.get(step)
        elif isinstance(v, tuple) and isinstance(step, int) and -1 < step < len(v):
            v = v[step]
        else:
            return None
    return v


def orphan_reason(in_config: bool, expanded: bool, key: Any, key_kind: str) -> str:
    """Why an instance in state but not in configuration is deleted.

    ``key_kind`` is how the configuration expands the resource now:
    ``"single"``, ``"count"`` or ``"for_each"``.
    """
    if not in_config:
        return Reason.DELETE_NO_CONFIG
    if key is None and key_kind != "single":
        return Reason.DELETE_WRONG_REPETITION
    if isinstance(key, int):
        return Reason.DELETE_COUNT_INDEX if key_kind == "count" else Reason.DELETE_WRONG_REPETITION
    if isinstance(key, str):
        return Reason.DELETE_EACH_KEY if key_kind == "for_each" else Reason.DELETE_WRONG_REPETITION
    return Reason.DELETE_WRONG_REPETITION
