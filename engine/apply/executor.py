"""Applying a plan: the effectful half. Walks the apply graph, calls providers, records state.

For each node: evaluate the final configuration (dependencies are applied by
now, so their values are known), plan again when the initial plan had
unknowns and check the provider kept every promise, apply, check the result,
and hand the new object to the state writer. Only once the writer says the
record is durable is its ``apply_complete`` emitted and its dependents
started: a crash at any moment loses no object that anything was told of or
built on.
"""

from __future__ import annotations

import contextlib
import dataclasses
import signal
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import anyio

from engine.addrs import ROOT, InstanceAddr, InstanceKey, ProviderConfigAddr, ResourceAddr
from engine.apply.graph import ApplyNode, Barrier, Node, Work
from engine.config import conditions
from engine.config.instance import block_counts, evaluate_instance_config
from engine.config.model import Module
from engine.config.module_instances import ModuleInstances
from engine.diagnostics import Diagnostic, SourceRange, error, errors_of, source_line
from engine.events import stream as ev
from engine.graph.dag import Graph
from engine.graph.limits import Limits
from engine.graph.walker import Done, Walker
from engine.lang.evaluate import EvalError, Scope, evaluate
from engine.lang.sensitivity import of_module as sensitivity_of
from engine.lang.sensitivity import state_marks
from engine.plans.kept import kept_dependencies
from engine.plans.plan import (
    Action,
    Expansion,
    Plan,
    ResourceInstanceChange,
    restated,
    whole_resource_value,
)
from engine.provider.contracts import check_final_plan, check_new_state
from engine.provider.protocol import (
    ApplyResourceChangeRequest,
    PlanResourceChangeRequest,
    ReadDataSourceRequest,
    ResourceSchema,
    proposed_new_state,
)
from engine.provider.registry import Providers
from engine.provider.seam import ProviderSeam, tolerated
from engine.state.model import ObjectState, State
from engine.state.store import StateWriter
from engine.values import UNKNOWN, equal, is_wholly_known

Emit = Callable[[ev.Event], None]

INTERRUPT = "interrupt"  # what the walker is told stopped it (compared by identity)
INTERRUPT_TEXT = ("\nInterrupt received.\nPlease wait for strata to exit or data loss may occur: the "
                  "operations in flight finish and are recorded, nothing new starts.\nGracefully shutting "
                  "down... (interrupt again to stop at once)\n")


_SINGLE = Expansion("single", ())


class StopNow(BaseException):
    """A second interrupt: the apply stops at once, cancelling what is in flight. The command
    reports it as it reports Ctrl-C. Not a KeyboardInterrupt: asyncio lets one raised in a task
    escape its loop and leave the run's main task to die noisily at shutdown, while any other
    BaseException unwinds through the task groups as trio's does."""

class ApplyResolver:
    """Apply-time resource values: what the state holds now, over the instances the plan's
    ``expansions`` say each resource has (one not applied yet is unknown)."""

    def __init__(self, module: Module, state: State, expansions: Mapping[ResourceAddr, Expansion],
                 left_out: Mapping[ResourceAddr, frozenset[InstanceKey]] | None = None) -> None:
        self.module = module
        self.state = state
        self.expansions = expansions
        self.left_out = left_out or {}
        """Per resource, the instances the configuration no longer has that a -target plan left
        in the state (:func:`left_out_instances`): terraform's resource value still has them."""

    def has_resource(self, addr: ResourceAddr) -> bool:
        return self.module.resource_at(addr) is not None

    def is_expanded(self, addr: ResourceAddr) -> bool:
        return self.expansions.get(addr, _SINGLE).kind != "single"

    def expansion(self, addr: ResourceAddr) -> str:
        return self.expansions.get(addr, _SINGLE).kind

    def instance_value(self, addr: ResourceAddr, key: InstanceKey) -> Any:
        obj = self.state.object_at(addr, key)
        if obj is None:
            if key in self.expansions.get(addr, _SINGLE).keys:
                return UNKNOWN
            raise KeyError(key)
        return obj.attributes

    def resource_value(self, addr: ResourceAddr) -> Any:
        vals: dict[InstanceKey, Any] = {}
        exp = self.expansions.get(addr, _SINGLE)
        for k in exp.keys:
            obj = self.state.object_at(addr, k)
            vals[k] = obj.attributes if obj is not None else UNKNOWN
        extra = self.left_out.get(addr)
        if extra:
            _add_left_out(vals, exp.kind, extra, lambda k: self.state.object_at(addr, k))
        return whole_resource_value(exp.kind, vals)


