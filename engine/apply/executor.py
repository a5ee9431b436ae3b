"""Applying a plan: the effectful half. Walks the apply graph, calls providers, records state.

For each node: evaluate the final configuration (dependencies are applied by
now, so their values are known), plan again when the initial plan had
unknowns and check the provider kept every promise, apply, check the result,
and hand the new object to the state writer. Only once the writer says the
record is durable is its ``apply_complete`` emitted and its dependents
started: a crash at any moment loses no object that anything was told of or
built on. A created object's provisioners run once it is recorded (it is
recorded again, tainted, if they fail); a destroyed one's, before the
provider deletes it (:mod:`engine.apply.provisioners`).

Beside it: the values expressions see (:mod:`engine.apply.resolver`), the
interrupts (:mod:`engine.apply.interrupt`) and the detail a recorder reads
(:mod:`engine.apply.detail`).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import anyio

from engine.addrs import ROOT, InstanceAddr, InstanceKey, ProviderConfigAddr, ResourceAddr
from engine.apply.detail import EventDetail
from engine.apply.graph import ApplyNode, Barrier, Node, Work
from engine.apply.interrupt import INTERRUPT, StopNow
from engine.apply.interrupt import on_signals as receive_signals
from engine.apply.provisioners import Provisioners, provisioners_of, suppression
from engine.apply.reads import read_data_source
from engine.apply.resolver import ApplyResolver
from engine.config import conditions
from engine.config.checkables import Checkables
from engine.config.instance import block_counts, evaluate_instance_config
from engine.config.model import Module
from engine.config.module_instances import ModuleInstances
from engine.config.provider_functions import calls_provider_functions
from engine.diagnostics import Diagnostic, SourceRange, error, errors_of, source_line
from engine.events import stream as ev
from engine.graph.dag import Graph
from engine.graph.limits import Limits
from engine.graph.walker import Done, Walker
from engine.lang.evaluate import EvalError, Scope, evaluate
from engine.lang.sensitivity import of_module as sensitivity_of
from engine.lang.sensitivity import state_marks
from engine.plans.kept import kept_dependencies
from engine.plans.plan import Action, Plan, ResourceInstanceChange, restated
from engine.provider.contracts import check_final_plan, check_new_state
from engine.provider.protocol import (
    ApplyResourceChangeRequest,
    PlanResourceChangeRequest,
    ResourceSchema,
    proposed_new_state,
)
from engine.provider.registry import Providers
from engine.provider.seam import ProviderSeam, tolerated
from engine.state.model import ObjectState
from engine.state.store import StateWriter
from engine.values import equal, is_wholly_known

Emit = Callable[[ev.Event], None]

__all__ = ["Applier", "ApplyResolver", "ApplyResult", "StopNow"]  # StopNow: the command looks for it here


def _no_detail(node: ApplyNode, pname: str, started: list[float], end: bool = True) -> None:
    return None


def _nothing() -> None:
    pass


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
        self.check_data: dict[str, tuple[str, str]] = {}
        """Each check object's scoped data source, read again: (status, failure message)."""
        self.check_warnings: list[Diagnostic] = []
        """What the scoped data sources' providers said, as warnings."""
        self.unfinished: set[ResourceAddr] = set()
        """The resources of which an instance failed or was skipped in the walk."""
        self.checkables = Checkables(module) if module is not None else None
        """What the resources' conditions came to as the walk checked them (the state's results)."""
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
        self._detail = EventDetail(graph, 0.0)
        self._ends_read: set[int] = set()  # EventDetail.ends_read, at the walk's start
        self._detail_of: Callable[..., tuple[Any, ...] | None] = self._detail.of if self.detailed else _no_detail
        """``(node, pname, started, end=True)``: the detail of an operation's event when a recorder
        reads it, else None (:meth:`EventDetail.of`; chosen once: two events an operation)."""
        self._operation = ev.operations_of(emit)
        """An operation's apply_start or apply_complete (:meth:`EventBus.operation`)."""
        self.provisioners = Provisioners(emit)
        self._provision_errors: dict[InstanceAddr, list[Diagnostic]] = {}

    # ------------------------------------------------------------------ walk

    async def run(self, parallelism: int = 10, fail_fast: bool = False, on_signals: bool = False) -> ApplyResult:
        """Walk the apply graph. With ``on_signals`` (the command line), a first SIGINT or SIGTERM
        stops it gracefully (:meth:`interrupt`) and a second one at once (:class:`StopNow`)."""
        walker: Walker[Node] = Walker(self.graph, parallelism, fail_fast)
        self._walker = walker
        self._detail.t0 = time.monotonic()
        self._ends_read = self._detail.ends_read() if self.detailed else set()
        walk = walker.run(self._execute, is_passthrough=lambda n: type(n) is Barrier, on_skip=self._skipped)
        if not on_signals:
            await walk
            return self.result
        async with anyio.create_task_group() as tg:
            # plugins are told of a second interrupt (StopProvider), as terraform tells them
            tg.start_soon(receive_signals, lambda: self.result.interrupted, self.interrupt, self.providers.stop)
            await walk
            tg.cancel_scope.cancel()
        return self.result

    def interrupt(self) -> None:
        """Terraform's graceful stop: operations in flight finish and are recorded, nothing new starts."""
        if not self.result.interrupted:
            self.result.interrupted = True
            self._walker.stop(INTERRUPT)
            self.provisioners.stop()  # terraform stops its provisioners: the commands in flight are killed

    def _skipped(self, node: Node, cause: object) -> None:
        if isinstance(node, ApplyNode):
            self.unfinished.add(node.addr.resource)
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
        if self.detailed and id(node) in self._ends_read:  # EventDetail.end_read, without a call (hot path)
            done = self._detail.timed(node, done)
        try:
            if node.op == Action.DELETE:
                await self._delete(node, w.change, done)
            elif node.op == Action.READ:
                await read_data_source(self, w.change, done)
            else:
                await self._create_or_update(node, w, done)
        except Exception as exc:  # a bug of ours fails this node, never the run (a provider's: mapped at the seam)
            self._fail(node.addr, "Internal error while applying",
                       f"{type(exc).__name__}: {exc}. The state holds everything that completed; "
                       "please report this.")
            done(False)

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
        self.unfinished.add(addr.resource)
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
                complete: Callable[[], None], done: Done, unmet: list[Diagnostic] | None = None) -> None:
        """Hand ``obj`` to the state writer; once the record is durable, call ``complete()`` (which
        emits its apply_complete, stamped with the moment it became true), report the ``unmet``
        postconditions and let the dependents start (none do when a postcondition failed)."""

        def durable() -> None:
            complete()
            for d in unmet or ():  # the object exists and is recorded; what depends on it does not start
                self._fail(addr, d.summary, d.detail, in_config=d)
            done(not unmet)

        self.writer.put(addr, provider, obj, deposed, on_durable=durable)

    def instance_scope(self, addr: InstanceAddr, rc: Any, each_value: bool = True) -> Scope:
        """What an instance's expressions are evaluated in: count.index, each.key and (unless not
        ``each_value``: a destroy-time provisioner's) each.value, in its module instance."""
        if addr.resource.module.steps and self.instances is not None:
            mi = self.instances.get(addr.resource.module)
            if mi is not None:
                key = addr.key
                scope = mi.scope(key if isinstance(key, int) else None, (key, key) if isinstance(key, str) else None)
                if isinstance(key, str) and rc.for_each is not None and each_value:
                    try:
                        fe = evaluate(rc.for_each.expr, mi.scope())
                        if isinstance(fe, dict):
                            scope.each = (key, fe.get(key))
                    except EvalError:
                        pass
                return scope
        scope = self._scope(addr.key)
        if isinstance(addr.key, str) and rc.for_each is not None and each_value:
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
        scope = self.instance_scope(addr, rc)
        report = self.checkables.reporter(str(addr), kind) if self.checkables is not None else None
        failed, _ = conditions.check(conds, scope if new is None else scope.child({"self": new}), kind, rc.context,
                                     self_of=None if new is None else (addr.resource.mode, addr.resource.type,
                                                                       addr.resource.name), report=report)
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
            # a create has no prior object, so no id
            self._operation(False, addr, action, 0.0, id_key, prior.get(id_key) if prior else None, None,
                            self._detail_of(node, pname, started, end=False))
            if w.depose_as is not None and prior_obj is not None:
                # create_before_destroy: the current object becomes deposed before its successor exists
                self.writer.put(addr, c.provider, None)
                # as terraform's, with the flag the plan gave it (create-then-delete: forced) and
                # the dependencies its plan's refresh merged into it (left deposed by -target, they show)
                self.writer.put(addr, c.provider, dataclasses.replace(prior_obj, create_before_destroy=True,
                                                                      dependencies=c.kept_dependencies(
                                                                          prior_obj.dependencies, self.plan.refresh)),
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
            self.emit(ev.apply_errored(addr, action, elapsed, self._detail_of(node, pname, started)))
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
        if action == "create" and provisioners_of(self.module, addr.resource, "create")[0]:
            # recorded before its provisioners run, as terraform records it; tainted if they fail
            self.writer.put(addr, c.provider, obj)
            if not await self._provision(addr, "create", new):
                obj = dataclasses.replace(obj, status="tainted")
                elapsed = time.monotonic() - started[0]
                errored = ev.apply_errored(addr, action, elapsed, self._detail_of(node, pname, started))
                self.writer.put(addr, c.provider, obj,
                                on_durable=lambda: self._provision_failed(addr, errored, done, unmet))
                return
            elapsed = time.monotonic() - started[0]  # "Creation complete after": provisioning included
        self._record(addr, c.provider, obj, None,
                     lambda: self._operation(True, addr, action, elapsed, id_key, id_value, None,
                                             self._detail_of(node, pname, started)),
                     done, unmet)
        self.result.counts["add" if action == "create" else "change"] += 1

    def _skip_no_op(self, addr: InstanceAddr, c: ResourceInstanceChange, prior_obj: ObjectState,
                    done: Done) -> None:
        """Record an update whose final plan is a no-op without applying it: the object as it
        was, with the create_before_destroy flag the configuration gives it now (terraform
        rewrites the flag when planning) and the dependencies the plan's refresh left it
        (:meth:`ResourceInstanceChange.kept_dependencies`), then its postconditions, evaluated on that object."""
        obj = dataclasses.replace(prior_obj, dependencies=c.kept_dependencies(prior_obj.dependencies, self.plan.refresh),
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
        scope = self.instance_scope(addr, rc)
        config, diags = evaluate_instance_config(rc, schema, scope)
        errs = errors_of(diags)
        if errs:
            for d in errs:
                self._fail(addr, d.summary, d.detail, in_config=d)
            return None
        return config

    def _calls_provider_functions(self, c: ResourceInstanceChange) -> bool:
        """Whether the configuration calls a provider function, whose results apply checks."""
        rc = self.module.resource_at(c.addr.resource) if self.module else None
        return rc is not None and calls_provider_functions(rc)

    async def _final_plan(self, c: ResourceInstanceChange, prior: dict[str, Any] | None, pname: str,
                          provider: ProviderSeam, schema: ResourceSchema | None, prior_private: bytes
                          ) -> tuple[dict[str, Any], dict[str, Any], bytes] | None:
        addr = c.addr
        config = c.config
        if config is None or not is_wholly_known(config) or self._calls_provider_functions(c):
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

    # ------------------------------------------------------------------ provisioners

    async def _provision(self, addr: InstanceAddr, when: str, obj: dict[str, Any]) -> bool:
        """Run ``addr``'s provisioners of ``when`` on the object ``obj`` (``self``); whether they
        succeeded (their errors kept for :meth:`_provision_failed`; local-exec has no warnings)."""
        provs, rc = provisioners_of(self.module, addr.resource, when)
        scope = (self._scope(addr.key) if rc is None else
                 self.instance_scope(addr, rc, each_value=when == "create")).child({"self": obj})
        diags = await self.provisioners.run(addr, provs, scope, suppression(scope, addr.resource, self.module),
                                            rc.context if rc is not None else None)
        self._provision_errors[addr] = errors_of(diags)
        return not self._provision_errors[addr]

    def _provision_failed(self, addr: InstanceAddr, errored: ev.Event, done: Done,
                          unmet: list[Diagnostic] | None = None) -> None:
        """The provisioners of ``addr`` failed (its object recorded as it now is): say so, fail it
        (with the ``unmet`` postconditions: terraform checks them after a failed provisioner too)."""
        self.emit(errored)
        for d in [*self._provision_errors.pop(addr, ()), *(unmet or ())]:
            self._fail(addr, d.summary, d.detail, in_config=d)
        done(False)

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
            self._operation(False, addr, "delete", 0.0, id_key, obj.attributes.get(id_key), node.deposed,
                            self._detail_of(node, pname, started, end=False))

        # destroy-time provisioners run after "Destroying..." and before the provider's call, on the
        # current object alone (terraform runs none for a deposed one) and not on a tainted one
        if node.deposed is None and obj.status != "tainted" and provisioners_of(self.module, addr.resource,
                                                                                "destroy")[0]:
            starting()
            if not await self._provision(addr, "destroy", obj.attributes):
                self._provision_failed(addr, ev.apply_errored(addr, "delete", time.monotonic() - started[0],
                                                              self._detail_of(node, pname, started)), done)
                return
            starting = _nothing
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
            self.emit(ev.apply_errored(addr, "delete", elapsed, self._detail_of(node, pname, started)))
            for d in errs or [error("Provider returned an object after delete",
                                    f'Provider "{pname}" returned a non-null object for a destroyed {addr}.')]:
                self._fail(addr, d.summary, d.detail)
            done(False)
            return
        self._record(addr, c.provider, None, node.deposed,
                     lambda: self._operation(True, addr, "delete", elapsed, None, None, node.deposed,
                                             self._detail_of(node, pname, started)),
                     done)
        self.result.counts["remove"] += 1
