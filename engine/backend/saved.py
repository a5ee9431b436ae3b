"""A saved plan (``plan -out``) made ready to apply, without planning again and without the
planner: a test holds this module to importing nothing of ``engine.planning``."""

from __future__ import annotations

import os
from collections.abc import Callable

from engine.backend.applying import Planned
from engine.backend.dependencies import require_installed
from engine.backend.options import Options
from engine.config.model import Module
from engine.config.module import load_module
from engine.config.providers import check_resource_types, configure_providers, unplanned_locals
from engine.diagnostics import DiagnosticsError, error, errors_of
from engine.events import stream as ev
from engine.plans.plan import prior_state
from engine.plans.planfile import SavedPlan, config_digest, state_mismatch
from engine.provider.registry import Providers
from engine.state.store import StateStore


async def open_saved_plan(opts: Options, saved: SavedPlan, emit: Callable[[ev.Event], None],
                          providers: Providers | None = None, store: StateStore | None = None) -> Planned:
    """A plan read back from a file, ready to apply without planning again: the state locked and
    loaded, the one the plan was made from (lineage and serial), with what refresh found put back;
    the configuration unchanged (its digest); the providers configured. Otherwise diagnostics say
    which, and nothing is changed. ``store``: the state, from
    :func:`~engine.backend.options.open_state` (locked), as for
    :func:`~engine.backend.operations.make_plan`. (``emit`` is not used yet: nothing is announced
    before the apply starts.)"""
    plan = saved.plan
    providers = providers or Providers()
    if store is None:
        store = StateStore(opts.state_file(), providers.dynamic_attrs, fsync=opts.fsync)
    existed = os.path.exists(opts.state_file())
    module: Module | None = None
    try:
        # the state as the plan saw it (a plan compacts no journal a crash left): checked before
        # anything is written, then the journal is folded in
        state = store.load(compact=False)
        mismatch = state_mismatch(saved, state.lineage if existed else None, state.serial if existed else None)
        if mismatch:
            raise DiagnosticsError(mismatch)
        if plan.errored:
            raise DiagnosticsError([error("Cannot apply incomplete plan",
                                          "strata encountered an error when generating this plan, so it cannot be "
                                          "applied.")])
        if config_digest(opts.chdir) != plan.config_digest:
            raise DiagnosticsError([error("Saved plan does not match the configuration", CHANGED_CONFIG)])
        module = load_module(opts.chdir)
        require_installed(module, opts.chdir, providers)
        # the providers are configured as for the plan (terraform's provider nodes are in both walks)
        diags = check_resource_types(module, providers)
        variables = dict(plan.variables)
        await configure_providers(module, providers, variables,
                                  unplanned_locals(module, providers, variables, diags), diags)
        if errors_of(diags):
            raise DiagnosticsError(errors_of(diags))
        store.compact(state)
        prior_state(plan, state)
    except DiagnosticsError as exc:
        raise DiagnosticsError(module.with_context(list(exc.diagnostics)) if module else exc.diagnostics) from None
    return Planned(module, state, plan, store, providers)


CHANGED_CONFIG = ("The configuration files changed after the plan was created, so it can no longer be applied: "
                  "apply evaluates the configuration the plan was made from. Run strata plan again.")