def left_out_instances(plan: Plan, state: State) -> dict[ResourceAddr, frozenset[InstanceKey]]:
    """The instances of ``state`` that ``plan`` neither expands nor changes: under -target, those
    the configuration no longer has and no target's dependency destroys. terraform builds a
    resource's value from the state's instances, less those planned for deletion, so they count."""
    if not plan.targeted:
        return {}
    changed = {c.addr for c in plan.changes if c.deposed is None}
    out = {}
    for r, rs in state.resources.items():
        keys = plan.expansions.get(r, _SINGLE).keys
        extra = frozenset(k for k, inst in rs.instances.items()
                          if inst.current is not None and k not in keys and r.instance(k) not in changed)
        if extra:
            out[r] = extra
    return out


def _add_left_out(vals: dict[InstanceKey, Any], kind: str, extra: frozenset[InstanceKey],
                  obj_at: Callable[[InstanceKey], ObjectState | None]) -> None:
    """``vals`` with the ``extra`` instances of a resource of ``kind`` that the state holds, as
    terraform's evaluator adds them: keys of the kind's type only, a counted resource's missing
    indexes below the highest unknown."""
    want = int if kind == "count" else str if kind == "for_each" else type(None)
    for k in extra:
        obj = obj_at(k)
        if isinstance(k, want) and obj is not None:
            vals[k] = obj.attributes
    if kind == "count" and vals:
        for i in range(max(k for k in vals if isinstance(k, int)) + 1):
            vals.setdefault(i, UNKNOWN)


@dataclass
class ApplyResult:
    diagnostics: list[Diagnostic] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=lambda: {"add": 0, "change": 0, "import": 0, "remove": 0})
    failed: int = 0
    skipped: int = 0
    interrupted: bool = False
    """An interrupt stopped the apply: what was in flight finished, nothing else started."""

    @property
    def ok(self) -> bool:
        return not errors_of(self.diagnostics)


