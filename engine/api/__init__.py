"""strata for programs: see :mod:`engine.api.workspace`."""

from engine.api.workspace import ApplyOutcome, Change, Output, PlanResult, Run, Workspace
from engine.events.subscribers import Lagged, Sequenced, Subscription

__all__ = ["ApplyOutcome", "Change", "Lagged", "Output", "PlanResult", "Run", "Sequenced", "Subscription",
           "Workspace"]