class Applier:
    def __init__(self, module: Module | None, plan: Plan, graph: Graph[Node], work: dict[ApplyNode, Work],
                 providers: Providers, writer: StateWriter, emit: Emit, variables: dict[str, Any],
                 resolver: ApplyResolver,
                 local_value: Callable[[str, int], Any] | None = None, limits: Limits | None = None,
                 instances: ModuleInstances | None = None) -> None:
        self.module = module
        self.instances = instances  # the module instances, for what is in a called module
        self.plan = plan
        self.graph = graph
        self.work = work
        self.providers = providers
        self.writer = writer
        self.state = writer.state
        self.emit = emit
        self.variables = variables
        self.result = ApplyResult()
        self.resolver = resolver
        self._local_value = local_value
        self.limits = limits or Limits()
        self._providers_of: dict[tuple[str, str, str], tuple[str, ProviderSeam, ResourceSchema | None]] = {}
        self._sensitivity = sensitivity_of(module, providers) if module is not None else None
        # the event log or a subscriber reads each apply event's detail (dependencies, wait and
        # run times): computed only then (a bound EventBus.emit says whether one does)
        self.detailed = bool(getattr(getattr(emit, "__self__", None), "wants_detail", False))
        self._ends: dict[Node, tuple[float, ApplyNode | None]] = {}
        self._details: dict[ApplyNode, tuple[Any, ...]] = {}
        self._t0 = 0.0

    # ------------------------------------------------------------------ walk

    async def run(self, parallelism: int = 10, fail_fast: bool = False, on_signals: bool = False) -> ApplyResult:
        """Walk the apply graph. With ``on_signals`` (the command line), a first SIGINT or SIGTERM
        stops it gracefully (:meth:`interrupt`) and a second one at once (:class:`StopNow`)."""
        walker: Walker[Node] = Walker(self.graph, parallelism, fail_fast)
        self._walker = walker
        self._t0 = time.monotonic()
        walk = walker.run(self._execute, is_passthrough=lambda n: type(n) is Barrier, on_skip=self._skipped)
        if not on_signals:
            await walk
            return self.result
        async with anyio.create_task_group() as tg:
            tg.start_soon(self._on_signals)
            await walk
            tg.cancel_scope.cancel()
        return self.result

    def interrupt(self) -> None:
        """Terraform's graceful stop: operations in flight finish and are recorded, nothing new starts."""
        if not self.result.interrupted:
            self.result.interrupted = True
            self._walker.stop(INTERRUPT)

    async def _on_signals(self) -> None:
        with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
            async for _ in signals:
                if self.result.interrupted:  # the second one: stop now, cancelling what is in flight
                    self.providers.stop()  # plugins are told (StopProvider), as terraform tells them
                    raise StopNow
                with contextlib.suppress(OSError, ValueError):
                    sys.stderr.write(INTERRUPT_TEXT)
                    sys.stderr.flush()
                self.interrupt()

    def _skipped(self, node: Node, cause: object) -> None:
        if isinstance(node, ApplyNode):
            self.result.skipped += 1
            if cause is INTERRUPT:
                self.emit(ev.apply_skipped(node.addr, node.op, "", interrupted=True))
                return
            cause_name = str(cause.addr) if isinstance(cause, ApplyNode) else str(cause)
            early = node in self._walker.stopped_early
            self.emit(ev.apply_skipped(node.addr, node.op, cause_name, fail_fast=early))

    async def _execute(self, node: Node, done: Done) -> None:
        assert isinstance(node, ApplyNode)
        w = self.work[node]
        if self.detailed:
            done = self._timed(node, done)
        try:
            if node.op == Action.DELETE:
                await self._delete(node, w.change, done)
            elif node.op == Action.READ:
                await self._read(node, w.change, done)
            else:
                await self._create_or_update(node, w, done)
        except Exception as exc:  # a bug of ours fails this node, never the run (a provider's: mapped at the seam)
            self._fail(node.addr, "Internal error while applying",
                       f"{type(exc).__name__}: {exc}. The state holds everything that completed; "
                       "please report this.")
            done(False)

    # ------------------------------------------------------------------ event detail

    def _timed(self, node: ApplyNode, done: Done) -> Done:
        def timed(ok: bool) -> None:
            self._ends[node] = (time.monotonic(), node)
            done(ok)

        return timed

    def _ready(self, node: Node) -> tuple[float, ApplyNode | None]:
        """When ``node`` became ready (its last dependency ended; a barrier ends when it is
        ready), and the operation whose end made it so (None: ready from the start)."""
        best: tuple[float, ApplyNode | None] = (self._t0, None)
        for d in self.graph.deps[node]:
            end = self._ends.get(d)
            if end is None:
                if type(d) is not Barrier:
                    continue  # not ended (cannot be: the walker started node after it)
                end = self._ends[d] = self._ready(d)
            if end[0] > best[0]:
                best = end
        return best

    def _detail(self, node: ApplyNode, pname: str, started: float) -> tuple[Any, ...]:
        """The node's detail as its operation starts, a tuple of ``jsonline.DETAIL_FIELDS`` (hot
        path: no dict; computed once, its end adds ``run`` and ``call``)."""
        d = self._details.get(node)
        if d is None:
            ready, after = self._ready(node)
            deps = self.graph.deps[node]
            d = self._details[node] = (str(node), pname, sorted(str(x) for x in deps) if deps else [],
                                       None if after is None else str(after), ready - self._t0,
                                       started - ready if started > ready else 0.0)
        return d

    def _with_detail(self, node: ApplyNode, pname: str, started: list[float], event: ev.Event,
                     end: bool = True) -> ev.Event:
        """``event`` with its detail, when a recorder reads it; at the operation's ``end``, with
        its ``run`` time (started to durable) and ``call`` (the provider's call, slot held)."""
        if not self.detailed:
            return event
        d = self._detail(node, pname, started[0])
        if end:
            start = started[0]
            d = (*d, time.monotonic() - start, (started[1] if len(started) > 1 else start) - start)
            del self._details[node]
        return event.with_detail(d)

    # ------------------------------------------------------------------ helpers

    def _provider(self, c: ResourceInstanceChange) -> tuple[str, ProviderSeam, ResourceSchema | None]:
        r = c.addr.resource
        rc = self.module.resource_at(r) if self.module else None
        name = rc.provider_key if rc is not None else self.providers.key_for(c.provider)
        key = (name, r.type, r.mode)
        found = self._providers_of.get(key)  # the same for every resource of a type: once each
        if found is None:
            found = self._providers_of[key] = (name, self.providers.seam(name),
                                               self.providers.schema(name, r.type, r.mode))
        return found

    def _fail(self, addr: InstanceAddr, summary: str, detail: str, subject: SourceRange | None = None,
              in_config: Diagnostic | None = None) -> None:
        """``addr`` failed: say why (``in_config``: a mistake in its configuration, reported as it
        is, naming the block but no instance, as terraform does)."""
        if in_config is not None:
            d = in_config
        else:
            if subject is None and self.module is not None:
                rc = self.module.resource_at(addr.resource)
                if rc is not None:  # where the resource is declared, as terraform points at it
                    subject = SourceRange(rc.range.filename, rc.range.line)
            d = error(summary, detail, subject, str(addr))
        self.result.diagnostics.append(d)
        self.result.failed += 1
        self.emit(ev.diagnostic(d, source_line(d.subject.filename, d.subject.line) if d.subject else None))

    def _record(self, addr: InstanceAddr, provider: ProviderConfigAddr, obj: ObjectState | None, deposed: str | None,
                complete: Callable[[], ev.Event], done: Done, unmet: list[Diagnostic] | None = None) -> None:
        """Hand ``obj`` to the state writer; once the record is durable, emit ``complete()`` (its
        apply_complete, stamped with the moment it became true), report the ``unmet``
        postconditions and let the dependents start (none do when a postcondition failed)."""

        def durable() -> None:
            self.emit(complete())
            for d in unmet or ():  # the object exists and is recorded; what depends on it does not start
                self._fail(addr, d.summary, d.detail, in_config=d)
            done(not unmet)

        self.writer.put(addr, provider, obj, deposed, on_durable=durable)

    def _instance_scope(self, addr: InstanceAddr, rc: Any) -> Scope:
        """What an instance's expressions are evaluated in: count.index, each.key and each.value,
        in its module instance."""
        if addr.resource.module.steps and self.instances is not None:
            mi = self.instances.get(addr.resource.module)
            if mi is not None:
                key = addr.key
                scope = mi.scope(key if isinstance(key, int) else None, (key, key) if isinstance(key, str) else None)
                if isinstance(key, str) and rc.for_each is not None:
                    try:
                        fe = evaluate(rc.for_each.expr, mi.scope())
                        if isinstance(fe, dict):
                            scope.each = (key, fe.get(key))
                    except EvalError:
                        pass
                return scope
        scope = self._scope(addr.key)
        if isinstance(addr.key, str) and rc.for_each is not None:
            try:
                fe = evaluate(rc.for_each.expr, Scope(self.variables, self._locals, self.resolver))
                if isinstance(fe, dict):
                    scope.each = (addr.key, fe.get(addr.key))
            except EvalError:
                pass
        return scope

    def _conditions(self, addr: InstanceAddr, kind: str, new: dict[str, Any] | None = None) -> list[Diagnostic]:
        """The resource's preconditions (before its provider is called) or postconditions (against
        the object the provider returned, ``self``) that are not met, now that everything is known."""
        rc = self.module.resource_at(addr.resource) if self.module else None
        if rc is None:
            return []
        conds = rc.lifecycle.preconditions if kind == "precondition" else rc.lifecycle.postconditions
        if not conds:
            return []
        scope = self._instance_scope(addr, rc)
        failed, _ = conditions.check(conds, scope if new is None else scope.child({"self": new}), kind, rc.context,
                                     self_of=None if new is None else (addr.resource.mode, addr.resource.type,
                                                                       addr.resource.name))
        for w in [d for d in failed if d.severity != "error"]:  # an error message that is not shown
            self.result.diagnostics.append(w)
            self.emit(ev.diagnostic(w, source_line(w.subject.filename, w.subject.line) if w.subject else None))
        return errors_of(failed)

    def _scope(self, key: InstanceKey) -> Scope:
        count_index = key if isinstance(key, int) else None
        each = (key, key) if isinstance(key, str) else None
        resolver: Any = self.instances.by_path[ROOT] if self.instances is not None else self.resolver
        return Scope(self.variables, self._locals, resolver, count_index, each, sensitivity=self._sensitivity)

    def _locals(self, name: str, line: int) -> Any:
        if self._local_value is None:
            raise EvalError("Reference to undeclared local value", name, line)
        return self._local_value(name, line)

    # ------------------------------------------------------------------ create / update

    async def _create_or_update(self, node: ApplyNode, w: Work, done: Done) -> None:
        c = w.change
        addr = c.addr
        pname, provider, schema = self._provider(c)
        prior_obj = self.state.object(addr)
        prior = prior_obj.attributes if prior_obj is not None and node.op == Action.UPDATE else None
        # two-phase planning: plan again now that every dependency is applied, and check the
        # provider keeps each promise of the initial plan
        prior_private = prior_obj.private if prior_obj is not None and node.op == Action.UPDATE else b""
        final = await self._final_plan(c, prior, pname, provider, schema, prior_private)
        if final is None:
            done(False)
            return
        planned, config, planned_private = final
        unmet = self._conditions(addr, "precondition")
        if unmet:  # decided only now that what it refers to is applied
            for d in unmet:
                self._fail(addr, d.summary, d.detail, in_config=d)
            done(False)
            return
        if prior_obj is not None and prior is not None and equal(prior, planned):
            # the final plan of an update is a no-op (what it waited for left its inputs as they
            # were): not applied, as terraform does, with no event, provider call or count
            self._skip_no_op(addr, c, prior_obj, done)
            return
        id_key = schema.id_attribute if schema else "id"
        action = "update" if node.op == Action.UPDATE else "create"
        started = [time.monotonic()]

        def starting() -> None:  # once a concurrency slot is held, right before the provider's call
            started[0] = time.monotonic()
            if node.op == Action.UPDATE:
                e = ev.apply_start(addr, "update", id_key, prior.get(id_key) if prior else None)
            else:
                e = ev.apply_start(addr, "create")
            self.emit(self._with_detail(node, pname, started, e, end=False))
            if w.depose_as is not None and prior_obj is not None:
                # create_before_destroy: the current object becomes deposed before its successor exists
                self.writer.put(addr, c.provider, None)
                # as terraform's, with the flag the plan gave it (create-then-delete: forced)
                self.writer.put(addr, c.provider, dataclasses.replace(prior_obj, create_before_destroy=True),
                                w.depose_as)

        new, diags, private, legacy = await self._call_apply(
            pname, provider, addr, ApplyResourceChangeRequest(addr.resource.type, prior, planned, config,
                                                              self._progress_reporter(addr, action, started),
                                                              planned_private, prior_private),
            action, starting, node, started)
        elapsed = time.monotonic() - started[0]
        errs = errors_of(diags)
        if not errs and new is None:
            errs = [error("Provider returned no object",
                          f'Provider "{pname}" reported success for the {action} of {addr} but returned '
                          "no object. This is a bug in the provider.")]
        if not errs and new is not None:
            problem = None
            if schema is not None and block_counts(planned, schema) != block_counts(new, schema):
                problem = (f"the number of nested blocks changed: planned {block_counts(planned, schema)}, "
                           f"got {block_counts(new, schema)}")
            problem = problem or check_new_state(planned, new)
            if problem and not (is_wholly_known(new) and tolerated(legacy, "an unexpected new value", pname,
                                                                      str(addr), problem)):
                errs = [error("Provider produced inconsistent result after apply",
                              f'When applying changes to {addr}, provider "{pname}" produced an unexpected '
                              f"new value: {problem}.")]
        if errs:
            self.emit(self._with_detail(node, pname, started, ev.apply_errored(addr, action, elapsed)))
            for d in errs:
                self._fail(addr, d.summary, d.detail)
            if new is not None and is_wholly_known(new):
                status = "tainted" if action == "create" else "ready"
                obj = ObjectState(new, status, schema.version if schema else 0, c.state_dependencies,
                                  c.create_before_destroy, private=private)
                self.writer.put(addr, c.provider, obj)
            elif w.depose_as is not None and prior_obj is not None:
                # nothing was created: the deposed object is current again, as terraform does
                self.writer.put(addr, c.provider, None, w.depose_as)
                self.writer.put(addr, c.provider, prior_obj)
            done(False)
            return
        assert new is not None
        obj = ObjectState(new, "ready", schema.version if schema else 0, c.state_dependencies,
                          c.create_before_destroy, state_marks(new, c.sensitive if c.marks is None else c.marks),
                          private)
        id_value = new.get(id_key)
        unmet = self._conditions(addr, "postcondition", new)
        self._record(addr, c.provider, obj, None,
                     lambda: self._with_detail(node, pname, started,
                                               ev.apply_complete(addr, action, elapsed, id_key, id_value)),
                     done, unmet)
        self.result.counts["add" if action == "create" else "change"] += 1

    def _skip_no_op(self, addr: InstanceAddr, c: ResourceInstanceChange, prior_obj: ObjectState,
                    done: Done) -> None:
        """Record an update whose final plan is a no-op without applying it: the object as it
        was, with the dependencies and create_before_destroy flag the configuration gives it now
        (terraform rewrites the flag when planning, the dependencies on every apply of the
        instance), then its postconditions, evaluated on that object."""
        obj = dataclasses.replace(prior_obj, dependencies=c.state_dependencies,
                                  create_before_destroy=c.create_before_destroy)
        unmet = self._conditions(addr, "postcondition", prior_obj.attributes)

        def durable() -> None:
            for d in unmet:
                self._fail(addr, d.summary, d.detail, in_config=d)
            done(not unmet)

        self.writer.put(addr, c.provider, obj, on_durable=durable)

    async def _final_config(self, c: ResourceInstanceChange, schema: ResourceSchema | None
                            ) -> dict[str, Any] | None:
        """The instance's configuration evaluated now, when everything it refers to is applied."""
        addr = c.addr
        rc = self.module.resource_at(addr.resource) if self.module else None
        if rc is None or schema is None:
            self._fail(addr, "Resource configuration missing", "The configuration changed during apply.")
            return None
        scope = self._instance_scope(addr, rc)
        config, diags = evaluate_instance_config(rc, schema, scope)
        errs = errors_of(diags)
        if errs:
            for d in errs:
                self._fail(addr, d.summary, d.detail, in_config=d)
            return None
        return config

    async def _final_plan(self, c: ResourceInstanceChange, prior: dict[str, Any] | None, pname: str,
                          provider: ProviderSeam, schema: ResourceSchema | None, prior_private: bytes
                          ) -> tuple[dict[str, Any], dict[str, Any], bytes] | None:
        addr = c.addr
        config = c.config
        if config is None or not is_wholly_known(config):
            config = await self._final_config(c, schema)
            if config is None:
                return None
        assert schema is not None
        proposed = proposed_new_state(schema, prior, config)
        resp = await provider.plan_resource_change(
            PlanResourceChangeRequest(addr.resource.type, prior, proposed, config, prior_private),
            address=str(addr))
        errs = errors_of(resp.diagnostics)
        if errs:
            for d in errs:
                self._fail(addr, d.summary, d.detail)
            return None
        final = resp.planned_state
        if final is None:
            self._fail(addr, "Provider produced null plan", f'Provider "{pname}" planned no object for {addr}.')
            return None
        problem = check_final_plan(c.after, final) if c.after is not None else None
        if problem:
            self._fail(addr, "Provider produced inconsistent final plan",
                       f'When expanding the plan for {addr} to include new values learned so far during '
                       f'apply, provider "{pname}" produced an invalid new value for {problem}.')
            return None
        return final, config, resp.planned_private

    async def _call_apply(self, pname: str, provider: ProviderSeam, addr: InstanceAddr,
                          req: ApplyResourceChangeRequest, action: str, starting: Callable[[], None],
                          node: ApplyNode, timing: list[float]) -> tuple[dict[str, Any] | None, tuple[Diagnostic, ...], bytes, bool]:
        """One ApplyResourceChange under the configured limits, retried with backoff while the
        provider marks its errors retryable. ``starting`` runs once, when the first call is about
        to be made (after waiting for a slot): "Creating..." means the operation is in flight.
        ``timing[1]`` is set to when the last call ended (``timing[0]``: when it started)."""
        attempt = 0
        retries = self.limits.retries_for(pname)
        address = str(addr)
        while True:
            if self.limits.active():
                async with self.limits.slot(pname, addr.resource.type):
                    if attempt == 0:
                        starting()
                    resp = await provider.apply_resource_change(req, address=address)
                    timing[1:] = [time.monotonic()]  # the call's end, slot still held
            else:
                if attempt == 0:
                    starting()
                resp = await provider.apply_resource_change(req, address=address)
                timing[1:] = [time.monotonic()]
            diags = tuple(resp.diagnostics)
            errs = errors_of(diags)
            if not errs or not all(d.retryable for d in errs) or attempt >= retries:
                return resp.new_state, diags, resp.private, resp.legacy_type_system
            attempt += 1
            delay = self.limits.retry.delay(attempt)
            retry = ev.apply_progress(addr, action, 0, f"retrying after a retryable error "
                                      f"(attempt {attempt + 1} of {retries + 1}): {errs[0].summary}")
            if self.detailed:
                retry = retry.with_detail({"node": str(node), "provider": pname, "retry": attempt,
                                           "error": errs[0].summary})
            self.emit(retry)
            await anyio.sleep(delay)

    def _progress_reporter(self, addr: InstanceAddr, action: str, started: list[float]
                           ) -> Callable[[str], None]:
        def progress(message: str) -> None:
            self.emit(ev.apply_progress(addr, action, time.monotonic() - started[0], message))

        return progress

    # ------------------------------------------------------------------ data sources

    def record_data_reads(self) -> None:
        """Write what planning read from data sources, and forget data objects no longer configured."""
        for addr in self.plan.forget:
            rs = self.writer.state.resources.get(addr.resource)
            if rs is not None:  # a journal record names the provider: the one the state has for it
                self.writer.put(addr, rs.provider, None)
        for addr, read in self.plan.data_reads.items():
            self.writer.put(addr, read.provider, ObjectState(read.value,
                                                             sensitive_attributes=state_marks(read.value, read.sensitive)))

    def record_unchanged(self) -> None:
        """Rewrite the objects the plan leaves unchanged as the configuration describes them
        now (:func:`engine.plans.plan.restated`), and under -target the dependencies of those
        left out as far as they must grow (:func:`engine.plans.kept.kept_dependencies`)."""
        for c, obj in restated(self.plan, self.state):
            self.writer.put(c.addr, c.provider, obj)
        for addr, provider, obj in kept_dependencies(self.plan, self.state):  # left out by -target
            self.writer.put(addr, provider, obj)

    async def _read(self, node: ApplyNode, c: ResourceInstanceChange, done: Done) -> None:
        addr = c.addr
        pname, provider, schema = self._provider(c)
        config = c.config
        if config is None or not is_wholly_known(config):
            final = await self._final_config(c, schema)
            if final is None:
                done(False)
                return
            config = final
        resp = await provider.read_data_source(ReadDataSourceRequest(addr.resource.type, config), address=str(addr))
        diags, value = resp.diagnostics, resp.state
        errs = errors_of(diags)
        if errs or value is None:
            for d in errs or [error("Provider returned no object",
                                    f'Provider "{pname}" returned nothing when reading {addr}.')]:
                self._fail(addr, d.summary, d.detail)
            done(False)
            return
        self.writer.put(addr, c.provider, ObjectState(value, dependencies=c.state_dependencies,
                                                      sensitive_attributes=state_marks(value, c.sensitive)),
                        on_durable=lambda: done(True))

    # ------------------------------------------------------------------ delete

    async def _delete(self, node: ApplyNode, c: ResourceInstanceChange, done: Done) -> None:
        addr = c.addr
        pname, provider, schema = self._provider(c)
        obj = self.state.object(addr, node.deposed)
        if obj is None:
            done(True)  # already gone (e.g. a CBD create failed and restored the old object)
            return
        id_key = schema.id_attribute if schema else "id"
        started = [time.monotonic()]

        def starting() -> None:
            started[0] = time.monotonic()
            self.emit(self._with_detail(node, pname, started,
                                        ev.apply_start(addr, "delete", id_key, obj.attributes.get(id_key),
                                                       node.deposed), end=False))

        new, diags, _, _ = await self._call_apply(
            pname, provider, addr, ApplyResourceChangeRequest(addr.resource.type, obj.attributes, None, None,
                                                              # a destroy's plan keeps the prior private data
                                                              planned_private=obj.private, prior_private=obj.private),
            "delete", starting, node, started)
        if new is None and errors_of(diags):
            new = obj.attributes
        elapsed = time.monotonic() - started[0]
        errs = errors_of(diags)
        if errs or new is not None:
            self.emit(self._with_detail(node, pname, started, ev.apply_errored(addr, "delete", elapsed)))
            for d in errs or [error("Provider returned an object after delete",
                                    f'Provider "{pname}" returned a non-null object for a destroyed {addr}.')]:
                self._fail(addr, d.summary, d.detail)
            done(False)
            return
        self._record(addr, c.provider, None, node.deposed,
                     lambda: self._with_detail(node, pname, started,
                                               ev.apply_complete(addr, "delete", elapsed, deposed=node.deposed)),
                     done)
        self.result.counts["remove"] += 1
